// The grid, the cores' threads, flags, barriers and the same-pipe / cross-pipe hazard
// check (written here). Semantics as /work/shared/ASCEND.md "Synchronization" states them
// from the vendor's documentation:
// - a pipe issues in order but overlaps its instructions, so two instructions of one pipe
//   (other than S) are ordered only by a PipeBarrier of that pipe, PIPE_ALL, or a set_flag
//   from that pipe between them (the 950 orders V after V in hardware);
// - set_flag(P, Q) fires once everything issued to P before it has finished;
//   wait_flag(P, Q) holds Q until then and clears the flag; a set flag set again is an
//   error, as is a wait no earlier set can satisfy;
// - cross-core flags are counting semaphores (ffts_cross_core_sync's config: mode in bits
//   4-5, flag id in bits 8-11, kernel_operator_sync_impl.h GetffstMsg): a wait takes one
//   set from each core the mode names (the simulator's tilec.sim.scheduler rules).
// - the 950's mode 4 (set_intra_block / wait_intra_block) pairs the AIC with one AIV: the
//   AIC's flag id + 16 * s reaches AIV s as id, an AIV's id reaches the AIC as id + 16 * its
//   sub-block (SyncAll's pairs in dav_3510/kernel_operator_sync_impl.h); a wait takes one set.
// Every instruction runs when the core's thread issues it; what overlap could break is
// reported as a hazard naming both instructions' lines.
#include <algorithm>
#include <map>
#include <sstream>
#include <thread>

#include "core.h"

namespace tilec_model {

namespace {
thread_local Core* current = nullptr;

const char* pipe_name(int pipe) {
    static const char* names[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "ALL", "MTE4", "MTE5",
                                  "V2", "FIX"};
    return pipe >= 0 && pipe < kPipes ? names[pipe] : "?";
}

bool ordered_in_hardware(const Core& c, int pipe) {
    // the 950 orders V after V (ASCEND.md, "More facts": V->V is ordered in hardware)
    return pipe == PIPE_S || (c.arch == 3510 && pipe == PIPE_V);
}
}  // namespace

Core& core() {
    if (current == nullptr) throw Failure("an intrinsic ran outside a core");
    return *current;
}

std::string Core::where() const {
    std::ostringstream out;
    out << (aic ? "AIC" : "AIV") << " of block " << block;
    if (!aic && launch != nullptr && launch->mix) out << " (sub-block " << sub_block << ")";
    return out.str();
}

std::string located(const std::string& message) {
    std::ostringstream out;
    Core& c = core();
    out << "kernel.cpp:" << c.line << ": error: " << c.op << ": " << message << " ["
        << c.where() << "]";
    return out.str();
}

void error(const std::string& message) { throw Failure(located(message)); }

void check_failed(int) { error("a check of the vendor headers failed (see the log above)"); }

void unmodelled(const char* name) {
    error(std::string("the intrinsic ") + name + " is not modelled (tilec.backends.ascend."
          "cpu_model covers the intrinsics listed in its README section)");
}

void at(int line, const char* op) {
    if (current != nullptr) {
        current->line = line;
        current->op = op;
    }
}

void buffers_ready() {
    Core& c = core();
    std::lock_guard<std::mutex> lock(c.launch->mutex);
    c.ready = true;
    c.launch->changed.notify_all();
}

void Launch::fail(const std::string& message) {
    if (!failed) {
        failed = true;
        error = message;
    }
    changed.notify_all();
}

// -- sys ------------------------------------------------------------------------------

int64_t block_index() { return core().block; }
int64_t block_count() { return core().launch->block_dim; }
int64_t subblock_index() { return core().aic ? 0 : core().sub_block; }
int64_t subblock_count() { return core().aic ? 1 : core().sub_blocks; }

// -- hazards --------------------------------------------------------------------------

void issue(int pipe, const char* name, std::vector<Range> reads, std::vector<Range> writes,
           bool waits_for_pipe) {
    Core& c = core();
    for (const InFlight& other : c.in_flight) {
        if (other.seq <= c.done[pipe][other.pipe]) continue;
        if (other.pipe == pipe && (waits_for_pipe || ordered_in_hardware(c, pipe))) continue;
        const char* kind = nullptr;
        for (const Range& w : writes) {
            for (const Range& r : other.reads) if (w.overlaps(r)) kind = "writes what";
            for (const Range& o : other.writes) if (w.overlaps(o)) kind = "writes what";
        }
        for (const Range& r : reads)
            for (const Range& o : other.writes) if (r.overlaps(o)) kind = "reads what";
        if (kind == nullptr) continue;
        std::ostringstream out;
        out << name << " (PIPE_" << pipe_name(pipe) << ") " << kind << " " << other.name
            << " (PIPE_" << pipe_name(other.pipe) << ") of " << other.op << " at kernel.cpp:"
            << other.line << " touches, with nothing ordering them: "
            << (other.pipe == pipe ? "a PipeBarrier of the pipe is missing between them"
                                   : "a flag from the first pipe to the second is missing");
        error(out.str());
    }
    c.issued[pipe] += 1;
    c.in_flight.push_back({pipe, c.issued[pipe], c.line, c.op, name, std::move(reads),
                           std::move(writes)});
    // forget what every pipe knows to be complete
    if (c.in_flight.size() > 64) {
        auto finished = [&](const InFlight& f) {
            for (int q = 0; q < kPipes; ++q)
                if (f.seq > c.done[q][f.pipe]) return false;
            return true;
        };
        c.in_flight.erase(std::remove_if(c.in_flight.begin(), c.in_flight.end(), finished),
                          c.in_flight.end());
    }
}

// -- intra-core flags and barriers ------------------------------------------------------

void barrier(int pipe) {
    Core& c = core();
    if (pipe == PIPE_ALL) {
        for (int q = 0; q < kPipes; ++q)
            for (int p = 0; p < kPipes; ++p) c.done[q][p] = c.issued[p];
        return;
    }
    if (pipe < 0 || pipe >= kPipes) error("pipe_barrier of an unknown pipe");
    c.done[pipe][pipe] = c.issued[pipe];
}

static FlagState& flag(int src, int dst, int id) {
    if (src < 0 || src >= kPipes || dst < 0 || dst >= kPipes || id < 0 || id > 7)
        error("a flag outside the pipes or ids 0-7");
    return core().flags[src][dst][id];
}

void set_flag(int src, int dst, int id) {
    Core& c = core();
    FlagState& f = flag(src, dst, id);
    if (f.set) {
        std::ostringstream out;
        out << "set_flag(PIPE_" << pipe_name(src) << ", PIPE_" << pipe_name(dst) << ", " << id
            << ") sets a flag already set "
            << (f.line == 0 ? std::string("before the kernel's first op (by the headers' own "
                                          "code: TPipe's constructor sets some)")
                            : "at kernel.cpp:" + std::to_string(f.line))
            << " and not waited for (undefined on hardware: it can hang)";
        error(out.str());
    }
    f.set = true;
    f.line = c.line;
    for (int p = 0; p < kPipes; ++p) f.done[p] = c.done[src][p];
    f.done[src] = c.issued[src];
    c.done[src][src] = c.issued[src];
}

void wait_flag(int src, int dst, int id) {
    Core& c = core();
    FlagState& f = flag(src, dst, id);
    if (!f.set) {
        std::ostringstream out;
        out << "wait_flag(PIPE_" << pipe_name(src) << ", PIPE_" << pipe_name(dst) << ", " << id
            << ") waits for a flag no earlier set_flag of this core set: the core deadlocks";
        error(out.str());
    }
    f.set = false;
    for (int p = 0; p < kPipes; ++p) c.done[dst][p] = std::max(c.done[dst][p], f.done[p]);
}

// -- cross-core flags -------------------------------------------------------------------

namespace {
/// The cores a set by `c` in `mode` reaches; also those a wait of `c` needs one set from
/// each (the same cores: mode 0 its kind, 1 the AIVs of its block, 2 the other side of it).
std::vector<Core*> cross_group(Core& c, int mode) {
    Launch& l = *c.launch;
    std::vector<Core*> out;
    for (Core* other : l.cores) {
        bool same_block = other->block == c.block;
        if (mode == 0) {
            if (other->aic == c.aic) out.push_back(other);
        } else if (mode == 1) {
            if (!other->aic && same_block) out.push_back(other);
        } else if (c.aic) {
            if (!other->aic && same_block) out.push_back(other);
        } else if (other->aic && same_block) {
            out.push_back(other);
        }
    }
    return out;
}

int core_index(const Launch& l, const Core* c) {
    return static_cast<int>(std::find(l.cores.begin(), l.cores.end(), c) - l.cores.begin());
}

/// Whether core `me`'s wait for flag `id` can go on: one pending set from each core of a
/// mode's group; `consume` takes them.
bool take(Launch& l, int me, int id, bool consume) {
    if (id >= kIntra) {  // mode 4: one counter per flag of the receiving core
        int& n = l.intra[me][id - kIntra];
        if (n == 0) return false;
        if (consume) n -= 1;
        return true;
    }
    Core& c = *l.cores[me];
    for (int mode = 0; mode < 4; ++mode) {
        std::vector<int*> needed;
        for (Core* source : cross_group(c, mode))
            needed.push_back(&l.counters[me][l.counter(mode, id, core_index(l, source))]);
        bool all = !needed.empty();
        for (int* n : needed) all &= *n > 0;
        if (!all) continue;
        if (consume)
            for (int* n : needed) *n -= 1;
        return true;
    }
    return false;
}

/// Fails the launch if every core still running waits for a flag no pending set
/// satisfies (a core woken by a set counts as blocked until it runs again: its flag's
/// sets tell it apart). Called with the launch's mutex held.
void check_deadlock(Launch& l) {
    if (l.failed || l.blocked == 0 || l.blocked != l.running) return;
    for (size_t i = 0; i < l.cores.size(); ++i)
        if (l.waiting_for[i] >= 0 && take(l, static_cast<int>(i), l.waiting_for[i], false)) return;
    std::string message = "error: deadlock: every core still running waits";
    for (const std::string& w : l.waiting)
        if (!w.empty()) message += "\n  " + w;
    l.fail(message);
}
}  // namespace

void cross_core_set(int, uint64_t config) {
    Core& c = core();
    int mode = static_cast<int>((config >> 4) & 0x3), id = static_cast<int>((config >> 8) & 0xf);
    Launch& l = *c.launch;
    if (mode == 1 && c.aic) error("cross-core mode 1 syncs the two AIVs of a core, not an AIC");
    if (mode == 2 && !l.mix) error("cross-core mode 2 syncs an AIC with its AIVs: not a mix kernel");
    std::lock_guard<std::mutex> lock(l.mutex);
    int source = core_index(l, &c);
    for (Core* target : cross_group(c, mode)) {
        int& count = l.counters[core_index(l, target)][l.counter(mode, id, source)];
        count += 1;
        if (count > 15) l.fail(located("more than 15 sets of cross-core flag " +
                                       std::to_string(id) + " are pending"));
    }
    l.changed.notify_all();
}

namespace {
/// Blocks core `c` until a set of flag `id` (a cross-core flag id, or kIntra + a mode-4
/// flag's) is pending, and takes it.
void wait_for(Core& c, int id, const std::string& flag) {
    Launch& l = *c.launch;
    int me = core_index(l, &c);
    std::unique_lock<std::mutex> lock(l.mutex);
    if (take(l, me, id, true)) return;
    std::ostringstream what;
    what << "kernel.cpp:" << c.line << ": " << c.op << ": " << c.where() << " waits for "
         << flag;
    l.waiting[me] = what.str();
    l.waiting_for[me] = id;
    l.blocked += 1;
    while (!take(l, me, id, true)) {
        check_deadlock(l);
        if (l.failed) {
            l.blocked -= 1;
            throw Failure("");
        }
        l.changed.wait(lock);
    }
    l.blocked -= 1;
    l.waiting[me].clear();
    l.waiting_for[me] = -1;
}
}  // namespace

void cross_core_wait(uint64_t id) {
    wait_for(core(), static_cast<int>(id), "cross-core flag " + std::to_string(id));
}

void intra_block_set(int, uint64_t id64) {
    Core& c = core();
    Launch& l = *c.launch;
    int id = static_cast<int>(id64);
    if (!l.mix) error("set_intra_block (cross-core mode 4) syncs an AIC with one AIV: not a mix kernel");
    if (id < 0 || id >= 2 * kIntraFlags) error("a mode-4 flag outside ids 0-31");
    // the AIC's flag id + 16 * s reaches AIV s as id; an AIV's id reaches the AIC as
    // id + 16 * its sub-block (dav_3510/kernel_operator_sync_impl.h SyncAll's pairs)
    int sub = c.aic ? id / kIntraFlags : static_cast<int>(c.sub_block);
    int flag = c.aic ? id % kIntraFlags : id + kIntraFlags * sub;
    std::lock_guard<std::mutex> lock(l.mutex);
    for (Core* target : l.cores) {
        if (target->block != c.block || target->aic == c.aic || (c.aic && target->sub_block != sub))
            continue;
        int& count = l.intra[core_index(l, target)][flag];
        count += 1;
        if (count > 15) l.fail(located("more than 15 sets of mode-4 flag " + std::to_string(id) +
                                       " are pending"));
    }
    l.changed.notify_all();
}

void intra_block_wait(int, uint64_t id) {
    if (id >= 2 * kIntraFlags) error("a mode-4 flag outside ids 0-31");
    wait_for(core(), kIntra + static_cast<int>(id), "mode-4 flag " + std::to_string(id));
}

// -- launch -------------------------------------------------------------------------------

extern "C" {
/// Runs a grid: `entries[i]` runs core i's copy of the kernel on `args`, after `setups[i]`
/// gave that copy its core's indices. Returns 0, or 1 with the error in `message`.
int tilec_model_run(int arch, int64_t block_dim, int mix, int aic_only, int n_cores,
                    void (**setups)(int, int64_t, int64_t, int64_t, int),
                    void (**entries)(void**), void** args, char* message, int capacity) {
    Launch l;
    l.arch = arch;
    l.block_dim = block_dim;
    l.mix = mix != 0;
    std::vector<Core> cores(n_cores);
    int per_block = mix ? 3 : 1;
    for (int i = 0; i < n_cores; ++i) {
        Core& c = cores[i];
        c.launch = &l;
        c.arch = arch;
        c.block = i / per_block;
        c.aic = mix ? i % 3 == 0 : aic_only != 0;
        c.sub_block = mix ? (i % 3 == 0 ? 0 : i % 3 - 1) : 0;
        c.sub_blocks = mix ? 2 : 1;
        l.cores.push_back(&c);
    }
    l.counters.assign(n_cores, std::vector<int>(4 * 16 * n_cores, 0));
    l.intra.assign(n_cores, std::vector<int>(2 * kIntraFlags, 0));
    l.waiting.assign(n_cores, "");
    l.waiting_for.assign(n_cores, -1);
    l.running = n_cores;
    std::vector<std::thread> threads;
    for (int i = 0; i < n_cores; ++i) {
        threads.emplace_back([&, i]() {
            Core& c = cores[i];
            current = &c;
            try {
                setups[i](c.aic ? 1 : 2, c.block, block_dim, c.sub_block, mix ? 1 : 0);
                {  // every core set up (its UB known: a mix kernel's AIC writes into its
                   // AIVs') before any runs
                    std::unique_lock<std::mutex> lock(l.mutex);
                    l.set_up += 1;
                    l.changed.notify_all();
                    l.changed.wait(lock, [&] { return l.set_up == n_cores || l.failed; });
                    if (l.failed) throw Failure("");
                }
                entries[i](args);
            } catch (const Failure& failure) {
                std::lock_guard<std::mutex> lock(l.mutex);
                if (failure.what()[0] != '\0') l.fail(failure.what());
            } catch (const std::exception& failure) {
                std::lock_guard<std::mutex> lock(l.mutex);
                l.fail(located(std::string("the kernel threw: ") + failure.what()));
            }
            std::lock_guard<std::mutex> lock(l.mutex);
            c.finished = true;
            l.running -= 1;
            l.changed.notify_all();
            current = nullptr;
        });
    }
    // a core that waits while every other has finished is found by the last one to stop
    {
        std::unique_lock<std::mutex> lock(l.mutex);
        while (l.running > 0) {
            check_deadlock(l);
            l.changed.wait(lock);
        }
    }
    for (std::thread& t : threads) t.join();
    if (!l.failed) return 0;
    std::snprintf(message, capacity, "%s", l.error.c_str());
    return 1;
}
}

}  // namespace tilec_model
