// The pw family's kernel parameter (host: pw_plan.cpp fills it; device:
// pw.cuh). Plain integers and pointers only: NVRTC compiles it without host
// headers.
#pragma once

namespace gconv {
namespace pw {

// A pointwise convolution (1x1 filter, stride 1, no padding, one group) is a
// GEMM out[M][nn] = a[M][kd] * B[kd][nn] over M = N * spatial rows:
//   fwd:      a = x (kd = C), B[k][n] = w[n][k], out = y (nn = K)
//   bwd_data: a = dy (kd = K), B[k][n] = w[k][n], out = dx (nn = C)
struct PwParams {
  const void* a;    // M rows of kd channels (channels last)
  const void* w;    // K x C (the 1x1 filter)
  void* out;        // M rows of nn channels
  long long rows;   // M
  int kd, nn;       // the reduction length and the output channels
  int ldw;          // C: the filter's row length
  int b_trans;      // 1: bwd_data (B[k][n] = w[k * ldw + n]); 0: fwd (B[k][n] = w[n * ldw + k])
  int m_tiles;      // ceil(rows / tile_m); a block walks tiles blockIdx.y, + gridDim.y, ...
  int a_rows8;      // kd % 8 == 0: A rows are whole 16-byte chunks (ldmatrix); else 2-byte fragment loads
  int o_rows8;      // nn % 8 == 0: output rows are whole 16-byte chunks (any N tile); else one N tile
                    // whose rows are one contiguous range
  // Shared memory, sized by the problem (pw_plan.cpp): B from byte 0, rows of b_stride elements
  // (fwd: tile_n rows n of tile_k + 8; bwd_data: kp rows k of tile_n + 8; a constant of the
  // instance, which pw.cuh compiles in); then the A ring at a_off, a_stage bytes a stage; then
  // the output tile at o_off.
  int b_stride;
  int a_off, a_stage, o_off;
};

}  // namespace pw
}  // namespace gconv
