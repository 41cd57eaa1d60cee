// The 910b's compares and selects (written here), as the class API's 2201 implementation
// uses them (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h,
// kernel_operator_vec_cmpsel_impl.h):
// - vcmpv_<mode>(dst, src0, src1, repeat, block strides, repeat strides) compares every
//   lane of each repeat (the level-0 API drops its mask: VcmpvImpl's `(void)(mask)`) and
//   writes a bit per lane, least significant first, the repeats' bits back to back
//   (CompareCompute advances dst by a repeat's lanes / 8 bytes per repeat).
// - vcmpvs_<mode>(dst, src0, scalar, repeat, dstBlkStride, srcBlkStride, dstRepStride,
//   srcRepStride) (CompareScalar, VcmpvsIntrinsicsImpl): the same, every lane against the
//   scalar.
// - set_cmpmask / get_cmpmask move the 128-bit CMPMASK register from / to UB.
// - vsel(dst, src0, src1, repeat, strides..., mode): lane i takes src0 where its selection
//   bit is set, else src1. Mode 0 (VSEL_CMPMASK_SPR) takes bit i of CMPMASK for every
//   repeat; mode 2 (VSEL_TENSOR_TENSOR_MODE) takes them from the selection tensor CMPMASK
//   addresses (the CPU-debug branch of VselImpl stores its host address there), repeat r's
//   at byte r * lanes / 8 of it. The vector mask (counter or normal) picks the lanes.
#include <cstring>
#include <vector>

#include "core.h"

namespace tilec_model {

namespace {
bool compared(int mode, float a, float b) {
    switch (mode) {
        case 0: return a < b;
        case 1: return a > b;
        case 2: return a == b;
        case 3: return a <= b;
        case 4: return a >= b;
        default: return a != b;
    }
}

template <class T>
float lane(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<float>(v);
}

float read_lane(Dt type, const uint8_t* p) {
    switch (type) {
        case Dt::f32: return lane<float>(p);
        case Dt::f16: return lane<half>(p);
        case Dt::s32: return static_cast<float>(lane<int32_t>(p));
        case Dt::s16: return lane<int16_t>(p);
        default: unmodelled("a compare of this element type");
    }
}

/// Lane `i` of repeat `r` of operand `o`: block i / (32 / size), at its block stride.
const uint8_t* at_lane(const void* base, int o, uint64_t r, uint64_t i, size_t size,
                       const Strides& st) {
    uint64_t per_block = 32 / size;
    return static_cast<const uint8_t*>(base) +
           (r * st.repeat[o] + i / per_block * st.block[o]) * 32 + i % per_block * size;
}
}  // namespace

void compare(const char* name, int mode, Dt type, void* dst, const void* a, const void* b,
             double scalar, uint64_t repeat, const Strides& st) {
    size_t size = size_of(type);
    uint64_t per_repeat = 256 / size;
    auto* bits = static_cast<uint8_t*>(dst);
    std::vector<Range> reads, writes;
    for (uint64_t r = 0; r < repeat; ++r) {
        uint8_t* out = bits + r * per_repeat / 8;
        std::memset(out, 0, per_repeat / 8);
        for (uint64_t i = 0; i < per_repeat; ++i) {
            const uint8_t* x = at_lane(a, 1, r, i, size, st);
            float y = static_cast<float>(scalar);
            if (b != nullptr) {
                const uint8_t* from = at_lane(b, 2, r, i, size, st);
                y = read_lane(type, from);
                reads.push_back(span(from, size));
            }
            if (compared(mode, read_lane(type, x), y)) out[i / 8] |= 1u << (i % 8);
            reads.push_back(span(x, size));
        }
        writes.push_back(span(out, per_repeat / 8));
    }
    issue(PIPE_V, name, merged(reads), merged(writes));
}

void set_cmpmask(const void* src) {
    std::memcpy(core().cmpmask, src, 16);
    issue(PIPE_V, "set_cmpmask", {span(src, 16)}, {});
}

void get_cmpmask(void* dst) {
    std::memcpy(dst, core().cmpmask, 16);
    issue(PIPE_V, "get_cmpmask", {}, {span(dst, 16)});
}

void select(Dt type, void* dst, const void* a, const void* b, uint64_t repeat,
            const Strides& st, int mode) {
    Core& c = core();
    if (mode != 0 && mode != 2) unmodelled("vsel in the tensor-scalar mode");
    size_t size = size_of(type);
    uint64_t per_repeat = 256 / size;
    const uint8_t* selection = c.cmpmask;
    if (mode == 2) std::memcpy(&selection, c.cmpmask, sizeof(selection));
    std::vector<Range> reads, writes;
    for (uint64_t r = 0, repeats = c.repeats(repeat, per_repeat); r < repeats; ++r) {
        const uint8_t* bits = mode == 2 ? selection + r * per_repeat / 8 : selection;
        if (mode == 2) reads.push_back(span(bits, per_repeat / 8));
        for (uint64_t i = 0; i < per_repeat; ++i) {
            if (!c.lane_on(r, i, per_repeat)) continue;
            const uint8_t* x = at_lane(a, 1, r, i, size, st);
            const uint8_t* y = at_lane(b, 2, r, i, size, st);
            auto* to = const_cast<uint8_t*>(at_lane(dst, 0, r, i, size, st));
            std::memcpy(to, (bits[i / 8] >> (i % 8)) & 1 ? x : y, size);
            reads.push_back(span(x, size));
            reads.push_back(span(y, size));
            writes.push_back(span(to, size));
        }
    }
    issue(PIPE_V, "vsel", merged(reads), merged(writes));
}

}  // namespace tilec_model
