// Tensor-map encoding through the driver's entry points (tensor_map.hpp).
#include "kernels/tensor_map.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>
#include <string>

namespace gconv {
namespace {

CUtensorMapDataType data_type(DType t) {
  switch (t) {
    case DType::bf16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::fp16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::fp32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
  return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

using EncodeTiled = decltype(&cuTensorMapEncodeTiled);
using EncodeIm2col = decltype(&cuTensorMapEncodeIm2col);

struct Entry {
  EncodeTiled tiled = nullptr;
  EncodeIm2col im2col = nullptr;
  Status status = Status::Ok();
};

// The driver's encoders, looked up once (ABI of CUDA 12.0, where both
// appeared).
const Entry& entry() {
  static Entry e;
  static std::once_flag once;
  std::call_once(once, [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
    if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
      e.status = internal_error(std::string("cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled) failed: ") +
                                cudaGetErrorString(err));
      return;
    }
    e.tiled = reinterpret_cast<EncodeTiled>(fn);
    fn = nullptr;
    err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &fn, 12000, cudaEnableDefault, &q);
    if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
      e.status = internal_error(std::string("cudaGetDriverEntryPointByVersion(cuTensorMapEncodeIm2col) failed: ") +
                                cudaGetErrorString(err));
      return;
    }
    e.im2col = reinterpret_cast<EncodeIm2col>(fn);
  });
  return e;
}

}  // namespace

TmaArgs tiled_map(std::initializer_list<uint64_t> dims, std::initializer_list<uint64_t> strides,
                  std::initializer_list<uint32_t> box) {
  TmaArgs b;
  b.rank = int(dims.size());
  std::copy(dims.begin(), dims.end(), b.dims);
  std::copy(strides.begin(), strides.end(), b.strides);
  std::copy(box.begin(), box.end(), b.box);
  std::fill(b.elem_strides, b.elem_strides + b.rank, 1u);
  return b;
}

Status encode_tensor_map(const TmaArgs& a, DType dtype, const void* base, TmaSwizzle swizzle, TensorMap* out) {
  const Entry& e = entry();
  if (!e.status.ok()) return e.status;
  static_assert(sizeof(TensorMap) == sizeof(CUtensorMap), "TensorMap mirrors CUtensorMap");
  CUtensorMap* map = reinterpret_cast<CUtensorMap*>(out);
  cuuint64_t dims[5], strides[4];
  cuuint32_t estr[5], box[5];
  for (int i = 0; i < a.rank; ++i) {
    dims[i] = a.dims[i];
    estr[i] = a.elem_strides[i];
    box[i] = a.box[i];
    if (i + 1 < a.rank) strides[i] = a.strides[i];
  }
  const CUtensorMapSwizzle sw = swizzle == TmaSwizzle::b128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult r;
  if (a.im2col) {
    r = e.im2col(map, data_type(dtype), cuuint32_t(a.rank), const_cast<void*>(base), dims, strides, a.lower, a.upper,
                 a.channels, a.pixels, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                 CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  } else {
    r = e.tiled(map, data_type(dtype), cuuint32_t(a.rank), const_cast<void*>(base), dims, strides, box, estr,
                CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
  if (r != CUDA_SUCCESS)
    return internal_error(std::string(a.im2col ? "cuTensorMapEncodeIm2col" : "cuTensorMapEncodeTiled") +
                          " failed with CUresult " + std::to_string(int(r)) + " (rank " + std::to_string(a.rank) + ")");
  return Status::Ok();
}

}  // namespace gconv
