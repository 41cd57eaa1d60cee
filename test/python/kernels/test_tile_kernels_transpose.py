"""`tilec.kernels.tile_kernels.transpose` against TileKernels' oracle
(tests/transpose/test_transpose.py at 36d9e45): `x.T.contiguous()` and
`torch.transpose(x, 1, 2).contiguous()`, compared bit for bit with dtype, shape and
strides. Inputs are upstream's kinds (rows twice strided, FP8/BF16/FP32), shrunk for
2 cores, plus shapes upstream's kernel rejects: ragged dims, transposed views."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tilec.kernels import last_report, use_target  # noqa: E402
from tilec.kernels.tile_kernels import transpose as tk  # noqa: E402

DTYPES = [torch.float8_e4m3fn, torch.bfloat16, torch.float32]


def _random(shape, dtype):
    return torch.randn(shape, dtype=torch.bfloat16).to(dtype)


def _assert_same(y, ref):
    assert y.dtype == ref.dtype and y.shape == ref.shape
    assert y.numel() == 0 or y.stride() == ref.stride()
    assert torch.equal(y.contiguous().flatten().view(torch.uint8),
                       ref.contiguous().flatten().view(torch.uint8))


def _twice_strided(x):
    """x's rows with a stride of twice their length (upstream's `twice_stride`)."""
    wide = x.new_empty((x.shape[0], 2 * x.shape[1]))
    view = wide[:, : x.shape[1]]
    view.copy_(x)
    return view


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("m", "n"), [(128, 576), (37, 200)])
def test_transpose(m, n, dtype):
    x = _twice_strided(_random((m, n), dtype))
    _assert_same(tk.transpose(x), x.T.contiguous())
    assert last_report()[0].target.startswith("cpu")


def test_transpose_of_a_transposed_view():
    x = _random((64, 130), torch.float32).T
    _assert_same(tk.transpose(x), x.T.contiguous())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("b", "m", "n"), [(3, 128, 576), (2, 37, 100)])
def test_batched_transpose(b, m, n, dtype):
    x = _random((b, m, n), dtype)
    _assert_same(tk.batched_transpose(x), torch.transpose(x, 1, 2).contiguous())


def test_batched_transpose_of_strided_batches():
    x = _random((6, 64, 192), torch.bfloat16)[::2, :, 64:]
    _assert_same(tk.batched_transpose(x), torch.transpose(x, 1, 2).contiguous())


def test_empty():
    _assert_same(tk.transpose(torch.empty((0, 576), dtype=torch.bfloat16)),
                 torch.empty((576, 0), dtype=torch.bfloat16))
    _assert_same(tk.batched_transpose(torch.empty((0, 64, 128))), torch.empty((0, 128, 64)))


def test_numpy_input():
    x = np.arange(37 * 70, dtype=np.float32).reshape(37, 70)
    y = tk.transpose(x)
    assert isinstance(y, np.ndarray) and y.flags.c_contiguous
    np.testing.assert_array_equal(y, x.T)


def test_rank_is_checked():
    with pytest.raises(ValueError, match=r"tile_kernels\.transpose\.transpose: x must be 2-D"):
        tk.transpose(torch.zeros(4))
    with pytest.raises(ValueError, match="batched_transpose: x must be 3-D"):
        tk.batched_transpose(torch.zeros(4, 4))


def test_ascend():
    x = _twice_strided(_random((64, 96), torch.bfloat16))
    with use_target("ascend:950"):
        y = tk.transpose(x)
    _assert_same(y, x.T.contiguous())
    assert last_report()[0].target.startswith("ascend")
