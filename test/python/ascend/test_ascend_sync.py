"""tile-ascend-inject-sync on random small kernels, checked by the simulator.

Each kernel moves 64-element rows between two GM tensors and a few UB
buffers with every pipe of a vector core: MTE2 loads (also of the tensor the
kernel writes: a GM hazard), MTE3 stores, V adds/scales/fills, scalar
loads/stores of UB elements (S), in straight-line code, `scf.for` loops
(trip counts 0 to 3) and `scf.if`s on a runtime value. Some kernels place
their buffers with `ascend.offset`, overlapping (reuse). The synchronized
kernel must run with no race, no deadlock and no flag misuse (a set of a set
flag, a flag left set) under both readings of a flag's identity, and compute
what the same kernel computes with a PIPE_ALL barrier after every op.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tilec import ir as tilec_ir
from tilec import sim
from tilec.diagnostics import CompileError
from tilec.passes.pipeline import run_pipeline

pytestmark = pytest.mark.e2e

ROW = 64
ROWS = 8
"""GM tensors are ROWS x ROW f32; UB buffers are rows of ROW f32."""
BUFFERS = 5


class _Kernel:
    """Random kernel text; `fence` puts a PIPE_ALL barrier after every pipe op."""

    def __init__(self, seed: int, loops: bool):
        self.rng = random.Random(seed)
        self.loops = loops
        self.names = iter(range(10_000))
        self.planned = self.rng.random() < 0.4

    def _row(self) -> str:
        return f"%r{self.rng.randrange(BUFFERS)}"

    def _op(self, iv: str | None, fence: bool) -> list[str]:
        rng = self.rng
        kind = rng.choice(["load", "load", "store", "store", "vadd", "vmul", "vdup", "scalar"])
        row_type = "memref<64xf32, #ascend.mem<ub>>"
        gm = "memref<512xf32, #ascend.mem<gm>>"
        if kind in ("load", "store"):
            tensor = "%x" if kind == "load" and rng.random() < 0.6 else "%y"
            offset = f"%c{ROW * rng.randrange(ROWS)}"
            if iv is not None and rng.random() < 0.5:
                offset = iv + "_off"
            row = self._row()
            if kind == "load":
                text = (f"ascend.copy {tensor}[{offset}], {row}[%c0] sizes [64] : "
                        f"{gm}, {row_type}")
            else:
                text = f"ascend.copy {row}[%c0], %y[{offset}] sizes [64] : {row_type}, {gm}"
            lines = [text]
        elif kind == "vadd":
            lines = [f"ascend.vbin add {self._row()}, {self._row()}, {self._row()} : {row_type}"]
        elif kind == "vmul":
            lines = [f"ascend.vbins muls {self._row()}, {self._row()}, %half : {row_type}, f32"]
        elif kind == "vdup":
            lines = [f"ascend.vdup {self._row()}, %half : {row_type}, f32"]
        else:
            name = f"%s{next(self.names)}"
            lines = [f"{name} = memref.load {self._row()}[%c{rng.choice([0, 1, 63])}] : "
                     f"{row_type}",
                     f"{name}_1 = arith.addf {name}, %half : f32",
                     f"memref.store {name}_1, {self._row()}[%c{rng.choice([0, 5])}] : "
                     f"{row_type}"]
        return lines + (["ascend.pipe_barrier all"] if fence else [])

    def _body(self, depth: int, iv: str | None, fence: bool, length: int) -> list[str]:
        lines: list[str] = []
        for _ in range(length):
            roll = self.rng.random()
            if self.loops and depth < 2 and roll < 0.2:
                lines += self._loop(depth, fence)
            elif self.loops and depth < 2 and roll < 0.3:
                lines += self._if(depth, iv, fence)
            else:
                lines += self._op(iv, fence)
        return lines

    def _loop(self, depth: int, fence: bool) -> list[str]:
        iv = f"%i{next(self.names)}"
        trips = self.rng.randrange(4)
        body = [f"{iv}_row = arith.remui {iv}, %c{ROWS} : index",
                f"{iv}_off = arith.muli {iv}_row, %c{ROW} : index",
                *self._body(depth + 1, iv, fence, self.rng.randrange(2, 6))]
        return [f"scf.for {iv} = %c0 to %c{trips} step %c1 {{", *body, "}"]

    def _if(self, depth: int, iv: str | None, fence: bool) -> list[str]:
        name = f"%cond{next(self.names)}"
        left = iv if iv is not None else f"%c{self.rng.randrange(3)}"
        lines = [f"{name} = arith.cmpi ult, {left}, %n : index", f"scf.if {name} {{",
                 *self._body(depth + 1, iv, fence, self.rng.randrange(1, 4))]
        if self.rng.random() < 0.5:
            lines += ["} else {", *self._body(depth + 1, iv, fence, self.rng.randrange(1, 3))]
        return [*lines, "}"]

    def text(self, fence: bool) -> str:
        state = self.rng.getstate()
        names = self.names
        self.names = iter(range(10_000))
        constants = sorted({0, 1, 2, 3, 5, 63, ROWS, ROW} | {ROW * r for r in range(ROWS)})
        lines = [f"%c{c} = arith.constant {c} : index" for c in constants]
        lines.append("%half = arith.constant 0.5 : f32")
        for b in range(BUFFERS):
            # Planned rows of 256 bytes every 128 bytes: neighbours share half their bytes.
            offset = f" {{ascend.offset = {128 * b} : i64}}" if self.planned else ""
            lines.append(f"%r{b} = memref.alloc(){offset} : memref<64xf32, #ascend.mem<ub>>")
        lines += self._body(0, None, fence, self.rng.randrange(4, 12))
        self.rng.setstate(state)
        self.names = names
        body = "\n    ".join(lines)
        return (f"func.func @k(%x: memref<512xf32, #ascend.mem<gm>>, "
                f"%y: memref<512xf32, #ascend.mem<gm>>, %n: index)\n"
                f"    attributes {{ascend.kernel = #ascend.core<aiv>}} {{\n    {body}\n"
                f"    return\n}}\n")


def _synchronized(text: str, strategy: str) -> str:
    context = tilec_ir.make_context()
    with context:
        module = tilec_ir.parse_module(text, "random.mlir", context)
        run_pipeline(module, f"tile-ascend-inject-sync{{strategy={strategy}}}")
        return str(module)


def _run(text: str, n: int, identity: str = "pair") -> sim.SimResult:
    x = np.arange(ROWS * ROW, dtype=np.float32) / 7
    y = np.linspace(-1, 1, ROWS * ROW, dtype=np.float32)
    return sim.simulate(text, [x, y, n], flag_identity=identity)


def _check(seed: int, loops: bool) -> dict[str, int] | None:
    """Flags and barriers per strategy; None when the kernel needs more event
    ids than the profile has (a long run of loads that nothing waits for in
    between): then the error must say so."""
    kernel = _Kernel(seed, loops)
    plain = kernel.text(fence=False)
    fenced = kernel.text(fence=True)
    counts = {}
    for strategy in ("flags", "barrier"):
        try:
            synced = _synchronized(plain, strategy)
        except CompileError as exc:
            message = str(exc)
            assert strategy == "flags" and "out of event ids for flags from the" in message, \
                message
            return None
        for n in (0, 1, 2):
            want = _run(fenced, n)
            assert want.ok, want.diagnostics
            for identity in ("pair", "source"):
                got = _run(synced, n, identity)
                assert got.ok, (plain, synced, [str(d) for d in got.diagnostics])
                # By position: the printed kernel names its arguments %arg0, %arg1.
                for have, expect in zip(got.outputs.values(), want.outputs.values(),
                                        strict=True):
                    np.testing.assert_array_equal(have, expect, err_msg=synced)
                if strategy == "flags":
                    assert got.pipe_all_barriers == 0
        counts[strategy] = synced.count("ascend.set_flag") + synced.count("pipe_barrier")
    return counts


@pytest.mark.parametrize("seed", range(30))
def test_straight_line(seed: int) -> None:
    _check(seed, loops=False)


@pytest.mark.parametrize("seed", range(100, 150))
def test_loops_and_ifs(seed: int) -> None:
    _check(seed, loops=True)


def test_random_kernels_need_sync() -> None:
    """The generator makes kernels with hazards (else the tests above test
    nothing), and few of them run out of event ids."""
    counts = [_check(seed, loops=True) for seed in range(200, 212)]
    assert sum(c is not None and c["flags"] > 0 for c in counts) >= 10


# -- the simulator's checks that the tests above rely on ------------------------------


def _vadd_inputs(n: int) -> list:
    return [np.arange(n, dtype=np.float32), np.ones(n, np.float32), np.zeros(n, np.float32), n]


def test_flag_identity_by_source_is_stricter(repo) -> None:
    """The hand-written double-buffered add numbers its flags per (source,
    destination) pair: v -> mte2, 0 and v -> mte3, 0 are pending at once.
    Fine if the hardware names a flag by pair, one flag set twice if by
    source and id; the pass's version is correct under both."""
    path = repo / "test" / "Simulator" / "Inputs" / "vadd-double-buffer.mlir"
    text = path.read_text()
    assert sim.simulate(text, _vadd_inputs(4000), block_dim=3).ok
    strict = sim.simulate(text, _vadd_inputs(4000), block_dim=3, flag_identity="source")
    assert any("already set" in d.message for d in strict.errors)
    plain = "\n".join(line for line in text.splitlines() if "_flag" not in line)
    synced = _synchronized(plain, "flags")
    for identity in ("pair", "source"):
        result = sim.simulate(synced, _vadd_inputs(4000), block_dim=3, flag_identity=identity)
        assert result.ok and result.sync_counts["set_flag"] == 76
    with pytest.raises(sim.SimError, match="unknown flag identity 'id'"):
        sim.simulate(synced, _vadd_inputs(256), flag_identity="id")


def test_a_flag_left_set_is_an_error() -> None:
    text = """func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} {
      ascend.set_flag mte2 -> v, 3
      return
    }"""
    result = sim.simulate(text, [])
    assert [d.message for d in result.errors] == [
        "ascend.set_flag mte2 -> v, 3 on block 0 aiv0: flag mte2 -> v, 3 is still set when "
        "the core finishes (no wait_flag consumed it)"]
