"""No kernel touches memory outside its tensors: every array argument is a
view into the middle of a larger buffer whose bytes around it are a canary,
and after the call the canary must be intact. Reads outside a tensor give 0
(gathers through out-of-range indices included), writes outside it are
dropped; numerics are checked against numpy on ragged shapes."""

from __future__ import annotations

import numpy as np
import pytest
from example_kernels import example

import tilec
import tilec.language as T
from tilec.runtime.compiler import CompiledKernel

# Bytes on each side of a tensor; a kernel that strays further would be
# caught by the process crashing rather than by the canary.
PAD_BYTES = 4096
CANARY = 0xA5


class _Fenced:
    """A copy of an array in the middle of a canary-filled buffer."""

    def __init__(self, array: np.ndarray):
        self.array = array
        self.raw = np.full(array.nbytes + 2 * PAD_BYTES, CANARY, np.uint8)
        inner = self.raw[PAD_BYTES : PAD_BYTES + array.nbytes]
        self.view = inner.view(array.dtype).reshape(array.shape)
        self.view[...] = array

    def check_and_copy_back(self, name: str) -> None:
        before = self.raw[:PAD_BYTES]
        after = self.raw[PAD_BYTES + self.array.nbytes :]
        assert (before == CANARY).all(), f"{name}: bytes before the tensor were written"
        assert (after == CANARY).all(), f"{name}: bytes after the tensor were written"
        self.array[...] = self.view


@pytest.fixture
def fenced_calls(monkeypatch):
    """Every CompiledKernel call in the test goes through fenced copies."""
    original = CompiledKernel.__call__
    calls = []

    def call(self, *args):
        fenced = [_Fenced(a) if isinstance(a, np.ndarray) else None for a in args]
        original(self, *[f.view if f is not None else a for f, a in zip(fenced, args, strict=True)])
        for param, f in zip(self.params, fenced, strict=True):
            if f is not None:
                f.check_and_copy_back(f"{self.name}: argument '{param.name}'")
        calls.append(self.name)

    monkeypatch.setattr(CompiledKernel, "__call__", call)
    return calls


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "tolerance"),
    [
        ("gemm", (100, 72, 50), {}, 1e-5),
        ("gemm", (65, 33, 47), {"trans_A": True, "trans_B": True, "relu": True}, 1e-5),
        ("gemm", (90, 64, 64), {"dynamic_M": True}, 1e-5),
        ("softmax", (37, 300, "float32", True), {}, 1e-6),
        ("rmsnorm", (45, 200, "float32", True), {}, 1e-6),
        ("flash_attention", (2, 1, 100, 32), {"causal": True, "dynamic_seq": True}, 1e-5),
        ("flash_attention", (1, 1, 70, 16), {"causal": False, "dtype": "float16"}, 2e-3),
    ],
)
def test_examples_stay_inside_their_tensors(fenced_calls, name, args, kwargs, tolerance):
    assert example(name).check(*args, **kwargs) <= tolerance
    assert fenced_calls


def test_topk_gather_stays_inside_its_tensors(fenced_calls):
    gather_error, sum_error = example("topk_gather").check(50, 5, 300, 72, "float32", True)
    assert gather_error == 0.0 and sum_error <= 1e-5
    assert len(fenced_calls) == 2


N = T.symbolic("N")
R = T.symbolic("R")


@T.prim_func
def doubled(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=128) as bx:
        for i in T.Parallel(64):
            Y[bx * 64 + i] = X[bx * 64 + i] * 2.0


@T.prim_func
def gather_scatter(
    X: T.Tensor((R,), "float32"),
    Idx: T.Tensor((N,), "int32"),
    G: T.Tensor((N,), "float32"),
    S: T.Tensor((R,), "float32"),
):
    with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
        for i in T.Parallel(32):
            G[bx * 32 + i] = X[Idx[bx * 32 + i]]
            S[Idx[bx * 32 + i]] = 1.0


B = T.symbolic("B")


@T.prim_func
def serial_tail(
    X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"), Z: T.Tensor((B,), "int32")
):
    with T.Kernel(T.ceildiv(N, 16), threads=1) as bx:
        for i in T.serial(16):
            Y[bx * 16 + i] = X[bx * 16 + i] + 1.0
        Z[bx + 2] = T.cast(bx, "int32")  # past the end of Z for the last two blocks


@T.prim_func
def atomic_count(Idx: T.Tensor((N,), "int32"), H: T.Tensor((R,), "float32")):
    with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
        for i in T.Parallel(32):
            T.atomic_add(H[Idx[bx * 32 + i]], 1.0)


@pytest.mark.parametrize("n", [1, 63, 64, 100, 257])
def test_elementwise_on_ragged_sizes(fenced_calls, n):
    x = np.arange(n, dtype=np.float32)
    y = np.zeros(n, np.float32)
    tilec.compile(doubled)(x, y)
    np.testing.assert_array_equal(y, 2 * x)


def _indices(n: int, rows: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    idx = rng.integers(0, rows, n).astype(np.int32)
    idx[::5] = rows + 1000  # past the end
    idx[1::7] = -3  # before the start
    idx[2::11] = np.iinfo(np.int32).max
    return idx


@pytest.mark.parametrize(("n", "rows"), [(100, 40), (32, 1), (70, 300)])
def test_gathers_read_zero_and_scatters_drop_outside(fenced_calls, n, rows):
    x = np.arange(1, rows + 1, dtype=np.float32)
    idx = _indices(n, rows)
    g = np.full(n, 9.0, np.float32)
    s = np.zeros(rows, np.float32)
    tilec.compile(gather_scatter)(x, idx, g, s)
    inside = (idx >= 0) & (idx < rows)
    np.testing.assert_array_equal(g, np.where(inside, x[np.clip(idx, 0, rows - 1)], 0))
    expected = np.zeros(rows, np.float32)
    expected[idx[inside]] = 1.0
    np.testing.assert_array_equal(s, expected)


@pytest.mark.parametrize("n", [5, 16, 40])
def test_serial_and_scalar_accesses(fenced_calls, n):
    blocks = -(-n // 16)
    x = np.arange(n, dtype=np.float32)
    y = np.zeros(n, np.float32)
    z = np.full(blocks, -7, np.int32)
    tilec.compile(serial_tail)(x, y, z)
    np.testing.assert_array_equal(y, x + 1)
    np.testing.assert_array_equal(z, [-7] * min(2, blocks) + list(range(blocks - 2)))


def test_atomic_adds_through_indices_drop_outside(fenced_calls):
    n, rows = 90, 17
    idx = _indices(n, rows)
    h = np.zeros(rows, np.float32)
    tilec.compile(atomic_count)(idx, h)
    inside = idx[(idx >= 0) & (idx < rows)]
    np.testing.assert_array_equal(h, np.bincount(inside, minlength=rows).astype(np.float32))
