"""DSL constructs compiled for the cpu target and run on numpy arrays: each kernel
checks one part of the semantics (arithmetic rules, casts, masks, loops, reductions,
atomics, regions) against numpy, on sizes that leave partial edge tiles."""

import numpy as np
import pytest

import tilec
import tilec.language as T

RNG = np.random.default_rng(0)


def test_elementwise_with_scalar_parameters_and_symbolic_size():
    N = T.symbolic("N")

    @T.prim_func
    def axpb(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"), a: T.float32, b: T.int32):
        with T.Kernel(T.ceildiv(N, 64)) as bx:
            x = T.alloc_fragment((64,), "float32")
            T.copy(X[bx * 64], x)
            for i in T.Parallel(64):
                x[i] = x[i] * a + T.cast(b, "float32")
            T.copy(x, Y[bx * 64])

    kernel = tilec.compile(axpb)
    x = RNG.standard_normal(150).astype(np.float32)
    y = np.zeros_like(x)
    kernel(x, y, 2.5, 3)
    np.testing.assert_allclose(y, x * 2.5 + 3, rtol=1e-6)


def test_integer_division_and_modulo_follow_python():
    @T.prim_func
    def divmod_(
        A: T.Tensor((64,), "int32"),
        B: T.Tensor((64,), "int32"),
        Q: T.Tensor((64,), "int32"),
        R: T.Tensor((64,), "int32"),
    ):
        with T.Kernel(1):
            for i in T.Parallel(64):
                Q[i] = A[i] // B[i]
                R[i] = A[i] % B[i]

    a = RNG.integers(-50, 50, 64).astype(np.int32)
    b = RNG.choice([-7, -3, 2, 5], 64).astype(np.int32)
    q, r = np.zeros_like(a), np.zeros_like(a)
    tilec.compile(divmod_)(a, b, q, r)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)


def test_casts_and_mixed_precision():
    @T.prim_func
    def casts(
        X: T.Tensor((32,), "float32"),
        H: T.Tensor((32,), "float16"),
        I: T.Tensor((32,), "int32"),  # noqa: E741
        F: T.Tensor((32,), "float32"),
    ):
        with T.Kernel(1):
            for i in T.Parallel(32):
                H[i] = T.cast(X[i] * 3.0, "float16")
                I[i] = T.cast(X[i] * 10.0, "int32") + T.cast(X[i] > 0, "int32")
                F[i] = T.cast(i, "float32") + T.cast(H[i], "float32") * 0.5

    x = RNG.standard_normal(32).astype(np.float32)
    h, i, f = np.zeros(32, np.float16), np.zeros(32, np.int32), np.zeros(32, np.float32)
    tilec.compile(casts)(x, h, i, f)
    np.testing.assert_array_equal(h, (x * 3.0).astype(np.float16))
    np.testing.assert_array_equal(i, (x * 10.0).astype(np.int32) + (x > 0))
    np.testing.assert_allclose(f, np.arange(32) + h.astype(np.float32) * 0.5, rtol=1e-6)


def test_masks_with_if_then_else_and_boolean_operators():
    @T.prim_func
    def band(X: T.Tensor((40, 40), "float32")):
        with T.Kernel(1):
            x = T.alloc_fragment((40, 40), "float32")
            T.copy(X, x)
            for i, j in T.Parallel(40, 40):
                keep = (i >= j) & ~(i - j > 3) | (j == 39)
                x[i, j] = T.if_then_else(keep, x[i, j], -T.infinity("float32"))
            T.copy(x, X)

    x = RNG.standard_normal((40, 40)).astype(np.float32)
    expected = x.copy()
    i, j = np.indices(x.shape)
    expected[~(((i >= j) & ~(i - j > 3)) | (j == 39))] = -np.inf
    tilec.compile(band)(x)
    np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("exp", np.exp),
        ("exp2", np.exp2),
        ("log", lambda x: np.log(np.abs(x) + 1)),
        ("log2", lambda x: np.log2(np.abs(x) + 1)),
        ("sqrt", lambda x: np.sqrt(np.abs(x))),
        ("rsqrt", lambda x: 1 / np.sqrt(np.abs(x) + 1)),
        ("tanh", np.tanh),
        ("floor", np.floor),
        ("ceil", np.ceil),
        ("abs", np.abs),
    ],
)
def test_math_functions(name, reference):
    function = getattr(T, name)
    positive = name in ("log", "log2", "rsqrt")

    @T.prim_func
    def apply(X: T.Tensor((48,), "float32"), Y: T.Tensor((48,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(48):
                if positive:
                    Y[i] = function(T.abs(X[i]) + 1)
                elif name == "sqrt":
                    Y[i] = function(T.abs(X[i]))
                else:
                    Y[i] = function(X[i])

    x = (RNG.standard_normal(48) * 3).astype(np.float32)
    y = np.zeros_like(x)
    tilec.compile(apply)(x, y)
    np.testing.assert_allclose(y, reference(x).astype(np.float32), rtol=2e-6, atol=1e-6)


def test_reductions_accumulate_across_a_serial_loop():
    @T.prim_func
    def reduce_all(X: T.Tensor(("M", 128), "float32"), Out: T.Tensor((5, 16), "float32")):
        with T.Kernel(1):
            x = T.alloc_fragment((16, 32), "float32")
            results = [T.alloc_fragment((16,), "float32") for _ in range(5)]
            for r in results:
                T.clear(r)
            T.fill(results[0], -T.infinity("float32"))
            T.fill(results[1], T.infinity("float32"))
            for t in T.serial(4):
                T.copy(X[0, t * 32], x)
                T.reduce_max(x, results[0], dim=1, clear=False)
                T.reduce_min(x, results[1], dim=1, clear=False)
                T.reduce_sum(x, results[2], dim=1, clear=False)
                T.reduce_abssum(x, results[3], dim=1, clear=False)
                T.reduce_absmax(x, results[4], dim=1, clear=False)
            for k, r in enumerate(results):
                T.copy(r, Out[k, 0])

    x = RNG.standard_normal((16, 128)).astype(np.float32)
    out = np.zeros((5, 16), np.float32)
    tilec.compile(reduce_all)(x, out)
    expected = [x.max(1), x.min(1), x.sum(1), np.abs(x).sum(1), np.abs(x).max(1)]
    np.testing.assert_allclose(out, np.stack(expected), rtol=1e-5)


def test_cumsum_forward_reverse_and_along_rows():
    @T.prim_func
    def scans(X: T.Tensor((8, 24), "float32"), Out: T.Tensor((3, 8, 24), "float32")):
        with T.Kernel(1):
            x = T.alloc_fragment((8, 24), "float32")
            y = T.alloc_fragment((8, 24), "float32")
            T.copy(X, x)
            T.cumsum(x, y, dim=1)
            T.copy(y, Out[0, 0, 0])
            T.cumsum(x, y, dim=1, reverse=True)
            T.copy(y, Out[1, 0, 0])
            T.cumsum(x)
            T.copy(x, Out[2, 0, 0])

    x = RNG.standard_normal((8, 24)).astype(np.float32)
    out = np.zeros((3, 8, 24), np.float32)
    tilec.compile(scans)(x, out)
    np.testing.assert_allclose(out[0], np.cumsum(x, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], np.cumsum(x[:, ::-1], 1)[:, ::-1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[2], np.cumsum(x, 0), rtol=1e-5, atol=1e-6)


def test_atomic_adds_from_many_blocks():
    @T.prim_func
    def accumulate(
        X: T.Tensor(("N", 16), "float32"),
        Total: T.Tensor((16,), "float32"),
        Hist: T.Tensor((8,), "int32"),
        Bins: T.Tensor(("N",), "int32"),
    ):
        with T.Kernel(T.ceildiv(X.shape[0], 4)) as bx:
            x = T.alloc_fragment((4, 16), "float32")
            column_sums = T.alloc_fragment((16,), "float32")
            T.copy(X[bx * 4, 0], x)
            T.reduce_sum(x, column_sums, dim=0)
            T.atomic_add(Total[0], column_sums)
            bins = T.alloc_fragment((4,), "int32")
            T.copy(Bins[bx * 4], bins)
            for i in T.Parallel(4):
                in_range = bx * 4 + i < X.shape[0]
                T.atomic_add(Hist[bins[i]], T.cast(in_range, "int32"))

    n = 62
    x = RNG.standard_normal((n, 16)).astype(np.float32)
    bins = RNG.integers(0, 8, n).astype(np.int32)
    total, hist = np.zeros(16, np.float32), np.zeros(8, np.int32)
    tilec.compile(accumulate)(x, total, hist, bins)
    np.testing.assert_allclose(total, x.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(hist, np.bincount(bins, minlength=8))


def test_alloc_var_and_serial_loop_with_symbolic_bounds():
    @T.prim_func
    def strided_sum(X: T.Tensor(("N",), "float32"), Out: T.Tensor((1,), "float32"), step: T.int32):
        with T.Kernel(1):
            total = T.alloc_var("float32", init=0.0)
            for k in T.serial(1, X.shape[0], step):
                total[0] = total[0] + X[k]
            Out[0] = total[0]

    x = RNG.standard_normal(50).astype(np.float32)
    out = np.zeros(1, np.float32)
    tilec.compile(strided_sum)(x, out, 3)
    np.testing.assert_allclose(out[0], x[1::3].sum(), rtol=1e-5)


def test_region_copies_with_unit_dims_and_slices():
    @T.prim_func
    def transpose_heads(
        Q: T.Tensor((2, 40, 3, 16), "float32"), Out: T.Tensor((2, 3, 40, 16), "float32")
    ):
        with T.Kernel(T.ceildiv(40, 32), 3, 2) as (bx, h, b):
            q = T.alloc_shared((32, 16), "float32")
            T.copy(Q[b, bx * 32 :, h, :], q)
            T.copy(q, Out[b, h, bx * 32, 0])

    q = RNG.standard_normal((2, 40, 3, 16)).astype(np.float32)
    out = np.zeros((2, 3, 40, 16), np.float32)
    tilec.compile(transpose_heads)(q, out)
    np.testing.assert_array_equal(out, q.transpose(0, 2, 1, 3))


def test_reinterpret_reads_the_bits_of_a_scalar():
    """T.reinterpret on elements, both ways (ascend: the vendor's scalar bitcast; the
    simulator moves the bits through both types' storage), infinities and NaN included."""

    @T.prim_func
    def bits(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "int32"),
             C: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            x = T.alloc_fragment((64,), "float32")
            T.copy(A, x)
            for i in T.Parallel(64):
                B[i] = T.reinterpret(x[i], "int32")
                C[i] = T.reinterpret(T.reinterpret(x[i], "int32") >> 23 << 23, "float32")

    a = np.linspace(-3, 3, 64, dtype=np.float32)
    a[5], a[6] = np.inf, np.nan
    b, c = np.zeros(64, np.int32), np.zeros(64, np.float32)
    tilec.compile(bits)(a, b, c)
    np.testing.assert_array_equal(b, a.view(np.int32))
    np.testing.assert_array_equal(c.view(np.int32), (a.view(np.int32) >> 23) << 23)
