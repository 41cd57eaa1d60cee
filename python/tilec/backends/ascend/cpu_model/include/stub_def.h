// tilec's stand-in for the CANN toolkit's CPU-debug stub_def.h (written here, not the
// vendor's): what the asc-devkit headers take from the bisheng compiler and from the
// toolkit's CPU library when ASCENDC_CPU_DEBUG=1. Element types are real (half is a
// 16-bit IEEE float, bfloat16_t keeps the top 16 bits of a float), the per-core state the
// headers read (block_idx, g_coreType, ...) lives in each core's copy of the kernel
// library, and every intrinsic resolves to the model (tilec_model.h).
#ifndef TILEC_STUB_DEF_H
#define TILEC_STUB_DEF_H

#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define __global__
#define __aicore__
#define __host_aicore__
#define __gm__
#define __cbuf__
#define __ubuf__
#define __cc__
#define __ca__
#define __cb__
#define __fbuf__
#define __biasbuf__
#define __ssbuf__
#define __simd_callee__
#define __simt_callee__
#define __simd_vf__
#define __inout_pipe__(...)
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __sync_alias__
#define __sync_noalias__
#define __check_sync_alias__
#define __disable_kernel_type_autoinfer__

#include "tilec_types.h"
#include "tilec_model.h"

// The vendor headers' own checks end in raise(SIGABRT): here they end the run with an
// error instead of the Python process.
#define raise(sig) tilec_model::check_failed(sig)

#endif  // TILEC_STUB_DEF_H
