"""Fixtures of the library's tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tilec
from tilec import ir
from tilec.kernels import targets
from tilec.runtime.calls import call_arguments

CUDA_TARGET = "cuda:sm_90a"


@pytest.fixture
def cuda_emulated(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tilec.CompiledKernel]]:
    """Library calls in the test run on cuda:sm_90a without a GPU: each kernel a call
    launches is compiled for it and run in the Hopper SIMT emulator
    (test/python/cuda/simt_hopper.py). Yields the compiled kernels, in launch order.

    FlashMLA's split count comes from the number of SMs (132 on an H800); only speed
    depends on it, and the emulator spends seconds on every block, most of them idle at
    test sizes, so the plan is made for 4 SMs: still several splits and the combine."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cuda"))
    from simt_hopper import run_launches

    from tilec.kernels.flash_mla import metadata

    compiled: list[tilec.CompiledKernel] = []

    def launch(api: str, variant: tuple[object, ...], build, target: str, *args: object,
               config: dict[str, object] | None = None) -> None:
        assert target == CUDA_TARGET, target
        kernel = tilec.compile(build(), target=target)
        full, _ = call_arguments(kernel.name, kernel.params, kernel.out_positions, args)
        with ir.make_context() as context:
            run_launches(ir.parse_module(kernel.ir("cse"), "<cuda>", context), kernel.name, full)
        compiled.append(kernel)
        targets._calls.launches.append(targets.Launch(kernel.name, target))

    monkeypatch.setattr(targets, "launch", launch)
    monkeypatch.setattr(metadata, "_CUDA_SMS", 4)
    with targets.use_target(CUDA_TARGET):
        yield compiled
