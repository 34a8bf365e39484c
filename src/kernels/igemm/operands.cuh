// The operands of the three implicit GEMMs, one struct per direction: which
// loaders fill a K tile of A and B, how a block's GEMM rows and K are set up
// (bwd_data: its stride phase), and where a result row lands in the output.
// Shared by the mma.sync mainloop (igemm.cuh) and the wgmma producer
// (wgmma/wgmma.cuh): LCfg is the loaders' config (tile shape, vector width,
// thread count of the threads that load, shared-memory tile layouts).
//
// Per group g the GEMM C[M][N] = A[M][K] * B[K][N] is (Cg = C/G, Kg = K/G):
//   fwd:        M = N*out_vol, N = Kg,      K = F*Cg     A = x im2col, B = w
//   bwd_data:   per stride phase (positions i % s == ph): M = N*prod(J),
//               N = Cg, K = T*Kg over the T taps that reach the phase
//               A = dy at (i + pad - f*dil)/s, B = w; stride-skipped taps cost nothing
//   bwd_weight: M = Kg, N = F*Cg, K = N*out_vol     A = dy^T, B = x im2col
#pragma once

#include "igemm/geometry.cuh"
#include "igemm/loaders.cuh"
#include "igemm/packed_loaders.cuh"

namespace gconv {
namespace igemm {

// Where a block sits in the grid (order: see IgemmParams).
struct BlockPos {
  int nt, g0, ngroups, mt, split, phase;
};

// The order's digits of bid (n tile, group block, phase, M tile; what is
// left is the split), the first three divided by multiplies
// (IgemmParams::div_mul). m_tiles: the M tiles of the order (p.m_tiles,
// also a multiply; the wgmma family's multicast pairs walk (m_tiles + 1) / 2
// pairs of M tiles, a division).
__device__ __forceinline__ BlockPos block_pos(const IgemmParams& p, int gpb, int bid, int m_tiles) {
  const int radix[4] = {p.n_tiles, p.g_blocks, p.phases, m_tiles};
  int digit[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int q = i < 3 || m_tiles == p.m_tiles ? fast_div(bid, p.div_mul[i], p.div_shift[i]) : bid / m_tiles;
    digit[i] = bid - q * radix[i];
    bid = q;
  }
  BlockPos b;
  b.nt = digit[0];
  b.phase = digit[2];
  b.mt = digit[3];
  b.split = bid;
  b.g0 = digit[1] * gpb;
  b.ngroups = p.G - b.g0 < gpb ? p.G - b.g0 : gpb;
  return b;
}
__device__ __forceinline__ BlockPos block_pos(const IgemmParams& p, int gpb, int bid) {
  return block_pos(p, gpb, bid, p.m_tiles);
}

// This split's K tiles: [kt0, kt0 + count).
__device__ __forceinline__ void split_range(int gemm_k, int tile_k, int splits, int split, int& kt0, int& count) {
  const int ktiles = (gemm_k + tile_k - 1) / tile_k;
  const int per = (ktiles + splits - 1) / splits;
  kt0 = split * per < ktiles ? split * per : ktiles;
  const int end = kt0 + per < ktiles ? kt0 + per : ktiles;
  count = end - kt0;
}

// Every direction answers:
//   setup(p, b)            the block's GEMM rows (gemm_m) and K (gemm_k)
//   init(p, b, m0, n0, k0, tid) / load(p, sa, sb, tid)   the loaders
//   gemm_n(p), col_stride(p), row_off(p, m)           the epilogue's output map
//
// Packed (LCfg::kPacked, fwd and bwd_data): the block's ngroups groups are
// one GEMM with N = ngroups * (K/G or C/G) columns and K = taps x GPB * (C/G
// or K/G): the channel digit of the K counter spans the groups, B is
// block-diagonal (packed_loaders.cuh TapKMajorB, TapMNMajor::init_packed), and the
// output columns of the groups are contiguous (gemm_n below, col_stride
// unchanged: column c of group block g0 lands at g0 * Kg + c).
template <class LCfg>
struct FwdOperands {
  typedef typename LCfg::T T;
  static constexpr int kF = 3 - LCfg::kNdim;
  int gemm_m, gemm_k, ngroups;
  TapGeom tg;
  GatherKMajor<LCfg> la;
  typename Select<LCfg::kPacked || LCfg::kRealign, TapKMajorB<LCfg>, StridedKMajor<LCfg>>::type lb;

  __device__ __forceinline__ void setup(const IgemmParams& p, const BlockPos& b) {
    gemm_m = p.gemm_m;
    gemm_k = p.gemm_k;  // packed: the host's F * GPB * Cg
    ngroups = b.ngroups;
  }
  __device__ __forceinline__ void init(const IgemmParams& p, const BlockPos& b, int m0, int n0, int k0, int tid) {
    RowGeom rg;
#pragma unroll
    for (int d = kF; d < 3; ++d) {
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
    tg.kdim = p.gemm_k;  // realign: F * (C/G rounded up to vec), as the counter's radix (igemm_plan.cpp)
    tg.cvalid = p.Cg;
    la.init(static_cast<const T*>(p.a), rg, tg, m0, b.g0, p.Cg, b.ngroups, k0, tid);
    if constexpr (LCfg::kPacked || LCfg::kRealign) {
      const T* w = static_cast<const T*>(p.b);
      if constexpr (LCfg::kRealign)
        la.end = reinterpret_cast<const char*>(static_cast<const T*>(p.a) + p.batch * p.in_vol * p.C);
      lb.init(w, w + p.K * p.filt_vol * p.Cg, b.g0, n0, LCfg::kPacked ? b.ngroups * p.Kg : p.Kg, p.Kg, p.Cg,
              p.filt_vol * p.Cg, p.kc_radix[3], p.gemm_k, k0, tid);
    } else {
      lb.init(static_cast<const T*>(p.b), b.g0, b.ngroups, n0, p.Kg, p.gemm_k, k0, tid);
    }
  }
  __device__ __forceinline__ void load(const IgemmParams&, u32 sa, u32 sb, int tid) {
    la.load(sa, tg, tid);
    lb.load(sb, tid);
  }
  __device__ __forceinline__ void flush() {
    la.flush();
    lb.flush();
  }
  __device__ __forceinline__ int gemm_n(const IgemmParams& p) const { return LCfg::kPacked ? ngroups * p.Kg : p.Kg; }
  __device__ __forceinline__ int col_stride(const IgemmParams& p) const { return p.Kg; }
  __device__ __forceinline__ int row_off(const IgemmParams& p, int m) const { return m * p.K; }
};

template <class LCfg>
struct BwdDataOperands {
  typedef typename LCfg::T T;
  static constexpr int kF = 3 - LCfg::kNdim;
  int gemm_m, gemm_k, ngroups;
  PhaseGeom ph;
  TapGeom tg;
  WTapGeom wg;
  GatherKMajor<LCfg> la;
  TapMNMajor<LCfg> lb;

  // K per tap: one group's K/G, or (packed) the block's GPB * K/G, or
  // (realign) K/G rounded up to vec: a vector never spans two taps, the
  // rounding's rows are zeros on both sides.
  __device__ __forceinline__ static int k_per_tap(const IgemmParams& p) {
    if constexpr (LCfg::kRealign) return (p.Kg + LCfg::kVec - 1) / LCfg::kVec * LCfg::kVec;
    return LCfg::kPacked ? LCfg::kGpb * p.Kg : p.Kg;
  }
  __device__ __forceinline__ void setup(const IgemmParams& p, const BlockPos& b) {
    ph = make_phase<LCfg::kNdim>(p, b.phase);
    int taps = 1;
    gemm_m = p.batch;
#pragma unroll
    for (int d = kF; d < 3; ++d) {
      gemm_m *= ph.J[d];
      taps *= ph.T[d];
    }
    // p.tap_k: a wgmma TMA kernel's K walk of whole channel blocks a tap.
    gemm_k = taps * (p.tap_k ? p.tap_k : k_per_tap(p));
    ngroups = b.ngroups;
  }
  __device__ __forceinline__ void init(const IgemmParams& p, const BlockPos& b, int m0, int n0, int k0, int tid) {
    RowGeom rg;
    tg.lin0 = 0;
    wg.lin0 = 0;
#pragma unroll
    for (int d = 0; d < 3; ++d) tg.radix[d] = 1;
#pragma unroll
    for (int d = kF; d < 3; ++d) {
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
    tg.radix[3] = k_per_tap(p);
    counter_increment(LCfg::kNdim + 1, tg.radix, LCfg::kTileK, tg.inc);
    tg.kdim = gemm_k;
    tg.cvalid = LCfg::kPacked ? tg.radix[3] : p.Kg;
    wg.lch = p.filt_vol * p.Cg;
    la.init(static_cast<const T*>(p.a), rg, tg, m0, b.g0, p.Kg, b.ngroups, k0, tid);
    if constexpr (LCfg::kRealign)
      la.end = reinterpret_cast<const char*>(static_cast<const T*>(p.a) + p.batch * p.out_vol * p.K);
    if constexpr (LCfg::kPacked) {
      lb.init_packed(static_cast<const T*>(p.b), tg, b.g0, b.ngroups * p.Cg, p.Kg, p.Cg, wg.lch, k0, tid);
    } else {
      lb.init(static_cast<const T*>(p.b), tg, b.g0, b.ngroups, n0, p.Cg, p.Kg * p.filt_vol * p.Cg, k0, tid);
    }
  }
  __device__ __forceinline__ void load(const IgemmParams&, u32 sa, u32 sb, int tid) {
    la.load(sa, tg, tid);
    lb.load(sb, tg, wg, tid);
  }
  __device__ __forceinline__ void flush() {
    la.flush();
    lb.flush();
  }
  __device__ __forceinline__ int gemm_n(const IgemmParams& p) const { return LCfg::kPacked ? ngroups * p.Cg : p.Cg; }
  __device__ __forceinline__ int col_stride(const IgemmParams& p) const { return p.Cg; }
  // Phase row m -> (n, j) -> input position ph + s * j.
  __device__ __forceinline__ int row_off(const IgemmParams& p, int m) const {
    int r = m, pos = 0;
#pragma unroll
    for (int d = 2; d >= kF; --d) {
      const int j = r % ph.J[d];
      r /= ph.J[d];
      pos += (ph.ph[d] + p.stride[d] * j) * p.in_inner[d];
    }
    return (r * p.in_vol + pos) * p.C;
  }
};

// Packed bwd_weight: rows m < ngroups * Kg (output channel g0 * Kg + m),
// columns (group j, tap, c) < ngroups * F * Cg (p.gemm_n is GPB * F * Cg);
// the epilogue keeps the diagonal blocks (j == m / Kg) and moves column nn
// to nn - j * F * Cg (epilogue.cuh). Odd C/G (config.cuh OddCgConfig):
// columns (tap, c) < F * (Cg rounded up to vec) (p.gemm_n), column nn lands
// at tap * Cg + c where c < Cg (params.cuh OddCgCols).
template <class LCfg>
struct BwdWeightOperands {
  typedef typename LCfg::T T;
  int gemm_m, gemm_k, ngroups;
  StridedMNMajor<LCfg> la;
  GatherMNMajor<LCfg> lb;

  __device__ __forceinline__ void setup(const IgemmParams& p, const BlockPos& b) {
    ngroups = b.ngroups;
    gemm_m = LCfg::kPacked ? b.ngroups * p.Kg : p.Kg;
    gemm_k = p.gemm_k;
  }
  __device__ __forceinline__ void init(const IgemmParams& p, const BlockPos& b, int m0, int n0, int k0, int tid) {
    la.init(static_cast<const T*>(p.a), p.K, p.gemm_k, b.g0, p.Kg, b.ngroups, m0, gemm_m, k0, tid);
    if constexpr (LCfg::kRealign)
      la.end = reinterpret_cast<const char*>(static_cast<const T*>(p.a) + p.batch * p.out_vol * p.K);
    lb.init(p, b.g0, b.ngroups, n0, k0, tid);
    if constexpr (OddCgOf<LCfg>::value)
      lb.end = reinterpret_cast<const char*>(static_cast<const T*>(p.b) + p.batch * p.in_vol * p.C);
  }
  __device__ __forceinline__ void load(const IgemmParams& p, u32 sa, u32 sb, int tid) {
    la.load(sa, tid);
    lb.load(sb, p, tid);
  }
  __device__ __forceinline__ void flush() {
    la.flush();
    lb.flush();
  }
  __device__ __forceinline__ int gemm_n(const IgemmParams& p) const {
    return LCfg::kPacked ? ngroups * p.filt_vol * p.Cg : p.gemm_n;
  }
  // A filter row: F * Cg elements (p.gemm_n unless packed or, odd C/G,
  // padded: params.cuh OddCgCols); a group: Kg rows.
  __device__ __forceinline__ static int filter_row(const IgemmParams& p) {
    return LCfg::kPacked || OddCgOf<LCfg>::value ? p.filt_vol * p.Cg : p.gemm_n;
  }
  __device__ __forceinline__ int col_stride(const IgemmParams& p) const { return p.Kg * filter_row(p); }
  __device__ __forceinline__ int row_off(const IgemmParams& p, int m) const { return m * filter_row(p); }
};

template <class LCfg, int DIR>
struct OperandsOf;
template <class LCfg>
struct OperandsOf<LCfg, kFwd> {
  typedef FwdOperands<LCfg> type;
};
template <class LCfg>
struct OperandsOf<LCfg, kBwdData> {
  typedef BwdDataOperands<LCfg> type;
};
template <class LCfg>
struct OperandsOf<LCfg, kBwdWeight> {
  typedef BwdWeightOperands<LCfg> type;
};

}  // namespace igemm
}  // namespace gconv
