"""AscendC C++ from the final, synchronized and memory-planned `ascend` IR.

`emit_ascendc(module, profile)` writes one kernel source for the documented
AscendC class API (`kernel_operator.h`): an `extern "C" __global__ __aicore__`
entry with `GM_ADDR` parameters (plus one `int64_t` per dynamic dimension and
one parameter per scalar argument), `KERNEL_TASK_TYPE_DEFAULT` for the core
kind, a `GlobalTensor` per GM argument, one `TPipe` with one `TBuf` per
on-chip memory, and every tile a `LocalTensor` view at its planned byte offset
(`ascend.offset`). Every ascend op becomes the API call(s) of the same data
movement, compute or synchronization, in IR order, under a marker comment
`// [n] ascend.<op>` (n counts ascend ops in pre-order) so that a test can map
the C++ back to the IR the simulator ran. scf/arith become C++ statements.

This is a direct printer, not MLIR's `emitc`: the Python bindings build emitc
ops but do not translate them (DESIGN.md §3; only a `mlir-translate
--mlir-to-cpp` subprocess would), and what AscendC needs would all be opaque
strings in emitc anyway: calls with template arguments (`emitc.call_opaque`),
parameter structs filled field by field, LocalTensor views, `if ASCEND_IS_AIV`
regions, and the per-op marker comments (`emitc.verbatim`). Printing directly
keeps the statements in IR order and the names readable.

Parts: `emitter` (buffers, entry, launcher), `base` (state, markers, the op
dispatch), `statements` (scf/arith/memref), `sync`, `copies` (GM and local
copies, edge zeros), `cube` (L1 -> L0 loads, Mmad, Fixpipe; `cube_loads` plans
the 8-bit transposing loads), `vector`, `scalar_math` (log/exp/sqrt of a
scalar on one UB element; tanh/sin/cos/erf by the advanced API's routines, with
their temporary buffer in the UB scratch), with the vendor names in `tables`.

Parameter structs are filled by field name; `STRUCTS` lists, per
architecture, every struct the emitter uses with its fields in declaration
order and their C types as the vendor headers declare them (the conformance
test compares this table with a copy of the headers).

Where the hardware needs more than one call for one op (a per-row reduction,
a broadcast that is Brcb then a block-stride copy), the calls stay on the op's
pipe (V), so the op's synchronization in the IR still covers them; on the 910b,
whose V pipe does not order dependent instructions, a `PipeBarrier<PIPE_V>`
separates them. The UB scratch those calls need sits after the last planned
UB tile. Profiles differ where the API does: the 950's L0A takes the Nz layout
L1 holds (one contiguous LoadData instead of one per fractal row), its
`Nd2NzParams`/`DataCopyExtParams`/`MmadParams` field types are the 3510 ones,
its transposing loads take `LoadData2dTransposeParamsV2`, and its DataCopyPad
packs GM rows of under 32 bytes into UB in `PaddingMode::Compact`.

Transposing L1 -> L0 loads: 16-bit fractals through LoadData2D's
`ifTranspose`; 8-bit ones through LoadDataWithTranspose, which transposes a
32x32 square of two Nz fractals (`transposed_8bit_loads`; to L0B on both
profiles, to L0A on the 910b only: the 950 has no 8-bit transposing load to
L0A). 32-bit fractals cannot be transposed out of Nz (on the 910b that
instruction joins two 16x8 fractals lying side by side in L1, and Nz keeps them
one above the other; the 950's V2 form has no documented fractal order), so the
cube lowering puts an f32 operand that needs transposing in L1 as what a load
serves: on the 910b in Zz (`ascend.copy_nd2nz {zz}`: one Nd2Nz per 16 rows),
loaded by LoadDataWithTranspose of 16x16 squares (`transposed_32bit_loads`); on
the 950 as the Nz of its transpose (`{transpose}`: DataCopy with `Dn2NzParams`,
arch 3510 only), loaded by the plain LoadData. Located errors say what the API
cannot express: f32 operands the lowering left in Nz (tiles that something
other than copies from GM writes; on the 910b also an A whose K is not whole
16-row blocks, next to a B that is not in Zz), GM rows under 32 bytes on the
910b (DataCopyPad starts each row at a UB block), fixpipes into one UB (the 950's dual-destination
fixpipe of a mix kernel, half of the rows into each AIV's UB, is emitted
with `FixpipeParamsArch3510::dualDstCtl`) and scalar math that no basic or advanced vector call
computes (log1p, expm1, ...). A
fixpipe into L1 writes Nz (`CFG_NZ`) into 16-bit tiles from a 16-column block.

Edge tiles: a GM -> local copy reads zeros past the tensor's edge in the IR,
while DataCopyPad/Nd2Nz move only the part inside it. So a load whose region
may reach past the edge (a run-time test where the offsets are dynamic) first
zeros its region: in UB with a Duplicate on V, ordered after everything the
copy waited for and before the copy by an MTE2 -> V -> MTE2 handshake on an
event id the kernel's own flags leave free; in L1 with a Fill, which runs on
MTE2 like the copy. DataCopyPad itself pads each row with zeros to its 32-byte
block (its `isPad`/`rightPadding`): a DMA into UB writes whole blocks, so where
a region's rows end inside a block, the bytes after them (outside the region)
become zero, where the simulator leaves them as they were.
"""

from tilec.backends.ascend.ascendc.cube_loads import (
    TransposedLoad,
    transposed_8bit_loads,
    transposed_32bit_loads,
)
from tilec.backends.ascend.ascendc.emitter import (
    AscendCSource,
    ascendc_text,
    emit_ascendc,
    kernel_functions,
)
from tilec.backends.ascend.ascendc.tables import API_CALLS, ARCH, HARD_EVENTS, STRUCTS
from tilec.diagnostics import CompileError

__all__ = ["API_CALLS", "ARCH", "HARD_EVENTS", "STRUCTS", "AscendCSource", "CompileError",
           "TransposedLoad", "ascendc_text", "emit_ascendc", "kernel_functions",
           "transposed_8bit_loads", "transposed_32bit_loads"]
