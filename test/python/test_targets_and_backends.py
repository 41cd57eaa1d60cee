"""Targets resolve from one registry: descriptions derived from the dialect,
backends chosen by name or by what is present, unknown names and options
answered with the candidates, and lowerings resolved to exactly one per op."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import backends
from tilec.backends import OptionError
from tilec.diagnostics import CompileError
from tilec.dialects.tile import Scope
from tilec.passes.conversion import lowering
from tilec.targets import ASCEND_BUFFER_SCOPES, TargetError, get_target, host_spec
from tilec.targets.cpu import description as cpu_target

HOST_CPU = host_spec("cpu")
"""What `cpu` (and no target) compiles for here."""

N = T.symbolic("N")


@T.prim_func
def double(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=128) as bx:
        t = T.alloc_fragment((64,), "float32")
        T.copy(X[bx * 64], t)
        for i in T.Parallel(64):
            t[i] = t[i] * 2.0
        T.copy(t, Y[bx * 64])


@T.prim_func
def odd_block(X: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=100) as bx:
        t = T.alloc_fragment((64,), "float32")
        T.copy(X[bx * 64], t)


def test_scopes_come_from_the_dialect_enum():
    # tilelang-ascend's named buffers (T.alloc_L1, T.alloc_ub, ...) are ordinary tiles on cpu
    assert get_target("cpu").scopes == frozenset(Scope)
    assert get_target("cuda:sm_90a").scopes == frozenset(Scope) - ASCEND_BUFFER_SCOPES
    assert get_target("ascend:910b").scopes == frozenset(Scope)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bogus", "unknown target 'bogus'; targets: ascend, cpu, cuda"),
        ("cuda:sm_70", "unknown cuda variant 'sm_70'; variants: sm_80, sm_86, sm_89, sm_90a"),
        ("ascend:310", "unknown ascend variant '310'; variants: 910b, 950"),
    ],
)
def test_unknown_targets_name_the_candidates(spec, message):
    with pytest.raises(TargetError, match=message):
        tilec.compile(double, target=spec)
    with pytest.raises(TargetError, match=message):
        tilec.jit(double, target=spec)


def test_default_target_without_a_gpu_is_cpu(monkeypatch):
    monkeypatch.delenv("TILEC_TARGET", raising=False)
    kernel = tilec.compile(double)
    assert kernel.target == host_spec("cpu")
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    kernel(x, y)
    np.testing.assert_array_equal(y, 2 * x)
    assert "llvm.func @double" in kernel.source()


def test_tilec_target_overrides_the_default(monkeypatch):
    monkeypatch.setenv("TILEC_TARGET", "cpu:avx512")
    assert tilec.compile(double).target == "cpu:avx512"
    assert tilec.jit(double).target == "cpu:avx512"
    monkeypatch.setenv("TILEC_TARGET", "tpu")
    with pytest.raises(TargetError, match=r"\$TILEC_TARGET: unknown target 'tpu'"):
        tilec.compile(double)


@pytest.mark.parametrize("flags, best", [
    ({"avx2", "fma"}, "cpu:avx2"),
    ({"avx2", "avx512f"}, "cpu:avx2"),  # AVX-512 without the rest of x86-64-v4
    ({"avx2", "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}, "cpu:avx512"),
])
def test_cpu_is_the_best_variant_the_host_runs(monkeypatch, flags, best):
    monkeypatch.setattr(cpu_target, "host_flags", lambda: frozenset(flags))
    monkeypatch.delenv("TILEC_TARGET", raising=False)
    assert tilec.compile(double).target == best
    assert tilec.compile(double, target="cpu").target == best
    assert tilec.jit(double, target="cpu").target == best
    # a variant named is kept, in the target or in $TILEC_TARGET
    assert tilec.compile(double, target="cpu:avx2").target == "cpu:avx2"
    monkeypatch.setenv("TILEC_TARGET", "cpu:avx2")
    assert tilec.compile(double).target == "cpu:avx2"
    # pass options and tile-opt pipelines keep the first variant on every host
    assert get_target("cpu").spec == "cpu:avx2"


def test_wider_vectors_on_avx512():
    narrow = tilec.compile(double, target="cpu:avx2").ir("convert-tile-to-cpu{ops=tile.copy}")
    wide = tilec.compile(double, target="cpu:avx512")
    assert "vector<8xf32>" in narrow
    assert "vector<16xf32>" in wide.ir("convert-tile-to-cpu{ops=tile.copy target=cpu:avx512}")
    x = np.arange(77, dtype=np.float32)
    y = np.zeros_like(x)
    wide(x, y)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("spec", ["cuda:sm_80", "cuda:sm_90a"])
def test_cuda_compiles_to_ptx_for_its_arch(spec):
    kernel = tilec.compile(double, target=spec)
    assert kernel.target == spec
    assert f".target {spec.partition(':')[2]}" in kernel.source()


def test_registered_targets_check_the_kernel_first():
    with pytest.raises(
        CompileError, match="multiple of 32 and at most 1024 on cuda:sm_80 but got 100"
    ):
        tilec.compile(odd_block, target="cuda")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"fast": True},
            rf"unknown compile options for target {HOST_CPU}: fast \(options: timing, opt_level\)",
        ),
        ({"opt_level": 9}, "compile option 'opt_level' must be 0 to 3 but got 9"),
        ({"opt_level": -1}, "compile option 'opt_level' must be 0 to 3 but got -1"),
        ({"opt_level": "3"}, r"compile option 'opt_level' expects int but got '3' \(str\)"),
        ({"timing": 1}, r"compile option 'timing' expects bool but got 1 \(int\)"),
    ],
)
def test_bad_options_are_errors_before_compiling(options, message):
    with pytest.raises(OptionError, match=message):
        tilec.compile(double, target="cpu", **options)
    with pytest.raises(OptionError, match=message):
        tilec.jit(target="cpu", **options)


def test_the_preference_picks_the_first_target_whose_device_is_present(monkeypatch):
    monkeypatch.delenv("TILEC_TARGET", raising=False)
    cuda = backends.backend_for(get_target("cuda"))
    monkeypatch.setattr(type(cuda.driver), "present", lambda self: False)
    assert backends.default_target() == "cpu"
    monkeypatch.setattr(type(cuda.driver), "present", lambda self: True)
    assert backends.default_target() == "cuda"


class _Always(lowering.TileOpLowering):
    target = "cpu"
    op_names = ("tile.barrier",)
    name = "cpu-barrier-again"

    def lower(self, op, plan, target):
        op.erase()


def test_lowering_resolution_reports_none_and_several(monkeypatch):
    from tilec import ir

    text = """
func.func @f(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    tile.barrier
  }
  return
}
"""
    with ir.make_context() as context, ir.Location.unknown(context):
        module = ir.parse_module(text)
        kernel = next(iter(module.body.operations)).regions[0].blocks[0]
        barrier = next(iter(next(iter(kernel.operations)).regions[0].blocks[0].operations))
        cpu = get_target("cpu")
        assert lowering.resolve(barrier.operation, cpu).name == "cpu-barrier-erased"
        registry = dict(lowering._LOWERINGS)
        registry["cpu", "tile.barrier"] = [*registry["cpu", "tile.barrier"], _Always()]
        registry["cuda", "tile.barrier"] = []
        monkeypatch.setattr(lowering, "_LOWERINGS", registry)
        assert lowering.resolve(barrier.operation, cpu) == (
            "several cpu lowerings of 'tile.barrier' apply on cpu:avx2: "
            "cpu-barrier-erased, cpu-barrier-again"
        )
        assert lowering.resolve(barrier.operation, get_target("cuda")) == (
            "no cuda lowering of 'tile.barrier' for cuda:sm_80; candidates: none"
        )


@T.prim_func
def huge_tile(X: T.Tensor((N,), "float32")):
    with T.Kernel(1, threads=1) as bx:
        t = T.alloc_fragment((1 << 17, 1 << 17), "float32")  # HUGE
        T.fill(t, X[bx])


def test_a_tile_no_machine_can_hold_is_an_error_at_its_line():
    with pytest.raises(CompileError) as info:
        tilec.compile(huge_tile, target="cpu")
    diagnostic = info.value.diagnostics[0]
    lines = Path(__file__).read_text().splitlines()
    assert diagnostic.file == __file__
    assert lines[diagnostic.line - 1].endswith('"float32")  # HUGE')
    assert f"a fragment tile of 68719476736 bytes does not fit on {HOST_CPU}" in diagnostic.message

