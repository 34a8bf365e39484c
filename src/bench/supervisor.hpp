// Crash isolation: work items run in child processes ("workers"), so a kernel
// that faults (SIGSEGV, a sticky CUDA error that ends the worker) or hangs
// costs one row, not the sweep.
//
// Protocol over pipes (text, one line each):
//   worker -> parent  "#ready" once it has initialized (before any item)
//   parent -> worker  encode(item)                         (one item at a time)
//   worker -> parent  zero or more result lines, then "#end"
//   worker -> parent  "#retire" (before "#end"): it will exit after this item
//                     (e.g. a sticky CUDA error); it gets no further item
//   worker -> parent  "#phases ..." (before "#end", optional): where the
//                     item's time went (bench/phases.hpp), passed on as is
// Other lines starting with '#' are ignored. The worker exits on EOF of its
// stdin. Its stderr is the parent's.
//
// A worker that dies (EOF on its stdout) while an item is in flight makes that
// item "crashed" (detail: the signal or exit code); one that passes the
// per-item timeout is killed (SIGKILL) and the item is "timeout". Either way a
// new worker is started for the remaining items. A worker that dies before
// "#ready" is a startup failure: after 3 in a row on one slot the run stops
// with an error (a bad worker command must not turn every item into a crash).
// Items go to whichever worker is idle (dynamic distribution over slots, e.g.
// one slot per GPU). A worker gets its next item as soon as it has answered
// one, before on_result runs for that one.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gconv/status.hpp"

namespace gconv::bench {

struct WorkerSlot {
  std::vector<std::string> argv;                            // argv[0]: executable path
  std::vector<std::pair<std::string, std::string>> env;    // added to / replacing the parent's
};

struct SupervisorOptions {
  std::vector<WorkerSlot> slots;  // one worker process per slot at a time
  double timeout_s = 10;          // per item; <= 0: none
};

struct ItemResult {
  std::vector<std::string> lines;  // the worker's result lines (empty on failure)
  std::string failure;             // "", "crashed" or "timeout"
  std::string detail;              // e.g. "killed by signal 11 (Segmentation fault)"
  std::string phases;              // the item's "#phases" line, or ""
};

struct SupervisorStats {
  size_t workers_started = 0;
  size_t crashed = 0, timed_out = 0;
  double startup_s = 0;  // spawn to "#ready", summed over the workers started
};

// Runs items 0..n-1 (encode(i) is the line sent for item i; it must hold no
// newline). on_result is called once per item, in completion order, from this
// thread. Returns a non-ok Status only for a fatal problem (spawn failure,
// repeated startup failures); results already delivered stay delivered.
Status run_supervised(size_t n, const std::function<std::string(size_t)>& encode, const SupervisorOptions& options,
                      const std::function<void(size_t, const ItemResult&)>& on_result,
                      SupervisorStats* stats = nullptr);

// The path of the running executable (/proc/self/exe), for spawning itself.
std::string self_executable();

}  // namespace gconv::bench
