// gconv build: compile a kernel pool ahead of time with NVRTC into the kernel
// cache, so later runs (and `gconv bench`) load CUBINs instead of compiling.
// Needs no GPU when --arch is given (or defaults to sm_90a without a device).
//
// stdout: the summary (or --json); stderr: progress and every failure with
// NVRTC's log. Exits non-zero when any kernel fails to compile.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/log.hpp"
#include "gconv/problem.hpp"
#include "jit/engine.hpp"
#include "jit/thread_pool.hpp"
#include "kernels/family.hpp"
#include "kernels/traits.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool/select.hpp"
#include "pool/pool.hpp"
#include "pool/select.hpp"

namespace gconv::cli {
namespace {

using json = nlohmann::json;

struct BuildFlags {
  std::string direction = "all";
  std::string dtype = "bf16";
  int ndim = 0;  // 0: every ndim
  std::string filter;
  int jobs = 0;  // 0: one per hardware thread
  std::string arch;   // NVRTC target; empty: the device's, else sm_90a
  std::string rules;  // arch rules file; empty: derived from arch (sm_90a -> sm90)
  int64_t limit = 0;  // 0: no limit
  std::string configs;
  bool no_cache = false, as_json = false, verbose = false;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "gconv build: %s\n", message.c_str());
  throw CLI::RuntimeError(1);
}
[[noreturn]] void fail(const Status& s) { fail(s.to_string()); }

// "sm_90a" -> "sm90": the arch rules file name for an NVRTC target.
std::string rules_name(const std::string& arch) {
  std::string out = "sm";
  for (char c : arch.substr(3)) {
    if (c >= '0' && c <= '9') out += c;
  }
  return out;
}

struct Item {
  KernelTraits traits;
  std::string name;
  std::optional<Status> error;  // set on failure
  bool cache_hit = false;
  double compile_ms = 0;
  size_t cubin_bytes = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<KernelTraits> select_kernels(const BuildFlags& f, const ArchRules& rules) {
  auto sel = make_pool_selection(f.direction, f.dtype, f.ndim, f.filter, f.configs);
  if (!sel.ok()) fail(sel.status());
  auto out = select_pool(rules, *sel);
  if (!out.ok()) fail(out.status());
  if (f.limit > 0 && static_cast<int64_t>(out->size()) > f.limit) out->resize(size_t(f.limit));
  return std::move(out).value();
}

void run(const BuildFlags& f) {
  std::string arch = f.arch;
  if (arch.empty()) {
    auto detected = jit::detect_device_arch();
    arch = detected.ok() ? *detected : "sm_90a";
    if (!detected.ok()) std::fprintf(stderr, "gconv build: no GPU found; building for %s\n", arch.c_str());
  }
  if (!jit::is_real_arch(arch)) fail(fmt::format("--arch {} is not a real SM target (e.g. sm_90a)", arch));
  const std::string configs = f.configs.empty() ? config_dir() : f.configs;
  const std::string rules_file = f.rules.empty() ? rules_name(arch) : f.rules;
  auto rules = load_arch_rules(fmt::format("{}/arch/{}.json", configs, rules_file));
  if (!rules.ok()) fail(rules.status());

  std::vector<Item> items;
  for (const KernelTraits& t : select_kernels(f, *rules)) {
    Item it;
    it.traits = t;
    it.name = kernel_name(t);
    items.push_back(std::move(it));
  }
  if (items.empty()) fail("no kernels match the selection");

  jit::JitEngine engine = f.no_cache ? jit::JitEngine(jit::CubinCache({}, false)) : jit::JitEngine();
  jit::CompileOptions options;
  options.arch = arch;
  const int jobs = f.jobs > 0 ? f.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::fprintf(stderr, "gconv build: %zu kernels for %s with %d jobs (cache: %s)\n", items.size(), arch.c_str(), jobs,
               engine.cache().enabled() ? engine.cache().dir().c_str() : "off");

  std::mutex err_mu;
  std::atomic<size_t> done{0};
  auto t0 = std::chrono::steady_clock::now();
  jit::parallel_for(items.size(), jobs, [&](size_t i) {
    Item& it = items[i];
    const KernelFamily& family = family_of(it.traits);
    jit::BuildInfo info;
    auto cubin = engine.build_only(family.instance_source(it.traits), it.name + ".cu", options, &info);
    size_t n = ++done;
    std::lock_guard<std::mutex> lk(err_mu);
    if (!cubin.ok()) {
      it.error = cubin.status();
      std::fprintf(stderr, "gconv build: FAILED %s\n%s\n", it.name.c_str(), cubin.status().message().c_str());
      return;
    }
    it.cache_hit = info.cache_hit;
    it.compile_ms = info.compile_ms;
    it.cubin_bytes = cubin->image.size();
    if (f.verbose)
      std::fprintf(stderr, "[%zu/%zu] %s %s\n", n, items.size(), it.name.c_str(),
                   it.cache_hit ? "cached" : fmt::format("{:.0f} ms", it.compile_ms).c_str());
  });
  double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<double> times;
  size_t failed = 0, cached = 0;
  for (const Item& it : items) {
    if (it.error) {
      ++failed;
    } else if (it.cache_hit) {
      ++cached;
    } else {
      times.push_back(it.compile_ms);
    }
  }
  const double med = median(times);
  const double max_ms = times.empty() ? 0 : *std::max_element(times.begin(), times.end());
  if (f.as_json) {
    json j;
    j["arch"] = arch;
    j["jobs"] = jobs;
    j["kernels"] = items.size();
    j["compiled"] = times.size();
    j["cached"] = cached;
    j["failed"] = failed;
    j["median_compile_ms"] = med;
    j["max_compile_ms"] = max_ms;
    j["total_s"] = total_s;
    j["nvrtc"] = fmt::format("{}.{}", jit::nvrtc_version().major, jit::nvrtc_version().minor);
    json per = json::array();
    for (const Item& it : items) {
      json k = {{"name", it.name}, {"ok", !it.error}};
      if (it.error) {
        k["error"] = it.error->to_string();
      } else {
        k["cached"] = it.cache_hit;
        k["compile_ms"] = it.compile_ms;
        k["cubin_bytes"] = it.cubin_bytes;
      }
      per.push_back(std::move(k));
    }
    j["results"] = std::move(per);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("kernels: %zu (compiled %zu, from cache %zu, failed %zu)\n", items.size(), times.size(), cached,
                failed);
    std::printf("compile time per kernel: median %.0f ms, max %.0f ms\n", med, max_ms);
    std::printf("total: %.1f s with %d jobs (NVRTC %d.%d, %s)\n", total_s, jobs, jit::nvrtc_version().major,
                jit::nvrtc_version().minor, arch.c_str());
    for (const Item& it : items)
      if (it.error) std::printf("failed: %s\n", it.name.c_str());
  }
  if (failed > 0) fail(fmt::format("{} of {} kernels failed to compile", failed, items.size()));
}

}  // namespace

void register_build_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "build", "Compile a kernel pool ahead of time (NVRTC) into the kernel cache; report failures and timings");
  auto f = std::make_shared<BuildFlags>();
  cmd->add_option("--direction", f->direction, "fwd, bwd_data, bwd_weight or all")
      ->check(CLI::IsMember({"fwd", "bwd_data", "bwd_weight", "all"}))
      ->capture_default_str();
  cmd->add_option("--dtype", f->dtype, "bf16, fp16 or fp32")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32"}))
      ->capture_default_str();
  cmd->add_option("--ndim", f->ndim, "Only kernels for 1, 2 or 3 spatial dimensions")->check(CLI::Range(1, 3));
  cmd->add_option("--filter", f->filter, "Keep kernels matching EXPR (the language of `gconv kernels --filter`)");
  cmd->add_option("--jobs,-j", f->jobs, "Parallel NVRTC compiles (default: one per hardware thread)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--arch", f->arch, "NVRTC target, e.g. sm_90a (default: the GPU's, or sm_90a without one)");
  cmd->add_option("--rules", f->rules, "Arch rules file under <configs>/arch (default: from --arch, sm_90a -> sm90)");
  cmd->add_option("--limit", f->limit, "Build at most K kernels (the first K of the selection)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--configs", f->configs, "Configs folder (default: $GCONV_CONFIG_DIR or the source tree's configs)");
  cmd->add_flag("--no-cache", f->no_cache, "Compile everything; neither read nor write the kernel cache");
  cmd->add_flag("--json", f->as_json, "Print the report as JSON (per-kernel results included)");
  cmd->add_flag("--verbose,-v", f->verbose, "Print one progress line per kernel to stderr");
  cmd->callback([f] { run(*f); });
}

}  // namespace gconv::cli
