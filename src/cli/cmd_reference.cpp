// gconv reference <spec>: runs the CPU reference convolution on random inputs
// and reports its speed and an output checksum. The benchmark for the
// reference itself (how long ground truth costs), and a way to get a
// checksum to compare a GPU run against.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "gconv/numeric.hpp"
#include "gconv/problem.hpp"
#include "gconv/reference.hpp"

namespace gconv::cli {
namespace {

struct ReferenceOptions {
  std::string spec;
  int repeat = 1;
  int threads = 0;
  uint64_t seed = 1;
  bool json = false;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "gconv reference: %s\n", message.c_str());
  throw CLI::RuntimeError(1);
}

void run_reference(const ReferenceOptions& o) {
  Result<Problem> parsed = Problem::parse_spec(o.spec);
  if (!parsed.ok()) fail(parsed.status().to_string());
  const Problem p = *parsed;
  if (Status s = p.validate(); !s.ok()) fail(s.to_string());
  if (o.repeat < 1) fail("--repeat must be at least 1");
  if (o.threads < 0) fail("--threads must not be negative");
  const int threads =
      o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  // Inputs: seeds `seed` (operand a) and `seed + 1` (operand b), so a GPU run
  // filled the same way can compare checksums.
  const ReferenceOperands n = reference_operands(p);
  const size_t bytes = static_cast<size_t>(dtype_bytes(p.dtype));
  std::vector<unsigned char> a(n.a * bytes), b(n.b * bytes), out(n.out * bytes);
  fill_random(p.dtype, a.data(), n.a, o.seed);
  fill_random(p.dtype, b.data(), n.b, o.seed + 1);

  // Wall time is the figure; process CPU time is printed beside it because
  // on a shared machine it shows how much of the wall time was waiting.
  std::vector<double> seconds, cpu_seconds;
  for (int r = 0; r < o.repeat; ++r) {
    std::fprintf(stderr, "gconv reference: run %d/%d of %s on %d threads\n", r + 1, o.repeat,
                 p.to_spec().c_str(), threads);
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = reference_conv(p, a.data(), b.data(), out.data(), threads);
    const auto t1 = std::chrono::steady_clock::now();
    const std::clock_t c1 = std::clock();
    if (!s.ok()) fail(s.to_string());
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    cpu_seconds.push_back(static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
  }
  auto median_of = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  };
  const double median = median_of(seconds);
  const double cpu_median = median_of(cpu_seconds);
  std::sort(seconds.begin(), seconds.end());
  const double gflops = p.flops() / median * 1e-9;

  double sum = 0, abs_sum = 0;
  for (int64_t i = 0; i < n.out; ++i) {
    const double v = load_element(p.dtype, out.data(), i);
    sum += v;
    abs_sum += std::fabs(v);
  }

  if (o.json) {
    nlohmann::json j = {{"problem", p.to_spec()}, {"threads", threads},      {"repeat", o.repeat},
                        {"seed", o.seed},         {"median_s", median},      {"min_s", seconds.front()},
                        {"cpu_s", cpu_median},
                        {"gflops", gflops},       {"flops", p.flops()},      {"out_elements", n.out},
                        {"checksum_sum", sum},    {"checksum_abs_sum", abs_sum}};
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("%s", fmt::format("problem      {}\n"
                                "threads      {}\n"
                                "repeat       {}\n"
                                "median_s     {:.4f}\n"
                                "min_s        {:.4f}\n"
                                "cpu_s        {:.4f} (median process CPU time, all threads)\n"
                                "gflops       {:.3f}\n"
                                "checksum     sum={:.17g} abs_sum={:.17g}\n",
                                p.to_spec(), threads, o.repeat, median, seconds.front(), cpu_median, gflops, sum,
                                abs_sum)
                        .c_str());
}

}  // namespace

void register_reference_command(CLI::App& app) {
  auto opts = std::make_shared<ReferenceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "reference", "Run the CPU reference convolution on random inputs; print time, GFLOP/s, checksum");
  cmd->add_option("spec", opts->spec, "Problem spec, e.g. fwd_bf16_n32c256k256g1_h56w56_y3x3_s1_p1_dil1")
      ->required();
  cmd->add_option("--repeat,-r", opts->repeat, "Runs to time; the median is reported")->capture_default_str();
  cmd->add_option("--threads,-t", opts->threads, "Worker threads (0 = all hardware threads)")
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Random seed of operand a (b uses seed + 1)")->capture_default_str();
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of text");
  cmd->callback([opts] { run_reference(*opts); });
}

}  // namespace gconv::cli
