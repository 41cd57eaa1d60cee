"""`tilec.compile(..., target="ascend")` as a user calls it: options, profiles, runs in the
simulator, reports, stages, traces and the disk cache."""

from __future__ import annotations

import json

import numpy as np
import pytest
from example_kernels import example

import tilec
import tilec.language as T
from tilec.backends import OptionError
from tilec.diagnostics import CompileError
from tilec.sim import SimError

pytestmark = pytest.mark.e2e

N = T.symbolic("N")


@T.prim_func
def scale(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 256), threads=64) as bx:
        x = T.alloc_fragment((256,), "float32")
        T.copy(X[bx * 256], x)
        for i in T.Parallel(256):
            x[i] = x[i] * 3.0 + 1.0
        T.copy(x, Y[bx * 256])


@T.prim_func
def scale_pipelined(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
    """One core walks the whole vector, its loads overlapping the math and stores."""
    with T.Kernel(1, threads=64):
        x = T.alloc_fragment((256,), "float32")
        y = T.alloc_fragment((256,), "float32")
        for t in T.Pipelined(T.ceildiv(N, 256), num_stages=2):
            T.copy(X[t * 256], x)
            for i in T.Parallel(256):
                y[i] = x[i] * 3.0 + 1.0
            T.copy(y, Y[t * 256])


def test_runs_in_the_simulator_and_writes_outputs_in_place():
    kernel = tilec.compile(scale, target="ascend")
    x = np.arange(1000, dtype=np.float32)
    y = np.full(1000, -7.0, np.float32)
    kernel(x, y)
    np.testing.assert_array_equal(y, x * 3 + 1)
    report = kernel.report()
    assert report.ok and report.core_kind == "aiv" and report.profile.name == "910b"
    assert report.cycles > 0 and report.sync_instructions > 0
    assert kernel.target == "ascend:910b"


def test_profile_option_picks_the_architecture():
    kernel = tilec.compile(scale, target="ascend", profile="950")
    assert kernel.target == "ascend:950"
    x = np.ones(300, np.float32)
    y = np.zeros(300, np.float32)
    kernel(x, y)
    assert kernel.report().profile.name == "950"
    np.testing.assert_array_equal(y, np.full(300, 4.0, np.float32))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"profile": "310"}, "'profile' must be one of 910b, 950"),
        ({"block_dim": -1}, "'block_dim' must be 0 or more"),
        ({"sync": "pipe_all"}, "'sync' must be one of flags, barrier"),
        ({"opt_level": 2}, "unknown compile options for target ascend:910b: opt_level"),
    ],
)
def test_bad_options_name_the_candidates(options, message):
    with pytest.raises(OptionError, match=message):
        tilec.compile(scale, target="ascend", **options)


def test_report_before_any_run_says_so():
    kernel = tilec.compile(scale, target="ascend")
    with pytest.raises(RuntimeError, match="has not run yet"):
        kernel.report()


def test_cpu_kernels_have_no_report():
    kernel = tilec.compile(scale, target="cpu")
    with pytest.raises(RuntimeError, match="keep no report"):
        kernel.report()


def test_every_stage_is_visible_and_the_last_is_the_ascend_ir():
    kernel = tilec.compile(scale, target="ascend")
    stages = kernel.stages()
    assert stages[0] == "tile" and stages[-1] == "ascend"
    for step in ("tile-ascend-place-tiles", "convert-tile-to-ascend", "tile-ascend-plan-memory",
                 "tile-ascend-inject-sync"):
        assert any(s.startswith(step) for s in stages), step
    final = kernel.ir("ascend")
    assert final == kernel.binary.final_ir()
    source = kernel.source()  # the AscendC C++ of that IR
    assert 'extern "C" __global__ __aicore__ void scale(GM_ADDR X, GM_ADDR Y, int64_t N)' in source
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);" in source
    assert source.count("// [") == sum(line.lstrip().startswith("ascend.") or " = ascend." in line
                                       for line in final.splitlines())
    assert "ascend.kernel = #ascend.core<aiv>" in final
    assert "ascend.set_flag" in final and "ascend.offset" in final
    assert "pipe_barrier all" not in final


def test_barrier_strategy_is_correct_and_uses_pipe_all():
    flags = tilec.compile(scale_pipelined, target="ascend")
    barrier = tilec.compile(scale_pipelined, target="ascend", sync="barrier")
    x = np.random.default_rng(0).standard_normal(2048).astype(np.float32)
    for kernel in (flags, barrier):
        y = np.zeros_like(x)
        kernel(x, y)
        np.testing.assert_allclose(y, x * 3 + 1, rtol=1e-6)
    assert flags.report().pipe_all_barriers == 0
    assert barrier.report().pipe_all_barriers > 0
    assert barrier.report().cycles > flags.report().cycles


def test_an_empty_static_grid_runs_no_block_as_on_cpu():
    """`T.Kernel(0)`: nothing to do, on every target (a dynamic empty grid already ran)."""

    @T.prim_func
    def empty(X: T.Tensor((64,), "float32")):
        with T.Kernel(0) as _:
            x = T.alloc_fragment((64,), "float32")
            T.copy(X[0], x)
            for i in T.Parallel(64):
                x[i] = x[i] * 2
            T.copy(x, X[0])

    for target in ("cpu", "ascend:910b", "ascend:950"):
        x = np.arange(64, dtype=np.float32)
        tilec.compile(empty, target=target)(x)
        np.testing.assert_array_equal(x, np.arange(64, dtype=np.float32), err_msg=target)


def test_a_target_variant_and_another_profile_are_an_error():
    """`target="ascend:910b", profile="950"` names two machines: neither silently wins."""
    with pytest.raises(OptionError, match=r"the target 'ascend:910b' and the options \(which "
                                          r"ask for 'ascend:950'\) name different variants"):
        tilec.compile(scale_pipelined, target="ascend:910b", profile="950")
    assert tilec.compile(scale_pipelined, target="ascend", profile="950").source().count(
        "__NPU_ARCH__ 3510")
    assert tilec.compile(scale_pipelined, target="ascend:950", profile="950")


def test_block_dim_follows_a_static_grid_and_the_option():
    x = np.ones(1024, np.float32)
    y = np.zeros(1024, np.float32)
    static = tilec.compile(example("softmax").softmax(64, 256), target="ascend")
    static(np.ones((64, 256), np.float32), np.zeros((64, 256), np.float32))
    assert static.report().block_dim == 4  # ceil(64 / 16) blocks
    dynamic = tilec.compile(scale, target="ascend")
    dynamic(x, y)
    assert dynamic.report().block_dim == 48  # every AIV of the 910b
    chosen = tilec.compile(scale, target="ascend", block_dim=3)
    chosen(x, y)
    assert chosen.report().block_dim == 3
    np.testing.assert_array_equal(y, np.full(1024, 4.0, np.float32))


def test_trace_option_writes_a_timeline(tmp_path):
    path = tmp_path / "scale.json"
    kernel = tilec.compile(scale, target="ascend", trace=str(path), block_dim=2)
    kernel(np.ones(512, np.float32), np.zeros(512, np.float32))
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["name"] for e in events if e.get("ph") == "X"}
    assert "ascend.copy gm -> ub" in names and "ascend.vbins muls" in names


def test_a_race_raises_at_the_users_line(monkeypatch):
    """With the sync pass replaced by nothing, the simulator's race report
    names the ops at their DSL lines (this file)."""
    from tilec.passes.conversion.tile_to_ascend import pipelines

    unsynchronized = pipelines.tile_to_ascend

    def without_sync(target, *args):
        text = unsynchronized(target, *args)
        return ",".join(p for p in text.split(",") if not p.startswith("tile-ascend-inject-sync"))

    from tilec.backends.ascend import compiler

    monkeypatch.setattr(compiler, "tile_to_ascend", without_sync)
    kernel = tilec.compile(scale, target="ascend", block_dim=1)
    with pytest.raises(SimError, match=r"test_ascend_backend\.py:\d+:\d+: error: .*race"):
        kernel(np.ones(256, np.float32), np.zeros(256, np.float32))


def test_jit_caches_ascend_kernels_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    x = np.arange(300, dtype=np.float32)
    for _ in range(2):
        y = np.zeros_like(x)
        kernel = tilec.jit(scale, target="ascend:950")
        kernel(x, y)
        np.testing.assert_array_equal(y, x * 3 + 1)
    entries = list(tmp_path.glob("*/kernel.ascend.mlir"))
    assert len(entries) == 1
    assert (entries[0].parent / "profile").read_text() == "950"


@T.prim_func
def gemm_then_scale(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"),
                    C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=64):
        a = T.alloc_shared((64, 64), "float16")
        b = T.alloc_shared((64, 64), "float16")
        c = T.alloc_fragment((64, 64), "float32")
        T.copy(A[0, 0], a)
        T.copy(B[0, 0], b)
        T.gemm(a, b, c, clear_accum=True)
        for i, j in T.Parallel(64, 64):
            c[i, j] = c[i, j] * 2.0  # vector work on the accumulator
        T.copy(c, C[0, 0])


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_a_gemm_with_a_vector_epilogue_runs_on_both_core_kinds(profile):
    """The cube computes, hands the tile to both vector cores through the GM
    workspace, and they scale it: a mix kernel, exact against numpy."""
    kernel = tilec.compile(gemm_then_scale, target="ascend", profile=profile)
    assert "ascend.kernel = #ascend.core<mix>" in kernel.ir("ascend")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, 2 * (a.astype(np.float32) @ b.astype(np.float32)), rtol=1e-5,
                               atol=1e-5)
    report = kernel.report()
    assert report.core_kind == "mix" and report.cube_utilization > 0
    assert report.vector_utilization > 0


@T.prim_func
def gemm_beside_vector_work(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"),
                            C: T.Tensor((64, 64), "float32"), X: T.Tensor((64,), "float32"),
                            Y: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64):
        a = T.alloc_shared((64, 64), "float16")
        b = T.alloc_shared((64, 64), "float16")
        c = T.alloc_fragment((64, 64), "float32")
        x = T.alloc_fragment((64,), "float32")
        T.copy(A[0, 0], a)
        T.copy(B[0, 0], b)
        T.gemm(a, b, c, clear_accum=True)
        T.copy(c, C[0, 0])
        T.copy(X[0], x)
        for i in T.Parallel(64):
            x[i] = x[i] + 1.0  # vector work that hands nothing to or from the cube
        T.copy(x, Y[0])


def test_mixed_kernels_the_split_cannot_make_are_a_located_error():
    with pytest.raises(CompileError,
                       match=r"test_ascend_backend\.py:\d+:\d+: error: .*cube and vector"):
        tilec.compile(gemm_beside_vector_work, target="ascend")


def test_the_simulator_names_arguments_as_the_kernel_does():
    """The ascend IR of a DSL kernel runs in tilec.sim / tile-sim with the
    DSL's parameter names (`tile.name`), not only %arg0, %arg1."""
    from tilec import sim

    text = tilec.compile(scale, target="ascend").ir("ascend")
    x = np.arange(10, dtype=np.float32)
    result = sim.simulate(text, {"X": x, "Y": np.zeros_like(x)}, block_dim=2)
    assert result.ok
    np.testing.assert_array_equal(result["Y"], x * 3 + 1)


@T.prim_func
def add_eight_stages(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"),
                     Z: T.Tensor((N,), "float32")):
    with T.Kernel(1, threads=64):
        x = T.alloc_fragment((256,), "float32")
        y = T.alloc_fragment((256,), "float32")
        z = T.alloc_fragment((256,), "float32")
        for t in T.Pipelined(T.ceildiv(N, 256), num_stages=8):
            T.copy(X[t * 256], x)
            T.copy(Y[t * 256], y)
            for i in T.Parallel(256):
                z[i] = x[i] + y[i]
            T.copy(z, Z[t * 256])


def test_running_out_of_event_ids_shrinks_multi_buffering_and_says_so():
    """Eight slots of three buffers need more flags from the V pipe than the
    910b has ids: the kernel is compiled again with at most 4 slots."""
    with pytest.warns(UserWarning, match=r"reduced to at most 4 slots .* out of event ids for "
                                         r"flags from the v pipe"):
        kernel = tilec.compile(add_eight_stages, target="ascend")
    assert "ascend.multi_buffer_slots = 4" in kernel.ir("tile-ascend-multi-buffer{"
                                                         "target=ascend:910b max-stages=4}")
    x = np.arange(3000, dtype=np.float32)
    z = np.zeros_like(x)
    kernel(x, x, z)
    np.testing.assert_array_equal(z, 2 * x)


N_ROWS = T.dynamic("N")


@T.prim_func
def shifted_through_scratch(X: T.Tensor((N_ROWS,), "float32"), Y: T.Tensor((N_ROWS,), "float32")):
    scratch = T.alloc_global((N_ROWS,), "float32")
    with T.Kernel(T.ceildiv(N_ROWS, 64)) as b:
        t = T.alloc_fragment((64,), "float32")
        T.copy(X[b * 64], t)
        for i in T.Parallel(64):
            t[i] = t[i] + 1
        T.copy(t, scratch[b * 64])
    with T.Kernel(1):
        first = T.alloc_fragment((64,), "float32")
        T.copy(scratch[0], first)
        T.copy(first, Y[0])


def test_the_disk_cache_keeps_global_scratch(tmp_path, monkeypatch):
    """The cached IR carries the scratch argument and its sizes (jit
    specializes the shapes: 100 rows), so a kernel loaded from disk
    allocates it too."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    for _ in range(2):  # compiled, then loaded from disk
        x = np.arange(100, dtype=np.float32)
        y = np.zeros_like(x)
        tilec.jit(shifted_through_scratch, target="ascend:910b")(x, y)
        np.testing.assert_array_equal(y[:64], x[:64] + 1)
        np.testing.assert_array_equal(y[64:], 0)
    entries = list(tmp_path.glob("*/kernel.ascend.mlir"))
    assert len(entries) == 1
    assert "ascend.scratch = [100]" in entries[0].read_text()


def test_workspaces_and_scratch_are_allocated_in_argument_order():
    """A mix kernel with scratch: the workspaces of its handoffs (zeroed,
    block_dim x rows) come before the scratch (sized from the call's
    arguments, all-ones bytes: not initialized, as on cpu)."""
    from tilec.backends.ascend.driver import extra_arguments

    mla = example("mla_decode").mla_decode(1, 16, 100, 64, 16, dtype="float32", num_split=2,
                                           block_H=16, block_N=32)
    kernel = tilec.compile(mla, target="ascend", profile="910b")
    func = kernel.binary.program.func
    args = [np.zeros((1, 16, 64), np.float32), np.zeros((1, 16, 16), np.float32),
            np.zeros((1, 100, 64), np.float32), np.zeros((1, 100, 16), np.float32),
            np.zeros((1, 16, 64), np.float32)]
    arrays = extra_arguments(func, 3, args)
    scratch = [a for a in arrays if np.isnan(a).all()]
    workspaces = arrays[:len(arrays) - len(scratch)]
    assert workspaces and all(not w.any() and w.shape[0] % 3 == 0 for w in workspaces)
    assert [a.shape for a in scratch] == [(1, 2, 16, 64), (1, 2, 16)]
