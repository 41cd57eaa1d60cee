"""The 950's direct handoff from the cube to the vector cores: an L0C tile that
vector code reads goes from L0C into the UBs of both AIVs (one fixpipe with a
dual destination, half of the rows each) through a ring of UB slots, with the
same "ready"/"free" cross-core flags as the GM rings of the 910b, which still
carry the tiles handed up. The simulator sees the bytes the AIC's fixpipe
writes as the AIVs' UB, so its race detector checks the ring: each case runs
race- and deadlock-free against numpy, and a kernel with one of the ring's
flags deleted is caught."""

import re

import numpy as np
import pytest
from example_kernels import example
from test_ascend_mixed import epilogue_gemm

import tilec
import tilec.language as T
from tilec import ir
from tilec.backends.ascend.ascendc import emit_ascendc
from tilec.sim import SimError, simulate

pytestmark = pytest.mark.e2e

_DUAL = re.compile(r"ascend\.fixpipe %\S+, %\S+\[[^\]]*\] sizes \[(\d+), (\d+)\] \{dual_dst\}")


def _final_ir(kernel) -> str:
    return kernel.ir(kernel.stages()[-1])


def _workspaces(text: str) -> int:
    return len(re.findall(r"\{ascend\.workspace = \d+ : i64\}", text))


def _attention(profile: str, seq: int = 64, causal: bool = False):
    return tilec.compile(example("flash_attention").flash_attention(
        1, 1, seq, 32, causal=causal, block_M=32, block_N=32), target="ascend", profile=profile)


def test_the_950_hands_s_and_pv_down_through_ub_and_p_up_through_gm():
    text = _final_ir(_attention("950"))
    # S and P V (32 x 32 f32 each): one dual fixpipe each, in the loop and in the
    # copy of its first stage that the pipelining put in front of it.
    assert {match for match in _DUAL.findall(text)} == {("32", "32")}
    assert not re.search(r"ascend\.fixpipe [^\n]*#ascend\.mem<gm>>\n", text)
    # Only P, handed up, keeps a GM workspace.
    assert _workspaces(text) == 1
    # Each UB ring: 2 slots of 16 rows (one AIV's half of 32 rows), outside the
    # cores' regions, its bytes on its flags.
    rings = re.findall(r"(%\w+) = memref\.alloc\(\) \{ascend\.offset = (\d+) : i64, "
                       r"ascend\.ub_ring = (\d) : i64\} : memref<32x32xf32, #ascend\.mem<ub>>",
                       text)
    assert sorted(ring for _, _, ring in rings) == ["0", "2"]
    for name, offset, ring in rings:
        # The AIVs work on their half of a slot in place: no copy out of it.
        assert f"memref.subview {name}[" in text and f"ascend.copy {name}[" not in text
        span = f"{{ascend.guards = array<i64: {offset}, {int(offset) + 4096}>}}"
        ready, free = 2 * int(ring), 2 * int(ring) + 1
        assert f"ascend.cross_core_set_flag mode 2, fix, {ready} {span}" in text
        assert f"ascend.cross_core_wait_flag {ready}, v {span}" in text
        assert f"ascend.cross_core_set_flag mode 2, v, {free} {span}" in text
        assert f"ascend.cross_core_wait_flag {free}, fix {span}" in text


def test_the_910b_keeps_every_ring_in_gm():
    text = _final_ir(_attention("910b"))
    assert not _DUAL.search(text) and "ascend.ub_ring" not in text
    assert _workspaces(text) == 3


def test_the_emitted_fixpipe_splits_the_rows_between_the_aivs():
    source = _attention("950").source()
    assert source.count("FixpipeParamsArch3510<CO2Layout::ROW_MAJOR> ") >= 2
    # the vendor's CFG_ROW_MAJOR would drain into L1: the config says UB
    assert "constexpr FixpipeConfig TILEC_CFG_ROW_MAJOR_TO_UB = {CO2Layout::ROW_MAJOR, true};" \
        in source
    assert re.search(r"(\w+)\.dualDstCtl = 1;\n\s*\1\.subBlockId = false;\n\s*"
                     r"Fixpipe<float, float, TILEC_CFG_ROW_MAJOR_TO_UB>\(\w+", source)


def _run_epilogue(text: str, M: int, N: int, K: int, block_dim: int):
    rng = np.random.default_rng(M + N + K)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    bias = rng.standard_normal(N).astype(np.float32)
    result = simulate(text, [A, B, bias, np.zeros((M, N), np.float32)], profile="950",
                      block_dim=block_dim)
    want = (A.astype(np.float32) @ B.astype(np.float32)) * 2.0 + bias
    out = list(result.outputs.values())[3]
    return result, float(np.abs(out - want).max() / np.abs(want).max())


@pytest.mark.parametrize(("shape", "block_dim"), [((100, 72, 40), 1), ((100, 72, 40), 5),
                                                  ((32, 32, 32), 4)])
def test_an_epilogue_gemm_takes_its_accumulator_from_ub(shape, block_dim):
    """Ragged tiles, 12 tiles on one AI core (6 trips of the ring), 2 or 3 tiles
    a core, and fewer tiles than slots: no workspace argument at all."""
    text = _final_ir(tilec.compile(epilogue_gemm(*shape), target="ascend", profile="950"))
    assert _workspaces(text) == 0 and len(_DUAL.findall(text)) == 1
    result, error = _run_epilogue(text, *shape, block_dim)
    assert result.ok and not result.races and not result.deadlocks
    assert error <= 1e-6


def scaled_gemm(M, N, K, *, block=32):
    """C = 2 (A @ B) through a second tile: the AIVs only read the accumulator."""

    @T.prim_func
    def kernel(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
               C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            A_s = T.alloc_shared((block, block), "float16")
            B_s = T.alloc_shared((block, block), "float16")
            acc = T.alloc_fragment((block, block), "float32")
            out = T.alloc_fragment((block, block), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=2):
                T.copy(A[by * block, k * block], A_s)
                T.copy(B[k * block, bx * block], B_s)
                T.gemm(A_s, B_s, acc)
            for i, j in T.Parallel(block, block):
                out[i, j] = acc[i, j] * 2.0
            T.copy(out, C[by * block, bx * block])

    return kernel


def _run_scaled(text: str, M: int, N: int, K: int, block_dim: int):
    rng = np.random.default_rng(M * N + K)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    result = simulate(text, [A, B, np.zeros((M, N), np.float32)], profile="950",
                      block_dim=block_dim)
    want = 2.0 * (A.astype(np.float32) @ B.astype(np.float32))
    return result, float(np.abs(list(result.outputs.values())[2] - want).max())


@pytest.mark.parametrize(("shape", "block_dim"), [((100, 72, 40), 1), ((70, 40, 64), 3)])
def test_the_aivs_work_in_the_slot_and_free_it_after(shape, block_dim):
    text = _final_ir(tilec.compile(scaled_gemm(*shape), target="ascend", profile="950"))
    ring = re.search(r"(%\w+) = memref\.alloc\(\) \{[^}]*ascend\.ub_ring = 0", text).group(1)
    assert f"memref.subview {ring}[" in text and f"ascend.copy {ring}[" not in text
    result, error = _run_scaled(text, *shape, block_dim)
    assert result.ok and not result.races and not result.deadlocks
    assert error <= 1e-3
    # The slot's "free" flag is what keeps the next fixpipe off the bytes the
    # AIVs still work on.
    broken = re.sub(r"ascend\.cross_core_wait_flag 1, fix [^\n]*\n", "", text)
    broken = re.sub(r"ascend\.cross_core_set_flag mode 2, v, 1 [^\n]*\n", "", broken)
    result, _ = _run_scaled(broken, *shape, 1)
    assert not result.ok and result.races


def _epilogue_text() -> str:
    return _final_ir(tilec.compile(epilogue_gemm(128, 64, 32), target="ascend", profile="950"))


def test_without_the_free_flag_the_fixpipe_overwrites_a_slot_the_aivs_read():
    text = _epilogue_text()
    assert _run_epilogue(text, 128, 64, 32, 1)[0].ok
    broken = re.sub(r"ascend\.cross_core_wait_flag 1, fix [^\n]*\n", "", text)
    broken = re.sub(r"ascend\.cross_core_set_flag mode 2, v, 1 [^\n]*\n", "", broken)
    assert broken != text
    result, _ = _run_epilogue(broken, 128, 64, 32, 1)
    assert not result.ok and result.races
    message = str(result.races[0])
    assert "ascend.fixpipe l0c -> ub dual_dst" in message and "ub of block 0 aiv" in message


def test_without_the_ready_flag_the_aivs_read_the_slot_too_early():
    broken = re.sub(r"ascend\.cross_core_wait_flag 0, v [^\n]*\n", "", _epilogue_text())
    result, _ = _run_epilogue(broken, 128, 64, 32, 2)
    assert not result.ok and result.races


def _simulate_attention(text: str, seq: int):
    """On one AI core: its 2-slot rings go round seq / 32 times per query block."""
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((1, 1, seq, 32)).astype(np.float32) for _ in range(3))
    result = simulate(text, [q, k, v, np.zeros_like(q), np.zeros((64, 32), np.float32)],
                      profile="950", block_dim=1)
    out = list(result.outputs.values())[3]
    return result, float(np.abs(out - example("flash_attention").reference(q, k, v, False)).max())


@pytest.mark.parametrize("ring", [0, 2])
def test_without_its_ready_flag_the_aivs_work_on_a_slot_before_the_fixpipe(ring):
    """S (ring 0) and P V (ring 2): the AIVs' wait for "ready" deleted. (In
    this kernel the rings' "free" flags are not the only order on a slot's
    reuse: the AIC waits for P, handed up through its own ring, between its
    fixpipes into a slot, and the race detector finds that chain; the
    epilogue GEMM above has no other and needs its "free" flag.)"""
    text = _final_ir(_attention("950", seq=128))
    result, error = _simulate_attention(text, 128)
    assert result.ok and error <= 1e-5
    broken = re.sub(rf"ascend\.cross_core_wait_flag {2 * ring}, v [^\n]*\n", "", text)
    assert broken != text
    result, _ = _simulate_attention(broken, 128)
    assert not result.ok and result.races
    assert any("ascend.fixpipe l0c -> ub dual_dst" in str(race) for race in result.races)


def test_mla_decode_on_the_950():
    error = example("mla_decode").check(1, 16, 100, 64, 32, dtype="float16", target="ascend:950")
    assert error <= 2e-3


_L1 = "memref<2x2x16x16xf16, #ascend.mem<l1>>"
_DUAL_KERNEL = f"""
func.func @dual(%a: memref<32x32xf16, #ascend.mem<gm>>, %b: memref<32x32xf16, #ascend.mem<gm>>,
                %out: memref<32x32xf32, #ascend.mem<gm>>)
    attributes {{ascend.kernel = #ascend.core<mix>}} {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ring = memref.alloc() {{ascend.offset = 512 : i64}} : memref<16x32xf32, #ascend.mem<ub>>
  ascend.core aic {{
    %l1a = memref.alloc() {{ascend.offset = 0 : i64}} : {_L1}
    %l1b = memref.alloc() {{ascend.offset = 2048 : i64}} : {_L1}
    %l0a = memref.alloc() {{ascend.offset = 0 : i64}} : memref<2x2x16x16xf16, #ascend.mem<l0a>>
    %l0b = memref.alloc() {{ascend.offset = 0 : i64}} : memref<2x2x16x16xf16, #ascend.mem<l0b>>
    %acc = memref.alloc() {{ascend.offset = 0 : i64}} : memref<2x2x16x16xf32, #ascend.mem<l0c>>
    ascend.copy_nd2nz %a[%c0, %c0], %l1a sizes [32, 32] : memref<32x32xf16, #ascend.mem<gm>>, {_L1}
    ascend.copy_nd2nz %b[%c0, %c0], %l1b sizes [32, 32] : memref<32x32xf16, #ascend.mem<gm>>, {_L1}
    ascend.set_flag mte2 -> mte1, 0
    ascend.wait_flag mte2 -> mte1, 0
    ascend.load_l0a %l1a, %l0a sizes [32, 32]
        : {_L1}, memref<2x2x16x16xf16, #ascend.mem<l0a>>
    ascend.load_l0b %l1b, %l0b sizes [32, 32]
        : {_L1}, memref<2x2x16x16xf16, #ascend.mem<l0b>>
    ascend.set_flag mte1 -> m, 0
    ascend.wait_flag mte1 -> m, 0
    ascend.mmad %l0a, %l0b, %acc sizes [32, 32, 32] {{init}}
        : memref<2x2x16x16xf16, #ascend.mem<l0a>>, memref<2x2x16x16xf16, #ascend.mem<l0b>>,
          memref<2x2x16x16xf32, #ascend.mem<l0c>>
    ascend.set_flag m -> fix, 0
    ascend.wait_flag m -> fix, 0
    ascend.fixpipe %acc, %ring[%c0, %c0] sizes [32, 32] {{dual_dst}}
        : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<16x32xf32, #ascend.mem<ub>>
    ascend.cross_core_set_flag mode 2, fix, 0
  }}
  ascend.core aiv {{
    %sub = ascend.sub_block_idx : index
    %row = arith.muli %sub, %c16 : index
    ascend.cross_core_wait_flag 0, mte3
    ascend.copy %ring[%c0, %c0], %out[%row, %c0] sizes [16, 32]
        : memref<16x32xf32, #ascend.mem<ub>>, memref<32x32xf32, #ascend.mem<gm>>
  }}
  return
}}
"""


def _dual_inputs():
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((32, 32)).astype(np.float16) for _ in range(2))
    return a, b, np.full((32, 32), np.nan, np.float32)


def test_the_simulator_writes_half_of_the_rows_into_each_aivs_ub():
    """Each AIV stores the rows its own UB got: together the whole product. The
    FIX pipe is busy for its start-up and 4 KiB at 128 bytes a cycle."""
    a, b, out = _dual_inputs()
    result = simulate(_DUAL_KERNEL, [a, b, out], profile="950")
    assert result.ok, result.races
    want = a.astype(np.float32) @ b.astype(np.float32)
    assert np.abs(result.outputs["out"] - want).max() <= 1e-4
    assert result.bandwidth["l0c->ub"].bytes == 32 * 32 * 4
    assert result.pipe_busy["FIX"] == 32 + 32 * 32 * 4 // 128


def test_the_race_detector_sees_the_fixpipe_in_the_aivs_ub():
    broken = _DUAL_KERNEL.replace("ascend.cross_core_wait_flag 0, mte3\n", "")
    broken = broken.replace("ascend.cross_core_set_flag mode 2, fix, 0\n", "")
    result = simulate(broken, list(_dual_inputs()), profile="950")
    assert not result.ok and result.races
    assert all("ub of block 0 aiv" in str(race) for race in result.races)


def test_an_aic_ub_buffer_needs_the_planned_offset():
    text = _DUAL_KERNEL.replace("{ascend.offset = 512 : i64} ", "")
    with pytest.raises(SimError, match="a UB buffer of the AIC needs the offset the memory "
                                       "planner gave it"):
        simulate(text, list(_dual_inputs()), profile="950")


def _one_ub_kernel() -> str:
    """The dual kernel with a fixpipe into sub-block 0's UB only, through relu and a cast
    to f16 (which only the single destination allows): that AIV stores all 32 rows."""
    text = _DUAL_KERNEL.replace("memref<16x32xf32, #ascend.mem<ub>>",
                                "memref<32x32xf16, #ascend.mem<ub>>")
    text = text.replace("memref<32x32xf32, #ascend.mem<gm>>", "memref<32x32xf16, #ascend.mem<gm>>")
    text = text.replace("sizes [32, 32] {dual_dst}", "sizes [32, 32] {relu}")
    store = ("ascend.copy %ring[%c0, %c0], %out[%row, %c0] sizes [16, 32]\n"
             "        : memref<32x32xf16, #ascend.mem<ub>>, memref<32x32xf16, #ascend.mem<gm>>\n")
    assert store in text
    return text.replace(store, """%first = arith.cmpi eq, %sub, %c0 : index
    scf.if %first {
      ascend.copy %ring[%c0, %c0], %out[%c0, %c0] sizes [32, 32]
          : memref<32x32xf16, #ascend.mem<ub>>, memref<32x32xf16, #ascend.mem<gm>>
    }
""")


def test_a_fixpipe_into_one_ub_fills_sub_block_0s_and_emits_its_parameters():
    a, b, _ = _dual_inputs()
    out = np.full((32, 32), np.nan, np.float16)
    result = simulate(_one_ub_kernel(), [a, b, out], profile="950")
    assert result.ok, result.races
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0).astype(np.float16)
    assert np.abs(result.outputs["out"].astype(np.float32) - want).max() <= 1e-2
    assert result.bandwidth["l0c->ub"].bytes == 32 * 32 * 2
    source = emit_ascendc(ir.parse_module(_one_ub_kernel(), "<one-ub>", ir.make_context()),
                          "950")[0].text()
    params = re.search(r"FixpipeParamsArch3510<CO2Layout::ROW_MAJOR> (p\d+);\n((?:.*\n){8})"
                       r" *Fixpipe<half, float, TILEC_CFG_ROW_MAJOR_TO_UB>\(\w+, \w+, \1\);",
                       source)
    assert params, source
    fields = dict(re.findall(r"\.(\w+) = (.*);", params.group(2)))
    assert fields == {"nSize": "32", "mSize": "32", "srcStride": "32", "dstStride": "32",
                      "quantPre": "QuantMode_t::F322F16", "reluEn": "true", "dualDstCtl": "0",
                      "subBlockId": "false"}
