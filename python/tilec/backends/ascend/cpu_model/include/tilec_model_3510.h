// The 950's (__NPU_ARCH__ 3510) part of the model's interface: the functions
// model/regvector_3510.cpp implements, for tilec_intrinsics_3510.h (written here).
#ifndef TILEC_MODEL_3510_H
#define TILEC_MODEL_3510_H
#include <cstdint>

namespace tilec_model {
/// A vector register holds VL = 256 bytes (VECTOR_REG_WIDTH, kernel_reg_compute_utils.h);
/// a predicate register one bit per byte of it: element i of an N-byte type is active
/// when bit i * N is set.
constexpr int kVectorBytes = 256;
/// The merging modes of the register intrinsics (MaskMergeMode: 1 merging, 2 zeroing).
constexpr int kMerging = 1;

/// plt_bN: the first min(n, VL / N) elements active; `update` subtracts them from n.
void predicate_count(uint8_t* pred, int element_bytes, uint32_t& n, bool update);
/// movp_bN: element i of `element_bytes` active when bit i of the vector mask is set.
void predicate_from_mask(uint8_t* pred, int element_bytes);
/// pset_bN: the elements `pattern` (MaskPattern) names active.
void predicate_pattern(uint8_t* pred, int element_bytes, int pattern);
/// vlds: a register loaded from UB at `src` as `dist` (LoadDist) says.
void reg_load(Dt type, void* reg, const void* src, int dist);
/// vsts: the register's active elements stored to UB at `dst` as `dist` (StoreDist) says.
void reg_store(Dt type, const void* reg, void* dst, int dist, const uint8_t* pred);
/// A register operation: dst = op(a, b) (b null: op(a, scalar)) on the active elements,
/// the others zero or kept as `mode` says.
void reg_compute(const char* name, Op op, Dt type, void* dst, const void* a, const void* b,
                 double scalar, const uint8_t* pred, int mode);
/// vstus: the first `count` elements stored to UB at `dst` (any alignment).
void reg_store_first(Dt type, const void* reg, void* dst, uint32_t count);
/// pstu: the predicate as one bit per `element_bytes` element, stored to UB at `dst`.
void predicate_store(const uint8_t* pred, int element_bytes, void* dst);
/// vsstb: the register's 32-byte block b (its active elements) to dst + b * stride blocks.
void reg_store_blocks(Dt type, const void* reg, void* dst, uint32_t block_stride,
                      const uint8_t* pred);
/// vsldb: the register's 32-byte block b (its active elements) from src + b * stride blocks.
void reg_load_blocks(Dt type, void* reg, const void* src, uint32_t block_stride,
                     const uint8_t* pred);
/// plds: a predicate from UB as `dist` (MaskDist 0 norm, 1 upsampled, 2 downsampled) says.
void predicate_load(uint8_t* pred, const void* src, int dist);
/// punpack / ppack: `part` 0 the lower half, 1 the higher.
void predicate_unpack(uint8_t* dst, const uint8_t* src, int part);
void predicate_pack(uint8_t* dst, const uint8_t* src, int part);
/// pintlv / pdintlv: the `element_bytes` elements of a and b interleaved into d0, d1
/// (`split`: a then b split into their even elements, d0, and odd ones, d1).
void predicate_interleave(uint8_t* d0, uint8_t* d1, const uint8_t* a, const uint8_t* b,
                          int element_bytes, bool split);
/// vsel: dst = a where the predicate is set, b elsewhere.
void reg_select(Dt type, void* dst, const void* a, const void* b, const uint8_t* pred);
/// vcadd / vcmax / vcmin: op over the active elements into element 0, the rest zero.
void reg_reduce(const char* name, Op op, Dt type, void* dst, const void* src,
                const uint8_t* pred);
/// vcgadd / vcgmax / vcgmin: each 32-byte block's active elements reduced into element b
/// (a block with none: 0, -inf or inf); vcpadd (`pairs`): lanes 2i and 2i + 1 summed into
/// element i; the rest zero.
void reg_group_reduce(const char* name, Op op, Dt type, void* dst, const void* src,
                      const uint8_t* pred, bool pairs);
/// vcmp / vcmps: `dst` the predicate of the active elements where a `compare` b (or the
/// scalar, b null) holds: 0 eq, 1 ne, 2 gt, 3 ge, 4 lt, 5 le.
void reg_compare(int compare, Dt type, uint8_t* dst, const void* a, const void* b,
                 double scalar, const uint8_t* pred);
/// vcvt: the active lanes (of the wider type) converted; widening reads source element
/// 2i + part into lane i, narrowing writes lane i's result to element 2i + part (the lane's
/// other half zero); `round` a ROUND (0 to nearest even ... 5 to odd), `sat` saturating.
void reg_convert(Dt to, Dt from, void* dst, const void* src, const uint8_t* pred, int round,
                 bool sat, int part, int mode);

// the cube path (model/cube.cpp)
void set_mte2_nz_para(uint64_t config);
/// Nd2Nz (Dn2Nz, `column_major`: the GM matrix read by columns) of `n` rows (columns) of `d`
/// elements, `row_bytes` apart, into L1 as MTE2_NZ_PARA says.
void to_nz(Dt type, void* dst, const void* src, uint64_t row_bytes, uint64_t n, uint64_t d,
           uint64_t matrix_bytes, bool column_major);
/// LoadData 2D V2: fractal (m, k) of the step, at (k_start + k) * |src_stride| + m_start + m
/// fractals of the source, to k * dst_stride + m of the destination (16-bit ones transposed
/// with `transpose`).
void load_2dv2(int target, Dt type, void* dst, const void* src, uint64_t m_start,
               uint64_t k_start, uint64_t m_step, uint64_t k_step, int64_t src_stride,
               uint64_t dst_stride, bool transpose);
/// The address in sub-block `sub_block`'s UB that `own` (in this AIC's) stands for.
void* peer_ub(const void* own, int sub_block);
/// The address in the block's AIC's L1 that `own` (in this AIV's) stands for.
void* peer_l1(const void* own);
}  // namespace tilec_model

#endif  // TILEC_MODEL_3510_H
