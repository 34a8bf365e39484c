// Implicit-GEMM tensor-core convolution (mma.sync, cp.async multistage), one
// template for fwd / bwd_data / bwd_weight, 1D/2D/3D, bf16/fp16/fp32(tf32).
//
// Per group g the GEMM C[M][N] = A[M][K] * B[K][N] is (Cg = C/G, Kg = K/G):
//   fwd:        M = N*out_vol, N = Kg,      K = F*Cg     A = x im2col, B = w
//   bwd_data:   per stride phase (positions i % s == ph): M = N*prod(J),
//               N = Cg, K = T*Kg over the T taps that reach the phase
//               A = dy at (i + pad - f*dil)/s, B = w; stride-skipped taps cost nothing
//   bwd_weight: M = Kg, N = F*Cg, K = N*out_vol     A = dy^T, B = x im2col
// A block computes a TM x TN tile of GPB groups (TN/GPB columns each) over a
// range of K tiles (its split); see IgemmParams for the block order.
//
// An instance source (igemm_family.cpp) defines the entry points:
//   using Cfg = gconv::igemm::IgemmConfig<...>;
//   extern "C" __global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
//   gconv_main(const __grid_constant__ gconv::igemm::IgemmParams p) { gconv::igemm::igemm_main<Cfg>(p); }
//   (+ gconv_reduce -> igemm_reduce<Cfg> for split-K)
#pragma once

#include "igemm/config.cuh"
#include "igemm/epilogue.cuh"
#include "igemm/geometry.cuh"
#include "igemm/loaders.cuh"
#include "igemm/mainloop.cuh"

namespace gconv {
namespace igemm {

extern __shared__ __align__(128) unsigned char igemm_smem[];

// Where this block sits in the grid (order: see IgemmParams).
struct BlockPos {
  int nt, g0, ngroups, mt, split, phase;
};

__device__ __forceinline__ BlockPos block_pos(const IgemmParams& p, int gpb) {
  BlockPos b;
  int bid = blockIdx.x;
  b.nt = bid % p.n_tiles;
  bid /= p.n_tiles;
  const int gb = bid % p.g_blocks;
  bid /= p.g_blocks;
  b.phase = bid % p.phases;
  bid /= p.phases;
  b.mt = bid % p.m_tiles;
  b.split = bid / p.m_tiles;
  b.g0 = gb * gpb;
  b.ngroups = p.G - b.g0 < gpb ? p.G - b.g0 : gpb;
  return b;
}

// This split's K tiles: [kt0, kt0 + count).
__device__ __forceinline__ void split_range(int gemm_k, int tile_k, int splits, int split, int& kt0, int& count) {
  const int ktiles = (gemm_k + tile_k - 1) / tile_k;
  const int per = (ktiles + splits - 1) / splits;
  kt0 = split * per < ktiles ? split * per : ktiles;
  const int end = kt0 + per < ktiles ? kt0 + per : ktiles;
  count = end - kt0;
}

template <class Cfg>
__device__ __forceinline__ void run_fwd(const IgemmParams& p, const BlockPos& b) {
  constexpr int F = 3 - Cfg::kNdim;
  typedef typename Cfg::T T;
  const int tid = threadIdx.x;
  const int m0 = b.mt * Cfg::kTileM, n0 = b.nt * Cfg::kGroupN;
  int kt0, ktiles;
  split_range(p.gemm_k, Cfg::kTileK, p.splits, b.split, kt0, ktiles);

  RowGeom rg;
  TapGeom tg;
#pragma unroll
  for (int d = F; d < 3; ++d) {
    rg.radix[d] = p.out[d];
    rg.mul[d] = p.stride[d];
    rg.add[d] = -p.pad[d];
    rg.istr[d] = p.in_inner[d] * p.C;
    tg.base[d] = 0;
    tg.mul[d] = p.dil[d];
    tg.lstr[d] = p.dil[d] * p.in_inner[d] * p.C;
    tg.ext[d] = p.in[d];
  }
  rg.nstride = p.in_vol * p.C;
  rg.rows = p.gemm_m;
  tg.lin0 = 0;
  tg.lch = 1;
#pragma unroll
  for (int d = 0; d < 4; ++d) {
    tg.radix[d] = p.kc_radix[d];
    tg.inc[d] = p.kc_inc[d];
  }
  tg.kdim = p.gemm_k;

  GatherKMajor<Cfg> la;
  StridedKMajor<Cfg> lb;
  la.init(static_cast<const T*>(p.a), rg, tg, m0, b.g0, p.Cg, b.ngroups, kt0 * Cfg::kTileK, tid);
  lb.init(static_cast<const T*>(p.b), b.g0, b.ngroups, n0, p.Kg, p.gemm_k, kt0 * Cfg::kTileK, tid);

  WarpMma<Cfg> mma;
  mma.init(tid);
  mainloop<Cfg>(mma, dev::smem_u32(igemm_smem), ktiles, [&](u32 stage) {
    la.load(stage, tg, tid);
    lb.load(stage + Cfg::kABytes, tid);
  });
  if (Cfg::kSplit == kSplitSerial && ktiles == 0) return;
  const int K = p.K;
  epilogue<Cfg>(mma, p, b.split, m0, n0, b.g0, b.ngroups, p.gemm_m, p.Kg, p.Kg, [&](int m) { return m * K; }, igemm_smem);
}

template <class Cfg>
__device__ __forceinline__ void run_bwd_data(const IgemmParams& p, const BlockPos& b) {
  constexpr int F = 3 - Cfg::kNdim;
  typedef typename Cfg::T T;
  const int tid = threadIdx.x;
  const PhaseGeom ph = make_phase<Cfg::kNdim>(p, b.phase);
  int gemm_m = p.batch, taps = 1;
#pragma unroll
  for (int d = F; d < 3; ++d) {
    gemm_m *= ph.J[d];
    taps *= ph.T[d];
  }
  const int m0 = b.mt * Cfg::kTileM, n0 = b.nt * Cfg::kGroupN;
  if (m0 >= gemm_m) return;  // the grid is sized for the largest phase
  const int gemm_k = taps * p.Kg;
  int kt0, ktiles;
  split_range(gemm_k, Cfg::kTileK, p.splits, b.split, kt0, ktiles);

  RowGeom rg;
  TapGeom tg;
  WTapGeom wg;
  tg.lin0 = 0;
  wg.lin0 = 0;
#pragma unroll
  for (int d = 0; d < 3; ++d) tg.radix[d] = 1;
#pragma unroll
  for (int d = F; d < 3; ++d) {
    const int ostr = p.out_inner[d] * p.K;
    rg.radix[d] = ph.J[d];
    rg.mul[d] = 1;
    rg.add[d] = 0;
    rg.istr[d] = ostr;
    tg.base[d] = ph.q0[d];
    tg.mul[d] = -ph.dq[d];
    tg.lstr[d] = -ph.dq[d] * ostr;
    tg.lin0 += ph.q0[d] * ostr;
    tg.ext[d] = p.out[d];
    tg.radix[d] = ph.T[d] > 0 ? ph.T[d] : 1;  // T == 0: no K tiles; keep the division defined
    const int wstr = p.filt_inner[d] * p.Cg;
    wg.lin0 += ph.f0[d] * wstr;
    wg.lstr[d] = ph.fs[d] * wstr;
  }
  rg.nstride = p.out_vol * p.K;
  rg.rows = gemm_m;
  tg.lch = 1;
  tg.radix[3] = p.Kg;
  counter_increment(Cfg::kNdim + 1, tg.radix, Cfg::kTileK, tg.inc);
  tg.kdim = gemm_k;
  wg.lch = p.filt_vol * p.Cg;

  GatherKMajor<Cfg> la;
  TapMNMajor<Cfg> lb;
  la.init(static_cast<const T*>(p.a), rg, tg, m0, b.g0, p.Kg, b.ngroups, kt0 * Cfg::kTileK, tid);
  lb.init(static_cast<const T*>(p.b), tg, b.g0, b.ngroups, n0, p.Cg, p.Kg * p.filt_vol * p.Cg,
          kt0 * Cfg::kTileK, tid);

  WarpMma<Cfg> mma;
  mma.init(tid);
  mainloop<Cfg>(mma, dev::smem_u32(igemm_smem), ktiles, [&](u32 stage) {
    la.load(stage, tg, tid);
    lb.load(stage + Cfg::kABytes, tg, wg, tid);
  });
  if (Cfg::kSplit == kSplitSerial && ktiles == 0) return;  // the zeroed workspace already holds the 0s
  // Phase row m -> (n, j) -> input position ph + s * j. Phases without taps
  // still get here (ktiles == 0) and write their zeros.
  epilogue<Cfg>(mma, p, b.split, m0, n0, b.g0, b.ngroups, gemm_m, p.Cg, p.Cg, [&](int m) {
    int r = m, pos = 0;
#pragma unroll
    for (int d = 2; d >= F; --d) {
      const int j = r % ph.J[d];
      r /= ph.J[d];
      pos += (ph.ph[d] + p.stride[d] * j) * p.in_inner[d];
    }
    return (r * p.in_vol + pos) * p.C;
  }, igemm_smem);
}

template <class Cfg>
__device__ __forceinline__ void run_bwd_weight(const IgemmParams& p, const BlockPos& b) {
  typedef typename Cfg::T T;
  const int tid = threadIdx.x;
  const int m0 = b.mt * Cfg::kTileM, n0 = b.nt * Cfg::kGroupN;
  int kt0, ktiles;
  split_range(p.gemm_k, Cfg::kTileK, p.splits, b.split, kt0, ktiles);

  StridedMNMajor<Cfg> la;
  GatherMNMajor<Cfg> lb;
  la.init(static_cast<const T*>(p.a), p.K, p.gemm_k, b.g0, p.Kg, b.ngroups, m0, p.Kg, kt0 * Cfg::kTileK, tid);
  lb.init(p, b.g0, b.ngroups, n0, kt0 * Cfg::kTileK, tid);

  WarpMma<Cfg> mma;
  mma.init(tid);
  mainloop<Cfg>(mma, dev::smem_u32(igemm_smem), ktiles, [&](u32 stage) {
    la.load(stage, tid);
    lb.load(stage + Cfg::kABytes, p, tid);
  });
  if (Cfg::kSplit == kSplitSerial && ktiles == 0) return;
  const int ld = p.gemm_n;  // dw row: F * Cg
  epilogue<Cfg>(mma, p, b.split, m0, n0, b.g0, b.ngroups, p.Kg, p.gemm_n, p.Kg * ld, [&](int m) { return m * ld; }, igemm_smem);
}

template <class Cfg>
__device__ __forceinline__ void igemm_main(const IgemmParams& p) {
  const BlockPos b = block_pos(p, Cfg::kGpb);
  if constexpr (Cfg::kDir == kFwd) {
    run_fwd<Cfg>(p, b);
  } else if constexpr (Cfg::kDir == kBwdData) {
    run_bwd_data<Cfg>(p, b);
  } else {
    run_bwd_weight<Cfg>(p, b);
  }
}

}  // namespace igemm
}  // namespace gconv
