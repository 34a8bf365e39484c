// The tinyc KernelFamily: tensor-core bwd_data for dx with at most 8
// channels (tinyc.cuh; rules and plan in tinyc_plan.cpp). One launch, no
// workspace.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "jit/module.hpp"
#include "kernels/family.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"

namespace gconv {
namespace {

class TinycFamily final : public KernelFamily {
 public:
  Family family() const override { return Family::tinyc; }

  bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) const override {
    return tinyc::can_implement(t, p, why);
  }

  size_t workspace_bytes(const KernelTraits&, const Problem&) const override { return 0; }

  std::string instance_source(const KernelTraits& t) const override { return tinyc::instance_source(t); }

  std::vector<std::string> entry_points(const KernelTraits&) const override { return {"gconv_main"}; }

  Status launch(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args,
                CUstream_st* stream) const override {
    std::string why;
    if (!tinyc::can_implement(t, p, &why)) return not_supported("tinyc launch: " + why);
    if (k.entries.empty() || k.entries[0] == nullptr) return internal_error("tinyc launch: gconv_main is not loaded");
    if (args.a == nullptr || args.b == nullptr || args.out == nullptr)
      return invalid_argument("tinyc launch: a null operand");
    // dy is read in 16-byte copies when K % 8 == 0 and dy is 16-byte
    // aligned, else element by element (kvec 1: never refused for its
    // alignment); w and dx element by element.
    const auto dy_address = reinterpret_cast<uintptr_t>(args.a);
    if (dy_address % 2 != 0 || reinterpret_cast<uintptr_t>(args.b) % 2 != 0 ||
        reinterpret_cast<uintptr_t>(args.out) % 2 != 0)
      return invalid_argument("tinyc launch: dy, w and dx must be 2-byte aligned");
    tinyc::Plan plan = tinyc::make_plan(t, p);
    plan.params.kvec = tinyc::copy_channels(p.k, dy_address);
    plan.params.dy = args.a;
    plan.params.w = args.b;
    plan.params.dx = args.out;
    void* kargs[] = {&plan.params};
    return jit::launch(k.entries[0], dim3(static_cast<unsigned>(plan.blocks)),
                       dim3(static_cast<unsigned>(plan.threads)), plan.smem, stream, kargs);
  }
};

}  // namespace

const KernelFamily& tinyc_family() {
  static const TinycFamily family;
  return family;
}

}  // namespace gconv
