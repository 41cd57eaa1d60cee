"""The flags the AscendC runtime holds for the whole kernel.

On the AIC of arch 2201 (the 910b) and 3510 (the 950) `TPipe::Init` sets M -> MTE1 flags
0, 1 and 2 before the kernel's first op and `TPipe::DestroyWithoutPipeAll` waits for them
after its last (impl/basic_api/kernel_tpipe_impl.h, dav_3510/kernel_tpipe_impl_c310.h). A
kernel that sets one of them again sets a flag that is already set, and one that waits for
one leaves the runtime's wait hanging: the defect the CPU run of the emitted C++ found in
every 910b GEMM. The sync pass keeps the kernel's flags from M clear of those ids; a kernel
that needs them borrows them (waits for them first, sets them again last), and the
simulator starts an AIC with them set.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from example_kernels import example
from vendor_headers import needs_devkit

import tilec
import tilec.language as T
from tilec import ir, sim
from tilec.backends.ascend.cpu_model import AscendCRunError, run_compiled

pytestmark = pytest.mark.e2e


def _gemm(profile: str) -> tilec.CompiledKernel:
    return tilec.compile(example("gemm").matmul(100, 72, 50, in_dtype="float16"),
                         target=f"ascend:{profile}")


def _operands():
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (100, 50)).astype(np.float16)
    b = rng.integers(-3, 4, (50, 72)).astype(np.float16)
    return a, b, np.zeros((100, 72), np.float32), a.astype(np.float32) @ b.astype(np.float32)


def test_the_910b_kernel_flags_from_m_avoid_the_runtime_ids():
    kernel = _gemm("910b")
    ids = {int(i) for i in re.findall(r"ascend\.(?:set|wait)_flag m -> \w+, (\d+)",
                                      kernel.ir("ascend"))}
    assert ids and not ids & {0, 1, 2}, ids
    emitted = {int(i) for i in re.findall(r"<HardEvent::M_MTE1>\((\d+)\)", kernel.source())}
    assert emitted and not emitted & {0, 1, 2}, emitted
    a, b, c, ref = _operands()
    kernel(a, b, c)
    np.testing.assert_array_equal(c, ref)


def test_the_950_kernel_flags_from_m_avoid_the_runtime_ids():
    ids = {int(i) for i in re.findall(r"ascend\.(?:set|wait)_flag m -> mte1, (\d+)",
                                      _gemm("950").ir("ascend"))}
    assert ids and not ids & {0, 1, 2}, ids


@pytest.mark.slow
@needs_devkit
def test_the_950_gemm_runs_as_emitted_on_the_cpu_model():
    """The emitted C++ built against the vendor's headers for arch 3510, whose TPipe sets
    M_MTE1 0-2 on the AIC: the GEMM runs to the exact product; moved onto id 1, as it was
    before the 950 profile listed the runtime's flags, its first set of it is stopped."""
    kernel = _gemm("950")
    a, b, c, ref = _operands()
    kernel.run_ascendc(a, b, c)
    np.testing.assert_array_equal(c, ref)
    source = kernel.source()
    (event,) = set(re.findall(r"<HardEvent::M_MTE1>\((\d+)\)", source))
    edited = source.replace(f"<HardEvent::M_MTE1>({event})", "<HardEvent::M_MTE1>(1)")
    with pytest.raises(AscendCRunError, match=r"set_flag\(PIPE_M, PIPE_MTE1, 1\) sets a flag "
                                              r"already set before the kernel's first op"):
        run_compiled(kernel, [a, b, np.zeros_like(c)], edited)


def _products(count: int):
    """`count` products of one A and B into `count` accumulators, then their stores: the
    flags from M to FIX of all of them are pending at once."""

    @T.prim_func
    def products(A: T.Tensor((16, 16), "float16"), B: T.Tensor((16, 16), "float16"),
                 C: T.Tensor((16 * count, 16), "float32")):
        with T.Kernel(1, threads=128):
            a = T.alloc_shared((16, 16), "float16")
            b = T.alloc_shared((16, 16), "float16")
            accumulators = [T.alloc_fragment((16, 16), "float32") for _ in range(count)]
            T.copy(A[0, 0], a)
            T.copy(B[0, 0], b)
            for acc in accumulators:
                T.clear(acc)
                T.gemm(a, b, acc)
            for i, acc in enumerate(accumulators):
                T.copy(acc, C[i * 16, 0])

    return products


@pytest.mark.slow
@needs_devkit
@pytest.mark.parametrize("profile", ["910b", "950"])
def test_a_kernel_that_borrows_the_runtime_ids_runs_on_the_cpu_model(profile):
    """Three products need six flags from M pending at once: the kernel borrows the
    runtime's ids, and its C++ runs with the vendor's TPipe, which sets them before the
    kernel and waits for them after it, to the exact products."""
    kernel = tilec.compile(_products(3), target=f"ascend:{profile}")
    source = kernel.source()
    assert re.search(r"WaitFlag<HardEvent::M_MTE1>\(0\);.*SetFlag<HardEvent::M_MTE1>\(0\);\n",
                     source, re.S)
    rng = np.random.default_rng(2)
    a, b = (rng.integers(-3, 4, (16, 16)).astype(np.float16) for _ in range(2))
    c = np.zeros((48, 16), np.float32)
    kernel.run_ascendc(a, b, c)
    np.testing.assert_array_equal(c, np.tile(a.astype(np.float32) @ b.astype(np.float32), (3, 1)))


def _aic_flags(text: str) -> list[str]:
    """The flag and PIPE_ALL barrier lines of the AIC's part of a kernel, in order."""
    aic = text[text.index("ascend.core aic"):text.index("ascend.core aiv")]
    return re.findall(r"ascend\.(?:set_flag|wait_flag|pipe_barrier all)[^\n]*", aic)


def test_a_950_kernel_that_needs_the_runtime_ids_borrows_them():
    """Causal flash attention on the 950 with 128 x 128 tiles has more flags from M
    pending at once than the five ids the runtime leaves: its AIC waits for the runtime's
    flags first and sets them again last, each behind a PIPE_ALL barrier, and uses six
    ids in between. One AI core runs the six blocks of a causal grid (loops of several
    trip counts, whose loop-carried flags are drained right before the restoring sets);
    right under both readings of a flag's identity."""
    fa = example("flash_attention")
    kernel = tilec.compile(fa.flash_attention(1, 3, 200, 64, causal=True, dtype="float16",
                                              block_M=128, block_N=128),
                           target="ascend", profile="950", block_dim=1)
    text = kernel.ir("ascend")
    lines = _aic_flags(text)
    runtime = [f"m -> mte1, {i}" for i in range(3)]
    assert lines[:4] == [*(f"ascend.wait_flag {f}" for f in runtime), "ascend.pipe_barrier all"]
    assert lines[-4:] == ["ascend.pipe_barrier all", *(f"ascend.set_flag {f}" for f in runtime)]
    own = {int(i) for line in lines[4:-4] for i in re.findall(r"m -> \w+, (\d+)", line)}
    assert own & {0, 1, 2} and max(own) >= 5, own
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((1, 3, 200, 64)).astype(np.float16) for _ in range(3))
    rows, width = re.search(r"memref<\?x(\d+)xf16[^>]*>> \{ascend\.workspace = (\d+)",
                            text).group(2, 1)
    module = ir.parse_module(text, "<attention>", ir.make_context())
    expected = fa.reference(*(t.astype(np.float32) for t in (q, k, v)), True)
    for identity in ("pair", "source"):
        workspace = np.zeros((int(rows), int(width)), np.float16)
        result = sim.simulate(module, [q, k, v, np.zeros_like(q), workspace], profile="950",
                              flag_identity=identity)
        assert result.ok, [d.message for d in result.diagnostics]
        out = list(result.outputs.values())[3]  # Q, K, V, O, the workspace
        np.testing.assert_allclose(out.astype(np.float32), expected, atol=2e-3)


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_the_simulator_starts_the_aic_with_the_runtime_flags_set(profile):
    """Moved onto id 0, the kernel's M -> MTE1 flags set the runtime's flag a second
    time and consume it, so the runtime's final wait would hang: both are reported."""
    text = _gemm(profile).ir("ascend")
    moved = re.sub(r"(m -> mte1), \d+\b", r"\1, 0", text)
    assert moved != text
    a, b, c, _ = _operands()
    result = sim.simulate(ir.parse_module(moved, "<edited>", ir.make_context()), [a, b, c],
                          profile=profile)
    messages = [d.message for d in result.errors]
    assert any("sets flag m -> mte1, 0 that is already set" in m for m in messages), messages
    assert any("the AscendC runtime set before its first op" in m for m in messages), messages
