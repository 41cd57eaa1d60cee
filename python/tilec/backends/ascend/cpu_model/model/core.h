// The model's per-core state and the launch it belongs to (written here).
#ifndef TILEC_MODEL_CORE_H
#define TILEC_MODEL_CORE_H

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "stub_def.h"

namespace tilec_model {

constexpr int kPipes = PIPE_NUM;

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
    uint64_t pad_value = 0;
    int atomic_op = -1;
    // the fixpipe's registers (set_nd_para, set_quant_pre)
    uint64_t nd_para = 1, quant_pre = 0;
    std::string where() const;
};

/// The grid of one kernel run: its cores and the cross-core state they share.
struct Launch {
    int arch = 2201;
    int64_t block_dim = 1;
    bool mix = false;
    std::mutex mutex;
    std::condition_variable changed;
    int running = 0, blocked = 0;
    bool failed = false;
    std::string error;
    std::vector<Core*> cores;
    /// counting semaphores of cross-core flags: per receiving core, per (mode, flag id,
    /// setting core)
    std::vector<std::vector<int>> counters;
    size_t counter(int mode, int id, int source) const {
        return (static_cast<size_t>(mode) * 16 + id) * cores.size() + source;
    }
    std::vector<std::string> waiting;  // per core: what it waits for, "" when running
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
void issue(int pipe, const char* name, std::vector<Range> reads, std::vector<Range> writes);

}  // namespace tilec_model

#endif  // TILEC_MODEL_CORE_H
