"""scf, arith, math and memref ops as C++ statements and LocalTensor views."""

from __future__ import annotations

import math

from mlir import ir

from tilec.backends.ascend.ascendc.base import EmitterBase
from tilec.backends.ascend.ascendc.tables import (
    BLOCK_BYTES,
    BYTES,
    CTYPE,
    FCMP,
    FCMP_PREDICATES,
    ICMP,
    ICMP_PREDICATES,
    SCALAR_CTYPE,
)
from tilec.backends.ascend.ascendc.text import Tensor, add_index, mul_index, row_major_strides
from tilec.diagnostics import error
from tilec.targets.ascend import attributes as ascend_attr

_DCCI = "DataCacheCleanAndInvalid<{}, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>"
"""Writes back and drops the data-cache line of one GM element."""

class Statements(EmitterBase):
    """Scalar code, loops, branches and buffer views."""

    def op_func_return(self, op: ir.Operation) -> None:
        del op

    def op_arith_constant(self, op: ir.Operation) -> None:
        attr = op.attributes["value"]
        t = str(op.results[0].type)
        if isinstance(attr, ir.FloatAttr):
            value = ir.FloatAttr(attr).value
            # the compiler's builtin, as the vendor headers write it: kernel_operator.h
            # brings no <cmath> (INFINITY) outside the CPU-debug mode
            text = ("-__builtin_inff()" if value == float("-inf") else "__builtin_inff()"
                    if value == float("inf") else '__builtin_nanf("")' if math.isnan(value)
                    else repr(float(value)) + "f")
            self.bind(op, f"static_cast<{SCALAR_CTYPE[t]}>({text})")
            return
        value = ir.IntegerAttr(attr).value
        # integer constants stay literals, so offsets and extents fold
        text = ("true" if value else "false") if t == "i1" else str(value)
        self.names[op.results[0]] = text if value >= 0 or t == "i1" else f"({text})"

    def op_arith_bitcast(self, op: ir.Operation) -> None:
        # the vendor's scalar bitcast, a union of the two types:
        # impl/basic_api/utils/kernel_utils_struct_norm_sort.h, GetScalarBitcodeValue<T, U>
        source = SCALAR_CTYPE[str(op.operands[0].type)]
        target = SCALAR_CTYPE[str(op.results[0].type)]
        self.bind(op, f"AscendC::GetScalarBitcodeValue<{source}, {target}>"
                      f"({self.value(op.operands[0])})")

    def op_arith_negf(self, op: ir.Operation) -> None:
        self.bind(op, f"-{self.value(op.operands[0])}")

    def op_arith_ceildivsi(self, op: ir.Operation) -> None:
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"({a} + {b} - 1) / {b}")

    def op_arith_floordivsi(self, op: ir.Operation) -> None:
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"{a} / {b} - ((({a} % {b}) != 0) && (({a} < 0) != ({b} < 0)))")

    def op_math_absf(self, op: ir.Operation) -> None:
        x = self.value(op.operands[0])
        # both branches of one type: negating a half may promote it (CPU-debug `half`)
        ctype = SCALAR_CTYPE[str(op.results[0].type)]
        self.bind(op, f"({x} < 0 ? static_cast<{ctype}>(-{x}) : {x})")

    def op_math_floor(self, op: ir.Operation) -> None:
        self.rounded(op, ">", "- 1")

    def op_math_ceil(self, op: ir.Operation) -> None:
        self.rounded(op, "<", "+ 1")

    def rounded(self, op: ir.Operation, beyond: str, step: str) -> None:
        """floor/ceil on the scalar unit: truncate, then step once where that went the
        wrong way (exact for |x| < 2^63)."""
        x = self.value(op.operands[0])
        ctype = SCALAR_CTYPE[str(op.results[0].type)]
        whole = self.fresh("w")
        self.line(f"{ctype} {whole} = static_cast<{ctype}>(static_cast<int64_t>({x}));")
        self.bind(op, f"{whole} {beyond} {x} ? {whole} {step} : {whole}")

    def op_arith_select(self, op: ir.Operation) -> None:
        c, a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"{c} ? {a} : {b}")

    def op_arith_cmpi(self, op: ir.Operation) -> None:
        predicate = ICMP_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"{a} {ICMP[predicate]} {b}")

    def op_arith_cmpf(self, op: ir.Operation) -> None:
        predicate = FCMP_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
        if predicate not in FCMP:
            raise error(f"the AscendC emitter does not support cmpf '{predicate}'", op.location)
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"static_cast<float>({a}) {FCMP[predicate]} static_cast<float>({b})")

    def op_scf_for(self, op: ir.Operation) -> None:
        lb, ub, step = (self.value(x) for x in op.operands[:3])
        body = op.regions[0].blocks[0]
        results = self.carried(op, op.operands[3:])
        iv = self.fresh("i")
        self.names[body.arguments[0]] = iv
        for arg, var in zip(body.arguments[1:], results, strict=True):
            self.names[arg] = var
        self.line(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
        self.indent += 1
        self.block(body)
        self.indent -= 1
        self.line("}")

    def carried(self, op: ir.Operation, inits: object) -> list[str]:
        """Declares one variable per result of `op` (from `inits` when given)."""
        names = []
        init_values = list(inits) if inits is not None else []
        for index, result in enumerate(op.results):
            var = self.fresh("r")
            init = f" = {self.value(init_values[index])}" if init_values else ""
            self.line(f"{SCALAR_CTYPE[str(result.type)]} {var}{init};")
            self.names[result] = var
            names.append(var)
        return names

    def op_scf_while(self, op: ir.Operation) -> None:
        """`while (true)`: the test region, whose `scf.condition` sets the
        results to the forwarded values and breaks or runs the body (whose
        arguments are the results); the body's yield sets the test region's
        arguments for the next trip."""
        before, after = (region.blocks[0] for region in op.regions)
        for arg, init in zip(before.arguments, op.operands, strict=True):
            var = self.fresh("w")
            self.line(f"{SCALAR_CTYPE[str(arg.type)]} {var} = {self.value(init)};")
            self.names[arg] = var
        for arg, var in zip(after.arguments, self.carried(op, None), strict=True):
            self.names[arg] = var
        self.line("while (true) {")
        self.indent += 1
        self.block(before)
        self.block(after)
        self.indent -= 1
        self.line("}")

    def op_scf_condition(self, op: ir.Operation) -> None:
        for result, value in zip(op.parent.results, list(op.operands)[1:], strict=True):
            self.line(f"{self.names[result]} = {self.value(value)};")
        self.line(f"if (!({self.value(op.operands[0])})) {{")
        self.line("    break;")
        self.line("}")

    def op_scf_yield(self, op: ir.Operation) -> None:
        for var, v in zip(self.yielding_for(op), op.operands, strict=True):
            self.line(f"{var} = {self.value(v)};")

    def yielding_for(self, op: ir.Operation) -> list[str]:
        parent = op.parent
        if parent.name == "scf.while":  # the body's yield: the next trip's test arguments
            return [self.names[a] for a in parent.regions[0].blocks[0].arguments]
        return [self.names[r] for r in parent.results]

    def op_scf_if(self, op: ir.Operation) -> None:
        self.carried(op, None)
        self.line(f"if ({self.value(op.operands[0])}) {{")
        self.indent += 1
        self.block(op.regions[0].blocks[0])
        self.indent -= 1
        if op.regions[1].blocks and len(op.regions[1].blocks[0].operations):
            self.line("} else {")
            self.indent += 1
            self.block(op.regions[1].blocks[0])
            self.indent -= 1
        self.line("}")

    def op_memref_alloc(self, op: ir.Operation) -> None:
        t = ir.MemRefType(op.results[0].type)
        element, space = self.memref_info(t)
        offset = ascend_attr.integer(op, ascend_attr.OFFSET)
        var = self.fresh("t")
        ctype = CTYPE[element]
        self.line(f"LocalTensor<{ctype}> {var} = {space}[{offset}].ReinterpretCast<{ctype}>();")
        self.alloc_offsets[var] = offset
        shape = [str(d) for d in t.shape]
        self.tensors[op.results[0]] = Tensor(var, "0", shape, row_major_strides(shape),
                                              element, space, list(t.shape))

    def op_memref_dealloc(self, op: ir.Operation) -> None:
        del op

    def op_memref_dim(self, op: ir.Operation) -> None:
        tensor = self.tensor(op.operands[0], op)
        index = op.operands[1].owner
        if not (isinstance(index, ir.Operation | ir.OpView) and index.name == "arith.constant"):
            raise error("memref.dim with a dynamic index is not supported by the AscendC "
                        "emitter", op.location)
        d = ir.IntegerAttr(index.attributes["value"]).value
        if not 0 <= d < len(tensor.shape):  # undefined behaviour in MLIR
            raise error(f"memref.dim of dimension {d} of a rank-{len(tensor.shape)} memref",
                        op.location)
        self.bind(op, tensor.shape[d])

    def op_memref_subview(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        static_offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        static_strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
        dynamic = iter(self.value(v) for v in op.operands[1:])
        offset = "0"
        for d, (o, s) in enumerate(zip(static_offsets, static_strides, strict=True)):
            text = next(dynamic) if o == ir.ShapedType.get_dynamic_stride_or_offset() else str(o)
            offset = add_index(offset, mul_index(text, source.strides[d]))
            if s != 1:
                raise error("a strided subview cannot be an AscendC LocalTensor view",
                            op.location)
        t = ir.MemRefType(op.results[0].type)
        shape = [str(d) for d in t.shape]
        # the view keeps the strides of its source (vector ops reject non-contiguous views);
        # a rank-reducing one drops unit dims, not always the leading ones (a column
        # [8, 1] of an 8x4 tile keeps stride 4), so static strides come from its type
        dropped = len(source.strides) - t.rank
        strides = source.strides[dropped:] if dropped >= 0 else source.strides
        layout, _ = t.get_strides_and_offset()
        if dropped > 0 and ir.ShapedType.get_dynamic_stride_or_offset() not in layout:
            strides = [str(stride) for stride in layout]
        base = source.base
        var = self.fresh("t")
        full = add_index(source.offset, offset)
        if source.space == "gm":
            self.tensors[op.results[0]] = Tensor(base, full, shape, strides, source.element,
                                                  "gm", list(t.shape))
            return
        self.line(f"LocalTensor<{CTYPE[source.element]}> {var} = {base}[{full}];")
        self.views.add(var)
        if base in self.alloc_offsets and full.isdigit():
            self.alloc_offsets[var] = self.alloc_offsets[base] + int(full) * BYTES[source.element]
        self.tensors[op.results[0]] = Tensor(var, "0", shape, strides, source.element,
                                              source.space, list(t.shape))

    def op_memref_view(self, op: ir.Operation) -> None:
        """The bytes of an on-chip i8 buffer from a byte shift as another element type:
        `LocalTensor<T>::ReinterpretCast<U>()` (asc-devkit
        `include/basic_api/kernel_tensor.h`) of the byte tensor at that shift."""
        source = self.tensor(op.operands[0], op)
        if source.space == "gm" or source.offset != "0":
            raise error("memref.view of a GM buffer or of a view has no AscendC tensor",
                        op.location)
        shift = self.value(op.operands[1])
        t = ir.MemRefType(op.results[0].type)
        if any(d == ir.ShapedType.get_dynamic_size() for d in t.shape):
            raise error("a memref.view of dynamic shape has no AscendC tensor", op.location)
        element, _ = self.memref_info(t)
        ctype = CTYPE[element]
        var = self.fresh("t")
        self.line(f"LocalTensor<{ctype}> {var} = {source.base}[{shift}]"
                  f".ReinterpretCast<{ctype}>();")
        if source.base in self.alloc_offsets and shift.isdigit():
            self.alloc_offsets[var] = self.alloc_offsets[source.base] + int(shift)
        if shift != "0":
            self.views.add(var)
        shape = [str(d) for d in t.shape]
        self.tensors[op.results[0]] = Tensor(var, "0", shape, row_major_strides(shape),
                                              element, source.space, list(t.shape))

    def reshaped(self, op: ir.Operation, dynamic: list[str]) -> None:
        """A new shape over the same contiguous elements (expand/collapse_shape, cast)."""
        source = self.tensor(op.operands[0], op)
        if source.strides != row_major_strides(source.shape):
            raise error("a reshape of a strided view has no AscendC tensor", op.location)
        t = ir.MemRefType(op.results[0].type)
        sizes = iter(dynamic)
        shape = [str(d) if d != ir.ShapedType.get_dynamic_size() else next(sizes)
                 for d in t.shape]
        self.tensors[op.results[0]] = Tensor(source.base, source.offset, shape,
                                              row_major_strides(shape), source.element,
                                              source.space, list(t.shape))

    def op_memref_expand_shape(self, op: ir.Operation) -> None:
        self.reshaped(op, [self.value(v) for v in op.operands[1:]])

    def op_memref_collapse_shape(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        groups = [list(ir.ArrayAttr(g)) for g in ir.ArrayAttr(op.attributes["reassociation"])]
        sizes = []
        for group in groups:
            extent = "1"
            for d in group:
                extent = mul_index(extent, source.shape[ir.IntegerAttr(d).value])
            sizes.append(extent)
        t = ir.MemRefType(op.results[0].type)
        self.reshaped(op, [e for e, d in zip(sizes, t.shape, strict=True)
                           if d == ir.ShapedType.get_dynamic_size()])

    def op_memref_cast(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        t = ir.MemRefType(op.results[0].type)
        shape = [str(d) if d != ir.ShapedType.get_dynamic_size() else known
                 for d, known in zip(t.shape, source.shape, strict=True)]
        self.tensors[op.results[0]] = Tensor(source.base, source.offset, shape, source.strides,
                                              source.element, source.space, list(t.shape))

    def op_memref_reinterpret_cast(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        if source.offset != "0" or source.base in self.views:
            raise error("reinterpret_cast of a view: its offset is relative to the "
                        "allocation, which this view does not start", op.location)
        dynamic = iter(self.value(v) for v in op.operands[1:])
        marker = ir.ShapedType.get_dynamic_stride_or_offset()

        def values(name: str, unknown: int) -> list[str]:
            return [next(dynamic) if v == unknown else str(v)
                    for v in ir.DenseI64ArrayAttr(op.attributes[name])]

        offset = values("static_offsets", marker)[0]
        shape = values("static_sizes", ir.ShapedType.get_dynamic_size())
        strides = values("static_strides", marker)
        t = ir.MemRefType(op.results[0].type)
        self.tensors[op.results[0]] = Tensor(source.base, offset, shape, strides,
                                              source.element, source.space, list(t.shape))

    def element_index(self, tensor: Tensor, indices: list[ir.Value]) -> str:
        return self.linear(tensor, [self.value(i) for i in indices])

    def op_memref_load(self, op: ir.Operation) -> None:
        tensor = self.tensor(op.operands[0], op)
        index = self.element_index(tensor, list(op.operands[1:]))
        if tensor.space == "gm":
            # the scalar unit reads GM through its data cache: drop the line first, so
            # that it reads what DMAs and other cores wrote
            self.marker(op, "gm")
            self.line(f"{_DCCI.format(CTYPE[tensor.element])}({tensor.base}[{index}]);")
        self.bind(op, f"{tensor.base}.GetValue({index})")

    def op_memref_store(self, op: ir.Operation) -> None:
        tensor = self.tensor(op.operands[1], op)
        index = self.element_index(tensor, list(op.operands[2:]))
        value = self.value(op.operands[0])
        if tensor.space != "gm":
            self.line(f"{tensor.base}.SetValue({index}, {value});")
            return
        self.marker(op, "gm")
        if not self.on_vector_core(op):
            # no UB on the cube core: through the data cache, written back at once (it
            # writes whole 64-byte lines, so other cores must not store within 64 bytes)
            self.line(f"{tensor.base}.SetValue({index}, {value});")
            self.line(f"{_DCCI.format(CTYPE[tensor.element])}({tensor.base}[{index}]);")
            return
        # through one UB element and the DMA, which writes only the element's bytes (the
        # data cache would write back its whole 64-byte line, over other cores' stores)
        ctype = CTYPE[tensor.element]
        event = self.spare_event(op, "mte3", "s", "store a scalar into GM")
        self.staging_bytes = max(self.staging_bytes, BLOCK_BYTES)
        one = self.fresh("one")
        self.line(f"LocalTensor<{ctype}> {one} = ub[{self.staging_offset}]"
                  f".ReinterpretCast<{ctype}>();")
        self.handshake("MTE3", "S", event)
        self.line(f"{one}.SetValue(0, {value});")
        self.handshake("S", "MTE3", event)
        params = self.struct("DataCopyExtParams", {
            "blockCount": "1", "blockLen": str(BYTES[tensor.element]), "srcStride": "0",
            "dstStride": "0", "rsv": "0"}, op)
        self.line(f"DataCopyPad({tensor.base}[{index}], {one}, {params});")
        self.handshake("MTE3", "S", event)
