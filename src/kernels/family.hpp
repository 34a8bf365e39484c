// The contract every kernel family answers (CUTLASS-style):
//   can_implement(traits, problem) -> workspace_bytes -> launch.
// The registry's is_supported and its dispatcher call the same can_implement.
//
// Device code lives in .cuh headers beside each family; they compile under
// NVRTC with no host headers. A family turns a KernelTraits into the text of
// one instance (instance_source), which src/jit compiles and loads; the
// instance defines extern "C" entry points whose names the family chooses.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"

struct CUstream_st;
struct CUkern_st;

namespace gconv {

// Tensors of one call. fwd: a = x, b = w, out = y; bwd_data: a = dy, b = w,
// out = dx; bwd_weight: a = x, b = dy, out = dw. All device pointers.
struct ConvArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  void* out = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// A loaded instance: its entry points by name, in the order instance_source
// declared them (see KernelFamily::entry_points).
struct LoadedKernel {
  std::vector<CUkern_st*> entries;  // cudaKernel_t handles
};

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;
  virtual Family family() const = 0;
  // Whether this instance computes `p` correctly. On false, *why says which rule failed.
  virtual bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) const = 0;
  virtual size_t workspace_bytes(const KernelTraits& t, const Problem& p) const = 0;
  // The full NVRTC source of the instance (it #includes the family's headers
  // by their path under src/kernels, e.g. "igemm/igemm.cuh").
  virtual std::string instance_source(const KernelTraits& t) const = 0;
  // extern "C" entry names defined by instance_source, e.g. {"gconv_main", "gconv_reduce"}.
  virtual std::vector<std::string> entry_points(const KernelTraits& t) const = 0;
  // Enqueue the kernel(s) on `stream`; never synchronizes.
  virtual Status launch(const KernelTraits& t, const LoadedKernel& k, const Problem& p,
                        const ConvArgs& args, CUstream_st* stream) const = 0;
};

const KernelFamily& igemm_family();
const KernelFamily& direct_family();
const KernelFamily& wgmma_family();
const KernelFamily& tinyc_family();
const KernelFamily& pw_family();
const KernelFamily& family_of(const KernelTraits& t);

}  // namespace gconv
