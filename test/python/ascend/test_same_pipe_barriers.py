"""The barriers tile-ascend-inject-sync puts between dependent ops of one pipe are needed.

A pipe overlaps its successive instructions (`tilec.targets.ascend.machine`), so the
simulator reports two dependent ops of one pipe with no barrier between them as a
race. A mutation test: every barrier the pass inserted into these kernels, deleted
alone, makes the simulator report a race; the output without any of them (what the
pass wrote before it knew of same-pipe hazards) races on the chain of vector ops.
(The mmad case, where flags back to the M pipe already order a K loop, is in
test/Conversion/TileToAscend/tile-ascend-inject-sync-same-pipe.mlir.)
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import sim

_BARRIER = re.compile(r"^ *ascend\.pipe_barrier (v|m|mte1|mte2|mte3|fix)\b.*\n", re.MULTILINE)


def _vector_chain(m: int, n: int):
    """x * sigmoid(1.702 x) * x: a chain of dependent vector ops on one UB tile."""

    @T.prim_func
    def chain(X: T.Tensor((m, n), "float32"), Y: T.Tensor((m, n), "float32")):
        with T.Kernel(1) as _:
            x = T.alloc_fragment((m, n), "float32")
            T.copy(X[0, 0], x)
            for i, j in T.Parallel(m, n):
                x[i, j] = x[i, j] * (1.0 / (1.0 + T.exp(-1.702 * x[i, j]))) * x[i, j]
            T.copy(x, Y[0, 0])

    return chain, [np.random.default_rng(0).standard_normal((m, n), dtype=np.float32),
                   np.zeros((m, n), np.float32)]


def _row_softmax(m: int, n: int):
    """A row softmax: reductions, broadcasts and element-wise ops, each reading the last."""

    @T.prim_func
    def softmax(X: T.Tensor((m, n), "float32"), Y: T.Tensor((m, n), "float32")):
        with T.Kernel(1) as _:
            x = T.alloc_fragment((m, n), "float32")
            top = T.alloc_fragment((m,), "float32")
            total = T.alloc_fragment((m,), "float32")
            T.copy(X[0, 0], x)
            T.reduce_max(x, top, dim=1)
            for i, j in T.Parallel(m, n):
                x[i, j] = T.exp(x[i, j] - top[i])
            T.reduce_sum(x, total, dim=1)
            for i, j in T.Parallel(m, n):
                x[i, j] = x[i, j] / total[i]
            T.copy(x, Y[0, 0])

    return softmax, [np.random.default_rng(1).standard_normal((m, n), dtype=np.float32),
                     np.zeros((m, n), np.float32)]


KERNELS = {"vector_chain": lambda: _vector_chain(32, 64),
           "row_softmax": lambda: _row_softmax(16, 64)}


def _ascend_ir(name: str):
    fn, inputs = KERNELS[name]()
    kernel = tilec.compile(fn, target="ascend", profile="910b")
    return kernel.ir("ascend"), inputs


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_inserted_barrier_is_needed(name):
    text, inputs = _ascend_ir(name)
    barriers = list(_BARRIER.finditer(text))
    assert barriers, "the pass inserted no same-pipe barrier"
    assert sim.simulate(text, inputs).ok
    for barrier in barriers:
        mutated = text[:barrier.start()] + text[barrier.end():]
        races = sim.simulate(mutated, [a.copy() for a in inputs]).races
        pipe = barrier.group(1)
        assert any(f"no pipe_barrier {pipe} (or all) orders them" in race.message
                   for race in races), (barrier.group(0), [r.message for r in races])


def test_no_barrier_races_on_a_vector_chain():
    text, inputs = _ascend_ir("vector_chain")
    races = sim.simulate(_BARRIER.sub("", text), inputs).races
    assert any("on V of block 0 aiv0" in race.message for race in races)


def test_the_950_orders_its_vector_pipe():
    fn, inputs = _vector_chain(32, 64)
    kernel = tilec.compile(fn, target="ascend", profile="950")
    assert "ascend.pipe_barrier v" not in kernel.ir("ascend")
    kernel(*inputs)
    x = inputs[0]
    np.testing.assert_allclose(inputs[1], x * (1 / (1 + np.exp(-1.702 * x))) * x, rtol=1e-5,
                               atol=1e-6)
