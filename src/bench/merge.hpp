// Combining sweep CSV files (shards, resumed runs): exact duplicate rows are
// dropped; rows with the same key (kernel, spec, provider) but different
// fields are "conflicts" (the first one read is kept); with an expected key
// set, the keys missing from the union are "gaps".
#pragma once

#include <set>
#include <string>
#include <vector>

#include "perf/sweep_csv.hpp"

namespace gconv::bench {

struct MergeResult {
  SweepTable table;  // header of the first input; rows in input order
  size_t exact_duplicates = 0;
  std::vector<RowKey> conflicts;  // one entry per extra row with a known key
  std::vector<RowKey> gaps;       // expected keys with no row
  SkippedRows invalid;            // rows left out: their spec is no valid problem
};

// Inputs must share the first input's columns (by name; order may differ).
// `expected` may be null (no gap check). Rows are checked as eval reads
// them: an ok row whose latency_ms is not a finite positive number is a
// parse_error naming its file and line (a corrupt file is not merged); a row
// whose spec parses but names an invalid problem is left out and counted in
// `invalid`, or with `strict` is an invalid_argument.
Result<MergeResult> merge_sweeps(const std::vector<SweepTable>& inputs, const std::set<RowKey>* expected,
                                 bool strict = false);

// Writes header and rows (each already CSV text) to `path`.
Status write_sweep_csv(const std::string& path, const SweepTable& t);

}  // namespace gconv::bench
