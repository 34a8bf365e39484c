#include "bench/merge.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <unordered_map>

#include "bench/sweep.hpp"

namespace gconv::bench {

namespace {

// Whether row i of `in` is one eval would read: "" when it is, else why not
// (a skipped row); a corrupt latency is an error.
Result<std::string> check_row(const SweepTable& in, size_t i, std::unordered_map<std::string, std::string>* spec_why) {
  const int c_status = in.column("status"), c_lat = in.column("latency_ms"), c_spec = in.column("spec");
  const auto& f = in.rows[i];
  if (c_status >= 0 && c_lat >= 0 && f[size_t(c_status)] == "ok") {
    const std::string& s = f[size_t(c_lat)];
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || !(v > 0))
      return parse_error(in.where(i) + ": latency_ms '" + s + "' is not a finite positive number");
  }
  if (c_spec < 0) return std::string();
  const std::string& spec = f[size_t(c_spec)];
  auto it = spec_why->find(spec);
  if (it == spec_why->end()) {
    // Only a spec that parses is judged: merge does not interpret the other
    // columns, and an unparsable spec stays the readers' error (as report and
    // eval treat it).
    auto p = Problem::parse_spec(spec);
    const Status v = p.ok() ? p->validate() : Status::Ok();
    const std::string why = v.ok() ? std::string() : spec + ": " + v.message();
    it = spec_why->emplace(spec, why).first;
  }
  return it->second;
}

}  // namespace

Result<MergeResult> merge_sweeps(const std::vector<SweepTable>& inputs, const std::set<RowKey>* expected,
                                 bool strict) {
  MergeResult m;
  m.invalid.strict = strict;
  std::map<RowKey, size_t> seen;  // key -> row index in m.table
  std::unordered_map<std::string, std::string> spec_why;  // spec -> why it is no valid problem ("": it is)
  for (size_t f = 0; f < inputs.size(); ++f) {
    const SweepTable& in = inputs[f];
    if (in.header.empty()) continue;
    if (m.table.header.empty()) m.table.header = in.header;
    std::vector<int> map;  // output column -> input column
    for (const auto& h : m.table.header) {
      const int c = in.column(h);
      if (c < 0)
        return invalid_argument("input " + std::to_string(f + 1) + " (" + in.name + ") lacks column '" + h + "'");
      map.push_back(c);
    }
    if (in.header.size() != m.table.header.size())
      return invalid_argument("input " + std::to_string(f + 1) + " (" + in.name +
                              ") has other columns than the first input");
    for (size_t i = 0; i < in.rows.size(); ++i) {
      auto why = check_row(in, i, &spec_why);
      if (!why.ok()) return why.status();
      if (!why->empty()) {
        GCONV_RETURN_IF_ERROR(m.invalid.add(in.where(i), *why));
        continue;
      }
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
