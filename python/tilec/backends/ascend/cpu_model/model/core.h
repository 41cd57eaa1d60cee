// The model's per-core state and the launch it belongs to (written here).
#ifndef TILEC_MODEL_CORE_H
#define TILEC_MODEL_CORE_H

#include <condition_variable>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "stub_def.h"

namespace tilec_model {

constexpr int kPipes = PIPE_NUM;
/// Mode-4 flags (AIC <-> one AIV, the 950): 16 per AIV, 32 on the AIC; a wait for one is
/// recorded as kIntra + its id.
constexpr int kIntraFlags = 16, kIntra = 1000;

/// What stops a core: a check of the model, a deadlock, or another core's failure.
struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Range {
    uintptr_t begin, end;
    bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

/// One instruction a pipe may still be running: what it reads and writes.
struct InFlight {
    int pipe;
    uint64_t seq;
    int line;
    const char* op;
    const char* name;
    std::vector<Range> reads, writes;
};

/// A set flag: what its source pipe had finished when it fired (`done[p]`: the last
/// instruction of pipe p known complete), and where it was set.
struct FlagState {
    bool set = false;
    int line = 0;
    const char* op = "the kernel's start";
    uint64_t done[kPipes] = {};
};

struct Launch;

/// One AI core's AIC or AIV: the thread that runs its copy of the kernel.
struct Core {
    Launch* launch = nullptr;
    int arch = 2201;
    bool aic = false;
    int64_t block = 0, sub_block = 0, sub_blocks = 1;
    int line = 0;
    const char* op = "the kernel's start";
    // pipes: instructions issued per pipe, and what each pipe knows to be complete
    uint64_t issued[kPipes] = {};
    uint64_t done[kPipes][kPipes] = {};
    std::vector<InFlight> in_flight;
    FlagState flags[kPipes][kPipes][8];
    // vector state
    uint64_t mask_high = ~0ull, mask_low = ~0ull;
    uint64_t ctrl = 0;
    bool counter_mode() const { return (ctrl >> 56) & 1; }
    /// How many repeats an instruction given `repeat` runs: in counter mode as many as the
    /// counter's elements need, `per_repeat` a repeat.
    uint64_t repeats(uint64_t repeat, uint64_t per_repeat) const {
        return counter_mode() ? (mask_low + per_repeat - 1) / per_repeat : repeat;
    }
    /// Whether the mask enables lane `i` of repeat `r` (`per_repeat` lanes a repeat).
    bool lane_on(uint64_t r, uint64_t i, uint64_t per_repeat) const {
        if (counter_mode()) return r * per_repeat + i < mask_low;
        return ((i < 64 ? mask_low >> i : mask_high >> (i - 64)) & 1) != 0;
    }
    // the CMPMASK register (set_cmpmask) and the reductions' ACC_VAL and MAX_MIN_CNT
    uint8_t cmpmask[16] = {};
    uint64_t acc_val = 0, max_min_cnt = 0;
    uint64_t pad_value = 0;
    int atomic_op = -1;
    Dt atomic_type = Dt::f32;  // set_atomic_<type>'s, once `atomic_typed`
    bool atomic_typed = false;
    // the fixpipe's registers (set_nd_para, set_quant_pre)
    uint64_t nd_para = 1, quant_pre = 0;
    uint64_t mte2_nz_para = 1;  // the 950's Nd2Nz destination loops (set_mte2_nz_para)
    uint8_t* ub = nullptr;       // the core's UB and L1 in the headers' CPU mode
    uint8_t* l1 = nullptr;
    bool ready = false, finished = false;  // its TPipe's buffers filled; its kernel ended
    std::string where() const;
};

/// The grid of one kernel run: its cores and the cross-core state they share.
struct Launch {
    int arch = 2201;
    int64_t block_dim = 1;
    bool mix = false;
    std::mutex mutex;
    std::condition_variable changed;
    int running = 0, blocked = 0, set_up = 0;
    bool failed = false;
    std::string error;
    std::vector<Core*> cores;
    /// counting semaphores of cross-core flags: per receiving core, per (mode, flag id,
    /// setting core)
    std::vector<std::vector<int>> counters;
    size_t counter(int mode, int id, int source) const {
        return (static_cast<size_t>(mode) * 16 + id) * cores.size() + source;
    }
    /// mode-4 flags (set_intra_block): per receiving core, per flag id 0-31
    std::vector<std::vector<int>> intra;
    std::vector<std::string> waiting;  // per core: what it waits for, "" when running
    std::vector<int> waiting_for;      // per core: the cross-core flag it waits for, or -1
    std::mutex atomic_mutex;
    void fail(const std::string& message);
};

Core& core();
std::string located(const std::string& message);
[[noreturn]] void error(const std::string& message);

size_t size_of(Dt type);
Range span(const void* p, size_t bytes);
/// Adjacent or overlapping ranges merged, so the hazard check compares few.
std::vector<Range> merged(std::vector<Range> ranges);
/// A write into GM: plain, or accumulated when an atomic mode is set (set_atomic_add ...).
void write_gm(Dt type, uint8_t* dst, const uint8_t* src, size_t bytes);

/// Records an instruction of `pipe` touching `reads` and `writes`, after checking it
/// against every instruction it is not ordered after.
/// Issues an instruction of `pipe`, failing where it touches what an earlier one in flight
/// touches with nothing ordering them. `waits_for_pipe`: the instruction itself waits for
/// the earlier ones of its pipe (a large Mmad, see `mad`).
void issue(int pipe, const char* name, std::vector<Range> reads, std::vector<Range> writes,
           bool waits_for_pipe = false);

/// One lane of an element-wise instruction (both archs): `a op b`, `s` the scalar of a
/// dup; integers wrap, floats are computed in float and rounded once to T, as the unit
/// rounds each result.
template <class T>
inline T apply_op(Op op, T a, T b, double s) {
    if constexpr (std::is_integral_v<T>) {
        switch (op) {
            case Op::add: return static_cast<T>(a + b);
            case Op::sub: return static_cast<T>(a - b);
            case Op::mul: return static_cast<T>(a * b);
            case Op::div: return b == 0 ? T(0) : static_cast<T>(a / b);
            case Op::max: return a > b ? a : b;
            case Op::min: return a < b ? a : b;
            case Op::abs: return a < 0 ? static_cast<T>(-a) : a;
            case Op::relu: return a < 0 ? T(0) : a;
            case Op::band: return static_cast<T>(a & b);
            case Op::bor: return static_cast<T>(a | b);
            case Op::bnot: return static_cast<T>(~a);
            case Op::dup: return static_cast<T>(s);
            case Op::copy: return a;
            default: unmodelled("a float vector operation on integers");
        }
    } else {
        // computed in float and rounded once to T, as the unit rounds each result
        float x = static_cast<float>(a), y = static_cast<float>(b), r = 0;
        switch (op) {
            case Op::add: r = x + y; break;
            case Op::sub: r = x - y; break;
            case Op::mul: r = x * y; break;
            case Op::div: r = x / y; break;
            case Op::max: r = std::fmax(x, y); break;
            case Op::min: r = std::fmin(x, y); break;
            case Op::exp: r = std::exp(x); break;
            case Op::ln: r = std::log(x); break;
            case Op::abs: r = std::fabs(x); break;
            case Op::sqrt: r = std::sqrt(x); break;
            case Op::relu: r = x > 0 ? x : 0.0f; break;
            case Op::rec: r = 1.0f / x; break;
            case Op::rsqrt: r = 1.0f / std::sqrt(x); break;
            case Op::dup: r = static_cast<float>(s); break;
            case Op::copy: r = x; break;
            default: unmodelled("a bitwise vector operation on floats");
        }
        return static_cast<T>(r);
    }
}

}  // namespace tilec_model

#endif  // TILEC_MODEL_CORE_H
