#include "runtime/instance.hpp"

#include <algorithm>
#include <thread>

#include "jit/thread_pool.hpp"
#include "problem/fold.hpp"

namespace gconv {

Result<std::shared_ptr<const Instance>> load_instance(const KernelTraits& t, const KernelFamily& family,
                                                      const std::string& name, jit::JitEngine& jit) {
  jit::CompileOptions opts;
  auto mod = jit.get_or_build(family.instance_source(t), family.entry_points(t), opts, name);
  if (!mod.ok()) return mod.status();
  auto inst = std::make_shared<Instance>();
  inst->traits = t;
  inst->name = name;
  inst->family = &family;
  inst->module = std::move(mod).value();
  inst->kernel.entries = inst->module->entries();
  return std::shared_ptr<const Instance>(std::move(inst));
}

Result<std::shared_ptr<const Instance>> load_instance(const KernelTraits& t, jit::JitEngine& jit) {
  return load_instance(t, family_of(t), kernel_name(t), jit);
}

Status launch_instance(const Instance& inst, const Problem& given, const ConvArgs& args, cudaStream_t stream) {
  const Problem p = fold_patches(given);  // the form gconv runs (problem/fold.hpp)
  std::string why;
  if (!inst.family->can_implement(inst.traits, p, &why))
    return not_supported(inst.name + " cannot implement " + p.to_spec() + ": " + why);
  const size_t ws = inst.family->workspace_bytes(inst.traits, p);
  if (ws > args.workspace_bytes)
    return invalid_argument(inst.name + " needs a workspace of " + std::to_string(ws) + " bytes, got " +
                            std::to_string(args.workspace_bytes));
  if (ws > 0 && args.workspace == nullptr) return invalid_argument(inst.name + ": workspace pointer is null");
  return inst.family->launch(inst.traits, inst.kernel, p, args, stream);
}

std::vector<Status> prebuild(const std::vector<KernelTraits>& kernels, int jobs, const std::string& arch,
                             jit::JitEngine& jit) {
  std::vector<Status> out(kernels.size());
  jit::CompileOptions opts;
  opts.arch = arch;
  // jobs <= 0 means one per hardware thread, as `gconv build` and the bench's
  // --jobs document (passing 0 on to parallel_for compiled serially: a
  // 2289-kernel prebuild took ~15 minutes instead of ~50 s on 64 cores).
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jit::parallel_for(kernels.size(), jobs, [&](size_t i) {
    const KernelFamily& f = family_of(kernels[i]);
    out[i] = jit.build_only(f.instance_source(kernels[i]), kernel_name(kernels[i]), opts).status();
  });
  return out;
}

}  // namespace gconv
