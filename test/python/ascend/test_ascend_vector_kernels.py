"""Vector-only kernels through convert-tile-to-ascend, run in the simulator against numpy.

Each DSL kernel's tile IR goes through the `tile-to-ascend` pipeline (placed,
converted, multi-buffered, planned and synchronized), then runs on several
launch sizes (the grid-stride loop must cover the grid for any), race-free.
Shapes are ragged (not multiples of the tiles).
"""

from __future__ import annotations

import numpy as np
import pytest
from example_kernels import example

import tilec
import tilec.language as T
from tilec import ir as tilec_ir
from tilec import sim
from tilec.passes.pipeline import run_pipeline

pytestmark = pytest.mark.e2e

BLOCK_DIMS = (1, 3, 8)


def lower(kernel, profile: str = "910b") -> str:
    """The ascend IR of a DSL kernel: the whole `tile-to-ascend` pipeline."""
    text = tilec.compile(kernel, target="cpu").ir("tile")
    context = tilec_ir.make_context()
    with context:
        module = tilec_ir.parse_module(text, "kernel", context)
        run_pipeline(module, f"tile-to-ascend{{target=ascend:{profile}}}")
        return str(module)


def run(kernel, inputs: list, block_dims=BLOCK_DIMS, profile: str = "910b") -> list[list]:
    """The GM arguments after a run, for each launch size; every run race-free."""
    text = lower(kernel, profile)
    results = []
    for block_dim in block_dims:
        result = sim.simulate(text, inputs, block_dim=block_dim, profile=profile)
        assert result.ok, result.report()
        results.append(list(result.outputs.values()))
    return results


def _close(got, expected, tolerance):
    got = np.asarray(got, dtype=np.float32)
    assert got.shape == expected.shape
    error = float(np.max(np.abs(got - expected)))
    assert error <= tolerance, error


RNG = np.random.default_rng(7)


def _data(*shape, dtype="float32", scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


# -- element-wise ------------------------------------------------------------------------


def elementwise(M, N, body, dtype, block_M=16, block_N=32, tile_dtype="float32"):
    """C = body(a, b) per element, over a 2-D grid of (block_M, block_N) tiles."""

    @T.prim_func
    def kernel(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M)) as (bx, by):
            a = T.alloc_fragment((block_M, block_N), tile_dtype)
            b = T.alloc_fragment((block_M, block_N), tile_dtype)
            c = T.alloc_fragment((block_M, block_N), tile_dtype)
            T.copy(A[by * block_M, bx * block_N], a)
            T.copy(B[by * block_M, bx * block_N], b)
            for i, j in T.Parallel(block_M, block_N):
                c[i, j] = body(a[i, j], b[i, j])
            T.copy(c, C[by * block_M, bx * block_N])

    return kernel


@pytest.mark.parametrize("dtype,tolerance", [("float32", 1e-6), ("float16", 2e-3)])
@pytest.mark.parametrize(
    "name,body,reference",
    [
        ("add", lambda a, b: a + b, lambda a, b: a + b),
        ("scaled_add", lambda a, b: a * 0.75 + b, lambda a, b: a * np.float32(0.75) + b),
        (
            "exp_relu",
            lambda a, b: T.max(T.exp(a) - b, 0.0),
            lambda a, b: np.maximum(np.exp(a) - b, 0),
        ),
        (
            "select",
            lambda a, b: T.if_then_else(a > b, a - b, b * 2.0),
            lambda a, b: np.where(a > b, a - b, b * 2),
        ),
    ],
)
def test_elementwise(name, body, reference, dtype, tolerance):
    M, N = 37, 70
    a, b = _data(M, N, dtype=dtype), _data(M, N, dtype=dtype)
    expected = reference(a.astype(np.float32), b.astype(np.float32))
    for _, _, c in run(elementwise(M, N, body, dtype), [a, b, np.zeros_like(a)]):
        _close(c, expected, tolerance * max(1.0, float(np.max(np.abs(expected)))))


def test_elementwise_on_f16_tiles():
    """f16 vector ops, and casts to f32 and back inside the body."""
    M, N = 37, 70
    a, b = _data(M, N, dtype="float16"), _data(M, N, dtype="float16")
    kernels = [
        (lambda x, y: T.max(T.exp(x) - y, 0.0), np.maximum(np.exp(a) - b, np.float16(0))),
        (
            lambda x, y: T.cast(T.cast(x, "float32") * T.cast(y, "float32"), "float16"),
            (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16),
        ),
    ]
    for body, expected in kernels:
        kernel = elementwise(M, N, body, "float16", tile_dtype="float16")
        for _, _, c in run(kernel, [a, b, np.zeros_like(a)], (2,)):
            assert np.array_equal(c, expected)


def test_elementwise_is_vector_code():
    text = lower(elementwise(37, 70, lambda a, b: a * 0.75 + b, "float32"))
    assert "ascend.vbins muls" in text and "ascend.vbin add" in text
    assert "memref.load" not in text and "memref.store" not in text


def test_scalar_argument_and_kernel_attribute():
    N, block = 300, 128

    @T.prim_func
    def axpy(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"), alpha: T.float32):
        with T.Kernel(T.ceildiv(N, block)) as bx:
            x = T.alloc_fragment((block,), "float32")
            y = T.alloc_fragment((block,), "float32")
            T.copy(X[bx * block], x)
            T.copy(Y[bx * block], y)
            for i in T.Parallel(block):
                y[i] = x[i] * alpha + y[i]
            T.copy(y, Y[bx * block])

    x, y = _data(N), _data(N)
    assert "ascend.kernel = #ascend.core<aiv>" in lower(axpy)
    for _, out in run(axpy, [x, y, 2.5]):
        _close(out, x * np.float32(2.5) + y, 1e-6)


# -- examples: softmax, rmsnorm, top-k gathers ---------------------------------------------


@pytest.mark.parametrize("dtype,tolerance", [("float32", 1e-6), ("float16", 1e-3)])
def test_softmax(dtype, tolerance):
    softmax = example("softmax")
    x = _data(40, 300, dtype=dtype, scale=4.0)
    for _, y in run(softmax.softmax(40, 300, dtype=dtype), [x, np.zeros_like(x)]):
        _close(y, softmax.reference(x), tolerance)


@pytest.mark.parametrize("dtype,tolerance", [("float32", 1e-5), ("float16", 2e-3)])
def test_rmsnorm(dtype, tolerance):
    rmsnorm = example("rmsnorm")
    x, w = _data(45, 200, dtype=dtype), _data(200, dtype=dtype)
    expected = rmsnorm.reference(x, w)
    for _, _, y in run(rmsnorm.rmsnorm(45, 200, dtype=dtype), [x, w, np.zeros_like(x)]):
        _close(y, expected, tolerance * float(np.max(np.abs(expected))))


def test_topk_gather_falls_back_to_scalar_code():
    topk = example("topk_gather")
    tokens, k, rows, D = 20, 3, 40, 40
    x = _data(rows, D)
    idx = topk.select_topk(RNG.standard_normal((tokens, rows)), k)
    weights = RNG.random((tokens, k)).astype(np.float32)
    gather = topk.topk_gather(tokens, k, rows, D, block_T=8, block_D=32)
    assert "memref.load" in lower(gather)
    for _, _, out in run(gather, [x, idx, np.zeros((tokens, k, D), np.float32)], (1, 4)):
        _close(out, x[idx], 0.0)
    combine = topk.topk_weighted_sum(tokens, k, rows, D, block_T=8, block_D=32)
    expected = np.einsum("tk,tkd->td", weights, x[idx])
    for *_, out in run(combine, [x, idx, weights, np.zeros((tokens, D), np.float32)], (1, 4)):
        _close(out, expected, 1e-5)


# -- norms and reductions -----------------------------------------------------------------


def layernorm(M, N, dtype, eps=1e-5, block_M=8):
    """One tile holds whole rows (N fits): mean and variance by row sums."""

    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), G: T.Tensor((N,), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M)) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            g = T.alloc_fragment((N,), "float32")
            centered = T.alloc_fragment((block_M, N), "float32")
            mean = T.alloc_fragment((block_M,), "float32")
            var = T.alloc_fragment((block_M,), "float32")
            T.copy(X[bx * block_M, 0], x)
            T.copy(G[0], g)
            T.reduce_sum(x, mean, dim=1)
            for i in T.Parallel(block_M):
                mean[i] = mean[i] / N
            for i, j in T.Parallel(block_M, N):
                centered[i, j] = x[i, j] - mean[i]
            for i, j in T.Parallel(block_M, N):
                x[i, j] = centered[i, j] * centered[i, j]
            T.reduce_sum(x, var, dim=1)
            for i in T.Parallel(block_M):
                var[i] = T.rsqrt(var[i] / N + eps)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = centered[i, j] * var[i] * g[j]
            T.copy(x, Y[bx * block_M, 0])

    return kernel


@pytest.mark.parametrize("dtype,tolerance", [("float32", 1e-5), ("float16", 3e-3)])
def test_layernorm(dtype, tolerance):
    M, N = 29, 96
    x, g = _data(M, N, dtype=dtype), _data(N, dtype=dtype)
    x32, g32 = x.astype(np.float32), g.astype(np.float32)
    mean = x32.mean(axis=1, keepdims=True)
    expected = (x32 - mean) / np.sqrt(((x32 - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    expected = expected * g32
    for _, _, y in run(layernorm(M, N, dtype), [x, g, np.zeros_like(x)]):
        _close(y, expected, tolerance * float(np.max(np.abs(expected))))


def row_reduce(M, N, kind, block_M=16):
    """Out[m] = kind over X[m, :] (a whole row per tile)."""
    reduce = {"sum": T.reduce_sum, "max": T.reduce_max, "absmax": T.reduce_absmax}[kind]

    @T.prim_func
    def kernel(X: T.Tensor((M, N), "float32"), Out: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M)) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            r = T.alloc_fragment((block_M,), "float32")
            T.copy(X[bx * block_M, 0], x)
            reduce(x, r, dim=1)
            T.copy(r, Out[bx * block_M])

    return kernel


def column_reduce(M, N, kind, block_M=16, block_N=32):
    """Out[n] = kind over X[:, n], accumulated over row tiles with clear=False."""
    reduce = {"sum": T.reduce_sum, "max": T.reduce_max}[kind]

    @T.prim_func
    def kernel(X: T.Tensor((M, N), "float32"), Out: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block_N)) as bx:
            x = T.alloc_fragment((block_M, block_N), "float32")
            r = T.alloc_fragment((block_N,), "float32")
            T.fill(r, 0.0 if kind == "sum" else -T.infinity("float32"))
            for t in T.serial(T.ceildiv(M, block_M)):
                T.copy(X[t * block_M, bx * block_N], x)
                reduce(x, r, dim=0, clear=False)
            T.copy(r, Out[bx * block_N])

    return kernel


@pytest.mark.parametrize("kind", ["sum", "max", "absmax"])
def test_row_reduction(kind):
    M, N = 45, 72
    x = _data(M, N)
    expected = {"sum": x.sum(axis=1), "max": x.max(axis=1), "absmax": np.abs(x).max(axis=1)}[kind]
    for _, out in run(row_reduce(M, N, kind), [x, np.zeros(M, np.float32)]):
        _close(out, expected, 1e-5)


@pytest.mark.parametrize("kind", ["sum", "max"])
def test_column_reduction(kind):
    # Rows a multiple of the tile: the zeros past the edge would count for max.
    M, N = 48, 70
    x = _data(M, N)
    expected = x.sum(axis=0) if kind == "sum" else x.max(axis=0)
    for _, out in run(column_reduce(M, N, kind), [x, np.zeros(N, np.float32)]):
        _close(out, expected, 1e-5)


@pytest.mark.parametrize("dim,reverse", [(1, False), (0, False), (1, True)])
def test_cumsum(dim, reverse):
    M, N, block_M = 21, 24, 8

    @T.prim_func
    def kernel(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M)) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            y = T.alloc_fragment((block_M, N), "float32")
            T.copy(X[bx * block_M, 0], x)
            T.cumsum(x, y, dim=dim, reverse=reverse)
            T.copy(y, Y[bx * block_M, 0])

    x = _data(M, N)
    expected = np.zeros_like(x)
    for start in range(0, M, block_M):
        part = x[start : start + block_M]
        if reverse:
            expected[start : start + block_M] = np.flip(np.cumsum(np.flip(part, dim), dim), dim)
        else:
            expected[start : start + block_M] = np.cumsum(part, axis=dim)
    for _, y in run(kernel, [x, np.zeros_like(x)]):
        _close(y, expected, 1e-5)


# -- conversions ---------------------------------------------------------------------------


def test_cast_f32_to_f16():
    M, N, block = 33, 50, 16

    @T.prim_func
    def kernel(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(M, block)) as bx:
            x = T.alloc_fragment((block, N), "float32")
            T.copy(X[bx * block, 0], x)
            T.copy(x, Y[bx * block, 0])

    x = _data(M, N, scale=100.0)
    text = lower(kernel)
    assert "ascend.vcast" in text and "round rint" in text
    for _, y in run(kernel, [x, np.zeros((M, N), np.float16)]):
        assert np.array_equal(y, x.astype(np.float16))


def test_per_row_int8_quantization():
    M, N, block = 27, 64, 8

    @T.prim_func
    def kernel(
        X: T.Tensor((M, N), "float32"), Q: T.Tensor((M, N), "int8"), S: T.Tensor((M,), "float32")
    ):
        with T.Kernel(T.ceildiv(M, block)) as bx:
            x = T.alloc_fragment((block, N), "float32")
            amax = T.alloc_fragment((block,), "float32")
            q = T.alloc_fragment((block, N), "int8")
            T.copy(X[bx * block, 0], x)
            T.reduce_absmax(x, amax, dim=1)
            for i in T.Parallel(block):
                amax[i] = T.max(amax[i], 1e-6)
            for i, j in T.Parallel(block, N):
                q[i, j] = T.cast(x[i, j] * (127.0 / amax[i]), "int8")
            for i in T.Parallel(block):
                amax[i] = amax[i] / 127.0
            T.copy(q, Q[bx * block, 0])
            T.copy(amax, S[bx * block])

    x = _data(M, N, scale=3.0)
    amax = np.maximum(np.abs(x).max(axis=1), np.float32(1e-6))
    inverse = (np.float32(127.0) / amax).astype(np.float32)
    expected = np.trunc(x * inverse[:, None]).astype(np.int8)
    for _, q, s in run(kernel, [x, np.zeros((M, N), np.int8), np.zeros(M, np.float32)]):
        assert np.array_equal(q, expected)
        _close(s, amax / np.float32(127.0), 1e-7)


def test_950_profile():
    M, N = 20, 40
    a, b = _data(M, N), _data(M, N)
    kernel = elementwise(M, N, lambda x, y: x - y, "float32")
    for _, _, c in run(kernel, [a, b, np.zeros_like(a)], (2,), profile="950"):
        _close(c, a - b, 1e-6)


# -- the whole tile-to-ascend pipeline ------------------------------------------------------


def test_tile_to_ascend_pipeline_with_barrier_sync():
    """Placed, planned and synchronized by the pipeline's own passes: no test barriers."""
    softmax = example("softmax")
    x = _data(40, 300, scale=4.0)
    text = tilec.compile(softmax.softmax(40, 300), target="cpu").ir("tile")
    context = tilec_ir.make_context()
    with context:
        module = tilec_ir.parse_module(text, "kernel", context)
        run_pipeline(module, "tile-to-ascend{sync=barrier}")
        text = str(module)
    for block_dim in (1, 4):
        result = sim.simulate(text, [x, np.zeros_like(x)], block_dim=block_dim)
        assert result.ok, result.report()
        _close(list(result.outputs.values())[1], softmax.reference(x), 1e-6)


# -- masks the loop bounds decide ------------------------------------------------------------


def _column_mask_kernel(length: int, bound: int, block: int = 32):
    """out[r, c] = x[r, c] where c < bound else -1, by key-loop tiles of `block`
    columns (attention's sequence-end mask, with `bound` the sequence length)."""

    @T.prim_func
    def masked(X: T.Tensor((8, length), "float32"), Y: T.Tensor((8, length), "float32")):
        with T.Kernel(1, threads=128) as _:
            tile = T.alloc_fragment((8, block), "float32")
            for k in T.Pipelined(T.ceildiv(length, block), num_stages=1):
                T.copy(X[0, k * block], tile)
                for i, j in T.Parallel(8, block):
                    tile[i, j] = T.if_then_else(k * block + j < bound, tile[i, j], -1.0)
                T.copy(tile, Y[0, k * block])

    return masked


@pytest.mark.parametrize(("length", "bound", "folded"), [
    (128, 128, True),   # every column of every tile is inside: no compare left
    (128, 200, True),
    (128, 127, False),  # the last column of the last tile is outside
    (128, 64, False),
    (100, 100, False),  # a ragged last tile
])
def test_decided_mask_folds_only_when_every_point_holds(length, bound, folded):
    text = lower(_column_mask_kernel(length, bound))
    assert ("ascend.vcmp" not in text) == folded
    x = _data(8, length)
    expected = np.where(np.arange(length)[None, :] < bound, x, -1.0).astype(np.float32)
    for _, y in run(_column_mask_kernel(length, bound), [x, np.zeros_like(x)], (1,)):
        _close(y, expected, 0.0)
