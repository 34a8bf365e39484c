#include "bench/cudnn_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace gconv::bench {

std::vector<std::string> cudnn_function_names() {
  return {
#define GCONV_CUDNN_NAME(name) #name,
      GCONV_CUDNN_FUNCTIONS(GCONV_CUDNN_NAME)
#undef GCONV_CUDNN_NAME
  };
}

std::vector<std::string> default_cudnn_candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("GCONV_CUDNN_LIB"); env && *env) c.emplace_back(env);
  c.emplace_back("libcudnn.so.9");
  c.emplace_back("libcudnn.so");
  return c;
}

namespace {

// Resolves every function from `handle`; on a missing one, returns its name.
std::string resolve_all(void* handle, CudnnApi* api) {
#define GCONV_CUDNN_RESOLVE(name)                                              \
  api->name = reinterpret_cast<decltype(api->name)>(dlsym(handle, #name));    \
  if (!api->name) return #name;
  GCONV_CUDNN_FUNCTIONS(GCONV_CUDNN_RESOLVE)
#undef GCONV_CUDNN_RESOLVE
  return {};
}

std::string resolved_path(void* symbol, const std::string& fallback) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname) return info.dli_fname;
  return fallback;
}

}  // namespace

Result<const CudnnApi*> load_cudnn(const std::vector<std::string>& candidates) {
  static std::mutex mu;  // dlerror() is per thread, but keep the tried-list tidy
  std::lock_guard<std::mutex> lock(mu);
  std::string tried;
  for (const std::string& path : candidates) {
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!tried.empty()) tried += "; ";
    if (!handle) {
      const char* e = dlerror();
      tried += path + " (" + (e ? e : "dlopen failed") + ")";
      continue;
    }
    auto api = std::make_unique<CudnnApi>();
    const std::string missing = resolve_all(handle, api.get());
    if (!missing.empty()) {
      // An older cuDNN or another library of that name: try the next one.
      tried += path + " (opened, but has no " + missing + "; cuDNN 9 is needed)";
      dlclose(handle);
      continue;
    }
    api->path = resolved_path(reinterpret_cast<void*>(api->cudnnGetVersion), path);
    api->version = api->cudnnGetVersion();
    // Never freed, like the library handle (see the header).
    return static_cast<const CudnnApi*>(api.release());
  }
  if (candidates.empty()) tried = "(no candidates)";
  return Status(StatusCode::not_found, "cuDNN not found: set GCONV_CUDNN_LIB or LD_LIBRARY_PATH; tried " + tried);
}

Result<const CudnnApi*> cudnn_api() {
  static std::mutex mu;
  static const CudnnApi* cached = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (cached) return cached;
  auto r = load_cudnn(default_cudnn_candidates());
  if (r.ok()) cached = *r;
  return r;
}

Status cudnn_status(const CudnnApi& api, cudnnStatus_t s, const char* call) {
  if (s == CUDNN_STATUS_SUCCESS) return Status::Ok();
  const int code = int(s);
  const char* text = api.cudnnGetErrorString ? api.cudnnGetErrorString(s) : nullptr;
  std::string msg = std::string(call) + ": " + (text ? text : "unknown cuDNN error") + " (" + std::to_string(code) + ")";
  const int family = code / 1000 * 1000;
  if (family == CUDNN_STATUS_NOT_SUPPORTED || family == CUDNN_STATUS_BAD_PARAM) return not_supported(std::move(msg));
  if (s == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED || s == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    return Status(StatusCode::out_of_memory, std::move(msg));
  return Status(StatusCode::cuda_error, std::move(msg));
}

}  // namespace gconv::bench
