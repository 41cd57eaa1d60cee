"""Data movement to and from GM and between local buffers: DataCopyPad with the
extents clamped to the GM tensor, Nd2Nz into L1, and the zeros an edge tile reads."""

from __future__ import annotations

import math

from mlir import ir

from tilec.backends.ascend.ascendc.base import EmitterBase
from tilec.backends.ascend.ascendc.tables import BLOCK_BYTES, BYTES, CTYPE, REPEAT_BYTES
from tilec.backends.ascend.ascendc.text import (
    Tensor,
    add_index,
    align,
    ceil_div,
    element_at,
    one_run,
)
from tilec.diagnostics import error
from tilec.targets.ascend.call_dtypes import vector_call_problem
from tilec.targets.ascend.machine import MTE2


class Copies(EmitterBase):
    """ascend.copy and ascend.copy_nd2nz."""

    def op_ascend_copy(self, op: ir.Operation) -> None:
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        operands = list(op.operands)
        src_v, dst_v = operands[0], operands[1 + segments[1]]
        src_offsets = [self.value(v) for v in operands[1:1 + segments[1]]]
        dst_offsets = [self.value(v) for v in operands[2 + segments[1]:]]
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        src, dst = self.tensor(src_v, op), self.tensor(dst_v, op)
        self.marker(op, f"{src.space} -> {dst.space} sizes {sizes}")
        gm = src if src.space == "gm" else dst if dst.space == "gm" else None
        gm_offsets = src_offsets if gm is src else dst_offsets
        valid = ([str(e) for e in sizes] if gm is None else
                 [self.valid_extent(gm.shape[d], gm_offsets[d], e) for d, e in enumerate(sizes)])
        if gm is src:
            self.zero_outside(op, dst, dst_offsets, sizes, valid)
        # dimensions before the last two: a loop of 2-D copies on the same pipe
        opened = 0
        for d, extent in enumerate(sizes[:-2]):
            if extent == 1:
                continue
            var = self.fresh("l")
            self.line(f"for (int64_t {var} = 0; {var} < {valid[d]}; ++{var}) {{")
            self.indent += 1
            opened += 1
            src_offsets[d] = add_index(src_offsets[d], var)
            dst_offsets[d] = add_index(dst_offsets[d], var)
        if gm is not None:
            lead_outside = [valid[d] for d, extent in enumerate(sizes[:-2]) if extent == 1]
            self.gm_copy(op, src, dst, src_offsets, dst_offsets, sizes, lead_outside,
                         valid[-2:] if len(sizes) >= 2 else ["1", *valid])
        else:
            self.local_copy(op, src, dst, src_offsets, dst_offsets, sizes)
        for _ in range(opened):
            self.indent -= 1
            self.line("}")

    def zero_outside(self, op: ir.Operation, local: Tensor, offsets: list[str], sizes: list[int],
                     valid: list[str]) -> None:
        """Zeros the region of a GM -> local copy when part of it lies past the GM tensor's
        edge: the ascend IR (and the simulator) read zeros there, where DataCopyPad leaves
        the rest of the tile as it was. UB is cleared by a Duplicate on V, ordered after
        what the copy waited for and before the copy by an MTE2 <-> V handshake on an
        event the IR does not use; L1 by a Fill, which runs on MTE2 with the copy."""
        partial = self.partial(valid, sizes)
        if partial is None:
            return
        size = BYTES[local.element]
        self.line("// the region reaches past the GM tensor's edge, where it reads as zero")
        self.open_guard(partial)
        if local.space == "ub":
            # the fill runs on V, or on the scalar unit where V cannot write these bytes
            pipe = "V" if self.vector_zeroes(local, offsets, sizes) else "S"
            event = self.spare_event(op, "mte2", pipe.lower(),
                                     "order the zero fill of an edge tile")
            self.handshake("MTE2", pipe, event)
            view, count, opened = self.open_runs(op, local, offsets, sizes)
            self.zero_ub_run(local, view, count, pipe)
            self.close_loops(opened)
            self.handshake(pipe, "MTE2", event)
        elif local.space == "l1":
            view, count, opened = self.open_runs(op, local, offsets, sizes)
            self.fill_l1(op, view, ceil_div(count * size, BLOCK_BYTES))
            self.close_loops(opened)
            self.same_pipe_barrier(MTE2)
        else:
            raise error(f"a copy from GM into {local.space} has no AscendC zero fill for the "
                        "part past the tensor's edge", op.location)
        self.close_guard(partial)

    def vector_zeroes(self, local: Tensor, offsets: list[str], sizes: list[int]) -> bool:
        """Whether Duplicate (V) can zero the runs of the region. The 910b's Duplicate
        takes no 8-bit type (dav_c220/kernel_operator_vec_duplicate_impl.h, a
        static_assert; fp8_e4m3fn_t is uint8_t on arch 2201, impl/utils/common_types.h):
        zero bytes are zero 16-bit pairs there, for a single run of an even count from a
        static even element."""
        if vector_call_problem(self.profile_name, "Duplicate", local.element) is None:
            return True
        inner, run = self.run_extent(local, sizes)
        offset = self.linear(local, offsets)
        return BYTES[local.element] == 1 and run % 2 == 0 and offset.isdigit() \
            and int(offset) % 2 == 0 and all(sizes[d] == 1 for d in range(inner))

    def zero_ub_run(self, local: Tensor, view: str, count: int, pipe: str) -> None:
        """Zeros `count` elements of UB from `view` on `pipe` (`vector_zeroes`)."""
        ctype = CTYPE[local.element]
        if pipe == "S":
            index = self.fresh("z")
            self.line(f"for (int32_t {index} = 0; {index} < {count}; ++{index}) "
                      f"{view}.SetValue({index}, static_cast<{ctype}>(0));")
        elif vector_call_problem(self.profile_name, "Duplicate", local.element) is None:
            self.line(f"Duplicate({view}, static_cast<{ctype}>(0), {count});")
        else:
            self.line(f"Duplicate({view}.ReinterpretCast<int16_t>(), static_cast<int16_t>(0), "
                      f"{count // 2});")

    def run_extent(self, local: Tensor, sizes: list[int]) -> tuple[int, int]:
        """(the dims the region's runs do not cover, the elements of one run)."""
        inner, run = len(sizes), 1
        while inner > 0 and (inner == len(sizes) or local.strides[inner - 1] == str(run)):
            inner -= 1
            run *= sizes[inner]
        return inner, run

    def open_runs(self, op: ir.Operation, local: Tensor, offsets: list[str],
                  sizes: list[int]) -> tuple[str, int, int]:
        """The region as contiguous runs: opens a loop per dimension the runs do not cover
        and returns (view of one run, its elements, loops opened)."""
        if local.strides and local.strides[-1] != "1":
            raise error("the region of this copy is not contiguous along its last dimension",
                        op.location)
        inner, run = self.run_extent(local, sizes)
        indices, opened = list(offsets), 0
        for d in range(inner):
            if sizes[d] == 1:
                continue
            var = self.fresh("l")
            self.line(f"for (int64_t {var} = 0; {var} < {sizes[d]}; ++{var}) {{")
            self.indent += 1
            opened += 1
            indices[d] = add_index(indices[d], var)
        return element_at(local, self.linear(local, indices)), run, opened

    def fill_l1(self, op: ir.Operation, view: str, blocks: int) -> None:
        """Zeros `blocks` 32-byte blocks of L1 from `view` (Fill: MTE2). Its 16-bit form
        serves every element type, the pattern being all zero bits."""
        if blocks > 32767:
            raise error(f"Fill clears at most 32767 blocks of L1 per call, not {blocks}",
                        op.location)
        params = self.struct("InitConstValueParams", {
            "repeatTimes": "1", "blockNum": str(blocks), "dstGap": "0", "initValue": "0"},
            op, "uint16_t")
        self.line(f"Fill({view}.ReinterpretCast<uint16_t>(), {params});")

    def local_copy(self, op: ir.Operation, src: Tensor, dst: Tensor, src_offsets: list[str],
                   dst_offsets: list[str], sizes: list[int]) -> None:
        """On-chip to on-chip (UB -> UB on V): 32-byte blocks."""
        if "l1" in (src.space, dst.space):
            where = "on the cube core, on MTE1" if src.space == "l1" else "on a vector core"
            raise error(f"not emitted: the 950's DataCopy from {src.space} to {dst.space} runs "
                        f"{where}, where the IR orders it as MTE3 on either core", op.location)
        size = BYTES[src.element]
        if len(sizes) >= 2 and all(one_run(t, sizes) for t in (src, dst)):
            # whole rows on both sides: one run of consecutive elements
            sizes = [math.prod(sizes)]
        rows = sizes[-2] if len(sizes) >= 2 else 1
        row_bytes = (sizes[-1] if sizes else 1) * size
        lds = [t.strides[-2] if len(t.strides) >= 2 else None for t in (src, dst)]
        ld_bytes = [int(ld) * size if ld is not None and ld.isdigit() else None for ld in lds]
        ld_ok = rows == 1 or all(b is not None and b % BLOCK_BYTES == 0 and b >= row_bytes
                                 for b in ld_bytes)
        if row_bytes % BLOCK_BYTES and ld_ok and src.space == dst.space == "ub" \
                and size in (2, 4) and rows <= 255:
            # rows of less than whole blocks (padded rows, say): a masked vector Copy, one
            # repeat per row, for each 256-byte part of the rows (the mask's reach)
            repeat = [str((b or 0) // BLOCK_BYTES) for b in ld_bytes]
            params = self.struct("CopyRepeatParams", {
                "dstStride": "1", "srcStride": "1", "dstRepeatSize": repeat[1],
                "srcRepeatSize": repeat[0]}, op)
            lanes = REPEAT_BYTES // size
            for first in range(0, sizes[-1], lanes):
                at = [[*o[:-1], add_index(o[-1], str(first))] for o in (dst_offsets, src_offsets)]
                self.line(f"Copy({element_at(dst, self.linear(dst, at[0]))}, "
                          f"{element_at(src, self.linear(src, at[1]))}, "
                          f"{min(lanes, sizes[-1] - first)}, {rows}, {params});")
            return
        if row_bytes % BLOCK_BYTES or not ld_ok:
            raise error(f"an on-chip copy of {sizes[-1]} x {size}-byte rows is not in 32-byte "
                        "blocks (AscendC DataCopy between local tensors needs them)", op.location)
        gaps = [(b - row_bytes) // BLOCK_BYTES if rows > 1 and b is not None else 0
                for b in ld_bytes]
        params = self.struct("DataCopyParams", {
            "blockCount": str(rows), "blockLen": str(row_bytes // BLOCK_BYTES),
            "srcStride": str(gaps[0]), "dstStride": str(gaps[1])}, op)
        self.line(f"DataCopy({element_at(dst, self.linear(dst, dst_offsets))}, "
                  f"{element_at(src, self.linear(src, src_offsets))}, {params});")

    def note_compact_reach(self, local: Tensor, offsets: list[str], rows: int,
                           row_bytes: int) -> None:
        """Records the UB bytes a Compact DataCopyPad of `rows` rows of `row_bytes` at
        `local[offsets]` seems to reach to the vendor's CPU-mode size check: it takes
        every row to a 32-byte block of its own, ignoring PaddingMode::Compact, which
        packs them (asc-devkit `impl/basic_api/utils/kernel_check_data_copy_overflow.h`,
        CheckDataCopyPadTensorSizeOverflow: `blockCount * AlignUp(blockLen + padding,
        DEFAULT_C0_SIZE)`), and compares that with the LocalTensor's size, which runs to
        the end of the UB buffer. The emitter makes the buffer that long (its bytes past
        the tiles unused), so the check passes where the UB has room."""
        index = self.linear(local, offsets)
        base = self.alloc_offsets.get(local.base)
        if base is None or not index.isdigit():
            return
        reach = base + int(index) * BYTES[local.element] + rows * align(row_bytes, BLOCK_BYTES)
        self.compact_reach = max(self.compact_reach, reach)

    def gm_copy(self, op: ir.Operation, src: Tensor, dst: Tensor, src_offsets: list[str],
                dst_offsets: list[str], sizes: list[int], lead: list[str],
                valid: list[str]) -> None:
        """GM <-> UB/L1 with DataCopyPad: only the part inside the GM tensor moves (a load
        pads each row with zeros to its 32-byte block, or in Compact mode the packed rows'
        end; `zero_outside` cleared the rest)."""
        gm, local = (src, dst) if src.space == "gm" else (dst, src)
        if local.space == "l1" and self.arch != 3510:
            raise error(f"DataCopyPad does not reach L1 on arch {self.arch} (it returns on the "
                        "cube core there): a GM <-> L1 copy of a matrix is an Nd2Nz "
                        "(ascend.copy_nd2nz)", op.location)
        gm_offsets = src_offsets if gm is src else dst_offsets
        size = BYTES[gm.element]
        rank = len(sizes)
        rows = sizes[-2] if rank >= 2 else 1
        cols = sizes[-1] if rank else 1
        valid_rows, valid_cols = valid
        gm_ld = gm.strides[-2] if rank >= 2 else str(cols)
        local_ld = local.strides[-2] if rank >= 2 else str(cols)
        if rows > 1 and gm_ld == local_ld == str(cols) and gm_offsets[-1] == "0":
            # whole rows on both sides: one contiguous block
            valid_cols = f"{valid_rows} * {valid_cols}" if valid_rows != "1" else valid_cols
            valid_rows, rows = "1", 1
        local_row = int(local_ld) * size if local_ld.isdigit() else None
        # the 950's Compact mode moves whole rows packed in UB
        compact = (rows > 1 and local.space == "ub" and self.arch == 3510
                   and local_ld == str(cols) and (cols == 1 or valid_cols == str(cols)))
        if compact:
            self.note_compact_reach(local, src_offsets if local is src else dst_offsets,
                                    rows, cols * size)
        if rows > 1 and not compact and (local_row is None or local_row % BLOCK_BYTES):
            self.staged_copy(op, src, dst, src_offsets, dst_offsets, sizes, lead, valid)
            return
        block = f"{valid_cols} * {size}"
        local_gap = (f"({local_row} - (({block} + 31) / 32) * 32) / 32"
                     if rows > 1 and not compact else "0")
        gm_gap = f"({gm_ld} - {valid_cols}) * {size}" if rows > 1 else "0"
        ext = self.struct("DataCopyExtParams", {
            "blockCount": f"static_cast<uint16_t>({valid_rows})",
            "blockLen": f"static_cast<uint32_t>({block})",
            "srcStride": gm_gap if src is gm else local_gap,
            "dstStride": local_gap if src is gm else gm_gap, "rsv": "0"}, op)
        checks = [e for e in (*lead, valid_rows, valid_cols) if not e.isdigit()]
        if any(e == "0" for e in (*lead, valid_rows, valid_cols)):
            self.line("// the region lies outside the GM tensor: no DMA")
            return
        guard = f"if ({' && '.join(f'{e} > 0' for e in checks)}) " if checks else ""
        target = element_at(dst, self.linear(dst, dst_offsets))
        origin = element_at(src, self.linear(src, src_offsets))
        mode = f"<{CTYPE[gm.element]}, PaddingMode::Compact>" if compact else ""
        if src is gm:
            # zeros (not the DMA's dummy values) from the row's end to its 32-byte block
            per_block = BLOCK_BYTES // size
            tail = (str(-int(valid_cols) % per_block) if valid_cols.isdigit()
                    else f"static_cast<uint8_t>(({per_block} - ({valid_cols}) % {per_block}) "
                         f"% {per_block})")
            pad = self.struct("DataCopyPadExtParams", {
                "isPad": "true", "leftPadding": "0", "rightPadding": "0" if compact else tail},
                op, CTYPE[gm.element])
            self.line(f"{guard}DataCopyPad{mode}({target}, {origin}, {ext}, {pad});")
        elif "atomic_add" in op.attributes:
            # the store adds into GM, atomically across cores, while the mode is set:
            # SetAtomicAdd<T>() sets the add mode and its type for the DMA's stores,
            # SetAtomicNone() clears it (asc-devkit include/basic_api/
            # kernel_operator_set_atomic_intf.h; dav_c220/kernel_operator_set_atomic_impl.h:
            # half, float, int16_t, int32_t, int8_t, bfloat16_t)
            self.line(f"SetAtomicAdd<{CTYPE[gm.element]}>();")
            self.line(f"{guard}DataCopyPad{mode}({target}, {origin}, {ext});")
            self.line("SetAtomicNone();")
        else:
            self.line(f"{guard}DataCopyPad{mode}({target}, {origin}, {ext});")

    def staged_copy(self, op: ir.Operation, src: Tensor, dst: Tensor, src_offsets: list[str],
                    dst_offsets: list[str], sizes: list[int], lead: list[str],
                    valid: list[str]) -> None:
        """A copy whose UB rows are not whole 32-byte blocks (a column of a tensor into a
        packed vector, say), which DataCopyPad cannot write or read outside the 950's
        Compact mode: the DMA moves the rows to or from a staging area of UB, a row per
        block, and the scalar unit packs or unpacks them there. S takes its place in the
        DMA pipe's queue order by a handshake with that pipe on each side (after what the
        copy waits for, before what waits for the copy), and a store's S waits for its DMA
        too, so the staging area is free again once the copy has been issued."""
        gm, local = (src, dst) if src.space == "gm" else (dst, src)
        if local.space != "ub":
            raise error(f"the local rows of this copy are not whole 32-byte blocks of "
                        f"{local.space}: DataCopyPad starts every row at a block, and only "
                        "UB has a scalar path that packs such rows", op.location)
        if any(e == "0" for e in (*lead, *valid)):
            self.line("// the region lies outside the GM tensor: no DMA")
            return
        size = BYTES[local.element]
        pitch = align(sizes[-1] * size, BLOCK_BYTES) // size
        self.staging_bytes = max(self.staging_bytes, sizes[-2] * pitch * size)
        pipe = "MTE2" if gm is src else "MTE3"
        event = self.spare_event(op, pipe.lower(), "s", "order a copy of rows under 32 bytes")
        staging = self.fresh("staging")
        self.line("// rows under a 32-byte block of UB, which DataCopyPad cannot pack: a row per "
                  "block of the staging area, packed by the scalar unit")
        guard = " && ".join(f"{e} > 0" for e in lead if not e.isdigit())
        self.open_guard(guard)
        self.line(f"LocalTensor<{CTYPE[local.element]}> {staging} = "
                  f"ub[{self.staging_offset}].ReinterpretCast<{CTYPE[local.element]}>();")
        rank = len(sizes)
        area = Tensor(staging, "0", [*["1"] * (rank - 2), str(sizes[-2]), str(pitch)],
                      [*["0"] * (rank - 2), str(pitch), "1"], local.element, "ub",
                      [*[1] * (rank - 2), sizes[-2], pitch])
        corner = ["0"] * rank
        if gm is src:
            self.gm_copy(op, src, area, src_offsets, corner, sizes, [], valid)
            self.handshake(pipe, "S", event)
            self.pack(area, corner, dst, dst_offsets, valid)
            self.handshake("S", pipe, event)
        else:
            self.handshake(pipe, "S", event)
            self.pack(src, src_offsets, area, corner, valid)
            self.handshake("S", pipe, event)
            self.gm_copy(op, area, dst, corner, dst_offsets, sizes, [], valid)
            self.handshake(pipe, "S", event)
        self.close_guard(guard)

    def pack(self, src: Tensor, src_offsets: list[str], dst: Tensor, dst_offsets: list[str],
             valid: list[str]) -> None:
        """The valid rows x columns of `src` into `dst`, element by element on S."""
        rows, cols = self.fresh("r"), self.fresh("c")

        def at(tensor: Tensor, offsets: list[str]) -> str:
            return self.linear(tensor, [*offsets[:-2], add_index(offsets[-2], rows),
                                        add_index(offsets[-1], cols)])

        self.line(f"for (int64_t {rows} = 0; {rows} < {valid[0]}; ++{rows}) {{")
        self.line(f"    for (int64_t {cols} = 0; {cols} < {valid[1]}; ++{cols}) {{")
        self.line(f"        {dst.base}.SetValue({at(dst, dst_offsets)}, "
                  f"{src.base}.GetValue({at(src, src_offsets)}));")
        self.line("    }")
        self.line("}")

    def op_ascend_copy_nd2nz(self, op: ir.Operation) -> None:
        view = op.opview
        src = self.tensor(view.src, op)
        offsets = [self.value(v) for v in view.src_offsets]
        dst = self.tensor(view.dst, op)
        rows, cols = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        transpose, zz = "transpose" in op.attributes, "zz" in op.attributes
        self.marker(op, f"sizes [{rows}, {cols}]{' transpose' if transpose else ''}"
                        f"{' zz' if zz else ''}{' at a row' if view.dst_row else ''}")
        valid_rows = self.valid_extent(src.shape[0], offsets[0], rows)
        valid_cols = self.valid_extent(src.shape[1], offsets[1], cols)
        c0 = BLOCK_BYTES // BYTES[dst.element]
        if view.dst_row is not None:
            self.rows_into_nz(op, src, offsets, dst, self.value(view.dst_row),
                              [rows, cols], [valid_rows, valid_cols], c0)
            return
        # what the tile holds of each GM extent: rows and columns of Nz, Zz, or of the
        # Nz of the transpose
        outer, inner = dst.static_shape[0], dst.static_shape[1]
        capacity = ([outer * c0, inner * 16] if transpose else [outer * 16, inner * c0] if zz
                    else [inner * 16, outer * c0])
        # Nd2Nz (Dn2Nz) zeros a row's (column's) tail to its 32-byte block; the other
        # rows and blocks of the tile (those of a tile larger than the region too) read
        # as zero in the IR
        partial = self.partial([valid_rows, valid_cols], capacity)
        if partial is not None:
            self.line("// the tile has rows or blocks that no GM element reaches: zero them")
            self.open_guard(partial)
            blocks = 1
            for d in dst.static_shape:
                blocks *= d
            self.fill_l1(op, dst.at(), blocks * BYTES[dst.element] // BLOCK_BYTES)
            self.same_pipe_barrier(MTE2)
            self.close_guard(partial)
        if transpose:
            self.dn2nz(op, src, offsets, dst, valid_rows, valid_cols)
        elif zz:
            self.nd2zz(op, src, offsets, dst, rows, valid_cols)
        else:
            self.nd2nz(op, src, offsets, dst, valid_rows, valid_cols)

    def dn2nz(self, op: ir.Operation, src: Tensor, offsets: list[str], dst: Tensor,
              valid_rows: str, valid_cols: str) -> None:
        """The Nz of the region's transpose: Dn2Nz reads the GM matrix column-major, so
        its `nValue` is the region's columns, its `dValue` (the C0 direction) its rows."""
        if self.arch != 3510:
            raise error(f"the Nz of a transpose (DataCopy with Dn2NzParams) exists on arch "
                        f"3510 only, not on the {self.profile_name}", op.location)
        params = self.struct("Dn2NzParams", {
            "dnNum": "1", "nValue": f"static_cast<uint16_t>({valid_cols})",
            "dValue": f"static_cast<uint32_t>({valid_rows})", "srcDnMatrixStride": "0",
            "srcDValue": src.strides[0], "dstNzC0Stride": str(dst.static_shape[1] * 16),
            "dstNzNStride": "1", "dstNzMatrixStride": "0"}, op)
        self.line(f"DataCopy({dst.base}, {element_at(src, self.linear(src, offsets))}, "
                  f"{params});")

    def nd2zz(self, op: ir.Operation, src: Tensor, offsets: list[str], dst: Tensor, rows: int,
              valid_cols: str) -> None:
        """Zz: one Nd2Nz per 16-row block, each a row of fractals whose column blocks lie
        16 rows (one fractal) apart; a block the GM tensor does not reach, or one of a tile
        larger than the region, moves nothing."""
        fractal_row = dst.static_shape[1] * 16 * (BLOCK_BYTES // BYTES[dst.element])
        for block in range(ceil_div(rows, 16)):
            start = (offsets[0] if not block else str(int(offsets[0]) + 16 * block)
                     if offsets[0].isdigit() else f"({offsets[0]} + {16 * block})")
            extent = min(16, rows - 16 * block)
            valid = self.valid_extent(src.shape[0], start, extent)
            if valid == "0":
                self.line(f"// rows {16 * block}.. lie outside the GM tensor: no DMA")
                continue
            params = self.struct("Nd2NzParams", {
                "ndNum": "1", "nValue": f"static_cast<uint16_t>({valid})",
                "dValue": f"{valid_cols}", "srcNdMatrixStride": "0", "srcDValue": src.strides[0],
                "dstNzC0Stride": "16", "dstNzNStride": "1", "dstNzMatrixStride": "0"}, op)
            checks = [e for e in (valid, valid_cols) if not e.isdigit()]
            guard = f"if ({' && '.join(f'{e} > 0' for e in checks)}) " if checks else ""
            self.line(f"{guard}DataCopy({dst.at(str(block * fractal_row))}, "
                      f"{element_at(src, self.linear(src, [start, offsets[1]]))}, {params});")

    def nd2nz(self, op: ir.Operation, src: Tensor, offsets: list[str], dst: Tensor,
              valid_rows: str, valid_cols: str, first_row: str = "0") -> None:
        """Nd2Nz of the region into the tile's rows from `first_row`: row r of the matrix
        starts at element r * C0 of the Nz tile, whose column blocks lie the tile's
        padded rows apart (`dstNzC0Stride`, kernel_struct_mm.h's Nd2NzParams)."""
        r1 = dst.static_shape[1]
        params = self.struct("Nd2NzParams", {
            "ndNum": "1", "nValue": f"static_cast<uint16_t>({valid_rows})",
            "dValue": f"{valid_cols}", "srcNdMatrixStride": "0", "srcDValue": src.strides[0],
            "dstNzC0Stride": str(r1 * 16), "dstNzNStride": "1", "dstNzMatrixStride": "0"}, op)
        c0 = BLOCK_BYTES // BYTES[dst.element]
        target = dst.base if first_row == "0" else dst.at(f"({first_row}) * {c0}")
        self.line(f"DataCopy({target}, {element_at(src, self.linear(src, offsets))}, "
                  f"{params});")

    def rows_into_nz(self, op: ir.Operation, src: Tensor, offsets: list[str], dst: Tensor,
                     first_row: str, sizes: list[int], valid: list[str], c0: int) -> None:
        """`ascend.copy_nd2nz` with `dst_row`: the region's rows that fall inside the
        tile, from `first_row`; where GM holds fewer rows or columns than the region,
        those rows' blocks are zeroed first (Fill: one 32-byte block per row in each
        of the region's column blocks, the blocks of a column lying the tile's padded
        rows apart: `InitConstValueParams` repeatTimes / blockNum / dstGap)."""
        rows, cols = sizes
        padded_rows = dst.static_shape[1] * 16
        self.open_guard(f"{first_row} >= 0")
        kept = self.valid_extent(str(padded_rows), first_row, rows)
        moved = self.fresh("n")
        self.line(f"int64_t {moved} = {valid[0]} < {kept} ? {valid[0]} : {kept};")
        short = f"{moved} < {kept} || {valid[1]} < {cols}"
        self.line("// rows or columns of the region that GM lacks read as zero")
        self.open_guard(f"{kept} > 0 && ({short})")
        params = self.struct("InitConstValueParams", {
            "repeatTimes": str(ceil_div(cols, c0)),
            "blockNum": f"static_cast<uint16_t>({kept})",
            "dstGap": f"static_cast<uint16_t>({padded_rows} - {kept})", "initValue": "0"},
            op, "uint16_t")
        self.line(f"Fill({dst.at(f'({first_row}) * {c0}')}.ReinterpretCast<uint16_t>(), "
                  f"{params});")
        self.same_pipe_barrier(MTE2)
        self.close_guard("1")
        self.open_guard(f"{moved} > 0")
        self.nd2nz(op, src, offsets, dst, moved, valid[1], first_row)
        self.close_guard("1")
        self.close_guard("1")
