"""Shared-memory mbarriers for TMA-fed copies (sm_90a).

A TMA copy completes on an mbarrier: one thread arrives on it announcing
the bytes to come (`mbarrier.arrive.expect_tx`), the copies count them
down as they land, and the phase completes when both the arrival and the
bytes are in; the readers wait for that phase by its parity
(`mbarrier.try_wait.parity`, a polling loop in PTX). The barriers live in
the kernel's dynamic shared memory (8 bytes each, after the tiles). A
group of barriers is initialized by thread 0 in front of the code that
uses it and invalidated after it, with block barriers around both, so the
same code in a loop starts from phase 0 every time it runs.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, llvm, memref, nvvm, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import thread_id, workgroup_space
from tilec.passes.conversion.tile_to_cuda.ops.kernel import SHARED_BYTES

MBARRIER_BYTES = 8
# try_wait's suspend-time hint in ns; it polls again after it anyway.
_WAIT_HINT = 1_000_000


def i32_constant(value: int) -> ir.Value:
    return arith.constant(ir.IntegerType.get_signless(32), value)


def shared_pointer(address: ir.Value, space: int = 3) -> ir.Value:
    """An index shared-memory address as an `!llvm.ptr<space>`."""
    i64 = ir.IntegerType.get_signless(64)
    pointer = llvm.inttoptr(llvm.PointerType.get(3), arith.index_cast(i64, address))
    if space == 3:
        return pointer
    return llvm.addrspacecast(llvm.PointerType.get(space), pointer)


class Mbarriers:
    """`count` mbarriers of the kernel around `op`, placed in its shared memory."""

    def __init__(self, op: ir.Operation, count: int):
        kernel = irb.enclosing(op, {"tile.kernel"})
        assert kernel is not None
        used = ir.IntegerAttr(kernel.attributes[SHARED_BYTES]).value if (
            SHARED_BYTES in kernel.attributes) else 0
        offset = -(-used // MBARRIER_BYTES) * MBARRIER_BYTES
        kernel.attributes[SHARED_BYTES] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), offset + count * MBARRIER_BYTES
        )
        self.count = count
        with irb.scratch_insertion_point(op), op.location:
            base = gpu.dynamic_shared_memory(ir.MemRefType.get(
                [ir.ShapedType.get_dynamic_size()], ir.IntegerType.get_signless(8),
                memory_space=workgroup_space()))
            view = memref.view(
                ir.MemRefType.get([count], ir.IntegerType.get_signless(64),
                                  memory_space=workgroup_space()),
                base, irb.index(offset), [])
            self._base = memref.extract_aligned_pointer_as_index(view)

    def address(self, index: ir.Value | int) -> ir.Value:
        """Barrier `index` as an `!llvm.ptr<3>`."""
        if isinstance(index, int):
            offset = irb.index(index * MBARRIER_BYTES)
        else:
            offset = arith.muli(index, irb.index(MBARRIER_BYTES))
        return shared_pointer(arith.addi(self._base, offset))

    def _by_thread_zero(self) -> scf.IfOp:
        first = arith.cmpi(arith.CmpIPredicate.eq, thread_id(), irb.index(0))
        return scf.IfOp(first)

    def init(self, arrivals: int = 1, synchronize: bool = True) -> None:
        """Thread 0 makes every barrier expect `arrivals` arrivals per phase;
        the block waits until they are visible (also to the async proxy),
        unless the caller synchronizes (`synchronize` false)."""
        branch = self._by_thread_zero()
        with ir.InsertionPoint(branch.then_block):
            for index in range(self.count):
                nvvm.mbarrier_init(self.address(index), i32_constant(arrivals))
            nvvm.fence_mbarrier_init()
            scf.YieldOp([])
        if synchronize:
            gpu.barrier()

    def invalidate(self, synchronize: bool = True) -> None:
        """After every thread is done with the barriers (a block barrier
        first unless the caller made one), thread 0 invalidates them."""
        if synchronize:
            gpu.barrier()
        branch = self._by_thread_zero()
        with ir.InsertionPoint(branch.then_block):
            for index in range(self.count):
                nvvm.mbarrier_inval(self.address(index))
            scf.YieldOp([])

    def arrive_expect_tx(self, index: ir.Value | int, tx_bytes: ir.Value) -> None:
        """One arrival on barrier `index` announcing `tx_bytes` (i32) to come."""
        nvvm.mbarrier_arrive_expect_tx(ir.IntegerType.get_signless(64), self.address(index),
                                       tx_bytes)

    def arrive(self, index: ir.Value | int) -> ir.Operation:
        """One arrival on barrier `index` (no transaction bytes)."""
        return nvvm.mbarrier_arrive(ir.IntegerType.get_signless(64), self.address(index)).owner

    def wait(self, index: ir.Value | int, parity: ir.Value) -> None:
        """Blocks until the phase of barrier `index` with `parity` (i32) completed."""
        nvvm.mbarrier_try_wait_parity(self.address(index), parity, i32_constant(_WAIT_HINT))
