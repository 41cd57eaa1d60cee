"""The AscendC tilec emits for the 950 (`__NPU_ARCH__` 3510), run on the CPU
(`kernel.run_ascendc`, tilec.backends.ascend.cpu_model): the vendor's headers compiled for
arch 3510, whose class API computes through register-level intrinsics (vlds, vadd ...
under predicates, vsts; model/regvector_3510.cpp) and moves cube data through the 950's
forms (Nd2Nz with MTE2_NZ_PARA, the 2D-V2 L1 -> L0 loads, mad with L0A in Nz, the
arch-3510 fixpipe into GM, L1 and both AIVs' UBs; model/cube.cpp), checked against numpy
and the simulator bit for bit where the arithmetic is exact, and defects of the C++ alone
reintroduced on purpose: a missing flag between the copy into UB and the vector call that
reads it, a mix kernel's vector cores indexing blocks with the raw `GetBlockIdx()`, and an
M -> MTE1 flag on an id the 950's TPipe holds.

Every kernel of test_ascendc.py's KERNELS runs on the 950 (the sweep, marked slow), but
those XFAIL_950 names (strict: one that starts to pass fails the sweep).
"""
from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest
import test_run_ascendc as runs_910b
from example_kernels import example
from test_ascendc import KERNELS, compiled
from vendor_headers import needs_devkit

import tilec
from tilec.backends.ascend.cpu_model import AscendCRunError, run_compiled

pytestmark = pytest.mark.e2e

REFERENCES = {"elementwise_add": lambda a, b: a + b,
              "elementwise_exp_relu": lambda a, b: np.maximum(np.exp(a) - b, 0),
              "elementwise_cast_f16": lambda a, b: a + b,
              "elementwise_select": lambda a, b: np.where(a > b, a - b, b * 2)}


def _inputs(name: str) -> list[np.ndarray]:
    dtype = np.float16 if name.endswith("_f16") else np.float32
    rng = np.random.default_rng(4)
    # 37 x 70 over 16 x 32 tiles (the KERNELS table's): ragged in both dimensions
    a, b = (rng.standard_normal((37, 70)).astype(dtype) for _ in range(2))
    return [a, b, np.zeros_like(a)]


@needs_devkit
@pytest.mark.parametrize("name", ["elementwise_add",
                                  pytest.param("elementwise_exp_relu", marks=pytest.mark.slow),
                                  pytest.param("elementwise_cast_f16", marks=pytest.mark.slow),
                                  pytest.param("elementwise_select", marks=pytest.mark.slow)])
def test_element_wise_kernels_compute_on_the_950_what_the_simulator_computes(name):
    kernel = compiled(name, "950")
    args = _inputs(name)
    simulated = [a.copy() for a in args]
    kernel(*simulated)
    kernel.run_ascendc(*args)
    tolerance = 1e-3 if args[0].dtype == np.float16 else 2e-6
    np.testing.assert_allclose(args[2], REFERENCES[name](args[0], args[1]), rtol=tolerance,
                               atol=tolerance)
    if name == "elementwise_exp_relu":  # exp is the library's on both sides, not bitwise
        np.testing.assert_allclose(args[2], simulated[2], rtol=2e-6, atol=1e-6)
    else:
        assert np.array_equal(args[2], simulated[2])


@needs_devkit
@pytest.mark.parametrize("name", ["softmax", pytest.param("rmsnorm", marks=pytest.mark.slow)])
def test_row_reductions_compute_on_the_950_what_the_simulator_computes(name):
    """Their exp, rsqrt and sums (a tree of adders on the 950, the simulator's order) agree
    to a few ulps, not bit for bit."""
    kernel = compiled(name, "950")  # 32 x 256 rows
    rng = np.random.default_rng(5)
    x = rng.standard_normal((32, 256)).astype(np.float32)
    args = [x, np.zeros_like(x)] if name == "softmax" else \
        [x, rng.standard_normal(256).astype(np.float32), np.zeros_like(x)]
    simulated = [a.copy() for a in args]
    kernel(*simulated)
    kernel.run_ascendc(*args)
    np.testing.assert_allclose(args[-1], example(name).reference(*args[:-1]), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(args[-1], simulated[-1], rtol=1e-6, atol=1e-7)


@pytest.mark.slow
@needs_devkit
def test_a_missing_flag_between_the_copy_in_and_the_vector_call_is_a_hazard_on_the_950():
    """Without the MTE2 -> V flag, the register load of Add (vlds, PIPE_V) reads what the
    DataCopyPad (PIPE_MTE2) writes: the 950 orders V after V in hardware, not V after MTE2."""
    kernel = compiled("elementwise_add", "950")
    source = kernel.source()
    pair = "SetFlag<HardEvent::MTE2_V>(0);"
    assert source.count(pair) == 1
    edited = source.replace(pair, "").replace("WaitFlag<HardEvent::MTE2_V>(0);", "")
    with pytest.raises(AscendCRunError) as failure:
        run_compiled(kernel, _inputs("elementwise_add"), edited)
    add = source[:source.index("Add(t")].count("\n")  # the op's marker, the line above
    message = str(failure.value)
    assert re.search(rf"kernel.cpp:{add}: error: ascend.vbin add: vlds \(PIPE_V\) reads what "
                     r"copy_gm_to_ubuf \(PIPE_MTE2\) of ascend.copy gm -> ub", message), message
    assert "a flag from the first pipe to the second is missing" in message


@needs_devkit
def test_a_gemm_computes_the_exact_product_on_the_950():
    """Nd2Nz into L1, the L0A load of the Nz tile as it is, the L0B loads transposing each
    fractal, mad reading L0A as Nz, the fixpipe's NZ2ND into GM: every dimension ragged."""
    kernel, args = runs_910b._gemm(100, 72, 50, profile="950")
    simulated = [x.copy() for x in args]
    kernel(*simulated)
    kernel.run_ascendc(*args)
    assert np.array_equal(args[2], args[0].astype(np.float32) @ args[1].astype(np.float32))
    assert np.array_equal(args[2], simulated[2])


@needs_devkit
@pytest.mark.parametrize("shape, tiles, options", [
    pytest.param((128, 256, 130), (128, 256, 64), {}, id="128x256-tiles-K130"),
    pytest.param((16, 128, 256), (16, 128, 64), {}, id="B", marks=pytest.mark.slow),
    pytest.param((40, 128, 250), (32, 128, 64), {"trans_A": True}, id="A-transposed",
                 marks=pytest.mark.slow),
    pytest.param((24, 128, 500), (16, 128, 128), {"in_dtype": "float8_e4m3"}, id="fp8-B",
                 marks=pytest.mark.slow)])
def test_each_l0_step_of_an_l1_k_slab_loads_its_own_fractals_on_the_950(shape, tiles, options):
    """tile-ascend-k-slabs copies several K steps into one L1 slab and the cube lowering cuts
    its gemm into L0-sized steps: a step's L1 -> L0 load reads a view of the slab whose
    column blocks lie the slab's height apart, not the step's (loads striding by the step
    read the wrong fractals for every column block past the first: N past 16, or M for
    Aᵀ). B's f16 loads (2D-V2, each fractal transposed), Aᵀ's into L0A, and an 8-bit B's
    LoadDataWithTranspose squares; K ragged in all."""
    (m, n, k), (block_m, block_n, block_k) = shape, tiles
    options = {"in_dtype": "float16"} | options
    kernel = tilec.compile(example("gemm").matmul(m, n, k, block_M=block_m, block_N=block_n,
                                                  block_K=block_k, **options),
                           target="ascend:950", block_dim=1)
    rng = np.random.default_rng(2)
    dtype = ml_dtypes.float8_e4m3fn if options["in_dtype"] == "float8_e4m3" else np.float16
    # small integers: every product and sum exact in float32, whatever the order
    a = rng.integers(-4, 5, (k, m) if options.get("trans_A") else (m, k)).astype(dtype)
    b = rng.integers(-4, 5, (k, n)).astype(dtype)
    expected = (a.T if options.get("trans_A") else a).astype(np.float32) @ b.astype(np.float32)
    simulated, ran = np.zeros((m, n), np.float32), np.zeros((m, n), np.float32)
    kernel(a, b, simulated)
    kernel.run_ascendc(a, b, ran)
    assert np.array_equal(simulated, expected)
    assert np.array_equal(ran, expected)


@pytest.mark.slow
@needs_devkit
def test_an_m_mte1_flag_on_an_id_the_950s_tpipe_holds_is_a_double_set():
    """3510's TPipe sets M -> MTE1 ids 0-2 when it starts and waits for them when it ends
    (kernel_tpipe_impl_c310.h): a kernel's own set of one of them, before waiting for it,
    sets a flag already set."""
    kernel, args = runs_910b._gemm(100, 72, 50, profile="950")
    source = kernel.source()
    found = re.search(r"SetFlag<HardEvent::M_MTE1>\((\d)\);", source)
    assert found is not None and int(found.group(1)) > 2, "tilec's own ids avoid 0-2"
    edited = re.sub(r"(Set|Wait)Flag<HardEvent::M_MTE1>\(\d\);", r"\1Flag<HardEvent::M_MTE1>(1);",
                    source)
    with pytest.raises(AscendCRunError) as failure:
        run_compiled(kernel, args, edited)
    message = str(failure.value)
    assert re.search(r"set_flag\(PIPE_M, PIPE_MTE1, 1\) sets a flag already set before the "
                     r"kernel's first op \(by the headers' own code: TPipe's constructor",
                     message), message


@pytest.mark.slow
@needs_devkit
def test_a_mix_kernel_hands_the_tile_to_both_vector_cores_on_the_950():
    """The fixpipe writes the tile's first half of rows into sub-block 0's UB and the rest
    into sub-block 1's (dualDstCtl 1), each AIV scales its half."""
    kernel, args, expected = runs_910b._mix("950")
    assert ".dualDstCtl = 1;" in kernel.source()
    kernel.run_ascendc(*args)
    assert np.array_equal(args[2], expected)


@pytest.mark.slow
@needs_devkit
def test_a_mix_kernel_indexing_blocks_with_the_raw_block_index_goes_wrong_on_the_950():
    """On a mix kernel's AIV, GetBlockIdx() is 2 * block + sub-block on the 950 too
    (dav_3510/kernel_operator_sys_var_impl.h)."""
    runs_910b.check_the_raw_block_index_goes_wrong("950")


@pytest.mark.slow
@needs_devkit
def test_flash_attention_computes_on_the_950_what_numpy_computes():
    """Causal flash attention, 70 rows: the cube's QKᵀ and PV through L0C -> UB on both
    AIVs, the online softmax on them, cross-core flags between the three cores."""
    runs_910b.check_against_numpy("attention_f32_causal", "950")


XFAIL_950: dict[str, str] = {}
"""Kernels the model does not run on the 950 yet, and why."""


@pytest.mark.slow
@needs_devkit
@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(reason=XFAIL_950[name], strict=True))
    if name in XFAIL_950 else name for name in sorted(KERNELS)])
def test_every_kernel_of_the_suite_computes_on_the_950_what_the_simulator_computes(name):
    runs_910b.check_against_the_simulator(name, "950")
