#include "jit/module.hpp"

#include <map>
#include <mutex>
#include <string>
#include <tuple>
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
// resident_blocks' answers per (kernel, device, threads, shared memory),
// under g_smem_mu too.
std::map<std::tuple<cudaKernel_t, int, unsigned, size_t>, int> g_resident;

void forget_kernel(cudaKernel_t k) {
  std::lock_guard<std::mutex> lk(g_smem_mu);
  for (auto it = g_smem_limit.begin(); it != g_smem_limit.end();) {
    it = it->first.first == k ? g_smem_limit.erase(it) : std::next(it);
  }
  for (auto it = g_resident.begin(); it != g_resident.end();) {
    it = std::get<0>(it->first) == k ? g_resident.erase(it) : std::next(it);
  }
}

// Raises k's dynamic shared memory limit on `dev` to smem if it is lower
// (caller holds g_smem_mu).
Status raise_smem_limit(cudaKernel_t k, int dev, size_t smem) {
  if (smem <= kDefaultSmemLimit) return Status::Ok();
  size_t& limit = g_smem_limit[{k, dev}];
  if (smem > limit) {
    GCONV_RETURN_IF_ERROR(cuda_status(cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                           static_cast<int>(smem)),
                                      "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)"));
    limit = smem;
  }
  return Status::Ok();
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
    m->entries_.push_back(k);
  }
  return m;
}

LoadedModule::~LoadedModule() {
  for (cudaKernel_t k : entries_) forget_kernel(k);
  // Unload errors are ignored: a destructor cannot report them and the
  // process may be tearing the runtime down already.
  if (library_ != nullptr) cudaLibraryUnload(library_);
}

Result<cudaKernel_t> LoadedModule::kernel(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return entries_[i];
  return Status(StatusCode::not_found, "no entry point '" + std::string(name) + "' in this module");
}

Status launch(cudaKernel_t k, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, void** args,
              unsigned cluster_x) {
  if (k == nullptr) return invalid_argument("launch: null kernel");
  const void* func = reinterpret_cast<const void*>(k);
  if (smem > kDefaultSmemLimit) {
    int dev = 0;
    GCONV_RETURN_IF_ERROR(cuda_status(cudaGetDevice(&dev), "cudaGetDevice"));
    std::lock_guard<std::mutex> lk(g_smem_mu);
    GCONV_RETURN_IF_ERROR(raise_smem_limit(k, dev, smem));
  }
  cudaError_t err;
  if (cluster_x > 1) {
    if (grid.x % cluster_x != 0) return invalid_argument("launch: grid.x is not a multiple of the cluster size");
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster_x;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    err = cudaLaunchKernelExC(&cfg, func, args);
  } else {
    err = cudaLaunchKernel(func, grid, block, args, smem, stream);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();  // consume it so the next launch's check does not report it again
    return cuda_status(err, cluster_x > 1 ? "cudaLaunchKernelExC (cluster)" : "cudaLaunchKernel");
  }
  return cuda_status(cudaGetLastError(), "cudaLaunchKernel (cudaGetLastError)");
}

Result<int> resident_blocks(cudaKernel_t k, unsigned threads, size_t smem) {
  if (k == nullptr) return invalid_argument("resident_blocks: null kernel");
  int dev = 0;
  GCONV_RETURN_IF_ERROR(cuda_status(cudaGetDevice(&dev), "cudaGetDevice"));
  std::lock_guard<std::mutex> lk(g_smem_mu);
  const auto key = std::make_tuple(k, dev, threads, smem);
  if (auto it = g_resident.find(key); it != g_resident.end()) return it->second;
  // The occupancy calculator counts the kernel's dynamic shared memory only
  // up to its current limit: raise it first, as launch() would.
  GCONV_RETURN_IF_ERROR(raise_smem_limit(k, dev, smem));
  int per_sm = 0, sms = 0;
  GCONV_RETURN_IF_ERROR(cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                        &per_sm, reinterpret_cast<const void*>(k), static_cast<int>(threads), smem),
                                    "cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
  GCONV_RETURN_IF_ERROR(
      cuda_status(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute"));
  if (per_sm < 1 || sms < 1)
    return internal_error("resident_blocks: the kernel cannot be resident (" + std::to_string(per_sm) +
                          " blocks per SM, " + std::to_string(sms) + " SMs)");
  g_resident[key] = per_sm * sms;
  return per_sm * sms;
}

}  // namespace gconv::jit
