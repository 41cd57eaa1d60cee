"""Synchronization semantics: cross-core semaphores, grid barriers, pipe barriers,
scalar-unit flags, launch waves, and the errors that stop a simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sim_helpers import location, position, race_pairs

from tilec.sim import SimError, get_profile, simulate

NAME = "sync.mlir"
GM = "memref<?xf32, #ascend.mem<gm>>"
UB8 = "memref<8xf32, #ascend.mem<ub>>"


def exchange_kernel(barrier: str) -> str:
    """Block b writes b to ws[8b:8b+8], then (after `barrier`) reads the slot of
    block b+1 and stores it to out[8b:8b+8]."""
    return f"""
func.func @exchange(%ws: {GM}, %out: {GM}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %b = ascend.block_idx : index
  %nb = ascend.block_num : index
  %buf = memref.alloc() : {UB8}
  %bi = arith.index_cast %b : index to i32
  %bf = arith.sitofp %bi : i32 to f32
  ascend.vdup %buf, %bf : {UB8}, f32
  ascend.set_flag v -> mte3, 0
  ascend.wait_flag v -> mte3, 0
  %off = arith.muli %b, %c8 : index
  ascend.copy %buf[%c0], %ws[%off] sizes [8] : {UB8}, {GM}
{barrier}
  %b1 = arith.addi %b, %c1 : index
  %next = arith.remui %b1, %nb : index
  %noff = arith.muli %next, %c8 : index
  ascend.copy %ws[%noff], %buf[%c0] sizes [8] : {GM}, {UB8}
  ascend.set_flag mte2 -> mte3, 0
  ascend.wait_flag mte2 -> mte3, 0
  ascend.copy %buf[%c0], %out[%off] sizes [8] : {UB8}, {GM}
  return
}}
"""


def run_exchange(barrier: str, blocks: int = 4):
    text = exchange_kernel(barrier)
    result = simulate(text, [np.zeros(8 * blocks, np.float32), np.zeros(8 * blocks, np.float32)],
                      block_dim=blocks, source_name=NAME)
    expected = np.repeat((np.arange(blocks) + 1) % blocks, 8).astype(np.float32)
    return text, result, expected


@pytest.mark.parametrize("barrier", [
    "  ascend.sync_all",
    "  ascend.cross_core_set_flag mode 0, mte3, 1\n  ascend.cross_core_wait_flag 1, mte2",
])
def test_grid_barriers_order_gm_exchange_between_cores(barrier: str) -> None:
    _, result, expected = run_exchange(barrier)
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    np.testing.assert_array_equal(result["out"], expected)


def test_gm_exchange_without_barrier_is_a_race_between_cores() -> None:
    text, result, _ = run_exchange("")
    store = location(NAME, text, "ascend.copy %buf[%c0], %ws[%off]")
    load = location(NAME, text, "ascend.copy %ws[%noff], %buf[%c0]")
    # The load reads the neighbour's slot of ws, and overwrites buf, unordered
    # with the store (and the vdup) that use buf.
    assert race_pairs(result) == {frozenset((store, load)),
                                  frozenset((location(NAME, text, "ascend.vdup"), load))}
    messages = "\n".join(race.message for race in result.races)
    assert "argument %ws" in messages
    assert "MTE3 of block" in messages and "MTE2 of block" in messages


def test_sync_all_costs_its_latency_after_the_last_arrival() -> None:
    profile = get_profile("910b")
    _, with_sync, _ = run_exchange("  ascend.sync_all")
    _, without, _ = run_exchange("")
    assert with_sync.cycles - without.cycles >= profile.sync_all_cycles


def test_sync_all_that_some_core_skips_is_a_deadlock() -> None:
    text = exchange_kernel("""  %first = arith.cmpi eq, %b, %c0 : index
  scf.if %first {
    ascend.sync_all
  }""")
    result = simulate(text, [np.zeros(16, np.float32), np.zeros(16, np.float32)], block_dim=2,
                      source_name=NAME)
    [deadlock] = result.deadlocks
    assert position(deadlock) == location(NAME, text, "ascend.sync_all")
    assert deadlock.message == ("deadlock: ascend.sync_all on S of block 0 aiv0 waits for every "
                                "core of the grid, but only 1 of 2 arrive")


COUNTING = """
func.func @count() attributes {ascend.kernel = #ascend.core<mix>} {
  ascend.core aic {
    ascend.cross_core_set_flag mode 2, mte2, 3
    ascend.cross_core_set_flag mode 2, mte2, 3
  }
  ascend.core aiv {
WAITS  }
  return
}
"""


def test_sync_all_over_more_blocks_than_cores_is_a_deadlock() -> None:
    blocks = get_profile("910b").aiv_cores + 2
    text = exchange_kernel("  ascend.sync_all")
    result = simulate(text, [np.zeros(8 * blocks, np.float32)] * 2, block_dim=blocks)
    [deadlock] = result.deadlocks
    assert deadlock.message.endswith(f"but only {blocks - 2} of {blocks} arrive")
    assert deadlock.notes[-1].message == (f"2 blocks never started: the grid has {blocks} blocks "
                                          f"for {blocks - 2} cores")


def test_cross_core_flags_count() -> None:
    wait = "    ascend.cross_core_wait_flag 3\n"
    assert simulate(COUNTING.replace("WAITS", 2 * wait), []).ok
    text = COUNTING.replace("WAITS", 3 * wait)
    result = simulate(text, [], source_name=NAME)
    [deadlock] = result.deadlocks
    assert position(deadlock) == location(NAME, text, "ascend.cross_core_wait_flag 3", 3)
    assert deadlock.message.startswith("deadlock: ascend.cross_core_wait_flag 3 on S of "
                                       "block 0 aiv0 (and on 1 more cores)")


def test_too_many_pending_cross_core_sets_are_an_error() -> None:
    text = """
func.func @flood() attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  ascend.core aic {
    scf.for %i = %c0 to %c16 step %c1 {
      ascend.cross_core_set_flag mode 2, mte2, 4
    }
  }
  return
}
"""
    result = simulate(text, [], source_name=NAME)
    # The sets are also never consumed: each AIV ends with all 16 pending.
    assert [e.message for e in result.errors] == [
        "ascend.cross_core_set_flag mode 2, mte2, 4: more than 15 sets of cross-core flag 4 "
        "are pending on block 0 aiv0",
        *(f"cross-core flag 4 (mode 2) set by block 0 aic is still pending (16 set(s)) on block 0 "
          f"aiv{sub} when the kernel ends: no cross_core_wait_flag consumed it" for sub in (0, 1))]
    assert position(result.errors[0]) == location(NAME, text, "ascend.cross_core_set_flag")


def test_a_cross_core_set_no_wait_consumes_is_an_error() -> None:
    text = """
func.func @unconsumed() attributes {ascend.kernel = #ascend.core<mix>} {
  ascend.core aic {
    ascend.cross_core_set_flag mode 2, fix, 1
  }
  ascend.core aiv {
    %sub = ascend.sub_block_idx : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %sub, %c0 : index
    scf.if %first {
      ascend.cross_core_wait_flag 1
    }
  }
  return
}
"""
    result = simulate(text, [], source_name=NAME)
    assert [e.message for e in result.errors] == [
        "cross-core flag 1 (mode 2) set by block 0 aic is still pending (1 set(s)) on block 0 "
        "aiv1 when the kernel ends: no cross_core_wait_flag consumed it"]


def scalar_kernel(sync: str) -> str:
    return f"""
func.func @scalar(%out: {GM}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %v = arith.constant 2.5 : f32
  %buf = memref.alloc() : {UB8}
  ascend.vdup %buf, %v : {UB8}, f32
{sync}
  %x = memref.load %buf[%c3] : {UB8}
  %y = arith.mulf %x, %x : f32
  memref.store %y, %out[%c0] : {GM}
  return
}}
"""


def test_scalar_unit_waits_for_the_vector_pipe() -> None:
    profile = get_profile("910b")
    text = scalar_kernel("  ascend.set_flag v -> s, 0\n  ascend.wait_flag v -> s, 0")
    result = simulate(text, [np.zeros(1, np.float32)])
    assert result.ok
    assert result["out"][0] == 6.25
    vdup = profile.startup_cycles["v"] + 1
    assert result.cycles == (vdup + profile.scalar_local_access_cycles
                             + profile.scalar_gm_access_cycles)


def test_scalar_read_without_flag_is_a_race_with_the_vector_pipe() -> None:
    text = scalar_kernel("")
    result = simulate(text, [np.zeros(1, np.float32)], source_name=NAME)
    assert race_pairs(result) == {frozenset((location(NAME, text, "ascend.vdup"),
                                             location(NAME, text, "memref.load")))}


def test_pipe_barrier_all_orders_every_pipe() -> None:
    text = f"""
func.func @barrier(%x: {GM}, %z: {GM}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : {UB8}
  ascend.copy %x[%c0], %buf[%c0] sizes [8] : {GM}, {UB8}
  ascend.pipe_barrier all
  ascend.vbin add %buf, %buf, %buf : {UB8}
  ascend.pipe_barrier all
  ascend.copy %buf[%c0], %z[%c0] sizes [8] : {UB8}, {GM}
  return
}}
"""
    p = get_profile("910b")
    x = np.arange(8, dtype=np.float32)
    result = simulate(text, [x, np.zeros(8, np.float32)], profile=p)
    assert result.ok
    np.testing.assert_array_equal(result["z"], 2 * x)
    assert result.cycles == (p.startup_cycles["mte2"] + 1 + p.startup_cycles["v"] + 1
                             + p.startup_cycles["mte3"] + 1)
    unordered_text = text.replace("  ascend.pipe_barrier all\n", "")
    unordered = simulate(unordered_text, [x, x.copy()], source_name=NAME)
    load, add, store = (location(NAME, unordered_text, op) for op in
                        ("ascend.copy %x", "ascend.vbin", "ascend.copy %buf"))
    assert race_pairs(unordered) == {frozenset((load, add)), frozenset((add, store)),
                                     frozenset((load, store))}


def test_blocks_beyond_the_cores_run_in_waves() -> None:
    text = f"""
func.func @copy(%x: {GM}, %z: {GM}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %b = ascend.block_idx : index
  %off = arith.muli %b, %c256 : index
  %buf = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %x[%off], %buf[%c0] sizes [256] : {GM}, memref<256xf32, #ascend.mem<ub>>
  ascend.set_flag mte2 -> mte3, 0
  ascend.wait_flag mte2 -> mte3, 0
  ascend.copy %buf[%c0], %z[%off] sizes [256] : memref<256xf32, #ascend.mem<ub>>, {GM}
  return
}}
"""
    p = get_profile("910b")
    blocks = p.aiv_cores + 2
    x = np.arange(256 * blocks, dtype=np.float32)
    result = simulate(text, [x, np.zeros_like(x)], block_dim=blocks, profile=p)
    np.testing.assert_array_equal(result["z"], x)
    one = (p.startup_cycles["mte2"] + 1024 // p.hbm_bytes_per_cycle
           + p.startup_cycles["mte3"] + math.ceil(1024 / p.l2_write_bytes_per_cycle))
    assert result.cycles == 2 * one


@pytest.mark.parametrize(("body", "message"), [
    ("%big = memref.alloc() : memref<50000xf32, #ascend.mem<ub>>",
     "memref.alloc of 200000 bytes does not fit in the ub of block 0 aiv0: 32 of 188416 usable "
     "bytes are taken by 1 buffer"),
    ("%b = ascend.block_idx : index\n  %i = arith.addi %b, %c4 : index\n"
     f"  ascend.copy %x[%c0], %buf[%i] sizes [8] : {GM}, {UB8}",
     "ascend.copy destination: [4, 12) of dimension 0 is outside the ub buffer (8 elements)"),
    (f"memref.copy %buf, %buf : {UB8} to {UB8}",
     "the simulator does not support 'memref.copy'"),
])
def test_errors_stop_the_simulation_at_the_op(body: str, message: str) -> None:
    text = f"""
func.func @bad(%x: {GM}) attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %buf = memref.alloc() : {UB8}
  {body}
  return
}}
"""
    with pytest.raises(SimError) as info:
        simulate(text, [np.zeros(8, np.float32)], source_name=NAME)
    [diagnostic] = info.value.diagnostics
    assert diagnostic.message == message
    assert diagnostic.line == text.split("\n").index(next(
        line for line in text.split("\n") if line.strip() == body.split("\n")[-1].strip())) + 1


def test_bad_inputs_are_reported() -> None:
    text = scalar_kernel("")
    with pytest.raises(SimError, match=r"argument %out \(memref<\?xf32, #ascend.mem<gm>>\) "
                                       r"needs a 1-D array, got shape \(2, 2\)"):
        simulate(text, [np.zeros((2, 2), np.float32)])
    with pytest.raises(SimError, match="no input for kernel argument %out"):
        simulate(text, [])
    with pytest.raises(SimError, match="no kernel argument named y"):
        simulate(text, {"out": np.zeros(1, np.float32), "y": 1})
    with pytest.raises(SimError, match=r"<string>:1:\d+: error: expected"):
        simulate("func.func @k( {", [])


MODE4 = """
func.func @one_aiv() attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  ascend.core aiv {
    %sub = ascend.sub_block_idx : index
    %first = arith.cmpi eq, %sub, %c0 : index
    scf.if %first {
      ascend.cross_core_set_flag mode MODE, mte3, 2
    }
  }
  ascend.core aic {
    ascend.cross_core_wait_flag 2
  }
  return
}
"""


def test_mode_4_lets_one_aiv_release_the_cube_on_950() -> None:
    assert simulate(MODE4.replace("MODE", "4"), [], profile="950").ok
    # In mode 2 the AIC waits for both AIVs.
    assert len(simulate(MODE4.replace("MODE", "2"), [], profile="950").deadlocks) == 1
    with pytest.raises(SimError, match=r"cross-core mode 4 does not exist on the 910b profile "
                                       r"\(modes: 0, 1, 2\)"):
        simulate(MODE4.replace("MODE", "4"), [], profile="910b")
