// The element types and enums the bisheng compiler builds in, for g++ (written here).
#ifndef TILEC_TYPES_H
#define TILEC_TYPES_H

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tilec_model {
inline uint32_t float_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
}  // namespace tilec_model

// IEEE binary16: g++'s _Float16 does the arithmetic, rounding to nearest even.
struct half {
    _Float16 v;
    half() = default;
    constexpr half(_Float16 x) : v(x) {}
    template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
    constexpr half(T x) : v(static_cast<_Float16>(static_cast<float>(x))) {}
    constexpr operator float() const { return static_cast<float>(v); }
    float ToFloat() const { return static_cast<float>(v); }
    half& operator+=(half o) { v += o.v; return *this; }
    half& operator-=(half o) { v -= o.v; return *this; }
    half& operator*=(half o) { v *= o.v; return *this; }
    half& operator/=(half o) { v /= o.v; return *this; }
    friend half operator+(half a, half b) { return half(static_cast<_Float16>(a.v + b.v)); }
    friend half operator-(half a, half b) { return half(static_cast<_Float16>(a.v - b.v)); }
    friend half operator*(half a, half b) { return half(static_cast<_Float16>(a.v * b.v)); }
    friend half operator/(half a, half b) { return half(static_cast<_Float16>(a.v / b.v)); }
    half operator-() const { return half(static_cast<_Float16>(-v)); }
};

// bfloat16: the top half of a float, rounded to nearest even.
struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    template <class T, class = std::enable_if_t<std::is_arithmetic_v<T> ||
                                                std::is_same_v<T, half>>>
    bfloat16_t(T x) : bits(from(static_cast<float>(x))) {}
    operator float() const { return tilec_model::bits_float(static_cast<uint32_t>(bits) << 16); }
    float ToFloat() const { return static_cast<float>(*this); }
    static uint16_t from(float f) {
        uint32_t u = tilec_model::float_bits(f);
        if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);
        return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
};

namespace tilec_model {
/// An 8-bit float with `E` exponent bits (bias 2^(E-1)-1) and `M` mantissa bits; `FN`: no
/// infinities, the all-ones pattern is NaN (e4m3fn). Conversions round to nearest even and
/// saturate to the largest finite value.
template <int E, int M, bool FN>
struct Float8 {
    uint8_t bits;
    Float8() = default;
    template <class T, class = std::enable_if_t<std::is_arithmetic_v<T> ||
                                                std::is_same_v<T, half> ||
                                                std::is_same_v<T, bfloat16_t>>>
    Float8(T x) : bits(encode(static_cast<float>(x))) {}
    operator float() const { return decode(bits); }
    static constexpr int bias = (1 << (E - 1)) - 1;
    static float decode(uint8_t b) {
        int sign = b >> 7, exp = (b >> M) & ((1 << E) - 1), man = b & ((1 << M) - 1);
        if (FN ? (exp == (1 << E) - 1 && man == (1 << M) - 1) : exp == (1 << E) - 1)
            return FN || man ? NAN : (sign ? -INFINITY : INFINITY);
        float v = exp ? std::ldexp(1.0f + man / float(1 << M), exp - bias)
                      : std::ldexp(man / float(1 << M), 1 - bias);
        return sign ? -v : v;
    }
    static float largest() {
        return FN ? std::ldexp(1.0f + ((1 << M) - 2) / float(1 << M), (1 << E) - 1 - bias)
                  : std::ldexp(1.0f + ((1 << M) - 1) / float(1 << M), (1 << E) - 2 - bias);
    }
    static uint8_t encode(float f) {
        uint8_t sign = std::signbit(f) ? 0x80 : 0;
        if (std::isnan(f)) return FN ? 0x7f : static_cast<uint8_t>(0x7c | 2);
        float a = std::fabs(f);
        if (a >= largest()) a = largest();
        uint8_t best = 0;
        float best_error = INFINITY;
        for (int b = 0; b < 0x80; ++b) {  // nearest of the finite codes, ties to even
            float v = decode(static_cast<uint8_t>(b));
            if (std::isnan(v) || std::isinf(v)) continue;
            float error = std::fabs(v - a);
            if (error < best_error || (error == best_error && (b & 1) == 0)) {
                best = static_cast<uint8_t>(b);
                best_error = error;
            }
        }
        return static_cast<uint8_t>(sign | best);
    }
};

/// A storage-only element type the model moves but does not compute with.
template <int Tag>
struct Opaque8 {
    union { uint8_t bits; uint8_t val; };  // val: the 950's headers read 4-bit types' field
    Opaque8() = default;
    template <class T> Opaque8(T) : bits(0) {}
    operator float() const { return 0.0f; }
};
}  // namespace tilec_model

using fp8_e4m3fn_t = tilec_model::Float8<4, 3, true>;
using fp8_e5m2_t = tilec_model::Float8<5, 2, false>;
using fp8_e8m0_t = tilec_model::Opaque8<0>;
using hifloat8_t = tilec_model::Opaque8<1>;
using fp4x2_e2m1_t = tilec_model::Opaque8<2>;
using fp4x2_e1m2_t = tilec_model::Opaque8<3>;
using int4x2_t = tilec_model::Opaque8<4>;
using hifloat4x2_t = tilec_model::Opaque8<5>;

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4,
              PIPE_MTE5, PIPE_V2, PIPE_FIX, PIPE_NUM };
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6,
               EVENT_ID7 };
enum mem_t { MEM_NONE };
enum pad_t { PAD_NONE = 0, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5, PAD_MODE6,
             PAD_MODE7, PAD_MODE8 };
enum cache_line_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum dcci_dst_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum mem_dsb_t { DSB_ALL = 0, DSB_DDR, DSB_UB, DSB_SEQ };
enum addr_cal_mode_t { inc = 0, dec };
enum csize_t { CSIZE0 = 0, CSIZE1 };
enum Order_t { VALUE_INDEX = 0, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
enum atomic_type_t { ATOMIC_NONE = 0, ATOMIC_F32, ATOMIC_F16, ATOMIC_S16, ATOMIC_S32,
                     ATOMIC_S8, ATOMIC_BF16 };
enum atomic_op_t { ATOMIC_SUM = 0, ATOMIC_MAX, ATOMIC_MIN };
enum mem_bar_t { VV_ALL, VS_ALL, VST_VLD, VLD_VST, VST_VST, VST_LD, VST_ST, VLD_ST, ST_VLD,
                 ST_VST, LD_VST, SV_ALL };
enum class QuantMode_t { NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322F16_PRE,
                         VQF322F16_PRE, QF322BF16_PRE, VQF322BF16_PRE, QF322B8_PRE,
                         VQF322B8_PRE, REQ8, VREQ8,
                         // the 950's (impl/basic_api/dav_3510/kernel_operator_fixpipe_impl.h)
                         QS322BF16_PRE, VQS322BF16_PRE, QF322FP8_PRE, VQF322FP8_PRE,
                         QF322HIF8_PRE, VQF322HIF8_PRE, QF322HIF8_PRE_HYBRID,
                         VQF322HIF8_PRE_HYBRID, QF322F32_PRE, VQF322F32_PRE };
constexpr int warpSize = 32;
namespace cce { struct dim3 { uint32_t x = 1, y = 1, z = 1; }; }

#endif  // TILEC_TYPES_H
