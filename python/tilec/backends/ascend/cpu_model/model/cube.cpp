// The 910b's cube path (written here), with the layouts ASCEND.md "Data layout on the cube
// path" gives from the vendor's documentation. A fractal is 16 rows of C0 = 32 B / element
// size elements (512 B); L0C fractals are 16 x 16 of 32-bit values.
// - copy_gm_to_cbuf_multi_nd2nz_bN (MTE2): element (r, c) of ND matrix k goes from
//   src[k * srcNdMatrixStride + r * srcDValue + c] to the Nz tile at
//   k * dstNzMatrixStride + (c / C0) * dstNzC0Stride * C0 + r * dstNzNStride * C0 + c % C0.
// - create_cbuf_matrix (MTE2, InitConstValue): `repeat` times `blockNum` 32 B blocks of
//   the value, `dstGap` blocks between repeats (the config's bits 0-15, 16-31, 32-47).
// - load_cbuf_to_ca / _cb (MTE1): fractal startIndex + i * srcStride to fractal
//   i * (1 + dstGap), for i < repeat; `transpose` transposes each 16 x 16 16-bit fractal.
// - load_cbuf_to_ca_transpose / _cb_transpose (MTE1, LoadDataWithTranspose; its doc and
//   the pseudocode it points to, examples/.../load_data_l12l0/scripts/
//   load_data_with_transpose.py): iteration i transposes the square at startIndex + i *
//   srcStride squares and writes it as fractals, the first at i * (1 + dstGap) fractals,
//   the next (1 + dstFracGap) fractals after it. A 16-bit square is one 16 x 16 fractal; an
//   8-bit one two 16 x 32 fractals one above the other (32 x 32), split into two 16 x 32
//   fractals of rows; a 32-bit one two 16 x 8 fractals side by side (16 x 16), split into
//   two 16 x 8 fractals of columns.
// - mad (M): C[m, n] (+)= A[m, k] B[k, n] in the 910b's operand layouts: A in L0A as Zz
//   (fractal (m1, k1) at m1 * K1 + k1, rows of C0), B in L0B as Zn (fractal (k1, n1) at
//   k1 * N1 + n1, each fractal n-major: element (k0, n0) at n0 * C0 + k0), C in L0C as Nz
//   (fractal (m1, n1) at n1 * M1 + m1); products summed in float (int32 for int8) in k
//   order.
// - copy_matrix_cc_to_gm (FIX): the Nz tile (column blocks srcStride * 16 elements apart)
//   to GM, as ND rows dstStride elements apart (nz2nd) or Nz (column blocks dstStride * 32
//   B apart), with ReLU and the conversion the quantization mode names.
// The 950's (arch 3510) forms, as dav_3510/kernel_operator_data_copy_impl.h, _mm_impl.h and
// _fixpipe_impl.h call them, and the 2D-V2 load's documentation (docs/.../LoadData_2D_V2.md):
// - copy_gm_to_cbuf_multi_nd2nz / _dn2nz: the 910b's Nd2Nz with the destination's loops in
//   MTE2_NZ_PARA (set_mte2_nz_para) and GM strides in bytes; Dn2Nz reads the GM matrix by
//   columns: its n-th "row" is column n, its d-th element row d.
// - load_cbuf_to_ca / _cb (2D V2): the fractals of an mStep x kStep window, source fractal
//   (m, k) at (kStartPosition + k) * |srcStride| + mStartPosition + m (Nz: M-neighbours
//   adjacent, K-neighbours srcStride apart), destination k * dstStride + m; `ifTranspose`
//   transposes each 16-bit fractal (other widths, and windows of several fractals in both
//   directions, are not modelled).
// - mad: A in L0A as Nz (fractal (m1, k1) at k1 * M1 + m1, rows of C0), B and C as on the
//   910b; m = 1 without disableGemv is a GEMV (not modelled).
// - copy_matrix_cc_to_gm / _cbuf / _ub: the 910b's fixpipe, the Nz destination stride in
//   elements; into UB, dualDstCtl 1 writes the first half of the rows into sub-block 0's UB
//   and the second into sub-block 1's, at the same address.
#include <cmath>
#include <cstring>
#include <vector>

#include "core.h"
#include "tilec_model_3510.h"

namespace tilec_model {

namespace {
float read_float(Dt t, const uint8_t* p) {
    switch (t) {
        case Dt::f32: { float v; std::memcpy(&v, p, 4); return v; }
        case Dt::f16: { half v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
        case Dt::bf16: { bfloat16_t v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
        case Dt::f8e4m3: { fp8_e4m3fn_t v; std::memcpy(&v, p, 1); return static_cast<float>(v); }
        case Dt::f8e5m2: { fp8_e5m2_t v; std::memcpy(&v, p, 1); return static_cast<float>(v); }
        default: unmodelled("a cube operand of this element type");
    }
}

int32_t read_int(Dt t, const uint8_t* p) {
    switch (t) {
        case Dt::s8: return static_cast<int8_t>(*p);
        case Dt::u8: return *p;
        case Dt::s32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        default: unmodelled("an integer cube operand of this element type");
    }
}

bool integral(Dt t) { return t == Dt::s8 || t == Dt::u8 || t == Dt::s32; }

void write_value(Dt t, uint8_t* p, double v) {
    switch (t) {
        case Dt::f32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
        case Dt::f16: { half x(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
        case Dt::bf16: { bfloat16_t x(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
        case Dt::s32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
        default: unmodelled("a fixpipe output of this element type");
    }
}
}  // namespace

void fill_l1(Dt type, void* dst, uint64_t config, uint64_t bits) {
    uint64_t repeat = config & 0xffff, blocks = (config >> 16) & 0xffff,
             gap = (config >> 32) & 0xffff;
    size_t es = size_of(type);
    auto* d = static_cast<uint8_t*>(dst);
    std::vector<Range> writes;
    for (uint64_t r = 0; r < repeat; ++r) {
        uint8_t* base = d + r * (blocks + gap) * 32;
        for (uint64_t i = 0; i < blocks * 32; i += es) std::memcpy(base + i, &bits, es);
        writes.push_back(span(base, blocks * 32));
    }
    issue(PIPE_MTE2, "create_cbuf_matrix", {}, merged(writes));
}

namespace {
/// Element (r, c) of ND matrix k (column_major: element (c, r) of it, the matrix read by
/// columns) to Nz; strides in elements.
void nz_copy(const char* name, Dt type, void* dst, const void* src, uint64_t nd_num, uint64_t n,
             uint64_t d, uint64_t src_nd_stride, uint64_t src_d, uint64_t dst_c0_stride,
             uint64_t dst_n_stride, uint64_t dst_nd_stride, bool column_major) {
    size_t es = size_of(type);
    uint64_t c0 = 32 / es;
    auto* out = static_cast<uint8_t*>(dst);
    auto* in = static_cast<const uint8_t*>(src);
    std::vector<Range> reads, writes;
    for (uint64_t k = 0; k < nd_num; ++k) {
        for (uint64_t r = 0; r < n; ++r) {
            for (uint64_t c = 0; c < d; ++c) {
                const uint8_t* from = in + (k * src_nd_stride + (column_major ? c * src_d + r
                                                                              : r * src_d + c)) * es;
                uint64_t at = k * dst_nd_stride + (c / c0) * dst_c0_stride * c0 +
                              r * dst_n_stride * c0 + c % c0;
                std::memcpy(out + at * es, from, es);
                reads.push_back(span(from, es));
                writes.push_back(span(out + at * es, es));
            }
        }
    }
    issue(PIPE_MTE2, name, merged(reads), merged(writes));
}
}  // namespace

void nd2nz(Dt type, void* dst, const void* src, uint64_t nd_num, uint64_t n, uint64_t d,
           uint64_t src_nd_stride, uint64_t src_d, uint64_t dst_c0_stride, uint64_t dst_n_stride,
           uint64_t dst_nd_stride) {
    nz_copy("copy_gm_to_cbuf_multi_nd2nz", type, dst, src, nd_num, n, d, src_nd_stride, src_d,
            dst_c0_stride, dst_n_stride, dst_nd_stride, false);
}

void set_mte2_nz_para(uint64_t config) { core().mte2_nz_para = config; }

void to_nz(Dt type, void* dst, const void* src, uint64_t row_bytes, uint64_t n, uint64_t d,
           uint64_t matrix_bytes, bool column_major) {
    size_t es = size_of(type);
    uint64_t para = core().mte2_nz_para;
    if (row_bytes % es || matrix_bytes % es) error("an Nd2Nz stride of a part of an element");
    nz_copy(column_major ? "copy_gm_to_cbuf_multi_dn2nz" : "copy_gm_to_cbuf_multi_nd2nz", type,
            dst, src, para & 0xffff, n, d, matrix_bytes / es, row_bytes / es,
            (para >> 32) & 0xffff, (para >> 16) & 0xffff, ((para >> 48) & 0xffff) * 32 / es,
            column_major);
}

// One 512-byte fractal of 16-bit data (16 x 16), as it is or transposed.
static void copy_fractal(uint8_t* to, const uint8_t* from, bool transpose) {
    if (!transpose) {
        std::memcpy(to, from, 512);
        return;
    }
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) std::memcpy(to + (c * 16 + r) * 2, from + (r * 16 + c) * 2, 2);
}

void load_2d(int target, Dt type, void* dst, const void* src, uint64_t start, uint64_t repeat,
             uint64_t src_stride, uint64_t dst_gap, bool transpose) {
    size_t es = size_of(type);
    if (transpose && es != 2) unmodelled("a transposing load_cbuf_to_ca/cb of non-16-bit data");
    auto* out = static_cast<uint8_t*>(dst);
    auto* in = static_cast<const uint8_t*>(src);
    std::vector<Range> reads, writes;
    for (uint64_t i = 0; i < repeat; ++i) {
        const uint8_t* from = in + (start + i * src_stride) * 512;
        uint8_t* to = out + i * (1 + dst_gap) * 512;
        copy_fractal(to, from, transpose);
        reads.push_back(span(from, 512));
        writes.push_back(span(to, 512));
    }
    issue(PIPE_MTE1, target == 0 ? "load_cbuf_to_ca" : "load_cbuf_to_cb", merged(reads),
          merged(writes));
}

void load_2dv2(int target, Dt type, void* dst, const void* src, uint64_t m_start,
               uint64_t k_start, uint64_t m_step, uint64_t k_step, int64_t src_stride,
               uint64_t dst_stride, bool transpose) {
    if (transpose && (size_of(type) != 2 || (m_step > 1 && k_step > 1)))
        unmodelled("a transposing 2D-V2 load of non-16-bit data or of a window of fractals");
    uint64_t stride = static_cast<uint64_t>(src_stride < 0 ? -src_stride : src_stride);
    auto* out = static_cast<uint8_t*>(dst);
    auto* in = static_cast<const uint8_t*>(src);
    std::vector<Range> reads, writes;
    for (uint64_t k = 0; k < k_step; ++k) {
        for (uint64_t m = 0; m < m_step; ++m) {
            const uint8_t* from = in + ((k_start + k) * stride + m_start + m) * 512;
            uint8_t* to = out + (k * dst_stride + m) * 512;
            copy_fractal(to, from, transpose);
            reads.push_back(span(from, 512));
            writes.push_back(span(to, 512));
        }
    }
    issue(PIPE_MTE1, target == 0 ? "load_cbuf_to_ca" : "load_cbuf_to_cb", merged(reads),
          merged(writes));
}

void load_2d_transpose(int target, Dt type, void* dst, const void* src, uint64_t start,
                       uint64_t repeat, uint64_t src_stride, uint64_t dst_gap,
                       uint64_t dst_frac_gap) {
    size_t es = size_of(type);
    uint64_t c0 = 32 / es, fractals = es == 2 ? 1 : 2;
    if (es != 1 && es != 2 && es != 4) unmodelled("a transposing load of this element type");
    auto* out = static_cast<uint8_t*>(dst);
    auto* in = static_cast<const uint8_t*>(src);
    std::vector<Range> reads, writes;
    for (uint64_t i = 0; i < repeat; ++i) {
        const uint8_t* square = in + (start + i * src_stride) * fractals * 512;
        reads.push_back(span(square, fractals * 512));
        for (uint64_t j = 0; j < fractals; ++j) {
            uint8_t* fractal = out + (i * (1 + dst_gap) + j * (1 + dst_frac_gap)) * 512;
            for (uint64_t r = 0; r < 16; ++r) {
                for (uint64_t m = 0; m < c0; ++m) {
                    // (source fractal, its row, its column) of this fractal's (r, m)
                    uint64_t f = 0, row = m, col = r;
                    if (es == 1) f = m / 16, row = m % 16, col = j * 16 + r;
                    if (es == 4) f = r / 8, row = j * 8 + m, col = r % 8;
                    std::memcpy(fractal + (r * c0 + m) * es, square + f * 512 + (row * c0 + col) * es,
                                es);
                }
            }
            writes.push_back(span(fractal, 512));
        }
    }
    issue(PIPE_MTE1, target == 0 ? "load_cbuf_to_ca_transpose" : "load_cbuf_to_cb_transpose",
          merged(reads), merged(writes));
}

void mad(Dt out, Dt in, void* c, const void* a, const void* b, uint64_t m, uint64_t k, uint64_t n,
         bool init, bool gemv) {
    if (gemv) unmodelled("mad as a GEMV (m = 1 reads L0A as one row)");
    bool nz = core().arch == 3510;  // the 950's L0A takes Nz, the 910b's Zz
    size_t es = size_of(in);
    uint64_t c0 = 32 / es, m1 = (m + 15) / 16, k1 = (k + c0 - 1) / c0, n1 = (n + 15) / 16;
    auto* pa = static_cast<const uint8_t*>(a);
    auto* pb = static_cast<const uint8_t*>(b);
    auto* pc = static_cast<uint8_t*>(c);
    bool ints = integral(in);
    for (uint64_t i = 0; i < m; ++i) {
        for (uint64_t j = 0; j < n; ++j) {
            uint8_t* cell = pc + (((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16) * 4;
            float acc = 0;
            int32_t iacc = 0;
            if (!init) std::memcpy(ints ? static_cast<void*>(&iacc) : &acc, cell, 4);
            for (uint64_t kk = 0; kk < k; ++kk) {
                uint64_t fa = nz ? (kk / c0) * m1 + i / 16 : (i / 16) * k1 + kk / c0;
                const uint8_t* x = pa + (fa * 16 * c0 + (i % 16) * c0 + kk % c0) * es;
                const uint8_t* y = pb + (((kk / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 +
                                         kk % c0) * es;
                if (ints) iacc += read_int(in, x) * read_int(in, y);
                else acc += read_float(in, x) * read_float(in, y);
            }
            std::memcpy(cell, ints ? static_cast<void*>(&iacc) : &acc, 4);
        }
    }
    (void)out;
    std::vector<Range> reads = {span(pa, m1 * k1 * 512), span(pb, k1 * n1 * 512)};
    // Mmad.md (ISASI, 同步优化说明): two Mmads accumulating into one L0C need
    // PipeBarrier<PIPE_M> when (m / 16) * (n / 16) < 10; from 10 fractals on the hardware
    // resolves the dependency on C itself (tilec's MMAD_SELF_ORDERED_FRACTALS).
    bool waits_for_pipe = (m / 16) * (n / 16) >= 10;
    issue(PIPE_M, "mad", init ? reads : std::vector<Range>{reads[0], reads[1],
                                                             span(pc, m1 * n1 * 1024)},
          {span(pc, m1 * n1 * 1024)}, waits_for_pipe);
}

void set_nd_para(uint64_t config) { core().nd_para = config; }

void set_quant_pre(uint64_t config) { core().quant_pre = config; }

void set_local_buffers(uint8_t* ub, uint8_t* l1) {
    core().ub = ub;
    core().l1 = l1;
}

namespace {
/// The core of this one's block on the other side: the AIC, or the AIV of `sub_block`, once
/// its TPipe has filled its buffers (the headers' CPU mode fills them with random values,
/// which would overwrite what this core writes into them first; on hardware nothing does).
Core& peer(int sub_block) {
    Core& c = core();
    Launch& l = *c.launch;
    for (Core* other : l.cores) {
        if (other->block != c.block || other->aic == c.aic ||
            (c.aic && other->sub_block != sub_block))
            continue;
        std::unique_lock<std::mutex> lock(l.mutex);
        l.changed.wait(lock, [&] { return other->ready || other->finished || l.failed; });
        if (l.failed) throw Failure("");
        if (!other->ready) error("a copy into the buffers of a core that has no TPipe");
        return *other;
    }
    error("a copy into the other side of the block's AI core: a mix kernel has one");
}
}  // namespace

void* peer_ub(const void* own, int sub_block) {
    Core& c = core();
    Core& target = peer(sub_block);
    if (!c.aic) error("a copy into another AIV's UB");
    return target.ub + (static_cast<const uint8_t*>(own) - c.ub);
}

void* peer_l1(const void* own) {
    Core& c = core();
    if (c.aic) error("a copy into L1 from the AIC's own UB");
    return peer(0).l1 + (static_cast<const uint8_t*>(own) - c.l1);
}

void fixpipe(Dt out, Dt in, void* dst, const void* src, uint64_t n, uint64_t m,
             uint64_t dst_stride, uint64_t src_stride, int quant, bool relu, bool nz2nd, bool gm) {
    Core& c = core();
    size_t os = size_of(out);
    auto* from = static_cast<const uint8_t*>(src);
    auto* to = static_cast<uint8_t*>(dst);
    float scale = 1.0f;
    if (quant == static_cast<int>(QuantMode_t::DEQF16)) {
        uint32_t bits = static_cast<uint32_t>(c.quant_pre);
        std::memcpy(&scale, &bits, 4);
    } else if (quant != static_cast<int>(QuantMode_t::NoQuant) &&
               quant != static_cast<int>(QuantMode_t::F322F16) &&
               quant != static_cast<int>(QuantMode_t::F322BF16)) {
        unmodelled("copy_matrix_cc_to_gm with this quantization mode");
    }
    std::vector<Range> reads, writes;
    std::vector<uint8_t> row(n * os);
    for (uint64_t i = 0; i < m; ++i) {
        for (uint64_t j = 0; j < n; ++j) {
            const uint8_t* cell = from + ((j / 16) * src_stride * 16 + i * 16 + j % 16) * 4;
            double v = in == Dt::s32 ? static_cast<double>(read_int(Dt::s32, cell)) * scale
                                     : static_cast<double>(read_float(Dt::f32, cell));
            if (relu && v < 0) v = 0;
            uint8_t* target = nz2nd ? row.data() + j * os
                                    : to + ((j / 16) * dst_stride * 32 / os + i * 16 + j % 16) * os;
            if (nz2nd) {
                write_value(out, target, v);
            } else {
                uint8_t value[8];
                write_value(out, value, v);
                if (gm) write_gm(out, target, value, os);
                else std::memcpy(target, value, os);
                writes.push_back(span(target, os));
            }
            reads.push_back(span(cell, 4));
        }
        if (nz2nd) {
            if (gm) write_gm(out, to + i * dst_stride * os, row.data(), n * os);
            else std::memcpy(to + i * dst_stride * os, row.data(), n * os);
            writes.push_back(span(to + i * dst_stride * os, n * os));
        }
    }
    issue(PIPE_FIX, gm ? "copy_matrix_cc_to_gm" : "copy_matrix_cc_to_cbuf / _ub", merged(reads),
          merged(writes));
}

}  // namespace tilec_model
