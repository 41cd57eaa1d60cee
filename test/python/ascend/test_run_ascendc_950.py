"""The AscendC tilec emits for the 950 (`__NPU_ARCH__` 3510), run on the CPU
(`kernel.run_ascendc`, tilec.backends.ascend.cpu_model): the vendor's headers compiled for
arch 3510, whose class API computes through register-level intrinsics (vlds, vadd ...
under predicates, vsts; model/regvector_3510.cpp), checked against numpy and the
simulator bit for bit, and a defect of the C++ alone reintroduced on purpose: a missing
flag between the copy into UB and the vector call that reads it.

Covered today: the 950's vector kernels: element-wise calls, casts and selects (DataCopyPad
in and out, Duplicate, Compare, Select), and the row softmax and RMSNorm (ReduceMax /
ReduceSum, Brcb, Copy, Rsqrt). Not yet: its cube path and mix kernels (see cpu_model's
docstring).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from example_kernels import example
from test_ascendc import compiled, needs_devkit

from tilec.backends.ascend.cpu_model import AscendCRunError, run_compiled

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
