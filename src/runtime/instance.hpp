// A kernel instance ready to launch: its traits, its family (the contract of
// kernels/family.hpp) and its loaded module (through the JIT and its disk
// cache). The unit that the registry, the benchmark and the GPU tests run.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "jit/engine.hpp"
#include "kernels/family.hpp"
#include "kernels/traits.hpp"

namespace gconv {

struct Instance {
  KernelTraits traits;
  std::string name;
  const KernelFamily* family = nullptr;
  std::shared_ptr<jit::LoadedModule> module;
  LoadedKernel kernel;  // module->entries() as KernelFamily::launch takes them
};

// A pool kernel (family_of(t)).
Result<std::shared_ptr<const Instance>> load_instance(const KernelTraits& t,
                                                      jit::JitEngine& jit = jit::JitEngine::global());
// Any family, e.g. naive_family() with naive_traits(p).
Result<std::shared_ptr<const Instance>> load_instance(const KernelTraits& t, const KernelFamily& family,
                                                      const std::string& name,
                                                      jit::JitEngine& jit = jit::JitEngine::global());

// can_implement, then the workspace check, then the family's launch.
// Never synchronizes.
Status launch_instance(const Instance& inst, const Problem& p, const ConvArgs& args, cudaStream_t stream);

// Compiles many kernels ahead of time into the disk cache (no GPU needed when
// `arch` is given), `jobs` at once (<= 0: one per hardware thread). Returns
// one Status per kernel, in order.
std::vector<Status> prebuild(const std::vector<KernelTraits>& kernels, int jobs, const std::string& arch = "",
                             jit::JitEngine& jit = jit::JitEngine::global());

}  // namespace gconv
