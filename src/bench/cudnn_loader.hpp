// cuDNN, loaded at run time: gconv builds and runs without it, and only
// `gconv bench --provider cudnn` needs it. cudnn.h is included for its types
// and enums only; every function is resolved with dlsym into CudnnApi.
//
// Library search (first that opens wins): $GCONV_CUDNN_LIB, "libcudnn.so.9",
// "libcudnn.so" (the last two through the dynamic loader, so LD_LIBRARY_PATH
// applies: on the GPU machine cuDNN is PyTorch's wheel, nvidia/cudnn/lib).
// In cuDNN 9 the legacy convolution API and the graph (backend) API
// (cudnnBackend*) are both exported by libcudnn.so.9 itself, a small shim that
// dispatches to libcudnn_cnn / libcudnn_ops / libcudnn_graph, so the shim is
// the one library opened.
//
// A loaded library is never closed: cuDNN's sub-libraries keep process-wide
// state (and unloading them while the CUDA runtime still holds their kernels
// is not supported), so CudnnApi values live until the process exits.
#pragma once

#include <cudnn.h>

#include <string>
#include <vector>

#include "gconv/status.hpp"

namespace gconv::bench {

#define GCONV_CUDNN_FUNCTIONS(X)                        \
  X(cudnnGetVersion)                                    \
  X(cudnnGetErrorString)                                \
  X(cudnnCreate)                                        \
  X(cudnnDestroy)                                       \
  X(cudnnSetStream)                                     \
  X(cudnnCreateTensorDescriptor)                        \
  X(cudnnDestroyTensorDescriptor)                       \
  X(cudnnSetTensorNdDescriptor)                         \
  X(cudnnCreateFilterDescriptor)                        \
  X(cudnnDestroyFilterDescriptor)                       \
  X(cudnnSetFilterNdDescriptor)                         \
  X(cudnnCreateConvolutionDescriptor)                   \
  X(cudnnDestroyConvolutionDescriptor)                  \
  X(cudnnSetConvolutionNdDescriptor)                    \
  X(cudnnSetConvolutionGroupCount)                      \
  X(cudnnSetConvolutionMathType)                        \
  X(cudnnGetConvolutionForwardAlgorithm_v7)             \
  X(cudnnFindConvolutionForwardAlgorithmEx)             \
  X(cudnnGetConvolutionForwardWorkspaceSize)            \
  X(cudnnConvolutionForward)                            \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)        \
  X(cudnnFindConvolutionBackwardDataAlgorithmEx)        \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)       \
  X(cudnnConvolutionBackwardData)                       \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)      \
  X(cudnnFindConvolutionBackwardFilterAlgorithmEx)      \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize)     \
  X(cudnnConvolutionBackwardFilter)                     \
  X(cudnnBackendCreateDescriptor)                       \
  X(cudnnBackendDestroyDescriptor)                      \
  X(cudnnBackendSetAttribute)                           \
  X(cudnnBackendGetAttribute)                           \
  X(cudnnBackendFinalize)                               \
  X(cudnnBackendExecute)

// Every cuDNN function gconv uses, resolved from one library.
struct CudnnApi {
#define GCONV_CUDNN_DECLARE(name) decltype(&::name) name = nullptr;
  GCONV_CUDNN_FUNCTIONS(GCONV_CUDNN_DECLARE)
#undef GCONV_CUDNN_DECLARE
  std::string path;    // the file that was opened (as resolved by the loader)
  size_t version = 0;  // cudnnGetVersion(), e.g. 90300
};

// The names of every function in CudnnApi (for messages and tests).
std::vector<std::string> cudnn_function_names();

// The default search list: $GCONV_CUDNN_LIB (when set), then libcudnn.so.9,
// libcudnn.so.
std::vector<std::string> default_cudnn_candidates();

// Opens the first candidate that loads and resolves every function. Errors:
// not_found "cuDNN not found: set GCONV_CUDNN_LIB or LD_LIBRARY_PATH; tried
// <each candidate: dlerror>", naming a missing function where a library opened
// but lacks one. Thread-safe; each success opens (and keeps) a handle.
Result<const CudnnApi*> load_cudnn(const std::vector<std::string>& candidates);

// load_cudnn(default_cudnn_candidates()), done once per process on success
// (a failure is retried on the next call). Thread-safe.
Result<const CudnnApi*> cudnn_api();

// The one boundary where cuDNN errors become Status values:
//   ok for CUDNN_STATUS_SUCCESS; not_supported for the NOT_SUPPORTED and
//   BAD_PARAM families (the problem or layout is one cuDNN rejects);
//   out_of_memory for device-allocation failures; cuda_error otherwise.
// Message: "<call>: <cudnnGetErrorString> (<code>)".
Status cudnn_status(const CudnnApi& api, cudnnStatus_t s, const char* call);

}  // namespace gconv::bench

// Evaluate api.fn(args...) and return its Status on error.
#define GCONV_CUDNN_RETURN_IF_ERROR(api, fn, ...) \
  GCONV_RETURN_IF_ERROR(::gconv::bench::cudnn_status((api), (api).fn(__VA_ARGS__), #fn))
