"""Memory planning and multi-buffering of `ascend` IR, checked by running it.

The planner's oracle is the simulator: random vector programs (loops, ifs,
buffers of several sizes, a `pipe_barrier all` after every op so that no
layout can race) must store the same numbers planned as unplanned. If the
planner gave two buffers that are live at once overlapping bytes, one would
overwrite the other and a later store would differ. The structural rules
(aligned, inside the usable bytes) are checked on the same programs.
"""

from __future__ import annotations

import dataclasses
import random
import re

import numpy as np
import pytest

from tilec import ir
from tilec.diagnostics import CompileError
from tilec.passes.conversion.tile_to_ascend.multi_buffer import AscendMultiBufferPass
from tilec.passes.conversion.tile_to_ascend.plan_memory import AscendPlanMemoryPass
from tilec.passes.pipeline import run_pipeline
from tilec.sim import SimError, simulate
from tilec.targets.ascend.profiles import get_profile

PROFILE = get_profile("910b")

UB = "#ascend.mem<ub>"
SIZES = (8, 40, 64, 200)
BIG = (4096, 6144, 8192, 12288)
"""Elements of the large tiles: 16 to 64 KiB, so that a program rarely fits
with whole-loop lifetimes and the planner reuses bytes within iterations."""


class _Program:
    """A random vector kernel: every read is of a buffer written before it
    on every path, so its stores do not depend on where buffers are placed."""

    def __init__(self, seed: int, sizes: tuple[int, ...] = SIZES):
        self.rng = random.Random(seed)
        self.sizes = sizes
        self.buffers: list[tuple[str, int]] = []
        self.stored = 0
        self.constants = 0

    def _new_buffers(self, count: int) -> list[tuple[str, int]]:
        made = [(f"%b{len(self.buffers) + i}", self.rng.choice(self.sizes)) for i in range(count)]
        self.buffers.extend(made)
        return made

    def text(self) -> str:
        body: list[str] = []
        pool = self._new_buffers(self.rng.randint(3, 8))
        self._block(body, set(), pool, depth=0, statements=self.rng.randint(6, 14))
        allocs = [f"  {name} = memref.alloc() : memref<{n}xf32, {UB}>" for name, n in self.buffers]
        constants = [f"  %k{i} = arith.constant {i + 1}.0 : f32" for i in range(self.constants)]
        return "\n".join([
            f"func.func @k(%out: memref<{max(self.stored, 1)}xf32, #ascend.mem<gm>>, %flag: i1)",
            "    attributes {ascend.kernel = #ascend.core<aiv>} {",
            "  %c0 = arith.constant 0 : index",
            "  %c1 = arith.constant 1 : index",
            "  %c2 = arith.constant 2 : index",
            *constants, *allocs, *body, "  return", "}"])

    def _constant(self) -> str:
        self.constants += 1
        return f"%k{self.constants - 1}"

    def _block(self, out: list[str], written: set[str], pool: list[tuple[str, int]], depth: int,
               statements: int) -> set[str]:
        """Statements on the buffers of `pool`; a loop may add buffers only it uses."""
        pad = "  " * (depth + 1)
        for _ in range(statements):
            kind = self.rng.random()
            if depth < 2 and kind < 0.25:
                out.append(f"{pad}scf.for %i{len(out)}_{depth} = %c0 to %c2 step %c1 {{")
                local = self._new_buffers(self.rng.randint(0, 3))
                self._block(out, set(written), pool + local, depth + 1, self.rng.randint(2, 6))
                out.append(f"{pad}}}")
            elif depth < 2 and kind < 0.4:
                out.append(f"{pad}scf.if %flag {{")
                then = self._block(out, set(written), pool, depth + 1, self.rng.randint(1, 4))
                out.append(f"{pad}}} else {{")
                other = self._block(out, set(written), pool, depth + 1, self.rng.randint(1, 4))
                out.append(f"{pad}}}")
                written |= then & other
            else:
                self._statement(out, pad, written, pool)
        return written

    def _statement(self, out: list[str], pad: str, written: set[str],
                   pool: list[tuple[str, int]]) -> None:
        name, n = self.rng.choice(pool)
        type_ = f"memref<{n}xf32, {UB}>"
        same = [b for b, m in pool if m == n and b in written]
        choice = self.rng.random()
        if choice < 0.35 or not same:
            out.append(f"{pad}ascend.vdup {name}, {self._constant()} : {type_}, f32")
            written.add(name)
        elif choice < 0.65:
            a, b = self.rng.choice(same), self.rng.choice(same)
            out.append(f"{pad}ascend.vbin add {name}, {a}, {b} : {type_}")
            written.add(name)
        else:
            source = self.rng.choice(same)
            out.append(f"{pad}ascend.copy {source}[%c0], %out[%c{self.stored}_] sizes [{n}] "
                       f": {type_}, memref<{{OUT}}xf32, #ascend.mem<gm>>")
            self.stored += n
        out.append(f"{pad}ascend.pipe_barrier all")


def _finish(text: str, stored: int) -> str:
    """Gives the store offsets their constants and the output its size."""
    offsets = sorted({int(m) for m in re.findall(r"%c(\d+)_\]", text)})
    defs = "\n".join(f"  %c{o}_ = arith.constant {o} : index" for o in offsets)
    text = text.replace("{OUT}", str(max(stored, 1)))
    return text.replace("  %c0 = arith.constant 0 : index", "  %c0 = arith.constant 0 : index\n"
                        + defs, 1)


def _random_program(seed: int, sizes: tuple[int, ...] = SIZES) -> str:
    program = _Program(seed, sizes)
    return _finish(program.text(), program.stored)


def _planned(text: str, context, *passes) -> ir.Module:
    module = ir.parse_module(text, context=context)
    run_pipeline(module, list(passes))
    return module


def _offsets(module: ir.Module) -> list[tuple[str, int, int]]:
    """(type, offset, bytes) of every planned alloc."""
    found = []
    for match in re.finditer(r"ascend.offset = (\d+) : i64} : memref<(\d+)xf32", str(module)):
        found.append((match[0], int(match[1]), int(match[2]) * 4))
    return found


# First fit cannot hold the large-tile programs unplanned (it keeps every
# buffer): their reference runs on a 910b with 8 MiB of UB.
_ROOMY = dataclasses.replace(PROFILE, capacity={**PROFILE.capacity, "ub": 8 * 1024 * 1024})


def _check_planned_program(text: str, module: ir.Module) -> None:
    """Aligned, inside UB, and the same stores as first fit on both paths."""
    usable = PROFILE.usable_bytes("ub")
    offsets = _offsets(module)
    assert len(offsets) == text.count("memref.alloc()")
    for _, offset, nbytes in offsets:
        assert offset % 32 == 0 and offset + nbytes <= usable
    size = int(re.search(r"%out: memref<(\d+)x", text)[1])
    for flag in (0, 1):
        before = simulate(text, {"out": np.zeros(size, np.float32), "flag": flag},
                          profile=_ROOMY)
        after = simulate(str(module), {"arg0": np.zeros(size, np.float32), "arg1": flag})
        assert not before.races and not after.races
        np.testing.assert_array_equal(before.outputs["out"], after.outputs["arg0"])


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_store_the_same_planned(seed, context):
    text = _random_program(seed)
    _check_planned_program(text, _planned(text, context, AscendPlanMemoryPass()))


@pytest.mark.parametrize("seed", range(20))
def test_random_programs_of_large_tiles(seed, context):
    """Too large for whole-loop lifetimes: the planner reuses bytes within
    iterations, or reports an overflow that it could not avoid."""
    text = _random_program(seed, BIG)
    try:
        module = _planned(text, context, AscendPlanMemoryPass())
    except CompileError as exc:
        assert "ub overflow" in str(exc)
        return
    _check_planned_program(text, module)


def test_planning_reuses_bytes_in_random_programs(context):
    """Reuse happens: over the sample, planned peaks are well below first fit."""
    saved = 0
    for seed in range(10):
        text = _random_program(seed)
        module = _planned(text, context, AscendPlanMemoryPass())
        total = sum(nbytes for _, _, nbytes in _offsets(module))
        peak = max(offset + nbytes for _, offset, nbytes in _offsets(module))
        saved += total - peak
    assert saved > 0


GM = "memref<256xf32, #ascend.mem<gm>>"
def _phases(n: int, a_before_loop: bool) -> str:
    """A 2-iteration loop storing %a (filled with 1) then %b (filled with 2),
    `n` elements each; %a is filled before the loop or in it."""
    gm = f"memref<{4 * n}xf32, #ascend.mem<gm>>"
    tile = f"memref<{n}xf32, {UB}>"
    fill_a = f"ascend.vdup %a, %one : {tile}, f32\n  ascend.pipe_barrier all"
    return f"""
func.func @k(%out: {gm}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c2n = arith.constant {2 * n} : index
  %cn = arith.constant {n} : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : {tile}
  %b = memref.alloc() : {tile}
  {fill_a if a_before_loop else ""}
  scf.for %i = %c0 to %c2 step %c1 {{
    %at = arith.muli %i, %c2n : index
    %bt = arith.addi %at, %cn : index
    {"" if a_before_loop else fill_a}
    ascend.copy %a[%c0], %out[%at] sizes [{n}] : {tile}, {gm}
    ascend.pipe_barrier all
    ascend.vdup %b, %two : {tile}, f32
    ascend.pipe_barrier all
    ascend.copy %b[%c0], %out[%bt] sizes [{n}] : {tile}, {gm}
    ascend.pipe_barrier all
  }}
  return
}}
"""


@pytest.mark.parametrize("a_before_loop", [False, True])
@pytest.mark.parametrize("n", [64, 24576])
def test_reuse_within_an_iteration_only_when_needed(n, a_before_loop, context):
    """Two 96 KiB tiles do not fit in UB side by side. Both filled in the
    loop, they are iteration-private and share bytes; %a filled before the
    loop is read by every iteration and must keep its own. Small tiles keep
    whole-loop lifetimes (no reuse, so the pipes could overlap)."""
    text = _phases(n, a_before_loop)
    if n > 64 and a_before_loop:
        with pytest.raises(CompileError, match=r"ub overflow: 192.00 KiB needed, 184.00 KiB"):
            _planned(text, context, AscendPlanMemoryPass())
        return
    module = _planned(text, context, AscendPlanMemoryPass())
    shared = len({offset for _, offset, _ in _offsets(module)}) == 1
    assert shared == (n > 64)
    result = simulate(str(module), {"arg0": np.zeros(4 * n, np.float32)})
    np.testing.assert_array_equal(result.outputs["arg0"], np.tile(np.repeat([1.0, 2.0], n), 2))


_READ_IN_LOOP = f"""
func.func @k(%out: {GM}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<64xf32, {UB}>
  %b = memref.alloc() : memref<64xf32, {UB}>
  ascend.vdup %a, %one : memref<64xf32, {UB}>, f32
  ascend.pipe_barrier all
  scf.for %i = %c0 to %c2 step %c1 {{
    %at = arith.muli %i, %c64 : index
    %bt = arith.addi %at, %c128 : index
    ascend.copy %a[%c0], %out[%at] sizes [64] : memref<64xf32, {UB}>, {GM}
    ascend.pipe_barrier all
    ascend.vdup %b, %two : memref<64xf32, {UB}>, f32
    ascend.pipe_barrier all
    ascend.copy %b[%c0], %out[%bt] sizes [64] : memref<64xf32, {UB}>, {GM}
    ascend.pipe_barrier all
  }}
  return
}}
"""


def test_buffer_read_in_a_loop_is_live_through_it(context):
    """%a's last use is before %b's first in the body, but the next iteration
    reads %a again: they must not share bytes."""
    module = _planned(_READ_IN_LOOP, context, AscendPlanMemoryPass())
    result = simulate(str(module), {"arg0": np.zeros(256, np.float32)})
    np.testing.assert_array_equal(result.outputs["arg0"], np.repeat([1.0, 2.0], 128))


_LOOP = f"""
func.func @k(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32, {UB}>
  %u = memref.alloc() : memref<64xf32, {UB}>
  scf.for %i = %c0 to %n step %c64 {{
    ascend.copy %x[%i], %t[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, {UB}>
    ascend.pipe_barrier all
    ascend.vunary abs %u, %t : memref<64xf32, {UB}>
    ascend.pipe_barrier all
    ascend.copy %u[%c0], %x[%i] sizes [64] : memref<64xf32, {UB}>, memref<?xf32, #ascend.mem<gm>>
    ascend.pipe_barrier all
  }} {{tile.num_stages = STAGES : i64}}
  return
}}
"""


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("n", [0, 64, 100, 320, 448])
def test_multi_buffered_loop_keeps_every_iteration(stages, n, context):
    """Any trip count (none, fewer than the stages, not a multiple) runs each
    iteration exactly once, on distinct slots at distinct offsets."""
    text = _LOOP.replace("STAGES", str(stages))
    module = _planned(text, context, AscendMultiBufferPass(), AscendPlanMemoryPass())
    offsets = {offset for _, offset, _ in _offsets(module)}
    assert len(offsets) == 2 * stages
    x = -np.arange(n, dtype=np.float32)
    result = simulate(str(module), {"arg0": x.copy(), "arg1": n})
    assert not result.races
    np.testing.assert_array_equal(result.outputs["arg0"], np.abs(x))


def test_max_stages_caps_the_slots(context):
    text = _LOOP.replace("STAGES", "4")
    module = _planned(text, context, AscendMultiBufferPass(max_stages=3), AscendPlanMemoryPass())
    assert len(_offsets(module)) == 6


_PLACED = f"""
func.func @k() attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() {{ascend.offset = OFFSET : i64}} : memref<256xf32, {UB}>
  ascend.vdup %a, %zero : memref<256xf32, {UB}>, f32
  return
}}
"""


@pytest.mark.parametrize("offset, message", [
    (16, r"memref.alloc of 1024 bytes at ascend.offset 16 in the ub of block 0 aiv0: offset 16 "
         r"is not a multiple of the 32-byte alignment"),
    (188416 - 512, r"bytes \[187904, 188928\) are outside the 188416 usable bytes"),
])
def test_simulator_checks_planned_offsets(offset, message):
    with pytest.raises(SimError, match=message) as info:
        simulate(_PLACED.replace("OFFSET", str(offset)), {}, source_name="k.mlir")
    assert info.value.diagnostics[0].line == 4


def test_simulator_places_planned_buffers_exactly():
    """Planned buffers sit at their offsets, may share bytes, count once in
    the peak, and an alloc in a loop keeps its one place; an unplanned one
    goes around them."""
    text = f"""
func.func @k(%out: memref<3xf32, #ascend.mem<gm>>)
    attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c100 = arith.constant 100 : index
  %c200 = arith.constant 200 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() {{ascend.offset = 1024 : i64}} : memref<256xf32, {UB}>
  %b = memref.alloc() {{ascend.offset = 1536 : i64}} : memref<256xf32, {UB}>
  %c = memref.alloc() : memref<8xf32, {UB}>
  ascend.vdup %a, %one : memref<256xf32, {UB}>, f32
  ascend.vdup %c, %two : memref<8xf32, {UB}>, f32
  ascend.pipe_barrier all
  ascend.vdup %b, %two : memref<256xf32, {UB}>, f32
  ascend.pipe_barrier all
  ascend.copy %a[%c0], %out[%c0] sizes [1] : memref<256xf32, {UB}>, memref<3xf32, #ascend.mem<gm>>
  ascend.copy %a[%c200], %out[%c1] sizes [1] : memref<256xf32, {UB}>, memref<3xf32, #ascend.mem<gm>>
  ascend.copy %c[%c0], %out[%c2] sizes [1] : memref<8xf32, {UB}>, memref<3xf32, #ascend.mem<gm>>
  scf.for %i = %c0 to %c100 step %c1 {{
    %big = memref.alloc() {{ascend.offset = 4096 : i64}} : memref<40000xf32, {UB}>
    ascend.pipe_barrier v
    ascend.vdup %big, %one : memref<40000xf32, {UB}>, f32
  }}
  return
}}
"""
    result = simulate(text, {"out": np.zeros(3, np.float32)})
    # %b starts at element 128 of %a: a[0] keeps 1, a[200] reads b's 2.
    np.testing.assert_array_equal(result.outputs["out"], [1.0, 2.0, 2.0])
    assert not result.races
    # In use: %c (first fit at 0, 32 bytes), %a and %b once (1536) and %big,
    # placed once although allocated in each of 100 iterations.
    assert result.memory_peak["ub"] == 32 + 1536 + 160000


def test_planned_buffer_may_not_cover_a_first_fit_one():
    text = f"""
func.func @k() attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %a = memref.alloc() : memref<64xf32, {UB}>
  %b = memref.alloc() {{ascend.offset = 128 : i64}} : memref<64xf32, {UB}>
  return
}}
"""
    with pytest.raises(SimError, match=r"at ascend.offset 128 in the ub of block 0 aiv0: it "
                                       r"overlaps memref<64xf32, #ascend.mem<ub>> allocated at "
                                       r"k.mlir:3:8, which the memory planner did not place"):
        simulate(text, {}, source_name="k.mlir")


def test_views_of_a_planned_buffer_stay_in_it():
    """%b shares bytes with %a; a reinterpret_cast of %b counts from %b's
    start, not from %a's, which also holds that address."""
    text = f"""
func.func @k(%out: memref<512xf32, #ascend.mem<gm>>)
    attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() {{ascend.offset = 0 : i64}} : memref<512xf32, {UB}>
  %b = memref.alloc() {{ascend.offset = 1024 : i64}} : memref<256xf32, {UB}>
  ascend.vdup %a, %one : memref<512xf32, {UB}>, f32
  ascend.pipe_barrier all
  %r = memref.reinterpret_cast %b to offset: [0], sizes: [2, 128], strides: [128, 1]
      : memref<256xf32, {UB}> to memref<2x128xf32, {UB}>
  ascend.vdup %r, %two : memref<2x128xf32, {UB}>, f32
  ascend.pipe_barrier all
  ascend.copy %a[%c0], %out[%c0] sizes [512]
      : memref<512xf32, {UB}>, memref<512xf32, #ascend.mem<gm>>
  return
}}
"""
    result = simulate(text, {"out": np.zeros(512, np.float32)})
    np.testing.assert_array_equal(result.outputs["out"], np.repeat([1.0, 2.0], 256))


_HALF = f"memref<128xf32, strided<[1], offset: 128>, {UB}>"
_DEALLOC = f"""
func.func @k() attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %a = memref.alloc() : memref<256xf32, {UB}>
  memref.dealloc %a : memref<256xf32, {UB}>
  %b = memref.alloc() : memref<256xf32, {UB}>
  SECOND
  return
}}
"""


@pytest.mark.parametrize("second, error", [
    ("", None),
    (f"memref.dealloc %a : memref<256xf32, {UB}>", "k.mlir:6:3"),
    (f"%v = memref.subview %b[128] [128] [1] : memref<256xf32, {UB}> to {_HALF}\n"
     f"  memref.dealloc %v : {_HALF}", "k.mlir:7:3"),
])
def test_dealloc_ends_exactly_its_buffer(second, error):
    text = _DEALLOC.replace("SECOND", second)
    if error is None:
        # %b takes the bytes %a gave back: 1 KiB at most in use.
        assert simulate(text, {}).memory_peak["ub"] == 1024
        return
    with pytest.raises(SimError, match=r"memref\.dealloc of a buffer that memref\.alloc did "
                                       r"not return") as info:
        simulate(text, {}, source_name="k.mlir")
    assert info.value.diagnostics[0].render().startswith(error)
