// gconv run: select a kernel for one problem through the Registry, run it on
// random inputs, time it (perf/timer.hpp: median of --repeats launches, L2
// flushed between them) and, with --check, compare its output with a
// reference: the CPU reference for small problems, the naive GPU kernel
// (itself checked against the CPU by the GPU tests) for large ones.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "check/compare.hpp"
#include "cli/commands.hpp"
#include "cli/problem_flags.hpp"
#include "gconv/numeric.hpp"
#include "gconv/reference.hpp"
#include "gconv/registry.hpp"
#include "kernels/naive/naive.hpp"
#include "perf/timer.hpp"
#include "runtime/instance.hpp"

namespace gconv::cli {
namespace {

// Above this many flops the CPU reference (fp64, all cores) would take longer
// than the rest of the command; the naive GPU kernel serves instead.
constexpr double kCpuReferenceMaxFlops = 4e9;

struct RunOptions {
  ProblemFlags problem;
  std::string policy = "heuristic", filter, tuning_cache;
  bool check = false, json = false, no_flush = false;
  int repeats = 20, warmup = 5;
  uint64_t seed = 1;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "gconv run: %s\n", message.c_str());
  throw CLI::RuntimeError(1);
}

void check_ok(const Status& s, const char* what) {
  if (!s.ok()) fail(std::string(what) + ": " + s.to_string());
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(fmt::format("{}: {} ({})", what, cudaGetErrorString(e), cudaGetErrorName(e)));
}

struct DeviceMemory {
  void* ptr = nullptr;
  explicit DeviceMemory(size_t bytes, const char* what) {
    if (bytes > 0) check_cuda(cudaMalloc(&ptr, bytes), what);
  }
  ~DeviceMemory() {
    if (ptr) cudaFree(ptr);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
};

struct StreamHolder {
  cudaStream_t s = nullptr;
  StreamHolder() { check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~StreamHolder() {
    if (s) cudaStreamDestroy(s);
  }
};

void run_command(const RunOptions& o) {
  auto parsed = problem_from_flags(o.problem);
  if (!parsed.ok()) fail(parsed.status().to_string());
  const Problem p = *parsed;
  auto policy = Policy::parse(o.policy);
  if (!policy.ok()) fail(policy.status().to_string());
  if (o.repeats < 1 || o.warmup < 0) fail("--repeats must be >= 1 and --warmup >= 0");

  RegistryOptions ro;
  ro.kernel_filter = o.filter;
  ro.tuning_cache_path = o.tuning_cache;
  auto reg_or = Registry::create(ro);
  if (!reg_or.ok()) fail(reg_or.status().to_string());
  Registry& reg = **reg_or;
  if (reg.device_name() == "none") fail("no CUDA device (gconv select works without one)");

  auto sol_or = reg.select(p, *policy);
  if (!sol_or.ok()) fail(sol_or.status().to_string());
  const Solution sol = *sol_or;

  const ReferenceOperands ops = reference_operands(p);
  const size_t eb = size_t(dtype_bytes(p.dtype));
  std::vector<unsigned char> ha(size_t(ops.a) * eb), hb(size_t(ops.b) * eb), hout(size_t(ops.out) * eb);
  fill_random(p.dtype, ha.data(), ops.a, o.seed);
  fill_random(p.dtype, hb.data(), ops.b, o.seed + 1);
  DeviceMemory a(ha.size(), "cudaMalloc(a)"), b(hb.size(), "cudaMalloc(b)"), out(hout.size(), "cudaMalloc(out)");
  DeviceMemory ws(sol.workspace_bytes, "cudaMalloc(workspace)");
  check_cuda(cudaMemcpy(a.ptr, ha.data(), ha.size(), cudaMemcpyHostToDevice), "cudaMemcpy(a)");
  check_cuda(cudaMemcpy(b.ptr, hb.data(), hb.size(), cudaMemcpyHostToDevice), "cudaMemcpy(b)");
  StreamHolder stream;
  auto launch = [&](cudaStream_t s) {
    return reg.run(sol, p, a.ptr, b.ptr, out.ptr, ws.ptr, sol.workspace_bytes, s);
  };

  std::string check_text = "not checked (pass --check)";
  bool check_failed = false;
  if (o.check) {
    // Poisoned output: an element the kernel does not write reads as NaN.
    check_cuda(cudaMemsetAsync(out.ptr, kPoisonByte, hout.size(), stream.s), "cudaMemset(out)");
    check_ok(launch(stream.s), "run");
    check_cuda(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
    check_cuda(cudaMemcpy(hout.data(), out.ptr, hout.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(out)");
    std::vector<unsigned char> href(hout.size());
    std::string against;
    if (p.flops() <= kCpuReferenceMaxFlops) {
      against = "cpu reference";
      check_ok(reference_conv(p, ha.data(), hb.data(), href.data()), "reference_conv");
    } else {
      against = "naive gpu kernel";
      const KernelTraits nt = naive_traits(p);
      auto naive = load_instance(nt, naive_family(), naive_kernel_name(nt));
      if (!naive.ok()) fail("naive kernel: " + naive.status().to_string());
      DeviceMemory ref(href.size(), "cudaMalloc(reference)");
      check_ok(launch_instance(**naive, p, ConvArgs{a.ptr, b.ptr, ref.ptr, nullptr, 0}, stream.s), "naive kernel");
      check_cuda(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
      check_cuda(cudaMemcpy(href.data(), ref.ptr, href.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(reference)");
    }
    const CompareResult cr = compare_outputs(p.dtype, hout.data(), href.data(), ops.out, tolerance_for(p));
    check_failed = !cr.ok;
    check_text = fmt::format("{} vs {}: {}", cr.ok ? "ok" : "FAILED", against, cr.summary());
  }

  auto timer = bench::Timer::create(stream.s);
  if (!timer.ok()) fail(timer.status().to_string());
  bench::TimingOptions to;
  to.warmup = o.warmup;
  to.repeats = o.repeats;
  to.flush_l2 = !o.no_flush;
  auto timing = (*timer)->time(launch, to);
  if (!timing.ok()) fail("timing: " + timing.status().to_string());
  const double ms = timing->median_ms;
  const double tflops = p.flops() / (ms * 1e-3) / 1e12;
  const double gbps = double(p.min_bytes()) / (ms * 1e-3) / 1e9;

  if (o.json) {
    nlohmann::json j = {{"spec", p.to_spec()},       {"device", reg.device_name()},  {"policy", policy->to_string()},
                        {"kernel", sol.kernel},      {"reason", sol.reason},         {"predicted_ms", sol.predicted_ms},
                        {"median_ms", ms},           {"min_ms", timing->min_ms},     {"repeats", o.repeats},
                        {"tflops", tflops},          {"gbps", gbps},                 {"checked", o.check},
                        {"check_ok", !check_failed}, {"check", check_text}};
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("%s", fmt::format("problem    {}\n"
                                  "device     {}\n"
                                  "kernel     {}\n"
                                  "reason     {}\n"
                                  "predicted  {:.4f} ms\n"
                                  "time       {:.4f} ms (median of {}, min {:.4f})\n"
                                  "rate       {:.2f} TFLOP/s, {:.1f} GB/s (each tensor once)\n"
                                  "check      {}\n",
                                  p.to_spec(), reg.device_name(), sol.kernel, sol.reason, sol.predicted_ms, ms,
                                  o.repeats, timing->min_ms, tflops, gbps, check_text)
                          .c_str());
  }
  if (check_failed) throw CLI::RuntimeError(1);
}

}  // namespace

void register_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Select a kernel through the registry, run it on random inputs, time it, optionally check it");
  add_problem_flags(cmd, &o->problem);
  cmd->add_option("--policy", o->policy, "heuristic | analytic | exhaustive | topk:K")->capture_default_str();
  cmd->add_option("--filter", o->filter, "Kernel filter expression");
  cmd->add_option("--tuning-cache", o->tuning_cache, "Tuning cache file ('off' disables)");
  cmd->add_flag("--check", o->check,
                "Compare with the CPU reference (small problems) or the naive GPU kernel; exit 1 on a mismatch");
  cmd->add_option("--repeats", o->repeats, "Timed launches; the median is reported")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed launches first")->capture_default_str();
  cmd->add_flag("--no-flush", o->no_flush, "Do not flush L2 between timed launches");
  cmd->add_option("--seed", o->seed, "Random seed of operand a (b uses seed + 1)")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print one JSON object instead of text");
  cmd->callback([o] { run_command(*o); });
}

}  // namespace gconv::cli
