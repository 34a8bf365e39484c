#include "registry/validate.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

#include <fmt/format.h>

#include "core/cuda_check.hpp"

namespace gconv {

OperandNames operand_names(Direction d) {
  switch (d) {
    case Direction::fwd: return {"x", "w", "y"};
    case Direction::bwd_data: return {"dy", "w", "dx"};
    case Direction::bwd_weight: return {"x", "dy", "dw"};
  }
  return {"a", "b", "out"};
}

Status check_pointers(Direction d, const void* a, const void* b, const void* out, const void* workspace) {
  const OperandNames n = operand_names(d);
  const struct {
    const void* ptr;
    std::string what;
    bool required;
  } args[] = {{a, fmt::format("a ({})", n.a), true},
              {b, fmt::format("b ({})", n.b), true},
              {out, fmt::format("out ({})", n.out), true},
              {workspace, "workspace", false}};
  for (const auto& arg : args) {
    if (arg.ptr == nullptr) {
      if (arg.required) return invalid_argument(arg.what + " is null");
      continue;
    }
    const auto addr = reinterpret_cast<uintptr_t>(arg.ptr);
    if (addr % kPointerAlignment != 0)
      return invalid_argument(fmt::format("{} ({:#x}) is not aligned to {} bytes", arg.what, addr, kPointerAlignment));
  }
  return Status::Ok();
}

Status check_device_pointer(const void* ptr, const std::string& what, int device) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so the caller's next call does not see it
    Status s = cuda_status(err, "cudaPointerGetAttributes");
    if (s.code() == StatusCode::no_device) return s;
    return invalid_argument(what + " is not a CUDA pointer (" + s.message() + ")");
  }
  switch (attr.type) {
    case cudaMemoryTypeManaged: return Status::Ok();  // migrates to whichever device touches it
    case cudaMemoryTypeDevice:
      if (attr.device != device)
        return invalid_argument(fmt::format("{} is memory of device {}, not of the current device {}", what,
                                            attr.device, device));
      return Status::Ok();
    case cudaMemoryTypeHost: return invalid_argument(what + " is host (pinned) memory; device memory is required");
    case cudaMemoryTypeUnregistered:
    default: return invalid_argument(what + " is not CUDA device memory (a host or unknown pointer)");
  }
}

}  // namespace gconv
