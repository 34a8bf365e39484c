// The kernel filter language (--filter, pool "exclude" rules, the C API).
// Properties: no input crashes or overflows the stack; a filter that parses
// evaluates on kernels of every family (derived fields divide by warps and
// read the arch rules).
#include <vector>

#include "fuzz_util.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  static const ArchRules rules = [] {
    auto r = load_default_arch_rules();
    if (!r.ok()) fuzz::violated("cannot load the arch rules: " + r.status().message());
    return *r;
  }();
  static const std::vector<KernelTraits> kernels = [] {
    std::vector<KernelTraits> ks(3);
    ks[1].family = Family::direct;
    ks[2].family = Family::wgmma;
    ks[2].warps_n = 1;
    ks[2].tma = true;
    return ks;
  }();
  auto f = Filter::parse(fuzz::as_string(data, size));
  if (!f.ok()) return 0;
  for (const KernelTraits& k : kernels) (void)f->matches(rules, k);
  return 0;
}
