"""Budgets: a kernel that never ends, a huge loop bound, grid or input stops
with an error that names the limit and how to raise it, never a hang or an OOM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sim_helpers import INPUTS, location, read_input

from tilec.sim import Budget, SimError, simulate
from tilec.tools.tile_sim import main

SPIN_NAME = "spin.mlir"
SPIN = """\
func.func @spin(%out: memref<8xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi sge, %i, %c0 : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return
}
"""
SPIN_LOOP = {location(SPIN_NAME, SPIN, op) for op in ("scf.while", "arith.cmpi", "arith.addi")}
"""Where a core running the loop can be."""

VADD_PATH = INPUTS / "vadd-double-buffer.mlir"
VADD = read_input("vadd-double-buffer.mlir")
KERNEL = location("vadd.mlir", VADD, "func.func @vadd")


def vadd(n: int = 1024, block_dim: int = 1, length: int | None = None, **options):
    """The vector add over `n` elements of arrays of `length` (default n)."""
    x = np.ones(n if length is None else length, np.float32)
    return simulate(VADD, {"x": x, "y": x, "z": np.zeros_like(x), "n": n},
                    block_dim=block_dim, source_name="vadd.mlir", **options)


def error_of(call) -> str:
    """The first line of the one error that `call` stops with."""
    with pytest.raises(SimError) as info:
        call()
    [diagnostic] = info.value.diagnostics
    return diagnostic.render().splitlines()[0]


def hint(limit: str) -> str:
    return (f"; raise the limit with --{limit.replace('_', '-')}=N (tile-sim) or {limit}=N "
            f"(simulate)")


def test_a_loop_that_never_ends_stops_at_the_step_budget_inside_the_loop() -> None:
    with pytest.raises(SimError) as info:
        simulate(SPIN, [np.zeros(8, np.float32)], source_name=SPIN_NAME, max_steps=10_000)
    [diagnostic] = info.value.diagnostics
    assert diagnostic.message == ("the simulation used up its budget of 10000 interpreted "
                                  "steps (block 0 aiv0 is at this op)" + hint("max_steps"))
    assert f"{diagnostic.file}:{diagnostic.line}:{diagnostic.col}" in SPIN_LOOP


def test_the_step_budget_is_for_all_cores_together() -> None:
    steps = vadd(4096, block_dim=8).steps
    assert steps == 8 * vadd(512).steps  # each of the 8 blocks adds 512 elements
    assert vadd(4096, block_dim=8, max_steps=steps).steps == steps
    assert f"budget of {steps - 1} interpreted steps" in error_of(
        lambda: vadd(4096, block_dim=8, max_steps=steps - 1))


def test_a_huge_loop_bound_stops_at_the_step_budget() -> None:
    # Out-of-range GM reads are zeros, so n = 10^12 over 1024 elements runs on and on.
    assert error_of(lambda: vadd(10**12, length=1024, max_steps=5000)) == (
        f"{location('vadd.mlir', VADD, 'ascend.wait_flag v -> mte2, 0')}: error: the "
        "simulation used up its budget of 5000 interpreted steps (block 0 aiv0 is at this op)"
        + hint("max_steps"))


def test_the_cycle_budget_bounds_simulated_time() -> None:
    cycles = vadd(4096).cycles
    assert vadd(4096, max_cycles=cycles).cycles == cycles
    assert error_of(lambda: vadd(4096, max_cycles=cycles // 2)) == (
        f"{KERNEL}: error: the simulated time passed the cycle budget of {cycles // 2} cycles"
        + hint("max_cycles"))


def test_the_memory_budget_counts_gm_arguments_then_on_chip_memories() -> None:
    # x, y and z take 4 KiB each; the core's UB (192 KiB) comes into being at the first alloc
    # (the race detector's clocks before it).
    assert error_of(lambda: vadd(1024, max_memory=3 * 4096 - 1)) == (
        f"{KERNEL}: error: argument %z needs 4096 bytes, and the memory budget of 12287 bytes "
        f"has 4095 left" + hint("max_memory"))
    # what the arguments leave, less one core's race-detector clocks (7 x 7 x 8 bytes)
    assert error_of(lambda: vadd(1024, max_memory=3 * 4096 + 1000)) == (
        f"{location('vadd.mlir', VADD, 'memref.alloc')}: error: the ub of block 0 aiv0 needs "
        f"196608 bytes, and the memory budget of 13288 bytes has 608 left" + hint("max_memory"))
    assert vadd(1024, max_memory=3 * 4096 + 7 * 7 * 8 + 192 * 1024).ok


def test_the_block_budget_is_checked_before_the_launch() -> None:
    over = Budget.max_blocks + 1
    assert error_of(lambda: vadd(block_dim=over)) == (
        f"{KERNEL}: error: block_dim {over} is over the block budget of {Budget.max_blocks} "
        f"blocks" + hint("max_blocks"))
    assert vadd(block_dim=3, max_blocks=3).ok
    assert "the block budget of 2 blocks" in error_of(lambda: vadd(block_dim=3, max_blocks=2))


@pytest.mark.parametrize(("options", "message"), [
    ({"max_steps": 0}, "error: max_steps must be at least 1, not 0"),
    ({"max_memory": "1G"}, "error: max_memory must be an integer, not '1G'"),
    ({"max_cycles": 1.5}, "error: max_cycles must be an integer, not 1.5"),
    ({"block_dim": "8"}, f"{KERNEL}: error: block_dim must be an integer, not '8'"),
    ({"block_dim": 0}, f"{KERNEL}: error: block_dim must be at least 1, not 0"),
])
def test_bad_budgets_and_block_dims_are_errors(options: dict, message: str) -> None:
    assert error_of(lambda: vadd(**options)) == message


def test_numpy_integers_serve_as_block_dim_and_budgets() -> None:
    assert vadd(4096, np.int64(2), max_steps=np.int32(100_000)).block_dim == 2


ZEROS = ["--arg", "y=zeros:8xf32", "--arg", "z=zeros:8xf32", "--arg", "n=8"]


@pytest.mark.parametrize(("kernel", "argv", "message"), [
    ("spin", ["--max-steps", "1000"],
     "error: the simulation used up its budget of 1000 interpreted steps (block 0 aiv0 is at "
     "this op)" + hint("max_steps")),
    ("vadd", ["--max-cycles", "100", "--arg", "x=zeros:4096xf32", "--arg", "y=zeros:4096xf32",
              "--arg", "z=zeros:4096xf32", "--arg", "n=4096"],
     "error: the simulated time passed the cycle budget of 100 cycles" + hint("max_cycles")),
    # Refused before numpy is asked for 400 GB (an OOM) or 10^20 elements (a numpy error).
    ("vadd", ["--arg", "x=zeros:100000000000xf32", *ZEROS],
     "error: argument %x needs 400000000000 bytes, and the memory budget of 4294967296 bytes "
     "has 4294967296 left" + hint("max_memory")),
    ("vadd", ["--arg", "x=zeros:99999999999999999999xf32", *ZEROS],
     "error: argument %x needs 399999999999999999996 bytes, and the memory budget of "
     "4294967296 bytes has 4294967296 left" + hint("max_memory")),
    ("vadd", ["--max-memory", "16K", "--arg", "x=zeros:4096xf32", "--arg", "y=zeros:4xf32",
              "--arg", "z=zeros:8xf32", "--arg", "n=8"],
     "error: argument %y needs 16 bytes, and the memory budget of 16384 bytes has 0 left"
     + hint("max_memory")),
    ("vadd", ["--block-dim", "100000", "--arg", "x=zeros:8xf32", *ZEROS],
     "error: block_dim 100000 is over the block budget of 1024 blocks" + hint("max_blocks")),
])
def test_tile_sim_stops_at_a_budget_with_a_located_error(kernel: str, argv: list[str],
                                                          message: str, tmp_path: Path,
                                                          capsys) -> None:
    if kernel == "spin":
        path = tmp_path / SPIN_NAME
        path.write_text(SPIN)
        where = {w.replace(SPIN_NAME, str(path), 1) for w in SPIN_LOOP}
    else:
        path = VADD_PATH
        where = {KERNEL.replace("vadd.mlir", str(path), 1)}
    assert main([str(path), *argv]) == 1
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.partition(": error: ")[0] in where, err
    assert first.endswith(message), err


@pytest.mark.parametrize(("argv", "message"), [
    (["--max-steps", "0"], "argument --max-steps: must be at least 1, not 0"),
    (["--max-blocks", "many"], "argument --max-blocks: invalid integer 'many'"),
    (["--max-memory", "4X"], "argument --max-memory: invalid size '4X' (expected like 8G or 512M)"),
])
def test_tile_sim_budget_options_are_checked(argv: list[str], message: str, capsys) -> None:
    assert main([str(VADD_PATH), *argv]) == 1
    assert capsys.readouterr().err == f"tile-sim: error: {message}\n"


def test_tile_sim_budget_options_reach_the_simulation(capsys) -> None:
    argv = [str(VADD_PATH), "--arg", "x=zeros:4096xf32", "--arg", "y=zeros:4096xf32",
            "--arg", "z=zeros:4096xf32", "--arg", "n=4096", "--max-memory", "1M",
            "--max-steps", "100000", "--max-cycles", "100000", "--max-blocks", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    steps = int(out.split("interpreted steps: ")[1].split()[0])
    assert main([*argv, "--max-steps", str(steps - 1)]) == 1
    assert f"budget of {steps - 1} interpreted steps" in capsys.readouterr().err
