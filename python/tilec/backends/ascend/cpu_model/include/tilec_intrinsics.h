// The intrinsics the model implements, as the asc-devkit headers call them in CPU-debug
// mode (written here; the semantics are in ../model/*.cpp). Pointers are host addresses:
// the headers' CPU mode backs each core's UB, L1, L0A/B/C with host memory.
#ifndef TILEC_INTRINSICS_H
#define TILEC_INTRINSICS_H

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tilec_model {
enum class Dt : uint8_t { f16, bf16, f32, s8, u8, s16, u16, s32, u32, s64, u64, f8e4m3, f8e5m2 };

template <class T>
constexpr Dt dtype() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, half>) return Dt::f16;
    else if constexpr (std::is_same_v<U, bfloat16_t>) return Dt::bf16;
    else if constexpr (std::is_same_v<U, float>) return Dt::f32;
    else if constexpr (std::is_same_v<U, fp8_e4m3fn_t>) return Dt::f8e4m3;
    else if constexpr (std::is_same_v<U, fp8_e5m2_t>) return Dt::f8e5m2;
    else if constexpr (std::is_integral_v<U> && sizeof(U) == 1) return std::is_signed_v<U> ? Dt::s8 : Dt::u8;
    else if constexpr (std::is_integral_v<U> && sizeof(U) == 2) return std::is_signed_v<U> ? Dt::s16 : Dt::u16;
    else if constexpr (std::is_integral_v<U> && sizeof(U) == 4) return std::is_signed_v<U> ? Dt::s32 : Dt::u32;
    else if constexpr (std::is_integral_v<U> && sizeof(U) == 8) return std::is_signed_v<U> ? Dt::s64 : Dt::u64;
    else return Dt::u8;
}

enum class Op : uint8_t { add, sub, mul, div, max, min, exp, ln, abs, sqrt, relu, rec, rsqrt, copy,
                          dup, band, bor, bnot };

/// Strides of a vector instruction: per operand (dst, src0, src1) the block stride (32 B
/// blocks between the blocks of one repeat) and the repeat stride (32 B blocks between
/// repeats).
struct Strides { uint64_t block[3]; uint64_t repeat[3]; };

template <class S>
inline double scalar_value(S s) {
    if constexpr (std::is_arithmetic_v<S>) return static_cast<double>(s);
    else return static_cast<double>(static_cast<float>(s));
}

// sys and sync
int64_t block_index();
int64_t block_count();
int64_t subblock_index();
int64_t subblock_count();
void set_flag(int src, int dst, int id);
void wait_flag(int src, int dst, int id);
void barrier(int pipe);
void cross_core_set(int pipe, uint64_t config);
void cross_core_wait(uint64_t id);
/// set_intra_block / wait_intra_block: cross-core mode 4 (the 950: an AIC and one AIV).
void intra_block_set(int pipe, uint64_t id);
void intra_block_wait(int pipe, uint64_t id);
// vector state
void set_mask(uint64_t high, uint64_t low);
/// The CTRL register; bit 56 selects the vector mask's counter mode (set_mask_count).
uint64_t control();
void set_control(uint64_t value);
void set_pad_value(uint64_t bits);
void atomic_mode(int op, Dt type);
// data movement
void copy_gm_ub(Dt type, void* dst, const void* src, uint64_t n_burst, uint64_t len_bytes,
                uint64_t left_pad, uint64_t right_pad, uint64_t src_gap_bytes,
                uint64_t dst_gap_blocks);
void copy_ub_gm(Dt type, void* dst, const void* src, uint64_t n_burst, uint64_t len_bytes,
                uint64_t src_gap_blocks, uint64_t dst_gap_bytes);
/// Bursts of 32 B blocks (`name` the intrinsic; copy_ubuf_to_gm writes as GM).
void copy_blocks(int pipe, const char* name, void* dst, const void* src, uint64_t n_burst,
                 uint64_t len_blocks, uint64_t src_gap_blocks, uint64_t dst_gap_blocks);
// the cube path (2201)
void fill_l1(Dt type, void* dst, uint64_t config, uint64_t bits);
void nd2nz(Dt type, void* dst, const void* src, uint64_t nd_num, uint64_t n, uint64_t d,
           uint64_t src_nd_stride, uint64_t src_d, uint64_t dst_c0_stride, uint64_t dst_n_stride,
           uint64_t dst_nd_stride);
void load_2d(int target, Dt type, void* dst, const void* src, uint64_t start, uint64_t repeat,
             uint64_t src_stride, uint64_t dst_gap, bool transpose);
void load_2d_transpose(int target, Dt type, void* dst, const void* src, uint64_t start,
                       uint64_t repeat, uint64_t src_stride, uint64_t dst_gap,
                       uint64_t dst_frac_gap);
/// `gemv`: m = 1 reads L0A as one row (the 950 turns it off with disableGemv).
void mad(Dt out, Dt in, void* c, const void* a, const void* b, uint64_t m, uint64_t k,
         uint64_t n, bool init, bool gemv);
void set_nd_para(uint64_t config);
void set_quant_pre(uint64_t config);
/// L0C -> GM (`gm`: written as GM, atomics applied), L1 or UB; `dst_stride` the ND row
/// stride in elements (nz2nd) or the Nz column blocks' in 32 B blocks.
void fixpipe(Dt out, Dt in, void* dst, const void* src, uint64_t n, uint64_t m,
             uint64_t dst_stride, uint64_t src_stride, int quant, bool relu, bool nz2nd, bool gm);
/// The core's own UB and L1 (the headers' CPU-mode buffers), for what another core of its
/// block writes into them.
void set_local_buffers(uint8_t* ub, uint8_t* l1);
/// vconv: each element of `src` converted to the type of `dst`, rounded as `mode` says
/// ('n' the instruction's default, 'r' to nearest even, 'a' half away from zero, 'f' down,
/// 'c' up, 'z' toward zero, 'o' to odd).
void convert(const char* name, Dt to, Dt from, char mode, void* dst, const void* src,
             uint64_t repeat, const Strides& strides);
// reductions, broadcast, compare and select (model/vector_reduce.cpp, vector_compare.cpp)
/// vcadd (op add, order -1), vcmax / vcmin (max / min, `order` an Order_t); `accumulate`:
/// vcadd's sum of every repeat into ACC_VAL.
void reduce(const char* name, Op op, Dt type, void* dst, const void* src, uint64_t repeat,
            uint64_t dst_rep, uint64_t src_blk, uint64_t src_rep, int order, bool accumulate);
uint64_t acc_value();
uint64_t max_min_count();
void broadcast_blocks(size_t size, void* dst, const void* src, uint64_t dst_blk, uint64_t dst_rep,
                      uint64_t repeat);
/// vcgadd / vcgmax / vcgmin (a record of 8 per repeat), vcpadd (`pairs`: one of half the
/// lanes per repeat).
void group_reduce(const char* name, Op op, Dt type, void* dst, const void* src, uint64_t repeat,
                  uint64_t dst_rep, uint64_t src_blk, uint64_t src_rep, bool pairs);
/// vcmpv (`b` the second operand) / vcmpvs (`b` null: `scalar`): `mode` 0-5 lt gt eq le ge ne.
void compare(const char* name, int mode, Dt type, void* dst, const void* a, const void* b,
             double scalar, uint64_t repeat, const Strides& strides);
void set_cmpmask(const void* src);
void get_cmpmask(void* dst);
void select(Dt type, void* dst, const void* a, const void* b, uint64_t repeat,
            const Strides& strides, int mode);
// vector compute
void vector(const char* name, Op op, Dt type, void* dst, const void* src0, const void* src1, double scalar,
            uint64_t repeat, const Strides& strides);
}  // namespace tilec_model

// -- sys ------------------------------------------------------------------------------
inline int64_t get_block_idx() { return tilec_model::block_index(); }
inline int64_t get_block_num() { return tilec_model::block_count(); }
inline int64_t get_subblockid() { return tilec_model::subblock_index(); }
inline int64_t get_subblockdim() { return tilec_model::subblock_count(); }

// -- scalar bit operations (the scalar unit's builtins) --------------------------------------
inline int64_t sff0(uint64_t x) { return ~x ? __builtin_ctzll(~x) : 64; }  // first 0 bit
inline int64_t sff1(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }    // first 1 bit
inline uint64_t sbitset0(uint64_t x, uint64_t bit) { return x & ~(1ull << bit); }
inline uint64_t sbitset1(uint64_t x, uint64_t bit) { return x | (1ull << bit); }
inline int64_t bcnt1(uint64_t x) { return __builtin_popcountll(x); }
inline int64_t bcnt0(uint64_t x) { return 64 - __builtin_popcountll(x); }
inline int64_t clz(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
inline uint64_t get_ctrl() { return tilec_model::control(); }
inline void set_ctrl(uint64_t value) { tilec_model::set_control(value); }

// -- configuration the modelled instructions do not read (img2col / 3-D loads' sizes and
// padding, the FFTS base address the cross-core flags are modelled without), cache and
// memory-ordering instructions (every access here is coherent and in order): nothing to do
#define TILEC_NO_EFFECT(name) template <class... A> inline void name(A&&...) {}
TILEC_NO_EFFECT(set_l1_3d_size) TILEC_NO_EFFECT(set_padding) TILEC_NO_EFFECT(set_fmatrix)
TILEC_NO_EFFECT(set_fmatrix_b) TILEC_NO_EFFECT(set_l3d_rpt) TILEC_NO_EFFECT(set_ffts_base_addr)
TILEC_NO_EFFECT(dcci) TILEC_NO_EFFECT(dsb)
#undef TILEC_NO_EFFECT

// -- sync -----------------------------------------------------------------------------
template <class E> inline void set_flag(pipe_t src, pipe_t dst, E id) {
    tilec_model::set_flag(src, dst, static_cast<int>(id));
}
template <class E> inline void wait_flag(pipe_t src, pipe_t dst, E id) {
    tilec_model::wait_flag(src, dst, static_cast<int>(id));
}
inline void pipe_barrier(pipe_t pipe) { tilec_model::barrier(pipe); }
template <class C> inline void ffts_cross_core_sync(pipe_t pipe, C config) {
    tilec_model::cross_core_set(pipe, static_cast<uint64_t>(config));
}
template <class I> inline void wait_flag_dev(I id) {
    tilec_model::cross_core_wait(static_cast<uint64_t>(id));
}

// -- vector state ---------------------------------------------------------------------
template <class H, class L> inline void set_vector_mask(H high, L low) {
    tilec_model::set_mask(static_cast<uint64_t>(high), static_cast<uint64_t>(low));
}
inline void set_mask_count() { set_ctrl(sbitset1(get_ctrl(), 56)); }
inline void set_mask_norm() { set_ctrl(sbitset0(get_ctrl(), 56)); }
template <class V> inline void set_mov_pad_val(V bits) {
    tilec_model::set_pad_value(static_cast<uint64_t>(bits));
}
inline void set_atomic_none() { tilec_model::atomic_mode(-1, tilec_model::Dt::f32); }
inline void set_atomic_add() { tilec_model::atomic_mode(0, tilec_model::Dt::f32); }
inline void set_atomic_max() { tilec_model::atomic_mode(1, tilec_model::Dt::f32); }
inline void set_atomic_min() { tilec_model::atomic_mode(2, tilec_model::Dt::f32); }
#define TILEC_ATOMIC_TYPE(name, dt) \
    inline void name() { tilec_model::atomic_mode(-2, tilec_model::Dt::dt); }
TILEC_ATOMIC_TYPE(set_atomic_f32, f32) TILEC_ATOMIC_TYPE(set_atomic_f16, f16)
TILEC_ATOMIC_TYPE(set_atomic_bf16, bf16) TILEC_ATOMIC_TYPE(set_atomic_s32, s32)
TILEC_ATOMIC_TYPE(set_atomic_s16, s16) TILEC_ATOMIC_TYPE(set_atomic_s8, s8)
#undef TILEC_ATOMIC_TYPE

// -- data movement GM <-> UB (MTE2 / MTE3) ---------------------------------------------
#define TILEC_COPY_IN(name)                                                                  \
    template <class T, class... X>                                                           \
    inline void name(T* dst, T* src, uint64_t, uint64_t n, uint64_t len, uint64_t left,      \
                     uint64_t right, uint64_t src_gap, uint64_t dst_gap) {                   \
        tilec_model::copy_gm_ub(tilec_model::dtype<T>(), dst, src, n, len, left, right,      \
                                src_gap, dst_gap);                                           \
    }
TILEC_COPY_IN(copy_gm_to_ubuf_align_b8) TILEC_COPY_IN(copy_gm_to_ubuf_align_b16)
TILEC_COPY_IN(copy_gm_to_ubuf_align_b32)
#undef TILEC_COPY_IN
#define TILEC_COPY_OUT(name)                                                                 \
    template <class T>                                                                       \
    inline void name(T* dst, T* src, uint64_t, uint64_t n, uint64_t len, uint64_t, uint64_t, \
                     uint64_t src_gap, uint64_t dst_gap) {                                   \
        tilec_model::copy_ub_gm(tilec_model::dtype<T>(), dst, src, n, len, src_gap, dst_gap); \
    }
TILEC_COPY_OUT(copy_ubuf_to_gm_align_b8) TILEC_COPY_OUT(copy_ubuf_to_gm_align_b16)
TILEC_COPY_OUT(copy_ubuf_to_gm_align_b32)
#undef TILEC_COPY_OUT
// lengths and gaps in 32 B blocks on both sides
inline void copy_gm_to_ubuf(void* dst, void* src, uint64_t, uint64_t n, uint64_t len,
                            uint64_t src_gap, uint64_t dst_gap) {
    tilec_model::copy_blocks(PIPE_MTE2, "copy_gm_to_ubuf", dst, src, n, len, src_gap, dst_gap);
}
inline void copy_ubuf_to_gm(void* dst, void* src, uint64_t, uint64_t n, uint64_t len,
                            uint64_t src_gap, uint64_t dst_gap) {
    tilec_model::copy_blocks(PIPE_MTE3, "copy_ubuf_to_gm", dst, src, n, len, src_gap, dst_gap);
}
inline void copy_ubuf_to_ubuf(void* dst, void* src, uint64_t, uint64_t n, uint64_t len,
                              uint64_t src_gap, uint64_t dst_gap) {
    tilec_model::copy_blocks(PIPE_V, "copy_ubuf_to_ubuf", dst, src, n, len, src_gap, dst_gap);
}

// -- the cube path: GM -> L1 (MTE2), L1 -> L0A/L0B (MTE1), mad (M), L0C -> GM (FIX) --------
template <class T, class V>
inline void create_cbuf_matrix(T* dst, int64_t config, V value) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(V) < 8 ? sizeof(V) : 8);
    tilec_model::fill_l1(sizeof(V) == 2 ? tilec_model::Dt::u16 : tilec_model::Dt::u32, dst,
                         static_cast<uint64_t>(config), bits);
}
#define TILEC_ND2NZ(name)                                                                    \
    template <class T>                                                                       \
    inline void name(T* dst, T* src, uint64_t, uint64_t nd, uint64_t n, uint64_t d,          \
                     uint64_t src_nd, uint64_t src_d, uint64_t c0, uint64_t ns, uint64_t mat) { \
        tilec_model::nd2nz(tilec_model::dtype<T>(), dst, src, nd, n, d, src_nd, src_d, c0, ns, mat); \
    }
TILEC_ND2NZ(copy_gm_to_cbuf_multi_nd2nz_b8) TILEC_ND2NZ(copy_gm_to_cbuf_multi_nd2nz_b16)
TILEC_ND2NZ(copy_gm_to_cbuf_multi_nd2nz_b32s)
#undef TILEC_ND2NZ
// the 910b's forms of the L1 -> L0 loads, mad and the fixpipe (the 950's, with other
// arguments: tilec_intrinsics_3510.h)
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ != 3510
template <class T, class... X>
inline void load_cbuf_to_ca(T* dst, T* src, uint64_t start, uint64_t repeat, uint64_t src_stride,
                            uint64_t dst_gap, uint64_t, uint64_t transpose, X...) {
    tilec_model::load_2d(0, tilec_model::dtype<T>(), dst, src, start, repeat, src_stride, dst_gap,
                         transpose != 0);
}
template <class T, class... X>
inline void load_cbuf_to_cb(T* dst, T* src, uint64_t start, uint64_t repeat, uint64_t src_stride,
                            uint64_t dst_gap, uint64_t, uint64_t transpose, X...) {
    tilec_model::load_2d(1, tilec_model::dtype<T>(), dst, src, start, repeat, src_stride, dst_gap,
                         transpose != 0);
}
#define TILEC_LOAD_TRANSPOSE(name, target)                                                   \
    template <class T, class M>                                                              \
    inline void name(T* dst, T* src, uint64_t start, uint64_t repeat, uint64_t src_stride,   \
                     uint64_t dst_gap, M, uint64_t dst_frac_gap) {                           \
        tilec_model::load_2d_transpose(target, tilec_model::dtype<T>(), dst, src, start, repeat, \
                                       src_stride, dst_gap, dst_frac_gap);                   \
    }
TILEC_LOAD_TRANSPOSE(load_cbuf_to_ca_transpose, 0) TILEC_LOAD_TRANSPOSE(load_cbuf_to_cb_transpose, 1)
#undef TILEC_LOAD_TRANSPOSE
template <class C, class A, class B>
inline void mad(C* c, A* a, B* b, uint64_t m, uint64_t k, uint64_t n, uint64_t, uint64_t,
                uint64_t, uint64_t init) {
    // the 910b has no disableGemv: m = 1 is a GEMV (the emitter passes 16)
    tilec_model::mad(tilec_model::dtype<C>(), tilec_model::dtype<A>(), c, a, b, m, k, n, init != 0,
                     m == 1);
}
template <class T, class U>
inline void copy_matrix_cc_to_gm(T* dst, U* src, uint64_t, uint64_t n, uint64_t m,
                                 uint64_t dst_stride, uint64_t src_stride, uint64_t,
                                 QuantMode_t quant, uint64_t relu, uint64_t, uint64_t nz2nd) {
    tilec_model::fixpipe(tilec_model::dtype<T>(), tilec_model::dtype<U>(), dst, src, n, m,
                         dst_stride, src_stride, static_cast<int>(quant), relu != 0, nz2nd != 0,
                         true);
}
#endif
inline void set_nd_para(uint64_t config) { tilec_model::set_nd_para(config); }
inline void set_quant_pre(uint64_t config) { tilec_model::set_quant_pre(config); }

// -- vector compute (PIPE_V) ------------------------------------------------------------
#define TILEC_BINARY(name, op)                                                               \
    template <class T, class... X>                                                           \
    inline void name(T* d, T* a, T* b, uint64_t r, uint64_t db, uint64_t ab, uint64_t bb,    \
                     uint64_t dr, uint64_t ar, uint64_t br, X...) {                          \
        tilec_model::vector(#name, tilec_model::Op::op, tilec_model::dtype<T>(), d, a, b, 0, r,     \
                            {{db, ab, bb}, {dr, ar, br}});                                   \
    }
TILEC_BINARY(vadd, add) TILEC_BINARY(vsub, sub) TILEC_BINARY(vmul, mul) TILEC_BINARY(vdiv, div)
TILEC_BINARY(vmax, max) TILEC_BINARY(vmin, min) TILEC_BINARY(vand, band) TILEC_BINARY(vor, bor)
#undef TILEC_BINARY
#define TILEC_SCALAR(name, op)                                                               \
    template <class T, class S, class... X>                                                  \
    inline void name(T* d, T* a, S s, uint64_t r, uint64_t db, uint64_t ab, uint64_t dr,     \
                     uint64_t ar, X...) {                                                    \
        tilec_model::vector(#name, tilec_model::Op::op, tilec_model::dtype<T>(), d, a, nullptr,     \
                            tilec_model::scalar_value(s), r,                  \
                            {{db, ab, 0}, {dr, ar, 0}});                                     \
    }
TILEC_SCALAR(vadds, add) TILEC_SCALAR(vmuls, mul) TILEC_SCALAR(vmaxs, max)
TILEC_SCALAR(vmins, min)
#undef TILEC_SCALAR
#define TILEC_UNARY(name, op)                                                                \
    template <class T, class... X>                                                           \
    inline void name(T* d, T* a, uint64_t r, uint64_t db, uint64_t ab, uint64_t dr,          \
                     uint64_t ar, X...) {                                                    \
        tilec_model::vector(#name, tilec_model::Op::op, tilec_model::dtype<T>(), d, a, nullptr, 0,  \
                            r, {{db, ab, 0}, {dr, ar, 0}});                                  \
    }
TILEC_UNARY(vexp, exp) TILEC_UNARY(vln, ln) TILEC_UNARY(vabs, abs) TILEC_UNARY(vsqrt, sqrt)
TILEC_UNARY(vrelu, relu) TILEC_UNARY(vrec, rec) TILEC_UNARY(vrsqrt, rsqrt)
TILEC_UNARY(vnot, bnot) TILEC_UNARY(vcopy, copy)
#undef TILEC_UNARY
template <class T, class S, class... X>
inline void vector_dup(T* d, S s, uint64_t r, uint64_t db, uint64_t, uint64_t dr, X...) {
    tilec_model::vector("vector_dup", tilec_model::Op::dup, tilec_model::dtype<T>(), d, nullptr, nullptr,
                        tilec_model::scalar_value(s), r, {{db, 0, 0}, {dr, 0, 0}});
}

// -- reductions, broadcast, compare and select (PIPE_V) ----------------------------------
template <class T, class... X>
inline void vcadd(T* d, T* s, uint64_t r, uint64_t dr, uint64_t sb, uint64_t sr, X... acc) {
    tilec_model::reduce("vcadd", tilec_model::Op::add, tilec_model::dtype<T>(), d, s, r, dr, sb,
                        sr, -1, (false || ... || (static_cast<uint64_t>(acc) != 0)));
}
#define TILEC_REDUCE(name, op)                                                               \
    template <class T>                                                                       \
    inline void name(T* d, T* s, uint64_t r, uint64_t dr, uint64_t sb, uint64_t sr,          \
                     Order_t order) {                                                        \
        tilec_model::reduce(#name, tilec_model::Op::op, tilec_model::dtype<T>(), d, s, r, dr, \
                            sb, sr, static_cast<int>(order), false);                         \
    }
TILEC_REDUCE(vcmax, max) TILEC_REDUCE(vcmin, min)
#undef TILEC_REDUCE
inline int64_t get_acc_val() { return static_cast<int64_t>(tilec_model::acc_value()); }
inline int64_t get_max_min_cnt() { return static_cast<int64_t>(tilec_model::max_min_count()); }
template <class T>
inline void vbrcb(T* d, T* s, uint64_t db, uint64_t dr, uint64_t r) {
    tilec_model::broadcast_blocks(sizeof(T), d, s, db, dr, r);
}
#define TILEC_COMPARE(name, mode)                                                            \
    template <class T>                                                                       \
    inline void name(uint8_t* d, T* a, T* b, uint64_t r, uint64_t db, uint64_t ab,           \
                     uint64_t bb, uint64_t dr, uint64_t ar, uint64_t br) {                   \
        tilec_model::compare(#name, mode, tilec_model::dtype<T>(), d, a, b, 0, r,            \
                             {{db, ab, bb}, {dr, ar, br}});                                  \
    }
TILEC_COMPARE(vcmpv_lt, 0) TILEC_COMPARE(vcmpv_gt, 1) TILEC_COMPARE(vcmpv_eq, 2)
TILEC_COMPARE(vcmpv_le, 3) TILEC_COMPARE(vcmpv_ge, 4) TILEC_COMPARE(vcmpv_ne, 5)
#undef TILEC_COMPARE
#define TILEC_COMPARE_SCALAR(name, mode)                                                     \
    template <class T, class S>                                                              \
    inline std::enable_if_t<!std::is_pointer_v<S>> name(uint8_t* d, T* a, S s, uint64_t r,   \
                                                        uint64_t db, uint64_t ab,            \
                                                        uint64_t dr, uint64_t ar) {          \
        tilec_model::compare(#name, mode, tilec_model::dtype<T>(), d, a, nullptr,            \
                             tilec_model::scalar_value(s), r, {{db, ab, 0}, {dr, ar, 0}});   \
    }
TILEC_COMPARE_SCALAR(vcmpvs_lt, 0) TILEC_COMPARE_SCALAR(vcmpvs_gt, 1)
TILEC_COMPARE_SCALAR(vcmpvs_eq, 2) TILEC_COMPARE_SCALAR(vcmpvs_le, 3)
TILEC_COMPARE_SCALAR(vcmpvs_ge, 4) TILEC_COMPARE_SCALAR(vcmpvs_ne, 5)
#undef TILEC_COMPARE_SCALAR
#define TILEC_GROUP_REDUCE(name, op, pairs)                                                  \
    template <class T>                                                                       \
    inline void name(T* d, T* s, uint64_t r, uint64_t dr, uint64_t sb, uint64_t sr) {        \
        tilec_model::group_reduce(#name, tilec_model::Op::op, tilec_model::dtype<T>(), d, s, \
                                  r, dr, sb, sr, pairs);                                     \
    }
TILEC_GROUP_REDUCE(vcgadd, add, false) TILEC_GROUP_REDUCE(vcgmax, max, false)
TILEC_GROUP_REDUCE(vcgmin, min, false) TILEC_GROUP_REDUCE(vcpadd, add, true)
#undef TILEC_GROUP_REDUCE
template <class T> inline void set_cmpmask(T* s) { tilec_model::set_cmpmask(s); }
template <class T> inline void get_cmpmask(T* d) { tilec_model::get_cmpmask(d); }
template <class T, class... X>
inline void vsel(T* d, T* a, T* b, uint64_t r, uint64_t db, uint64_t ab, uint64_t bb,
                 uint64_t dr, uint64_t ar, uint64_t br, X... mode) {
    tilec_model::select(tilec_model::dtype<T>(), d, a, b, r, {{db, ab, bb}, {dr, ar, br}},
                        (0 + ... + static_cast<int>(mode)));
}

#define TILEC_VCONV(name, from, to, mode)                                                    \
    template <class D, class S, class... X>                                                  \
    inline void name(D* d, S* s, uint64_t r, uint64_t db, uint64_t sb, uint64_t dr,          \
                     uint64_t sr, X...) {                                                    \
        tilec_model::convert(#name, tilec_model::Dt::to, tilec_model::Dt::from, mode, d, s, r, \
                             {{db, sb, 0}, {dr, sr, 0}});                                    \
    }
#define TILEC_VCONV_MODES(prefix, from, to)                                                  \
    TILEC_VCONV(prefix##r, from, to, 'r') TILEC_VCONV(prefix##a, from, to, 'a')              \
    TILEC_VCONV(prefix##f, from, to, 'f') TILEC_VCONV(prefix##c, from, to, 'c')              \
    TILEC_VCONV(prefix##z, from, to, 'z')
TILEC_VCONV(vconv_f162f32, f16, f32, 'n') TILEC_VCONV(vconv_bf162f32, bf16, f32, 'n')
TILEC_VCONV(vconv_f322f16, f32, f16, 'n') TILEC_VCONV(vconv_f322f16o, f32, f16, 'o')
TILEC_VCONV(vconv_s322f32, s32, f32, 'n') TILEC_VCONV(vconv_f162s32, f16, s32, 'n')
TILEC_VCONV_MODES(vconv_f322f16, f32, f16) TILEC_VCONV_MODES(vconv_f322bf16, f32, bf16)
TILEC_VCONV_MODES(vconv_s322f32, s32, f32) TILEC_VCONV_MODES(vconv_f322s32, f32, s32)
TILEC_VCONV_MODES(vconv_f162s32, f16, s32) TILEC_VCONV_MODES(vconv_f322f32, f32, f32)
TILEC_VCONV(vconv_s82f16, s8, f16, 'n') TILEC_VCONV_MODES(vconv_f162s16, f16, s16)
#undef TILEC_VCONV_MODES
#undef TILEC_VCONV

#include "tilec_unmodelled.h"  // the build's list: every other intrinsic the headers name
#endif  // TILEC_INTRINSICS_H
