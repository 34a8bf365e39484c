// gconv_pad, the first kernel(s) of a staged instance (staged.hpp): an
// operand's rows of k 16-bit elements, which start off 16 bytes (k = 230,
// 460, 921) or leave the TMA kernel's 64-channel blocks short, copied to rows
// of kp elements (the workspace), zeros past k, so that the TMA kernel that
// follows reads them through a tensor map (global strides must be multiples
// of 16 bytes). One 16-byte chunk of the copy per thread and step;
// consecutive threads take consecutive chunks of a row, so a warp's 2-byte
// loads and 16-byte stores are contiguous. A memory-bound pass: the operand
// read once, its copy written once.
#pragma once

#include "common/types.cuh"

namespace gconv {
namespace wg {

__device__ __forceinline__ void stage_rows(const unsigned short* __restrict__ src, uint4* __restrict__ dst,
                                           unsigned rows, unsigned k, unsigned kp) {
  const unsigned chunks = kp / 8, total = rows * chunks;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    const unsigned r = i / chunks, c0 = (i - r * chunks) * 8;
    const unsigned short* s = src + size_t(r) * k + c0;
    unsigned w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const unsigned lo = c0 + 2 * j < k ? __ldg(s + 2 * j) : 0u;
      const unsigned hi = c0 + 2 * j + 1 < k ? __ldg(s + 2 * j + 1) : 0u;
      w[j] = lo | (hi << 16);
    }
    dst[i] = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

}  // namespace wg
}  // namespace gconv
