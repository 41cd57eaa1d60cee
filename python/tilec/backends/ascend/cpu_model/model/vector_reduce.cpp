// The 910b's reductions and block broadcast (written here), as the class API's 2201
// implementation uses them (asc-devkit impl/basic_api/dav_c220/
// kernel_operator_vec_reduce_impl.h, kernel_operator_vec_brcb_impl.h):
// - vcadd / vcmax / vcmin(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, x)
//   reduce the lanes the mask enables of each repeat (8 blocks of 32 B, block b of repeat r
//   at (r * srcRepStride + b * srcBlkStride) * 32 B) to one record at dst + r *
//   dstRepStride records: vcadd's record is the sum; vcmax's / vcmin's, for Order_t
//   VALUE_INDEX, the value then the lane's index in the repeat as an unsigned integer of
//   the element's width (GetIndex reads it back so, ReduceImplFirstStep places repeat r's
//   record at 2 r), INDEX_VALUE the two swapped, ONLY_VALUE / ONLY_INDEX one element. A
//   tie keeps the first lane. vcmax / vcmin leave the last record in MAX_MIN_CNT (value in
//   bits 0-31, index in 32-63: GetReduceMaxMinCountImpl reads it so).
// - vcadd's last operand set (ReduceSumImpl's count mode) sums every repeat into ACC_VAL
//   (get_acc_val), which the class API then stores with a scalar write: the model writes
//   no record then.
// - sums add in float (f16 lanes too) as a tree of adjacent pairs, rounded once to the
//   element type.
// - vcgadd / vcgmax / vcgmin(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride)
//   (BlockReduceSum / Max / Min, ReduceDataBlock.md): each of a repeat's 8 blocks reduced
//   to one element, the 8 at dst + r * dstRepStride * 8 elements; a block with no lane
//   the mask enables writes nothing (the 910b keeps the destination's element).
// - vcpadd(same operands) (PairReduceSum, ReducePairElem.md): lanes 2i and 2i + 1 summed
//   into element i of the repeat's half-length record at dst + r * dstRepStride * 128 B; a
//   mask that splits a pair is not modelled (the documentation does not say what it sums).
// - vbrcb(dst, src, dstBlkStride, dstRepStride, repeat): repeat r reads 8 elements from
//   src + 8 r and fills block b (at (r * dstRepStride + b * dstBlkStride) * 32 B) with
//   element b; it takes no mask (BrcbImpl resets it).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core.h"

namespace tilec_model {

namespace {
template <class T>
float as_float(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<float>(v);
}

/// Adjacent pairs added level by level, as a reduction tree adds them.
float tree_sum(std::vector<float> values) {
    if (values.empty()) return 0.0f;
    while (values.size() > 1) {
        std::vector<float> next((values.size() + 1) / 2);
        for (size_t i = 0; i < next.size(); ++i)
            next[i] = 2 * i + 1 < values.size() ? values[2 * i] + values[2 * i + 1] : values[2 * i];
        values.swap(next);
    }
    return values[0];
}

template <class T>
void run_reduce(const char* name, Op op, uint8_t* dst, const uint8_t* src, uint64_t repeat,
                uint64_t dst_rep, uint64_t src_blk, uint64_t src_rep, int order, bool accumulate) {
    Core& c = core();
    constexpr uint64_t per_block = 32 / sizeof(T), per_repeat = 256 / sizeof(T);
    using Index = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    bool pair = op != Op::add && (order == VALUE_INDEX || order == INDEX_VALUE);
    uint64_t record = pair ? 2 : 1;
    std::vector<Range> reads, writes;
    float total = 0.0f;
    for (uint64_t r = 0, repeats = c.repeats(repeat, per_repeat); r < repeats; ++r) {
        std::vector<float> lanes;
        float best = 0.0f;
        Index best_lane = 0;
        for (uint64_t i = 0; i < per_repeat; ++i) {
            if (!c.lane_on(r, i, per_repeat)) continue;
            const uint8_t* block = src + (r * src_rep + i / per_block * src_blk) * 32;
            float v = as_float<T>(block + i % per_block * sizeof(T));
            reads.push_back(span(block, 32));
            if (op == Op::add) {
                lanes.push_back(v);
            } else if (lanes.empty() || (op == Op::max ? v > best : v < best)) {
                lanes.assign(1, v);
                best = v;
                best_lane = static_cast<Index>(i);
            }
        }
        if (lanes.empty()) continue;
        T value = static_cast<T>(op == Op::add ? tree_sum(lanes) : best);
        if (accumulate) {
            total += static_cast<float>(value);
            continue;
        }
        uint8_t* out = dst + r * dst_rep * record * sizeof(T);
        uint8_t* first = order == INDEX_VALUE ? out + sizeof(T) : out;
        uint8_t* second = order == INDEX_VALUE ? out : out + sizeof(T);
        if (op == Op::add || order != ONLY_INDEX) std::memcpy(first, &value, sizeof(T));
        if (pair) std::memcpy(second, &best_lane, sizeof(Index));
        if (op != Op::add && order == ONLY_INDEX) std::memcpy(out, &best_lane, sizeof(Index));
        writes.push_back(span(out, record * sizeof(T)));
        if (op != Op::add) {
            uint64_t bits = 0;
            std::memcpy(&bits, &value, sizeof(T));
            c.max_min_cnt = bits | static_cast<uint64_t>(best_lane) << 32;
        }
    }
    if (accumulate) {
        T value = static_cast<T>(total);
        uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof(T));
        c.acc_val = bits;
    }
    issue(PIPE_V, name, merged(reads), merged(writes));
}
}  // namespace

void reduce(const char* name, Op op, Dt type, void* dst, const void* src, uint64_t repeat,
            uint64_t dst_rep, uint64_t src_blk, uint64_t src_rep, int order, bool accumulate) {
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    switch (type) {
        case Dt::f32:
            run_reduce<float>(name, op, d, s, repeat, dst_rep, src_blk, src_rep, order, accumulate);
            break;
        case Dt::f16:
            run_reduce<half>(name, op, d, s, repeat, dst_rep, src_blk, src_rep, order, accumulate);
            break;
        default: unmodelled("a reduction of this element type");
    }
}

namespace {
template <class T>
void run_group_reduce(const char* name, Op op, uint8_t* dst, const uint8_t* src, uint64_t repeat,
                      uint64_t dst_rep, uint64_t src_blk, uint64_t src_rep, bool pairs) {
    Core& c = core();
    constexpr uint64_t per_block = 32 / sizeof(T), per_repeat = 256 / sizeof(T);
    uint64_t group = pairs ? 2 : per_block, record = per_repeat / group;
    std::vector<Range> reads, writes;
    for (uint64_t r = 0, repeats = c.repeats(repeat, per_repeat); r < repeats; ++r) {
        uint8_t* out = dst + r * dst_rep * (pairs ? 128 : 8 * sizeof(T));
        for (uint64_t g = 0; g < record; ++g) {
            std::vector<float> lanes;
            for (uint64_t i = g * group; i < (g + 1) * group; ++i) {
                if (!c.lane_on(r, i, per_repeat)) continue;
                const uint8_t* block = src + (r * src_rep + i / per_block * src_blk) * 32;
                lanes.push_back(as_float<T>(block + i % per_block * sizeof(T)));
                reads.push_back(span(block + i % per_block * sizeof(T), sizeof(T)));
            }
            if (lanes.empty()) continue;
            if (pairs && lanes.size() == 1) unmodelled("vcpadd with a mask that splits a pair");
            float v = op == Op::add ? tree_sum(lanes)
                    : op == Op::max ? *std::max_element(lanes.begin(), lanes.end())
                                    : *std::min_element(lanes.begin(), lanes.end());
            T value = static_cast<T>(v);
            std::memcpy(out + g * sizeof(T), &value, sizeof(T));
            writes.push_back(span(out + g * sizeof(T), sizeof(T)));
        }
    }
    issue(PIPE_V, name, merged(reads), merged(writes));
}
}  // namespace

void group_reduce(const char* name, Op op, Dt type, void* dst, const void* src, uint64_t repeat,
                  uint64_t dst_rep, uint64_t src_blk, uint64_t src_rep, bool pairs) {
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    switch (type) {
        case Dt::f32:
            run_group_reduce<float>(name, op, d, s, repeat, dst_rep, src_blk, src_rep, pairs);
            break;
        case Dt::f16:
            run_group_reduce<half>(name, op, d, s, repeat, dst_rep, src_blk, src_rep, pairs);
            break;
        default: unmodelled("a block or pair reduction of this element type");
    }
}

uint64_t acc_value() { return core().acc_val; }

uint64_t max_min_count() { return core().max_min_cnt; }

void broadcast_blocks(size_t size, void* dst, const void* src, uint64_t dst_blk, uint64_t dst_rep,
                      uint64_t repeat) {
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = static_cast<const uint8_t*>(src);
    std::vector<Range> reads, writes;
    for (uint64_t r = 0; r < repeat; ++r) {
        reads.push_back(span(s + r * 8 * size, 8 * size));
        for (uint64_t b = 0; b < 8; ++b) {
            uint8_t* block = d + (r * dst_rep + b * dst_blk) * 32;
            for (uint64_t i = 0; i < 32; i += size) std::memcpy(block + i, s + (r * 8 + b) * size, size);
            writes.push_back(span(block, 32));
        }
    }
    issue(PIPE_V, "vbrcb", merged(reads), merged(writes));
}

}  // namespace tilec_model
