// Implicit-GEMM tensor-core convolution (mma.sync, cp.async multistage), one
// template for fwd / bwd_data / bwd_weight, 1D/2D/3D, bf16/fp16/fp32(tf32).
// The GEMM of each direction and its operands: igemm/operands.cuh. A block
// computes a TM x TN tile of GPB groups (TN/GPB columns each) over a range of
// K tiles (its split); see IgemmParams for the block order.
//
// An instance source (igemm_family.cpp) defines the entry points:
//   using Cfg = gconv::igemm::IgemmConfig<...>;
//   extern "C" __global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
//   gconv_main(const __grid_constant__ gconv::igemm::IgemmParams p) { gconv::igemm::igemm_main<Cfg>(p); }
//   (+ gconv_reduce -> igemm_reduce<Cfg> for split-K)
#pragma once

#include "igemm/config.cuh"
#include "igemm/epilogue.cuh"
#include "igemm/mainloop.cuh"
#include "igemm/operands.cuh"

namespace gconv {
namespace igemm {

extern __shared__ __align__(128) unsigned char igemm_smem[];

template <class Cfg>
__device__ __forceinline__ void igemm_main(const IgemmParams& p) {
  const int tid = threadIdx.x;
  const BlockPos b = block_pos(p, Cfg::kGpb, blockIdx.x);
  typename OperandsOf<Cfg, Cfg::kDir>::type ops;
  ops.setup(p, b);
  const int m0 = b.mt * Cfg::kTileM, n0 = b.nt * Cfg::kGroupN;
  if (m0 >= ops.gemm_m) return;  // bwd_data: the grid is sized for the largest phase
  int kt0, ktiles;
  split_range(ops.gemm_k, Cfg::kTileK, p.splits, b.split, kt0, ktiles);
  ops.init(p, b, m0, n0, kt0 * Cfg::kTileK, tid);

  WarpMma<Cfg> mma;
  mma.init(tid);
  mainloop<Cfg>(mma, dev::smem_u32(igemm_smem), ktiles,
                [&](u32 stage) { ops.load(p, stage, stage + Cfg::kABytes, tid); });
  // Serial split-K: the zeroed workspace already holds this split's zeros.
  // Otherwise blocks without K tiles (bwd_data phases without taps) still
  // write their zeros.
  if (Cfg::kSplit == kSplitSerial && ktiles == 0) return;
  epilogue<Cfg>(mma, p, b.split, m0, n0, b.g0, b.ngroups, ops.gemm_m, ops.gemm_n(p), ops.col_stride(p),
                [&](int m) { return ops.row_off(p, m); }, igemm_smem);
}

}  // namespace igemm
}  // namespace gconv
