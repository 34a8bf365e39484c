// Warp-specialized implicit-GEMM convolution on Hopper's warpgroup MMA, one
// template for fwd / bwd_data / bwd_weight, 1D/2D/3D, bf16/fp16 (fp32 as
// tf32, fwd). The GEMMs and their operands are igemm's (igemm/operands.cuh);
// the kernel parameter and the order of output tiles too (IgemmParams: one
// tile per output tile, split and bwd_data phase), walked by a persistent
// grid (wgmma_main).
//
// Roles: warpgroup 0 produces, warpgroups 1..CWG consume.
//   producer (Cfg::kTma, fwd): thread 0 issues a TMA im2col load of A and
//     thread 32 a tiled load of B per stage (one thread both with
//     Cfg::kIssuers == 1), completing on the stage's full barrier
//     (produce_tma); the K coordinates are stepped, not divided (TapWalk).
//     With IgemmParams::mcast == 2 two blocks of a cluster share B
//     (multicast, tile_at_pair).
//   producer (otherwise): gathers the K tiles of A and B with cp.async (im2col, phases,
//     padding and tails zero-filled) into a ring of STAGES stages laid out as
//     wgmma's 128/64/32-byte swizzle modes read them. A stage is published
//     kLag tiles later: the thread waits for its own copies of that stage
//     (cp.async.wait_group), fences them into the async proxy that wgmma
//     reads through, and arrives on the stage's full barrier (128 arrivals).
//   consumers: wait on full[s], issue the stage's wgmma.mma_async (A and B
//     from shared memory through descriptors) and commit them as a group;
//     once the previous stage's group has retired (wait_group 1) each warp
//     arrives on that stage's empty barrier, which the producer waits on
//     before it overwrites the stage. So one stage's MMAs are always in
//     flight while the next stage is waited for.
// Epilogue (wgmma/epilogue.cuh): unsplit tiles of at least
// WgmmaConfig::kEpiSep's size stage their output in an area of their own and
// leave through TMA stores (kTmaStore: rows of whole 128-byte boxes) or the
// threads' 16-byte stores; other tiles are
// staged in the idle ring and written with 16-byte stores or, for serial
// split-K, 16-byte atomic adds (store_staged), or stored by each consumer
// thread from its accumulators while the ring holds the next tile (igemm's
// store_pair: dtype, fp32 workspace slices, or atomics).
//
// An instance source (wgmma_plan.cpp) defines:
//   typedef gconv::wg::WgmmaConfig<...> Cfg;
//   extern "C" __global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
//   gconv_main(const __grid_constant__ gconv::igemm::IgemmParams p) { gconv::wg::wgmma_main<Cfg>(p); }
//   (+ the tensor maps ta, tb of a TMA producer and tc of the output, by
//   value; + gconv_reduce -> igemm_reduce<Cfg> for parallel split-K)
#pragma once

#include "common/cluster.cuh"
#include "igemm/epilogue.cuh"
#include "igemm/operands.cuh"
#include "wgmma/config.cuh"
#include "wgmma/epilogue.cuh"
#include "wgmma/mma_async.cuh"
#include "wgmma/produce.cuh"
#include "wgmma/trace.cuh"

namespace gconv {
namespace wg {

using igemm::BlockPos;
using igemm::IgemmParams;

extern __shared__ __align__(1024) unsigned char wg_smem[];

// A consumer warp releases a ring stage (lane 0 arrives on its empty barrier);
// peer >= 0 (multicast): to the partner block too, whose producer fills half of it
// (its empty barriers count both blocks' warps).
template <class Cfg>
__device__ __forceinline__ void release(u32 bar, int lane, int peer) {
  if (lane == 0) {
    mbar_arrive(bar);
    if (peer >= 0) mbar_arrive_cluster(bar, static_cast<u32>(peer));
  }
}

// One stage's MMAs over its first NB K blocks (the first KS K steps of
// each), fenced and committed as one group.
template <class Cfg, int NB, int KS = Cfg::kKSteps>
__device__ __forceinline__ void mma_blocks(WgAcc<Cfg>& acc, u32 st, int wg_row0) {
  typedef MmaAsync<Cfg::kInstrN, Cfg::kDType, Cfg::kAKMajor ? 0 : 1, Cfg::kBKMajor ? 0 : 1> Mma;
  wgmma_fence();
#pragma unroll
  for (int j = 0; j < NB; ++j) {
    const u32 sa = st + j * Cfg::kBlockBytes, sb = sa + Cfg::kABytes;
#pragma unroll
    for (int ks = 0; ks < KS; ++ks)
#pragma unroll
      for (int mi = 0; mi < Cfg::kMI; ++mi) {
        const u64 da = Cfg::TileA::desc(sa, wg_row0 + mi * 64, ks * Cfg::kKStep);
#pragma unroll
        for (int ni = 0; ni < Cfg::kNI; ++ni) {
          const u64 db = Cfg::TileB::desc(sb, ni * Cfg::kInstrN, ks * Cfg::kKStep);
          Mma::run(acc.d[mi][ni], da, db);
        }
      }
  }
  wgmma_commit();
}

// A K walk of whole channel blocks a tap (IgemmParams::tap_k, wgmma/tma.hpp
// tap_k; TMA fwd / bwd_data kernels of one block a stage): `chans` channels a tap, `tap_k` (0: not padded) their K
// positions rounded up to the block. The block that ends a tap holds
// (chans - c) channels, a multiple of the MMA's K: its MMAs past them (the
// next group's channels, or the map's zeros) are not issued.
struct TapSkip {
  int chans = 0, tap_k = 0;
};
template <class Cfg>
inline constexpr bool kTapPadded = Cfg::kTma && Cfg::kKBlocks == 1 && Cfg::kDir != kBwdWeight;
template <class Cfg>
__device__ __forceinline__ TapSkip tap_skip(const IgemmParams& p) {
  if constexpr (kTapPadded<Cfg>) {
    return TapSkip{Cfg::kDir == kFwd ? p.Cg : p.Kg, p.tap_k};
  } else {
    return TapSkip{};
  }
}

// One stage of one block: all its K steps, or the first `steps` (a tap's
// last, partial block). Each case is straight-line from fence to commit
// (C7520, below).
template <class Cfg>
__device__ __forceinline__ void mma_partial(WgAcc<Cfg>& acc, u32 st, int wg_row0, int steps) {
  static_assert(Cfg::kKSteps == 4, "a 128-byte block holds 4 MMA K steps (16-bit: 16, tf32: 8)");
  if (steps >= 4) {
    mma_blocks<Cfg, 1, 4>(acc, st, wg_row0);
  } else if (steps == 3) {
    mma_blocks<Cfg, 1, 3>(acc, st, wg_row0);
  } else if (steps == 2) {
    mma_blocks<Cfg, 1, 2>(acc, st, wg_row0);
  } else {
    mma_blocks<Cfg, 1, 1>(acc, st, wg_row0);
  }
}

// rd / rel: the stage read next and the next stage to release, carried from
// one output tile to the next (persistent grid). Every stage read is
// released, the tile's last one once its MMAs have retired. The tile's
// stages start at K index k0; a stage whose second K block starts at or past
// kend (the GEMM's K) holds one block, as tma_ring loads it.
template <class Cfg>
__device__ __forceinline__ void consume(WgAcc<Cfg>& acc, int ktiles, int k0, int kend, u32 ring, u32 full,
                                        u32 empty, int wg_row0, int lane, RingPos<Cfg::kStages>& rd,
                                        RingPos<Cfg::kStages>& rel, int peer = -1, TapSkip skip = TapSkip{}) {
  // The channel offset of the stage's block inside its tap (skip.tap_k).
  int c = skip.tap_k ? k0 % skip.tap_k : 0;
#pragma unroll
  for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < Cfg::kNI; ++ni)
#pragma unroll
      for (int r = 0; r < Cfg::kAccPerInstr; ++r) acc.d[mi][ni][r] = 0.f;
#pragma unroll 1
  for (int kt = 0; kt < ktiles; ++kt) {
    mbar_wait(full + 8 * rd.stage, rd.phase);
    if (kt < trace::kSlots && threadIdx.x == kWarpgroup) trace::mark(trace::kFull + kt);
    const u32 st = ring + rd.stage * Cfg::kStageBytes;
    // Each path is straight-line from fence to commit: a branch between the
    // wgmmas makes ptxas serialize them (C7520).
    if constexpr (kTapPadded<Cfg>) {
      if (skip.tap_k == 0) {
        mma_blocks<Cfg, 1>(acc, st, wg_row0);
      } else {
        mma_partial<Cfg>(acc, st, wg_row0, (skip.chans - c) / Cfg::kKStep);
        c += Cfg::kTileK;
        if (c >= skip.tap_k) c = 0;
      }
    } else if (Cfg::kKBlocks == 1 || k0 + kt * Cfg::kTileK + Cfg::kBlockK < kend) {
      mma_blocks<Cfg, Cfg::kKBlocks>(acc, st, wg_row0);
    } else {
      mma_blocks<Cfg, 1>(acc, st, wg_row0);  // the GEMM's K ends inside this stage
    }
    rd.next();
    // The group before this one has retired: its stage may be overwritten.
    wgmma_wait<1>();
    if (kt > 0) {
      release<Cfg>(empty + 8 * rel.stage, lane, peer);
      rel.next();
#ifdef GCONV_WGMMA_TRACE
      if (kt - 1 < trace::kRows && threadIdx.x == kWarpgroup) trace::mark(trace::kRelease + kt - 1);
#endif
    }
  }
  wgmma_wait<0>();
  if (threadIdx.x == kWarpgroup) trace::mark(trace::kConsumed);
  if (ktiles > 0) {
    release<Cfg>(empty + 8 * rel.stage, lane, peer);
    rel.next();
  }
#pragma unroll
  for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < Cfg::kNI; ++ni) fence_regs(acc.d[mi][ni]);
}

// Split-K in one launch (igemm/fixup.cuh), by the consumer warpgroups
// (named barrier 4 spans them; two words after the mbarriers carry answers
// to every consumer, since the ring may hold the next tile). start, before
// the tile's mainloop (serial): the split that starts first zeroes the
// tile's part of the slice. finish, after it: the split adds its partial
// (serial; staged when the ring is idle) or, alone, stores the output;
// parallel, it stores its partial into its own slice and the first split to
// finish resets the count. The split that completes the count converts the
// tile (parallel: the sum of the slices in split order).
template <class Cfg, class Ops>
struct WgFixup {
  const IgemmParams& p;
  const Ops& ops;
  const BlockPos& b;
  int m0, n0, active;
  igemm::u64* w;
  volatile int* word;

  static constexpr int kCT = kWarpgroup * Cfg::kConsumers;

  template <bool ZERO>
  __device__ __forceinline__ void pass(int ctid, int slices = 1) const {
    const int gemm_n = ops.gemm_n(p);
    if constexpr (Cfg::kPackedOut) {
      // The diagonal blocks only (epilogue.cuh PackedOut): a 4-column vector
      // lies in one (tap, group) run.
      igemm::fixup_pass<Cfg::kDType, ZERO, igemm::kFixBatch>(
          p, m0, Cfg::kTileM, ops.gemm_m, Cfg::kTileN, Cfg::kTileN,
          [&](int m) {
            int j;
            return PackedOut::row(p, b.g0, m, j);
          },
          [&](int c, bool& ok) {
            int j;
            ok = n0 + c < gemm_n;
            return PackedOut::col(p, n0 + c, j);
          },
          [&](int m, int c) {
            int jr, jc;
            PackedOut::row(p, b.g0, m, jr);
            PackedOut::col(p, n0 + c, jc);
            return jr == jc;
          },
          ctid, kCT, slices);
      return;
    }
    const int goff = b.g0 * ops.col_stride(p);  // element offsets fit int32 (igemm/params.cuh)
    igemm::fixup_pass<Cfg::kDType, ZERO, Cfg::kSplit == igemm::kSplitParallel ? igemm::kFixSumBatch : igemm::kFixBatch>(
        p, m0, Cfg::kTileM, ops.gemm_m, Cfg::kTileN, Cfg::kTileN, [&](int m) { return ops.row_off(p, m); },
        [&](int c, bool& ok) {
          ok = n0 + c < gemm_n;
          return goff + n0 + c;
        },
        ctid, kCT, slices);
  }

  __device__ __forceinline__ void start(int ktiles, int ctid) const {
    if (ktiles == 0 || active <= 1) return;
    bar_sync<4>(kCT);  // every consumer has read the previous tile's words
    if (ctid == 0) word[0] = igemm::fixup_begin(w, p.epoch);
    bar_sync<4>(kCT);
    if (!word[0]) return;
    pass<true>(ctid);
    bar_sync<4>(kCT);  // the tile is zeroed; the release below covers it
    if (ctid == 0) igemm::fixup_publish(w, p.epoch);
  }

  __device__ __forceinline__ void finish(const WgAcc<Cfg>& acc, int wg, int local, int ctid,
                                         unsigned char* ring_ptr, bool staged) const {
    if constexpr (Cfg::kSplit == igemm::kSplitParallel) {
      // Into this split's slice (a lone split: split 0's, zeros without K
      // tiles); the block's stores before its count.
      if (staged) {
        store_staged<Cfg>(acc, p, ops, b, m0, n0, wg, ring_ptr, local);
      } else {
        store<Cfg>(acc, p, ops, b, m0, n0, wg * Cfg::kWgM, local);
      }
      bar_sync<4>(kCT);  // the slice is written; every consumer has read word[1] of the previous tile
      if (active > 1) {
        if (ctid == 0) word[1] = igemm::fixup_arrive_slices(w, p.epoch, active);
        bar_sync<4>(kCT);
        if (!word[1]) return;
      }
      pass<false>(ctid, active > 1 ? active : 1);
      if (active > 1 && ctid == 0) igemm::fixup_reset(w);
      return;
    }
    const int role = active <= 1 ? igemm::kFixOnly : igemm::kFixAdd;
    if (role == igemm::kFixAdd) {
      bar_sync<4>(kCT);  // every consumer has read word[0] (start)
      if (ctid == 0) igemm::fixup_wait_ready(w, p.epoch);
      bar_sync<4>(kCT);
    }
    if (staged) {
      store_staged<Cfg>(acc, p, ops, b, m0, n0, wg, ring_ptr, local, role);
    } else {
      store<Cfg>(acc, p, ops, b, m0, n0, wg * Cfg::kWgM, local, role);
    }
    if (role == igemm::kFixOnly) return;
    bar_sync<4>(kCT);  // the block's partial is added; fixup_count releases it
    if (ctid == 0) word[1] = igemm::fixup_count(w, active);
    bar_sync<4>(kCT);
    if (!word[1]) return;
    pass<false>(ctid);
    if (ctid == 0) igemm::fixup_reset(w);
  }
};

// Output tile `tile` of the logical grid (igemm's block order; cluster
// split-K: the splits of a tile consecutive): its position, the operands'
// per-tile state and its K tiles. False when the tile has no work: a
// bwd_data phase smaller than the largest (the grid is sized for the
// largest), or a serial split with no K tiles (the zeroed workspace already
// holds its zeros).
template <class Cfg, class Ops>
__device__ __forceinline__ bool tile_at(const IgemmParams& p, int tile, BlockPos& b, Ops& ops, int& m0, int& n0,
                                        int& kt0, int& ktiles) {
  if constexpr (Cfg::kCluster) {
    b = igemm::block_pos(p, 1, tile / p.splits);
    b.split = tile % p.splits;
  } else {
    b = igemm::block_pos(p, 1, tile);
  }
  ops.setup(p, b);
  m0 = b.mt * Cfg::kTileM;
  n0 = b.nt * Cfg::kTileN;
  if (m0 >= ops.gemm_m) return false;
  igemm::split_range(ops.gemm_k, Cfg::kTileK, p.splits, b.split, kt0, ktiles);
  if (ktiles > 0) return true;
  // Without the fixup every parallel split writes its slice, zeros or not.
  if (Cfg::kSplit == igemm::kSplitParallel && !p.fixup) return true;
  if (Cfg::kSplit != igemm::kSplitSerial && Cfg::kSplit != igemm::kSplitParallel) return true;
  // Split-K in one launch: with no K tile at all (a bwd_data phase without
  // taps) split 0 still writes the tile's zeros.
  return p.fixup && b.split == 0 && igemm::active_splits(ops.gemm_k, Cfg::kTileK, p.splits) == 0;
}

// Multicast (IgemmParams::mcast == 2): unit `pair` of the grid of M-tile
// pairs (igemm's block order with the M tiles paired), block `rank` of the
// cluster taking M tile 2 * pair + rank of the same N tile, group and phase.
// `ghost`: that tile lies past the GEMM's rows (an odd M tile count); the
// block still fills and drains its ring with its partner but stores nothing.
// (Multicast kernels have no split and fwd has one phase: every pair has
// work.)
template <class Cfg, class Ops>
__device__ __forceinline__ void tile_at_pair(const IgemmParams& p, int pair, int rank, BlockPos& b, Ops& ops, int& m0,
                                             int& n0, int& kt0, int& ktiles, bool& ghost) {
  b = igemm::block_pos(p, 1, pair, (p.m_tiles + 1) / 2);
  b.mt = 2 * b.mt + rank;
  ops.setup(p, b);
  m0 = b.mt * Cfg::kTileM;
  n0 = b.nt * Cfg::kTileN;
  ghost = m0 >= ops.gemm_m;
  igemm::split_range(ops.gemm_k, Cfg::kTileK, p.splits, b.split, kt0, ktiles);
}

template <class Cfg, class Ops>
__device__ __forceinline__ void produce_tile(const IgemmParams& p, const TensorMap* ta, const TensorMap* tb,
                                             Ops& ops, const BlockPos& b, int m0, int n0, int kt0, int ktiles,
                                             u32 ring, u32 full, u32 empty, int tid,
                                             ProducerRing<Cfg::kStages>& pr, int mc = 1) {
  if constexpr (Cfg::kTma) {
    // Two issuers: thread 0 loads A, thread 32 (another warp) B; one: both.
    const int part = Cfg::kIssuers == 2 ? (tid == 0 ? 0 : 1) : -1;
    if constexpr (Cfg::kDir == kFwd) {
      produce_tma<Cfg>(p, ta, tb, pr, b, m0, n0, kt0, ktiles, ops.gemm_k, ring, full, empty, part, mc);
    } else if constexpr (Cfg::kDir == kBwdData) {
      produce_tma_bwd_data<Cfg>(p, ops.ph, ta, tb, pr, b, m0, n0, kt0, ktiles, ops.gemm_k, ring, full, empty, part);
    } else {
      produce_tma_bwd_weight<Cfg>(p, ta, tb, pr, b, m0, n0, kt0, ktiles, ops.gemm_k, ring, full, empty, part);
    }
  } else {
    produce<Cfg>(p, ops, b, m0, n0, kt0, ktiles, ring, full, empty, tid, pr);
  }
}

// ta / tb: the tensor maps of a TMA producer (Cfg::kTma), else null.
//
// Persistent grid (every kernel but cluster split-K): block i computes the
// output tiles i, i + gridDim.x, ... of the logical grid (gridDim.x equal to
// the tile count is the one-tile-per-block launch). The ring and its
// barriers carry over from tile to tile, so the producer fills the next
// tile's stages while the consumers store the current one. Those stores go
// from the accumulators (store): the ring is busy with the next tile. A
// block's last tile, with the ring idle, is staged through it (coalesced
// 16-byte stores) when it fits.
template <class Cfg>
__device__ __forceinline__ void wgmma_main(const IgemmParams& p, const TensorMap* ta = nullptr,
                                           const TensorMap* tb = nullptr, const TensorMap* tc = nullptr) {
  typedef typename igemm::OperandsOf<typename Cfg::Load, Cfg::kDir>::type Ops;
  const int tid = threadIdx.x;
  const u32 ring = (dev::smem_u32(wg_smem) + 1023u) & ~1023u;
  const u32 full = ring + Cfg::kBarOffset, empty = full + 8 * Cfg::kStages;
  unsigned char* ring_ptr = wg_smem + (ring - dev::smem_u32(wg_smem));
  // Multicast launch (IgemmParams::mcast, wgmma_family.cpp): clusters of two
  // blocks on adjacent M tiles share B's loads (produce_tma).
  const int mc = Cfg::kMcastable && p.mcast == 2 ? 2 : 1;
  // The producer threads that load: the whole warpgroup (cp.async), or
  // thread 0 (and thread 32 with two issuers) issuing the TMA loads.
  const bool loads = !Cfg::kTma || tid == 0 || (Cfg::kIssuers == 2 && tid == 32);
  const auto init_barriers = [&] {
    if (tid == 0) {
      trace::begin();
#pragma unroll 1
      for (int s = 0; s < Cfg::kStages; ++s) {
        // TMA: each issuer arrives once per K block of a stage (tma_ring).
        mbar_init(full + 8 * s, Cfg::kTma ? Cfg::kIssuers * Cfg::kKBlocks : kWarpgroup);
        // Multicast: the partner's consumer warps release this block's
        // stages too (its producer writes half of each).
        mbar_init(empty + 8 * s, 4 * Cfg::kConsumers * mc);
      }
      if (mc > 1) fence_mbar_init_cluster();
    }
    if (mc > 1) {
      // Neither block's loads may reach the other's barriers before they exist.
      dev::cluster_sync();
    } else {
      __syncthreads();
    }
    if (tid == 0) trace::mark(trace::kInit);
  };
  BlockPos b;
  Ops ops;
  int m0, n0, kt0, ktiles;

  if constexpr (Cfg::kCluster) {
    // One tile per block: the splits of a tile are one cluster (a whole
    // cluster returns for a tile without work).
    if (!tile_at<Cfg>(p, blockIdx.x, b, ops, m0, n0, kt0, ktiles)) return;
    init_barriers();
    if (tid < kWarpgroup) {
      ProducerRing<Cfg::kStages> pr;
      if (loads) produce_tile<Cfg>(p, ta, tb, ops, b, m0, n0, kt0, ktiles, ring, full, empty, tid, pr);
    } else {
      const int ctid = tid - kWarpgroup, local = ctid % kWarpgroup;
      RingPos<Cfg::kStages> rd, rel;
      WgAcc<Cfg> acc;
      consume<Cfg>(acc, ktiles, kt0 * Cfg::kTileK, ops.gemm_k, ring, full, empty, (ctid / kWarpgroup) * Cfg::kWgM,
                   local & 31, rd, rel, -1, tap_skip<Cfg>(p));
      stage_tile<Cfg>(acc, p, ops, m0, ctid / kWarpgroup, ring_ptr, local);
      if (tid == kWarpgroup) trace::mark(trace::kStored);
    }
    __syncwarp();
    dev::cluster_sync();  // every block of the cluster has staged its partial tile
    reduce_cluster<Cfg>(p, ops, b, n0, ring, ring_ptr, tid);
    if (tid == kWarpgroup) trace::mark(trace::kReduced);
    dev::cluster_sync();  // no block leaves while another still reads its shared memory
    if (tid == kWarpgroup) trace::finish(1);
  } else {
    // Work units: output tiles, or with multicast pairs of M tiles (block
    // rank r of a cluster takes M tile 2 * pair + r; a second tile past the
    // last M tile is a ghost, loaded from the first's rows and not stored).
    const int tiles = mc > 1 ? p.n_tiles * p.g_blocks * p.phases * ((p.m_tiles + 1) / 2) * p.splits
                             : p.n_tiles * p.g_blocks * p.phases * p.m_tiles * p.splits;
    const int first = static_cast<int>(blockIdx.x) / mc, stride = static_cast<int>(gridDim.x) / mc;
    const int rank = mc > 1 ? static_cast<int>(dev::cluster_rank()) : 0;
    init_barriers();
    bool ghost = false;
    const auto unit_at = [&](int unit) {
      if (mc == 1) return tile_at<Cfg>(p, unit, b, ops, m0, n0, kt0, ktiles);
      tile_at_pair<Cfg>(p, unit, rank, b, ops, m0, n0, kt0, ktiles, ghost);
      return true;
    };
    if (tid < kWarpgroup) {
      if (loads) {
        ProducerRing<Cfg::kStages> pr;
#pragma unroll 1
        for (int unit = first; unit < tiles; unit += stride) {
          if (!unit_at(unit)) continue;
          if (tid == 0) trace::mark(trace::kTileAt);
          produce_tile<Cfg>(p, ta, tb, ops, b, ghost ? m0 - Cfg::kTileM : m0, n0, kt0, ktiles, ring, full, empty,
                            tid, pr, mc);
        }
      }
    } else {
      const int ctid = tid - kWarpgroup, wg = ctid / kWarpgroup, local = ctid % kWarpgroup;
      const int peer = mc > 1 ? rank ^ 1 : -1;
      RingPos<Cfg::kStages> rd, rel;
#pragma unroll 1
      for (int tile = first; tile < tiles; tile += stride) {
        if (!unit_at(tile)) continue;
        const WgFixup<Cfg, Ops> fix{p,      ops, b, m0, n0, igemm::active_splits(ops.gemm_k, Cfg::kTileK, p.splits),
                                    igemm::fixup_words(p, tile % (p.n_tiles * p.g_blocks * p.phases * p.m_tiles)),
                                    reinterpret_cast<volatile int*>(ring_ptr + Cfg::kFixOffset)};
        if constexpr (Cfg::kSplit == igemm::kSplitSerial) {
          if (p.fixup) fix.start(ktiles, ctid);
        }
        WgAcc<Cfg> acc;
        consume<Cfg>(acc, ktiles, kt0 * Cfg::kTileK, ops.gemm_k, ring, full, empty, wg * Cfg::kWgM, local & 31, rd,
                     rel, peer, tap_skip<Cfg>(p));
        if (ghost) continue;
        if constexpr (Cfg::kSplit == igemm::kSplitSerial || Cfg::kSplit == igemm::kSplitParallel) {
          if (p.fixup) {
            fix.finish(acc, wg, local, ctid, ring_ptr, Cfg::kStaged && tile + stride >= tiles);
            continue;
          }
        }
        if constexpr (Cfg::kTmaStore) {
          if (tma_store_tile<Cfg>(p, ops.gemm_m, ops.gemm_n(p), m0, n0)) {
            int x0, y0;
            store_coords<Cfg>(p, b.g0, m0 + wg * Cfg::kWgM, n0, x0, y0);
            store_tma<Cfg>(acc, tc, x0, y0, wg, ring + Cfg::kEpiOffset, ring_ptr + Cfg::kEpiOffset, local);
          } else if (p.out_map) {
            // The padded rows of both warpgroups overlap the TMA buffers:
            // no store may still read them, before or after.
            if (local == 0) bulk_wait_read<0>();
            bar_sync<1>(kWarpgroup * Cfg::kConsumers);
            store_sep<Cfg>(acc, p, ops, b, m0, n0, wg, ring_ptr + Cfg::kEpiOffset, local);
            bar_sync<1>(kWarpgroup * Cfg::kConsumers);
          } else {
            store_sep<Cfg>(acc, p, ops, b, m0, n0, wg, ring_ptr + Cfg::kEpiOffset, local);
          }
          continue;
        } else if constexpr (Cfg::kEpiSep) {
          // Rows that are no whole number of 128-byte boxes (96 or 144
          // 16-bit columns): the threads store from the area (no output map).
          store_sep<Cfg>(acc, p, ops, b, m0, n0, wg, ring_ptr + Cfg::kEpiOffset, local);
          continue;
        }
        if constexpr (Cfg::kStaged) {
          // The block's last unit: the ring is idle (with multicast the
          // partner's loads of the same last pair have all landed here).
          if (tile + stride >= tiles) {
            store_staged<Cfg>(acc, p, ops, b, m0, n0, wg, ring_ptr, local);
            continue;
          }
        }
        store<Cfg>(acc, p, ops, b, m0, n0, wg * Cfg::kWgM, local);
      }
      // The block's shared memory must outlive the reads of its last stores.
      if constexpr (Cfg::kTmaStore) {
        if (local == 0) bulk_wait_all();
      }
      if (local == 0) {
        trace::mark(trace::kStored);
        trace::finish(Cfg::kConsumers);
      }
    }
    if (mc > 1) {
      // No block leaves while its partner may still arrive on its barriers.
      __syncwarp();
      dev::cluster_sync();
    }
  }
}

}  // namespace wg
}  // namespace gconv
