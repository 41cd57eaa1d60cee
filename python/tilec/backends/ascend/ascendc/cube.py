"""The cube path: L1 -> L0 loads (transposing ones included), Mmad and Fixpipe."""

from __future__ import annotations

from mlir import ir

from tilec.backends.ascend.ascendc.base import EmitterBase
from tilec.backends.ascend.ascendc.cube_loads import (
    TransposedLoad,
    transposed_8bit_loads,
    transposed_32bit_loads,
)
from tilec.backends.ascend.ascendc.tables import BLOCK_BYTES, BYTES, CTYPE, FRACTAL_BYTES, QUANT
from tilec.backends.ascend.ascendc.text import Tensor, add_index, element_at
from tilec.diagnostics import error
from tilec.targets.ascend.call_dtypes import LOADED_AS_BYTES

FIXPIPE_TO_UB = "TILEC_CFG_ROW_MAJOR_TO_UB"
"""The FixpipeConfig of L0C -> UB in ND (the vendor's CFG_ROW_MAJOR sends the Fixpipe to
L1), defined at the top of a source that drains into UB."""
FIXPIPE_TO_UB_DEFINITION = (
    f"#ifndef {FIXPIPE_TO_UB}_DEFINED",
    f"#define {FIXPIPE_TO_UB}_DEFINED",
    "// FixpipeConfig{format, isToUB}: the Fixpipe into UB in ND (CFG_ROW_MAJOR's isToUB is",
    "// false, which drains into L1)",
    f"constexpr FixpipeConfig {FIXPIPE_TO_UB} = {{CO2Layout::ROW_MAJOR, true}};",
    "#endif",
    "",
)


_ONE = "0x3F800000"
"""1.0f as the bits of a float: the scale of a fixpipe's int32 -> half dequantization."""


def _scale(quant: str) -> dict[str, str]:
    """The `deqScalar` of a scalar dequantization (the structs leave it uninitialized):
    the IR's cast is a plain conversion, a scale of 1."""
    return {"deqScalar": f"static_cast<uint64_t>({_ONE})"} if quant == "DEQF16" else {}


class Cube(EmitterBase):
    """ascend.load_l0a/l0b, ascend.mmad and ascend.fixpipe."""

    def load_data(self, op: ir.Operation, dst: Tensor, src: Tensor, calls: list[tuple[int, int,
                  int, int, bool]]) -> None:
        """One LoadData per (dst fractal, start fractal, repeats, src stride, transpose):
        repeat j moves source fractal start + j * stride to destination fractal j. The
        start goes into the source tensor's offset, not `startIndex`: the 950 maps
        LoadData2DParams onto its 2D-V2 load, which reads fractal (startIndex + j) *
        srcStride, and with ifTranspose it drops startIndex altogether."""
        fractal = FRACTAL_BYTES // BYTES[src.element]
        for dst_fractal, start, repeats, stride, transpose in calls:
            if repeats > 255:
                raise error(f"LoadData repeats {repeats} fractals; at most 255 per call",
                            op.location)
            params = self.struct("LoadData2DParams", {
                "startIndex": "0", "dstGap": "0", "srcStride": str(stride),
                "ifTranspose": "true" if transpose else "false", "repeatTimes": str(repeats),
                "sid": "0", "addrMode": "0"}, op)
            target = dst.base if dst_fractal == 0 else f"{dst.base}[{dst_fractal * fractal}]"
            origin = src.base if start == 0 else f"{src.base}[{start * fractal}]"
            self.line(f"LoadData({self.loadable(target, dst)}, {self.loadable(origin, src)}, "
                      f"{params});")

    def loadable(self, view: str, tensor: Tensor) -> str:
        """`view` as the loads take it: the 950's take no fp8 tile, so it moves as bytes."""
        if tensor.element in LOADED_AS_BYTES[self.profile_name]:
            return f"{view}.ReinterpretCast<uint8_t>()"
        return view

    def op_ascend_load_l0a(self, op: ir.Operation) -> None:
        src, dst = self.tensor(op.operands[0], op), self.tensor(op.operands[1], op)
        transpose = "transpose" in op.attributes
        m1, k1 = dst.static_shape[0], dst.static_shape[1]
        self.marker(op, " ".join(f for f in ("transpose", "zz") if f in op.attributes))
        if "zz" in op.attributes:
            self.load_transposed(op, dst, src, self.square_loads(op, "l0a", dst, src))
        elif transpose and BYTES[src.element] == 1:
            if self.arch == 3510:
                raise error(f"the 950 has no transposing L1 -> L0A load of {src.element} "
                            "(LoadDataWithTranspose reaches only L0B there, and LoadData2D "
                            "transposes only 16-bit fractals): tilec copies such an operand "
                            "in as the Nz of its transpose (Dn2Nz) where only copies from GM "
                            "write its tile", op.location)
            self.load_transposed(op, dst, src, transposed_8bit_loads(
                "l0a", src.static_shape[:2], dst.static_shape[:2], op.location,
                self.block_stride(op, src)))
        elif transpose and self.arch == 3510:
            # Aᵀ's Nz is A's fractals M-block by M-block; the 950's L0A holds A in Nz,
            # K-block by K-block: one load per K block, each fractal transposed
            self.need_16_bit(op, src)
            self.load_data(op, dst, src, self.grid_loads(op, src, k1, m1, True, True))
        elif transpose:
            self.need_16_bit(op, src)
            self.load_data(op, dst, src, self.grid_loads(op, src, m1, k1, False, True))
        elif self.arch == 3510:
            # the 950's L0A takes Nz, the layout L1 already holds
            self.load_data(op, dst, src, self.grid_loads(op, src, k1, m1, False, False))
        else:
            self.load_data(op, dst, src, self.grid_loads(op, src, m1, k1, True, False))

    def op_ascend_load_l0b(self, op: ir.Operation) -> None:
        src, dst = self.tensor(op.operands[0], op), self.tensor(op.operands[1], op)
        transpose = "transpose" in op.attributes
        k1, n1 = dst.static_shape[0], dst.static_shape[1]
        self.marker(op, " ".join(f for f in ("transpose", "zz") if f in op.attributes))
        if "zz" in op.attributes:
            self.load_transposed(op, dst, src, self.square_loads(op, "l0b", dst, src))
        elif transpose:
            self.load_data(op, dst, src, self.grid_loads(op, src, k1, n1, False, False))
        elif BYTES[src.element] == 1:
            self.load_transposed(op, dst, src, transposed_8bit_loads(
                "l0b", src.static_shape[:2], dst.static_shape[:2], op.location,
                self.block_stride(op, src)))
        else:
            self.need_16_bit(op, src)
            self.load_data(op, dst, src, self.grid_loads(op, src, k1, n1, True, True))

    def block_stride(self, op: ir.Operation, src: Tensor) -> int:
        """The fractals from one column block of an Nz L1 tile to the next. A view of a
        taller tile (a K step of an L1 K-slab) keeps the slab's height, not its own, and
        the loads' source stride must count it: the LoadData2DParams srcStride is the
        distance of consecutive repeats' source fractals in 512 B units (on the 950 that
        load is the 2D-V2 one, dav_3510/kernel_operator_mm_impl.h LoadData2DL12L0ACal /
        L0BCal, whose srcStride docs/.../LoadData_2D_V2.md defines so)."""
        fractal = FRACTAL_BYTES // BYTES[src.element]
        outer, inner = src.strides[0], src.strides[1]
        if not outer.isdigit() or int(outer) % fractal or inner != str(fractal):
            raise error(f"not emitted: an L1 -> L0 load of a {src.element} L1 view whose "
                        f"fractal strides [{outer}, {inner}] are not whole fractals, column "
                        "block by column block", op.location)
        return int(outer) // fractal

    def grid_loads(self, op: ir.Operation, src: Tensor, outer: int, inner: int,
                   across_blocks: bool, transpose: bool) -> list[tuple[int, int, int, int,
                                                                      bool]]:
        """The LoadData calls that fill an L0 tile of `outer` x `inner` fractals, row by
        row, from the Nz L1 view `src`: one call per L0 row, repeating down a column block
        of L1 (consecutive fractals) or, `across_blocks`, across them (a block stride
        apart); one call for the whole tile where its rows lie end to end in L1."""
        blocks = self.block_stride(op, src)
        start, stride = (1, blocks) if across_blocks else (blocks, 1)
        if stride == 1 and start == inner and outer * inner <= 255:
            return [(0, 0, outer * inner, 1, transpose)]
        return [(row * inner, row * start, inner, stride, transpose) for row in range(outer)]

    def square_loads(self, op: ir.Operation, target: str, dst: Tensor,
                     src: Tensor) -> list[TransposedLoad]:
        """LoadDataWithTranspose of 32-bit squares out of a Zz L1 tile (arch 2201 only)."""
        if self.arch == 3510:
            raise error("not emitted: the 950's LoadDataWithTranspose "
                        "(LoadData2dTransposeParamsV2) moves four 16x8 fractals a repeat in an "
                        "order the vendor documents no model of", op.location)
        if BYTES[src.element] != 4:
            raise error(f"a load out of a Zz L1 tile transposes 32-bit squares, not "
                        f"{src.element}", op.location)
        fractal = FRACTAL_BYTES // BYTES[src.element]
        strides = [int(t) // fractal if t.isdigit() else 0 for t in (src.strides[0],
                                                                      dst.strides[0])]
        return transposed_32bit_loads(target, src.static_shape[:2], strides[0],
                                      dst.static_shape[:2], strides[1], op.location)

    def need_16_bit(self, op: ir.Operation, src: Tensor) -> None:
        """A transposing load through LoadData2D, which transposes 16-bit fractals only; no
        other AscendC load transposes 32-bit ones out of Nz (the error says why)."""
        if BYTES[src.element] == 2:
            return
        why = ""
        if BYTES[src.element] == 4 and self.arch == 3510:
            why = (", and the 950's LoadDataWithTranspose (LoadData2dTransposeParamsV2) moves "
                   "four 16x8 fractals a repeat in an order the vendor documents no model of: "
                   "not emitted (tilec copies such an operand in as the Nz of its transpose, "
                   "Dn2Nz, where only copies from GM write its tile and every gemm reads "
                   "it the same way)")
        elif BYTES[src.element] == 4:
            why = (", and no AscendC load transposes them out of an Nz L1 tile: "
                   "LoadDataWithTranspose joins two 16x8 fractals that lie side by side in L1 "
                   "(Zz/Zn), and Nz keeps them one above the other (tilec puts such an "
                   "operand in Zz where only copies from GM write its tile and every gemm "
                   "reads it the same way)")
        raise error(f"LoadData2D transposes only 16-bit fractals, not {src.element}{why}",
                    op.location)

    def load_transposed(self, op: ir.Operation, dst: Tensor, src: Tensor,
                        calls: list[TransposedLoad]) -> None:
        """One LoadDataWithTranspose per call; the 950 takes the V2 parameters, whose
        start and source stride count fractals instead of 32x32 squares."""
        fractal = FRACTAL_BYTES // BYTES[src.element]
        for call in calls:
            if call.repeats > 255:
                raise error(f"LoadDataWithTranspose repeats {call.repeats} squares; at most "
                            "255 per call", op.location)
            fields = {"startIndex": str(call.start), "repeatTimes": str(call.repeats),
                      "srcStride": str(call.src_stride), "dstGap": str(call.dst_gap),
                      "dstFracGap": str(call.dst_frac_gap)}
            if self.arch == 3510:
                fields.update(startIndex=str(2 * call.start), srcStride=str(2 * call.src_stride),
                              srcFracGap="0")
            params = self.struct("LoadData2dTransposeParamsV2" if self.arch == 3510
                                 else "LoadData2dTransposeParams", fields, op)
            target = dst.base if call.dst_fractal == 0 else \
                f"{dst.base}[{call.dst_fractal * fractal}]"
            self.line(f"LoadDataWithTranspose({self.loadable(target, dst)}, "
                      f"{self.loadable(src.base, src)}, {params});")

    def op_ascend_mmad(self, op: ir.Operation) -> None:
        a, b, c = (self.tensor(v, op) for v in op.operands)
        m, n, k = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        init = "init" in op.attributes
        self.marker(op, f"sizes [{m}, {n}, {k}]{' init' if init else ''}")
        fields = {"m": str(m), "n": str(n), "k": str(k),
                  "cmatrixInitVal": "true" if init else "false"}
        if m == 1:
            # M = 1 turns GEMV on, which reads L0A as one ND row, not fractals: the 950
            # switches it off; the 910b cannot, so it computes the fractal's 16 rows
            # (the L0C tile has them; the fixpipe drains the first)
            if self.arch == 3510:
                fields["disableGemv"] = "true"
            else:
                fields["m"] = "16"
        params = self.struct("MmadParams", fields, op)
        self.line(f"Mmad({c.base}, {a.base}, {b.base}, {params});")

    def op_ascend_fixpipe(self, op: ir.Operation) -> None:
        src = self.tensor(op.operands[0], op)
        dst = self.tensor(op.operands[1], op)
        offsets = [self.value(v) for v in op.operands[2:]]
        m, n = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        relu = "relu" in op.attributes
        dual = " dual_dst" if "dual_dst" in op.attributes else ""
        self.marker(op, f"sizes [{m}, {n}]{' relu' if relu else ''}{dual}")
        quant = QUANT.get((src.element, dst.element))
        if quant is None:
            raise error(f"no fixpipe conversion from {src.element} to {dst.element}",
                        op.location)
        if dst.space == "l1":
            self.fixpipe_to_l1(op, src, dst, offsets, m, n, relu, quant)
            return
        if dst.space == "ub":
            self.fixpipe_to_ub(op, src, dst, offsets, m, n, relu, quant)
            return
        if dst.space != "gm":
            raise error(f"not emitted: a fixpipe into {dst.space}", op.location)
        valid_m = self.valid_extent(dst.shape[0], offsets[0], m)
        valid_n = self.valid_extent(dst.shape[1], offsets[1], n)
        m1 = src.static_shape[1]
        params = self.struct("FixpipeParamsV220", {
            "nSize": f"static_cast<uint16_t>({valid_n})",
            "mSize": f"static_cast<uint16_t>({valid_m})",
            "srcStride": str(m1 * 16), "dstStride": f"static_cast<uint32_t>({dst.strides[0]})",
            "quantPre": f"QuantMode_t::{quant}", **_scale(quant), "ndNum": "1",
            "srcNdStride": "0", "dstNdStride": "0", "reluEn": "true" if relu else "false"}, op)
        checks = [e for e in (valid_m, valid_n) if not e.isdigit()]
        if "0" in (valid_m, valid_n):
            self.line("// the tile lies outside the GM tensor: nothing moves")
            return
        guard = f"if ({' && '.join(f'{e} > 0' for e in checks)}) " if checks else ""
        self.line(f"{guard}Fixpipe<{CTYPE[dst.element]}, {CTYPE[src.element]}, CFG_ROW_MAJOR>("
                  f"{element_at(dst, self.linear(dst, offsets))}, {src.base}, {params});")

    def fixpipe_to_ub(self, op: ir.Operation, src: Tensor, dst: Tensor, offsets: list[str],
                      m: int, n: int, relu: bool, quant: str) -> None:
        """L0C -> UB on 3510 (NZ2ND) with FixpipeParamsArch3510, under a FixpipeConfig whose
        `isToUB` is set (CFG_ROW_MAJOR's is not: that Fixpipe writes L1). With `dual_dst`,
        rows [0, M/2) go into sub-block 0's UB and the rest into sub-block 1's, at the same
        address (`dualDstCtl` 1, split in M), which the dual mode allows only without a
        conversion or relu; without it, all rows go into sub-block 0's UB (`subBlockId`)."""
        if self.arch != 3510:
            raise error(f"no fixpipe into UB on arch {self.arch}: L0C drains into GM or L1 "
                        "there", op.location)
        dual = "dual_dst" in op.attributes
        self.uses_fixpipe_to_ub = True
        params = self.struct("FixpipeParamsArch3510", {
            "nSize": str(n), "mSize": str(m), "srcStride": str(src.static_shape[1] * 16),
            "dstStride": dst.strides[0], "quantPre": f"QuantMode_t::{quant}", **_scale(quant),
            "reluEn": "true" if relu else "false", "dualDstCtl": "1" if dual else "0",
            "subBlockId": "false"}, op, "CO2Layout::ROW_MAJOR")
        self.line(f"Fixpipe<{CTYPE[dst.element]}, {CTYPE[src.element]}, {FIXPIPE_TO_UB}>("
                  f"{element_at(dst, self.linear(dst, offsets))}, {src.base}, {params});")

    def fixpipe_to_l1(self, op: ir.Operation, src: Tensor, dst: Tensor, offsets: list[str],
                      m: int, n: int, relu: bool, quant: str) -> None:
        """L0C -> L1 in Nz (CFG_NZ, NZ2NZ): m rows of every 16-column block, the blocks
        `dstStride` 32-byte rows apart in L1, where the tile's Nz keeps its column blocks."""
        if BYTES[dst.element] != 2:
            raise error(f"not emitted: a fixpipe into an Nz L1 tile of {dst.element} has "
                        "fractals narrower than L0C's 16 columns (the f32 channel split)",
                        op.location)
        if n % 16:
            raise error(f"the fixpipe into L1 moves whole 16-column blocks; {n} columns are "
                        "not", op.location)
        row, col = offsets
        if not col.isdigit() or int(col) % 16:
            raise error(f"the fixpipe into L1 starts at a 16-column block; column {col} is "
                        "not a static one", op.location)
        rows = dst.static_shape[1] * 16  # rows of the Nz tile: one column block
        if not row.isdigit() or int(row) + m > rows or int(col) + n > dst.static_shape[0] * 16:
            raise error(f"the fixpipe of {m}x{n} at [{row}, {col}] does not lie inside the L1 "
                        f"tile of {rows} x {dst.static_shape[0] * 16}", op.location)
        fields = {"nSize": str(n), "mSize": str(m), "srcStride": str(src.static_shape[1] * 16),
                  "quantPre": f"QuantMode_t::{quant}", **_scale(quant),
                  "reluEn": "true" if relu else "false"}
        if self.arch == 3510:
            # FixpipeParamsArch3510 counts the NZ destination stride in elements (the
            # V220 struct in 32-byte blocks, which the 950 would pass on unconverted)
            params = self.struct("FixpipeParamsArch3510", {
                **fields, "dstStride": str(rows * BLOCK_BYTES // BYTES[dst.element])}, op,
                "CO2Layout::NZ")
        else:
            params = self.struct("FixpipeParamsV220", {
                **fields, "dstStride": str(rows), "ndNum": "1", "srcNdStride": "0",
                "dstNdStride": "0"}, op)
        start = (int(col) // 16 * rows + int(row)) * 16
        self.line(f"Fixpipe<{CTYPE[dst.element]}, {CTYPE[src.element]}, CFG_NZ>("
                  f"{element_at(dst, add_index(dst.offset, str(start)))}, "
                  f"{src.base}, {params});")
