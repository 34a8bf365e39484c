// Sweep reports: the fastest gconv kernel per problem (the oracle), summaries
// per source, and the comparison with a baseline (cuDNN) as ratios
// baseline time / gconv oracle time (> 1: gconv is faster).
//
// Everything here is a pure function over parsed rows, so the arithmetic can be
// tested exactly; `gconv report` (src/cli/cmd_report.cpp) reads the files and
// prints. A sweep CSV is read by column name: kernel, spec, status and
// latency_ms are required; source, provider, direction, dtype, ndim, n, c, k, g
// are used when present (the sweep schema grows: unknown columns are ignored).
// A problem is its spec (which holds direction and dtype), made canonical
// through Problem::parse_spec / to_spec so that two spellings meet.
//
// Baseline rows in a sweep are those with a provider other than "" / "gconv",
// or a kernel named "cudnn_*"; their kernel "<variant>:<algo>" (e.g.
// "cudnn_best:IMPLICIT_GEMM") gives one baseline per variant, the fastest ok
// row per problem. Baseline rows never become the gconv oracle.
// cuDNN has two APIs (src/bench/cudnn_provider.hpp): where a sweep holds graph
// API rows (<p>_graph_best / <p>_graph_heuristic) the baselines are
//   <p>_best             per problem the faster of <p>_best and <p>_graph_best
//                        (the best cuDNN can do),
//   <p>_heuristic        <p>_graph_heuristic where it ran, else <p>_heuristic
//                        (cuDNN's choice as a framework gets it),
//   <p>_legacy_best, <p>_legacy_heuristic  the legacy rows alone;
// Baseline::rows says which rows each one uses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"

namespace gconv::report {

enum class Family { dense, grouped, depthwise, unknown };
const char* to_string(Family f);
// dense: G == 1; depthwise: C/G == 1 and G > 1; grouped: any other G > 1.
Family family_of(int64_t c, int64_t g);

// What is known of a problem (from its spec, else from the row's columns).
struct ProblemInfo {
  std::string spec;    // canonical when the spec parses, else as written
  std::string source;  // first non-empty source seen ("" when none)
  std::string direction = "?", dtype = "?";
  int ndim = 0;  // 0: unknown
  int64_t n = 0, c = 0, k = 0, g = 0;
  Family family = Family::unknown;
};

struct SweepRow {
  std::string kernel, status, provider;
  double latency_ms = 0;  // NaN when the cell is empty or not a number
  int problem = -1;       // index into Sweep::problems
  bool baseline = false;  // a baseline provider's row (see the file comment)
};

struct Sweep {
  std::vector<ProblemInfo> problems;  // in order of first appearance
  std::vector<SweepRow> rows;
  // Rows left out because their spec parses but names an invalid problem.
  size_t invalid_rows = 0;
  std::string first_invalid;  // "<name>:<line>: <spec>: <rule>"
};

// Parses a sweep CSV held in memory (RFC 4180 quoting; '#' and blank lines
// skipped). `name` labels errors: "<name>:<line>: ...". parse_error for a
// missing required column, a row with the wrong number of fields, or an ok
// row whose latency_ms is not a finite positive number (as gconv eval
// refuses it: an inf once became an oracle). A row whose spec is an invalid
// problem is left out and counted (invalid_rows), or with `strict` is an
// invalid_argument naming its line.
Result<Sweep> parse_sweep_csv(const std::string& text, const std::string& name, bool strict = false);
// Reads a file (.gz / .zst decompressed) and parses it.
Result<Sweep> read_sweep_file(const std::string& path, bool strict = false);

// The spec in canonical form, or the text unchanged when it does not parse.
std::string canonical_spec(const std::string& spec);
// "a;b" -> {"a", "b"} (trimmed, empties dropped); "" -> {"(none)"}.
std::vector<std::string> split_sources(const std::string& source);

// The fastest ok gconv row of each problem.
struct Oracle {
  int problem = -1;
  std::string kernel;
  double ms = 0;
  bool found = false;  // false: no ok gconv row for this problem
};
// One entry per problem of the sweep, same order. "ok" rows with a latency
// that is NaN or <= 0 are not candidates.
std::vector<Oracle> compute_oracles(const Sweep& sweep);

// Counts over gconv rows (baseline rows excluded) of one source.
struct SourceSummary {
  std::string source;  // "all" for the whole file
  size_t problems = 0, problems_with_oracle = 0, kernels = 0, rows = 0, ok = 0, failed = 0;
  std::map<std::string, size_t> by_status;
};
// "all" first, then each source (split_sources) alphabetically.
std::vector<SourceSummary> summarize_sources(const Sweep& sweep, const std::vector<Oracle>& oracles);

// Baseline times by canonical spec.
struct Baseline {
  std::string name;  // e.g. "cudnn_best", "jsonl:torch_exh_ms"
  std::map<std::string, double> ms;
  std::string rows;  // which rows it uses, e.g. "min of cudnn_best:* and cudnn_graph_best:*"
};
// Baselines from the sweep's own rows whose provider is `provider` (or whose
// kernel starts with provider + "_"), one per kernel variant (text before ':'),
// alphabetical; with graph rows present, the combined ones of the file
// comment first, then the other variants alphabetically.
std::vector<Baseline> baselines_from_sweep(const Sweep& sweep, const std::string& provider);
// A baseline from a JSON-lines file that read_problem_file accepts (e.g. the
// cuDNN timing files), its time taken from `field` of each record; records
// without a numeric field are left out. Two records of one spec: the faster.
Result<Baseline> baseline_from_jsonl(const std::string& path, const std::string& field);
Result<Baseline> baseline_from_jsonl_text(const std::string& text, const std::string& name,
                                          const std::string& field);

struct RatioStats {
  std::string slice;  // "all", "fwd", "dense", "dense/fwd", "3d", "3d/fwd", ...
  size_t n = 0;
  double geomean = 0, min = 0, max = 0;  // of ratio = baseline / gconv
  size_t wins = 0;                       // ratio > 1
};
struct ProblemRatio {
  int problem = -1;
  double gconv_ms = 0, baseline_ms = 0, ratio = 0;
};
struct NetworkSum {
  std::string network, direction;
  size_t problems = 0;
  double gconv_ms = 0, baseline_ms = 0;  // baseline_ms is 0 for the oracle-only table
};
struct Comparison {
  std::string baseline;
  std::string baseline_rows;  // Baseline::rows
  std::vector<ProblemRatio> per_problem;  // problems with both times, sorted by ratio
  std::vector<RatioStats> slices;         // fixed order; empty slices left out
  std::vector<NetworkSum> networks;       // over per_problem, sorted by network, direction
  size_t without_baseline = 0;            // oracle problems the baseline lacks
  size_t without_oracle = 0;              // baseline problems with no ok gconv row
};
Comparison compare(const Sweep& sweep, const std::vector<Oracle>& oracles, const Baseline& baseline);

// Sums of oracle times per network (split_sources) and direction, no baseline.
std::vector<NetworkSum> oracle_network_sums(const Sweep& sweep, const std::vector<Oracle>& oracles);

// exp(mean(log x)); NaN for an empty list.
double geomean(const std::vector<double>& xs);

// scripts/plot_report.py: $GCONV_PLOT_SCRIPT when set and non-empty, else the
// source tree's copy when it exists, else "".
std::string plot_script_path();

}  // namespace gconv::report
