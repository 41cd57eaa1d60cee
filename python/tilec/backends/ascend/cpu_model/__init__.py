"""The AscendC that tilec emits, run on the CPU: the vendor's class-API headers (asc-devkit,
named by `ASCEND_DEVKIT`) compiled in their CPU-debug mode over a model of the intrinsics
they call (`model/`), every AIC and AIV of the grid a thread.

The simulator (`tilec.sim`) runs the ascend IR; this runs the C++ the emitter writes from
it, so a defect of the C++ alone (an index the vendor's API computes otherwise, a barrier
the IR had but the C++ lacks) shows. `kernel.run_ascendc(*args)` is the entry; the model
reports a hazard (two instructions overlapping that touch the same bytes with nothing
ordering them), a deadlock (every core waiting), a flag set twice or waited for before any
set, and an intrinsic it does not cover, each at the line of the C++ (`kernel.cpp:<line>`).
It models values and orderings, not time.

Covered (910b, `__NPU_ARCH__` 2201; include/tilec_intrinsics.h, model/*.cpp):
- sys and sync: get_block_idx, get_block_num, get_subblockid, get_subblockdim, set_flag,
  wait_flag, pipe_barrier, ffts_cross_core_sync / wait_flag_dev (CrossCoreSetFlag /
  CrossCoreWaitFlag modes 0-2, SyncAll), get_ctrl / set_ctrl and the scalar bit builtins;
- vector: set_vector_mask, set_mask_count / set_mask_norm (normal and counter masks),
  vadd vsub vmul vdiv vmax vmin vand vor, vadds vmuls vmaxs vmins, vexp vln vabs vsqrt
  vrelu vrec vrsqrt vnot vcopy, vector_dup, vconv between f32, f16, bf16 and int32 with its
  rounding modes, with repeats and block / repeat strides; the reductions vcadd (per repeat,
  or into ACC_VAL: get_acc_val) and vcmax / vcmin (f16, f32; value and index in the four
  Order_t layouts, MAX_MIN_CNT: get_max_min_cnt), vbrcb, vcmpv_lt/gt/eq/le/ge/ne (a bit per
  lane), vcmpvs_lt/gt/eq/le/ge/ne (against a scalar), set_cmpmask / get_cmpmask and vsel
  (CMPMASK and tensor-tensor modes), vcgadd / vcgmax / vcgmin (a value per 32-byte block;
  a block the mask leaves empty keeps its destination) and vcpadd (sums of adjacent
  pairs): what ReduceSum / ReduceMax / ReduceMin, Brcb, Copy, Compare, Compares, Select,
  ReduceDataBlock and ReducePairElem run on;
- data movement: copy_gm_to_ubuf_align_b8/16/32 (pads, set_mov_pad_val), copy_ubuf_to_gm_
  align_b8/16/32, copy_gm_to_ubuf, copy_ubuf_to_gm, copy_ubuf_to_ubuf, set_atomic_* (atomic
  accumulation into GM);
- cube: create_cbuf_matrix, copy_gm_to_cbuf_multi_nd2nz_b8/16/32s, load_cbuf_to_ca /
  load_cbuf_to_cb (with the 16-bit transpose), load_cbuf_to_ca_transpose /
  load_cbuf_to_cb_transpose (LoadDataWithTranspose: 8-, 16- and 32-bit squares), mad (f16,
  bf16, f32, int8), set_nd_para, set_quant_pre, copy_matrix_cc_to_gm (NoQuant, F322F16,
  F322BF16, DEQF16; ReLU; ND or Nz).
Every kernel of test_ascendc.py's KERNELS the emitter writes for the 910b runs on it
(test_run_ascendc.py; the intrinsics no emitted kernel reaches, through kernels written in
test_ascendc_model_intrinsics.py). Not yet on the 910b: vcmp_* into CMPMASK, vsel's
tensor-scalar mode, vconvs other than the pairs above, int4 transposing loads (the 910b
has no L1 -> UB or L0C -> UB path). A kernel that reaches one stops with an error naming
it. Scalar reads and writes of UB (GetValue /
SetValue, and the class API's own, such as ReduceSum's store of ACC_VAL) run but are not
checked for hazards.

Covered (950, `__NPU_ARCH__` 3510; include/tilec_intrinsics_3510.h, model/regvector_3510.cpp,
model/cube.cpp):
the headers built for arch 3510 run their vector calls as loops over register-level
intrinsics, which the model runs on 256-byte vector registers and per-byte predicates:
- predicates: plt_b8/16/32 (UpdateMask), pset_b8/16/32 (CreateMask's patterns), movp_b16/32
  (the vector mask register, MoveMask), plds / pstu (a mask from / to UB), punpack, ppack,
  pintlv / pdintlv;
- UB <-> register, checked for hazards on PIPE_V (V after V ordered in hardware): vlds
  (norm, broadcast, unpack, element-to-block; post-updated), vsts (norm, pack;
  post-updated), vsldb / vsstb (block-strided; post-updated), vstus / vstas (unaligned:
  stored at vstus);
- register compute, zeroing or merging the inactive lanes: vadd vsub vmul vdiv vmax vmin
  vand vor, vadds vmuls vmaxs vmins, vexp vln vabs vsqrt vrelu vnot vmov, vdup vbr, vsel,
  vcmp_* / vcmps_*, vcadd vcmax vcmin (a tree of pairwise adds), vcgadd vcgmax vcgmin (per
  32-byte block; an empty block 0, -inf or inf) and vcpadd, vcvt between f32, f16 and
  bf16 (from s32 / s16 too) with its rounding modes, saturation and even / odd parts;
- data movement and state: copy_gm_to_ubuf_align_v2 / copy_ubuf_to_gm_align_v2 (DataCopyPad,
  DataCopy; atomic writes in the type set_atomic_<type> set), the kernel start's loop sizes
  and store-atomic configuration, mem_bar (the
  model runs a vector function's loads and stores in order); the sync of the 910b's list
  (wait_flag_dev with the 950's pipe argument);
- cube: set_mte2_nz_para with copy_gm_to_cbuf_multi_nd2nz / _dn2nz (Nd2Nz, Dn2Nz),
  create_cbuf_matrix, load_cbuf_to_ca / load_cbuf_to_cb in their 2D-V2 form (windows of
  fractals; 16-bit fractals transposed), load_cbuf_to_cb_transpose (8- and 16-bit squares),
  mad with L0A in Nz (disableGemv), copy_matrix_cc_to_gm / _cbuf / _ub (NZ2ND or Nz; into
  UB of the AIV subBlockId names, or split by rows across both: dualDstCtl 1) with
  set_loop3_para, set_quant_pre;
- between a block's AIC and AIVs: copy_cbuf_to_ubuf (L1 -> an AIV's UB, MTE1) and
  copy_ubuf_to_cbuf (an AIV's UB -> L1, MTE3); a write into another core's buffers waits
  until that core's TPipe has filled them (the headers' CPU mode fills them with random
  values at its start);
- mix kernels: an AIC and two AIVs a block, sub-block ids and GetBlockIdx() as
  dav_3510/kernel_operator_sys_var_impl.h gives them, cross-core modes 0-2.
Every kernel of test_ascendc.py's KERNELS runs on the 950 but those
test_run_ascendc_950.py's XFAIL_950 names. Not yet on the 950: cross-core mode 4
(set_intra_block / wait_intra_block), the fixpipe's NZ2DN, channel split, vector
quantization and dual destination split in N, 2D-V2 loads transposing non-16-bit data,
LoadDataWithTranspose of 32-bit data, other register intrinsics (gathers, vintlv ...),
and the SIMT API (left out of the build).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from mlir import ir

from tilec.backends.ascend.cpu_model.build import BuildError
from tilec.backends.ascend.cpu_model.runner import AscendCRunError, Entry, run_source

__all__ = ["AscendCRunError", "BuildError", "parameter_values", "run_compiled", "run_source"]


def parameter_values(entry: Entry, func: ir.Operation, args: Sequence[object]) -> list[object]:
    """The values of the emitted entry's parameters for `args` (the ascend function's
    arguments: the kernel's own, then its workspaces and scratch): each GM_ADDR the next
    array, each dynamic dimension the size of the first array that has it (the emitter
    names it after the DSL's symbol, `tile.dims`, else `<array>_dim<d>`), each other scalar
    the next scalar."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    scalars = [a for a in args if not isinstance(a, np.ndarray)]
    sizes: dict[str, int] = {}
    inputs = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs
    attrs = (list(ir.ArrayAttr(func.attributes["arg_attrs"]))
             if "arg_attrs" in func.attributes else [None] * len(inputs))
    gm_names = [name for ctype, name in entry.params if ctype == "GM_ADDR"]
    array_index = 0
    for type_, attr in zip(inputs, attrs, strict=True):
        if not isinstance(type_, ir.MemRefType):
            continue
        memref = type_
        dims = attr is not None and "tile.dims" in ir.DictAttr(attr)
        for d, size in enumerate(memref.shape):
            if size != ir.ShapedType.get_dynamic_size():
                continue
            names = [f"{gm_names[array_index]}_dim{d}"]
            if dims:
                names.append(ir.StringAttr(ir.ArrayAttr(ir.DictAttr(attr)["tile.dims"])[d]).value)
            for name in names:
                sizes.setdefault(name, arrays[array_index].shape[d])
        array_index += 1
    next_array, next_scalar = iter(arrays), iter(scalars)
    values: list[object] = []
    for ctype, name in entry.params:
        if ctype == "GM_ADDR":
            values.append(next(next_array))
        elif name in sizes:
            values.append(sizes[name])
        else:
            values.append(next(next_scalar))
    return values


def run_compiled(kernel: object, args: Sequence[object], source: str | None = None) -> None:
    """Runs the AscendC of `kernel` (a CompiledKernel for target "ascend"), or `source` (an
    edit of it), on `args` (every parameter, outputs included), writing the outputs into
    their arrays."""
    from tilec.backends.ascend.ascendc.tables import ARCH
    from tilec.backends.ascend.driver import AscendBinary, extra_arguments

    binary = getattr(kernel, "binary", None)
    if not isinstance(binary, AscendBinary):
        raise AscendCRunError(f"run_ascendc runs kernels compiled for target \"ascend\", not "
                              f"{getattr(kernel, 'target', '?')!r}")
    func = binary.program.func
    block_dim = binary.block_dim()
    contiguous = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args]
    full = [*contiguous, *extra_arguments(func, block_dim, contiguous)]
    source = binary.ascendc if source is None else source
    entry = Entry.of(source)
    run_source(source, ARCH[binary.profile], block_dim,
               parameter_values(entry, func, full))
    for given, used in zip(args, contiguous, strict=True):
        if isinstance(given, np.ndarray) and given is not used:
            given[...] = used
