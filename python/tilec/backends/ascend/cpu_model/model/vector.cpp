// The vector unit and the GM <-> UB copies (written here), as the vendor's ISA pages and
// the class API's own parameter docs describe them (asc-devkit docs, DataCopyPad,
// "Level 0" vector calls):
// - a vector instruction runs `repeat` repeats of 8 blocks of 32 B; block b of repeat r
//   of an operand starts at (r * repeatStride + b * blockStride) * 32 B. In normal mask
//   mode the 128-bit mask (set_vector_mask(high, low)) enables element i of each repeat
//   (bit i of low for i < 64, of high above); in counter mode (set_mask_count) the low
//   mask is the number of elements in all, and as many repeats run as they need.
// - copy_gm_to_ubuf_align_bN: n bursts of `len` bytes, the GM bursts `len + srcGap`
//   bytes apart, each UB row `leftPad` elements of the pad value, the data, `rightPad`
//   elements of the pad value, rounded up to 32 B, then `dstGap` blocks;
//   copy_ubuf_to_gm_align_bN: the reverse (srcGap in blocks, dstGap in bytes).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "core.h"

namespace tilec_model {

size_t size_of(Dt t) {
    switch (t) {
        case Dt::f16: case Dt::bf16: case Dt::s16: case Dt::u16: return 2;
        case Dt::f32: case Dt::s32: case Dt::u32: return 4;
        case Dt::s64: case Dt::u64: return 8;
        default: return 1;
    }
}

Range span(const void* p, size_t bytes) {
    auto b = reinterpret_cast<uintptr_t>(p);
    return {b, b + bytes};
}

namespace {
template <class T>
void run_vector(Op op, uint8_t* dst, const uint8_t* s0, const uint8_t* s1, double scalar,
                uint64_t repeat, const Strides& st, std::vector<Range>& reads,
                std::vector<Range>& writes) {
    Core& c = core();
    constexpr uint64_t per_block = 32 / sizeof(T), per_repeat = 256 / sizeof(T);
    uint64_t repeats = c.repeats(repeat, per_repeat);
    bool scalar_b = s1 == nullptr && (op == Op::add || op == Op::mul || op == Op::max ||
                                      op == Op::min);
    T sv = static_cast<T>(scalar);
    const uint8_t* operands[3] = {dst, s0, s1};
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t b = 0; b < 8; ++b) {
            uint8_t* base[3];
            for (int o = 0; o < 3; ++o)
                base[o] = operands[o] == nullptr ? nullptr : const_cast<uint8_t*>(operands[o]) +
                          (r * st.repeat[o] + b * st.block[o]) * 32;
            bool any = false;
            for (uint64_t l = 0; l < per_block; ++l) {
                uint64_t i = b * per_block + l;
                if (!c.lane_on(r, i, per_repeat)) continue;
                any = true;
                T a{}, v{};
                if (base[1]) std::memcpy(&a, base[1] + l * sizeof(T), sizeof(T));
                if (base[2]) std::memcpy(&v, base[2] + l * sizeof(T), sizeof(T));
                else if (scalar_b) v = sv;
                T out = apply_op<T>(op, a, v, scalar);
                std::memcpy(base[0] + l * sizeof(T), &out, sizeof(T));
            }
            if (!any) continue;
            writes.push_back(span(base[0], 32));
            for (int o = 1; o < 3; ++o)
                if (base[o]) reads.push_back(span(base[o], 32));
        }
    }
}

}  // namespace

/// Adjacent or overlapping ranges merged, so the hazard check compares few.
std::vector<Range> merged(std::vector<Range> ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.begin < b.begin; });
    std::vector<Range> out;
    for (const Range& r : ranges) {
        if (!out.empty() && r.begin <= out.back().end) out.back().end = std::max(out.back().end, r.end);
        else out.push_back(r);
    }
    return out;
}

template <class T>
void accumulate(uint8_t* dst, const uint8_t* src, size_t bytes, int op) {
    for (size_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
        T a, b;
        std::memcpy(&a, dst + i, sizeof(T));
        std::memcpy(&b, src + i, sizeof(T));
        float x = static_cast<float>(a), y = static_cast<float>(b);
        T r = static_cast<T>(op == 0 ? x + y : op == 1 ? std::fmax(x, y) : std::fmin(x, y));
        if constexpr (std::is_integral_v<T>)
            r = op == 0 ? static_cast<T>(a + b) : op == 1 ? std::max(a, b) : std::min(a, b);
        std::memcpy(dst + i, &r, sizeof(T));
    }
}

/// A write into GM: plain, or accumulated when an atomic mode is set (set_atomic_add ...).
void write_gm(Dt type, uint8_t* dst, const uint8_t* src, size_t bytes) {
    Core& c = core();
    if (c.atomic_op < 0) {
        std::memcpy(dst, src, bytes);
        return;
    }
    std::lock_guard<std::mutex> lock(c.launch->atomic_mutex);
    switch (c.atomic_typed ? c.atomic_type : type) {
        case Dt::f32: accumulate<float>(dst, src, bytes, c.atomic_op); break;
        case Dt::f16: accumulate<half>(dst, src, bytes, c.atomic_op); break;
        case Dt::bf16: accumulate<bfloat16_t>(dst, src, bytes, c.atomic_op); break;
        case Dt::s32: accumulate<int32_t>(dst, src, bytes, c.atomic_op); break;
        case Dt::s16: accumulate<int16_t>(dst, src, bytes, c.atomic_op); break;
        case Dt::s8: accumulate<int8_t>(dst, src, bytes, c.atomic_op); break;
        default: unmodelled("an atomic accumulation of this element type");
    }
}

namespace {
double load(Dt t, const uint8_t* p) {
    switch (t) {
        case Dt::f32: { float v; std::memcpy(&v, p, 4); return v; }
        case Dt::f16: { half v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
        case Dt::bf16: { bfloat16_t v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
        case Dt::s32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case Dt::s8: { int8_t v; std::memcpy(&v, p, 1); return v; }
        default: unmodelled("a vconv from this element type");
    }
}

/// `v` as a float of type `t` (f32, f16, bf16), rounded as `mode` says: the neighbours
/// of the nearest value bracket `v`, and the mode picks one.
template <class F>
F round_to(double v, char mode) {
    auto as = [](double x) { return static_cast<F>(static_cast<float>(x)); };
    F nearest = as(v);  // to nearest, ties to even (float first, exact for f16 / bf16)
    if constexpr (std::is_same_v<F, float>) nearest = static_cast<float>(v);
    double n = static_cast<double>(static_cast<float>(nearest));
    if (n == v || mode == 'n' || mode == 'r' || std::isnan(v) || std::isinf(n)) return nearest;
    auto step = [](F x, bool up) {  // the next representable value up or down
        uint32_t bits = 0;
        std::memcpy(&bits, &x, sizeof(F));
        bool negative = (bits >> (8 * sizeof(F) - 1)) & 1;
        bool away = up != negative;
        uint32_t magnitude = bits & ((sizeof(F) == 4 ? 0x7fffffffu : 0x7fffu));
        bits = magnitude == 0 ? ((up ? 0u : 1u << (8 * sizeof(F) - 1)) | 1u)
                              : (away ? bits + 1 : bits - 1);
        F out;
        std::memcpy(&out, &bits, sizeof(F));
        return out;
    };
    F lo = n > v ? step(nearest, false) : nearest, hi = n > v ? nearest : step(nearest, true);
    double l = static_cast<float>(lo), h = static_cast<float>(hi);
    switch (mode) {
        case 'f': return lo;
        case 'c': return hi;
        case 'z': return v > 0 ? lo : hi;
        case 'a': return (v - l < h - v || (v - l == h - v && v < 0)) ? lo : hi;
        case 'o': {
            uint32_t bits = 0;
            std::memcpy(&bits, &lo, sizeof(F));
            return (bits & 1) ? lo : hi;
        }
        default: return nearest;
    }
}

void store(Dt t, char mode, uint8_t* p, double v) {
    switch (t) {
        case Dt::f32: { float x = round_to<float>(v, mode); std::memcpy(p, &x, 4); break; }
        case Dt::f16: { half x = round_to<half>(v, mode); std::memcpy(p, &x, 2); break; }
        case Dt::bf16: { bfloat16_t x = round_to<bfloat16_t>(v, mode); std::memcpy(p, &x, 2); break; }
        case Dt::s32: case Dt::s16: {  // out of range saturates (tilec's casts stay in range)
            double r = mode == 'f' ? std::floor(v) : mode == 'c' ? std::ceil(v)
                     : mode == 'z' ? std::trunc(v) : mode == 'a' ? std::round(v) : std::nearbyint(v);
            double top = t == Dt::s32 ? 2147483647.0 : 32767.0;
            r = std::isnan(r) ? 0 : std::fmin(std::fmax(r, -top - 1), top);
            if (t == Dt::s32) {
                int32_t x = static_cast<int32_t>(r);
                std::memcpy(p, &x, 4);
            } else {
                int16_t x = static_cast<int16_t>(r);
                std::memcpy(p, &x, 2);
            }
            break;
        }
        default: unmodelled("a vconv to this element type");
    }
}
}  // namespace

void convert(const char* name, Dt to, Dt from, char mode, void* dst, const void* src,
             uint64_t repeat, const Strides& st) {
    Core& c = core();
    size_t ds = size_of(to), ss = size_of(from);
    uint64_t per_repeat = 256 / std::max(ds, ss);
    uint64_t repeats = c.repeats(repeat, per_repeat);
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    std::vector<Range> reads, writes;
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t i = 0; i < per_repeat; ++i) {
            if (!c.lane_on(r, i, per_repeat)) continue;
            // an operand's element i: block i / (32 / size), at its block stride
            const uint8_t* in = s + (r * st.repeat[1] + i / (32 / ss) * st.block[1]) * 32 +
                                i % (32 / ss) * ss;
            uint8_t* out = d + (r * st.repeat[0] + i / (32 / ds) * st.block[0]) * 32 +
                           i % (32 / ds) * ds;
            store(to, mode, out, load(from, in));
            reads.push_back(span(in, ss));
            writes.push_back(span(out, ds));
        }
    }
    issue(PIPE_V, name, merged(reads), merged(writes));
}

void set_mask(uint64_t high, uint64_t low) {
    core().mask_high = high;
    core().mask_low = low;
}

uint64_t control() { return core().ctrl; }

void set_control(uint64_t value) { core().ctrl = value; }

void set_pad_value(uint64_t bits) { core().pad_value = bits; }

void atomic_mode(int op, Dt type) {
    // set_atomic_<type> picks the element type the accumulation reads GM as (the 950's
    // copies move bytes); before one, the copies' operands give it
    Core& c = core();
    if (op != -2) {
        c.atomic_op = op;
        return;
    }
    c.atomic_type = type;
    c.atomic_typed = true;
}

void copy_gm_ub(Dt type, void* dst, const void* src, uint64_t n, uint64_t len, uint64_t left,
                uint64_t right, uint64_t src_gap, uint64_t dst_gap) {
    size_t es = size_of(type);
    uint64_t row = (left * es + len + right * es + 31) / 32 * 32;
    std::vector<Range> reads, writes;
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    Core& c = core();
    for (uint64_t i = 0; i < n; ++i) {
        uint8_t* out = d + i * (row + dst_gap * 32);
        const uint8_t* in = s + i * (len + src_gap);
        for (uint64_t k = 0; k < left; ++k) std::memcpy(out + k * es, &c.pad_value, es);
        std::memcpy(out + left * es, in, len);
        for (uint64_t k = 0; k < right; ++k) std::memcpy(out + left * es + len + k * es, &c.pad_value, es);
        reads.push_back(span(in, len));
        writes.push_back(span(out, left * es + len + right * es));
    }
    issue(PIPE_MTE2, "copy_gm_to_ubuf", merged(reads), merged(writes));
}

void copy_ub_gm(Dt type, void* dst, const void* src, uint64_t n, uint64_t len, uint64_t src_gap,
                uint64_t dst_gap) {
    uint64_t row = (len + 31) / 32 * 32;
    std::vector<Range> reads, writes;
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* in = s + i * (row + src_gap * 32);
        uint8_t* out = d + i * (len + dst_gap);
        write_gm(type, out, in, len);
        reads.push_back(span(in, len));
        writes.push_back(span(out, len));
    }
    issue(PIPE_MTE3, "copy_ubuf_to_gm", merged(reads), merged(writes));
}

void copy_blocks(int pipe, const char* name, void* dst, const void* src, uint64_t n,
                 uint64_t len, uint64_t src_gap, uint64_t dst_gap) {
    std::vector<Range> reads, writes;
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    bool gm = std::strcmp(name, "copy_ubuf_to_gm") == 0;
    for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* in = s + i * (len + src_gap) * 32;
        uint8_t* out = d + i * (len + dst_gap) * 32;
        if (gm) write_gm(Dt::u8, out, in, len * 32);
        else std::memmove(out, in, len * 32);
        reads.push_back(span(in, len * 32));
        writes.push_back(span(out, len * 32));
    }
    issue(pipe, name, merged(reads), merged(writes));
}

void vector(const char* name, Op op, Dt type, void* dst, const void* src0, const void* src1, double scalar,
            uint64_t repeat, const Strides& strides) {
    std::vector<Range> reads, writes;
    auto* d = static_cast<uint8_t*>(dst);
    auto* a = static_cast<const uint8_t*>(src0);
    auto* b = static_cast<const uint8_t*>(src1);
    switch (type) {
        case Dt::f32: run_vector<float>(op, d, a, b, scalar, repeat, strides, reads, writes); break;
        case Dt::f16: run_vector<half>(op, d, a, b, scalar, repeat, strides, reads, writes); break;
        case Dt::s32: run_vector<int32_t>(op, d, a, b, scalar, repeat, strides, reads, writes); break;
        case Dt::u32: run_vector<uint32_t>(op, d, a, b, scalar, repeat, strides, reads, writes); break;
        case Dt::s16: run_vector<int16_t>(op, d, a, b, scalar, repeat, strides, reads, writes); break;
        case Dt::u16: run_vector<uint16_t>(op, d, a, b, scalar, repeat, strides, reads, writes); break;
        case Dt::bf16: run_vector<bfloat16_t>(op, d, a, b, scalar, repeat, strides, reads, writes); break;
        default: unmodelled("a vector operation on this element type");
    }
    issue(PIPE_V, name, merged(reads), merged(writes));
}

}  // namespace tilec_model
