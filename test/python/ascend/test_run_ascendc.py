"""The AscendC tilec emits, run on the CPU (`kernel.run_ascendc`, tilec.backends.ascend.cpu_model):
the vendor's headers in their CPU-debug mode over the intrinsic model, every core a thread,
checked against numpy and against the simulator's run of the same kernel (bit for bit where
the arithmetic is exact), and two defects of the C++ alone (the kind only running it shows)
reintroduced on purpose: a mix kernel's vector cores indexing blocks with the raw
`GetBlockIdx()`, and a missing PipeBarrier between dependent vector calls.

Covered today: the 910b's vector kernels (GM <-> UB copies with pads, element-wise vector
calls and casts under masks, repeats and strides, reductions, Brcb, Compare / Select), its cube
path (Nd2Nz copies, L0A/L0B loads with transposes of every width, Mmad, Fixpipe) and mix
kernels (cross-core flags): every kernel of test_ascendc.py's KERNELS the emitter writes for
the 910b runs through the model (the sweep, marked slow) and matches the simulator, bit for
bit unless its arithmetic rounds in an order the two may take differently (sums of inexact
terms, exp, logarithms, tanh); softmax, norms, reductions, Select and flash attention are also
checked against numpy on every run (flash attention in the slow set). The 950's runs are
test_run_ascendc_950.py's.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import test_ascend_backend as backend_tests
import test_ascend_vector_kernels as vector_tests
from example_kernels import example
from test_ascendc import KERNELS, NOT_EMITTED, compiled
from vendor_headers import needs_devkit

import tilec
import tilec.language as T
from tilec.backends.ascend.cpu_model import AscendCRunError, BuildError, run_compiled
from tilec.runtime.signature import numpy_dtype

pytestmark = pytest.mark.e2e


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


def _gemm(m: int, n: int, k: int, out: str = "float32", profile: str = "910b"
          ) -> tuple[tilec.CompiledKernel, list[np.ndarray]]:
    kernel = tilec.compile(example("gemm").matmul(m, n, k, in_dtype="float16", out_dtype=out),
                           target=f"ascend:{profile}")
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


@needs_devkit
def test_each_l0_step_of_an_l1_k_slab_loads_its_own_fractals():
    """TileLang's 128x256x64 tiles with a ragged K: tile-ascend-k-slabs copies several K
    steps into one L1 slab, and each step's L1 -> L0B load must stride by the slab's
    height, not the step's (it read the wrong fractals for every column block past the
    first: the simulator was right, the emitted C++ was not)."""
    m, n, k = 128, 256, 130
    kernel = tilec.compile(example("gemm").matmul(m, n, k, in_dtype="float16", block_M=128,
                                                  block_N=256, block_K=64),
                           target="ascend:910b", block_dim=1)
    rng = np.random.default_rng(2)
    # small integers: every product and sum exact in float32, whatever the order
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    simulated, ran = np.zeros((m, n), np.float32), np.zeros((m, n), np.float32)
    kernel(a, b, simulated)
    kernel.run_ascendc(a, b, ran)
    assert np.array_equal(simulated, expected)
    assert np.array_equal(ran, expected)


@pytest.mark.slow
@needs_devkit
def test_a_gemm_runs_as_emitted():
    """The emitted source unchanged: its M -> MTE1 flags stay clear of the ids the 910b's
    TPipe holds (kernel_tpipe_impl.h), which the model's runtime sets as TPipe does."""
    kernel, args = _gemm(100, 72, 50)
    kernel.run_ascendc(*args)
    assert np.array_equal(args[2], args[0].astype(np.float32) @ args[1].astype(np.float32))


def _mix(profile: str = "910b") -> tuple[tilec.CompiledKernel, list[np.ndarray], np.ndarray]:
    kernel = tilec.compile(backend_tests.gemm_then_scale, target=f"ascend:{profile}")
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
    check_the_raw_block_index_goes_wrong("910b")


def check_the_raw_block_index_goes_wrong(profile: str) -> None:
    """The mix kernel's AIVs with the raw GetBlockIdx(): one waits for a flag the AIV that
    skipped its rows never sets, or (as the threads race) it finishes with those rows
    unscaled."""
    kernel, args, expected = _mix(profile)
    source = kernel.source()
    assert "GetBlockIdx() / GetTaskRatio()" in source
    raw = source.replace("GetBlockIdx() / GetTaskRatio()", "GetBlockIdx()")
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


EMITTED = sorted(name for name in KERNELS if (name, "910b") not in NOT_EMITTED)
"""The kernels of test_ascendc.py the emitter writes for the 910b."""
DYNAMIC = 37
"""The size of every dynamic dimension in the sweep (no multiple of a tile)."""
ROUNDED = {
    "attention_f32": 1e-5, "attention_f32_causal": 1e-5, "elementwise_exp_relu": 1e-5,
    "gemm_softmax_mix": 1e-5, "layernorm": 1e-5, "mla_decode_split": 2e-3, "rmsnorm": 1e-5,
    "rmsnorm_dynamic": 1e-5, "rmsnorm_f16": 2e-3, "scalar_math": 1e-5, "scalar_tanh": 1e-5,
    "scalar_tanh_f16": 2e-3, "softmax": 1e-5, "softmax_dynamic": 1e-5, "softmax_f16": 2e-3,
}
"""Kernels whose results the simulator and the model may round differently, with the
tolerance (relative to the largest output): exp, logarithms and tanh (each side's library),
and the sums, roots and quotients of what they and means produce, summed in orders that
differ (numpy's pairwise sum, the model's reduction tree). Every other kernel's data
(quarter integers, small integers) keeps its arithmetic exact: it must match bit for bit."""


def _arguments(kernel: tilec.CompiledKernel, seed: int = 0) -> list[object]:
    """Data for every parameter: quarter integers in [-2, 2] for floats (every sum and
    product of a few exact), integers in [0, 8) for integer inputs (in range as gather
    indices), zeros for what the kernel writes, 1.5 or 3 for scalars."""
    rng = np.random.default_rng(seed)
    args: list[object] = []
    for param in kernel.params:
        dtype = numpy_dtype(param.element)
        if not param.is_array:
            args.append(dtype.type(3 if np.issubdtype(dtype, np.integer) else 1.5))
            continue
        shape = tuple(DYNAMIC if size is None else size for size in param.shape)
        if param.written:
            args.append(np.zeros(shape, dtype))
        elif np.issubdtype(dtype, np.integer):
            args.append(rng.integers(0, 8, shape).astype(dtype))
        else:
            args.append((rng.integers(-8, 9, shape) / 4).astype(dtype))
    return args


@pytest.mark.slow
@needs_devkit
@pytest.mark.parametrize("name", EMITTED)
def test_every_kernel_of_the_suite_computes_what_the_simulator_computes(name):
    check_against_the_simulator(name, "910b")


def check_against_the_simulator(name: str, profile: str) -> None:
    """test_ascendc.py's kernel `name` on `profile`, on `_arguments`' data: what it writes is
    the same in the simulator's run and the model's, bit for bit, or within ROUNDED's
    tolerance (NaNs and infinities where the simulator has them)."""
    kernel = compiled(name, profile)
    args = _arguments(kernel)
    simulated = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel(*simulated)
    ran = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel.run_ascendc(*ran)
    tolerance = ROUNDED.get(name)
    for param, want, got in zip(kernel.params, simulated, ran, strict=True):
        if not param.written:
            continue
        if tolerance is None:
            assert np.array_equal(got, want, equal_nan=True), param.name
            continue
        want64, got64 = want.astype(np.float64), got.astype(np.float64)
        finite = np.isfinite(want64)  # infinities and NaNs (log2 of 0 and below) the same
        assert np.array_equal(got64[~finite], want64[~finite], equal_nan=True), param.name
        scale = max(float(np.max(np.abs(want64[finite]), initial=0)), 1.0)
        np.testing.assert_allclose(got64[finite], want64[finite], rtol=0,
                                   atol=tolerance * scale, err_msg=param.name)


def _softmax_data(rng: np.random.Generator, kernel: tilec.CompiledKernel) -> list[np.ndarray]:
    x = (rng.standard_normal((32, 256)) * 4).astype(np.float32)
    x = example("softmax").masked_rows(x)  # all -inf rows are NaN, as numpy's
    return [x, np.zeros_like(x)]


def _rmsnorm_data(rng: np.random.Generator, kernel: tilec.CompiledKernel) -> list[np.ndarray]:
    x = rng.standard_normal((20, 130)).astype(np.float16)
    return [x, rng.standard_normal(130).astype(np.float16), np.zeros_like(x)]


def _layernorm_data(rng: np.random.Generator, kernel: tilec.CompiledKernel) -> list[np.ndarray]:
    x = rng.standard_normal((19, 48)).astype(np.float32)
    return [x, rng.standard_normal(48).astype(np.float32), np.zeros_like(x)]


def _layernorm(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    centered = x - x.mean(axis=1, keepdims=True)
    return centered / np.sqrt((centered**2).mean(axis=1, keepdims=True) + 1e-5) * g


def _attention_data(rng: np.random.Generator, kernel: tilec.CompiledKernel) -> list[np.ndarray]:
    q, k, v = (rng.standard_normal((1, 1, 70, 32)).astype(np.float32) for _ in range(3))
    return [q, k, v, np.zeros_like(q)]


def _select_data(rng: np.random.Generator, kernel: tilec.CompiledKernel) -> list[np.ndarray]:
    a, b = (rng.standard_normal((37, 70)).astype(np.float32) for _ in range(2))
    b[::4] = a[::4]  # ties: a > b is false there
    return [a, b, np.zeros_like(a)]


def _reduce_data(rng: np.random.Generator, kernel: tilec.CompiledKernel) -> list[np.ndarray]:
    x = rng.standard_normal((20, 64)).astype(np.float32)
    return [x, np.zeros(kernel.params[1].shape, np.float32)]


NUMPY_CHECKED = {
    # name: (data, numpy reference of the output from the inputs, tolerance)
    "softmax": (_softmax_data, lambda x: example("softmax").reference(x), 1e-6),
    "rmsnorm_f16": (_rmsnorm_data, lambda x, w: example("rmsnorm").reference(x, w), 4e-3),
    "layernorm": (_layernorm_data, _layernorm, 1e-5),
    "elementwise_select": (_select_data, lambda a, b: np.where(a > b, a - b, b * 2), 0),
    "row_reduce_absmax": (_reduce_data, lambda x: np.abs(x).max(axis=1), 0),
    "column_reduce_max": (_reduce_data, lambda x: x.max(axis=0), 0),
    "attention_f32_causal": (
        _attention_data,
        lambda q, k, v: example("flash_attention").reference(q, k, v, causal=True), 1e-5),
}


@needs_devkit
@pytest.mark.parametrize("name", [
    *(n for n in NUMPY_CHECKED if n != "attention_f32_causal"),
    pytest.param("attention_f32_causal", marks=pytest.mark.slow)])
def test_reductions_selects_and_attention_compute_what_numpy_computes(name):
    """Softmax (with -inf rows), norms, reductions, Select and flash attention: the model's
    run matches numpy, and the simulator's run within the same tolerance (exactly where
    the tolerance is 0: max, abs, compares and selects round nothing)."""
    check_against_numpy(name, "910b")


def check_against_numpy(name: str, profile: str) -> None:
    """NUMPY_CHECKED's kernel `name` on `profile`: the model's run matches numpy, and the
    simulator's run, within its tolerance."""
    data, reference, tolerance = NUMPY_CHECKED[name]
    kernel = compiled(name, profile)
    args = data(np.random.default_rng(4), kernel)
    simulated, ran = _run_both(kernel, args)
    want = reference(*(a.astype(np.float32) for a in args[:-1]))
    scale = float(np.nanmax(np.abs(want)))
    assert np.array_equal(np.isnan(ran), np.isnan(want))
    np.testing.assert_allclose(ran.astype(np.float32), want, rtol=0, atol=tolerance * scale)
    np.testing.assert_allclose(ran, simulated, rtol=0, atol=tolerance * scale)


def _byte_rows(n: int) -> T.PrimFunc:
    """25 bytes a block into a 64-byte tile, the last block past the edge: the zero fill of
    an odd run of 8-bit data, which the 910b's Duplicate cannot write."""

    @T.prim_func
    def byte_rows(A: T.Tensor((n,), "uint8"), B: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, 25)) as bx:
            t = T.alloc_fragment((64,), "uint8")
            o = T.alloc_fragment((64,), "float32")
            T.copy(A[bx * 25:(bx + 1) * 25], t[0:25])
            for i in T.Parallel(64):
                o[i] = T.cast(t[i], "float32")
            T.copy(o[0:25], B[bx * 25:(bx + 1) * 25])

    return byte_rows


@needs_devkit
def test_an_odd_run_of_bytes_is_zeroed_on_the_scalar_unit():
    kernel = tilec.compile(_byte_rows(90), target="ascend:910b")
    assert "SetFlag<HardEvent::MTE2_S>" in kernel.source()
    a = (np.arange(90) % 251 + 1).astype(np.uint8)
    simulated, ran = _run_both(kernel, [a, np.zeros(90, np.float32)])
    np.testing.assert_array_equal(ran, a.astype(np.float32))
    np.testing.assert_array_equal(ran, simulated)


def _strided_walk(n: int, chunk: int) -> T.PrimFunc:
    """Each of 2 blocks doubles every other chunk of X from its own first one, in a Python
    `while` on a local counter (an `scf.while`, as TileLang's stream-K GEMM walks its tiles)."""

    @T.prim_func
    def strided_walk(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32")):
        with T.Kernel(2) as bx:
            at = T.alloc_fragment((1,), "int32", "local")
            t = T.alloc_fragment((chunk,), "float32")
            at[0] = bx * chunk
            while at[0] < n:
                T.copy(X[at[0]:], t)
                for i in T.Parallel(chunk):
                    t[i] = t[i] * 2
                T.copy(t, Y[at[0]:])
                at[0] = at[0] + 2 * chunk

    return strided_walk


@needs_devkit
def test_a_while_loop_runs_as_emitted():
    kernel = tilec.compile(_strided_walk(200, 32), target="ascend:910b")
    assert "while (true) {" in kernel.source()
    x = np.arange(200, dtype=np.float32)
    simulated, ran = _run_both(kernel, [x, np.zeros(200, np.float32)])
    np.testing.assert_array_equal(ran, 2 * x)
    np.testing.assert_array_equal(ran, simulated)


def _column_broadcast() -> T.PrimFunc:
    """Each row of Y is twice X's element of that row in column 1: a column of a wider UB
    tile broadcast along a row. Brcb reads its 8 source elements consecutively, so the
    column is gathered into a tile of its own first; the emitter once read the strided
    view as 8 consecutive elements, wrong numbers the simulator could not see."""

    @T.prim_func
    def column_broadcast(X: T.Tensor((8, 4), "float32"), Y: T.Tensor((8, 16), "float32")):
        with T.Kernel(1) as _:
            t = T.alloc_fragment((8, 4), "float32")
            o = T.alloc_fragment((8, 16), "float32")
            T.copy(X, t)
            for i, j in T.Parallel(8, 16):
                o[i, j] = t[i, 1] * 2.0
            T.copy(o, Y)

    return column_broadcast


@needs_devkit
def test_a_column_of_a_wider_tile_broadcasts_as_emitted():
    kernel = tilec.compile(_column_broadcast(), target="ascend:910b")
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    simulated, ran = _run_both(kernel, [x, np.zeros((8, 16), np.float32)])
    np.testing.assert_array_equal(ran, np.broadcast_to(2 * x[:, 1:2], (8, 16)))
    np.testing.assert_array_equal(ran, simulated)
