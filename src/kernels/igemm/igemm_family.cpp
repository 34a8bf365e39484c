// The igemm KernelFamily: implicit-GEMM tensor-core convolution (device code
// in igemm/*.cuh, rules and launch plan in igemm_plan.cpp).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "jit/module.hpp"
#include "kernels/family.hpp"
#include "kernels/fixup.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/igemm/launch.hpp"

namespace gconv {
namespace {

bool aligned(const void* ptr, size_t bytes) { return reinterpret_cast<uintptr_t>(ptr) % bytes == 0; }

class IgemmFamily final : public KernelFamily {
 public:
  Family family() const override { return Family::igemm; }

  bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) const override {
    return igemm::can_implement(t, p, why);
  }

  size_t workspace_bytes(const KernelTraits& t, const Problem& p) const override {
    return igemm::workspace_bytes(t, p);
  }

  std::string instance_source(const KernelTraits& t) const override { return igemm::instance_source(t); }

  std::vector<std::string> entry_points(const KernelTraits& t) const override { return igemm::entry_points(t); }

  Status launch(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args,
                CUstream_st* stream) const override {
    Result<igemm::LaunchPlan> plan = igemm::make_plan(t, p);
    if (!plan.ok()) return plan.status();
    return igemm::launch_plan("igemm", t, k, p, args, *plan, stream);
  }
};

}  // namespace

namespace igemm {

Status launch_plan(const char* who, const KernelTraits& t, const LoadedKernel& k, const Problem& p,
                   const ConvArgs& args, const LaunchPlan& plan, CUstream_st* stream,
                   std::span<void* const> extra) {
  const std::string name(who);
  if (k.entries.size() < (plan.reduce ? 2u : 1u) || k.entries[0] == nullptr || (plan.reduce && !k.entries[1]))
    return invalid_argument(name + " launch: the loaded kernel lacks gconv_main" +
                            std::string(plan.reduce ? " / gconv_reduce" : ""));
  if (!args.a || !args.b || !args.out) return invalid_argument(name + " launch: null tensor pointer");

  IgemmParams q = plan.params;
  // The kernels' A/B are GEMM operands; ConvArgs names bwd_weight's inputs
  // (a = x, b = dy) the other way round.
  if (p.direction == Direction::bwd_weight) {
    q.a = args.b;
    q.b = args.a;
  } else {
    q.a = args.a;
    q.b = args.b;
  }
  q.dst = args.out;
  // Inputs are read in vectors of vec elements; the epilogue and the reduce
  // write 16-byte vectors (cudaMalloc's 256-byte alignment satisfies both).
  const size_t esize = size_t(dtype_bytes(p.dtype));
  if (!aligned(q.a, esize * t.vec) || !aligned(q.b, esize * t.vec) || !aligned(q.dst, 16))
    return invalid_argument(name + " launch: inputs must be aligned to vec * element size (" +
                            std::to_string(esize * t.vec) + " bytes) and the output to 16 bytes");
  if (plan.workspace > 0) {
    if (!args.workspace || args.workspace_bytes < plan.workspace)
      return invalid_argument(name + " launch: split-K needs a workspace of " + std::to_string(plan.workspace) +
                              " bytes, got " + std::to_string(args.workspace ? args.workspace_bytes : 0));
    if (!aligned(args.workspace, 16)) return invalid_argument(name + " launch: workspace must be 16-byte aligned");
    q.ws = static_cast<float*>(args.workspace);
    if (q.fixup) {
      q.flags = reinterpret_cast<unsigned long long*>(static_cast<char*>(args.workspace) + plan.fixup_offset);
      q.epoch = next_launch_epoch();
    }
  }

  if (extra.size() > 3) return internal_error(name + " launch: more than 3 extra kernel parameters");
  cudaStream_t s = stream;
  if (plan.zero_workspace) GCONV_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(q.ws, 0, plan.workspace, s));
  // gconv_main's parameters: IgemmParams, then the family's extras (no heap
  // allocation on the launch path).
  void* main_args[4] = {&q};
  std::copy(extra.begin(), extra.end(), main_args + 1);
  GCONV_RETURN_IF_ERROR(
      jit::launch(k.entries[0], dim3(plan.grid), dim3(unsigned(plan.threads)), plan.smem, s, main_args, plan.cluster));
  void* kargs[] = {&q};
  if (plan.reduce) {
    GCONV_RETURN_IF_ERROR(
        jit::launch(k.entries[1], dim3(plan.reduce_grid), dim3(unsigned(kReduceThreads)), 0, s, kargs));
  }
  return Status::Ok();
}

}  // namespace igemm

const KernelFamily& igemm_family() {
  static const IgemmFamily family;
  return family;
}

}  // namespace gconv
