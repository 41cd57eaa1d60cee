"""Compiling emitted AscendC against the vendor's own headers, without the toolkit.

asc-devkit (the public AscendC headers) is the API; what it leaves to the toolkit is
the bisheng compiler's builtins (half and the other element types, the pipe and event
enums, address-space qualifiers, vector-register types) and the intrinsics its
implementation files call. `compile_errors` stands in for those builtins only: it
compiles a translation unit with g++ -fsyntax-only against the headers of the API
(every struct, enum, overload and default template argument as declared), with the
implementation headers (`*_impl.h`, whose bodies call intrinsics) left out where they
define no type, and declares the intrinsics that the headers' own inline code calls as
they turn up, round by round. A name the emitted source calls never gets such a
declaration, so a call, type, field or template argument that the API does not
declare is an error here, as it would be for the vendor's compiler.

Nothing of the headers is copied: they are read from the checkout at `root`.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

DEVKIT = os.environ.get("ASCEND_DEVKIT")
"""A copy of github.com/mirror-cann/asc-devkit, the vendor's AscendC headers, if set."""

needs_devkit = pytest.mark.skipif(
    not DEVKIT or not (Path(DEVKIT) / "include" / "kernel_operator.h").is_file(),
    reason="set ASCEND_DEVKIT to a copy of github.com/mirror-cann/asc-devkit "
    "(its include/kernel_operator.h): the vendor's AscendC headers",
)

ADVANCED_MATH = ("Tanh", "Sin", "Cos", "Erf")
"""The advanced API's calls the sources make; the rest of the advanced API is left out."""

_BUILTINS = r"""
// The bisheng compiler's builtins that the AscendC headers use, for g++ (written here).
#include <cstddef>
#include <cstdint>
#define __global__
#define __aicore__
#define __gm__
#define __cbuf__
#define __ubuf__
#define __cc__
#define __ca__
#define __cb__
#define __fbuf__
#define __ssbuf__
#define __simd_callee__
#define __simt_callee__
#define __simd_vf__
#define __inout_pipe__(p)
#define __in_pipe__(p)
#define __out_pipe__(p)
#define __sync_alias__
#define __sync_noalias__
#define __check_sync_alias__
struct TilecAny {  // what an intrinsic returns: converts to whatever the header wants
    template <class T> constexpr operator T() const { return T(); }
#define TILEC_ANY_OP(op) template <class T> friend constexpr int64_t operator op(TilecAny, T) \
    { return 0; }
    TILEC_ANY_OP(+) TILEC_ANY_OP(-) TILEC_ANY_OP(*) TILEC_ANY_OP(%) TILEC_ANY_OP(&)
    TILEC_ANY_OP(|) TILEC_ANY_OP(>>) TILEC_ANY_OP(<<) TILEC_ANY_OP(==)
};
#define TILEC_SCALAR(name) struct name { float v; name() = default; \
    template <class T> constexpr name(T t) : v(static_cast<float>(t)) {} \
    constexpr operator float() const { return v; } };
TILEC_SCALAR(half) TILEC_SCALAR(bfloat16_t) TILEC_SCALAR(float8_e4m3_t)
TILEC_SCALAR(float8_e5m2_t) TILEC_SCALAR(float8_e8m0_t) TILEC_SCALAR(hifloat8_t)
TILEC_SCALAR(float4_e2m1x2_t) TILEC_SCALAR(float4_e1m2x2_t) TILEC_SCALAR(int4x2_t)
TILEC_SCALAR(hifloat4x2_t)
#define TILEC_VREG(name) struct name { template <class T> name& operator=(const T&) \
    { return *this; } };
TILEC_VREG(vector_address) TILEC_VREG(vector_align) TILEC_VREG(vector_bool)
TILEC_VREG(vector_bf16) TILEC_VREG(vector_f16) TILEC_VREG(vector_f32)
TILEC_VREG(vector_f4e1m2x2) TILEC_VREG(vector_f4e2m1x2) TILEC_VREG(vector_f8e4m3)
TILEC_VREG(vector_f8e5m2) TILEC_VREG(vector_f8e8m0) TILEC_VREG(vector_hif8)
TILEC_VREG(vector_s16) TILEC_VREG(vector_s32) TILEC_VREG(vector_s4x2) TILEC_VREG(vector_s64)
TILEC_VREG(vector_s8) TILEC_VREG(vector_u16) TILEC_VREG(vector_u32) TILEC_VREG(vector_u64)
TILEC_VREG(vector_u8) TILEC_VREG(vector_load_unalign) TILEC_VREG(vector_store_unalign)
enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4,
              PIPE_MTE5, PIPE_V2, PIPE_FIX, PIPE_NUM };
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6,
               EVENT_ID7 };
enum mem_t { MEM_NONE };
enum pad_t { PAD_NONE };
enum cache_line_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum dcci_dst_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum mem_dsb_t { DSB_ALL = 0, DSB_DDR, DSB_UB, DSB_SEQ };
enum addr_cal_mode_t { inc = 0, dec };
enum mem_bar_t { VV_ALL, VS_ALL, VST_VLD, VLD_VST, VST_VST, VST_LD, VST_ST, VLD_ST, ST_VLD,
                 ST_VST, LD_VST, SV_ALL };
enum class QuantMode_t { NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322F16_PRE,
                         VQF322F16_PRE, QF322BF16_PRE, VQF322BF16_PRE, QF322B8_PRE,
                         VQF322B8_PRE, REQ8, VREQ8 };
constexpr int warpSize = 32;
namespace cce { struct dim3 { uint32_t x = 1, y = 1, z = 1; }; }
namespace __asc_aicore {  // the device printf of the left-out debug headers
template <class... A> void printf(A...); template <class... A> void PRINTF(A...);
template <class... A> void printf_impl(A...);
}
namespace __asc_simt_vf { template <class... A> void printf(A...); }
"""

_TYPE_HEADERS = ("asc_simd_debug", "bitmode", "datatype", "kernel_operator_mm_base_impl.h",
                 "dav_3510/kernel_operator_mm_impl.h", "dav_c220/kernel_operator_mm_impl.h")
"""Implementation headers that define types the interface headers use: kept."""

_MATH = re.compile(rf"include/adv_api/math/({'|'.join(m.lower() for m in ADVANCED_MATH)})"
                   r"(_utils)?\.h")


def _guard(path: Path) -> str | None:
    match = re.search(r"#ifndef\s+(\w+)\s*\n\s*#define\s+\1\b", path.read_text(errors="replace"))
    return match.group(1) if match else None


def _left_out(root: Path) -> list[str]:
    """The include guards to predefine, which leave out the implementation headers (and
    the advanced API but for its math calls); a guard that an interface header shares
    with one of them keeps both."""
    out, kept = set(), set()
    for path in [*root.glob("impl/**/*.h"), *root.glob("include/**/*_impl.h")]:
        rel, guard = str(path.relative_to(root)), _guard(path)
        if guard is None:
            continue
        if any(part in rel for part in _TYPE_HEADERS):
            kept.add(guard)
        elif (rel.endswith("_impl.h") and not rel.startswith("impl/utils/")) or \
                rel.startswith("impl/utils/debug/"):
            out.add(guard)
    for path in root.glob("include/**/*.h"):
        rel, guard = str(path.relative_to(root)), _guard(path)
        if guard is None:
            continue
        if rel.startswith("include/adv_api/") and not _MATH.fullmatch(rel):
            out.add(guard)
        elif not rel.endswith("_impl.h"):
            kept.add(guard)
    return sorted(out - kept)


def _unit(sources: str) -> str:
    """The advanced math calls' headers around kernel_operator.h, then the sources. Their
    implementations are left out, so the functions they forward to are declared here."""
    forwarded = "".join(f"template <class T, bool R, const {op}Config& C, class... A> "
                        f"void {op}Impl(A&&...);\n"
                        f"template <class T, bool R, class... A> void {op}Impl(A&&...);\n"
                        for op in ADVANCED_MATH)
    return "".join([
        *(f'#include "adv_api/math/{op.lower()}_utils.h"\n' for op in ADVANCED_MATH),
        f"namespace AscendC {{\n{forwarded}}}\n", '#include "kernel_operator.h"\n',
        *(f'#include "adv_api/math/{op.lower()}.h"\n' for op in ADVANCED_MATH), sources])


def compile_errors(root: Path, arch: int, sources: str, folder: Path, rounds: int = 6) -> str:
    """g++'s errors for `sources` (kernels without their host launchers) against the
    headers at `root` for `__NPU_ARCH__` `arch`; "" when it compiles."""
    (folder / "builtins.h").write_text(_BUILTINS)
    (folder / "unit.cpp").write_text(_unit(sources))
    guards = [f"-D{guard}" for guard in _left_out(root)]
    includes = [root, root / "include", root / "include" / "basic_api",
                root / "include" / "utils", root / "impl", root / "impl" / "basic_api",
                root / "impl" / "utils"]
    intrinsics: set[str] = set()
    errors = ""
    for _ in range(rounds):
        (folder / "intrinsics.h").write_text("".join(
            f"template <class... A> inline TilecAny {name}(A&&...) {{ return {{}}; }}\n"
            for name in sorted(intrinsics)))
        result = subprocess.run(
            ["g++", "-std=c++17", "-fsyntax-only", "-fmax-errors=100000",
             f"-D__NPU_ARCH__={arch}", "-DLIB_KERNEL_API_H", *guards,
             "-include", str(folder / "builtins.h"), "-include", str(folder / "intrinsics.h"),
             "-include", str(root / "impl" / "utils" / "debug" / "asc_simd_debug_traits.h"),
             *(f"-I{p}" for p in includes), str(folder / "unit.cpp")],
            capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"})
        errors = "\n".join(line for line in result.stderr.splitlines() if "error:" in line)
        if result.returncode == 0:
            return ""
        # undeclared names that the headers' own code calls: intrinsics
        in_headers = "\n".join(line for line in result.stderr.splitlines()
                               if line.startswith(str(root)))
        found = set(re.findall(r"there are no arguments to '(\w+)'", in_headers))
        found |= {name for name in re.findall(r"'(\w+)' was not declared in this scope",
                                               in_headers)
                  if re.search(rf"\b{name}\s*\(", result.stderr)}
        if not found - intrinsics:
            break
        intrinsics |= found
    return errors or "g++ failed without an error line"
