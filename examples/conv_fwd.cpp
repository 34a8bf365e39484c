// Forward convolution, y = conv(x, w), through gconv::Registry.
//
//   conv_fwd [SPEC] [--dtype bf16|fp16|fp32] [--check] [--policy P] [--iters N]
//
// Without SPEC: a ResNet-50 conv2_x 3x3 layer, batch 8. Random x and w are
// copied to the GPU, a kernel is selected and run, its time is printed, and
// with --check y is compared with the CPU reference.
// Exit code: 0 ok, 1 error or failed check, 2 bad command line, 77 no GPU.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

#include "example_util.hpp"
#include "gconv/reference.hpp"
#include "gconv/registry.hpp"

namespace {
constexpr const char* kProg = "conv_fwd";
constexpr const char* kDefaultSpec = "bf16_n8c64k64g1_h56w56_y3x3_s1_p1";
}  // namespace

int main(int argc, char** argv) {
  example::Args args;
  if (!example::parse_args(argc, argv, kDefaultSpec, &args)) return 2;
  auto problem = example::make_problem(args, gconv::Direction::fwd);
  if (!problem.ok()) return example::report(kProg, "problem", problem.status());
  const gconv::Problem& p = *problem;
  if (!example::have_gpu(kProg)) return example::kSkip;

  // 1. A registry for the current GPU, and a kernel chosen for the problem.
  auto registry = gconv::Registry::create();
  if (!registry.ok()) return example::report(kProg, "Registry::create", registry.status());
  auto policy = gconv::Policy::parse(args.policy);
  if (!policy.ok()) return example::report(kProg, "--policy", policy.status());
  auto solution = (*registry)->select(p, *policy);
  if (!solution.ok()) return example::report(kProg, "select", solution.status());
  const gconv::Solution& sol = *solution;

  // 2. Operands: a = x, b = w, out = y (channels-last, dtype p.dtype).
  const gconv::ReferenceOperands count = gconv::reference_operands(p);
  const size_t elem = size_t(gconv::dtype_bytes(p.dtype));
  const std::vector<unsigned char> x = example::random_host(p.dtype, count.a, 1);
  const std::vector<unsigned char> w = example::random_host(p.dtype, count.b, 2);
  example::DeviceBuffer d_x(x.size()), d_w(w.size()), d_y(size_t(count.out) * elem), d_ws(sol.workspace_bytes);
  if (!d_x.ok() || !d_w.ok() || !d_y.ok() || !d_ws.ok()) {
    std::fprintf(stderr, "%s: cudaMalloc failed\n", kProg);
    return 1;
  }
  if (!example::cuda_ok(cudaMemcpy(d_x.get(), x.data(), x.size(), cudaMemcpyHostToDevice), "cudaMemcpy x") ||
      !example::cuda_ok(cudaMemcpy(d_w.get(), w.data(), w.size(), cudaMemcpyHostToDevice), "cudaMemcpy w") ||
      // NaN everywhere: an element the kernel fails to write fails the check.
      !example::cuda_ok(cudaMemset(d_y.get(), 0xFF, d_y.bytes()), "cudaMemset y"))
    return 1;

  // 3. Run once (compiles the kernel on first use), then time it.
  auto run = [&] {
    return (*registry)->run(sol, p, d_x.get(), d_w.get(), d_y.get(), d_ws.get(), d_ws.bytes(), nullptr);
  };
  const gconv::Status first = run();
  if (!first.ok()) return example::report(kProg, "run", first);
  if (!example::cuda_ok(cudaDeviceSynchronize(), "kernel")) return 1;
  std::vector<unsigned char> y(d_y.bytes());
  if (!example::cuda_ok(cudaMemcpy(y.data(), d_y.get(), y.size(), cudaMemcpyDeviceToHost), "cudaMemcpy y")) return 1;

  const double ms = example::time_ms([&] { return run().ok(); }, args.iters);
  if (ms < 0) return 1;
  std::printf("%s  kernel %s (%s)\n", p.to_spec().c_str(), sol.kernel.c_str(), sol.reason.c_str());
  std::printf("time: %.4f ms  %.2f TFLOP/s\n", ms, p.flops() / (ms * 1e9));

  // 4. Optional check against the CPU reference.
  if (!args.check) return 0;
  std::vector<unsigned char> ref(y.size());
  const gconv::Status rs = gconv::reference_conv(p, x.data(), w.data(), ref.data());
  if (!rs.ok()) return example::report(kProg, "reference_conv", rs);
  return example::check_output(p, y.data(), ref.data(), count.out) ? 0 : 1;
}
