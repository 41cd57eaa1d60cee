"""Vector ops on UB tensors, in count mode (one call per op, or per row where the
hardware needs it, kept on the V pipe)."""

from __future__ import annotations

from mlir import ir

from tilec.backends.ascend.ascendc.base import EmitterBase
from tilec.backends.ascend.ascendc.tables import (
    BLOCK_BYTES,
    BYTES,
    CMP,
    CTYPE,
    REPEAT_BYTES,
    ROUND,
)
from tilec.backends.ascend.ascendc.text import (
    Tensor,
    add_index,
    ceil_div,
    index_view,
    keyword,
    one_run,
    row_stride,
)
from tilec.diagnostics import error
from tilec.targets.ascend.call_dtypes import (
    PAIRED_BYTES,
    REDUCE,
    VBIN,
    VBINS,
    VUNARY,
    cast_problem,
    duplicate_problem,
    vector_call_problem,
)
from tilec.targets.ascend.machine import V

_INTEGERS = frozenset({"i8", "i16", "i32", "i64", "ui8", "i1"})


class Vector(EmitterBase):
    """ascend.v* ops as AscendC vector calls."""

    def vector(self, op: ir.Operation, value: ir.Value,
               rows: bool = False) -> tuple[Tensor, int]:
        """A UB operand and its elements: one run of them, or with `rows`, equally spaced
        rows that each start on a 32-byte block (`row_stride`)."""
        tensor = self.tensor(value, op)
        count = 1
        for d in tensor.static_shape:
            count *= d
        if tensor.space != "ub":
            raise error(f"vector operand in {tensor.space}, not UB", op.location)
        if count > 1 and not one_run(tensor) and not (rows and row_stride(tensor)):
            raise error("a vector operand view that is not contiguous has no AscendC "
                        "count-mode call", op.location)
        return tensor, count

    def elementwise(self, op: ir.Operation,
                    values: list[ir.Value]) -> tuple[list[Tensor], int, int]:
        """The operands of an element-wise call and its count: the whole views in one call,
        or where one is rows of a wider buffer (a tile with padded rows:
        passes/conversion/tile_to_ascend/ops/padded_rows.py), a call per row on the row's real
        count, in a loop opened here (the last result: loops to close). Each row starts on
        a 32-byte block, as the calls' UB addresses must, and the pad is never touched."""
        operands = [self.vector(op, v, rows=True) for v in values]
        tensors, count = [t for t, _ in operands], operands[0][1]
        if all(one_run(t) for t in tensors):
            return tensors, count, 0
        cols = tensors[0].static_shape[-1]
        strides = [row_stride(t) or str(cols) for t in tensors]
        for tensor, stride in zip(tensors, strides, strict=True):
            self.rows_start_on_blocks(op, "a vector call", int(stride), tensor.element)
        r = self.fresh("row")
        self.line(f"for (int32_t {r} = 0; {r} < {count // cols}; ++{r}) {{")
        self.indent += 1
        rows = [Tensor(t.base, add_index(t.offset, f"{r} * {stride}"), [str(cols)], ["1"],
                       t.element, t.space, [cols]) for t, stride in zip(tensors, strides,
                                                                         strict=True)]
        return rows, cols, 1

    def takes(self, op: ir.Operation, call: str, element: str) -> None:
        """A located error where `call` does not take `element` tiles on this profile."""
        problem = vector_call_problem(self.profile_name, call, element)
        if problem is not None:
            raise error(problem, op.location)

    def op_ascend_vbin(self, op: ir.Operation) -> None:
        kind = keyword(op.attributes["kind"])
        self.takes(op, VBIN[kind], self.tensor(op.operands[0], op).element)
        self.marker(op, kind)
        (dst, a, b), count, opened = self.elementwise(op, list(op.operands))
        self.line(f"{VBIN[kind]}({dst.at()}, {a.at()}, {b.at()}, {count});")
        self.close_loops(opened)

    def op_ascend_vbins(self, op: ir.Operation) -> None:
        kind = keyword(op.attributes["kind"])
        scalar = self.value(op.operands[2])
        self.takes(op, VBINS[kind], self.tensor(op.operands[0], op).element)
        self.marker(op, kind)
        (dst, src), count, opened = self.elementwise(op, list(op.operands[:2]))
        self.line(f"{VBINS[kind]}({dst.at()}, {src.at()}, static_cast<{CTYPE[dst.element]}>"
                  f"({scalar}), {count});")
        self.close_loops(opened)

    def op_ascend_vunary(self, op: ir.Operation) -> None:
        kind = keyword(op.attributes["kind"])
        self.takes(op, VUNARY[kind], self.tensor(op.operands[0], op).element)
        self.marker(op, kind)
        (dst, src), count, opened = self.elementwise(op, list(op.operands))
        if kind == "neg":
            self.line(f"Muls({dst.at()}, {src.at()}, static_cast<{CTYPE[dst.element]}>(-1), "
                      f"{count});")
        else:
            self.line(f"{VUNARY[kind]}({dst.at()}, {src.at()}, {count});")
        self.close_loops(opened)

    def op_ascend_vdup(self, op: ir.Operation) -> None:
        dst, count = self.vector(op, op.operands[0], rows=True)
        problem = duplicate_problem(self.profile_name, dst.element, count)
        if problem is not None:
            raise error(problem, op.location)
        self.marker(op)
        value = self.value(op.operands[1])
        if dst.element in PAIRED_BYTES and \
                vector_call_problem(self.profile_name, "Duplicate", dst.element) is not None:
            # the 910b's Duplicate has no 8-bit type: both bytes of each 16-bit element
            # (dav_c220/kernel_operator_vec_duplicate_impl.h)
            dst, count = self.vector(op, op.operands[0])
            if not dst.offset.isdigit() or int(dst.offset) % 2:
                raise error("a Duplicate of 8-bit elements as 16-bit pairs needs a view at an "
                            "even static offset", op.location)
            byte = f"(static_cast<uint16_t>({value}) & 0xff)"
            self.line(f"Duplicate({dst.at()}.ReinterpretCast<int16_t>(), static_cast<int16_t>"
                      f"({byte} * 257), {count // 2});")
            return
        (dst,), count, opened = self.elementwise(op, [op.operands[0]])
        self.line(f"Duplicate({dst.at()}, static_cast<{CTYPE[dst.element]}>({value}), {count});")
        self.close_loops(opened)

    def op_ascend_vcast(self, op: ir.Operation) -> None:
        dst, src = (self.tensor(v, op) for v in op.operands)
        mode = keyword(op.attributes["round"]) if "round" in op.attributes else "none"
        if dst.element == src.element:
            raise error(f"a vcast of {src.element} to {src.element} has no AscendC Cast (it "
                        "would leave the destination as it was)", op.location)
        problem = cast_problem(src.element, dst.element)
        if problem is not None:
            raise error(problem, op.location)
        # `none` rounds to nearest even (the simulator's reading); the Cast of a float into
        # an integer or into bf16 does nothing at all with CAST_NONE on the 910b
        if mode == "none" and (dst.element in _INTEGERS or dst.element == "bf16") \
                and src.element not in _INTEGERS:
            mode = "rint"
        self.marker(op, mode)
        if self.arch == 2201 and (src.element, dst.element) == ("i32", "f16"):
            # the 910b converts int32 to half by dequantization, scaled by a register
            self.line("SetDeqScale(static_cast<half>(1.0f));")
        (dst, src), count, opened = self.elementwise(op, list(op.operands))
        self.line(f"Cast({dst.at()}, {src.at()}, RoundMode::{ROUND[mode]}, {count});")
        self.close_loops(opened)

    def scratch(self, element: str) -> str:
        ctype = CTYPE[element]
        return f"ub[{self.scratch_offset}].ReinterpretCast<{ctype}>()"

    def op_ascend_vreduce(self, op: ir.Operation) -> None:
        kind = keyword(op.attributes["kind"])
        (dst, rows), (src, count) = (self.vector(op, v, rows=i == 1)
                                     for i, v in enumerate(op.operands))
        self.takes(op, REDUCE[kind], src.element)
        cols = src.static_shape[-1] if src.static_shape else 1
        stride = int(row_stride(src) or cols)  # a padded row's pad is not reduced
        self.marker(op, kind)
        work = self.fresh("work")
        self.line(f"LocalTensor<{CTYPE[src.element]}> {work} = {self.scratch(src.element)};")
        call = REDUCE[kind]
        if rows == 1:
            self.line(f"{call}({dst.at()}, {src.at()}, {work}, {cols});")
            return
        self.rows_start_on_blocks(op, call, stride, src.element)
        r = self.fresh("row")
        self.line(f"for (int32_t {r} = 0; {r} < {count // cols}; ++{r}) {{")
        self.line(f"    {call}({index_view(dst, r, 1)}, {index_view(src, r, stride)}, {work}, "
                  f"{cols});")
        self.v_barrier("    ")  # the next row reuses the work buffer
        self.line("}")

    def rows_start_on_blocks(self, op: ir.Operation, call: str, stride: int,
                             element: str) -> None:
        """A call per row starts each at the row's first element (rows `stride` elements
        apart), and AscendC's vector calls take 32-byte-aligned UB addresses only."""
        if stride * BYTES[element] % BLOCK_BYTES:
            raise error(f"{call} row by row on rows of {stride} {element} "
                        f"({stride * BYTES[element]} bytes): each row's call would start off a "
                        "32-byte boundary of UB, which AscendC's vector calls require",
                        op.location)

    def v_barrier(self, indent: str = "") -> None:
        """Orders two dependent vector calls of one op where the machine model says the
        V pipe does not (the 910b's)."""
        self.same_pipe_barrier(V, indent)

    def op_ascend_vbrcb(self, op: ir.Operation) -> None:
        (dst, count), (src, rows) = (self.vector(op, v, rows=i == 0)
                                     for i, v in enumerate(op.operands))
        self.takes(op, "Brcb", dst.element)
        cols = count // rows
        stride = int(row_stride(dst) or cols)
        size = BYTES[dst.element]
        if size not in (2, 4):
            raise error(f"Brcb broadcasts 16- and 32-bit elements, not {dst.element}",
                        op.location)
        self.marker(op)
        block = BLOCK_BYTES // size
        per_repeat = REPEAT_BYTES // size
        blocks = self.fresh("blocks")
        ctype = CTYPE[dst.element]
        self.line(f"LocalTensor<{ctype}> {blocks} = {self.scratch(dst.element)};")
        params = self.struct("BrcbRepeatParams", {"dstBlkStride": "1", "dstRepStride": "8"}, op)
        self.line(f"Brcb({blocks}, {src.at()}, {ceil_div(rows, 8)}, {params});")
        self.v_barrier()
        copy = self.struct("CopyRepeatParams", {"dstStride": "1", "srcStride": "0",
                                                "dstRepeatSize": "8", "srcRepeatSize": "0"}, op)
        if rows > 1:
            self.rows_start_on_blocks(op, "Copy", stride, dst.element)
        full, tail = divmod(cols, per_repeat)
        r = self.fresh("row")
        self.line(f"for (int32_t {r} = 0; {r} < {rows}; ++{r}) {{")
        source = f"{blocks}[{r} * {block}]"
        if full:
            self.line(f"    Copy({index_view(dst, r, stride)}, {source}, {per_repeat}, "
                      f"{full}, {copy});")
        if tail:
            self.line(f"    Copy({index_view(dst, r, stride, full * per_repeat)}, {source}, "
                      f"{tail}, 1, {copy});")
        self.line("}")

    def op_ascend_vcmp(self, op: ir.Operation) -> None:
        kind = keyword(op.attributes["kind"])
        (mask, _), (a, count), (b, _) = (self.vector(op, v) for v in op.operands)
        self.takes(op, "Compare", a.element)
        self.marker(op, kind)
        # count mode compares whole 256-byte repeats only: round up (the lanes past the
        # tile write mask bits that no one reads)
        self.mask_read_by_select_only(op)
        lanes = REPEAT_BYTES // BYTES[a.element]
        rounded = ceil_div(count, lanes) * lanes
        if rounded != count:
            for operand in (a, b):
                start = self.view_start(operand, op)
                if start + rounded * BYTES[a.element] > self.ends["ub"]:
                    raise error(f"Compare of {count} {a.element} lanes needs whole 256-byte "
                                f"repeats ({rounded} lanes), past the end of UB", op.location)
            self.line(f"// {count} lanes, rounded up to whole 256-byte repeats")
        self.line(f"Compare({mask.at()}, {a.at()}, {b.at()}, CMPMODE::{CMP[kind]}, {rounded});")

    def mask_read_by_select_only(self, op: ir.Operation) -> None:
        """Compare writes a bit per lane where the IR's mask holds a byte: only Select
        reads it that way, so any other reader is an error."""
        for use in op.operands[0].uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if (user.name, use.operand_number) not in (("ascend.vcmp", 0), ("ascend.vsel", 1)):
                raise error(f"the mask of this Compare is read by {user.name}: AscendC's "
                            "Compare writes a bit per lane (the IR's mask holds a byte), "
                            "which only Select reads", op.location)

    def view_start(self, tensor: Tensor, op: ir.Operation) -> int:
        """Byte offset of a UB tensor in the UB buffer (static views only)."""
        base = self.alloc_offsets.get(tensor.base)
        if base is None or not tensor.offset.isdigit():
            raise error("a Compare operand whose UB offset is not static cannot be rounded "
                        "to whole repeats", op.location)
        return base + int(tensor.offset) * BYTES[tensor.element]

    def op_ascend_vsel(self, op: ir.Operation) -> None:
        (dst, count), (mask, _), (a, _), (b, _) = (self.vector(op, v) for v in op.operands)
        self.takes(op, "Select", dst.element)
        self.marker(op)
        self.line(f"Select({dst.at()}, {mask.at()}, {a.at()}, {b.at()}, "
                  f"SELMODE::VSEL_TENSOR_TENSOR_MODE, {count});")
