// The 950's (__NPU_ARCH__ 3510) intrinsics as the asc-devkit headers call them in CPU-debug
// mode (written here; the semantics are in ../model/regvector_3510.cpp): the bisheng
// compiler's vector register, predicate and mode types, and the register-level intrinsics
// the class API's arch-3510 implementation (impl/basic_api/dav_3510/,
// impl/basic_api/reg_compute/dav_3510/) runs its vector calls with. Included after
// tilec_intrinsics.h, whose 910b intrinsics the 950 shares (flags, barriers, GM <-> UB with
// 32-byte blocks); a name both declare takes the 950's forms here as further overloads.
#ifndef TILEC_INTRINSICS_3510_H
#define TILEC_INTRINSICS_3510_H
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "tilec_model_3510.h"

namespace tilec_model {
template <class E> struct VReg { using Element = E; E e[kVectorBytes / sizeof(E)]; };
struct PReg { uint8_t bits[kVectorBytes / 8]; };
struct AReg { uint32_t offset; };
struct UReg { uint8_t bytes[32]; };
}  // namespace tilec_model
#define TILEC_VREG(name, e) struct name : tilec_model::VReg<e> {};
TILEC_VREG(vector_bf16, bfloat16_t) TILEC_VREG(vector_f16, half) TILEC_VREG(vector_f32, float)
TILEC_VREG(vector_f4e1m2x2, uint8_t) TILEC_VREG(vector_f4e2m1x2, uint8_t)
TILEC_VREG(vector_f8e4m3, uint8_t) TILEC_VREG(vector_f8e5m2, uint8_t) TILEC_VREG(vector_f8e8m0, uint8_t)
TILEC_VREG(vector_hif8, uint8_t) TILEC_VREG(vector_s16, int16_t) TILEC_VREG(vector_s32, int32_t)
TILEC_VREG(vector_s4x2, uint8_t) TILEC_VREG(vector_s64, int64_t) TILEC_VREG(vector_s8, int8_t)
TILEC_VREG(vector_u16, uint16_t) TILEC_VREG(vector_u32, uint32_t) TILEC_VREG(vector_u64, uint64_t)
TILEC_VREG(vector_u8, uint8_t)
#undef TILEC_VREG
struct vector_bool : tilec_model::PReg {};
struct vector_address : tilec_model::AReg {};
struct vector_align : tilec_model::UReg {};
struct vector_load_unalign : tilec_model::UReg {};
struct vector_store_unalign : tilec_model::UReg {};
// The bisheng compiler's mode enums: the class API casts its own enums to them
// (include/basic_api/reg_compute/kernel_reg_compute_utils.h numbers those), so the bare
// constants its code passes take the same numbers.
enum Spr : int {};
enum Pat : int { PAT_ALL = 0, PAT_ALLF = 15 };                      // MaskPattern
enum HiloPart : int { LOWER = 0, HIGHER = 1 };                      // HighLowPart
enum CpuMode : int { MODE_MERGING = 1, MODE_ZEROING = 2 };          // MaskMergeMode
enum Mode : int {};
enum Dist : int {};                                                 // LoadDist
enum DistVST : int {};                                              // StoreDist
enum Post : int { POST_UPDATE = 1 };                                // PostLiteral
// kernel_reg_compute_common_impl.h GetRound names these in CPU-debug mode
enum ROUND : int { CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD,
                   CAST_HYBRID, ROUND_R = CAST_RINT, ROUND_Z = CAST_TRUNC };
enum RoundingSaturation : int { RS_DISABLE = 0, RS_ENABLE = 1 };    // SatMode
enum Part : int { PART_EVEN = 0, PART_ODD = 1 };                    // RegLayout
enum Part_T : int {};
enum Pos : int {};
enum Bin : int {};
enum Order : int {};
enum StoreMode : int {};
enum class QuantMode_post { NoConv };
namespace bfloat16 {  // the scalar conversions the headers' Print of fp4 tensors call
template <class T> bfloat16_t Bf16T(T v) { return bfloat16_t(static_cast<float>(v)); }
}
#define __VEC_SCOPE__  // a vector function's region: its body runs as written

namespace tilec_model {
template <class R, class = void> struct HasRegs : std::false_type {};
template <class R> struct HasRegs<R, std::void_t<decltype(std::declval<R&>().reg[0])>>
    : std::true_type {};
/// The register a RegTensor (its first) or a vector_* names.
template <class R> auto& vreg(R& r) {
    if constexpr (HasRegs<R>::value) return r.reg[0];
    else return r;
}
/// A scalar operand: a number, or the half / bfloat16_t classes (Sqrt's subnormal bound).
template <class S, class D = std::decay_t<S>>
constexpr bool is_scalar = std::is_arithmetic_v<D> || std::is_same_v<D, half> ||
                           std::is_same_v<D, bfloat16_t>;
template <class R> using Element = typename std::decay_t<decltype(vreg(std::declval<R&>()))>::Element;
template <class R> constexpr Dt reg_type() { return dtype<Element<R>>(); }
/// A mode argument: a bare constant (MODE_ZEROING) or an integral_constant of one.
template <class M> constexpr int value_of(M m) {
    if constexpr (std::is_enum_v<M> || std::is_integral_v<M>) return static_cast<int>(m);
    else return static_cast<int>(M::value);
}
}  // namespace tilec_model

// -- predicates (kernel_reg_compute_maskreg_impl.h: UpdateMask is plt_bN(n, POST_UPDATE),
// CreateMask pset_bN(pattern)) -----------------------------------------------------------
#define TILEC_PLT(name, bytes)                                                               \
    inline vector_bool name(uint32_t& n, Post post) {                                        \
        vector_bool p;                                                                       \
        tilec_model::predicate_count(p.bits, bytes, n, post == POST_UPDATE);                 \
        return p;                                                                            \
    }
TILEC_PLT(plt_b8, 1) TILEC_PLT(plt_b16, 2) TILEC_PLT(plt_b32, 4)
#undef TILEC_PLT
/// movp_bN (MoveMask, kernel_reg_compute_maskreg_impl.h): the vector mask register
/// (set_vector_mask) as a predicate: element i active when bit i of the 128-bit mask is.
#define TILEC_MOVP(name, bytes)                                                              \
    inline vector_bool name() {                                                              \
        vector_bool p;                                                                       \
        tilec_model::predicate_from_mask(p.bits, bytes);                                     \
        return p;                                                                            \
    }
TILEC_MOVP(movp_b16, 2) TILEC_MOVP(movp_b32, 4)
#undef TILEC_MOVP
#define TILEC_PSET(name, bytes)                                                              \
    template <class P> inline vector_bool name(P pattern) {                                  \
        vector_bool p;                                                                       \
        tilec_model::predicate_pattern(p.bits, bytes, tilec_model::value_of(pattern));       \
        return p;                                                                            \
    }
TILEC_PSET(pset_b8, 1) TILEC_PSET(pset_b16, 2) TILEC_PSET(pset_b32, 4)
#undef TILEC_PSET

// -- UB <-> register (kernel_reg_compute_datacopy_load_impl.h / _store_impl.h: LoadAlign is
// vlds(reg, addr, offset, dist), StoreAlign vsts(reg, addr, offset, dist, mask); offsets in
// elements) ---------------------------------------------------------------------------------
template <class R, class T, class O, class D>
inline std::enable_if_t<std::is_integral_v<O>> vlds(R& dst, T* src, O offset, D dist) {
    tilec_model::reg_load(tilec_model::reg_type<R>(), &tilec_model::vreg(dst), src + offset,
                          tilec_model::value_of(dist));
}
/// the post-updated forms: the address, then `stride` elements added to it (POST_UPDATE)
template <class R, class T, class O, class D, class P>
inline std::enable_if_t<std::is_integral_v<O>> vlds(R& dst, T*& src, O stride, D dist, P post) {
    tilec_model::reg_load(tilec_model::reg_type<R>(), &tilec_model::vreg(dst), src,
                          tilec_model::value_of(dist));
    if (tilec_model::value_of(post) == POST_UPDATE) src += stride;
}
template <class R, class T, class O, class D>
inline std::enable_if_t<std::is_integral_v<O>> vsts(R& src, T* dst, O offset, D dist,
                                                    vector_bool& mask) {
    tilec_model::reg_store(tilec_model::reg_type<R>(), &tilec_model::vreg(src), dst + offset,
                           tilec_model::value_of(dist), mask.bits);
}
template <class R, class T, class O, class D, class P>
inline std::enable_if_t<std::is_integral_v<O>> vsts(R& src, T*& dst, O stride, D dist,
                                                    vector_bool& mask, P post) {
    tilec_model::reg_store(tilec_model::reg_type<R>(), &tilec_model::vreg(src), dst,
                           tilec_model::value_of(dist), mask.bits);
    if (tilec_model::value_of(post) == POST_UPDATE) dst += stride;
}
/// StoreUnAlign / StoreUnAlignPost (kernel_reg_compute_datacopy_store_impl.h): vstus stores
/// the first `count` elements at the (unaligned) address through the unaligned register,
/// vstas flushes what it holds; the model stores at vstus, so vstas has nothing left.
template <class R, class C, class T, class P>
inline std::enable_if_t<std::is_integral_v<C>> vstus(vector_align&, C count, R& src, T*& dst,
                                                     P post) {
    tilec_model::reg_store_first(tilec_model::reg_type<R>(), &tilec_model::vreg(src), dst,
                                 static_cast<uint32_t>(count));
    if (tilec_model::value_of(post) == POST_UPDATE) dst += count;
}
/// pstu (Compare's StoreUnAlign of a MaskReg, kernel_reg_compute_datacopy_impl.h): one bit
/// per element of T (bit i element i), VL / sizeof(T) / 8 bytes, the address past them.
template <class T>
inline void pstu(vector_align&, vector_bool& mask, T*& dst) {
    tilec_model::predicate_store(mask.bits, sizeof(T), dst);
    dst += tilec_model::kVectorBytes / sizeof(T) / 8 / sizeof(T);
}
/// vsstb (StoreAlign's DATA_BLOCK_COPY, kernel_reg_compute_datacopy_store_impl.h): block b of
/// the register (32 B) to dst + b * blockStride blocks, config = blockStride << 16 |
/// repeatStride; the post-updated form then moves dst repeatStride blocks.
template <class R, class T, class C>
inline std::enable_if_t<std::is_integral_v<C>> vsstb(R& src, T* dst, C config, vector_bool& mask) {
    tilec_model::reg_store_blocks(tilec_model::reg_type<R>(), &tilec_model::vreg(src), dst,
                                  static_cast<uint32_t>(config) >> 16, mask.bits);
}
template <class R, class T, class C, class P>
inline std::enable_if_t<std::is_integral_v<C>> vsstb(R& src, T*& dst, C config, vector_bool& mask,
                                                     P post) {
    tilec_model::reg_store_blocks(tilec_model::reg_type<R>(), &tilec_model::vreg(src), dst,
                                  static_cast<uint32_t>(config) >> 16, mask.bits);
    if (tilec_model::value_of(post) == POST_UPDATE)
        dst += (static_cast<uint32_t>(config) & 0xffffu) * 32 / sizeof(T);
}
/// vsldb (LoadAlign's DATA_BLOCK_COPY): block b of the register from src + b * blockStride
/// blocks (config = blockStride << 16 | repeatStride), the active elements; the rest zero;
/// the post-updated form then moves src repeatStride blocks.
template <class R, class T, class C>
inline std::enable_if_t<std::is_integral_v<C>> vsldb(R& dst, T* src, C config, vector_bool& mask) {
    tilec_model::reg_load_blocks(tilec_model::reg_type<R>(), &tilec_model::vreg(dst), src,
                                 static_cast<uint32_t>(config) >> 16, mask.bits);
}
template <class R, class T, class C, class P>
inline std::enable_if_t<std::is_integral_v<C>> vsldb(R& dst, T*& src, C config, vector_bool& mask,
                                                     P post) {
    tilec_model::reg_load_blocks(tilec_model::reg_type<R>(), &tilec_model::vreg(dst), src,
                                 static_cast<uint32_t>(config) >> 16, mask.bits);
    if (tilec_model::value_of(post) == POST_UPDATE)
        src += (static_cast<uint32_t>(config) & 0xffffu) * 32 / sizeof(T);
}
/// plds (LoadAlign of a MaskReg, kernel_reg_compute_datacopy_impl.h): MaskDist 0 DIST_NORM
/// (32 bytes of bits), 1 DIST_US (16 bytes, each bit twice), 2 DIST_DS (64 bytes, every
/// other bit).
template <class T, class O, class D>
inline std::enable_if_t<std::is_integral_v<O>> plds(vector_bool& dst, T* src, O offset, D dist) {
    tilec_model::predicate_load(dst.bits, src + offset, tilec_model::value_of(dist));
}
/// punpack / ppack (MaskUnPack / MaskPack): the lower or higher half of the predicate's
/// bits each doubled / every other bit into the lower or higher half (the rest clear).
template <class P>
inline void punpack(vector_bool& dst, vector_bool& src, P part) {
    tilec_model::predicate_unpack(dst.bits, src.bits, tilec_model::value_of(part));
}
template <class P>
inline void ppack(vector_bool& dst, vector_bool& src, P part) {
    tilec_model::predicate_pack(dst.bits, src.bits, tilec_model::value_of(part));
}
/// pintlv_bN / pdintlv_bN (MaskInterleave / MaskDeInterleave): the predicates' N-byte
/// elements interleaved (a0 b0 a1 b1 ..., the first half into dst0) or split into the
/// even and the odd ones.
#define TILEC_PINTLV(bytes)                                                                  \
    inline void pintlv_b##bytes(vector_bool& d0, vector_bool& d1, vector_bool& a, vector_bool& b) { \
        tilec_model::predicate_interleave(d0.bits, d1.bits, a.bits, b.bits, bytes / 8, false); \
    }                                                                                        \
    inline void pdintlv_b##bytes(vector_bool& d0, vector_bool& d1, vector_bool& a, vector_bool& b) { \
        tilec_model::predicate_interleave(d0.bits, d1.bits, a.bits, b.bits, bytes / 8, true); \
    }
TILEC_PINTLV(8) TILEC_PINTLV(16) TILEC_PINTLV(32)
#undef TILEC_PINTLV
/// mem_bar: orders the vector function's own loads and stores; the model runs them in order.
template <class B> inline void mem_bar(B) {}
template <class T, class O> inline void vstas(vector_align&, T*&, O) {}
template <class T, class O, class P> inline void vstas(vector_align&, T*&, O, P) {}

// -- register compute (kernel_reg_compute_vec_*_impl.h: op(dst, src0[, src1 | scalar], mask,
// mode), mode a MaskMergeMode) ---------------------------------------------------------------
#define TILEC_REG_BINARY(name, op)                                                           \
    template <class R, class M>                                                              \
    inline std::enable_if_t<std::is_class_v<R>> name(R& d, R& a, R& b, vector_bool& mask, M mode) { \
        tilec_model::reg_compute(#name, tilec_model::Op::op, tilec_model::reg_type<R>(),     \
                                 &tilec_model::vreg(d), &tilec_model::vreg(a),               \
                                 &tilec_model::vreg(b), 0, mask.bits, tilec_model::value_of(mode)); \
    }
TILEC_REG_BINARY(vadd, add) TILEC_REG_BINARY(vsub, sub) TILEC_REG_BINARY(vmul, mul)
TILEC_REG_BINARY(vdiv, div) TILEC_REG_BINARY(vmax, max) TILEC_REG_BINARY(vmin, min)
TILEC_REG_BINARY(vand, band) TILEC_REG_BINARY(vor, bor)
#undef TILEC_REG_BINARY
#define TILEC_REG_SCALAR(name, op)                                                           \
    template <class R, class S, class M>                                                     \
    inline std::enable_if_t<std::is_class_v<R> && !std::is_pointer_v<S>>                     \
    name(R& d, R& a, S s, vector_bool& mask, M mode) {                                       \
        tilec_model::reg_compute(#name, tilec_model::Op::op, tilec_model::reg_type<R>(),     \
                                 &tilec_model::vreg(d), &tilec_model::vreg(a), nullptr,      \
                                 tilec_model::scalar_value(s), mask.bits,                    \
                                 tilec_model::value_of(mode));                               \
    }
TILEC_REG_SCALAR(vadds, add) TILEC_REG_SCALAR(vmuls, mul) TILEC_REG_SCALAR(vmaxs, max)
TILEC_REG_SCALAR(vmins, min)
#undef TILEC_REG_SCALAR
#define TILEC_REG_UNARY(name, op)                                                            \
    template <class R, class M>                                                              \
    inline std::enable_if_t<std::is_class_v<R>> name(R& d, R& a, vector_bool& mask, M mode) { \
        tilec_model::reg_compute(#name, tilec_model::Op::op, tilec_model::reg_type<R>(),     \
                                 &tilec_model::vreg(d), &tilec_model::vreg(a), nullptr, 0,   \
                                 mask.bits, tilec_model::value_of(mode));                    \
    }
TILEC_REG_UNARY(vexp, exp) TILEC_REG_UNARY(vln, ln) TILEC_REG_UNARY(vabs, abs)
TILEC_REG_UNARY(vsqrt, sqrt) TILEC_REG_UNARY(vrelu, relu) TILEC_REG_UNARY(vnot, bnot)
TILEC_REG_UNARY(vmov, copy)
#undef TILEC_REG_UNARY
/// vsel(dst, a, b, mask): a where the mask is set, b elsewhere (Select).
template <class R>
inline std::enable_if_t<std::is_class_v<R>> vsel(R& d, R& a, R& b, vector_bool& mask) {
    tilec_model::reg_select(tilec_model::reg_type<R>(), &tilec_model::vreg(d),
                            &tilec_model::vreg(a), &tilec_model::vreg(b), mask.bits);
}
/// vcadd / vcmax / vcmin: the active elements reduced into element 0 (the rest zero).
#define TILEC_REG_REDUCE(name, op)                                                           \
    template <class R, class M>                                                              \
    inline std::enable_if_t<std::is_class_v<R>> name(R& d, R& a, vector_bool& mask, M) {     \
        tilec_model::reg_reduce(#name, tilec_model::Op::op, tilec_model::reg_type<R>(),      \
                                &tilec_model::vreg(d), &tilec_model::vreg(a), mask.bits);    \
    }
TILEC_REG_REDUCE(vcadd, add) TILEC_REG_REDUCE(vcmax, max) TILEC_REG_REDUCE(vcmin, min)
#undef TILEC_REG_REDUCE
/// vcgadd / vcgmax / vcgmin / vcpadd (kernel_reg_compute_vec_reduce_impl.h ReduceDataBlock,
/// PairReduceElem: ZEROING only): per 32-byte block / per pair of elements.
#define TILEC_REG_GROUP_REDUCE(name, op, pairs)                                              \
    template <class R, class M>                                                              \
    inline std::enable_if_t<std::is_class_v<R>> name(R& d, R& a, vector_bool& mask, M) {     \
        tilec_model::reg_group_reduce(#name, tilec_model::Op::op, tilec_model::reg_type<R>(), \
                                      &tilec_model::vreg(d), &tilec_model::vreg(a), mask.bits, \
                                      pairs);                                                \
    }
TILEC_REG_GROUP_REDUCE(vcgadd, add, false) TILEC_REG_GROUP_REDUCE(vcgmax, max, false)
TILEC_REG_GROUP_REDUCE(vcgmin, min, false) TILEC_REG_GROUP_REDUCE(vcpadd, add, true)
#undef TILEC_REG_GROUP_REDUCE
/// vcmp_<c>(dst, a, b, mask) / vcmps_<c>(dst, a, scalar, mask): the predicate of the
/// active elements where a <c> b holds (kernel_reg_compute_vec_cmpsel_impl.h Compare /
/// CompareScalar); the inactive ones clear.
#define TILEC_REG_COMPARE(c, code)                                                           \
    template <class R>                                                                       \
    inline std::enable_if_t<std::is_class_v<R>> vcmp_##c(vector_bool& d, R& a, R& b,         \
                                                         vector_bool& mask) {                \
        tilec_model::reg_compare(code, tilec_model::reg_type<R>(), d.bits, &tilec_model::vreg(a), \
                                 &tilec_model::vreg(b), 0, mask.bits);                       \
    }                                                                                        \
    template <class R, class S>                                                              \
    inline std::enable_if_t<std::is_class_v<R> && tilec_model::is_scalar<S>>                 \
    vcmps_##c(vector_bool& d, R& a, S s, vector_bool& mask) {                                \
        tilec_model::reg_compare(code, tilec_model::reg_type<R>(), d.bits, &tilec_model::vreg(a), \
                                 nullptr, tilec_model::scalar_value(s), mask.bits);          \
    }
TILEC_REG_COMPARE(eq, 0) TILEC_REG_COMPARE(ne, 1) TILEC_REG_COMPARE(gt, 2)
TILEC_REG_COMPARE(ge, 3) TILEC_REG_COMPARE(lt, 4) TILEC_REG_COMPARE(le, 5)
#undef TILEC_REG_COMPARE
/// vdup: the scalar into the active elements; vbr: into every element.
template <class R, class S, class M>
inline std::enable_if_t<std::is_class_v<R>> vdup(R& d, S s, vector_bool& mask, M mode) {
    tilec_model::reg_compute("vdup", tilec_model::Op::dup, tilec_model::reg_type<R>(),
                             &tilec_model::vreg(d), nullptr, nullptr,
                             tilec_model::scalar_value(s), mask.bits, tilec_model::value_of(mode));
}
template <class R, class S>
inline void vbr(R& d, S s) {
    vector_bool all = pset_b8(PAT_ALL);
    tilec_model::reg_compute("vbr", tilec_model::Op::dup, tilec_model::reg_type<R>(),
                             &tilec_model::vreg(d), nullptr, nullptr,
                             tilec_model::scalar_value(s), all.bits, 2);
}

// -- GM <-> UB (impl/basic_api/dav_3510/kernel_operator_data_copy_impl.h CopyGmToUbufAlignV2 /
// CopyUbufToGmAlignV2: lengths in bytes, strides in bytes from one burst's start to the next;
// pads in elements, each UB burst rounded up to 32 B) ------------------------------------------
// (every parameter a template's: the other forms' fallback below takes any arguments as
// they are, which a conversion would lose to)
template <class T, class U, class... N>
inline void copy_gm_to_ubuf_align_v2(T* dst, U* src, N... args) {
    static_assert(sizeof...(N) == 9, "copy_gm_to_ubuf_align_v2 takes 11 arguments");
    uint64_t a[] = {static_cast<uint64_t>(args)...};  // sid, n, len, left, right, isPad, cache,
    uint64_t n = a[1], len = a[2], left = a[3], right = a[4], src_stride = a[7],  // src, dst
             dst_stride = a[8];
    constexpr size_t es = sizeof(T);
    uint64_t row = (left * es + len + right * es + 31) / 32 * 32;
    if (n > 1 && dst_stride < row && dst_stride == len + (left + right) * es &&
        src_stride >= len) {
        // PaddingMode::Compact: the bursts packed in UB, dst_stride bytes apart (the
        // vendor's CopyGmToUbufAlignV2 gives dstStride = burstLength), one burst at a time
        for (uint64_t i = 0; i < n; ++i)
            tilec_model::copy_gm_ub(tilec_model::dtype<T>(), reinterpret_cast<uint8_t*>(dst) +
                                    i * dst_stride, reinterpret_cast<uint8_t*>(src) +
                                    i * src_stride, 1, len, left, right, 0, 0);
        return;
    }
    if (n > 1 && (dst_stride < row || dst_stride % 32 != 0 || src_stride < len))
        tilec_model::unmodelled("copy_gm_to_ubuf_align_v2 with overlapping bursts");
    tilec_model::copy_gm_ub(tilec_model::dtype<T>(), dst, src, n, len, left, right,
                            n > 1 ? src_stride - len : 0, n > 1 ? (dst_stride - row) / 32 : 0);
}
template <class T, class U, class... N>
inline void copy_ubuf_to_gm_align_v2(T* dst, U* src, N... args) {
    static_assert(sizeof...(N) == 6, "copy_ubuf_to_gm_align_v2 takes 8 arguments");
    uint64_t a[] = {static_cast<uint64_t>(args)...};  // sid, n, len, cache, dst, src strides
    uint64_t n = a[1], len = a[2], dst_stride = a[4], src_stride = a[5];
    uint64_t row = (len + 31) / 32 * 32;
    if (n > 1 && src_stride < row && src_stride == len && dst_stride >= len) {
        // PaddingMode::Compact: the bursts packed in UB, one burst at a time
        for (uint64_t i = 0; i < n; ++i)
            tilec_model::copy_ub_gm(tilec_model::Dt::u8, reinterpret_cast<uint8_t*>(dst) +
                                    i * dst_stride, reinterpret_cast<uint8_t*>(src) +
                                    i * src_stride, 1, len, 0, 0);
        return;
    }
    if (n > 1 && (src_stride < row || src_stride % 32 != 0 || dst_stride < len))
        tilec_model::unmodelled("copy_ubuf_to_gm_align_v2 with overlapping bursts");
    tilec_model::copy_ub_gm(tilec_model::Dt::u8, dst, src, n, len,
                            n > 1 ? (src_stride - row) / 32 : 0, n > 1 ? dst_stride - len : 0);
}
// -- casts (kernel_reg_compute_vec_vconv_impl.h CastOperator: widening vcvt(dst, src, mask,
// part, mode), narrowing float vcvt(dst, src, mask, round, sat, part, mode)) ----------------
template <class D, class S, class P, class M>
inline std::enable_if_t<std::is_class_v<D>> vcvt(D& d, S& s, vector_bool& mask, P part, M mode) {
    tilec_model::reg_convert(tilec_model::reg_type<D>(), tilec_model::reg_type<S>(),
                             &tilec_model::vreg(d), &tilec_model::vreg(s), mask.bits, 0, false,
                             tilec_model::value_of(part), tilec_model::value_of(mode));
}
template <class D, class S, class R, class T, class P, class M>
inline std::enable_if_t<std::is_class_v<D>> vcvt(D& d, S& s, vector_bool& mask, R round, T sat,
                                                 P part, M mode) {
    tilec_model::reg_convert(tilec_model::reg_type<D>(), tilec_model::reg_type<S>(),
                             &tilec_model::vreg(d), &tilec_model::vreg(s), mask.bits,
                             tilec_model::value_of(round), tilec_model::value_of(sat) == 1,
                             tilec_model::value_of(part), tilec_model::value_of(mode));
}
/// vmov(dst, src): every element.
template <class R> inline std::enable_if_t<std::is_class_v<R>> vmov(R& d, R& a) {
    vector_bool all = pset_b8(PAT_ALL);
    vmov(d, a, all, MODE_ZEROING);
}
// the other forms of the intrinsics above (dual-register loads, address registers ...): they
// compile, and stop the run naming the intrinsic, as tilec_unmodelled.h's names do
#define TILEC_OTHER_FORMS(name) \
    template <class... A> inline void name(A&&...) { tilec_model::unmodelled(#name " in this form"); }
TILEC_OTHER_FORMS(vlds) TILEC_OTHER_FORMS(vsts) TILEC_OTHER_FORMS(vmov) TILEC_OTHER_FORMS(vcvt)
TILEC_OTHER_FORMS(vsel) TILEC_OTHER_FORMS(vcadd) TILEC_OTHER_FORMS(vcmax) TILEC_OTHER_FORMS(vcmin)
TILEC_OTHER_FORMS(vstus) TILEC_OTHER_FORMS(vstas) TILEC_OTHER_FORMS(pstu) TILEC_OTHER_FORMS(vsstb)
TILEC_OTHER_FORMS(vsldb) TILEC_OTHER_FORMS(plds) TILEC_OTHER_FORMS(punpack) TILEC_OTHER_FORMS(ppack)
#define TILEC_COMPARE_FORMS(c) TILEC_OTHER_FORMS(vcmp_##c) TILEC_OTHER_FORMS(vcmps_##c)
TILEC_COMPARE_FORMS(eq) TILEC_COMPARE_FORMS(ne) TILEC_COMPARE_FORMS(gt)
TILEC_COMPARE_FORMS(ge) TILEC_COMPARE_FORMS(lt) TILEC_COMPARE_FORMS(le)
#undef TILEC_COMPARE_FORMS
TILEC_OTHER_FORMS(copy_gm_to_ubuf_align_v2) TILEC_OTHER_FORMS(copy_ubuf_to_gm_align_v2)
#undef TILEC_OTHER_FORMS

// -- the cube path (dav_3510/kernel_operator_data_copy_impl.h, _mm_impl.h, _fixpipe_impl.h;
// the semantics in ../model/cube.cpp) --------------------------------------------------------
/// set_mte2_nz_para: the Nd2Nz / Dn2Nz destination loops (MTE2_NZ_PARA: [15:0] ndNum,
/// [31:16] dstNzNStride, [47:32] dstNzC0Stride, [63:48] dstNzMatrixStride in 32 B blocks).
inline void set_mte2_nz_para(uint64_t config) { tilec_model::set_mte2_nz_para(config); }
/// copy_gm_to_cbuf_multi_nd2nz / _dn2nz: GM strides in bytes (loop1 a row, loop4 a matrix);
/// the destination's from MTE2_NZ_PARA; `small_c0` (C0 of 4 elements) is not modelled.
#define TILEC_TO_NZ(name, column_major)                                                       \
    template <class T, class C>                                                              \
    inline void name(T* dst, T* src, uint64_t, uint64_t row_bytes, C, uint64_t n, uint64_t d, \
                     uint64_t matrix_bytes, bool small_c0) {                                 \
        if (small_c0) tilec_model::unmodelled(#name " with the small C0");                   \
        tilec_model::to_nz(tilec_model::dtype<T>(), dst, src, row_bytes, n, d, matrix_bytes, \
                           column_major);                                                    \
    }
TILEC_TO_NZ(copy_gm_to_cbuf_multi_nd2nz, false) TILEC_TO_NZ(copy_gm_to_cbuf_multi_dn2nz, true)
#undef TILEC_TO_NZ
/// load_cbuf_to_ca / _cb (LoadData 2D V2; LoadData2DParams map onto it): positions in
/// fractals along M and K, steps, the strides between K-neighbouring fractals.
#define TILEC_LOAD_2DV2(name, target)                                                        \
    template <class T, class S, class D, class X>                                            \
    inline std::enable_if_t<std::is_integral_v<S> && std::is_integral_v<D>>                  \
    name(T* dst, T* src, uint64_t m_start, uint64_t k_start, uint64_t m_step, uint64_t k_step, \
         S src_stride, D dst_stride, X transpose) {                                          \
        tilec_model::load_2dv2(target, tilec_model::dtype<T>(), dst, src, m_start, k_start,  \
                               m_step, k_step, static_cast<int64_t>(src_stride),             \
                               static_cast<uint64_t>(dst_stride), static_cast<bool>(transpose)); \
    }
TILEC_LOAD_2DV2(load_cbuf_to_ca, 0) TILEC_LOAD_2DV2(load_cbuf_to_cb, 1)
#undef TILEC_LOAD_2DV2
/// load_cbuf_to_cb_transpose (LoadDataWithTranspose's V2 parameters): the 910b's squares,
/// the start and source stride counted in fractals (LoadData2DL12L0BTransposeCal doubles the
/// V1 ones for 8- and 32-bit data); srcFracGap must be 0.
template <class T, class I>
inline void load_cbuf_to_cb_transpose(T* dst, T* src, uint64_t start, uint64_t repeat,
                                      uint64_t src_stride, uint64_t dst_gap, I,
                                      uint64_t dst_frac_gap, uint64_t src_frac_gap) {
    uint64_t unit = sizeof(T) == 2 ? 1 : 2;
    if (sizeof(T) == 4 || src_frac_gap != 0 || start % unit || src_stride % unit)
        tilec_model::unmodelled("load_cbuf_to_cb_transpose of 32-bit data or with these strides");
    tilec_model::load_2d_transpose(1, tilec_model::dtype<T>(), dst, src, start / unit, repeat,
                                   src_stride / unit, dst_gap, dst_frac_gap);
}
/// mad (MmadCal): L0A in Nz on the 950.
template <class C, class A, class B>
inline void mad(C* c, A* a, B* b, uint64_t m, uint64_t k, uint64_t n, uint64_t,
                bool disable_gemv, bool bias, bool init) {
    if (bias) tilec_model::unmodelled("mad with a bias (cmatrixSource)");
    tilec_model::mad(tilec_model::dtype<C>(), tilec_model::dtype<A>(), c, a, b, m, k, n, init,
                     m == 1 && !disable_gemv);
}
/// LOOP3_PARA (the fixpipe's nz2nd matrices: [15:0] ndNum): the model moves one.
inline void set_loop3_para(uint64_t config) {
    if ((config & 0xffff) > 1) tilec_model::unmodelled("a fixpipe of several ND matrices");
}
inline void set_channel_para(uint64_t) { tilec_model::unmodelled("set_channel_para (NZ2DN)"); }
/// copy_cbuf_to_ubuf (CopyCbufToUbuf, on the AIC, MTE1): bursts of 32 B blocks into the UB
/// of the AIV `sub_block` names; copy_ubuf_to_cbuf (CopyUbufToCbuf, on an AIV, MTE3): into
/// its block's AIC's L1.
template <class S>
inline void copy_cbuf_to_ubuf(void* dst, void* src, S sub_block, uint64_t n, uint64_t len,
                              uint64_t src_gap, uint64_t dst_gap) {
    tilec_model::copy_blocks(PIPE_MTE1, "copy_cbuf_to_ubuf",
                             tilec_model::peer_ub(dst, static_cast<int>(sub_block)), src, n, len,
                             src_gap, dst_gap);
}
inline void copy_ubuf_to_cbuf(void* dst, void* src, uint64_t, uint64_t n, uint64_t len,
                              uint64_t src_gap, uint64_t dst_gap) {
    tilec_model::copy_blocks(PIPE_MTE3, "copy_ubuf_to_cbuf", tilec_model::peer_l1(dst), src, n,
                             len, src_gap, dst_gap);
}
/// copy_matrix_cc_to_gm / _cbuf / _ub (FixpipeL0cToOut / ToL1 / ToUB): the 910b's fixpipe,
/// the Nz destination stride counted in elements; to UB, `dual` 1 writes the first half of
/// the rows into sub-block 0's UB and the rest into sub-block 1's, 0 all into `sub_block`'s.
template <class T, class U>
inline void tilec_fixpipe(T* dst, U* src, uint64_t n, uint64_t m, uint64_t dst_stride,
                          uint64_t src_stride, uint64_t quant, uint8_t relu, bool nz2nd,
                          bool nz2dn, bool gm, int target) {
    if (nz2dn) tilec_model::unmodelled("a fixpipe in NZ2DN");
    if (!nz2nd) {
        if (dst_stride * sizeof(T) % 32) tilec_model::unmodelled("an Nz fixpipe's unaligned stride");
        dst_stride = dst_stride * sizeof(T) / 32;
    }
    tilec_model::fixpipe(tilec_model::dtype<T>(), tilec_model::dtype<U>(),
                         target < 0 ? static_cast<void*>(dst) : tilec_model::peer_ub(dst, target),
                         src, n, m, dst_stride, src_stride, static_cast<int>(quant), relu != 0,
                         nz2nd, gm);
}
template <class T, class U>
inline void copy_matrix_cc_to_gm(T* dst, U* src, uint64_t, uint64_t n, uint64_t m,
                                 uint64_t dst_stride, uint64_t src_stride, uint64_t, uint64_t,
                                 uint64_t, uint64_t quant, uint8_t relu, bool split, bool nz2nd,
                                 uint64_t, uint64_t, bool, bool, uint64_t, bool, bool, bool, bool,
                                 bool, bool nz2dn) {
    if (split) tilec_model::unmodelled("a fixpipe with the channel split");
    tilec_fixpipe(dst, src, n, m, dst_stride, src_stride, quant, relu, nz2nd, nz2dn, true, -1);
}
template <class T, class U>
inline void copy_matrix_cc_to_cbuf(T* dst, U* src, uint64_t, uint64_t n, uint64_t m,
                                   uint64_t dst_stride, uint64_t src_stride, uint64_t, uint64_t,
                                   uint64_t, uint64_t quant, uint8_t relu, bool, bool nz2nd,
                                   uint64_t, uint64_t, bool, bool, uint64_t, bool, bool, bool, bool,
                                   bool, bool nz2dn) {
    tilec_fixpipe(dst, src, n, m, dst_stride, src_stride, quant, relu, nz2nd, nz2dn, false, -1);
}
template <class T, class U>
inline void copy_matrix_cc_to_ub(T* dst, U* src, uint64_t, uint64_t n, uint64_t m,
                                 uint64_t dst_stride, uint64_t src_stride, uint64_t dual,
                                 uint64_t sub_block, uint64_t, uint64_t, uint64_t quant,
                                 uint8_t relu, bool, bool nz2nd, uint64_t, uint64_t, bool, bool,
                                 uint64_t, bool, bool, bool, bool, bool, bool nz2dn) {
    if (dual == 0) {
        tilec_fixpipe(dst, src, n, m, dst_stride, src_stride, quant, relu, nz2nd, nz2dn, false,
                      static_cast<int>(sub_block));
        return;
    }
    if (dual != 1 || m % 2 || !nz2nd) tilec_model::unmodelled("a dual-destination fixpipe split in N");
    // rows [0, m/2) and [m/2, m): L0C keeps a column block's rows 16 elements apart
    tilec_fixpipe(dst, src, n, m / 2, dst_stride, src_stride, quant, relu, nz2nd, nz2dn, false, 0);
    tilec_fixpipe(dst, src + m / 2 * 16, n, m / 2, dst_stride, src_stride, quant, relu, nz2nd,
                  nz2dn, false, 1);
}
/// CreateAddrReg's CPU-debug path (kernel_reg_compute_addrreg_impl.h)
template <class... A> inline vector_address VagCpuSim(A&&...) { tilec_model::unmodelled("VagCpuSim"); }
// The copies' outer loops (kernel_utils_base.h sets loop1 = loop2 = 1 at the kernel's start,
// (1 << 21) | 1) and the store-atomic configuration it starts with: the model's copies run
// one loop, its atomics follow set_atomic_* (kernel_operator_set_atomic_impl.h)
inline void tilec_one_loop(const char* name, uint64_t config) {
    if (config != ((1ull << 21) | 1ull)) tilec_model::unmodelled(name);
}
inline void set_loop_size_ubtoout(uint64_t config) { tilec_one_loop("set_loop_size_ubtoout", config); }
inline void set_loop_size_outtoub(uint64_t config) { tilec_one_loop("set_loop_size_outtoub", config); }
template <class C, class = std::enable_if_t<std::is_integral_v<C>>>
inline void set_st_atomic_cfg(C config) {
    if (config != 0b00100100) tilec_model::unmodelled("set_st_atomic_cfg");
}
template <class... A> inline void set_st_atomic_cfg(A&&...) { tilec_model::unmodelled("set_st_atomic_cfg"); }
/// CrossCoreWaitFlag's 950 form (dav_3510/kernel_operator_sync_impl.h): the waiting pipe, then
/// the flag id.
template <class I> inline void wait_flag_dev(pipe_t, I id) {
    tilec_model::cross_core_wait(static_cast<uint64_t>(id));
}
/// Cross-core mode 4 (NotifyEventImpl / WaitEventImpl<4>, SyncAll of a mix kernel): the AIC's
/// flag id + 16 * s reaches AIV s, an AIV's flag id reaches the AIC as id + 16 * its
/// sub-block.
template <class I> inline void set_intra_block(pipe_t pipe, I id) {
    tilec_model::intra_block_set(pipe, static_cast<uint64_t>(id));
}
template <class I> inline void wait_intra_block(pipe_t pipe, I id) {
    tilec_model::intra_block_wait(pipe, static_cast<uint64_t>(id));
}
/// The toolkit's shared allocation (kernel_utils_mode_cpu.h: one UB and L1 for all cores of
/// a MIX_MODE run on the 950); the runner starts every core in AIV / AIC mode, with its own.
inline void* GmAlloc(size_t bytes) { return std::calloc(bytes, 1); }
inline void GmFree(void* p) { std::free(p); }
#endif
