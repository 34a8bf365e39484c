#include "bench/merge.hpp"

#include <fstream>
#include <map>

#include "bench/sweep.hpp"

namespace gconv::bench {

Result<MergeResult> merge_sweeps(const std::vector<SweepTable>& inputs, const std::set<RowKey>* expected) {
  MergeResult m;
  std::map<RowKey, size_t> seen;  // key -> row index in m.table
  for (size_t f = 0; f < inputs.size(); ++f) {
    const SweepTable& in = inputs[f];
    if (in.header.empty()) continue;
    if (m.table.header.empty()) m.table.header = in.header;
    std::vector<int> map;  // output column -> input column
    for (const auto& h : m.table.header) {
      const int c = in.column(h);
      if (c < 0) return invalid_argument("input " + std::to_string(f + 1) + " lacks column '" + h + "'");
      map.push_back(c);
    }
    if (in.header.size() != m.table.header.size())
      return invalid_argument("input " + std::to_string(f + 1) + " has other columns than the first input");
    for (size_t i = 0; i < in.rows.size(); ++i) {
      std::vector<std::string> row;
      for (int c : map) row.push_back(in.rows[i][size_t(c)]);
      const RowKey key = row_key(in, i);
      auto it = seen.find(key);
      if (it != seen.end()) {
        if (m.table.rows[it->second] == row) ++m.exact_duplicates;
        else m.conflicts.push_back(key);
        continue;
      }
      seen.emplace(key, m.table.rows.size());
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) line += (c ? "," : "") + csv_field(row[c]);
      m.table.rows.push_back(std::move(row));
      m.table.lines.push_back(std::move(line));
    }
  }
  if (expected)
    for (const auto& k : *expected)
      if (!seen.count(k)) m.gaps.push_back(k);
  return m;
}

Status write_sweep_csv(const std::string& path, const SweepTable& t) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return io_error(path + ": cannot open for writing");
  for (size_t c = 0; c < t.header.size(); ++c) f << (c ? "," : "") << t.header[c];
  f << "\n";
  for (const auto& l : t.lines) f << l << "\n";
  f.flush();
  if (!f) return io_error(path + ": write failed");
  return Status::Ok();
}

}  // namespace gconv::bench
