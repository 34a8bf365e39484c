#include "bench/phases.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "perf/sweep_csv.hpp"  // csv_field

namespace gconv::bench {
namespace {

constexpr const char* kNames[kPhaseCount] = {"wait",    "lookup", "fill",   "setup",   "check",
                                             "enqueue", "gpu",    "output", "provider"};
// Words of the summary line (the protocol keeps the short names).
constexpr const char* kLabels[kPhaseCount] = {"between items", "kernel lookup", "buffer fill",
                                              "setup",         "check",         "enqueue",
                                              "GPU wait",      "output",        "provider items"};
constexpr const char* kPrefix = "#phases";

}  // namespace

const char* phase_name(Phase p) { return size_t(p) < kPhaseCount ? kNames[size_t(p)] : "?"; }

double ItemPhases::sum() const {
  double t = 0;
  for (double v : s) t += v;
  return t;
}

std::string encode_phases(const ItemPhases& p) {
  std::string out = kPrefix;
  char buf[64];
  for (size_t i = 0; i < kPhaseCount; ++i) {
    std::snprintf(buf, sizeof buf, " %s=%.1f", kNames[i], p.s[i] * 1e6);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, " kernel=%.1f", p.kernel * 1e6);
  return out + buf;
}

bool parse_phases(const std::string& line, ItemPhases* out) {
  const size_t n = std::strlen(kPrefix);
  if (line.compare(0, n, kPrefix) != 0 || (line.size() > n && line[n] != ' ')) return false;
  ItemPhases p;
  std::istringstream in(line.substr(n));
  for (std::string word; in >> word;) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) return false;
    const std::string name = word.substr(0, eq), value = word.substr(eq + 1);
    char* end = nullptr;
    const double us = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size()) return false;
    if (name == "kernel") {
      p.kernel = us * 1e-6;
      continue;
    }
    for (size_t i = 0; i < kPhaseCount; ++i)
      if (name == kNames[i]) p.s[i] = us * 1e-6;
  }
  *out = p;
  return true;
}

std::string phase_trace_header() {
  std::string h = "item,provider,kernel,spec";
  for (const char* name : kNames) h += std::string(",") + name + "_us";
  return h + ",kernel_us";
}

std::string phase_trace_row(size_t item, const std::string& provider, const std::string& kernel,
                            const std::string& spec, const ItemPhases& p) {
  std::string r = std::to_string(item) + "," + csv_field(provider) + "," + csv_field(kernel) + "," + csv_field(spec);
  char buf[48];
  for (double v : p.s) {
    std::snprintf(buf, sizeof buf, ",%.1f", v * 1e6);
    r += buf;
  }
  std::snprintf(buf, sizeof buf, ",%.1f", p.kernel * 1e6);
  return r + buf;
}

void PhaseTotals::add(const ItemPhases& p) {
  ++items;
  for (size_t i = 0; i < kPhaseCount; ++i) sum.s[i] += p.s[i];
  sum.kernel += p.kernel;
}

std::string PhaseTotals::summary(double wall_s, size_t slots) const {
  const double all = sum.sum();
  const double per = items ? 1e3 / double(items) : 0.0;  // seconds -> ms per item
  std::string out;
  char buf[160];
  std::snprintf(buf, sizeof buf, "phases per item (ms, mean of %zu items; %% of the workers' %.2f s):", items, all);
  out += buf;
  for (size_t i = 0; i < kPhaseCount; ++i) {
    std::snprintf(buf, sizeof buf, "%s %s %.3f (%.1f%%)", i ? "," : "", kLabels[i], sum.s[i] * per,
                  all > 0 ? 100.0 * sum.s[i] / all : 0.0);
    out += buf;
    if (Phase(i) == Phase::gpu) {
      std::snprintf(buf, sizeof buf, " [timed kernels %.3f]", sum.kernel * per);
      out += buf;
    }
  }
  std::snprintf(buf, sizeof buf, "; sum %.3f ms/item; %zu worker start%s %.2f s; parent per-row work %.2f s; wall %.2f s x %zu slot%s",
                all * per, workers_started, workers_started == 1 ? "" : "s", startup_s, parent_s, wall_s, slots,
                slots == 1 ? "" : "s");
  return out + buf;
}

}  // namespace gconv::bench
