// Uses the installed gconv through its public C++ API only: prints a
// problem's FLOPs and, without running anything on a GPU, the registry's pool
// size and its analytic choice.
//   consumer [SPEC]
#include <cstdio>

#include "gconv/problem.hpp"
#include "gconv/registry.hpp"

int main(int argc, char** argv) {
  const char* spec = argc > 1 ? argv[1] : "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1";
  auto p = gconv::Problem::parse_spec(spec);
  if (!p.ok()) {
    std::fprintf(stderr, "consumer: %s\n", p.status().to_string().c_str());
    return 1;
  }
  if (gconv::Status s = p->validate(); !s.ok()) {
    std::fprintf(stderr, "consumer: %s\n", s.to_string().c_str());
    return 1;
  }
  std::printf("spec %s\nflops %.0f\n", p->to_spec().c_str(), p->flops());

  gconv::RegistryOptions options;
  options.tuning_cache_path = "off";
  auto reg = gconv::Registry::create(options);
  if (!reg.ok()) {
    std::fprintf(stderr, "consumer: Registry::create: %s\n", reg.status().to_string().c_str());
    return 1;
  }
  std::printf("kernels %zu\n", (*reg)->kernel_count(p->direction, p->dtype));
  auto sol = (*reg)->select(*p, gconv::Policy::analytic());
  if (!sol.ok()) {
    std::fprintf(stderr, "consumer: select: %s\n", sol.status().to_string().c_str());
    return 1;
  }
  std::printf("kernel %s\nversion %s\n", sol->kernel.c_str(), gconv::version());
  return 0;
}
