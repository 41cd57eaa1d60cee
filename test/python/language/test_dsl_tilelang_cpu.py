"""TileLang kernels as TileLang writes them, compiled for cpu and checked against numpy:
stores that convert to the buffer's dtype, Python `if` on traced values, mutable
`T.alloc_var` scalars, the scheduling hints cpu ignores, on ragged sizes."""

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.language import layouts

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


def test_unit_dims_match_wherever_they_are():
    """A (1, S, 1) region copies into (1, S), (S,) and (S, 1) tiles and back, and a
    (1, S) tile adds into it, on a ragged S (TileLang's chunked cumsum layout)."""
    batch, seq, heads = 2, 150, 3

    @T.prim_func
    def middle(
        G: T.Tensor((batch, seq, heads), "float32"),
        O: T.Tensor((batch, seq, heads), "float32"),  # noqa: E741
        A: T.Tensor((batch, seq, heads), "float32"),
    ):
        with T.Kernel(T.ceildiv(seq, 64), batch * heads) as (bs, bbh):
            bb, bh = bbh // heads, bbh % heads
            row = T.alloc_shared((1, 64), "float32")
            flat = T.alloc_fragment((64,), "float32")
            column = T.alloc_fragment((64, 1), "float32")
            T.copy(G[bb, bs * 64 : (bs + 1) * 64, bh], row)
            T.copy(G[bb, bs * 64 : (bs + 1) * 64, bh], flat)
            T.copy(G[bb, bs * 64 : (bs + 1) * 64, bh], column)
            for i in T.Parallel(64):
                row[0, i] = row[0, i] + flat[i] * 10.0 + column[i, 0] * 100.0
            T.copy(row, O[bb, bs * 64 : (bs + 1) * 64, bh])
            T.atomic_add(A[bb, bs * 64 : (bs + 1) * 64, bh], row)

    g = RNG.standard_normal((batch, seq, heads)).astype(np.float32)
    o, a = np.zeros_like(g), np.ones_like(g)
    tilec.compile(middle)(g, o, a)
    np.testing.assert_allclose(o, 111.0 * g, rtol=1e-6)
    # 1 + 111 g cancels where 111 g is near -1: an f32 add of 1.0 is off by up to
    # ulp(1) / 2 there, whatever the target's order of the adds.
    np.testing.assert_allclose(a, 1.0 + 111.0 * g, rtol=1e-6, atol=1e-6)


def test_a_swizzled_layout_changes_nothing_on_cpu():
    @T.prim_func
    def transpose(A: T.Tensor((50, 70), "float32"), B: T.Tensor((70, 50), "float32")):
        with T.Kernel(T.ceildiv(70, 32), T.ceildiv(50, 32)) as (bx, by):
            a = T.alloc_shared((32, 32), "float32")
            T.annotate_layout({a: layouts.make_swizzled_layout(a)})
            T.copy(A[by * 32, bx * 32], a)
            t = T.alloc_fragment((32, 32), "float32")
            for i, j in T.Parallel(32, 32):
                t[i, j] = a[j, i]
            T.copy(t, B[bx * 32, by * 32])

    a = RNG.standard_normal((50, 70)).astype(np.float32)
    b = np.zeros((70, 50), np.float32)
    tilec.compile(transpose)(a, b)
    np.testing.assert_array_equal(b, a.T)


def test_narrow_and_unsigned_scalar_parameters_keep_their_dtype():
    """A `T.uint8` (or int8, uint64, ...) scalar is that dtype in the kernel: its
    arithmetic wraps and divides as numpy's does; a call checks its range."""

    @T.prim_func
    def scalars(
        X: T.Tensor((16,), "uint8"),
        Y: T.Tensor((16,), "uint8"),
        Z: T.Tensor((16,), "int8"),
        W: T.Tensor((16,), "uint64"),
        s: T.uint8,
        t: T.int8,
        u: T.uint64,
    ):
        with T.Kernel(1):
            for i in T.Parallel(16):
                Y[i] = (X[i] + s + s) // 2  # uint8 arithmetic: wraps at 256
                Z[i] = T.cast(X[i] % 4, "int8") * t
                W[i] = u // T.cast(X[i] + 1, "uint64")

    kernel = tilec.compile(scalars)
    x = np.arange(0, 256, 16, dtype=np.uint8)
    y, z, w = np.zeros(16, np.uint8), np.zeros(16, np.int8), np.zeros(16, np.uint64)
    big = 2**64 - 5
    kernel(x, y, z, w, 200, -3, big)
    np.testing.assert_array_equal(y, (x + np.uint8(200) + np.uint8(200)) // np.uint8(2))
    np.testing.assert_array_equal(z, (x % 4).astype(np.int8) * np.int8(-3))
    np.testing.assert_array_equal(w, np.uint64(big) // (x.astype(np.uint64) + np.uint64(1)))
    for args, message in (
        ((256, -3, 0), r"argument 's' expects a uint8 in \[0, 255\] but got 256"),
        ((-1, -3, 0), r"argument 's' expects a uint8 in \[0, 255\] but got -1"),
        ((0, 128, 0), r"argument 't' expects an int8 in \[-128, 127\] but got 128"),
        ((0, 0, -1), r"argument 'u' expects a uint64 in \[0, 18446744073709551615\]"),
    ):
        with pytest.raises(tilec.ArgumentError, match=message):
            kernel(x, y, z, w, *args)


def test_reducers_combine_with_their_op():
    """T.alloc_reducer / reducer_init / reducer_update / finalize_reducer, for each combine
    op, with and without an initial value, row by row of a ragged (37 x 50) matrix."""
    rows, cols = 37, 50

    @T.prim_func
    def reduce_rows(
        A: T.Tensor((rows, cols), "int32"),
        Sum: T.Tensor((rows,), "int32"),
        Max: T.Tensor((rows,), "int32"),
        Min: T.Tensor((rows,), "float32"),
        Xor: T.Tensor((rows,), "int32"),
    ):
        with T.Kernel(1):
            a = T.alloc_fragment((64, 64), "int32")
            T.copy(A[0, 0], a)
            total = T.alloc_reducer((64,), "int32", op="sum")
            high = T.alloc_reducer((64,), "int32", op="max")
            low = T.alloc_reducer((64,), "float32", op="min")
            bits = T.alloc_reducer((64,), "int32", op="bitxor")
            T.reducer_init(total, 1000)  # combined once, as TileLang's init
            T.reducer_init(high)
            T.reducer_init(low)
            T.reducer_init(bits)
            for i, j in T.Parallel(64, 64):
                if j < cols:
                    T.reducer_update(total[i], a[i, j])
                    T.reducer_update(high[i], a[i, j])
                    T.reducer_update(low[i], a[i, j] * 0.5)
                    T.reducer_update(bits[i], a[i, j])
            out = T.alloc_fragment((64,), "int32")
            T.finalize_reducer(total, out)
            T.copy(out, Sum[0])
            T.finalize_reducer(high, out)
            T.copy(out, Max[0])
            halves = T.alloc_fragment((64,), "float32")
            T.finalize_reducer(low, halves)
            T.copy(halves, Min[0])
            T.finalize_reducer(bits, out)
            T.copy(out, Xor[0])

    a = RNG.integers(-1000, 1000, (rows, cols)).astype(np.int32)
    s, h, x = (np.zeros(rows, np.int32) for _ in range(3))
    m = np.zeros(rows, np.float32)
    tilec.compile(reduce_rows)(a, s, h, m, x)
    np.testing.assert_array_equal(s, a.sum(1) + 1000)
    np.testing.assert_array_equal(h, a.max(1))
    np.testing.assert_array_equal(m, a.min(1) * 0.5)
    np.testing.assert_array_equal(x, np.bitwise_xor.reduce(a, axis=1))


@pytest.mark.parametrize(("waves_of", "group"), [(3, 8), (5, 1), (4, 3), (64, 2)])
def test_persistent_walk_visits_every_tile_once(waves_of, group):
    gm, gn = 7, 5  # a ragged grid: 5 columns in panels of `group`

    @T.prim_func
    def walk(Visits: T.Tensor((gm, gn), "int32"), Owner: T.Tensor((gm, gn), "int32")):
        with T.Kernel(waves_of, threads=128) as block:
            for bx, by in T.Persistent([gm, gn], waves_of, block, group):
                T.atomic_add(Visits[bx, by], 1)
                Owner[bx, by] = block

    visits, owner = np.zeros((gm, gn), np.int32), np.full((gm, gn), -1, np.int32)
    tilec.compile(walk)(visits, owner)
    np.testing.assert_array_equal(visits, 1)
    # TileLang's order: panels of `group` columns, each walked row by row.
    panel = np.minimum(group, gn)
    order = [
        (r, p * panel + c)
        for p in range(-(-gn // panel))
        for r in range(gm)
        for c in range(panel)
    ]
    expected = np.full((gm, gn), -1, np.int32)
    for position, (r, c) in enumerate(order):
        if c < gn:
            expected[r, c] = position % waves_of
    np.testing.assert_array_equal(owner, expected)
