// Problem specs and kernel names, the two one-line grammars every file and
// flag goes through. Properties: no input crashes; a spec that parses and
// validates round-trips through to_spec() and its derived sizes are
// computable (UBSan traps any overflow); a kernel name that parses is
// reproduced by kernel_name().
#include "fuzz_util.hpp"
#include "gconv/problem.hpp"
#include "kernels/traits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  const std::string text = fuzz::as_string(data, size);
  if (auto p = Problem::parse_spec(text); p.ok() && p->validate().ok()) {
    auto back = Problem::parse_spec(p->to_spec());
    if (!back.ok() || !(*back == *p)) fuzz::violated("spec round trip: " + p->to_spec());
    (void)p->flops();
    (void)p->min_bytes();
    (void)p->gemm();
    (void)p->out_volume();
    (void)p->x_desc().elements();
    (void)p->w_desc().elements();
    (void)p->y_desc().elements();
  }
  if (auto k = parse_kernel_name(text); k.ok()) {
    auto back = parse_kernel_name(kernel_name(*k));
    if (!back.ok() || !(*back == *k)) fuzz::violated("kernel name round trip: " + kernel_name(*k));
  }
  return 0;
}
