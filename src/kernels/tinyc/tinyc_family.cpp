// The tinyc KernelFamily: tensor-core bwd_data for dx with at most 8
// channels (tinyc.cuh; rules and plan in tinyc_plan.cpp; one launch, no
// workspace) and bwd_weight for grouped convolutions with C/G = K/G of 4, 8
// or 16 (tinyc_wgrad.cuh / .cpp; one launch, an fp32 accumulator in the
// workspace).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "jit/module.hpp"
#include "kernels/family.hpp"
#include "kernels/fixup.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"

namespace gconv {
namespace {

class TinycFamily final : public KernelFamily {
 public:
  Family family() const override { return Family::tinyc; }

  bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) const override {
    return tinyc::can_implement(t, p, why);
  }

  size_t workspace_bytes(const KernelTraits& t, const Problem& p) const override {
    if (t.direction != Direction::bwd_weight || !tinyc::wgrad_can_implement(t, p, nullptr)) return 0;
    return tinyc::make_wgrad_plan(t, p).workspace;
  }

  std::string instance_source(const KernelTraits& t) const override { return tinyc::instance_source(t); }

  // bwd_weight instances also carry the stems' entry (tinyc_wgrad.cuh STEM).
  std::vector<std::string> entry_points(const KernelTraits& t) const override {
    if (t.direction == Direction::bwd_weight) return {"gconv_main", "gconv_stem"};
    return {"gconv_main"};
  }

  Status launch(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args,
                CUstream_st* stream) const override {
    std::string why;
    if (!tinyc::can_implement(t, p, &why)) return not_supported("tinyc launch: " + why);
    if (k.entries.empty() || k.entries[0] == nullptr) return internal_error("tinyc launch: gconv_main is not loaded");
    if (t.direction == Direction::bwd_weight) return launch_wgrad(t, k, p, args, stream);
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

 private:
  // bwd_weight (tinyc_wgrad.cuh): ConvArgs a = x, b = dy, out = dw; one
  // launch whose slabs zero, add and convert their part of the fp32
  // accumulator in the workspace (kernels/fixup.hpp words after it).
  static Status launch_wgrad(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args,
                             CUstream_st* stream) {
    if (args.a == nullptr || args.b == nullptr || args.out == nullptr)
      return invalid_argument("tinyc launch: a null operand");
    if (reinterpret_cast<uintptr_t>(args.a) % 16 != 0 || reinterpret_cast<uintptr_t>(args.b) % 16 != 0)
      return invalid_argument("tinyc bwd_weight launch: x and dy must be 16-byte aligned (tensor maps)");
    if (reinterpret_cast<uintptr_t>(args.out) % 2 != 0) return invalid_argument("tinyc launch: dw must be 2-byte aligned");
    tinyc::WgradPlan plan = tinyc::make_wgrad_plan(t, p);
    if (args.workspace == nullptr || args.workspace_bytes < plan.workspace)
      return invalid_argument("tinyc bwd_weight launch: needs a workspace of " + std::to_string(plan.workspace) +
                              " bytes");
    if (reinterpret_cast<uintptr_t>(args.workspace) % 8 != 0)
      return invalid_argument("tinyc bwd_weight launch: the workspace must be 8-byte aligned");
    plan.params.x = args.a;
    plan.params.dy = args.b;
    plan.params.dw_out = args.out;
    plan.params.acc = static_cast<float*>(args.workspace);
    plan.params.flags =
        reinterpret_cast<unsigned long long*>(static_cast<char*>(args.workspace) + plan.flags_offset);
    plan.params.epoch = next_launch_epoch();
    TensorMap tx{}, tdy{};
    // The stems' x rows are packed C channels a pixel: no swizzle (the block
    // widens them in shared memory with 2-byte loads).
    const bool stem = tinyc::wgrad_stem(p);
    GCONV_RETURN_IF_ERROR(encode_tensor_map(tinyc::wgrad_x_map(p, plan), p.dtype, args.a,
                                            stem ? TmaSwizzle::none : TmaSwizzle::b128, &tx));
    GCONV_RETURN_IF_ERROR(encode_tensor_map(tinyc::wgrad_dy_map(t, p), p.dtype, args.b, TmaSwizzle::b128, &tdy));
    void* kargs[] = {&plan.params, &tx, &tdy};
    if (stem && (k.entries.size() < 2 || k.entries[1] == nullptr))
      return internal_error("tinyc launch: gconv_stem is not loaded");
    return jit::launch(k.entries[stem ? 1 : 0], dim3(static_cast<unsigned>(plan.blocks), static_cast<unsigned>(plan.slabs)),
                       dim3(static_cast<unsigned>(plan.threads)), plan.smem, stream, kargs);
  }
};

}  // namespace

const KernelFamily& tinyc_family() {
  static const TinycFamily family;
  return family;
}

}  // namespace gconv
