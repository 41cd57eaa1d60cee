// The intrinsic model's interface to the vendor headers (written here).
#ifndef TILEC_MODEL_H
#define TILEC_MODEL_H
#include <cstdint>
#include <cassert>
#include <map>
#include <set>
#include <vector>
#include <iostream>
namespace AscendC {
// the core types of utils/base/sys_constants.h (MIX 0, AIC 1, AIV 2)
constexpr int32_t MIX_TYPE = 0, AIC_TYPE = 1, AIV_TYPE = 2;
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };
inline bool g_isVdeq = false;
}
enum ub_addr8_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };
enum vpart_t { L128 = 0, H128 };
#define __host__
#define ASCENDC_HOST
#define ASCENDC_AICORE
#define ASCENDC_HOST_AICORE
#define __BLOCK_LOCAL__
#define __WORKGROUP_LOCAL__
// per-core state the headers read: each core runs its own copy of the kernel library
inline int32_t g_coreType = AscendC::AIV_TYPE;
inline int64_t block_idx = 0;
inline int64_t block_num = 1;
inline int64_t sub_block_idx = 0;
inline int32_t g_taskRation = 2;
inline AscendC::KernelMode g_kernelMode = AscendC::KernelMode::AIV_MODE;
inline uint64_t g_fixpipeNdNzParam = 0;
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ != 3510  // the 950's: tilec_intrinsics_3510.h
// the 950's register-level vector types (the emitted code does not use them)
#define TILEC_VREG(name) struct name { template <class T> name& operator=(const T&) \
    { return *this; } };
TILEC_VREG(vector_address) TILEC_VREG(vector_align) TILEC_VREG(vector_bool)
TILEC_VREG(vector_bf16) TILEC_VREG(vector_f16) TILEC_VREG(vector_f32)
TILEC_VREG(vector_f4e1m2x2) TILEC_VREG(vector_f4e2m1x2) TILEC_VREG(vector_f8e4m3)
TILEC_VREG(vector_f8e5m2) TILEC_VREG(vector_f8e8m0) TILEC_VREG(vector_hif8)
TILEC_VREG(vector_s16) TILEC_VREG(vector_s32) TILEC_VREG(vector_s4x2) TILEC_VREG(vector_s64)
TILEC_VREG(vector_s8) TILEC_VREG(vector_u16) TILEC_VREG(vector_u32) TILEC_VREG(vector_u64)
TILEC_VREG(vector_u8) TILEC_VREG(vector_load_unalign) TILEC_VREG(vector_store_unalign)
#undef TILEC_VREG
#endif
namespace tilec_model {
[[noreturn]] void check_failed(int sig);
[[noreturn]] void unmodelled(const char* name);
/// The emitted source's line and op the core is at (set at each op's marker comment).
void at(int line, const char* op);
/// The core's TPipe has set up its buffers (the headers' CPU mode fills them with random
/// values then): another core may write into them from now on.
void buffers_ready();
struct Any {  // what an intrinsic the model leaves out returns
    template <class T> operator T() const { return T(); }
#define TILEC_ANY_OP(op) template <class T> friend int64_t operator op(Any, T) { return 0; }
    TILEC_ANY_OP(+) TILEC_ANY_OP(-) TILEC_ANY_OP(*) TILEC_ANY_OP(/) TILEC_ANY_OP(%)
    TILEC_ANY_OP(&) TILEC_ANY_OP(|) TILEC_ANY_OP(>>) TILEC_ANY_OP(<<) TILEC_ANY_OP(==)
    TILEC_ANY_OP(!=) TILEC_ANY_OP(<) TILEC_ANY_OP(>) TILEC_ANY_OP(<=) TILEC_ANY_OP(>=)
#undef TILEC_ANY_OP
};
}
// the CPU library's bookkeeping of queues and buffers (its checks): nothing to model
#define TILEC_HOOK(name) template <class... A> inline void name(A&&...) {}
TILEC_HOOK(AscendCBufAlloc) TILEC_HOOK(AscendCBufDeque)
TILEC_HOOK(AscendCBufEnque) TILEC_HOOK(AscendCBufFree) TILEC_HOOK(AscendCBufGet)
TILEC_HOOK(AscendCBufInit) TILEC_HOOK(AscendCQueCreate) TILEC_HOOK(AscendCRecordPoolHierarchy)
TILEC_HOOK(AscendCTBufPoolInit) TILEC_HOOK(AscendCTBufPoolResetCheck)
TILEC_HOOK(AscendCUpdateTbufPoolStatus)
#undef TILEC_HOOK
// TPipe::Init reports its buffers' addresses once it has filled them (SetBufferCtx)
template <class... A> inline void AscendCBufAbsAddr(A&&...) { tilec_model::buffers_ready(); }
#include "tilec_intrinsics.h"
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
#include "tilec_intrinsics_3510.h"  // the 950: real vector registers the class API computes in
#endif
#endif
