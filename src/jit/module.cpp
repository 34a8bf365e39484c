#include "jit/module.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "core/cuda_check.hpp"

namespace gconv::jit {
namespace {

constexpr size_t kDefaultSmemLimit = 48 * 1024;

// The dynamic shared memory limit already set per (kernel, device). Entries
// are dropped when a module unloads, because a later module may get the same
// handle value back.
std::mutex g_smem_mu;
std::map<std::pair<cudaKernel_t, int>, size_t> g_smem_limit;

void forget_kernel(cudaKernel_t k) {
  std::lock_guard<std::mutex> lk(g_smem_mu);
  for (auto it = g_smem_limit.begin(); it != g_smem_limit.end();) {
    it = it->first.first == k ? g_smem_limit.erase(it) : std::next(it);
  }
}

}  // namespace

Result<std::shared_ptr<LoadedModule>> LoadedModule::load(const std::vector<char>& cubin,
                                                         const std::vector<std::string>& entries) {
  if (cubin.empty()) return invalid_argument("LoadedModule::load: empty cubin");
  std::shared_ptr<LoadedModule> m(new LoadedModule());
  Status s = cuda_status(cudaLibraryLoadData(&m->library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
                         "cudaLibraryLoadData");
  if (!s.ok()) {
    m->library_ = nullptr;
    return s;
  }
  for (const auto& name : entries) {
    cudaKernel_t k = nullptr;
    cudaError_t err = cudaLibraryGetKernel(&k, m->library_, name.c_str());
    if (err == cudaErrorSymbolNotFound || err == cudaErrorSharedObjectSymbolNotFound) {
      cudaGetLastError();  // clear it so it does not surface at a later launch check
      return Status(StatusCode::not_found, "kernel entry '" + name + "' is not in the loaded cubin");
    }
    s = cuda_status(err, "cudaLibraryGetKernel");
    if (!s.ok()) return Status(s.code(), s.message() + " ('" + name + "')");
    m->names_.push_back(name);
    m->kernels_.entries.push_back(k);
  }
  return m;
}

LoadedModule::~LoadedModule() {
  for (cudaKernel_t k : kernels_.entries) forget_kernel(k);
  // Unload errors are ignored: a destructor cannot report them and the
  // process may be tearing the runtime down already.
  if (library_ != nullptr) cudaLibraryUnload(library_);
}

Result<cudaKernel_t> LoadedModule::kernel(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return kernels_.entries[i];
  return Status(StatusCode::not_found, "no entry point '" + std::string(name) + "' in this module");
}

Status launch(cudaKernel_t k, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, void** args) {
  if (k == nullptr) return invalid_argument("launch: null kernel");
  const void* func = reinterpret_cast<const void*>(k);
  if (smem > kDefaultSmemLimit) {
    int dev = 0;
    GCONV_RETURN_IF_ERROR(cuda_status(cudaGetDevice(&dev), "cudaGetDevice"));
    std::lock_guard<std::mutex> lk(g_smem_mu);
    size_t& limit = g_smem_limit[{k, dev}];
    if (smem > limit) {
      GCONV_RETURN_IF_ERROR(cuda_status(
          cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)"));
      limit = smem;
    }
  }
  cudaError_t err = cudaLaunchKernel(func, grid, block, args, smem, stream);
  if (err != cudaSuccess) {
    cudaGetLastError();  // consume it so the next launch's check does not report it again
    return cuda_status(err, "cudaLaunchKernel");
  }
  return cuda_status(cudaGetLastError(), "cudaLaunchKernel (cudaGetLastError)");
}

}  // namespace gconv::jit
