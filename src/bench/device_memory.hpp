// Device memory grown on demand and freed with its owner: the sweep's
// problem buffers and the cuDNN providers' workspaces.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/cuda_check.hpp"
#include "gconv/status.hpp"

namespace gconv::bench {

struct DevMem {
  void* p = nullptr;
  size_t n = 0;
  DevMem() = default;
  DevMem(const DevMem&) = delete;
  DevMem& operator=(const DevMem&) = delete;
  ~DevMem() {
    if (p) cudaFree(p);
  }
  // Holds at least `bytes` afterwards (and at least one byte, so that `p` is
  // a valid device pointer even for an empty tensor); the old contents are
  // not kept when it grows.
  Status ensure(size_t bytes) {
    if (p && n >= bytes) return Status::Ok();
    if (p) cudaFree(p);
    p = nullptr;
    n = 0;
    GCONV_CUDA_RETURN_IF_ERROR(cudaMalloc(&p, bytes ? bytes : 1));
    n = bytes;
    return Status::Ok();
  }
};

}  // namespace gconv::bench
