// The 950's (__NPU_ARCH__ 3510) register-level vector unit (written here), as the class
// API's arch-3510 implementation uses it (impl/basic_api/reg_compute/dav_3510/): a
// vector call is a loop of register loads (vlds), register operations under a predicate
// (the mask register) and register stores (vsts), e.g. BinaryContinuousImplTemplate in
// impl/basic_api/dav_3510/kernel_operator_vec_binary_continuous_impl.h:
//     mask = plt_b32(count, POST_UPDATE); vlds(a, src0 + i * VL); vlds(b, src1 + i * VL);
//     vadd(d, a, b, mask, ZEROING); vsts(d, dst + i * VL, mask)
// - a register is VL = 256 bytes; a predicate one bit per byte (element i of an N-byte
//   type active when bit i * N is set); plt_bN(n) activates the first min(n, VL / N)
//   elements and takes them off n; pset_bN(pattern) the MaskPattern's (ALL, VLk: the first
//   k, H / Q: the first half / quarter, ALLF none);
// - an operation writes its active elements, and zeroes (ZEROING) or keeps (MERGING) the
//   others;
// - vlds / vsts touch UB: they issue on PIPE_V and are checked for hazards like the 910b's
//   vector instructions (V after V is ordered in hardware on the 950, runtime.cpp);
//   register operations touch no memory.
#include <cmath>
#include <cstring>
#include <limits>

#include "core.h"
#include "tilec_model_3510.h"

namespace tilec_model {

namespace {
bool active(const uint8_t* pred, size_t element, size_t bytes) {
    size_t bit = element * bytes;
    return (pred[bit / 8] >> (bit % 8)) & 1;
}

void activate_first(uint8_t* pred, size_t bytes, size_t count) {
    std::memset(pred, 0, kVectorBytes / 8);
    for (size_t b = 0; b < count * bytes && b < static_cast<size_t>(kVectorBytes); ++b)
        pred[b / 8] |= static_cast<uint8_t>(1u << (b % 8));
}

double read_value(Dt t, const uint8_t* p) {
    switch (t) {
        case Dt::f32: { float v; std::memcpy(&v, p, 4); return v; }
        case Dt::f16: { half v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
        case Dt::bf16: { bfloat16_t v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
        case Dt::s32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case Dt::u32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
        case Dt::s16: { int16_t v; std::memcpy(&v, p, 2); return v; }
        case Dt::u16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
        case Dt::s8: return static_cast<int8_t>(*p);
        case Dt::u8: return *p;
        default: unmodelled("a register element of this type");
    }
}

template <class T>
void compute(Op op, uint8_t* dst, const uint8_t* a, const uint8_t* b, double s,
             const uint8_t* pred, int mode) {
    constexpr size_t n = kVectorBytes / sizeof(T);
    T out[n];
    std::memcpy(out, dst, kVectorBytes);
    for (size_t i = 0; i < n; ++i) {
        if (!active(pred, i, sizeof(T))) {
            if (mode != kMerging) out[i] = T(0);
            continue;
        }
        T x{}, y{};
        if (a) std::memcpy(&x, a + i * sizeof(T), sizeof(T));
        if (b) std::memcpy(&y, b + i * sizeof(T), sizeof(T));
        out[i] = apply_op<T>(op, x, b == nullptr && a != nullptr ? static_cast<T>(s) : y, s);
    }
    std::memcpy(dst, out, kVectorBytes);
}
}  // namespace

void predicate_count(uint8_t* pred, int element_bytes, uint32_t& n, bool update) {
    uint32_t lanes = kVectorBytes / element_bytes, count = n < lanes ? n : lanes;
    activate_first(pred, element_bytes, count);
    if (update) n -= count;
}

void predicate_pattern(uint8_t* pred, int element_bytes, int pattern) {
    // MaskPattern { ALL, VL1, VL2, VL3, VL4, VL8, VL16, VL32, VL64, VL128, M3, M4, H, Q,
    // ALLF = 15 } (kernel_reg_compute_utils.h)
    static const int first[] = {-1, 1, 2, 3, 4, 8, 16, 32, 64, 128};
    size_t lanes = kVectorBytes / element_bytes;
    if (pattern == 0) activate_first(pred, element_bytes, lanes);
    else if (pattern >= 1 && pattern <= 9) activate_first(pred, element_bytes, first[pattern]);
    else if (pattern == 12) activate_first(pred, element_bytes, lanes / 2);
    else if (pattern == 13) activate_first(pred, element_bytes, lanes / 4);
    else if (pattern == 15) activate_first(pred, element_bytes, 0);
    else unmodelled("pset with a multiple-of pattern (M3, M4)");
}

void reg_load(Dt type, void* reg, const void* src, int dist) {
    // LoadDist (kernel_reg_compute_utils.h): 0 DIST_NORM (VL bytes); 1-3 DIST_BRC_B8/16/32
    // (one element into every lane); 13, 14, 18 DIST_UNPACK_B8/16/32 (VL / 2 bytes, element
    // i into the low half of lane i of twice its width, as Cast's widening loads read them);
    // 16, 17 DIST_E2B_B16/32 (8 elements, each into every lane of a 32-byte block: Brcb)
    (void)type;
    auto* out = static_cast<uint8_t*>(reg);
    auto* in = static_cast<const uint8_t*>(src);
    size_t bytes = kVectorBytes;
    if (dist == 0) {
        std::memcpy(out, in, kVectorBytes);
    } else if (dist >= 1 && dist <= 3) {
        size_t es = size_t(1) << (dist - 1);
        for (size_t i = 0; i < kVectorBytes; i += es) std::memcpy(out + i, in, es);
        bytes = es;
    } else if (dist == 13 || dist == 14 || dist == 18) {
        size_t es = dist == 13 ? 1 : dist == 14 ? 2 : 4;
        bytes = kVectorBytes / 2;
        std::memset(out, 0, kVectorBytes);
        for (size_t i = 0; i < bytes / es; ++i) std::memcpy(out + 2 * es * i, in + es * i, es);
    } else if (dist == 16 || dist == 17) {
        size_t es = dist == 16 ? 2 : 4;
        bytes = 8 * es;
        for (size_t i = 0; i < kVectorBytes / es; ++i) std::memcpy(out + i * es, in + (i * es / 32) * es, es);
    } else {
        unmodelled("vlds with this distribution (LoadDist)");
    }
    issue(PIPE_V, "vlds", {span(in, bytes)}, {});
}

void reg_store(Dt type, const void* reg, void* dst, int dist, const uint8_t* pred) {
    // StoreDist: 0-2 DIST_NORM_B8/16/32 (the active elements, in place); 6, 7, 10
    // DIST_PACK_B16/32/64 (the low half of each active lane, packed: Cast's narrowing stores)
    (void)type;
    size_t lane = 0, es = 0;
    if (dist >= 0 && dist <= 2) lane = es = size_t(1) << dist;
    else if (dist == 6 || dist == 7 || dist == 10) lane = dist == 6 ? 2 : dist == 7 ? 4 : 8, es = lane / 2;
    else unmodelled("vsts with this distribution (StoreDist)");
    auto* in = static_cast<const uint8_t*>(reg);
    auto* out = static_cast<uint8_t*>(dst);
    std::vector<Range> writes;
    for (size_t i = 0; i < kVectorBytes / lane; ++i) {
        if (!active(pred, i, lane)) continue;
        std::memcpy(out + i * es, in + i * lane, es);
        writes.push_back(span(out + i * es, es));
    }
    issue(PIPE_V, "vsts", {}, merged(writes));
}

namespace {
/// `v` as a 16-bit float F, rounded as `round` says (ROUND: 0 to nearest even, 1 half away
/// from zero, 2 down, 3 up, 4 toward zero, 5 to odd), saturating to the largest finite
/// value when `sat`.
template <class F>
F narrow(double v, int round, bool sat) {
    F nearest = F(static_cast<float>(v));  // float first: exact for a 16-bit target
    uint16_t bits;
    std::memcpy(&bits, &nearest, 2);
    double n = static_cast<float>(nearest);
    auto step = [&](bool away) {  // the next value away from / toward zero
        uint16_t b = bits;
        if ((b & 0x7fff) == 0 && !away) return nearest;
        b = away ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b - 1);
        F out;
        std::memcpy(&out, &b, 2);
        return out;
    };
    F out = nearest;
    if (!std::isnan(v) && n != v && round != 0) {
        bool above = std::fabs(n) > std::fabs(v);  // nearest is farther from zero than v
        bool negative = v < 0;
        switch (round) {
            case 1: {  // half away from zero: the nearest, but ties go away
                F other = step(!above);
                double o = static_cast<float>(other);
                if (std::fabs(o - v) == std::fabs(n - v)) out = std::fabs(o) > std::fabs(n) ? other : nearest;
                break;
            }
            case 2: out = (n > v) ? step(!negative ? false : true) : nearest; break;
            case 3: out = (n < v) ? step(!negative ? true : false) : nearest; break;
            case 4: out = above ? step(false) : nearest; break;
            case 5: out = (bits & 1) ? nearest : step(!above); break;
            default: unmodelled("vcvt with the hybrid rounding");
        }
    }
    if (sat && std::isinf(static_cast<float>(out)) && !std::isinf(v)) {
        uint16_t largest = std::is_same_v<F, half> ? 0x7bff : 0x7f7f;
        largest |= static_cast<uint16_t>(bits & 0x8000);
        std::memcpy(&out, &largest, 2);
    }
    return out;
}

void write_lane(Dt t, uint8_t* p, double v, int round, bool sat) {
    switch (t) {
        case Dt::f32: {
            if (round != 0 && static_cast<double>(static_cast<float>(v)) != v)
                unmodelled("a vcvt to f32 that rounds other than to nearest");
            float x = static_cast<float>(v);
            std::memcpy(p, &x, 4);
            break;
        }
        case Dt::f16: { half x = narrow<half>(v, round, sat); std::memcpy(p, &x, 2); break; }
        case Dt::bf16: { bfloat16_t x = narrow<bfloat16_t>(v, round, sat); std::memcpy(p, &x, 2); break; }
        default: unmodelled("a vcvt to this element type");
    }
}
}  // namespace

void reg_convert(Dt to, Dt from, void* dst, const void* src, const uint8_t* pred, int round,
                 bool sat, int part, int mode) {
    size_t ts = size_of(to), fs = size_of(from), lane = ts > fs ? ts : fs;
    size_t ratio = ts > fs ? ts / fs : fs / ts;
    auto* out = static_cast<uint8_t*>(dst);
    auto* in = static_cast<const uint8_t*>(src);
    uint8_t result[kVectorBytes];
    std::memcpy(result, out, kVectorBytes);
    for (size_t i = 0; i < kVectorBytes / lane; ++i) {
        // widening reads element i * ratio + part of the source; narrowing writes it
        size_t s = ts > fs ? i * ratio + part : i, d = ts > fs ? i : i * ratio + part;
        if (!active(pred, i, lane)) {
            if (mode != kMerging) std::memset(result + i * lane, 0, lane);
            continue;
        }
        if (ts < fs) std::memset(result + i * lane, 0, lane);
        write_lane(to, result + d * ts, read_value(from, in + s * fs), round, sat);
    }
    std::memcpy(out, result, kVectorBytes);
}

void reg_store_first(Dt type, const void* reg, void* dst, uint32_t count) {
    size_t bytes = static_cast<size_t>(count) * size_of(type);
    if (bytes > static_cast<size_t>(kVectorBytes)) unmodelled("vstus of more than a register");
    std::memcpy(dst, reg, bytes);
    issue(PIPE_V, "vstus", {}, {span(dst, bytes)});
}

void predicate_store(const uint8_t* pred, int element_bytes, void* dst) {
    size_t n = kVectorBytes / element_bytes;
    uint8_t out[kVectorBytes / 8] = {};
    for (size_t i = 0; i < n; ++i)
        if (active(pred, i, element_bytes)) out[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    std::memcpy(dst, out, n / 8);
    issue(PIPE_V, "pstu", {}, {span(dst, n / 8)});
}

void reg_store_blocks(Dt type, const void* reg, void* dst, uint32_t block_stride,
                      const uint8_t* pred) {
    size_t es = size_of(type);
    auto* in = static_cast<const uint8_t*>(reg);
    auto* out = static_cast<uint8_t*>(dst);
    std::vector<Range> writes;
    for (size_t i = 0; i < kVectorBytes / es; ++i) {
        if (!active(pred, i, es)) continue;
        uint8_t* at = out + (i * es / 32) * block_stride * 32 + (i * es) % 32;
        std::memcpy(at, in + i * es, es);
        writes.push_back(span(at, es));
    }
    issue(PIPE_V, "vsstb", {}, merged(writes));
}

void reg_load_blocks(Dt type, void* reg, const void* src, uint32_t block_stride,
                     const uint8_t* pred) {
    size_t es = size_of(type);
    auto* out = static_cast<uint8_t*>(reg);
    auto* in = static_cast<const uint8_t*>(src);
    std::vector<Range> reads;
    std::memset(out, 0, kVectorBytes);
    for (size_t i = 0; i < kVectorBytes / es; ++i) {
        if (!active(pred, i, es)) continue;
        const uint8_t* at = in + (i * es / 32) * block_stride * 32 + (i * es) % 32;
        std::memcpy(out + i * es, at, es);
        reads.push_back(span(at, es));
    }
    issue(PIPE_V, "vsldb", merged(reads), {});
}

namespace {
bool bit(const uint8_t* bits, size_t i) { return (bits[i / 8] >> (i % 8)) & 1; }
void set_bit(uint8_t* bits, size_t i) { bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8)); }
constexpr size_t kPredicateBits = kVectorBytes;
}  // namespace

void predicate_load(uint8_t* pred, const void* src, int dist) {
    auto* in = static_cast<const uint8_t*>(src);
    uint8_t out[kPredicateBits / 8] = {};
    size_t bytes = dist == 0 ? kPredicateBits / 8 : dist == 1 ? kPredicateBits / 16
                                                               : kPredicateBits / 4;
    if (dist < 0 || dist > 2) unmodelled("plds with this distribution (MaskDist)");
    for (size_t i = 0; i < kPredicateBits; ++i) {
        size_t from = dist == 0 ? i : dist == 1 ? i / 2 : 2 * i;
        if (bit(in, from)) set_bit(out, i);
    }
    std::memcpy(pred, out, sizeof(out));
    issue(PIPE_V, "plds", {span(in, bytes)}, {});
}

void predicate_unpack(uint8_t* dst, const uint8_t* src, int part) {
    uint8_t out[kPredicateBits / 8] = {};
    for (size_t i = 0; i < kPredicateBits; ++i)
        if (bit(src, part * kPredicateBits / 2 + i / 2)) set_bit(out, i);
    std::memcpy(dst, out, sizeof(out));
}

void predicate_pack(uint8_t* dst, const uint8_t* src, int part) {
    uint8_t out[kPredicateBits / 8] = {};
    for (size_t i = 0; i < kPredicateBits / 2; ++i)
        if (bit(src, 2 * i)) set_bit(out, part * kPredicateBits / 2 + i);
    std::memcpy(dst, out, sizeof(out));
}

void predicate_interleave(uint8_t* d0, uint8_t* d1, const uint8_t* a, const uint8_t* b,
                          int element_bytes, bool split) {
    size_t n = kVectorBytes / element_bytes;
    std::vector<bool> in(2 * n), out(2 * n);
    for (size_t i = 0; i < n; ++i) {
        in[i] = active(a, i, element_bytes);
        in[n + i] = active(b, i, element_bytes);
    }
    for (size_t i = 0; i < n; ++i) {
        if (split) {
            out[i] = in[2 * i];
            out[n + i] = in[2 * i + 1];
        } else {
            out[2 * i] = in[i];
            out[2 * i + 1] = in[n + i];
        }
    }
    uint8_t first[kPredicateBits / 8] = {}, second[kPredicateBits / 8] = {};
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < element_bytes; ++k) {
            if (out[i]) set_bit(first, i * element_bytes + k);
            if (out[n + i]) set_bit(second, i * element_bytes + k);
        }
    std::memcpy(d0, first, sizeof(first));
    std::memcpy(d1, second, sizeof(second));
}

void reg_select(Dt type, void* dst, const void* a, const void* b, const uint8_t* pred) {
    size_t es = size_of(type);
    uint8_t out[kVectorBytes];
    for (size_t i = 0; i < kVectorBytes / es; ++i)
        std::memcpy(out + i * es, static_cast<const uint8_t*>(active(pred, i, es) ? a : b) + i * es, es);
    std::memcpy(dst, out, kVectorBytes);
}

void reg_compare(int compare, Dt type, uint8_t* dst, const void* a, const void* b,
                 double scalar, const uint8_t* pred) {
    size_t es = size_of(type);
    uint8_t out[kVectorBytes / 8] = {};
    for (size_t i = 0; i < kVectorBytes / es; ++i) {
        if (!active(pred, i, es)) continue;
        double x = read_value(type, static_cast<const uint8_t*>(a) + i * es);
        double y = b ? read_value(type, static_cast<const uint8_t*>(b) + i * es) : scalar;
        bool holds = compare == 0 ? x == y : compare == 1 ? x != y : compare == 2 ? x > y
                   : compare == 3 ? x >= y : compare == 4 ? x < y : x <= y;
        if (!holds) continue;
        for (size_t bit = i * es; bit < (i + 1) * es; ++bit)
            out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
    std::memcpy(dst, out, sizeof(out));
}

namespace {
/// The active elements of each group of `group` lanes reduced pairwise (lanes 2k and 2k + 1,
/// then their results ...), the order a tree of adders takes; inactive lanes take no part.
/// Group g's result goes to element g, the rest zero; a group with no active lane gives
/// `empty` (`fill`: the identity of `op`, ReduceDataBlock.md's defaults on the 950: 0 for
/// sums, -inf / inf, or the type's extremes, for max / min; else zero).
template <class T>
void reduce(Op op, uint8_t* dst, const uint8_t* src, const uint8_t* pred, size_t group, bool fill) {
    constexpr size_t n = kVectorBytes / sizeof(T);
    T values[n];
    bool present[n];
    for (size_t i = 0; i < n; ++i) {
        std::memcpy(&values[i], src + i * sizeof(T), sizeof(T));
        present[i] = active(pred, i, sizeof(T));
    }
    T out[n] = {};
    for (size_t g = 0; g < n / group; ++g) {
        T* v = values + g * group;
        bool* p = present + g * group;
        for (size_t width = 1; width < group; width *= 2) {
            for (size_t i = 0; i + width < group; i += 2 * width) {
                if (p[i] && p[i + width]) v[i] = apply_op<T>(op, v[i], v[i + width], 0);
                else if (p[i + width]) v[i] = v[i + width];
                p[i] = p[i] || p[i + width];
            }
        }
        if (p[0]) {
            out[g] = v[0];
        } else if (fill && op != Op::add) {
            constexpr bool ints = std::numeric_limits<T>::is_integer;
            float extreme = std::numeric_limits<float>::infinity();
            if constexpr (ints) out[g] = op == Op::max ? std::numeric_limits<T>::lowest()
                                                       : std::numeric_limits<T>::max();
            else out[g] = static_cast<T>(op == Op::max ? -extreme : extreme);
        }
    }
    std::memcpy(dst, out, kVectorBytes);
}

void group_reduce(Op op, Dt type, void* dst, const void* src, const uint8_t* pred, int group,
                  bool fill) {
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    size_t es = size_of(type);
    size_t g = group > 0 ? static_cast<size_t>(group) : group == 0 ? 32 / es : kVectorBytes / es;
    switch (type) {
        case Dt::f32: reduce<float>(op, d, s, pred, g, fill); break;
        case Dt::f16: reduce<half>(op, d, s, pred, g, fill); break;
        case Dt::s32: reduce<int32_t>(op, d, s, pred, g, fill); break;
        case Dt::u32: reduce<uint32_t>(op, d, s, pred, g, fill); break;
        case Dt::s16: reduce<int16_t>(op, d, s, pred, g, fill); break;
        case Dt::u16: reduce<uint16_t>(op, d, s, pred, g, fill); break;
        default: unmodelled("a register reduction of this element type");
    }
}
}  // namespace

void predicate_from_mask(uint8_t* pred, int element_bytes) {
    Core& c = core();
    std::memset(pred, 0, kVectorBytes / 8);
    for (size_t i = 0; i < kVectorBytes / static_cast<size_t>(element_bytes) && i < 128; ++i) {
        uint64_t word = i < 64 ? c.mask_low : c.mask_high;
        if (!((word >> (i % 64)) & 1)) continue;
        for (size_t bit = i * element_bytes; bit < (i + 1) * element_bytes; ++bit)
            pred[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
}

void reg_reduce(const char*, Op op, Dt type, void* dst, const void* src, const uint8_t* pred) {
    group_reduce(op, type, dst, src, pred, -1, false);
}

void reg_group_reduce(const char*, Op op, Dt type, void* dst, const void* src,
                      const uint8_t* pred, bool pairs) {
    group_reduce(op, type, dst, src, pred, pairs ? 2 : 0, !pairs);
}

void reg_compute(const char*, Op op, Dt type, void* dst, const void* a, const void* b,
                 double scalar, const uint8_t* pred, int mode) {
    auto* d = static_cast<uint8_t*>(dst);
    auto* x = static_cast<const uint8_t*>(a);
    auto* y = static_cast<const uint8_t*>(b);
    switch (type) {
        case Dt::f32: compute<float>(op, d, x, y, scalar, pred, mode); break;
        case Dt::f16: compute<half>(op, d, x, y, scalar, pred, mode); break;
        case Dt::bf16: compute<bfloat16_t>(op, d, x, y, scalar, pred, mode); break;
        case Dt::s32: compute<int32_t>(op, d, x, y, scalar, pred, mode); break;
        case Dt::u32: compute<uint32_t>(op, d, x, y, scalar, pred, mode); break;
        case Dt::s16: compute<int16_t>(op, d, x, y, scalar, pred, mode); break;
        case Dt::u16: compute<uint16_t>(op, d, x, y, scalar, pred, mode); break;
        case Dt::s8: compute<int8_t>(op, d, x, y, scalar, pred, mode); break;
        case Dt::u8: compute<uint8_t>(op, d, x, y, scalar, pred, mode); break;
        default: unmodelled("a register operation on this element type");
    }
}

}  // namespace tilec_model
