// The pw KernelFamily: pointwise fwd and bwd_data as a streaming GEMM
// (pw.cuh; rules and plan in pw_plan.cpp). One launch, no workspace.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "jit/module.hpp"
#include "kernels/family.hpp"
#include "kernels/pw/pw_plan.hpp"

namespace gconv {
namespace {

class PwFamily final : public KernelFamily {
 public:
  Family family() const override { return Family::pw; }

  bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) const override {
    return pw::can_implement(t, p, why);
  }

  size_t workspace_bytes(const KernelTraits&, const Problem&) const override { return 0; }

  std::string instance_source(const KernelTraits& t) const override { return pw::instance_source(t); }

  std::vector<std::string> entry_points(const KernelTraits&) const override { return {"gconv_main"}; }

  Status launch(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args,
                CUstream_st* stream) const override {
    std::string why;
    if (!pw::can_implement(t, p, &why)) return not_supported("pw launch: " + why);
    if (k.entries.empty() || k.entries[0] == nullptr) return internal_error("pw launch: gconv_main is not loaded");
    if (args.a == nullptr || args.b == nullptr || args.out == nullptr)
      return invalid_argument("pw launch: a null operand");
    // A tile's rows are copied, and the output tile stored, in 16-byte
    // chunks from offsets that are multiples of 16 bytes of the tensors.
    if (reinterpret_cast<uintptr_t>(args.a) % 16 != 0 || reinterpret_cast<uintptr_t>(args.out) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(args.b) % 16 != 0)
      return invalid_argument("pw launch: the operands and the output must be 16-byte aligned");
    pw::Plan plan = pw::make_plan(t, p);
    plan.params.a = args.a;
    plan.params.w = args.b;
    plan.params.out = args.out;
    void* kargs[] = {&plan.params};
    return jit::launch(k.entries[0], dim3(static_cast<unsigned>(plan.n_tiles), static_cast<unsigned>(plan.blocks_m)),
                       dim3(static_cast<unsigned>(plan.threads)), plan.smem, stream, kargs);
  }
};

}  // namespace

const KernelFamily& pw_family() {
  static const PwFamily family;
  return family;
}

}  // namespace gconv
