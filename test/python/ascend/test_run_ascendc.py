"""The AscendC tilec emits, run on the CPU (`kernel.run_ascendc`, tilec.backends.ascend.cpu_model):
the vendor's headers in their CPU-debug mode over the intrinsic model, every core a thread,
checked against numpy and against the simulator's run of the same kernel (bit for bit where
the arithmetic is exact), and two defects of the C++ alone (the kind only running it shows)
reintroduced on purpose: a mix kernel's vector cores indexing blocks with the raw
`GetBlockIdx()`, and a missing PipeBarrier between dependent vector calls.

Covered today: the 910b's vector kernels (GM <-> UB copies with pads, element-wise vector
calls and casts under masks, repeats and strides), its cube path (Nd2Nz copies, L0A/L0B loads with
transposes, Mmad, Fixpipe) and mix kernels (cross-core flags). The 950's class API runs its
vector calls through register-level intrinsics the model does not have yet.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import test_ascend_backend as backend_tests
import test_ascend_vector_kernels as vector_tests
from example_kernels import example
from test_ascendc import needs_devkit

import tilec
import tilec.language as T
from tilec.backends.ascend.cpu_model import AscendCRunError, BuildError, run_compiled


def scaled(a, b):
    """Muls, then Add and Mul each reading the one before: PipeBarrier<PIPE_V> between them."""
    return (a * 0.75 + b) * a


def _run_both(kernel: tilec.CompiledKernel, args: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """The outputs of the simulator's call and of run_ascendc, each on its own copy."""
    simulated = [a.copy() for a in args]
    kernel(*simulated)
    ran = [a.copy() for a in args]
    kernel.run_ascendc(*ran)
    return simulated[-1], ran[-1]


@needs_devkit
@pytest.mark.parametrize("body", ["add", "add_f16",
                                  pytest.param("exp_relu", marks=pytest.mark.slow),
                                  pytest.param("scaled", marks=pytest.mark.slow)])
def test_element_wise_kernels_compute_what_the_simulator_computes(body):
    bodies = {"add": (lambda a, b: a + b, lambda a, b: a + b),
              "exp_relu": (lambda a, b: T.max(T.exp(a) - b, 0.0),
                           lambda a, b: np.maximum(np.exp(a) - b, 0)),
              "scaled": (scaled, lambda a, b: (a * np.float32(0.75) + b) * a)}
    dsl, reference = bodies[body.removesuffix("_f16")]
    dtype = "float16" if body.endswith("_f16") else "float32"
    # 37 x 70 over 16 x 32 tiles: ragged in both dimensions (f16 data: f32 tiles, Cast in
    # and out)
    kernel = tilec.compile(vector_tests.elementwise(37, 70, dsl, dtype), target="ascend:910b")
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((37, 70)).astype(dtype) for _ in range(2))
    simulated, ran = _run_both(kernel, [a, b, np.zeros_like(a)])
    tolerance = 1e-3 if dtype == "float16" else 2e-6
    np.testing.assert_allclose(ran, reference(a, b), rtol=tolerance, atol=tolerance)
    if body == "exp_relu":  # exp is the library's on both sides, not bitwise the same
        np.testing.assert_allclose(ran, simulated, rtol=2e-6, atol=1e-6)
    else:
        assert np.array_equal(ran, simulated)


@needs_devkit
def test_a_missing_pipe_barrier_between_dependent_vector_calls_is_a_hazard():
    kernel = tilec.compile(vector_tests.elementwise(37, 70, scaled, "float32"),
                           target="ascend:910b")
    source = kernel.source()
    add = source.index("Add(t")
    barrier = source.rindex("PipeBarrier<PIPE_V>();", 0, add)
    edited = source[:barrier] + source[barrier + len("PipeBarrier<PIPE_V>();"):]
    a = np.ones((37, 70), np.float32)
    with pytest.raises(AscendCRunError) as failure:
        run_compiled(kernel, [a, a.copy(), np.zeros_like(a)], edited)
    line = source[:add].count("\n") + 1
    message = str(failure.value)
    assert re.search(rf"kernel.cpp:{line - 1}: error: ascend.vbin add: vadd \(PIPE_V\) reads "
                     r"what vmuls \(PIPE_V\)", message), message
    assert "a PipeBarrier of the pipe is missing" in message


def _gemm(m: int, n: int, k: int, out: str = "float32"
          ) -> tuple[tilec.CompiledKernel, list[np.ndarray]]:
    kernel = tilec.compile(example("gemm").matmul(m, n, k, in_dtype="float16", out_dtype=out),
                           target="ascend:910b")
    rng = np.random.default_rng(2)
    # small integers: every product and sum exact in float32, whatever the order
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    return kernel, [a, b, np.zeros((m, n), out)]


@needs_devkit
@pytest.mark.parametrize("out", ["float32", pytest.param("float16", marks=pytest.mark.slow)])
def test_a_gemm_computes_the_exact_product(out):
    kernel, args = _gemm(100, 72, 50, out)  # no dimension a multiple of its tile
    simulated = [x.copy() for x in args]
    kernel(*simulated)
    kernel.run_ascendc(*args)
    expected = (args[0].astype(np.float32) @ args[1].astype(np.float32)).astype(out)
    assert np.array_equal(args[2], expected)
    assert np.array_equal(args[2], simulated[2])


@pytest.mark.slow
@needs_devkit
def test_a_gemm_runs_as_emitted():
    """The emitted source unchanged: its M -> MTE1 flags stay clear of the ids the 910b's
    TPipe holds (kernel_tpipe_impl.h), which the model's runtime sets as TPipe does."""
    kernel, args = _gemm(100, 72, 50)
    kernel.run_ascendc(*args)
    assert np.array_equal(args[2], args[0].astype(np.float32) @ args[1].astype(np.float32))


def _mix() -> tuple[tilec.CompiledKernel, list[np.ndarray], np.ndarray]:
    kernel = tilec.compile(backend_tests.gemm_then_scale, target="ascend:910b")
    assert "KERNEL_TYPE_MIX_AIC_1_2" in kernel.source()
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (64, 64)).astype(np.float16)
    b = rng.integers(-3, 4, (64, 64)).astype(np.float16)
    expected = 2 * (a.astype(np.float32) @ b.astype(np.float32))
    return kernel, [a, b, np.zeros((64, 64), np.float32)], expected


@pytest.mark.slow
@needs_devkit
def test_a_mix_kernel_hands_the_tile_to_both_vector_cores():
    kernel, args, expected = _mix()
    kernel.run_ascendc(*args)
    assert np.array_equal(args[2], expected)


@needs_devkit
def test_a_mix_kernel_indexing_blocks_with_the_raw_block_index_goes_wrong():
    """On a mix kernel's AIV, GetBlockIdx() is 2 * block + sub-block
    (kernel_operator_sys_var_impl.h): the second AIV of block 0 takes block 1's work, which
    a grid of one block does not have."""
    kernel, args, expected = _mix()
    source = kernel.source()
    assert "GetBlockIdx() / GetTaskRatio()" in source
    raw = source.replace("GetBlockIdx() / GetTaskRatio()", "GetBlockIdx()")
    # it waits for a flag the AIV that skipped its rows never sets, or (as the threads race)
    # finishes with those rows unscaled
    try:
        run_compiled(kernel, args, raw)
    except AscendCRunError as failure:
        assert "deadlock" in str(failure), failure
    else:
        assert not np.array_equal(args[2], expected)


@pytest.mark.slow
@needs_devkit
def test_a_deadlock_names_the_flag_and_the_line():
    """Without the cube's 'ready' set, both vector cores wait for it forever."""
    kernel, args, _ = _mix()
    source = kernel.source()
    edited = source.replace("CrossCoreSetFlag<2, PIPE_FIX>(0);", "")
    assert edited != source
    wait = source.index("CrossCoreWaitFlag<2, PIPE_MTE2>(0);")
    marker = source[:wait].count("\n")  # the op's marker, the line above the call
    with pytest.raises(AscendCRunError) as failure:
        run_compiled(kernel, args, edited)
    message = str(failure.value)
    assert message.startswith("error: deadlock: every core still running waits"), message
    for sub_block in (0, 1):
        assert (f"kernel.cpp:{marker}: ascend.cross_core_wait_flag: AIV of block 0 "
                f"(sub-block {sub_block}) waits for cross-core flag 0") in message, message


@pytest.mark.slow
@needs_devkit
def test_a_source_the_headers_reject_is_an_error():
    kernel = tilec.compile(vector_tests.elementwise(37, 70, scaled, "float32"),
                           target="ascend:910b")
    edited = kernel.source().replace(".blockCount =", ".blockCnt =", 1)
    a = np.ones((37, 70), np.float32)
    with pytest.raises(BuildError, match="blockCnt"):
        run_compiled(kernel, [a, a.copy(), np.zeros_like(a)], edited)


def test_without_the_headers_the_error_says_how_to_get_them(monkeypatch):
    kernel = tilec.compile(vector_tests.elementwise(37, 70, scaled, "float32"),
                           target="ascend:910b")
    monkeypatch.delenv("ASCEND_DEVKIT", raising=False)
    a = np.ones((37, 70), np.float32)
    with pytest.raises(BuildError, match=r"set ASCEND_DEVKIT to a copy of "
                                         r"https://github.com/mirror-cann/asc-devkit"):
        kernel.run_ascendc(a, a.copy(), np.zeros_like(a))
    assert "ASCEND_DEVKIT" not in os.environ


def test_the_950_is_not_modelled_yet():
    kernel = tilec.compile(vector_tests.elementwise(37, 70, scaled, "float32"),
                           target="ascend:950")
    a = np.ones((37, 70), np.float32)
    with pytest.raises(AscendCRunError, match=r"runs the 910b's AscendC .*not 3510"):
        kernel.run_ascendc(a, a.copy(), np.zeros_like(a))
