// The warp-level tensor-core loop and the cp.async multistage pipeline.
#pragma once

#include "common/ptx.cuh"
#include "igemm/config.cuh"

namespace gconv {
namespace igemm {

// A warp's share of the CTA tile: kMI x kNI mma atoms (16 x 8 each), fp32
// accumulators, fragments read from shared memory by ldmatrix (16-bit types,
// and fp32 K-major tiles: an 8x4 block of fp32 is an 8x8 block of b16) or by
// 32-bit loads (fp32 MN-major tiles, where .trans would split the words).
template <class Cfg>
struct WarpMma {
  static constexpr int MI = Cfg::kMI, NI = Cfg::kNI, GW = Cfg::kWarpGroups, APG = Cfg::kAtomsPerGroup;
  static constexpr bool kF32 = Cfg::kDType == dev::kFP32;
  typedef typename Cfg::TileA TA;
  typedef typename Cfg::TileB TB;

  float acc[MI][NI][4];
  int lane, warp_m, warp_n;
  int a_group0;  // first group (A sub-tile) of this warp's columns

  __device__ __forceinline__ void init(int tid) {
    lane = tid & 31;
    const int warp = tid >> 5;
    warp_m = warp % Cfg::kWarpsM;
    warp_n = warp / Cfg::kWarpsM;
    a_group0 = (warp_n * Cfg::kWarpN) / Cfg::kGroupN;
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NI; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;
  }

  // A fragments of k-step ks from one group's A sub-tile at sA.
  __device__ __forceinline__ void load_a(u32 (&af)[MI][4], u32 sA, int ks) const {
    if constexpr (Cfg::kAKMajor) {
      // Matrices: (rows 0-7, k chunk 0), (rows 8-15, chunk 0), (rows 0-7, chunk 1), (rows 8-15, chunk 1).
      const int row = warp_m * Cfg::kWarpM + (lane & 7) + ((lane >> 3) & 1) * 8;
      const int cx = ((lane >> 4) ^ TA::swz(row)) ^ (2 * ks);  // == (lane>>4) + 2ks, swizzled
      const u32 base = sA + row * TA::kRowBytes + (cx << 4);
#pragma unroll
      for (int i = 0; i < MI; ++i) dev::ldmatrix_x4(af[i], base + i * 16 * TA::kRowBytes);
    } else if constexpr (!kF32) {
      // Rows are k. Matrices: (k 0-7, m chunk 0), (k 0-7, chunk 1), (k 8-15, chunk 0), (k 8-15, chunk 1).
      const int krow = ks * 16 + (lane & 7) + ((lane >> 4) & 1) * 8;
      const int c0 = (warp_m * Cfg::kWarpM) / 8 + ((lane >> 3) & 1);
      const int sw = TA::swz(krow);
#pragma unroll
      for (int i = 0; i < MI; ++i) dev::ldmatrix_x4_trans(af[i], sA + krow * TA::kRowBytes + (((c0 + 2 * i) ^ sw) << 4));
    } else {
      // Padded rows (no swizzle): a lane base plus compile-time offsets.
      const u32 base = sA + (ks * 8 + (lane & 3)) * TA::kRowBytes + (warp_m * Cfg::kWarpM + (lane >> 2)) * 4;
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        af[i][0] = dev::ld_shared_u32(base + i * 64);
        af[i][1] = dev::ld_shared_u32(base + i * 64 + 32);
        af[i][2] = dev::ld_shared_u32(base + 4 * TA::kRowBytes + i * 64);
        af[i][3] = dev::ld_shared_u32(base + 4 * TA::kRowBytes + i * 64 + 32);
      }
    }
    if constexpr (kF32) {
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) af[i][r] = dev::to_tf32(af[i][r]);
    }
  }

  __device__ __forceinline__ void load_b(u32 (&bf)[NI][2], u32 sB, int ks) const {
    if constexpr (Cfg::kBKMajor) {
      // Two atoms per x4: (n 0-7, k chunk 0), (n 0-7, chunk 1), (n 8-15, chunk 0), (n 8-15, chunk 1).
      const int row = warp_n * Cfg::kWarpN + (lane & 7) + ((lane >> 4) & 1) * 8;
      const int cx = (((lane >> 3) & 1) ^ TB::swz(row)) ^ (2 * ks);
      const u32 base = sB + row * TB::kRowBytes + (cx << 4);
#pragma unroll
      for (int j = 0; j + 1 < NI; j += 2) {
        u32 r[4];
        dev::ldmatrix_x4(r, base + j * 8 * TB::kRowBytes);
        bf[j][0] = r[0]; bf[j][1] = r[1]; bf[j + 1][0] = r[2]; bf[j + 1][1] = r[3];
      }
      if constexpr (NI % 2 == 1) {
        u32 r[2];
        dev::ldmatrix_x2(r, base + (NI - 1) * 8 * TB::kRowBytes);  // lanes 0-15 give the addresses
        bf[NI - 1][0] = r[0]; bf[NI - 1][1] = r[1];
      }
    } else if constexpr (!kF32) {
      // Rows are k. Two atoms per x4: (k 0-7, n chunk 0), (k 8-15, chunk 0), (k 0-7, chunk 1), (k 8-15, chunk 1).
      const int krow = ks * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
      const int c0 = (warp_n * Cfg::kWarpN) / 8 + ((lane >> 4) & 1);
      const int sw = TB::swz(krow);
      const u32 base = sB + krow * TB::kRowBytes;
#pragma unroll
      for (int j = 0; j + 1 < NI; j += 2) {
        u32 r[4];
        dev::ldmatrix_x4_trans(r, base + (((c0 + j) ^ sw) << 4));
        bf[j][0] = r[0]; bf[j][1] = r[1]; bf[j + 1][0] = r[2]; bf[j + 1][1] = r[3];
      }
      if constexpr (NI % 2 == 1) {
        u32 r[2];
        dev::ldmatrix_x2_trans(r, base + (((c0 + NI - 1) ^ sw) << 4));
        bf[NI - 1][0] = r[0]; bf[NI - 1][1] = r[1];
      }
    } else {
      const u32 base = sB + (ks * 8 + (lane & 3)) * TB::kRowBytes + (warp_n * Cfg::kWarpN + (lane >> 2)) * 4;
#pragma unroll
      for (int j = 0; j < NI; ++j) {
        bf[j][0] = dev::ld_shared_u32(base + j * 32);
        bf[j][1] = dev::ld_shared_u32(base + 4 * TB::kRowBytes + j * 32);
      }
    }
    if constexpr (kF32) {
#pragma unroll
      for (int j = 0; j < NI; ++j) {
        bf[j][0] = dev::to_tf32(bf[j][0]);
        bf[j][1] = dev::to_tf32(bf[j][1]);
      }
    }
  }

  // Fragments of one k-step: A for each group the warp spans, B for its atoms.
  struct Frags {
    u32 a[GW][MI][4];
    u32 b[NI][2];
  };

  __device__ __forceinline__ void load_frags(Frags& f, u32 stage, int ks) const {
    load_b(f.b, stage + Cfg::kABytes, ks);
#pragma unroll
    for (int gw = 0; gw < GW; ++gw) load_a(f.a[gw], stage + (a_group0 + gw) * TA::kBytes, ks);
  }

  __device__ __forceinline__ void mma_step(const Frags& f) {
#pragma unroll
    for (int gw = 0; gw < GW; ++gw)
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int jj = 0; jj < APG; ++jj) dev::mma<Cfg::kDType>(acc[i][gw * APG + jj], f.a[gw][i], f.b[gw * APG + jj]);
  }
};

// Multistage pipeline. Tile kt + STAGES - 1 is copied while tile kt is
// multiplied; one commit per iteration (empty at the tail) keeps
// wait_group<STAGES - 2> meaning "the next tile has landed". Fragments are
// double-buffered in registers: those of k-step ks + 1 are read before the
// mmas of step ks. With kCrossTilePrefetch the barrier sits before the last
// step's mmas so that the next stage's first fragments load behind them (one
// fragment buffer then stays live across the copies, which costs registers).
// Either way, the one barrier per tile also tells every thread that all warps
// have read their last fragments of the stage that the following copies
// overwrite. flush_tile stores what load_tile holds in registers: at once,
// or with Cfg::kDeferFlush after the tile's MMAs (before the barrier that
// ends the iteration: the stage written was released by the previous one).
template <class Cfg, class LoadFn, class FlushFn>
__device__ __forceinline__ void mainloop(WarpMma<Cfg>& w, u32 smem, int ktiles, LoadFn&& load_tile,
                                         FlushFn&& flush_tile) {
  constexpr int S = Cfg::kStages, KS = Cfg::kKSteps;
  constexpr bool kDefer = Cfg::kDeferFlush;
#pragma unroll 1
  for (int s = 0; s < S - 1; ++s) {
    if (s < ktiles) {
      load_tile(smem + s * Cfg::kStageBytes);
      flush_tile();
    }
    dev::cp_async_commit();
  }
  typename WarpMma<Cfg>::Frags fr[2];
  int read = 0, write = S - 1;
  if constexpr (!Cfg::kCrossTilePrefetch) {
    // Barrier first, then the copies into the stage every warp has finished
    // with, then this tile's k-steps (double-buffered within the tile).
#pragma unroll 1
    for (int kt = 0; kt < ktiles; ++kt) {
      dev::cp_async_wait<S - 2>();
      __syncthreads();
      const bool more = kt + S - 1 < ktiles;
      if (more) {
        load_tile(smem + write * Cfg::kStageBytes);
        if (!kDefer) flush_tile();
      }
      dev::cp_async_commit();
      write = write + 1 == S ? 0 : write + 1;
      const u32 stage = smem + read * Cfg::kStageBytes;
      read = read + 1 == S ? 0 : read + 1;
      w.load_frags(fr[0], stage, 0);
#pragma unroll
      for (int ks = 0; ks < KS; ++ks) {
        if (ks + 1 < KS) w.load_frags(fr[(ks + 1) & 1], stage, ks + 1);
        w.mma_step(fr[ks & 1]);
      }
      if (kDefer && more) flush_tile();
    }
    dev::cp_async_wait<0>();
    return;
  }
  if (ktiles <= 0) {
    dev::cp_async_wait<0>();
    return;
  }
  dev::cp_async_wait<S - 2>();
  __syncthreads();
  w.load_frags(fr[0], smem, 0);
#pragma unroll 1
  for (int kt = 0; kt < ktiles; ++kt) {
    const bool more = kt + S - 1 < ktiles;
    if (more) {
      load_tile(smem + write * Cfg::kStageBytes);
      if (!kDefer) flush_tile();
    }
    dev::cp_async_commit();
    write = write + 1 == S ? 0 : write + 1;
    const u32 stage = smem + read * Cfg::kStageBytes;
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks + 1 < KS) {
        w.load_frags(fr[(ks + 1) & 1], stage, ks + 1);
        w.mma_step(fr[ks & 1]);
      } else {
        // Last step: publish the next tile and fetch its step-0 fragments
        // into buffer 0 while this step's mmas run (with an odd step count
        // this step holds buffer 0 itself, so its mmas go first).
        if (KS % 2 == 1) w.mma_step(fr[ks & 1]);
        if (kDefer && more) flush_tile();
        dev::cp_async_wait<S - 2>();
        __syncthreads();
        read = read + 1 == S ? 0 : read + 1;
        if (kt + 1 < ktiles) w.load_frags(fr[0], smem + read * Cfg::kStageBytes, 0);
        if (KS % 2 == 0) w.mma_step(fr[ks & 1]);
      }
    }
  }
  dev::cp_async_wait<0>();
}

}  // namespace igemm
}  // namespace gconv
