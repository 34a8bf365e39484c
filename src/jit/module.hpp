// A CUBIN loaded through the CUDA runtime's library API (cudaLibraryLoadData,
// CUDA 12+), so gconv never links libcuda. Entry points are cudaKernel_t
// handles; the runtime accepts one wherever it takes a `const void* func`
// (cudaLaunchKernel, cudaFuncSetAttribute, cudaFuncGetAttributes): a pointer
// that is not a registered __global__ symbol "is assumed to be a cudaKernel_t
// and used as is" (cuda_runtime_api.h).
//
// Without a GPU or driver, load() returns no_device (see core/cuda_check.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gconv/status.hpp"

namespace gconv::jit {

class LoadedModule {
 public:
  // Loads `cubin` and resolves every name in `entries` (extern "C" names).
  // not_found when an entry is missing from the image.
  static Result<std::shared_ptr<LoadedModule>> load(const std::vector<char>& cubin,
                                                    const std::vector<std::string>& entries);
  // cudaLibraryUnload. Kernels of this module must not be running or queued.
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  // In the order of `entries` given to load(). Plain handles, not the
  // kernels/ layer's LoadedKernel: jit/ sits below kernels/ (the families
  // launch through it), so runtime/ wraps these for KernelFamily::launch.
  const std::vector<cudaKernel_t>& entries() const { return entries_; }
  cudaKernel_t kernel(size_t i) const { return entries_.at(i); }
  Result<cudaKernel_t> kernel(std::string_view name) const;
  const std::vector<std::string>& entry_names() const { return names_; }

 private:
  LoadedModule() = default;
  cudaLibrary_t library_ = nullptr;
  std::vector<std::string> names_;
  std::vector<cudaKernel_t> entries_;
};

// Launches `k` with dynamic shared memory `smem`. Above the 48 KB default the
// kernel's cudaFuncAttributeMaxDynamicSharedMemorySize is raised first (once
// per kernel and device, to the largest size asked so far). Checks the launch
// with cudaGetLastError; never synchronizes.
// cluster_x > 1: the grid is launched in thread-block clusters of cluster_x
// blocks along x (grid.x a multiple of it), for kernels compiled without
// __cluster_dims__ (the wgmma family's multicast launches).
Status launch(cudaKernel_t k, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, void** args,
              unsigned cluster_x = 1);

// Blocks of `threads` threads and `smem` bytes of dynamic shared memory of
// `k` that the current device holds at once (blocks per SM x SMs): the grid
// of a persistent kernel. Computed once per (kernel, device, threads, smem).
Result<int> resident_blocks(cudaKernel_t k, unsigned threads, size_t smem);

}  // namespace gconv::jit
