"""The tiles a library op runs with, chosen by measuring them on the call's own data.

An op offers its kernel's tile configs, the first of them its default (what
a call runs when nothing has been measured). Inside `autotuning()`, or with
`$TILEC_KERNELS_AUTOTUNE=1`, the first call for a shape, dtype and target
tunes them with `tilec.autotuner.AutoTuner` on copies of its arguments: each
config's outputs are checked against the default's, and measured by the
target's measure (wall time on cpu, simulated cycles on ascend); a config that
does not compile is skipped with its reason. The winner goes to the tuning
cache under `$TILEC_CACHE_DIR`, so every later call with that key, in this
process or another, tuning or not, runs it without measuring anything.

Only host data is tuned (numpy arrays and CPU tensors, which every candidate
gets a fresh copy of); a call on CUDA tensors runs the cached winner or the
default.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from tilec.autotuner import AutoTuner, AutotuneResult
from tilec.kernels import targets

Config = dict[str, object]
Build = Callable[[Config], object]

ENV = "TILEC_KERNELS_AUTOTUNE"
_TUNING: ContextVar[bool | None] = ContextVar("tilec_kernels_autotuning", default=None)

# The kernel builder of each (op, variant), for the function the tuner tunes.
_BUILDERS: dict[tuple[str, tuple[object, ...]], Build] = {}
# The winner measured for each (op, variant, signature, target), in this process, and
# the keys the tuning cache had no winner for when last asked (asked again when tuning).
_CHOSEN: dict[tuple[object, ...], Config] = {}
_UNMEASURED: set[tuple[object, ...]] = set()
# Milliseconds of calls before and while timing a candidate on cpu.
_WARMUP_MS, _REP_MS = 10, 40


@contextmanager
def autotuning(enabled: bool = True) -> Iterator[None]:
    """Library calls in the block tune their tiles on first use (or, with `enabled`
    False, never do, whatever `$TILEC_KERNELS_AUTOTUNE` says)."""
    token = _TUNING.set(enabled)
    try:
        yield
    finally:
        _TUNING.reset(token)


def tuning_enabled() -> bool:
    chosen = _TUNING.get()
    if chosen is not None:
        return chosen
    return os.environ.get(ENV, "") not in ("", "0")


def _variant_kernel(api: str, variant: tuple[object, ...], signature: tuple[object, ...],
                    **config: object) -> object:
    """The kernel of `api`'s `variant` with the tiles `config`: the function the tuner
    tunes, whose bound arguments (op, variant, argument shapes and dtypes) key the winner."""
    del signature  # part of the key only: the kernel's dims are symbolic
    return _BUILDERS[api, variant](config)


def _signature(args: Sequence[object]) -> tuple[object, ...]:
    return tuple((tuple(getattr(a, "shape", ())), str(getattr(a, "dtype", type(a).__name__)))
                 for a in args)


def _config_key(config: Config) -> tuple[object, ...]:
    return tuple(sorted(config.items()))


def _tuner(api: str, variant: tuple[object, ...], configs: list[Config], build: Build,
           target: str, args: Sequence[object]) -> AutoTuner:
    _BUILDERS[api, variant] = build
    bound = functools.partial(_variant_kernel, api, variant, _signature(args))
    bound.__name__ = api  # what the tuner's progress lines name
    default = configs[0]

    def outputs_of_default(*inputs: object) -> list[object]:
        reference = targets.compiled(api, (*variant, *_config_key(default)),
                                     lambda: build(default), target)
        reference(*inputs)
        return [a for p, a in zip(reference.params, inputs, strict=True) if p.written]

    tuner = AutoTuner(bound, configs).set_compile_args(target=target)
    return tuner.set_profile_args(supply_prog=lambda params: list(args),
                                  ref_prog=outputs_of_default)


def choose(api: str, variant: tuple[object, ...], configs: Sequence[Config], build: Build,
           target: str, args: Sequence[object]) -> Config:
    """The config a call of `api` on `args` runs: tuned now (when tuning is on and
    nothing is cached), the cached winner, or the default (`configs[0]`)."""
    configs = [dict(c) for c in configs]
    key = (api, variant, _signature(args), target)
    tuning = tuning_enabled()
    if key in _CHOSEN:
        return _CHOSEN[key]
    if len(configs) == 1 or not all(isinstance(a, np.ndarray) for a in args) or (
            key in _UNMEASURED and not tuning):
        return configs[0]
    tuner = _tuner(api, variant, configs, build, target, args)
    result: AutotuneResult | None = tuner.run(_WARMUP_MS, _REP_MS) if tuning else tuner.cached()
    if result is None:
        _UNMEASURED.add(key)
        return configs[0]
    _CHOSEN[key] = result.config
    return result.config


def launch(api: str, variant: tuple[object, ...], configs: Sequence[Config], build: Build,
           target: str, *args: object) -> None:
    """`targets.launch` of the kernel `build(config)` makes, with the config `choose` picks."""
    config = choose(api, variant, configs, build, target, args)
    targets.launch(api, (*variant, *_config_key(config)), lambda: build(config), target,
                   *args, config=config)
