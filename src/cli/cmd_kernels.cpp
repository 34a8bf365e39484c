// gconv kernels: list, count or describe the kernel pool (configs/pools
// expanded under configs/arch), optionally narrowed by a filter expression.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "gconv/problem.hpp"
#include "kernels/traits.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool/select.hpp"
#include "pool/pool.hpp"

namespace gconv::cli {
namespace {

using json = nlohmann::ordered_json;  // keys in insertion order: name first

struct KernelsFlags {
  std::string direction = "all";
  std::string dtype = "all";
  int ndim = 0;  // 0: every ndim
  std::string filter;
  bool count = false, list = false, as_json = false, stats = false;
  std::string configs;  // empty: config_dir()
  std::string arch = "sm90";
};

[[noreturn]] void fail(const Status& s) {
  std::fprintf(stderr, "gconv kernels: %s\n", s.to_string().c_str());
  throw CLI::RuntimeError(1);
}

json to_json(const ArchRules& rules, const KernelTraits& t) {
  json j;
  j["name"] = kernel_name(t);
  j["family"] = to_string(t.family);
  j["direction"] = to_string(t.direction);
  j["dtype"] = to_string(t.dtype);
  j["ndim"] = t.ndim;
  // wgmma: warps_m = consumer warpgroups, warps_n = 1; pw: warps_m = warps, warps_n = 1
  if (has_gemm_tile(t.family)) {
    j["tile_m"] = t.tile_m;
    j["tile_n"] = t.tile_n;
    j["tile_k"] = t.tile_k;
    j["warps_m"] = t.warps_m;
    j["warps_n"] = t.warps_n;
    j["stages"] = t.stages;
    j["split_mode"] = to_string(t.split_mode);
    j["split_k"] = t.split_k;
    j["vec"] = t.vec;
    j["groups_per_block"] = t.groups_per_block;
    if (t.family == Family::igemm) {
      j["packed"] = t.packed;
      j["realign"] = t.realign;
    }
  } else {
    j["block_h"] = t.block_h;
    j["block_w"] = t.block_w;
    j["per_thread"] = t.per_thread;
    j["vec"] = t.vec;
    j["deterministic"] = t.deterministic;
  }
  j["threads"] = t.threads();
  j["smem_bytes"] = smem_bytes(rules, t);
  j["registers_estimate"] = register_estimate(rules, t);
  return j;
}

void print_stats(Direction d, DType t, const ExpandStats& s) {
  std::string rules;
  for (const auto& [rule, n] : s.illegal_by_rule) rules += fmt::format(" {}={}", rule, n);
  std::fprintf(stderr, "%s %s: %lld combinations, %lld illegal (%s ), %lld excluded, %lld duplicates, %lld kept\n",
               to_string(d), to_string(t), static_cast<long long>(s.combinations),
               static_cast<long long>(s.illegal), rules.c_str(), static_cast<long long>(s.excluded),
               static_cast<long long>(s.duplicates), static_cast<long long>(s.kept));
}

void run(const KernelsFlags& f) {
  auto sel = make_pool_selection(f.direction, f.dtype, f.ndim, f.filter, f.configs.empty() ? config_dir() : f.configs);
  if (!sel.ok()) fail(sel.status());
  auto rules = load_arch_rules(fmt::format("{}/arch/{}.json", sel->configs_dir, f.arch));
  if (!rules.ok()) fail(rules.status());
  auto selected = select_pool(*rules, *sel, [&](Direction d, DType t, const ExpandStats& stats) {
    if (f.stats) print_stats(d, t, stats);
  });
  if (!selected.ok()) fail(selected.status());
  const std::vector<KernelTraits>& kernels = *selected;
  if (f.count) {
    std::printf("%zu\n", kernels.size());
  } else if (f.as_json) {
    json arr = json::array();
    for (const KernelTraits& k : kernels) arr.push_back(to_json(*rules, k));
    std::printf("%s\n", arr.dump(2).c_str());
  } else {
    for (const KernelTraits& k : kernels) std::printf("%s\n", kernel_name(k).c_str());
  }
}

}  // namespace

void register_kernels_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "kernels", "List, count or describe the kernel pool (configs/pools expanded under configs/arch rules)");
  auto f = std::make_shared<KernelsFlags>();
  cmd->add_option("--direction", f->direction, "fwd, bwd_data, bwd_weight or all")
      ->check(CLI::IsMember({"fwd", "bwd_data", "bwd_weight", "all"}))
      ->capture_default_str();
  cmd->add_option("--dtype", f->dtype, "bf16, fp16, fp32 or all")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "all"}))
      ->capture_default_str();
  cmd->add_option("--ndim", f->ndim, "Only kernels for 1, 2 or 3 spatial dimensions")->check(CLI::Range(1, 3));
  cmd->add_option("--filter", f->filter,
                  "Keep kernels matching EXPR, e.g. 'tile_n>=128 && stages==4' or "
                  "'family==direct || split_mode==parallel'. Fields: " +
                      fmt::format("{}", fmt::join(Filter::field_names(), " ")) +
                      "; operators == != < <= > >= && || ! ( )");
  auto* count = cmd->add_flag("--count", f->count, "Print the number of kernels");
  auto* list = cmd->add_flag("--list", f->list, "Print one kernel name per line (the default)");
  auto* js = cmd->add_flag("--json", f->as_json, "Print a JSON array of trait objects with smem/register estimates");
  count->excludes(list)->excludes(js);
  list->excludes(js);
  cmd->add_flag("--stats", f->stats, "Print expansion counts (illegal by rule, excluded, duplicates) to stderr");
  cmd->add_option("--configs", f->configs, "Configs folder (default: $GCONV_CONFIG_DIR or the source tree's configs)");
  cmd->add_option("--arch", f->arch, "Arch rules file under <configs>/arch")->capture_default_str();
  cmd->callback([f] { run(*f); });
}

}  // namespace gconv::cli
