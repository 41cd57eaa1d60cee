"""TileLang kernels as TileLang writes them, compiled for cpu and checked against numpy:
stores that convert to the buffer's dtype, Python `if` on traced values, mutable
`T.alloc_var` scalars, the scheduling hints cpu ignores, on ragged sizes."""

import numpy as np

import tilec
import tilec.language as T

RNG = np.random.default_rng(1)


def test_stores_convert_to_the_element_type_of_the_buffer():
    @T.prim_func
    def stores(
        X: T.Tensor((37,), "float32"),
        H: T.Tensor((37,), "float16"),
        F: T.Tensor((37,), "float32"),
        I: T.Tensor((37,), "int32"),  # noqa: E741
        B: T.Tensor((37,), "float32"),
    ):
        with T.Kernel(1):
            h = T.alloc_fragment((37,), "float16")
            for i in T.Parallel(37):
                h[i] = X[i] * 3.0  # float32 into float16
                H[i] = h[i]
                F[i] = h[i] * h[i]  # float16 arithmetic, stored as float32
                I[i] = X[i] * 10.0  # float into int: truncation
                B[i] = X[i] > 0  # bool into float: 0 or 1

    x = RNG.standard_normal(37).astype(np.float32)
    h, f, i, b = (
        np.zeros(37, np.float16),
        np.zeros(37, np.float32),
        np.zeros(37, np.int32),
        np.zeros(37, np.float32),
    )
    tilec.compile(stores)(x, h, f, i, b)
    expected_h = (x * 3.0).astype(np.float16)
    np.testing.assert_array_equal(h, expected_h)
    np.testing.assert_array_equal(f, (expected_h * expected_h).astype(np.float32))
    np.testing.assert_array_equal(i, (x * 10.0).astype(np.int32))
    np.testing.assert_array_equal(b, (x > 0).astype(np.float32))


def test_fill_and_scalar_atomic_add_convert_their_value():
    @T.prim_func
    def fills(Out: T.Tensor((16,), "float16"), Count: T.Tensor((1,), "float32")):
        with T.Kernel(2):
            t = T.alloc_fragment((16,), "float16")
            T.fill(t, T.float32(0.5) * 3)  # a float32 value into a float16 tile
            T.copy(t, Out)
            for i in T.Parallel(16):
                T.atomic_add(Count[0], i)  # index into float32

    out, count = np.zeros(16, np.float16), np.zeros(1, np.float32)
    tilec.compile(fills)(out, count)
    np.testing.assert_array_equal(out, np.full(16, 1.5, np.float16))
    assert count[0] == 2 * sum(range(16))


def test_scheduling_hints_are_ignored_by_cpu():
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
    block_M, block_N, block_K = 32, 32, 16

    @T.prim_func
    def matmul(
        A: T.Tensor((M, K), "float16"),
        B: T.Tensor((K, N), "float16"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.annotate_layout(
                {A_shared: T.Layout((block_M, block_K), lambda i, j: (i, j ^ (i % 4)))}
            )
            T.use_swizzle(panel_size=10)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), order=[0, 1, 2], stage=[0, 0, 1]):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, policy=T.GemmWarpPolicy.FullRow, k_pack=2)
            T.copy(C_local, C[by * block_M, bx * block_N])

    a = RNG.standard_normal((70, 40)).astype(np.float16)
    b = RNG.standard_normal((40, 50)).astype(np.float16)
    c = np.zeros((70, 50), np.float32)
    tilec.compile(matmul)(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-4)


def test_empty_outputs_are_allocated_by_out_idx():
    @tilec.jit(out_idx=[-1])
    def scale(block: int, factor: float):
        M, N = T.const("M, N")

        @T.prim_func
        def main(X: T.Tensor((M, N), "float32")):
            Y = T.empty((M, N), "float32")
            with T.Kernel(T.ceildiv(M, block)) as bx:
                x = T.alloc_fragment((block, 16), "float32")
                T.copy(X[bx * block, 0], x)
                for i, j in T.Parallel(block, 16):
                    x[i, j] = x[i, j] * factor
                T.copy(x, Y[bx * block, 0])
            return Y

        return main

    x = RNG.standard_normal((45, 16)).astype(np.float32)
    np.testing.assert_array_equal(scale(8, 3.0)(x), x * np.float32(3.0))
    kernel = scale(16, 0.5)
    assert kernel(x[:7]).shape == (7, 16)


def test_casts_clamp_and_unsigned_bytes():
    @T.prim_func
    def unpack(Packed: T.Tensor((32,), "uint8"), Out: T.Tensor((2, 32), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(32):
                Out[0, i] = T.Cast("float32", Packed[i] >> 4) - 8  # the high nibble
                Out[1, i] = T.clamp((Packed[i] & 15).astype(T.float), 2.0, 12.0)

    packed = RNG.integers(0, 256, 32).astype(np.uint8)
    out = np.zeros((2, 32), np.float32)
    tilec.compile(unpack)(packed, out)  # numpy's uint8, as the tensor's dtype says
    np.testing.assert_array_equal(out[0], (packed >> 4).astype(np.float32) - 8)
    np.testing.assert_array_equal(out[1], np.clip(packed & 15, 2, 12).astype(np.float32))


def test_split_reduction_through_a_global_workspace():
    N = T.dynamic("N")

    @T.prim_func
    def column_sums(X: T.Tensor((N, 16), "float16"), Y: T.Tensor((16,), "float32")):
        partial = T.alloc_global((4, 16), "float32")
        with T.Kernel(4) as b:
            x = T.alloc_fragment((8, 16), "float16")
            s = T.alloc_fragment((16,), "float32")
            T.copy(X[b * 8, 0], x)
            T.reduce_sum(x, s, dim=0)  # float16 summed into float32
            T.copy(s, partial[b, 0])
        with T.Kernel(1):
            p = T.alloc_fragment((4, 16), "float32")
            total = T.alloc_fragment((16,), "float32")
            T.copy(partial, p)
            T.reduce_sum(p, total, dim=0)
            T.copy(total, Y)

    x = RNG.standard_normal((29, 16)).astype(np.float16)
    y = np.zeros(16, np.float32)
    tilec.compile(column_sums)(x, y)
    np.testing.assert_allclose(y, x.astype(np.float32).sum(0), rtol=1e-3, atol=1e-3)


def test_flattened_views_and_unit_dim_copies():
    KH, KW, C, F = T.dynamic("KH, KW, C, F")

    @T.prim_func
    def plus_one(
        W: T.Tensor((KH, KW, C, F), "float32"),
        Out: T.Tensor((KH, KW, C, F), "float32"),
        Row: T.Tensor((KH, 1, F), "float32"),
    ):
        with T.Kernel(T.ceildiv(KH * KW * C, 16)) as b:
            # As TileLang's convolution flattens its filter and output.
            w_flat = T.Tensor((KH * KW * C, F), "float32", W.data)
            o_flat = T.Tensor((KH * KW * C, F), "float32", Out.data)
            t = T.alloc_fragment((16, 8), "float32")
            T.copy(w_flat[b * 16, 0], t)
            for i, j in T.Parallel(16, 8):
                t[i, j] = t[i, j] + 1
            T.copy(t, o_flat[b * 16, 0])
        with T.Kernel(KH) as h:
            r = T.alloc_fragment((8,), "float32")
            T.copy(W[h, 0:1, 0:1, 0:8], r)  # unit dims into a 1-D tile
            T.copy(r, Row[h, 0:1, 0:8])

    w = RNG.standard_normal((3, 3, 5, 8)).astype(np.float32)
    o, row = np.zeros_like(w), np.zeros((3, 1, 8), np.float32)
    tilec.compile(plus_one)(w, o, row)
    np.testing.assert_allclose(o, w + 1, rtol=1e-6)
    np.testing.assert_array_equal(row[:, 0], w[:, 0, 0])


def test_integers_with_floats_compute_in_the_float_type():
    @T.prim_func
    def decay(Out: T.Tensor((8, 8), "float32"), log_decay: T.float32, h: T.int32):
        with T.Kernel(1):
            for row, col in T.Parallel(8, 8):
                # As TileLang's retention kernel writes it: no casts.
                Out[row, col] = T.exp2((row - col) * log_decay) + 1.0 * h + col * 0.5

    out = np.zeros((8, 8), np.float32)
    tilec.compile(decay)(out, -0.25, 3)
    row, col = np.indices((8, 8)).astype(np.float32)
    expected = np.exp2((row - col) * np.float32(-0.25)) + 3.0 + col * 0.5
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_tiles_with_fewer_or_more_unit_dims_than_their_region():
    @T.prim_func
    def unit_dims(
        Q: T.Tensor((2, 3, 40), "float32"),
        R: T.Tensor((2, 3, 40), "float32"),
        O: T.Tensor((2, 40, 3, 16), "float32"),  # noqa: E741
    ):
        with T.Kernel(2, 3) as (b, h):
            q = T.alloc_fragment((1, 64), "float32")
            T.copy(Q[b, h, 0:], q)  # a 1-D slice into a (1, 64) tile
            T.copy(q, R[b, h, 0:])
            t = T.alloc_fragment((64, 16), "float32")
            for i, j in T.Parallel(64, 16):
                t[i, j] = T.cast(i * 16 + j, "float32")
            T.atomic_add(O[b, 0:, h, 0:16], t)  # a 2-D tile into a 4-D region

    q = RNG.standard_normal((2, 3, 40)).astype(np.float32)
    r, o = np.zeros_like(q), np.ones((2, 40, 3, 16), np.float32)
    tilec.compile(unit_dims)(q, r, o)
    np.testing.assert_array_equal(r, q)
    expected = 1 + np.arange(40 * 16, dtype=np.float32).reshape(40, 1, 16)
    np.testing.assert_array_equal(o, np.broadcast_to(expected[None], o.shape))


def test_regions_shorter_than_their_tile_copy_only_their_part():
    valid = 25  # rows of each split, in a 64-row tile

    @T.prim_func
    def ragged(K: T.Tensor((100, 8), "float32"), Out: T.Tensor((4, 64, 8), "float32")):
        with T.Kernel(4) as s:
            k = T.alloc_shared((64, 8), "float32")
            T.fill(k, -1.0)
            T.copy(K[s * valid : (s + 1) * valid, :], k)
            acc = T.alloc_fragment((64, 8), "float32")
            T.copy(k, acc)
            T.copy(acc[:valid, :], Out[s, 0:valid, :])

    k = RNG.standard_normal((100, 8)).astype(np.float32)
    out = np.full((4, 64, 8), 7.0, np.float32)
    tilec.compile(ragged)(k, out)
    np.testing.assert_array_equal(out[:, :valid], k.reshape(4, valid, 8))
    assert (out[:, valid:] == 7.0).all()
