"""bool and 8-bit float tensors on the cpu, bit for bit against numpy and
ml_dtypes: copies global -> tile -> global with conversions, element-wise
T.Parallel code, fp8 gemm operands, sums of bools (ors) and fp8 atomic adds,
on ragged shapes. Bools are bytes
(`tile-widen-bools`); 8-bit floats are bytes converted by exact integer
code (`tile-cpu-emulate-fp8`). No bool or fp8 kernel may abort the process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import cpu_tile_ir as tile_ir
import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.runtime.signature import ArgumentError

pytestmark = pytest.mark.e2e

E4M3 = ml_dtypes.float8_e4m3fn
E5M2 = ml_dtypes.float8_e5m2
DTYPES = {
    "i1": np.dtype(bool),
    "i8": np.dtype(np.int8),
    "i32": np.dtype(np.int32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f8E4M3FN": np.dtype(E4M3),
    "f8E5M2": np.dtype(E5M2),
}
# 19 x 77 through 8 x 40 tiles: partial tiles in both dims.
SHAPE = (19, 77)
RNG = np.random.default_rng(8)

# Floats that probe each fp8 rounding rule: zeros, inf and NaN of both
# signs, e4m3fn's largest value (448), its halfway point to the NaN
# encoding (464, rounds to even 448) and just past it (465, NaN), e5m2's
# largest (57344) and its halfway point to inf (61440), subnormals of both
# formats and halfway between them, values below half the smallest
# subnormal, f32 subnormals, huge values, and an f64 just above an e4m3fn
# halfway point that f32 rounds onto it (ml_dtypes rounds f64 through f32).
SPECIAL = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        -np.nan,
        448,
        -448,
        464,
        465,
        479,
        480,
        1e9,
        57344,
        61439,
        61440,
        61441,
        -61440,
        2**-9,
        2**-10,
        3 * 2**-10,
        1.5 * 2**-9,
        2**-16,
        2**-17,
        3 * 2**-17,
        2**-18,
        1e-40,
        -1e-40,
        1e30,
        1.0625 + 2**-40,
        1.0625,
        1.1875,
    ],
    np.float64,
)


def _source(element: str) -> np.ndarray:
    """A SHAPE array of `element`: every fp8 bit pattern, the special floats
    then random ones of every magnitude, random ints, random bools."""
    count = SHAPE[0] * SHAPE[1]
    dtype = DTYPES[element]
    if element.startswith("f8"):
        return np.resize(np.arange(256, dtype=np.uint8), SHAPE).view(dtype)
    if element == "i1":
        return RNG.random(SHAPE) < 0.5
    if dtype.kind == "i":
        return RNG.integers(-700, 700, SHAPE).astype(dtype)
    scale = RNG.choice([2.0**-12, 2.0**-6, 1.0, 100.0, 3e4], count)
    values = np.concatenate([SPECIAL, RNG.standard_normal(count) * scale])[:count]
    with np.errstate(over="ignore"):
        return values.astype(dtype).reshape(SHAPE)


def _bits(array: np.ndarray) -> np.ndarray:
    """The bytes of a bool array, the bit patterns of a float array (NaN
    payloads and signs included), an int array itself."""
    if array.dtype.kind == "i":
        return array
    return array.view(f"u{array.dtype.itemsize}")


def _astype(array: np.ndarray, element: str) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(DTYPES[element])


FP8 = ("f8E4M3FN", "f8E5M2")
CONVERSIONS = [
    *[(f8, other) for f8 in FP8 for other in ("f32", "f16", "bf16", "f64", "i1")],
    *[(other, f8) for f8 in FP8 for other in ("f32", "f16", "bf16", "f64", "i32", "i1")],
    ("f8E4M3FN", "f8E5M2"),
    ("f8E5M2", "f8E4M3FN"),
    *[(src, src) for src in (*FP8, "i1")],
    *[("i1", other) for other in ("f32", "f16", "i32", "i8")],
    *[(other, "i1") for other in ("f32", "f16", "i32", "i8")],
]


@pytest.mark.parametrize(("src", "dst"), CONVERSIONS, ids=lambda t: t)
def test_copy_converts_like_astype(src, dst):
    kernel = tilec.compile(tile_ir.copy_through_tile(8, 40, src, dst))
    a = _source(src)
    b = np.zeros(SHAPE, DTYPES[dst])
    _bits(b)[...] = 0x5A  # a sentinel every element must overwrite
    kernel(a, b)
    # Bools compare as bytes: the kernel writes 0 or 1, as numpy does.
    np.testing.assert_array_equal(_bits(b), _bits(_astype(a, dst)))


@pytest.mark.parametrize("f8", FP8)
def test_fp8_to_int_truncates_finite_values(f8):
    kernel = tilec.compile(tile_ir.copy_through_tile(8, 40, f8, "i32"))
    a = _source(f8)
    # NaN and inf have no int value: undefined in LLVM, as from f32.
    a = np.where(np.isfinite(a.astype(np.float32)), a, a.dtype.type(0))
    b = np.full(SHAPE, -7, np.int32)
    kernel(a, b)
    np.testing.assert_array_equal(b, a.astype(np.int32))


M, N = T.symbolic("M"), T.symbolic("N")
BM, BN = 8, 24


@T.prim_func
def bool_logic(
    A: T.Tensor((M, N), "bool"),
    X: T.Tensor((M, N), "float32"),
    Out: T.Tensor((M, N), "bool"),
    Num: T.Tensor((M, N), "float32"),
    Count: T.Tensor((M, N), "int32"),
):
    with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=1) as (bx, by):
        a = T.alloc_fragment((BM, BN), "bool")
        x = T.alloc_fragment((BM, BN), "float32")
        out = T.alloc_fragment((BM, BN), "bool")
        num = T.alloc_fragment((BM, BN), "float32")
        count = T.alloc_fragment((BM, BN), "int32")
        T.copy(A[by * BM, bx * BN], a)
        T.copy(X[by * BM, bx * BN], x)
        for i, j in T.Parallel(BM, BN):
            out[i, j] = a[i, j] ^ (x[i, j] > 0.0)
            num[i, j] = T.if_then_else(a[i, j], x[i, j], T.cast(a[i, j], "float32") - 2.0)
            count[i, j] = T.cast(out[i, j], "int32") * 3 + T.cast(a[i, j], "int32")
        T.copy(out, Out[by * BM, bx * BN])
        T.copy(num, Num[by * BM, bx * BN])
        T.copy(count, Count[by * BM, bx * BN])


@pytest.fixture(scope="module")
def bool_logic_kernel():
    return tilec.compile(bool_logic)


@pytest.mark.parametrize("shape", [(1, 1), (8, 24), (37, 53)])
def test_bool_elementwise_code(bool_logic_kernel, shape):
    kernel = bool_logic_kernel
    a = RNG.random(shape) < 0.5
    x = RNG.choice([-1.5, -0.0, 0.0, 2.0, np.nan, np.inf], shape).astype(np.float32)
    out = np.zeros(shape, bool)
    num = np.zeros(shape, np.float32)
    count = np.zeros(shape, np.int32)
    kernel(a, x, out, num, count)
    expected = a ^ (x > 0)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(_bits(num), _bits(np.where(a, x, np.float32(-2.0))))
    np.testing.assert_array_equal(count, expected * 3 + a)
    # The bytes of a bool output are 0 or 1, as numpy writes them.
    np.testing.assert_array_equal(_bits(out), _bits(expected))


@T.prim_func
def fp8_arith(
    X: T.Tensor((M, N), "float8_e4m3"),
    Y: T.Tensor((M, N), "float8_e5m2"),
    Z: T.Tensor((M, N), "float8_e4m3"),
    W: T.Tensor((M, N), "float8_e5m2"),
    F: T.Tensor((M, N), "float32"),
    B: T.Tensor((M, N), "bool"),
):
    with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=1) as (bx, by):
        x = T.alloc_fragment((BM, BN), "float8_e4m3")
        y = T.alloc_fragment((BM, BN), "float8_e5m2")
        z = T.alloc_fragment((BM, BN), "float8_e4m3")
        w = T.alloc_fragment((BM, BN), "float8_e5m2")
        f = T.alloc_fragment((BM, BN), "float32")
        b = T.alloc_fragment((BM, BN), "bool")
        T.copy(X[by * BM, bx * BN], x)
        T.copy(Y[by * BM, bx * BN], y)
        for i, j in T.Parallel(BM, BN):
            z[i, j] = T.if_then_else(x[i, j] > 1.0, x[i, j] * 2.0, -x[i, j])
            w[i, j] = T.cast(x[i, j], "float8_e5m2") + y[i, j]
            f[i, j] = T.cast(y[i, j], "float32") * 0.5
            b[i, j] = x[i, j] < T.cast(y[i, j], "float8_e4m3")
        T.copy(z, Z[by * BM, bx * BN])
        T.copy(w, W[by * BM, bx * BN])
        T.copy(f, F[by * BM, bx * BN])
        T.copy(b, B[by * BM, bx * BN])


def _assert_same_fp8(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal bit patterns, except that a NaN computed from two NaNs may
    carry either's sign (IEEE leaves it open, and LLVM may swap operands)."""
    both_nan = np.isnan(actual.astype(np.float32)) & np.isnan(expected.astype(np.float32))
    np.testing.assert_array_equal(
        np.where(both_nan, 0, _bits(actual)), np.where(both_nan, 0, _bits(expected))
    )


@pytest.fixture(scope="module")
def fp8_arith_kernel():
    return tilec.compile(fp8_arith)


@pytest.mark.parametrize("shape", [(1, 1), (37, 53)])
def test_fp8_elementwise_code_computes_in_f32(fp8_arith_kernel, shape):
    kernel = fp8_arith_kernel
    x = np.resize(np.arange(256, dtype=np.uint8), shape).view(E4M3)
    y = RNG.integers(0, 256, shape, dtype=np.uint8).view(E5M2)
    z, w = np.zeros(shape, E4M3), np.zeros(shape, E5M2)
    f, b = np.zeros(shape, np.float32), np.zeros(shape, bool)
    kernel(x, y, z, w, f, b)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        # Each f8 operation is the f32 one rounded to f8, as ml_dtypes computes.
        _assert_same_fp8(z, np.where(x32 > 1, (x32 * 2).astype(E4M3), -x))
        _assert_same_fp8(w, (x.astype(E5M2).astype(np.float32) + y32).astype(E5M2))
        np.testing.assert_array_equal(_bits(f), _bits(y32 * np.float32(0.5)))
        np.testing.assert_array_equal(b, x32 < y.astype(E4M3).astype(np.float32))


@pytest.mark.parametrize("f8", FP8)
@pytest.mark.parametrize(("transpose_a", "transpose_b"), [(False, False), (True, True)])
def test_fp8_gemm_accumulates_in_f32(f8, transpose_a, transpose_b):
    kernel = tilec.compile(
        tile_ir.gemm(32, 48, 16, ab=f8, transpose_a=transpose_a, transpose_b=transpose_b)
    )
    m, n, k = 45, 70, 37
    a = RNG.standard_normal((k, m) if transpose_a else (m, k)).astype(DTYPES[f8])
    b = RNG.standard_normal((n, k) if transpose_b else (k, n)).astype(DTYPES[f8])
    c = np.zeros((m, n), np.float32)
    kernel(a, b, c)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    expected = (a32.T if transpose_a else a32) @ (b32.T if transpose_b else b32)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def _reduce_kernel(element: str, kind: str, cumsum: bool) -> str:
    """R = reduce `kind` of A's rows; C = A's running sums along rows when
    `cumsum` (C = A otherwise). 40 columns: one full vector and a tail."""
    tile = f"memref<8x40x{element}, #tile.scope<fragment>>"
    row = f"memref<8x{element}, #tile.scope<fragment>>"
    scan = f"tile.cumsum %t, %t dim = 1 : {tile}, {tile}" if cumsum else ""
    return f"""
func.func @k(%A: memref<8x40x{element}>, %R: memref<8x{element}>, %C: memref<8x40x{element}>)
    attributes {{tile.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {{
    %t = tile.alloc : {tile}
    %r = tile.alloc : {row}
    tile.copy %A[%c0, %c0], %t[%c0, %c0] : memref<8x40x{element}>, {tile}
    tile.reduce {kind} %t, %r dim = 1 : {tile}, {row}
    {scan}
    tile.copy %r[%c0], %R[%c0] : {row}, memref<8x{element}>
    tile.copy %t[%c0, %c0], %C[%c0, %c0] : {tile}, memref<8x40x{element}>
  }}
  return
}}
"""


@pytest.mark.parametrize("f8", FP8)
@pytest.mark.parametrize("kind", ["max", "min"])
def test_fp8_reductions_and_running_sums(f8, kind):
    # e4m3fn has no -inf: max starts from -448 (its -inf constant would be NaN).
    kernel = tilec.compile(_reduce_kernel(f8, kind, cumsum=True))
    dtype = DTYPES[f8]
    a = RNG.standard_normal((8, 40)).astype(dtype)
    a[3, 5] = np.nan
    r, c = np.zeros(8, dtype), np.zeros((8, 40), dtype)
    kernel(a, r, c)
    reduced = getattr(np, kind)(a.astype(np.float32), axis=1).astype(dtype)
    np.testing.assert_array_equal(_bits(r), _bits(reduced))
    # Each running sum is rounded to f8, as numpy adds f8 arrays.
    _assert_same_fp8(c, np.cumsum(a, axis=1, dtype=dtype))


@pytest.mark.parametrize(("kind", "combine"), [("max", np.any), ("min", np.all)])
def test_bool_reductions_are_any_and_all(kind, combine):
    kernel = tilec.compile(_reduce_kernel("i1", kind, cumsum=False))
    a = RNG.random((8, 40)) < 0.97 if kind == "min" else RNG.random((8, 40)) < 0.03
    r, c = np.zeros(8, bool), np.zeros((8, 40), bool)
    kernel(a, r, c)
    np.testing.assert_array_equal(r, combine(a, axis=1))
    np.testing.assert_array_equal(c, a)


def test_bool_sums_are_ors():
    """A sum of bools is a bool, as a store into a bool is (`!= 0`): reduce_sum is any,
    cumsum the running any, atomic_add an or, also past 256 trues (a byte would wrap)."""

    @T.prim_func
    def sums(
        A: T.Tensor((4, 300), "bool"),
        Any: T.Tensor((4,), "bool"),
        Running: T.Tensor((4, 300), "bool"),
        Flags: T.Tensor((3,), "bool"),
    ):
        with T.Kernel(1):
            a = T.alloc_fragment((4, 300), "bool")
            s = T.alloc_fragment((4,), "bool")
            T.copy(A, a)
            T.reduce_sum(a, s, dim=1)
            T.copy(s, Any)
            T.cumsum(a, dim=1)
            T.copy(a, Running)
            for i, j in T.Parallel(4, 300):
                if i < 3:
                    T.atomic_add(Flags[i], A[i, j])

    a = np.zeros((4, 300), bool)
    a[1, 256] = True
    a[2, :] = True  # 300 trues
    a[3, [5, 7]] = True
    any_, running, flags = np.ones(4, bool), np.zeros_like(a), np.zeros(3, bool)
    tilec.compile(sums)(a, any_, running, flags)
    np.testing.assert_array_equal(any_, a.any(axis=1))
    np.testing.assert_array_equal(running, np.logical_or.accumulate(a, axis=1))
    np.testing.assert_array_equal(flags, a[:3].any(axis=1))


@pytest.mark.parametrize("f8", FP8)
def test_fp8_atomic_adds_round_each_sum(f8):
    """No 8-bit float atomics exist: the add is a compare-and-swap loop that adds in f32
    and rounds, so each block's adds give the f8 running sum, in order."""
    name = {"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}[f8]

    @T.prim_func
    def add(X: T.Tensor((64,), name), Out: T.Tensor((4,), name)):
        with T.Kernel(4) as b:
            for i in T.Parallel(16):
                T.atomic_add(Out[b], X[b * 16 + i])

    dtype = DTYPES[f8]
    x = RNG.standard_normal(64).astype(dtype)
    out = np.zeros(4, dtype)
    tilec.compile(add)(x, out)
    expected = np.zeros(4, dtype)
    for b in range(4):
        for i in range(16):
            expected[b] = (np.float32(expected[b]) + np.float32(x[b * 16 + i])).astype(dtype)
    np.testing.assert_array_equal(_bits(out), _bits(expected))


def test_narrow_arrays_are_checked_by_dtype():
    kernel = tilec.compile(tile_ir.copy_through_tile(8, 40, "f8E4M3FN", "i1"))
    with pytest.raises(ArgumentError, match="expects float8_e4m3fn but got uint8"):
        kernel(np.zeros(SHAPE, np.uint8), np.zeros(SHAPE, bool))
    with pytest.raises(ArgumentError, match="expects bool but got int8"):
        kernel(np.zeros(SHAPE, E4M3), np.zeros(SHAPE, np.int8))


# Kernels on bools and fp8 that the cpu target runs or refuses with a
# located error. They are compiled and run in one subprocess: an assertion
# in the MLIR or LLVM lowering would abort it.
_TILE = "memref<8x16x{t}, #tile.scope<fragment>>"
_ROW = "memref<8x{t}, #tile.scope<fragment>>"
_SHARED = "memref<16x16x{t}, #tile.scope<shared>>"
_ACC = "memref<8x16xf32, #tile.scope<fragment>>"
_BODIES = {
    "copy": "",
    "fill": "%v = arith.constant {value}\n    tile.fill %t, %v : {tile}, {t}",
    "clear": "tile.clear %t : {tile}",
    "reduce_max": "tile.reduce max %t, %r dim = 1 : {tile}, {row}",
    "reduce_sum": "tile.reduce sum %t, %r dim = 1 : {tile}, {row}",
    "cumsum": "tile.cumsum %t, %t dim = 1 : {tile}, {tile}",
    "atomic_add": "tile.atomic_add %t, %B[%c0, %c0] : {tile}, memref<?x?x{t}>",
    "gemm": "%s = tile.alloc : {shared}\n    %acc = tile.alloc : {acc}\n"
    "    tile.gemm %t, %s, %acc : {tile}, {shared}, {acc}",
}
# What each kernel does: "ran", or the start of its located error.
_OUTCOMES = {
    "i1": {
        "copy": "ran",
        "fill": "ran",
        "clear": "ran",
        "reduce_max": "ran",
        "reduce_sum": "ran",
        "cumsum": "ran",
        "atomic_add": "ran",
        "gemm": "'tile.gemm' op expected A element type",
    },
    **{
        f8: {
            "copy": "ran",
            "fill": "ran",
            "clear": "ran",
            "reduce_max": "ran",
            "reduce_sum": "ran",
            "cumsum": "ran",
            "atomic_add": "ran",
            "gemm": "ran",
        }
        for f8 in FP8
    },
}


def _kernel(element: str, body: str) -> str:
    types = {
        name: text.format(t=element)
        for name, text in [("tile", _TILE), ("row", _ROW), ("shared", _SHARED), ("acc", _ACC)]
    }
    value = "true" if element == "i1" else f"1.5 : {element}"
    body = body.format(t=element, value=value, **types)
    tile = types["tile"]
    return f"""
func.func @k(%A: memref<?x?x{element}>, %B: memref<?x?x{element}>) attributes {{tile.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {{
    %t = tile.alloc : {tile}
    %r = tile.alloc : {types["row"]}
    tile.copy %A[%c0, %c0], %t[%c0, %c0] : memref<?x?x{element}>, {tile}
    {body}
    tile.copy %t[%c0, %c0], %B[%c0, %c0] : {tile}, memref<?x?x{element}>
  }}
  return
}}
"""


_RUN_ALL = textwrap.dedent(
    """
    import json
    import sys

    import numpy as np

    import tilec
    from tilec.diagnostics import CompileError
    from tilec.runtime.signature import numpy_dtype

    for element, name, source in json.load(sys.stdin):
        print(element, name, end=": ", flush=True)
        try:
            kernel = tilec.compile(source)
        except CompileError as error:
            print(str(error).splitlines()[0], flush=True)
            continue
        kernel(np.zeros((8, 16), numpy_dtype(element)), np.zeros((8, 16), numpy_dtype(element)))
        print("ran", flush=True)
    """
)


def test_no_bool_or_fp8_kernel_aborts():
    cases = [
        (element, name, _kernel(element, body))
        for element in _OUTCOMES
        for name, body in _BODIES.items()
    ]
    result = subprocess.run(
        [sys.executable, "-c", _RUN_ALL],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"exit code {result.returncode}\n{output[-3000:]}"
    outcomes = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    for element, expected in _OUTCOMES.items():
        for name, outcome in expected.items():
            got = outcomes[f"{element} {name}"]
            if outcome == "ran":
                assert got == "ran", (element, name, got)
            else:
                # A located error: <file>:<line>:<col>: error: <message>.
                assert f": error: {outcome}" in got, (element, name, got)
