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

// Serial split-K in one launch (fixup.cuh). fixup_zero runs before the
// mainloop: the split that starts first zeroes the tile's part of the slice
// (a word of the pipeline's shared memory, before the pipeline uses it,
// tells every thread). fixup_epilogue runs after it: the split adds its
// partial tile (or, alone, stores the output), and the last converts.
// Parallel split-K: fixup_parallel_finish below.
template <class Cfg, class Ops>
struct FixupTile {
  const IgemmParams& p;
  const BlockPos& b;
  const Ops& ops;
  int m0, n0, active;
  u64* w;

  // Packed bwd_weight: only the diagonal blocks (epilogue.cuh).
  static constexpr bool kDiag = Cfg::kPacked && Cfg::kDir == kBwdWeight;
  __device__ __forceinline__ int row_off(int m) const { return ops.row_off(p, m); }
  __device__ __forceinline__ int col_off(int c, bool& ok) const {
    const int gi = c / Cfg::kGroupN, nn = n0 + c % Cfg::kGroupN;
    if constexpr (OddCgOf<Cfg>::value) {
      // Odd C/G (params.cuh OddCgCols): 4-column vectors stay in one tap,
      // so a vector whose last column exists is whole and contiguous.
      int avail;
      const int off = OddCgCols(p, Cfg::kVec).map(nn, avail);
      ok = gi < b.ngroups && avail >= 1;
      return (b.g0 + gi) * ops.col_stride(p) + off;
    }
    ok = gi < b.ngroups && nn < ops.gemm_n(p);
    const int off = (b.g0 + gi) * ops.col_stride(p) + nn;  // element offsets fit int32 (params.cuh)
    if constexpr (kDiag) return off - (nn / (p.filt_vol * p.Cg)) * (p.filt_vol * p.Cg);
    return off;
  }
  __device__ __forceinline__ bool pair_ok(int m, int c) const {
    if constexpr (kDiag) return (n0 + c) / (p.filt_vol * p.Cg) == m / p.Kg;
    return true;
  }
  template <bool ZERO>
  __device__ __forceinline__ void pass(int tid, int slices = 1) const {
    fixup_pass<Cfg::kDType, ZERO, Cfg::kSplit == kSplitParallel ? kFixSumBatch : kFixBatch>(
        p, m0, Cfg::kTileM, ops.gemm_m, Cfg::kTileN, kDiag ? p.filt_vol * p.Cg : Cfg::kGroupN,
        [&](int m) { return row_off(m); }, [&](int c, bool& ok) { return col_off(c, ok); },
        [&](int m, int c) { return pair_ok(m, c); }, tid, Cfg::kThreads, slices);
  }
};

template <class Cfg, class Ops>
__device__ __forceinline__ void fixup_zero(const FixupTile<Cfg, Ops>& f, int tid) {
  volatile int* word = reinterpret_cast<volatile int*>(igemm_smem);
  if (tid == 0) word[0] = fixup_begin(f.w, f.p.epoch);
  __syncthreads();
  const bool zero = word[0];
  __syncthreads();  // read before the pipeline overwrites it
  if (!zero) return;
  f.template pass<true>(tid);
  __syncthreads();  // the tile is zeroed; the release below covers it
  if (tid == 0) fixup_publish(f.w, f.p.epoch);
}

template <class Cfg, class Ops, class RowOff>
__device__ __forceinline__ void fixup_epilogue(const WarpMma<Cfg>& mma, const FixupTile<Cfg, Ops>& f, int ktiles,
                                               RowOff&& row_off) {
  const IgemmParams& p = f.p;
  const BlockPos& b = f.b;
  const int tid = threadIdx.x;
  // Splits past the working ones have nothing to add; with no K tile at all
  // (a bwd_data phase without taps) split 0 writes the zeros.
  if (ktiles == 0 && !(f.active == 0 && b.split == 0)) return;
  const int gemm_n = f.ops.gemm_n(p), cstride = f.ops.col_stride(p);
  if (f.active <= 1) {
    epilogue<Cfg>(mma, p, b.split, f.m0, f.n0, b.g0, b.ngroups, f.ops.gemm_m, gemm_n, cstride, row_off, igemm_smem,
                  kFixOnly);
    return;
  }
  volatile int* word = reinterpret_cast<volatile int*>(igemm_smem);
  if (tid == 0) fixup_wait_ready(f.w, p.epoch);
  __syncthreads();
  epilogue<Cfg>(mma, p, b.split, f.m0, f.n0, b.g0, b.ngroups, f.ops.gemm_m, gemm_n, cstride, row_off, igemm_smem,
                kFixAdd);
  __syncthreads();  // the block's partial is added; fixup_count releases it
  if (tid == 0) word[0] = fixup_count(f.w, f.active);
  __syncthreads();
  if (!word[0]) return;
  f.template pass<false>(tid);
  if (tid == 0) fixup_reset(f.w);
}

// Parallel split-K in one launch, after the split has stored its partial
// into its own slice (a lone split: split 0, zeros without K tiles): the
// split that completes the count converts the sum of the slices.
template <class Cfg, class Ops>
__device__ __forceinline__ void fixup_parallel_finish(const FixupTile<Cfg, Ops>& f) {
  const int tid = threadIdx.x;
  volatile int* word = reinterpret_cast<volatile int*>(igemm_smem);
  __syncthreads();  // the block's slice is written (and the staging area read)
  if (f.active > 1) {
    // Nothing happens before the mainloop: a word exchanged there cost
    // registers in it.
    if (tid == 0) word[0] = fixup_arrive_slices(f.w, f.p.epoch, f.active);
    __syncthreads();
    if (!word[0]) return;
  }
  f.template pass<false>(tid, f.active > 1 ? f.active : 1);
  if (f.active > 1 && tid == 0) fixup_reset(f.w);
}

template <class Cfg>
__device__ __forceinline__ void igemm_body(const IgemmParams& p) {
  const int tid = threadIdx.x;
  const BlockPos b = block_pos(p, Cfg::kGpb, blockIdx.x);
  typedef typename OperandsOf<Cfg, Cfg::kDir>::type Ops;
  Ops ops;
  ops.setup(p, b);
  const int m0 = b.mt * Cfg::kTileM, n0 = b.nt * Cfg::kGroupN;
  if (m0 >= ops.gemm_m) return;  // bwd_data: the grid is sized for the largest phase
  int kt0, ktiles;
  split_range(ops.gemm_k, Cfg::kTileK, p.splits, b.split, kt0, ktiles);
  ops.init(p, b, m0, n0, kt0 * Cfg::kTileK, tid);

  // The fixup's tile words and working splits, computed again after the
  // mainloop rather than held across it (registers).
  const auto fixup_tile = [&] {
    return FixupTile<Cfg, Ops>{p,  b,  ops, m0, n0, active_splits(ops.gemm_k, Cfg::kTileK, p.splits),
                               fixup_words(p, blockIdx.x % (p.n_tiles * p.g_blocks * p.phases * p.m_tiles))};
  };
  if constexpr (Cfg::kSplit == kSplitSerial) {
    if (p.fixup) {
      const FixupTile<Cfg, Ops> fix = fixup_tile();
      if (ktiles > 0 && fix.active > 1) fixup_zero(fix, tid);
    }
  }
  WarpMma<Cfg> mma;
  mma.init(tid);
  mainloop<Cfg>(mma, dev::smem_u32(igemm_smem), ktiles,
                [&](u32 stage) { ops.load(p, stage, stage + Cfg::kABytes, tid); }, [&] { ops.flush(); });
  const auto row_off = [&](int m) { return ops.row_off(p, m); };
  if constexpr (Cfg::kSplit == kSplitSerial) {
    if (p.fixup) {
      fixup_epilogue<Cfg>(mma, fixup_tile(), ktiles, row_off);
      return;
    }
  }
  if constexpr (Cfg::kSplit == kSplitParallel) {
    if (p.fixup) {
      // Splits past the working ones have nothing to store; with no K tile
      // at all (a bwd_data phase without taps) split 0 writes the zeros.
      const FixupTile<Cfg, Ops> fix = fixup_tile();
      if (ktiles == 0 && !(fix.active == 0 && b.split == 0)) return;
      epilogue<Cfg>(mma, p, b.split, m0, n0, b.g0, b.ngroups, ops.gemm_m, ops.gemm_n(p), ops.col_stride(p), row_off,
                    igemm_smem);
      fixup_parallel_finish(fix);
      return;
    }
  }
  // Serial split-K: the zeroed workspace already holds this split's zeros.
  // Otherwise blocks without K tiles (bwd_data phases without taps) still
  // write their zeros.
  if (Cfg::kSplit == kSplitSerial && ktiles == 0) return;
  epilogue<Cfg>(mma, p, b.split, m0, n0, b.g0, b.ngroups, ops.gemm_m, ops.gemm_n(p), ops.col_stride(p), row_off,
                igemm_smem);
}

// A realigned bwd_weight instance picks its body by the launch's C/G
// (config.cuh OddCgConfig; the branch is uniform, taken once): on the
// vector, dy realigned along an odd K/G; odd, x realigned over padded
// columns with dy on cp.async (K/G on the vector: igemm_plan.cpp refuses
// both odd). A third body for both odd measured 104 -> 140 registers on the
// 32x64 tile (ptxas, sm_90a): 3 blocks per SM instead of 4 for every
// problem of the kernel, and a third more compile time.
// A realigned bwd_data instance likewise: odd K/G, dy realigned (w on the
// vector); C/G off the vector, NarrowBConfig (dy on the vector, w in 2-byte
// pieces; igemm_plan.cpp refuses both off).
template <class Cfg>
__device__ __forceinline__ void igemm_main(const IgemmParams& p) {
  if constexpr (Cfg::kRealign && Cfg::kDir == kBwdWeight) {
    if (p.Cg % Cfg::kVec != 0) {
      igemm_body<OddCgConfig<Cfg>>(p);
      return;
    }
  }
  if constexpr (Cfg::kRealign && Cfg::kDir == kBwdData) {
    if (p.Cg % Cfg::kVec != 0) {
      igemm_body<NarrowBConfig<Cfg>>(p);
      return;
    }
  }
  igemm_body<Cfg>(p);
}

}  // namespace igemm
}  // namespace gconv
