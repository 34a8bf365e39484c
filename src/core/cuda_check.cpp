#include "core/cuda_check.hpp"

#include <string>

namespace gconv {

Status cuda_status(cudaError_t err, const char* call) {
  if (err == cudaSuccess) return Status::Ok();
  std::string msg = std::string(call) + ": " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")";
  switch (err) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
      return {StatusCode::no_device, std::move(msg)};
    case cudaErrorMemoryAllocation:
      return {StatusCode::out_of_memory, std::move(msg)};
    default:
      return {StatusCode::cuda_error, std::move(msg)};
  }
}

}  // namespace gconv
