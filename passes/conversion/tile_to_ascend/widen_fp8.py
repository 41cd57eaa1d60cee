"""tile-ascend-widen-fp8: 8-bit floats where the NPU has no unit that takes them.

An fp8 tensor in GM is bytes, and the DMA moves bytes, so fp8 tiles can be
copied anywhere. What needs the hardware are conversions and gemms, and
only some units have fp8 types:

- the fixpipe drains L0C as f16, bf16 or f32 only (the `ascend.fixpipe`
  verifier; the 950's `QuantMode_t::QF322FP8_PRE` scalar quantization, asc-devkit
  `impl/basic_api/dav_3510/kernel_operator_fixpipe_impl.h`, is not modelled
  yet), so on both profiles an accumulator copied to an fp8 tensor is
  converted on the vector cores first: a `tile.parallel` casts it into an
  fp8 fragment, which is then copied out;
- the 910b (arch 2201) has no fp8 in its cube (Mmad takes f16, bf16, f32 and
  int8: the profile's `cube_macs_per_cycle`) nor in its vector Cast (the
  vendor's Cast table lists fp8 for the Ascend 950 only; docs
  `基础API/Memory矢量计算/类型转换/Cast.md`), and the vendor's guidance for A2/A3
  is to convert fp8 to f16 on the vector side. So there an fp8 gemm operand
  is loaded into a fragment (UB) and decoded into an f16 tile of the
  operand's scope, which the gemm reads (tile-ascend-place-tiles stages such
  a tile up to L1, through GM on the 910b; f16 holds every e4m3 and e5m2
  value exactly, as `tile-cuda-widen-fp8-operands` explains); a `tile.copy`
  between fp8 and another float type between two tiles becomes a
  `tile.parallel`; and every conversion from or to fp8 (`arith.extf`,
  `arith.truncf`) becomes exact integer code on the value's bits. Decoding
  in a `tile.parallel` is code the vector unit has (`_f16_of_byte`: casts
  of the byte as an integer, int16 multiply-adds of the f16 fields, compares
  and selects, and a bitcast that vector_parallel.py makes a view of the same
  UB bytes), one vector call per step over the whole tile; elsewhere, and
  for encoding (which needs shifts and masks the `ascend` dialect's vector
  ops lack), it is `tile-cpu-emulate-fp8`'s `decode`/`encode`, which the S
  pipe runs.

Encoding saturates, as the 950's vector Cast and fixpipe do in their
default mode (CTRL[48] = 0, CTRL[50] = 0; `SetCtrlSpr(ISASI).md`, and the
Fixpipe page's special-value notes): it rounds f32 to nearest even, takes
overflow and +-inf to +-max finite and NaN to +0, so one kernel gives the
same bytes on both profiles (the simulator's `tilec.sim.dtypes._Fp8`).
ml_dtypes (and the cpu target) give NaN or inf there instead.

Before (910b):

    tile.copy %y[%c0, %c0], %q[%c0, %c0]
        : memref<8x128xf32, #tile.scope<fragment>>, memref<8x128xf8E4M3FN, #tile.scope<fragment>>

After:

    tile.parallel (%i, %j) in (8, 128) {
      %v = memref.load %y[%i, %j] : memref<8x128xf32, #tile.scope<fragment>>
      ...  // clamp to +-448 and NaN to 0, then round the f32 bits to e4m3
      %q8 = arith.bitcast %code : i8 to f8E4M3FN
      memref.store %q8, %q[%i, %j] : memref<8x128xf8E4M3FN, #tile.scope<fragment>>
    }
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
from mlir import ir
from mlir.dialects import arith, memref

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_ascend.place_tiles import copy_operands
from tilec.passes.conversion.tile_to_cpu.emulate_fp8 import decode, encode, fp8_format
from tilec.passes.registry import Pass, emit_error, register_pass
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend.call_dtypes import FP8
from tilec.targets.ascend.profiles import Profile


def _is_fp8(type_: ir.Type) -> bool:
    return fp8_format(type_) is not None


def has_fp8_units(profile: Profile) -> bool:
    """Whether the cube and the vector Cast of `profile` take fp8 (the 950)."""
    return any(t in FP8 for t in profile.cube_macs_per_cycle)


def _saturated(value: ir.Value, element: ir.Type) -> ir.Value:
    """The f32 `value` clamped to the finite range of the fp8 `element`, NaN as +0."""
    largest = float(ml_dtypes.finfo(fp8_format(element).numpy).max)
    f32 = ir.F32Type.get()
    top = irb.constant(f32, largest)
    clamped = arith.minimumf(arith.maximumf(value, irb.constant(f32, -largest)), top)
    is_nan = arith.cmpf(arith.CmpFPredicate.UNE, value, value)
    return arith.select(is_nan, irb.zero(f32), clamped)


def _f16_of_byte(byte: ir.Value, fp8: ir.Type) -> ir.Value:
    """The f16 value of the code `byte` (i8) of the `fp8` type, exactly, in ops the
    910b's vector unit has for f16 and i16 tiles (vector_parallel.py; every call is in
    its 2201 table, `call_dtypes`): Cast int8_t -> half (CAST_NONE) and half -> int16_t
    (CAST_TRUNC), asc-devkit `impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h`
    L43 and L394; Muls/Adds of int16_t and half; Compare and Select of half; and the
    bitcast, a view of the same UB bytes. No float op sees a subnormal (the vector
    unit's handling of them is not documented): e5m2's subnormals are bits put in place
    by integer code, e4m3's are f16 normals.

    e5m2 is f16 with its low byte zero: the byte, read as a signed integer, times 256
    is the f16's bits as an int16 (in range: -128 * 256 is int16's least). An e4m3
    magnitude m (the code less its sign) is f16's exponent and mantissa fields shifted
    right by 7 with the exponent 8 too small: m * 128 + (8 << 10) are the bits of a
    normal one; a subnormal one is m * 2^-9, and 0x7F is NaN, as `decode` gives it
    (f32's quiet NaN, so f16's); the sign multiplies the result by -1 (-0 from 0x80).
    """
    fmt = fp8_format(fp8)
    f16, i16 = ir.F16Type.get(), ir.IntegerType.get_signless(16)
    signed = arith.sitofp(f16, byte)
    if fmt.bias == 15:  # e5m2: f16's exponent field
        top_byte = arith.muli(arith.fptosi(i16, signed), irb.constant(i16, 256))
        return arith.bitcast(f16, top_byte)
    negative = arith.cmpf(arith.CmpFPredicate.OLT, signed, irb.zero(f16))
    magnitude = arith.select(negative, arith.addf(signed, irb.constant(f16, 128.0)), signed)
    fields = arith.muli(arith.fptosi(i16, magnitude), irb.constant(i16, 1 << (10 - fmt.mantissa)))
    normal = arith.bitcast(f16, arith.addi(fields, irb.constant(i16, (15 - fmt.bias) << 10)))
    subnormal = arith.mulf(magnitude, irb.constant(f16, 2.0 ** (1 - fmt.bias - fmt.mantissa)))
    small = arith.cmpf(arith.CmpFPredicate.OLT, magnitude, irb.constant(f16, 1 << fmt.mantissa))
    value = arith.select(small, subnormal, normal)
    is_nan = arith.cmpf(arith.CmpFPredicate.OGE, magnitude, irb.constant(f16, fmt.first_nan))
    value = arith.select(is_nan, irb.constant(f16, float("nan")), value)
    return arith.select(negative, arith.negf(value), value)


def convert(value: ir.Value, to: ir.Type, fp8_units: bool, whole_tile: bool = False) -> ir.Value:
    """`value` as element type `to`; without `fp8_units` a conversion from or to fp8 is
    integer code on the bits (decode exactly, encode saturating); decoding a value of
    a `whole_tile` (one per point of a `tile.parallel`, which the vector unit may run)
    is code the vector unit has (`_f16_of_byte`), elsewhere the S pipe's."""
    source = value.type
    if fp8_units or source == to or not (_is_fp8(source) or _is_fp8(to)):
        return irb.convert(value, to)
    byte = ir.IntegerType.get_signless(8)
    if _is_fp8(source):
        code = arith.bitcast(byte, value)
        value = _f16_of_byte(code, source) if whole_tile else decode(code, fp8_format(source))
    if not _is_fp8(to):
        return irb.convert(value, to)
    f32 = irb.convert(value, ir.F32Type.get())
    return arith.bitcast(to, encode(_saturated(f32, to), fp8_format(to)))


def _converted_into(src: ir.Value, dst: ir.Value, fp8_units: bool) -> None:
    """`dst[p] = convert(src[p])` for every point p of their (equal) shapes."""
    shape = ir.MemRefType(src.type).shape
    region = tile.ParallelOp(shape)
    block = region.regions[0].blocks.append(*([ir.IndexType.get()] * len(shape)))
    with ir.InsertionPoint(block):
        point = list(block.arguments)
        value = memref.load(src, point)
        memref.store(convert(value, ir.MemRefType(dst.type).element_type, fp8_units,
                             whole_tile=True), dst, point)
        tile.YieldOp()


def _fragment(like: ir.Value, element: ir.Type, before: ir.Operation) -> ir.Value:
    """A fragment of `like`'s shape in `element`, allocated at the kernel's start."""
    shape = ir.MemRefType(like.type).shape
    with irb.scratch_insertion_point(before), before.location:
        return tile.alloc(tile.memref_type(shape, element, tile.Scope.fragment))


def _whole_tile(copy: ir.Operation) -> bool:
    """Whether `copy` moves every element of one on-chip tile onto another of its shape."""
    (src,), src_offsets, (dst,), dst_offsets, pad = copy_operands(copy)
    types = [ir.MemRefType(v.type) for v in (src, dst)]
    if any(tile.scope_of(t) == tile.Scope.global_ for t in types) or pad:
        return False
    if types[0].shape != types[1].shape:
        return False
    if "sizes" in copy.attributes and list(copy.attributes["sizes"]) != types[0].shape:
        return False
    return all(irb.constant_int(v) == 0 for v in [*src_offsets, *dst_offsets])


def _stage_accumulator_stores(func: ir.Operation, fp8_units: bool) -> None:
    """Copies of a gemm accumulator into fp8 go through an fp8 fragment the vector
    cores convert it into (the fixpipe stores no fp8)."""
    accumulators = {g.operands[2] for g in irb.collect(func, "tile.gemm")}
    for copy in irb.collect(func, "tile.copy"):
        (src,), _, (dst,), _, _ = copy_operands(copy)
        if src not in accumulators or not _is_fp8(ir.MemRefType(dst.type).element_type):
            continue
        staged = _fragment(src, ir.MemRefType(dst.type).element_type, copy)
        with ir.InsertionPoint(copy), copy.location:
            _converted_into(src, staged, fp8_units)
        copy.operands[0] = staged


def _decode_gemm_operands(func: ir.Operation) -> None:
    """fp8 gemm operands are fragments (UB), decoded element by element into f16 tiles
    of the operand's scope, which the vector cores hand up to the cube."""
    for gemm in irb.collect(func, "tile.gemm"):
        for number in (0, 1):
            operand = gemm.operands[number]
            type_ = ir.MemRefType(operand.type)
            if not _is_fp8(type_.element_type):
                continue
            if gemm.operands[0] == gemm.operands[1]:
                raise emit_error(gemm, "an fp8 tile multiplied by itself on a profile without "
                                       "an fp8 cube is not supported (copy it into a second "
                                       "tile)")
            if operand.owner.name != "tile.alloc":
                raise emit_error(gemm, f"an fp8 gemm operand on a profile without an fp8 cube "
                                       f"is a tile of its own (tile.alloc), not "
                                       f"'{operand.owner.name}'")
            operand.set_type(tile.memref_type(type_.shape, type_.element_type,
                                              tile.Scope.fragment))
            with irb.scratch_insertion_point(gemm), gemm.location:
                wide = tile.alloc(tile.memref_type(type_.shape, ir.F16Type.get(),
                                                   tile.scope_of(type_)))
            with ir.InsertionPoint(gemm), gemm.location:
                _converted_into(operand, wide, fp8_units=False)
            gemm.operands[number] = wide


def _convert_copies(func: ir.Operation) -> None:
    """Copies that convert from or to fp8 become tile.parallel conversions."""
    for copy in irb.collect(func, "tile.copy"):
        (src,), _, (dst,), _, _ = copy_operands(copy)
        source, target = (ir.MemRefType(v.type).element_type for v in (src, dst))
        if source == target or not (_is_fp8(source) or _is_fp8(target)):
            continue
        if not _whole_tile(copy):
            raise emit_error(copy, f"a tile.copy that converts {source} to {target} on a "
                                   f"profile without fp8 units moves a whole on-chip tile onto "
                                   f"another of its shape (copy the bytes first)")
        with ir.InsertionPoint(copy), copy.location:
            _converted_into(src, dst, fp8_units=False)
        copy.erase()


def _convert_scalars(func: ir.Operation) -> None:
    """extf/truncf from or to fp8 in element-wise code become integer code: the vector
    unit's where a `tile.parallel` holds it (which vector_parallel.py may vectorize)."""
    for op in irb.collect(func, {"arith.extf", "arith.truncf"}):
        value, result = op.operands[0], op.results[0]
        if not (_is_fp8(value.type) or _is_fp8(result.type)):
            continue
        parallel = irb.enclosing(op, {"tile.parallel"}) is not None
        with ir.InsertionPoint(op), op.location:
            converted = convert(value, result.type, fp8_units=False, whole_tile=parallel)
        result.replace_all_uses_with(converted)
        op.erase()


@register_pass
@dataclass(frozen=True)
class AscendWidenFp8Pass(Pass):
    """Converts fp8 on the vector cores where the fixpipe, cube or Cast has no fp8."""

    argument = "tile-ascend-widen-fp8"
    anchor = "func.func"
    summary = "Convert 8-bit floats on the vector cores where the NPU's units lack them"

    target: str = target_option(AscendTarget)

    def run(self, op: ir.Operation) -> None:
        fp8_units = has_fp8_units(target_of(AscendTarget, self.target).profile)
        with op.context, op.location:
            _stage_accumulator_stores(op, fp8_units)
            if fp8_units:
                return
            _decode_gemm_operands(op)
            _convert_copies(op)
            _convert_scalars(op)
