#include "pool/pool.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "pool/json_reader.hpp"
#include "problem/read_text.hpp"

namespace gconv {
namespace {

using pool_detail::index;
using pool_detail::join;
using pool_detail::json;
using pool_detail::JsonReader;

Status read_rules(const JsonReader& r, const json& v, const std::string& path, std::vector<ExcludeRule>* out) {
  if (!v.is_array()) return r.error(path, "expected an array of {\"if\": ..., \"why\": ...}");
  for (size_t i = 0; i < v.size(); ++i) {
    std::string p = index(path, i);
    GCONV_RETURN_IF_ERROR(r.check_object(v[i], p, {"if", "why"}, {"if", "why"}));
    std::string expr, why;
    GCONV_RETURN_IF_ERROR(r.read_string(v[i]["if"], join(p, "if"), &expr));
    GCONV_RETURN_IF_ERROR(r.read_string(v[i]["why"], join(p, "why"), &why));
    auto f = Filter::parse(expr);
    if (!f.ok()) return r.error(join(p, "if"), f.status().message());
    out->push_back({*f, why});
  }
  return Status::Ok();
}

Status read_ndims(const JsonReader& r, const json& v, const std::string& path, std::vector<int>* out) {
  GCONV_RETURN_IF_ERROR(r.read_int_list(v, path, out));
  for (size_t i = 0; i < out->size(); ++i) {
    if ((*out)[i] < 1 || (*out)[i] > 3) return r.error(index(path, i), "ndim must be 1, 2 or 3");
  }
  return Status::Ok();
}

// "1" (no split), "<n>p" (parallel), "<n>s" (serial), "<n>c" (cluster), n >= 2.
Status read_splits(const JsonReader& r, const json& v, const std::string& path,
                   std::vector<std::pair<SplitKMode, int>>* out) {
  std::vector<std::string> items;
  GCONV_RETURN_IF_ERROR(r.read_string_list(v, path, &items));
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& s = items[i];
    if (s == "1") {
      out->push_back({SplitKMode::none, 1});
      continue;
    }
    SplitKMode mode = s.empty() ? SplitKMode::none
                      : s.back() == 'p' ? SplitKMode::parallel
                      : s.back() == 's' ? SplitKMode::serial
                      : s.back() == 'c' ? SplitKMode::cluster
                                        : SplitKMode::none;
    std::string digits = s.empty() ? "" : s.substr(0, s.size() - 1);
    bool ok = mode != SplitKMode::none && !digits.empty() && digits.size() <= 4 && digits[0] != '0' &&
              std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    int n = ok ? std::stoi(digits) : 0;
    if (!ok || n < 2) {
      return r.error(index(path, i), fmt::format("expected \"1\" or \"<n>p\" / \"<n>s\" / \"<n>c\" with n >= 2, got \"{}\"", s));
    }
    out->push_back({mode, n});
  }
  return Status::Ok();
}

// "window": ["3s1", "7s2"]: filter width and W stride of register-window
// direct kernels, each a positive integer of at most 2 digits.
Status read_windows(const JsonReader& r, const json& v, const std::string& path, std::vector<std::pair<int, int>>* out) {
  std::vector<std::string> items;
  GCONV_RETURN_IF_ERROR(r.read_string_list(v, path, &items));
  out->clear();
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& s = items[i];
    const size_t at = s.find('s');
    auto small = [](std::string_view d) {
      return !d.empty() && d.size() <= 2 && d[0] != '0' &&
             std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (at == std::string::npos || !small(std::string_view(s).substr(0, at)) ||
        !small(std::string_view(s).substr(at + 1)))
      return r.error(index(path, i), fmt::format("expected \"<filter width>s<stride>\" such as \"3s1\", got \"{}\"", s));
    out->push_back({std::stoi(s.substr(0, at)), std::stoi(s.substr(at + 1))});
  }
  if (out->empty()) return r.error(path, "an empty list");
  return Status::Ok();
}

Status read_group(const JsonReader& r, const json& v, const std::string& path, Family family,
                  const std::vector<int>& file_ndims, PoolGroup* g) {
  g->where = path;
  g->ndims = file_ndims;
  if (family == Family::igemm) {
    GCONV_RETURN_IF_ERROR(r.check_object(
        v, path,
        {"tile_m", "tile_n", "tile_k", "warps", "stages", "split", "vec", "groups_per_block", "packed", "realign",
         "ndims", "exclude"},
        {"tile_m", "tile_n", "tile_k", "warps", "stages", "split", "vec", "groups_per_block"}));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_m"], join(path, "tile_m"), &g->tile_m));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_n"], join(path, "tile_n"), &g->tile_n));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_k"], join(path, "tile_k"), &g->tile_k));
    GCONV_RETURN_IF_ERROR(r.read_pair_list(v["warps"], join(path, "warps"), &g->warps));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["stages"], join(path, "stages"), &g->stages));
    GCONV_RETURN_IF_ERROR(read_splits(r, v["split"], join(path, "split"), &g->split));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["vec"], join(path, "vec"), &g->vec));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["groups_per_block"], join(path, "groups_per_block"), &g->groups_per_block));
    g->packed = {false};
    if (v.contains("packed")) GCONV_RETURN_IF_ERROR(r.read_bool_list(v["packed"], join(path, "packed"), &g->packed));
    g->realign = {false};
    if (v.contains("realign"))
      GCONV_RETURN_IF_ERROR(r.read_bool_list(v["realign"], join(path, "realign"), &g->realign));
  } else if (family == Family::wgmma) {
    GCONV_RETURN_IF_ERROR(r.check_object(
        v, path,
        {"tile_m", "tile_n", "tile_k", "consumers", "stages", "split", "vec", "tma", "realign", "groups_per_block",
         "ndims", "exclude"},
        {"tile_m", "tile_n", "tile_k", "consumers", "stages", "split", "vec"}));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_m"], join(path, "tile_m"), &g->tile_m));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_n"], join(path, "tile_n"), &g->tile_n));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_k"], join(path, "tile_k"), &g->tile_k));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["consumers"], join(path, "consumers"), &g->consumers));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["stages"], join(path, "stages"), &g->stages));
    GCONV_RETURN_IF_ERROR(read_splits(r, v["split"], join(path, "split"), &g->split));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["vec"], join(path, "vec"), &g->vec));
    g->tma = {false};
    if (v.contains("tma")) GCONV_RETURN_IF_ERROR(r.read_bool_list(v["tma"], join(path, "tma"), &g->tma));
    g->realign = {false};
    if (v.contains("realign"))
      GCONV_RETURN_IF_ERROR(r.read_bool_list(v["realign"], join(path, "realign"), &g->realign));
    // A wgmma group of several groups per block is packed (wgmma/packed.hpp).
    g->groups_per_block = {1};
    if (v.contains("groups_per_block"))
      GCONV_RETURN_IF_ERROR(
          r.read_int_list(v["groups_per_block"], join(path, "groups_per_block"), &g->groups_per_block));
  } else if (family == Family::pw) {
    GCONV_RETURN_IF_ERROR(r.check_object(v, path, {"tile_m", "tile_n", "tile_k", "warps", "stages", "ndims", "exclude", "description"},
                                         {"tile_m", "tile_n", "tile_k", "warps", "stages"}));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_m"], join(path, "tile_m"), &g->tile_m));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_n"], join(path, "tile_n"), &g->tile_n));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_k"], join(path, "tile_k"), &g->tile_k));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["warps"], join(path, "warps"), &g->warps_per_block));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["stages"], join(path, "stages"), &g->stages));
  } else if (family == Family::tinyc) {
    GCONV_RETURN_IF_ERROR(r.check_object(v, path, {"tile", "warps", "ndims", "exclude"}, {"tile", "warps"}));
    GCONV_RETURN_IF_ERROR(r.read_pair_list(v["tile"], join(path, "tile"), &g->tiles));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["warps"], join(path, "warps"), &g->warps_per_block));
  } else {
    GCONV_RETURN_IF_ERROR(r.check_object(
        v, path, {"tile", "per_thread", "vec", "deterministic", "window", "tma", "ndims", "exclude"},
        {"tile", "per_thread", "vec"}));
    GCONV_RETURN_IF_ERROR(r.read_pair_list(v["tile"], join(path, "tile"), &g->tiles));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["per_thread"], join(path, "per_thread"), &g->per_thread));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["vec"], join(path, "vec"), &g->vec));
    g->deterministic = {false};
    if (v.contains("deterministic")) {
      GCONV_RETURN_IF_ERROR(r.read_bool_list(v["deterministic"], join(path, "deterministic"), &g->deterministic));
    }
    g->windows = {{0, 0}};
    if (v.contains("window")) GCONV_RETURN_IF_ERROR(read_windows(r, v["window"], join(path, "window"), &g->windows));
    g->tma = {false};
    if (v.contains("tma")) GCONV_RETURN_IF_ERROR(r.read_bool_list(v["tma"], join(path, "tma"), &g->tma));
  }
  if (v.contains("ndims")) GCONV_RETURN_IF_ERROR(read_ndims(r, v["ndims"], join(path, "ndims"), &g->ndims));
  if (v.contains("exclude")) GCONV_RETURN_IF_ERROR(read_rules(r, v["exclude"], join(path, "exclude"), &g->exclude));
  return Status::Ok();
}

Status read_dtypes(const JsonReader& r, const json& v, Family family, const std::vector<int>& ndims,
                   PoolConfig* c) {
  GCONV_RETURN_IF_ERROR(r.check_object(v, "dtypes", {"bf16", "fp16", "fp32"}, {}));
  std::vector<std::pair<DType, std::string>> aliases;  // dtype -> same_as
  for (const auto& [key, entry] : v.items()) {
    if (key == "description") continue;
    DType dt = *parse_dtype(key);
    std::string path = join("dtypes", key);
    std::vector<PoolGroup> groups;
    if (entry.is_object() && entry.contains("same_as")) {
      GCONV_RETURN_IF_ERROR(r.check_object(entry, path, {"same_as"}, {"same_as"}));
      std::string target;
      GCONV_RETURN_IF_ERROR(r.read_string(entry["same_as"], join(path, "same_as"), &target));
      aliases.push_back({dt, target});
      continue;
    }
    if (entry.is_array()) {
      if (entry.empty()) return r.error(path, "expected a non-empty array of groups");
      for (size_t i = 0; i < entry.size(); ++i) {
        PoolGroup g;
        GCONV_RETURN_IF_ERROR(read_group(r, entry[i], index(path, i), family, ndims, &g));
        groups.push_back(std::move(g));
      }
    } else {
      PoolGroup g;
      GCONV_RETURN_IF_ERROR(read_group(r, entry, path, family, ndims, &g));
      groups.push_back(std::move(g));
    }
    c->dtypes.push_back({dt, std::move(groups)});
  }
  // An alias copies the groups of a dtype that has its own (no chains).
  for (const auto& [dt, target] : aliases) {
    std::string path = join(join("dtypes", to_string(dt)), "same_as");
    const std::string& wanted = target;  // clang before 16 cannot capture a structured binding
    auto it = std::find_if(c->dtypes.begin(), c->dtypes.end(),
                           [&](const auto& e) { return wanted == to_string(e.first); });
    if (it == c->dtypes.end()) {
      return r.error(path, fmt::format("\"{}\" is not a dtype with its own groups in this file", target));
    }
    c->dtypes.push_back({dt, it->second});
  }
  // Keep dtype order fixed (bf16, fp16, fp32) whatever the file order.
  std::stable_sort(c->dtypes.begin(), c->dtypes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return Status::Ok();
}

bool excluded(const std::vector<ExcludeRule>& rules, const ArchRules& arch, const KernelTraits& t) {
  return std::any_of(rules.begin(), rules.end(), [&](const ExcludeRule& e) { return e.filter.matches(arch, t); });
}

// Candidates of one group and ndim, in the documented order.
std::vector<KernelTraits> candidates(const PoolConfig& c, DType dt, const PoolGroup& g, int nd) {
  std::vector<KernelTraits> out;
  KernelTraits base;
  base.family = c.family;
  base.direction = c.direction;
  base.dtype = dt;
  base.ndim = nd;
  if (c.family == Family::igemm) {
    for (int tm : g.tile_m)
      for (int tn : g.tile_n)
        for (int tk : g.tile_k)
          for (auto [wm, wn] : g.warps)
            for (int st : g.stages)
              for (auto [mode, sk] : g.split)
                for (int v : g.vec)
                  for (int gpb : g.groups_per_block)
                    for (bool pk : g.packed)
                      for (bool ra : g.realign) {
                        KernelTraits t = base;
                        t.tile_m = tm, t.tile_n = tn, t.tile_k = tk;
                        t.warps_m = wm, t.warps_n = wn;
                        t.stages = st;
                        t.split_mode = mode, t.split_k = sk;
                        t.vec = v;
                        t.groups_per_block = gpb;
                        t.packed = pk;
                        t.realign = ra;
                        out.push_back(t);
                      }
  } else if (c.family == Family::wgmma) {
    for (int tm : g.tile_m)
      for (int tn : g.tile_n)
        for (int tk : g.tile_k)
          for (int cw : g.consumers)
            for (int st : g.stages)
              for (auto [mode, sk] : g.split)
                for (int v : g.vec)
                  for (bool tma : g.tma)
                    for (bool ra : g.realign)
                      for (int gpb : g.groups_per_block) {
                        KernelTraits t = base;
                        t.tile_m = tm, t.tile_n = tn, t.tile_k = tk;
                        t.warps_m = cw, t.warps_n = 1;  // as parse_kernel_name reads a wgmma name
                        t.groups_per_block = gpb;
                        t.packed = gpb > 1;
                        t.stages = st;
                        t.split_mode = mode, t.split_k = sk;
                        t.vec = v;
                        t.tma = tma;
                        t.realign = ra;
                        out.push_back(t);
                      }
  } else if (c.family == Family::pw) {
    for (int tm : g.tile_m)
      for (int tn : g.tile_n)
        for (int tk : g.tile_k)
          for (int w : g.warps_per_block)
            for (int st : g.stages) {
              KernelTraits t = base;
              t.tile_m = tm, t.tile_n = tn, t.tile_k = tk;
              t.warps_m = w, t.warps_n = 1;  // as parse_kernel_name reads a pw name
              t.stages = st;
              out.push_back(t);
            }
  } else if (c.family == Family::tinyc) {
    for (auto [bh, bw] : g.tiles)
      for (int w : g.warps_per_block) {
        KernelTraits t = base;
        t.block_h = bh, t.block_w = bw;
        t.warps_m = w;  // as parse_kernel_name reads a tinyc name; every other field at its default
        out.push_back(t);
      }
  } else {
    for (auto [bh, bw] : g.tiles)
      for (int r : g.per_thread)
        for (int v : g.vec)
          for (bool det : g.deterministic)
            for (auto [fx, sx] : g.windows)
              for (bool tma : g.tma) {
                KernelTraits t = base;
                t.block_h = bh, t.block_w = bw;
                t.per_thread = r;
                t.vec = v;
                t.deterministic = det;
                t.win_fx = fx, t.win_sx = sx;
                t.tma = tma;
                out.push_back(t);
              }
  }
  return out;
}

void expand_into(const ArchRules& rules, const PoolConfig& c, const ExpandOptions& opt,
                 std::unordered_set<std::string>* seen, std::vector<KernelTraits>* out, ExpandStats* st) {
  for (const auto& [dt, groups] : c.dtypes) {
    if (opt.dtype && *opt.dtype != dt) continue;
    for (const PoolGroup& g : groups) {
      for (int nd : g.ndims) {
        if (opt.ndim && *opt.ndim != nd) continue;
        for (const KernelTraits& t : candidates(c, dt, g, nd)) {
          ++st->combinations;
          std::string why;
          if (!is_legal(rules, t, &why)) {
            ++st->illegal;
            ++st->illegal_by_rule[why.substr(0, why.find(':'))];
            continue;
          }
          if (excluded(c.exclude, rules, t) || excluded(g.exclude, rules, t)) {
            ++st->excluded;
            continue;
          }
          // Legal traits are canonical, so equal names mean equal traits.
          if (!seen->insert(kernel_name(t)).second) {
            ++st->duplicates;
            continue;
          }
          ++st->kept;
          out->push_back(t);
        }
      }
    }
  }
}

}  // namespace

void ExpandStats::add(const ExpandStats& o) {
  combinations += o.combinations;
  excluded += o.excluded;
  illegal += o.illegal;
  duplicates += o.duplicates;
  kept += o.kept;
  for (const auto& [k, n] : o.illegal_by_rule) illegal_by_rule[k] += n;
}

Result<PoolConfig> parse_pool_config(std::string_view json_text, std::string_view source) {
  JsonReader r{std::string(source)};
  json v;
  GCONV_RETURN_IF_ERROR(r.parse(json_text, &v));
  GCONV_RETURN_IF_ERROR(r.check_object(v, "", {"family", "direction", "ndims", "exclude", "dtypes"},
                                       {"family", "direction", "ndims", "dtypes"}));
  PoolConfig c;
  c.source = std::string(source);
  std::string s;
  GCONV_RETURN_IF_ERROR(r.read_string(v["family"], "family", &s));
  if (s == "igemm") {
    c.family = Family::igemm;
  } else if (s == "direct") {
    c.family = Family::direct;
  } else if (s == "wgmma") {
    c.family = Family::wgmma;
  } else if (s == "tinyc") {
    c.family = Family::tinyc;
  } else if (s == "pw") {
    c.family = Family::pw;
  } else {
    return r.error("family", fmt::format("expected \"wgmma\", \"igemm\", \"direct\", \"tinyc\" or \"pw\", got \"{}\"", s));
  }
  GCONV_RETURN_IF_ERROR(r.read_string(v["direction"], "direction", &s));
  auto dir = parse_direction(s);
  if (!dir.ok()) return r.error("direction", dir.status().message());
  c.direction = *dir;
  std::vector<int> ndims;
  GCONV_RETURN_IF_ERROR(read_ndims(r, v["ndims"], "ndims", &ndims));
  if (v.contains("exclude")) GCONV_RETURN_IF_ERROR(read_rules(r, v["exclude"], "exclude", &c.exclude));
  GCONV_RETURN_IF_ERROR(read_dtypes(r, v["dtypes"], c.family, ndims, &c));
  return c;
}

Result<PoolConfig> load_pool_config(const std::string& path) {
  // read_text_file: regular files only (a FIFO here blocked start-up), size-capped.
  auto text = problem_io::read_text_file(path);
  if (!text.ok()) return io_error("cannot read pool config: " + text.status().message());
  return parse_pool_config(*text, path);
}

Result<std::vector<KernelTraits>> expand_pool(const ArchRules& rules, const PoolConfig& config,
                                              const ExpandOptions& options, ExpandStats* stats) {
  std::unordered_set<std::string> seen;
  std::vector<KernelTraits> out;
  ExpandStats local;
  expand_into(rules, config, options, &seen, &out, &local);
  if (stats != nullptr) stats->add(local);
  return out;
}

Result<std::vector<KernelTraits>> load_pool(const ArchRules& rules, Direction direction, DType dtype,
                                            const std::string& configs_dir, ExpandStats* stats) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(configs_dir.empty() ? config_dir() : configs_dir) / "pools";
  std::vector<fs::path> files;
  // The throwing overloads: the error_code ones are noexcept, and libstdc++
  // allocates inside them, so running out of host memory there was
  // std::terminate. Here a bad_alloc reaches the caller (the C API turns it
  // into GCONV_ERR_OUT_OF_MEMORY).
  try {
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  } catch (const fs::filesystem_error& e) {
    return io_error(fmt::format("cannot list pool configs in '{}': {}", dir.string(), e.code().message()));
  }
  std::sort(files.begin(), files.end());
  std::unordered_set<std::string> seen;
  std::vector<KernelTraits> out;
  ExpandStats local;
  ExpandOptions opt;
  opt.dtype = dtype;
  for (const fs::path& f : files) {
    auto config = load_pool_config(f.string());
    if (!config.ok()) return config.status();
    if (config->direction != direction) continue;
    expand_into(rules, *config, opt, &seen, &out, &local);
  }
  if (stats != nullptr) stats->add(local);
  return out;
}

}  // namespace gconv
