// The one boundary where CUDA runtime errors become Status values.
//
// cuda_status(err, "cudaLibraryLoadData") -> ok for cudaSuccess, otherwise
//   no_device      for "no device" / "no or too old driver" (the call cannot
//                  work on this machine at all; callers may skip GPU work),
//   out_of_memory  for cudaErrorMemoryAllocation,
//   cuda_error     for everything else,
// with the message "<call>: <cudaGetErrorString> (<cudaGetErrorName>)".
#pragma once

#include <cuda_runtime_api.h>

#include "gconv/status.hpp"

namespace gconv {

Status cuda_status(cudaError_t err, const char* call);

}  // namespace gconv

// Internal convenience: evaluate a CUDA runtime call, return its Status on error.
#define GCONV_CUDA_RETURN_IF_ERROR(call) GCONV_RETURN_IF_ERROR(::gconv::cuda_status((call), #call))
