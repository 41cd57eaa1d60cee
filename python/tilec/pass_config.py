"""tilelang-ascend's `pass_configs`: `@tilelang.jit(pass_configs={PassConfigKey.X: v})`.

Upstream a pass config switches a compiler pass on or off. tilec reads them as
compile options, so a kernel written for tilelang-ascend compiles unchanged:

- `TL_ASCEND_AUTO_SYNC` is the ascend option `auto_sync` (whether tilec
  synchronizes the pipes of a kernel whose author did, in place of the author's
  flags and barriers);
- `TL_ASCEND_AUTO_CV_COMBINE`, `TL_ASCEND_AUTO_CV_SYNC` and
  `TL_ASCEND_MEMORY_PLANNING` ask for work tilec always does: it splits a kernel
  between the cube and vector cores, orders the cores of the kernels it splits,
  and plans on-chip memory honouring `T.alloc_L1/.../ub` and `T.annotate_address`.
  They take True or False, and neither changes the kernel: False cannot switch
  the work off, but what it would leave to the author, the author has written,
  and tilec keeps it (`T.Scope` regions, cross-core flags, explicit placements);
- the other keys tune TVM passes tilec does not have; they are accepted and
  have no effect.

The ascend keys are ignored on other targets, so one kernel serves all of them.
A key that is not tilelang-ascend's, or an ascend key whose value is not a bool,
is an error at the user's `jit` call.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from tilec.language.errors import DSLError
from tilec.language.source import caller_loc


class PassConfigKey(StrEnum):
    """tilelang-ascend's pass config keys, with its values (a key or its string works)."""

    TL_SIMPLIFY = "tl.Simplify"
    TL_DYNAMIC_ALIGNMENT = "tl.dynamic_alignment"
    TL_DISABLE_DYNAMIC_TAIL_SPLIT = "tl.disable_dynamic_tail_split"
    TL_DISABLE_WARP_SPECIALIZED = "tl.disable_warp_specialized"
    TL_CONFIG_INDEX_BITWIDTH = "tl.config_index_bitwidth"
    TL_DISABLE_TMA_LOWER = "tl.disable_tma_lower"
    TL_DISABLE_SAFE_MEMORY_ACCESS = "tl.disable_safe_memory_legalize"
    TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS = "tl.debug_merge_shared_memory_allocations"
    TL_ASCEND_AUTO_SYNC = "tl.ascend_auto_sync"
    TL_ASCEND_MEMORY_PLANNING = "tl.ascend_memory_planning"
    TL_ASCEND_AUTO_CV_COMBINE = "tl.ascend_auto_cv_combine"
    TL_ASCEND_AUTO_CV_SYNC = "tl.ascend_auto_cross_core_sync"
    TIR_ENABLE_EQUIV_TERMS_IN_CSE = "tir.enable_equiv_terms_in_cse_tir"
    TIR_DISABLE_CSE = "tir.disable_cse_tir"
    TIR_SIMPLIFY = "tir.Simplify"
    TIR_DISABLE_STORAGE_REWRITE = "tir.disable_storage_rewrite"
    TIR_DISABLE_VECTORIZE = "tir.disable_vectorize"
    TIR_USE_ASYNC_COPY = "tir.use_async_copy"
    TIR_ENABLE_DEBUG = "tir.enable_debug"
    TIR_MERGE_STATIC_SMEM = "tir.merge_static_smem"
    TIR_ADD_LOWER_PASS = "tir.add_lower_pass"
    TIR_NOALIAS = "tir.noalias"
    CUDA_KERNELS_OUTPUT_DIR = "cuda.kernels_output_dir"


ASCEND_OPTIONS = {PassConfigKey.TL_ASCEND_AUTO_SYNC: "auto_sync"}
"""The ascend keys that are compile options of the ascend target, by option name."""

ALWAYS_ON = frozenset({
    PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE,
    PassConfigKey.TL_ASCEND_AUTO_CV_SYNC,
    PassConfigKey.TL_ASCEND_MEMORY_PLANNING,
})
"""The ascend keys for work tilec always does."""


def _key(key: object) -> PassConfigKey:
    try:
        return PassConfigKey(key)
    except ValueError:
        raise DSLError(
            f"pass_configs: unknown key {key!r}; tilelang-ascend's ascend keys are "
            f"{', '.join(repr(k.value) for k in (*ASCEND_OPTIONS, *sorted(ALWAYS_ON)))} "
            "(tilelang.PassConfigKey lists all)",
            caller_loc(),
        ) from None


def compile_options(pass_configs: Mapping[object, object] | None, target: str,
                    options: Mapping[str, object]) -> dict[str, object]:
    """The compile options for `target` (a target name: cpu, cuda, ascend) that
    `pass_configs` asks for, checked against the `options` given beside them."""
    if pass_configs is None:
        return {}
    if not isinstance(pass_configs, Mapping):
        raise DSLError(f"pass_configs must be a dict of PassConfigKey to values but got "
                       f"{type(pass_configs).__name__}", caller_loc())
    found: dict[str, object] = {}
    for given, value in pass_configs.items():
        key = _key(given)
        if key not in ASCEND_OPTIONS and key not in ALWAYS_ON:
            continue
        if not isinstance(value, bool):
            raise DSLError(f"pass_configs: {key.value} takes True or False but got {value!r}",
                           caller_loc())
        option = ASCEND_OPTIONS.get(key)
        if option is None or target != "ascend":
            continue
        if option in options and options[option] != value:
            raise DSLError(f"pass_configs: {key.value}={value} contradicts the compile option "
                           f"{option}={options[option]!r}: give one of them", caller_loc())
        found[option] = value
    return found
