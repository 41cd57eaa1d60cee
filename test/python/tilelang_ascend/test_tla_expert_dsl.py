"""The expert-mode surface of tilelang-ascend's language as tilec takes it: tiles in named
buffers (`T.alloc_L1/L0A/L0B/L0C/ub`, ordinary tiles on other targets), `T.Scope`, the
sync calls with upstream's pipe spellings (an event id computed in the loop too), and the
located errors for what the hardware cannot do."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.language import DSLError


def _scaled(M, N, rows=16, body=None):
    """C = 2 A by each AIV, double-buffered in UB with the author's flags; the event id of
    each slot is `k % 2`, known only in the loop."""

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(M // (4 * rows), is_npu=True) as (cid, vid):
            a = T.alloc_ub((2, rows, N), "float32")
            with T.Scope("V"):
                T.set_flag("mte3", "mte2", 0)
                T.set_flag("mte3", "mte2", 1)
                for k in T.serial(2):
                    s = k % 2
                    row = (cid * 2 + vid) * 2 * rows + k * rows
                    T.wait_flag("MTE3", "MTE2", s)
                    T.copy(A[row:row + rows, 0:N], a[s, :, :])
                    T.set_flag("MTE2", "V", s)
                    T.wait_flag("MTE2", "V", s)
                    T.tile.mul(a[s, :, :], a[s, :, :], 2.0)
                    T.set_flag("V", "MTE3", s)
                    T.wait_flag("V", "MTE3", s)
                    T.copy(a[s, :, :], C[row:row + rows, 0:N])
                    T.set_flag("MTE3", "MTE2", s)
                T.wait_flag("MTE3", "MTE2", 0)
                T.wait_flag("MTE3", "MTE2", 1)

    return main


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_event_ids_computed_in_the_loop(profile, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    kernel = tilec.compile(_scaled(128, 64), target="ascend", profile=profile)
    a = np.random.default_rng(0).standard_normal((128, 64)).astype(np.float32)
    c = np.zeros_like(a)
    kernel(a, c)
    np.testing.assert_array_equal(c, 2 * a)
    # per AIV: 2 credits, then 3 sets per step; each id under an `if` (k % 2 is 0 or 1...)
    assert kernel.report().sync_counts["set_flag"] == 4 * (2 + 3 * 2)
    assert "SetFlag<HardEvent::MTE2_V>(1)" in kernel.source()


def test_named_buffers_are_ordinary_tiles_on_cpu():
    @T.prim_func
    def add(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(2) as bx:
            x = T.alloc_ub((32,), "float32")
            y = T.alloc_L1((32,), "float32")
            T.copy(A[bx * 32], y)  # the paths the NPU has: GM -> L1 -> UB -> GM
            T.copy(y, x)
            for i in T.Parallel(32):
                x[i] = x[i] + 1.0
            T.copy(x, B[bx * 32])

    kernel = tilec.compile(add, target="cpu")
    a = np.arange(64, dtype=np.float32)
    b = np.zeros_like(a)
    kernel(a, b)
    np.testing.assert_array_equal(b, a + 1)


def _error(body) -> DSLError:
    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, is_npu=True) as (_cid, _vid):
            body()

    with pytest.raises(DSLError) as caught:
        main.ir()
    return caught.value


@pytest.mark.parametrize(("call", "message"), [
    (lambda: T.set_flag("MTE2", "mte2", 0),
     'T.set_flag: the source and destination pipes are both "MTE2"; order one pipe with '
     'T.pipe_barrier("MTE2")'),
    (lambda: T.wait_flag("MTE4", "V", 0),
     "T.wait_flag source: unknown pipe 'MTE4'; expected one of \"S\", \"V\", \"M\", \"MTE1\", "
     "\"MTE2\", \"MTE3\", \"FIX\""),
    (lambda: T.set_flag("MTE2", "V", 8), "T.set_flag: the event id must be a Python int in "
                                         "[0, 7] but got 8"),
    (lambda: T.pipe_barrier("S"), 'T.pipe_barrier("S"): the scalar pipe is in order already '
                                  "(the hardware rejects a PIPE_S barrier)"),
    (lambda: T.set_cross_flag("FIX", 11), "T.set_cross_flag: the flag must be a Python int in "
                                          "[0, 10] but got 11"),
    (lambda: T.set_cross_flag("FIX", 0, mode=3),
     "T.set_cross_flag: mode must be one of (0, 1, 2, 4) but got 3"),
    (lambda: T.Scope("X"), 'T.Scope: expected "C" (the cube core) or "V" (the vector cores) '
                           "but got 'X'"),
    (lambda: T.annotate_address({"x": 0}), "T.annotate_address: 'x' is not a tile of "
                                           "T.alloc_L1, alloc_L0A, alloc_L0B, alloc_L0C or "
                                           "alloc_ub"),
])
def test_mistakes_are_located_errors(call, message):
    error = _error(call)
    assert error.message == message
    assert error.loc is not None and error.loc.file == __file__


def test_a_scope_belongs_directly_in_the_kernel():
    def body():
        for _ in T.serial(2):
            with T.Scope("V"):
                pass

    error = _error(body)
    assert error.message.startswith('T.Scope("V") must be directly in the body of T.Kernel')
