// Host side of TMA tensor maps, shared by the kernel families that load
// through the tensor memory accelerator (wgmma/tma.hpp builds the wgmma
// family's maps; the direct family's window_wgrad builds its own). The maps
// are encoded for each launch (they hold the tensor addresses) through the
// driver entry points that cudaGetDriverEntryPointByVersion returns, so the
// library does not link libcuda. Device side: kernels/common/tma.cuh.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"

namespace gconv {

// A CUtensorMap's bytes (the driver's opaque 128-byte object, 64-byte
// aligned); kernels take it by value as a __grid_constant__ parameter.
struct alignas(64) TensorMap {
  uint64_t words[16];
};

// What cuTensorMapEncodeIm2col / cuTensorMapEncodeTiled take, innermost
// dimension first. Global strides are in bytes for dimensions 1..rank-1.
struct TmaArgs {
  bool im2col = false;
  int rank = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {};
  uint32_t elem_strides[5] = {};
  // im2col: the bounding box of filter base positions per spatial dimension
  // (innermost first) and the box of one load (channels x pixels).
  int lower[3] = {}, upper[3] = {};
  uint32_t channels = 0, pixels = 0;
  // tiled: the box of one load.
  uint32_t box[5] = {};
};

// A tiled map: dims and box innermost first, byte strides of dimensions
// 1..rank-1, traversal strides 1.
TmaArgs tiled_map(std::initializer_list<uint64_t> dims, std::initializer_list<uint64_t> strides,
                  std::initializer_list<uint32_t> box);

// Shared-memory layout of a box: 128-byte swizzle (the K-major tiles wgmma
// reads) or none (the box's elements in order, innermost dimension fastest).
enum class TmaSwizzle { none, b128 };

// Encodes args for the tensor at `base` (16-byte aligned). Errors name the
// driver call and its result.
Status encode_tensor_map(const TmaArgs& args, DType dtype, const void* base, TmaSwizzle swizzle, TensorMap* out);

}  // namespace gconv
