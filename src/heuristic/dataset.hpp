// Training and evaluation data of the learned selector: the ok gconv rows of
// one or more sweep CSVs (bench/sweep.hpp schema), grouped by problem.
//
// A group is one problem (spec: shape, direction, dtype); its rows are the
// kernels measured on it, with their median times. The best time of a group
// is its oracle: efficiencies are measured against it. Rows of other
// providers (cudnn) and non-ok rows are counted and left out; a malformed row
// (unparsable kernel name, spec or time) is an error naming file and line, so
// a corrupt file is never half-read.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"

namespace gconv::heuristic {

struct Dataset {
  std::string gpu;  // the sweeps' GPU column (first seen); files of different GPUs are refused
  // Per group.
  std::vector<Problem> problems;
  std::vector<std::string> specs;
  std::vector<std::string> sources;
  std::vector<size_t> begin;  // rows of group g: [begin[g], begin[g + 1]); size groups() + 1
  // Per row.
  std::vector<KernelTraits> kernels;
  std::vector<std::string> kernel_names;
  std::vector<float> time_ms;
  // Per group, when rows were left out (keep_rows): the best time of all the
  // rows read, so that efficiencies stay measured against the true oracle.
  // Empty: the oracle is the best of the group's rows.
  std::vector<float> oracle_ms;

  size_t rows() const { return kernels.size(); }
  size_t groups() const { return problems.size(); }
  float best_ms(size_t g) const;  // the group's oracle time
};

struct LoadStats {
  size_t files = 0, lines = 0, used = 0;
  size_t not_ok = 0, other_provider = 0, duplicates = 0, small_groups = 0;
  // Rows whose spec parses but names an invalid problem (stride 0, G that
  // does not divide C, ...): skipped, never trained or evaluated on; the
  // first one's file, row and rule are kept for the summary.
  size_t invalid = 0;
  std::string first_invalid;
  // Rows of stale kernels (StaleRows) dropped from files that are not fresh.
  size_t stale = 0;
  std::string summary() const;
};

// Kernels whose code changed after some sweeps measured them: their rows are
// read only from the `fresh` files (those measured since, e.g. by
// bench/retime_pairs.py), so that no model learns a time the kernel no longer
// takes (gconv train / eval --stale-kernels EXPR --fresh FILES).
struct StaleRows {
  std::function<bool(const KernelTraits&)> is_stale;  // empty: no kernel is stale
  std::set<std::string> fresh;                        // paths as given in the data list
};

// StaleRows from a kernel filter expression (pool/filter.hpp, sm90 rules)
// and the fresh files, each of which must be one of `data`.
Result<StaleRows> make_stale_rows(const std::string& expr, const std::vector<std::string>& fresh,
                                  const std::vector<std::string>& data);

// Reads every file (CSV, .gz, .zst); groups with fewer than `min_rows` ok
// rows are dropped (a ranking needs at least 2). invalid_argument when the
// files' GPUs differ or nothing is left. Rows of invalid problems are
// skipped and counted in LoadStats, or with `strict` (--strict) the first
// one is an invalid_argument naming its file, line and rule. With `stale`, rows
// of its stale kernels are read only from its fresh files (LoadStats::stale).
Result<Dataset> load_sweeps(const std::vector<std::string>& paths, LoadStats* stats = nullptr, size_t min_rows = 2,
                            bool strict = false, const StaleRows* stale = nullptr);

// The rows with keep[row] (groups left with fewer than `min_rows` are
// dropped); oracle_ms keeps each group's best time over all of d's rows.
Dataset keep_rows(const Dataset& d, const std::vector<bool>& keep, size_t min_rows = 2);

// The shape of a problem, direction left out: GroupKFold keys folds by it, so
// the three directions of one layer shape are never split between train and
// test.
std::string shape_key(const Problem& p);

// 0..folds-1 per group: groups of one shape share a fold; shapes are dealt
// to folds largest first into the fold with the fewest rows (sklearn's
// GroupKFold), ties broken by a hash of the shape so the split is stable.
std::vector<int> group_k_fold(const Dataset& d, int folds);

// "dense" | "grouped" | "depthwise".
const char* kind_of(const Problem& p);

}  // namespace gconv::heuristic
