#include "pool/select.hpp"

#include <optional>

#include "pool/filter.hpp"

namespace gconv {
std::vector<std::string> split_comma_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Result<std::vector<Direction>> parse_directions(const std::string& text) {
  if (text == "all") return std::vector<Direction>{Direction::fwd, Direction::bwd_data, Direction::bwd_weight};
  std::vector<Direction> out;
  for (const auto& name : split_comma_list(text)) {
    auto d = parse_direction(name);
    if (!d.ok()) return d.status();
    out.push_back(*d);
  }
  if (out.empty()) return invalid_argument("no direction given (fwd, bwd_data, bwd_weight or all)");
  return out;
}

Result<std::vector<DType>> parse_dtypes(const std::string& text) {
  if (text == "all") return std::vector<DType>{DType::bf16, DType::fp16, DType::fp32};
  std::vector<DType> out;
  for (const auto& name : split_comma_list(text)) {
    auto t = parse_dtype(name);
    if (!t.ok()) return t.status();
    out.push_back(*t);
  }
  if (out.empty()) return invalid_argument("no dtype given (bf16, fp16, fp32 or all)");
  return out;
}

Result<PoolSelection> make_pool_selection(const std::string& directions, const std::string& dtypes, int ndim,
                                          const std::string& filter, const std::string& configs_dir) {
  PoolSelection s;
  auto d = parse_directions(directions);
  if (!d.ok()) return d.status();
  auto t = parse_dtypes(dtypes);
  if (!t.ok()) return t.status();
  s.directions = std::move(d).value();
  s.dtypes = std::move(t).value();
  s.ndim = ndim;
  s.filter = filter;
  s.configs_dir = configs_dir;
  return s;
}

Result<std::vector<KernelTraits>> select_pool(const ArchRules& rules, const PoolSelection& s,
                                              const std::function<void(Direction, DType, const ExpandStats&)>& on_pool) {
  std::optional<Filter> filter;
  if (!s.filter.empty()) {
    auto f = Filter::parse(s.filter);
    if (!f.ok()) return f.status();
    filter = std::move(f).value();
  }
  std::vector<KernelTraits> out;
  for (Direction d : s.directions)
    for (DType t : s.dtypes) {
      ExpandStats stats;
      auto pool = load_pool(rules, d, t, s.configs_dir, &stats);
      if (!pool.ok()) return pool.status();
      if (on_pool) on_pool(d, t, stats);
      for (const KernelTraits& k : *pool) {
        if (s.ndim != 0 && k.ndim != s.ndim) continue;
        if (filter && !filter->matches(rules, k)) continue;
        out.push_back(k);
      }
    }
  return out;
}

}  // namespace gconv
