"""The `T.tile.*` vector family of tilelang-ascend (its tilelang/language/ascend_tile.py) on
tilec: each op on tiles written as its developer-mode examples write them (T.alloc_shared
tiles of a `T.Kernel(n, threads=2, is_npu=True)` block; row slices such as `acc[h, :]`
with a scalar read from another tile, `m[h]`), on cpu and in the simulator on the 910b and
the 950, against numpy, on a shape that is not a multiple of the block. Then the located
errors: names tilec lacks, shapes that do not match, modes that are not AscendC's."""


import numpy as np
import pytest

import tilec as tilelang
import tilec.language as T

TARGETS = ("cpu", "ascend:910b", "ascend:950")
M, N, BM = 40, 64, 32
RNG = np.random.default_rng(0)


def ops_kernel(ops, outputs, dtype="float32", out_dtype="float32"):
    """A kernel whose block loads X and Y (BM x N tiles) and applies `ops(x, y, t, m)` for
    each output k: `ops[k](x, y, t, m)` writes tile t, which goes to Out[k]; m holds the
    block's rows' first elements of Y (a [BM] tile)."""

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype),
             Out: T.Tensor((outputs, M, N), out_dtype)):
        with T.Kernel(T.ceildiv(M, BM), threads=2, is_npu=True) as cid:
            x = T.alloc_shared((BM, N), dtype)
            y = T.alloc_shared((BM, N), dtype)
            t = T.alloc_shared((BM, N), out_dtype)
            m = T.alloc_shared((BM, 1), dtype)
            T.copy(X[cid * BM, 0], x)
            T.copy(Y[cid * BM, 0], y)
            T.copy(Y[cid * BM, 0], m)
            for k, op in enumerate(ops):
                op(x, y, t, m)
                T.copy(t, Out[k, cid * BM, 0])

    return main


def run(kernel, target, *inputs):
    return tilelang.jit(out_idx=[-1], target=target)(kernel)(*inputs)


def _rows(op):
    """`op(t[h, :], x[h, :], m[h, 0])` for each row h, as tilelang-ascend's examples write
    row-wise scalar ops (`T.tile.sub(acc[h_i, :], acc[h_i, :], m_i[h_i])`)."""
    def apply(x, y, t, m):
        for h in range(BM):
            op(t[h, :], x[h, :], m[h, 0])
    return apply


ARITH = [
    (lambda x, y, t, m: T.tile.add(t, x, y), lambda x, y: x + y),
    (lambda x, y, t, m: T.tile.sub(t, x, 2.5), lambda x, y: x - 2.5),
    (lambda x, y, t, m: T.tile.mul(t, x, y), lambda x, y: x * y),
    (lambda x, y, t, m: T.tile.div(t, x, y), lambda x, y: x / y),
    (lambda x, y, t, m: T.tile.max(t, x, y), lambda x, y: np.maximum(x, y)),
    (lambda x, y, t, m: T.tile.min(t, x, 0.25), lambda x, y: np.minimum(x, 0.25)),
    (_rows(T.tile.sub), lambda x, y: x - y[:, :1]),
    (_rows(T.tile.mul), lambda x, y: x * y[:, :1]),
    (lambda x, y, t, m: (T.tile.fill(t, 1.0), T.tile.axpy(t, x, 0.5)), lambda x, y: 1 + 0.5 * x),
    (lambda x, y, t, m: (T.copy(y, t), T.tile.mul_add_dst(t, x, x)), lambda x, y: y + x * x),
    (lambda x, y, t, m: (T.tile.fill(t, 3.0), T.tile.fill(t[4:8, :], -1.0),
                         T.tile.fill(t[9, 16:], 2.0)), lambda x, y: _filled()),
]

MATH = [
    (lambda x, y, t, m: T.tile.exp(t, x), np.exp),
    (lambda x, y, t, m: T.tile.ln(t, y), np.log),
    (lambda x, y, t, m: T.tile.abs(t, x), np.abs),
    (lambda x, y, t, m: T.tile.sqrt(t, y), np.sqrt),
    (lambda x, y, t, m: T.tile.rsqrt(t, y), lambda v: 1 / np.sqrt(v)),
    (lambda x, y, t, m: T.tile.relu(t, x), lambda v: np.maximum(v, 0)),
    (lambda x, y, t, m: T.tile.reciprocal(t, y), lambda v: 1 / v),
    (lambda x, y, t, m: T.tile.sigmoid(t, x), lambda v: 1 / (1 + np.exp(-v))),
    (lambda x, y, t, m: T.tile.silu(t, x), lambda v: v / (1 + np.exp(-v))),
    (lambda x, y, t, m: T.tile.leaky_relu(t, x, 0.1), lambda v: np.where(v >= 0, v, 0.1 * v)),
    (lambda x, y, t, m: T.tile.clamp(t, x, -0.5, 0.5, BM * N), lambda v: np.clip(v, -0.5, 0.5)),
    (lambda x, y, t, m: T.tile.clamp_max(t, x, 0.3, BM * N), lambda v: np.minimum(v, 0.3)),
]


def _filled():
    """Each block's tile after `fill(t, 3)`, `fill(t[4:8, :], -1)`, `fill(t[9, 16:], 2)`."""
    block = np.full((BM, N), 3.0, np.float32)
    block[4:8, :] = -1.0
    block[9, 16:] = 2.0
    return np.concatenate([block, block])[:M]


@pytest.mark.parametrize("target", TARGETS)
def test_arithmetic(target):
    x, y = RNG.standard_normal((M, N)).astype(np.float32), RNG.uniform(0.5, 2, (M, N))
    y = y.astype(np.float32)
    out = run(ops_kernel([op for op, _ in ARITH], len(ARITH)), target, x, y)
    for k, (_, reference) in enumerate(ARITH):
        np.testing.assert_allclose(out[k], reference(x, y), rtol=1e-5, atol=1e-5,
                                   err_msg=f"op {k}")


@pytest.mark.parametrize("target", TARGETS)
def test_math(target):
    x, y = RNG.standard_normal((M, N)).astype(np.float32), RNG.uniform(0.5, 2, (M, N))
    y = y.astype(np.float32)
    out = run(ops_kernel([op for op, _ in MATH], len(MATH)), target, x, y)
    for k, (_, reference) in enumerate(MATH):
        operand = y if k in (1, 3, 4, 6) else x
        np.testing.assert_allclose(out[k], reference(operand), rtol=1e-4, atol=1e-5,
                                   err_msg=f"op {k}")


def shape_kernel():
    """Broadcasts (of a column, a row, 1-D tiles), compare/select, createvecindex and
    arith_progression, each into its own output."""

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32"),
             Out: T.Tensor((8, M, N), "float32"), Idx: T.Tensor((M, N), "int32")):
        with T.Kernel(T.ceildiv(M, BM), threads=2, is_npu=True) as cid:
            x = T.alloc_shared((BM, N), "float32")
            y = T.alloc_shared((BM, N), "float32")
            t = T.alloc_shared((BM, N), "float32")
            col = T.alloc_shared((BM, 1), "float32")
            col1 = T.alloc_shared((BM,), "float32")
            row = T.alloc_shared((1, N), "float32")
            row1 = T.alloc_shared((N,), "float32")
            mask = T.alloc_shared((BM, N), "uint8")
            idx = T.alloc_shared((BM, N), "int32")
            T.copy(X[cid * BM, 0], x)
            T.copy(Y[cid * BM, 0], y)
            T.copy(X[cid * BM, 0], col)
            T.copy(X[cid * BM:cid * BM + BM, 1], col1)
            T.copy(Y[cid * BM, 0], row)
            T.copy(Y[cid * BM + 1, 0], row1)
            T.tile.broadcast(t, col)
            T.copy(t, Out[0, cid * BM, 0])
            T.tile.broadcast(t, col1)
            T.copy(t, Out[1, cid * BM, 0])
            T.tile.broadcast(t, row)
            T.copy(t, Out[2, cid * BM, 0])
            T.tile.broadcast(t, row1)
            T.copy(t, Out[3, cid * BM, 0])
            T.tile.compare(mask, x, y, "GT")
            T.tile.select(t, mask, x, y, "VSEL_CMPMASK_SPR")
            T.copy(t, Out[4, cid * BM, 0])
            T.tile.compare(mask, x, 0.0, "LE")
            T.tile.select(t, mask, x, -7.0, "VSEL_TENSOR_SCALAR_MODE")
            T.copy(t, Out[5, cid * BM, 0])
            T.tile.arith_progression(row1, 1.0, 0.5, N)
            T.tile.broadcast(t, row1)
            T.copy(t, Out[6, cid * BM, 0])
            T.tile.createvecindex(idx, cid * 1000)
            T.copy(idx, Idx[cid * BM, 0])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_broadcast_compare_select_index(target):
    x, y = (RNG.standard_normal((M, N)).astype(np.float32) for _ in range(2))
    out, idx = tilelang.jit(out_idx=[-2, -1], target=target)(shape_kernel)()(x, y)
    blocks = [slice(b, min(b + BM, M)) for b in range(0, M, BM)]
    for rows in blocks:
        first = rows.start
        np.testing.assert_array_equal(out[0, rows], np.repeat(x[rows, :1], N, 1))
        np.testing.assert_array_equal(out[1, rows], np.repeat(x[rows, 1:2], N, 1))
        np.testing.assert_array_equal(out[2, rows], np.repeat(y[first:first + 1], len(range(
            *rows.indices(M))), 0))
        np.testing.assert_array_equal(out[3, rows][0], y[first + 1])
        np.testing.assert_array_equal(out[6, rows][0], 1.0 + 0.5 * np.arange(N))
        count = rows.stop - rows.start
        np.testing.assert_array_equal(idx[rows], first // BM * 1000
                                      + np.arange(count * N).reshape(count, N))
    np.testing.assert_array_equal(out[4], np.where(x > y, x, y))
    np.testing.assert_array_equal(out[5], np.where(x <= 0, x, -7.0))


INT_MODES = {"CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil, "CAST_TRUNC": np.trunc}


def cast_kernel():
    """f32 -> f16 (CAST_RINT) -> f32 (CAST_NONE), and f32 -> int32 in each mode of INT_MODES."""

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), H: T.Tensor((M, N), "float16"),
             F: T.Tensor((M, N), "float32"), Ints: T.Tensor((3, M, N), "int32")):
        with T.Kernel(T.ceildiv(M, BM), threads=2, is_npu=True) as cid:
            x = T.alloc_shared((BM, N), "float32")
            h = T.alloc_shared((BM, N), "float16")
            f = T.alloc_shared((BM, N), "float32")
            i = T.alloc_shared((BM, N), "int32")
            T.copy(X[cid * BM, 0], x)
            T.tile.cast(h, x, "CAST_RINT", BM * N)
            T.tile.cast(f, h, "CAST_NONE", BM * N)
            T.copy(h, H[cid * BM, 0])
            T.copy(f, F[cid * BM, 0])
            for k, mode in enumerate(INT_MODES):
                T.tile.cast(i, x, mode, BM * N)
                T.copy(i, Ints[k, cid * BM, 0])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_cast(target):
    x = (RNG.standard_normal((M, N)) * 10).astype(np.float32)
    h, f, i = tilelang.jit(out_idx=[1, 2, 3], target=target)(cast_kernel)()(x)
    np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(f, x.astype(np.float16).astype(np.float32))
    for k, rounding in enumerate(INT_MODES.values()):
        np.testing.assert_array_equal(i[k], rounding(x).astype(np.int32))


def row_ops(interleaved):
    """`for h in range(8): T.tile.sub(x[h, :], x[h, :], m[h])` (then `T.tile.mul` of rows
    2..5), or with a second op in the same loop (`interleaved`), which keeps them apart."""

    @T.prim_func
    def main(X: T.Tensor((8, 16), "float32"), Mv: T.Tensor((8,), "float32"),
             Out: T.Tensor((8, 16), "float32")):
        with T.Kernel(1, threads=2, is_npu=True) as cid:
            x = T.alloc_shared((8, 16), "float32")
            m = T.alloc_shared((8,), "float32")
            T.copy(X[cid, 0], x)
            T.copy(Mv[0], m)
            for h in range(8):
                T.tile.sub(x[h, :], x[h, :], m[h])
                if interleaved:
                    T.tile.add(x[h, :], x[h, :], 1.0)
            for h in range(2, 6):
                T.tile.mul(x[h, :], x[h, :], 2.0)
            T.copy(x, Out[cid, 0])

    return main


@pytest.mark.parametrize("interleaved", [False, True])
def test_row_loops_are_one_op_over_the_rows(interleaved):
    kernel = row_ops(interleaved)
    text = tilelang.compile(kernel, target="cpu").ir("tile")
    parallels = [line.split(" in ")[1].split(")")[0] for line in text.splitlines()
                 if "tile.parallel" in line]
    # a row loop is one op over its rows; with two ops per row, each row's are their own
    expected_ops = ["(16"] * 16 + ["(4, 16"] if interleaved else ["(8, 16", "(4, 16"]
    assert parallels == expected_ops
    x, m = RNG.standard_normal((8, 16)).astype(np.float32), RNG.standard_normal(8)
    out = tilelang.compile(kernel, target="cpu", out_idx=[2])(x, m.astype(np.float32))
    expected = x - m.astype(np.float32)[:, None] + (1.0 if interleaved else 0.0)
    expected[2:6] *= 2
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def pair_swap(m, n, bm):
    """tilelang-ascend's rope rotation (examples/pos_embedding/rope.py): byte offsets
    (createvecindex ^ 1) * 4 gather each f32 element's neighbour in its pair. (The ascend
    target gathers element by element: a small shape keeps the simulation short.)"""

    @T.prim_func
    def main(X: T.Tensor((m, n), "float32"), Out: T.Tensor((m, n), "float32")):
        with T.Kernel(T.ceildiv(m, bm), threads=2, is_npu=True) as cid:
            x = T.alloc_shared((bm, n), "float32")
            offsets = T.alloc_shared((bm, n), "int32")
            rotated = T.alloc_shared((bm, n), "float32")
            T.copy(X[cid * bm, 0], x)
            T.tile.createvecindex(offsets, 0)
            T.tile.bitwise_xor(offsets, offsets, 1)
            T.tile.mul(offsets, offsets, 4)
            T.tile.gather(rotated, x, offsets, 0)
            T.copy(rotated, Out[cid * bm, 0])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_gather(target):
    m, n = 10, 16
    x = RNG.standard_normal((m, n)).astype(np.float32)
    out = tilelang.jit(out_idx=[-1], target=target)(pair_swap)(m, n, 8)(x)
    np.testing.assert_array_equal(out, x.reshape(m, n // 2, 2)[:, :, ::-1].reshape(m, n))
