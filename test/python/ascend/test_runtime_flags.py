"""The flags the AscendC runtime holds for the whole kernel.

On arch 2201 (the 910b) the AIC's `TPipe::Init` sets M -> MTE1 flags 0, 1 and 2 before
the kernel's first op and `TPipe::DestroyWithoutPipeAll` waits for them after its last
(impl/basic_api/kernel_tpipe_impl.h). A kernel that sets one of them again sets a flag
that is already set, and one that waits for one leaves the runtime's wait hanging: the
defect the CPU run of the emitted C++ found in every 910b GEMM. The sync pass keeps the
kernel's flags from M clear of those ids, and the simulator starts an AIC with them set.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from example_kernels import example

import tilec
from tilec import ir, sim


def _gemm(profile: str) -> tilec.CompiledKernel:
    return tilec.compile(example("gemm").matmul(100, 72, 50, in_dtype="float16"),
                         target=f"ascend:{profile}")


def _operands():
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (100, 50)).astype(np.float16)
    b = rng.integers(-3, 4, (50, 72)).astype(np.float16)
    return a, b, np.zeros((100, 72), np.float32), a.astype(np.float32) @ b.astype(np.float32)


def test_the_910b_kernel_flags_from_m_avoid_the_runtime_ids():
    kernel = _gemm("910b")
    ids = {int(i) for i in re.findall(r"ascend\.(?:set|wait)_flag m -> \w+, (\d+)",
                                      kernel.ir("ascend"))}
    assert ids and not ids & {0, 1, 2}, ids
    emitted = {int(i) for i in re.findall(r"<HardEvent::M_MTE1>\((\d+)\)", kernel.source())}
    assert emitted and not emitted & {0, 1, 2}, emitted
    a, b, c, ref = _operands()
    kernel(a, b, c)
    np.testing.assert_array_equal(c, ref)


@pytest.mark.xfail(strict=True, reason="known defect, open: 3510's TPipe constructor sets M -> "
                   "MTE1 ids 0-2 too (impl/basic_api/dav_3510/kernel_tpipe_impl_c310.h, found "
                   "by the AscendC CPU model), but the 950 profile does not list them: with "
                   "them, attention and MLA decode on the 950 need more M ids than are left")
def test_the_950_kernel_flags_from_m_avoid_the_runtime_ids():
    ids = {int(i) for i in re.findall(r"ascend\.(?:set|wait)_flag m -> mte1, (\d+)",
                                      _gemm("950").ir("ascend"))}
    assert ids and not ids & {0, 1, 2}, ids


def test_the_simulator_starts_the_aic_with_the_runtime_flags_set():
    """Moved onto id 0, the kernel's M -> MTE1 flags set the runtime's flag a second
    time and consume it, so the runtime's final wait would hang: both are reported."""
    text = _gemm("910b").ir("ascend")
    moved = re.sub(r"(m -> mte1), \d+\b", r"\1, 0", text)
    assert moved != text
    a, b, c, _ = _operands()
    result = sim.simulate(ir.parse_module(moved, "<edited>", ir.make_context()), [a, b, c],
                          profile="910b")
    messages = [d.message for d in result.errors]
    assert any("sets flag m -> mte1, 0 that is already set" in m for m in messages), messages
    assert any("the AscendC runtime set before its first op" in m for m in messages), messages
