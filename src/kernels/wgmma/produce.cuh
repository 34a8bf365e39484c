// The wgmma kernels' producers (warpgroup 0; wgmma.cuh): the cp.async
// gatherer and the TMA issuers of fwd, bwd_data and bwd_weight, with the ring
// position they carry from tile to tile and the K walks (TapWalk, PixelWalk)
// that step their coordinates without a division per stage.
#pragma once

#include "common/cluster.cuh"
#include "igemm/operands.cuh"
#include "wgmma/config.cuh"
#include "wgmma/trace.cuh"

namespace gconv {
namespace wg {

using igemm::BlockPos;
using igemm::IgemmParams;

// Stage index and phase parity of a ring position, stepped together.
template <int S>
struct RingPos {
  int stage = 0;
  u32 phase = 0;
  __device__ __forceinline__ void next() {
    if (++stage == S) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// The producer's place in the ring, carried from one output tile to the next
// (persistent grid): the stage written next, the next stage to publish, and
// the stages filled so far (a stage filled before must be released first).
template <int S>
struct ProducerRing {
  RingPos<S> w, pub;
  int filled = 0;
};

template <class Cfg, class Ops>
__device__ __forceinline__ void produce(const IgemmParams& p, Ops& ops, const BlockPos& b, int m0, int n0, int kt0,
                                        int ktiles, u32 ring, u32 full, u32 empty, int tid,
                                        ProducerRing<Cfg::kStages>& pr) {
  constexpr int LAG = Cfg::kLag;
  ops.init(p, b, m0, n0, kt0 * Cfg::kTileK, tid);
  RingPos<Cfg::kStages>& w = pr.w;
  RingPos<Cfg::kStages>& pub = pr.pub;
#pragma unroll 1
  for (int kt = 0; kt < ktiles; ++kt, ++pr.filled) {
    // Stage w was last read by the consumers S fills ago (maybe for the
    // previous output tile).
    if (pr.filled >= Cfg::kStages) mbar_wait(empty + 8 * w.stage, w.phase ^ 1);
    const u32 st = ring + w.stage * Cfg::kStageBytes;
    ops.load(p, st, st + Cfg::kABytes, tid);
    ops.flush();
    dev::cp_async_commit();
    w.next();
    if (kt >= LAG) {
      dev::cp_async_wait<LAG>();
      fence_proxy_async();
      mbar_arrive(full + 8 * pub.stage);
      pub.next();
    }
  }
  dev::cp_async_wait<0>();
  fence_proxy_async();
#pragma unroll 1
  for (int kt = ktiles > LAG ? ktiles - LAG : 0; kt < ktiles; ++kt) {
    mbar_arrive(full + 8 * pub.stage);
    pub.next();
  }
}

// The TMA producers: one thread per CTA walks the ring; for each stage it
// waits until the consumers released it, then, per K block of the stage
// (Cfg::kKBlocks), `issue(k, block, bar)` arms the stage's full barrier with
// the bytes of that block's loads and issues them (they complete on that
// barrier; k: the block's first K index). A block at or past `kend` (the
// end of the GEMM's K: the last stage of an odd number of blocks) is not
// loaded; the thread still arrives for it, so the barrier (one arrival per
// block and issuer) completes. The ring position carries over tiles.
template <class Cfg, class Issue>
__device__ __forceinline__ void tma_ring(int kt0, int ktiles, int kend, u32 ring, u32 full, u32 empty,
                                         ProducerRing<Cfg::kStages>& pr, Issue&& issue) {
  constexpr int S = Cfg::kStages;
  int k = kt0 * Cfg::kTileK;
#pragma unroll 1
  for (int kt = 0; kt < ktiles; ++kt, ++pr.filled, k += Cfg::kTileK) {
    if (pr.filled >= S) mbar_wait(empty + 8 * pr.w.stage, pr.w.phase ^ 1);
#ifdef GCONV_WGMMA_TRACE
    if (threadIdx.x == 0) trace::mark(trace::kPreIssue);
    if (threadIdx.x == 0 && pr.filled >= S && pr.filled - S < trace::kRows) trace::mark(trace::kWake + pr.filled - S);
#endif
    const u32 st = ring + pr.w.stage * Cfg::kStageBytes, bar = full + 8 * pr.w.stage;
#pragma unroll
    for (int j = 0; j < Cfg::kKBlocks; ++j) {
#ifdef GCONV_WGMMA_NOLOAD
      (void)issue;
      (void)kend;
      mbar_arrive(bar);  // diagnostic (wgmma_plan.cpp): no loads, the consumers' own pace
#else
      if (j == 0 || k + j * Cfg::kBlockK < kend) {
        issue(k + j * Cfg::kBlockK, st + j * Cfg::kBlockBytes, bar);
      } else {
        mbar_arrive(bar);
      }
#endif
    }
#ifdef GCONV_WGMMA_TRACE
    if (threadIdx.x == 0 && pr.filled < trace::kSlots) trace::mark(trace::kIssue + pr.filled);
#endif
    pr.w.next();
  }
}

// Splits a pixel index into its spatial digits (right-aligned slots, radix
// `ext`); returns the image index.
template <int NDIM>
__device__ __forceinline__ int pixel_digits(int r, const int (&ext)[3], int (&digit)[3]) {
#pragma unroll
  for (int d = 2; d >= 3 - NDIM; --d) {
    digit[d] = r % ext[d];
    r /= ext[d];
  }
  return r;
}

// Splits a filter tap index into its spatial digits (filter sizes `filt`).
template <int NDIM>
__device__ __forceinline__ void tap_digits(int tap, const int (&filt)[3], int (&f)[3]) {
#pragma unroll
  for (int d = 2; d >= 3 - NDIM; --d) {
    f[d] = tap % filt[d];
    tap /= filt[d];
  }
}

// Output pixel -> the filter base of its window in x (o * stride - pad per
// spatial slot); returns the image index.
template <int NDIM>
__device__ __forceinline__ int output_filter_base(const IgemmParams& p, int pixel, int (&base)[3]) {
  int o[3] = {0, 0, 0};
  const int n = pixel_digits<NDIM>(pixel, p.out, o);
#pragma unroll
  for (int d = 3 - NDIM; d < 3; ++d) base[d] = o[d] * p.stride[d] - p.pad[d];
  return n;
}

// Filter tap index -> its im2col offsets (tap digit * dilation per slot).
template <int NDIM>
__device__ __forceinline__ void tap_offsets(const IgemmParams& p, int tap, unsigned short (&off)[3]) {
  int f[3] = {0, 0, 0};
  tap_digits<NDIM>(tap, p.filt, f);
#pragma unroll
  for (int d = 3 - NDIM; d < 3; ++d) off[d] = static_cast<unsigned short>(f[d] * p.dil[d]);
}

// A TMA producer's walk over K tiles of `step` elements in order, K being
// (filter tap, channel) with `chans` channels a tap (a multiple of step):
// the channel offset `c` within the tap, the tap's linear index `tap` and its
// im2col offsets `off` (tap digit * dilation per slot). init divides once;
// next steps without a division (an odometer over the tap digits, unrolled
// with fixed indices so that the digits stay in registers: an early return
// inside the digit loop had put them in local memory, ~2 local loads a stage
// on the issuing thread's critical path).
// (GCONV_WGMMA_TAPWALK=0, wgmma_plan.cpp, defines GCONV_WGMMA_STAGE_DIVIDE:
// next divides again, as the producers did before, for A/B runs.)
template <int NDIM>
struct TapWalk {
  int c = 0, tap = 0;
  int f[3] = {0, 0, 0};
  unsigned short off[3] = {0, 0, 0};
#ifdef GCONV_WGMMA_STAGE_DIVIDE
  int k_at = 0;
#endif
  __device__ __forceinline__ void init(const IgemmParams& p, int k, int chans) {
#ifdef GCONV_WGMMA_STAGE_DIVIDE
    k_at = k;
#endif
    tap = k / chans;
    c = k - tap * chans;
    tap_digits<NDIM>(tap, p.filt, f);
#pragma unroll
    for (int d = 3 - NDIM; d < 3; ++d) off[d] = static_cast<unsigned short>(f[d] * p.dil[d]);
  }
  __device__ __forceinline__ void next(const IgemmParams& p, int step, int chans) {
#ifdef GCONV_WGMMA_STAGE_DIVIDE
    init(p, k_at + step, chans);
    return;
#endif
    c += step;
    if (c < chans) return;
    c = 0;
    ++tap;
    bool carry = true;
#pragma unroll
    for (int d = 2; d >= 3 - NDIM; --d) {
      if (carry) {
        if (++f[d] < p.filt[d]) {
          off[d] = static_cast<unsigned short>(off[d] + p.dil[d]);
          carry = false;
        } else {
          f[d] = 0;
          off[d] = 0;
        }
      }
    }
  }
};

// A walk over output pixels in steps of `step` (bwd_weight's K): the image
// `n` and spatial digits `o` of the current pixel, stepped by adding the
// step's own digits with carries (each digit and step digit is below its
// radix, so one subtraction per digit), no division per stage.
template <int NDIM>
struct PixelWalk {
  int n = 0, sn = 0;
  int o[3] = {0, 0, 0}, s[3] = {0, 0, 0};
  __device__ __forceinline__ void init(const IgemmParams& p, int pixel, int step) {
    n = pixel_digits<NDIM>(pixel, p.out, o);
    sn = pixel_digits<NDIM>(step, p.out, s);
  }
  __device__ __forceinline__ void next(const IgemmParams& p) {
    int carry = 0;
#pragma unroll
    for (int d = 2; d >= 3 - NDIM; --d) {
      o[d] += s[d] + carry;
      carry = o[d] >= p.out[d];
      if (carry) o[d] -= p.out[d];
    }
    n += sn + carry;
  }
  // The filter base of the current pixel's window in x (o * stride - pad).
  __device__ __forceinline__ void base(const IgemmParams& p, int (&b)[3]) const {
#pragma unroll
    for (int d = 3 - NDIM; d < 3; ++d) b[d] = o[d] * p.stride[d] - p.pad[d];
  }
};

// fwd (Cfg::kTma): K tile kt is filter tap kt * TK / Cg, channels (kt * TK) %
// Cg onwards (C/G a multiple of TK, or each tap padded to p.tap_k), so A is
// one im2col load (TM output
// pixels from the block's first row on, shifted by the tap's offsets;
// padding and the M tail come back as zeros) and B one tiled load of TN
// weight rows. Pointwise problems (p.tma_flat) load A as a tiled box of
// pixel rows at channel k.
//
// Multicast (mc == 2, Cfg::kMcastable): the two blocks of a cluster hold
// adjacent M tiles of one N tile; block `rank` loads B's rows [rank, rank +
// 1) * TN / 2 into both blocks' stage (the map's box is half the tile), and
// each block's barrier expects all of B.
//
// Every TMA producer keeps the issuing thread's work per stage to the wait,
// the barrier's arming, the loads and a few additions: one loop per operand
// layout (no per-stage branch on it), coordinates stepped (TapWalk,
// PixelWalk), nothing in local memory. That thread's instructions are one
// dependent chain: at ~440 SM cycles a stage it, not the loads (one TMA
// load is accepted every ~60 cycles, bench/tma_probe.cu), set a small
// tile's pace (docs/wgmma.md).
template <class Cfg>
__device__ __forceinline__ void produce_tma(const IgemmParams& p, const TensorMap* ta, const TensorMap* tb,
                                            ProducerRing<Cfg::kStages>& pr, const BlockPos& b, int m0, int n0,
                                            int kt0, int ktiles, int kend, u32 ring, u32 full, u32 empty, int part, int mc) {
  const int c_group = b.g0 * p.Cg, row_group = b.g0 * p.Kg + n0;
  const int rank = mc > 1 ? static_cast<int>(dev::cluster_rank()) : 0;
  const auto load_b = [&](int k, u32 st, u32 bar) {
    if constexpr (Cfg::kMcastable) {
      if (mc > 1) {
        constexpr int kHalf = Cfg::kTileN / 2;  // rows of 128 bytes (K-major B)
        tma_load_2d_multicast(st + Cfg::kABytes + rank * kHalf * 128, tb, k, row_group + rank * kHalf, bar, 0x3);
        return;
      }
    }
    tma_load_2d(st + Cfg::kABytes, tb, k, row_group, bar);
  };
  const auto ring_of = [&](auto&& issue) { tma_ring<Cfg>(kt0, ktiles, kend, ring, full, empty, pr, issue); };
  // K walks (tap, channel) with p.tap_k (or C/G) positions a tap; B's rows
  // hold F * C/G weights, so its K index is tap * C/G + channel: the walk's
  // index unless the taps are padded (a flat load has one tap: always).
  const int cg = p.Cg, chans = p.tap_k ? p.tap_k : cg;
  const bool padded = p.tap_k != 0 && !p.tma_flat;
  TapWalk<Cfg::kNdim> walk;
  if (part == 1) {  // B's issuer
    if (!padded) {
      ring_of([&](int k, u32 st, u32 bar) {
        mbar_arrive_expect_tx(bar, Cfg::TileB::kBytes);
        load_b(k, st, bar);
      });
      return;
    }
    walk.init(p, kt0 * Cfg::kTileK, chans);
    ring_of([&](int, u32 st, u32 bar) {
      mbar_arrive_expect_tx(bar, Cfg::TileB::kBytes);
      load_b(walk.tap * cg + walk.c, st, bar);
      walk.next(p, Cfg::kBlockK, chans);
    });
    return;
  }
  const u32 tx = part == 0 ? Cfg::TileA::kBytes : Cfg::kTxBytes;
  if (p.tma_flat) {
    ring_of([&](int k, u32 st, u32 bar) {
      mbar_arrive_expect_tx(bar, tx);
      tma_load_2d(st, ta, c_group + k, m0, bar);  // rows are pixels, K is the channels (one tap)
      if (part < 0) load_b(k, st, bar);
    });
    return;
  }
  int base[3] = {0, 0, 0};
  const int n = output_filter_base<Cfg::kNdim>(p, m0, base);
  walk.init(p, kt0 * Cfg::kTileK, chans);
  ring_of([&](int k, u32 st, u32 bar) {
    mbar_arrive_expect_tx(bar, tx);
    tma_load_im2col<Cfg::kNdim>(st, ta, c_group + walk.c, base, n, walk.off, bar);
    if (part < 0) load_b(padded ? walk.tap * cg + walk.c : k, st, bar);
    walk.next(p, Cfg::kBlockK, chans);
  });
}

// bwd_data's K walk for the TMA producer: K is (flipped tap t' of the
// block's stride phase, output channel), the phase's taps being f = f0 + t *
// fs per slot (igemm/geometry.cuh PhaseGeom; t = T - 1 - t'). A's im2col
// offset of slot d is shift[d] + t'[d] * dq[d] (shift: the phase's filter
// base beyond the map's common lower corner, IgemmParams::tma_lower), B's
// tap the linear index of f, which falls by fs * filter stride per t' step.
// Stepped like TapWalk: one division at init, none per stage. At stride 1
// (one phase: T = F, dq = dil, f0 = 0, fs = 1, shift 0) this is the walk of
// the flipped taps, the tap index filt_vol - 1 - tap.
template <int NDIM>
struct PhaseTapWalk {
  int c = 0, wtap = 0;
  int t[3] = {0, 0, 0}, wstep[3] = {0, 0, 0};
  unsigned short off[3] = {0, 0, 0}, off0[3] = {0, 0, 0};
  __device__ __forceinline__ void init(const IgemmParams& p, const igemm::PhaseGeom& ph, int k, int chans) {
    int tap = k / chans;
    c = k - tap * chans;
    wtap = 0;
#pragma unroll
    for (int d = 2; d >= 3 - NDIM; --d) {
      t[d] = tap % ph.T[d];
      tap /= ph.T[d];
      wstep[d] = ph.fs[d] * p.filt_inner[d];
      wtap += (ph.f0[d] + (ph.T[d] - 1 - t[d]) * ph.fs[d]) * p.filt_inner[d];
      off0[d] = static_cast<unsigned short>(ph.q0[d] - (ph.T[d] - 1) * ph.dq[d] - p.tma_lower[d]);
      off[d] = static_cast<unsigned short>(off0[d] + t[d] * ph.dq[d]);
    }
  }
  __device__ __forceinline__ void next(const igemm::PhaseGeom& ph, int step, int chans) {
    c += step;
    if (c < chans) return;
    c = 0;
    bool carry = true;
#pragma unroll
    for (int d = 2; d >= 3 - NDIM; --d) {
      if (carry) {
        if (++t[d] < ph.T[d]) {
          off[d] = static_cast<unsigned short>(off[d] + ph.dq[d]);
          wtap -= wstep[d];
          carry = false;
        } else {
          wtap += (ph.T[d] - 1) * wstep[d];
          t[d] = 0;
          off[d] = off0[d];
        }
      }
    }
  }
};

// bwd_data with TMA (wgmma/tma.hpp): row m of the block's stride phase is dx
// position ph + s * j; A = dy through im2col with the phase's taps flipped
// (one map for every phase: the filter base of row j is j + tma_lower, each
// phase's own shift in its offsets), one load of TM positions x 64 output
// channels per K tile (a tap and 64 channels of K/G); B = w as a 3D tensor
// (c, tap, k), one box of 64 c x 64 k per 64 columns. A phase without taps
// (ktiles 0) loads nothing.
template <class Cfg>
__device__ __forceinline__ void produce_tma_bwd_data(const IgemmParams& p, const igemm::PhaseGeom& ph,
                                                     const TensorMap* ta, const TensorMap* tb,
                                                     ProducerRing<Cfg::kStages>& pr, const BlockPos& b, int m0,
                                                     int n0, int kt0, int ktiles, int kend, u32 ring, u32 full, u32 empty,
                                                     int part) {
  if (ktiles <= 0) return;
  constexpr int F = 3 - Cfg::kNdim;
  int j[3] = {0, 0, 0}, base[3] = {0, 0, 0};
  const int n = pixel_digits<Cfg::kNdim>(m0, ph.J, j);
#pragma unroll
  for (int d = F; d < 3; ++d) base[d] = j[d] + p.tma_lower[d];
  // 64-column blocks inside the GEMM; with p.tma_blocks one 4D box loads all
  // of the tile's (whole bytes: blocks past C/G come back as zeros or as
  // columns that are never stored).
  const bool b4 = p.tma_blocks & 2;
  const int nblocks = b4 ? Cfg::kTileN / 64 : cmin(Cfg::kTileN, p.Cg - n0 + 63) / 64;
  const u32 tx = (part == 1 ? 0 : Cfg::TileA::kBytes) + (part == 0 ? 0 : nblocks * Cfg::TileB::kBlockBytes);
  const int k_group = b.g0 * p.Kg, kg = p.Kg;
  const bool flat = p.tma_flat;
  // K tiles in order, stepped without a division.
  // K walks (flipped tap, channel) with p.tap_k (or K/G) positions a tap.
  const int chans = p.tap_k ? p.tap_k : kg;
  PhaseTapWalk<Cfg::kNdim> walk;
  walk.init(p, ph, kt0 * Cfg::kTileK, chans);
  tma_ring<Cfg>(kt0, ktiles, kend, ring, full, empty, pr, [&](int, u32 st, u32 bar) {
    const int kc = k_group + walk.c;
    mbar_arrive_expect_tx(bar, tx);
    if (part != 1) {
      if (flat) {
        tma_load_2d(st, ta, kc, m0, bar);  // pointwise: dx rows are dy rows (tap 0)
      } else {
        tma_load_im2col<Cfg::kNdim>(st, ta, kc, base, n, walk.off, bar);
      }
    }
    if (part != 0) {
      const int wtap = walk.wtap;
      if (b4) {
        tma_load_4d(st + Cfg::kABytes, tb, 0, wtap, kc, n0 / 64, bar);
      } else {
        for (int jb = 0; jb < nblocks; ++jb)
          tma_load_3d(st + Cfg::kABytes + jb * Cfg::TileB::kBlockBytes, tb, n0 + 64 * jb, wtap, kc, bar);
      }
    }
    walk.next(ph, Cfg::kBlockK, chans);
  });
}

// bwd_weight with TMA: K runs over output pixels. A = dy^T, one tiled box of
// 64 channels x TK pixels per 64 rows (MN-major blocks); B = x through
// im2col, one load of TK pixels x 64 channels per 64 columns (a tap and 64
// channels of C/G), the filter base of the tile's first pixel shifted by the
// tap's offsets (the pixel stepped by PixelWalk).
template <class Cfg>
__device__ __forceinline__ void produce_tma_bwd_weight(const IgemmParams& p, const TensorMap* ta, const TensorMap* tb,
                                                       ProducerRing<Cfg::kStages>& pr, const BlockPos& b, int m0,
                                                       int n0, int kt0, int ktiles, int kend, u32 ring, u32 full, u32 empty,
                                                       int part) {
  // With p.tma_blocks a 3D box loads every 64-channel block of the tile at
  // once (its bytes count whole, blocks past the group or tensor included:
  // their rows / columns are never stored).
  const bool a3 = p.tma_blocks & 1, b3 = p.tma_blocks & 2;
  const int mblocks = a3 ? Cfg::kTileM / 64 : cmin(Cfg::kTileM, p.Kg - m0 + 63) / 64;
  const int nblocks = b3 ? Cfg::kTileN / 64 : cmin(Cfg::kTileN, p.gemm_n - n0 + 63) / 64;
  const u32 tx =
      (part == 1 ? 0 : mblocks * Cfg::TileA::kBlockBytes) + (part == 0 ? 0 : nblocks * Cfg::TileB::kBlockBytes);
  const int a_row = b.g0 * p.Kg + m0;
  const bool flat = p.tma_flat;
  // The tap and channel of each of the tile's 64-column B blocks do not
  // change along K: divided out once per tile, not per stage.
  constexpr int kNB = Cfg::kTileN / 64;
  int bch[kNB];
  unsigned short boff[kNB][3] = {};
  // A packed kernel's taps may be padded to whole boxes (p.pk_tw columns a
  // tap, epilogue.cuh PackedOut).
  const int tw = p.pk_tw ? p.pk_tw : p.Cg;
  const auto block_coords = [&] {
#pragma unroll
    for (int j = 0; j < kNB; ++j) {
      const int col = n0 + 64 * j;
      const int tap = col / tw;
      bch[j] = b.g0 * p.Cg + col - tap * tw;
      if (part != 0 && !b3 && !flat && j < nblocks) tap_offsets<Cfg::kNdim>(p, tap, boff[j]);
    }
  };
  block_coords();
  const auto load_a = [&](int k, u32 st, u32 bar) {
    if (a3) {
      tma_load_3d(st, ta, 0, k, a_row / 64, bar);
    } else {
      for (int j = 0; j < mblocks; ++j) tma_load_2d(st + j * Cfg::TileA::kBlockBytes, ta, a_row + 64 * j, k, bar);
    }
  };
  const auto ring_of = [&](auto&& issue) { tma_ring<Cfg>(kt0, ktiles, kend, ring, full, empty, pr, issue); };
  if (part == 0) {  // A's issuer
    ring_of([&](int k, u32 st, u32 bar) {
      mbar_arrive_expect_tx(bar, tx);
      load_a(k, st, bar);
    });
    return;
  }
  if (b3 || flat) {
    const int b_col = (b.g0 * p.Cg + n0) / 64;
    ring_of([&](int k, u32 st, u32 bar) {
      mbar_arrive_expect_tx(bar, tx);
      if (part < 0) load_a(k, st, bar);
      if (b3) {
        tma_load_3d(st + Cfg::kABytes, tb, 0, k, b_col, bar);  // pointwise: tap 0
      } else {
#pragma unroll
        for (int j = 0; j < kNB; ++j)  // pointwise: K index k is x's row k (tap 0)
          if (j < nblocks) tma_load_2d(st + Cfg::kABytes + j * Cfg::TileB::kBlockBytes, tb, bch[j], k, bar);
      }
    });
    return;
  }
  PixelWalk<Cfg::kNdim> px;
  px.init(p, kt0 * Cfg::kTileK, Cfg::kBlockK);
  ring_of([&](int k, u32 st, u32 bar) {
    mbar_arrive_expect_tx(bar, tx);
    if (part < 0) load_a(k, st, bar);
#ifdef GCONV_WGMMA_STAGE_DIVIDE
    block_coords();  // per stage, as before (A/B runs)
    int base[3] = {0, 0, 0};
    const int n = output_filter_base<Cfg::kNdim>(p, k, base);
#else
    int base[3] = {0, 0, 0};
    px.base(p, base);
    const int n = px.n;
#endif
#pragma unroll
    for (int j = 0; j < kNB; ++j)
      if (j < nblocks)
        tma_load_im2col<Cfg::kNdim>(st + Cfg::kABytes + j * Cfg::TileB::kBlockBytes, tb, bch[j], base, n, boff[j],
                                    bar);
    px.next(p);
  });
}

}  // namespace wg
}  // namespace gconv
