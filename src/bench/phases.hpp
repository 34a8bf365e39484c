// Where a sweep's time goes (issue 19: sweep throughput), item by item.
//
// A worker times the host phases of each item with steady_clock and sends
// them to the parent as one protocol line before "#end":
//   #phases wait=41.2 lookup=3.1 fill=0 setup=2.4 check=0 enqueue=38.7 gpu=402.5 output=6.0 provider=0 kernel=61.3
// (microseconds, name=value, any order; unknown names are ignored and missing
// ones are 0, so an older or newer worker still parses). The parent sums the
// lines of every worker (PhaseTotals) and prints one summary line at the end
// of the sweep; `gconv bench --phase-trace FILE` also writes each item's line
// as CSV. A crashed or timed-out item sends no line: its time shows only in
// the wall clock.
//
// The phases partition a worker's time between two items:
//   wait     blocked reading the next item: the parent's work and the pipes
//   lookup   kernel lookup: the module from the JIT (first use: disk cache /
//            NVRTC and the module load), the per-worker instance table after
//   fill     allocating and filling the problem's buffers (on a new problem)
//   setup    fold, can_implement, workspace, the row's key fields
//   check    the comparison with the naive kernel (--check)
//   enqueue  host time enqueueing warm-up and timed launches, flushes, events
//   gpu      host time waiting for the stream, then reading the events
//   output   formatting the row(s) and writing them to the pipe
//   provider a provider's item (cuDNN: plans, autotuning, its own timing)
// and `kernel`, not a phase, is the timed kernels' own GPU time (the sum of
// the repetitions' event times), which runs inside enqueue + gpu.
#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace gconv::bench {

enum class Phase { wait, lookup, fill, setup, check, enqueue, gpu, output, provider, count };
constexpr size_t kPhaseCount = size_t(Phase::count);

// The name used on the protocol line and in the trace's header ("wait", ...).
const char* phase_name(Phase p);

struct ItemPhases {
  std::array<double, kPhaseCount> s{};  // seconds per phase
  double kernel = 0;                    // seconds of timed kernels (GPU)
  double& operator[](Phase p) { return s[size_t(p)]; }
  double operator[](Phase p) const { return s[size_t(p)]; }
  double sum() const;  // of the phases (not `kernel`)
};

// "#phases name=us ..." (the line above, without newline).
std::string encode_phases(const ItemPhases& p);
// Parses a line made by encode_phases; false when it is not a "#phases" line
// or a value does not parse.
bool parse_phases(const std::string& line, ItemPhases* out);

// The CSV header / row of --phase-trace: item index, provider, kernel, spec,
// then every phase and `kernel` in microseconds.
std::string phase_trace_header();
std::string phase_trace_row(size_t item, const std::string& provider, const std::string& kernel,
                            const std::string& spec, const ItemPhases& p);

// Sums over a sweep, kept by the parent.
struct PhaseTotals {
  size_t items = 0;  // items that reported phases
  ItemPhases sum;
  size_t workers_started = 0;
  double startup_s = 0;  // spawn to "#ready", summed over workers
  double parent_s = 0;   // the parent's own per-result work (rows written, progress)
  void add(const ItemPhases& p);
  // One line (no newline): per phase its mean per item in ms and its share of
  // the phases' sum, then the totals, worker startup and the parent's time,
  // against `wall_s` and `slots` worker slots.
  std::string summary(double wall_s, size_t slots) const;
};

}  // namespace gconv::bench
