// Global -> shared loaders of the igemm operand tiles, one per access pattern:
//
//   GatherKMajor   fwd A (x im2col), bwd_data A (dy at the phase's taps)
//   StridedKMajor  fwd B (w rows)
//   TapMNMajor     bwd_data B (w at the phase's taps, contiguous in c)
//   StridedMNMajor bwd_weight A (dy, contiguous in k)
//   GatherMNMajor  bwd_weight B (x im2col, contiguous in c)
//
// (The packed kernels' block-diagonal weights and the realigned kernels' fwd
// weights: packed_loaders.cuh. Slot maps and copy batches: copy_slots.cuh.)
// Bounds tests combine with & (not &&): no branches, no reloads per copy.
// Each thread owns fixed K slots (one in the usual case) and a few M/N slots;
// what depends only on the M/N slot (row base, coordinates) is computed once
// in init(), what depends only on K is stepped once per tile by a KCounter,
// and every copy then costs an add and a bounds test per spatial dim.
// load() issues the copies of one K tile and advances to the next; it is
// called for consecutive tiles only. flush() then stores what load() holds in
// registers (vec 1 elements, realigned vectors; nothing for cp.async), right
// after load() or, for realigned loaders, after the tile's MMAs (mainloop.cuh).
// Realigned (Cfg::kRealign, realign.cuh): GatherKMajor (fwd x, bwd_data dy;
// its channel digit then runs over C/G or K/G rounded up to the vector) and
// StridedMNMajor (bwd_weight dy) read 16-byte vectors from any element
// offset; TapMNMajor skips the rounded-up channels; GatherMNMajor (bwd_weight
// x) does both for an odd C/G (config.cuh OddCgConfig).
#pragma once

#include "common/ptx.cuh"
#include "igemm/copy_slots.cuh"
#include "igemm/geometry.cuh"
#include "igemm/realign.cuh"

namespace gconv {
namespace igemm {

// ---------------------------------------------------------------------------
// K-major gather (rows = GEMM M, K contiguous within a tap). GPB groups share
// the row geometry; group gi reads channels shifted by gi * gstride into its
// own A sub-tile. (Making the group the fastest thread index instead, for
// contiguous reads of small Cg, measured slower: more slots per thread, more
// registers, lower occupancy.)
template <class Cfg>
struct GatherKMajor : RealignState<Cfg::kRealign, 1> {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileA Tile;
  static constexpr int kNdim = Cfg::kNdim, kF = 3 - kNdim;
  typedef SlotMap<Cfg::kTileK / Cfg::kVec, Cfg::kTileM, Cfg::kThreads, true> Map;

  typedef typename Select<Cfg::kRealign, RealignBatch<Map::kKP * Map::kP * Cfg::kLoadGpb>,
                          CopyBatch<Cfg::kVecBytes, Map::kKP * Map::kP * Cfg::kLoadGpb>>::type Batch;
  typedef typename Select<Cfg::kRealign, Batch, NoBatch>::type Held;

  const T* src;
  Held held;  // realign: the stage's vectors until flush()
  int gstride, ngroups;
  int climit;  // packed: channel digits at or past it are empty group slots (zeros)
  int rbase[Map::kP];
  int rc[Map::kP][3];
  KCounter<kNdim + 1> ctr[Map::kKP];
  int kk[Map::kKP];

  __device__ __forceinline__ void init(const T* src_, const RowGeom& rg, const TapGeom& tg, int m0, int g0,
                                       int gstride_, int ngroups_, int k0, int tid) {
    src = src_;
    gstride = gstride_;
    ngroups = ngroups_;
    climit = ngroups_ * gstride_;
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int m = m0 + Map::mnslot(tid, p);
#pragma unroll
      for (int d = 0; d < 3; ++d) rc[p][d] = 0;
      if (m < rg.rows) {
        int r = m, base = 0;
#pragma unroll
        for (int d = 2; d >= kF; --d) {
          const int digit = r % rg.radix[d];
          r /= rg.radix[d];
          rc[p][d] = digit * rg.mul[d] + rg.add[d];
          base += rc[p][d] * rg.istr[d];
        }
        rbase[p] = r * rg.nstride + base + g0 * gstride;
      } else {
        rbase[p] = 0;
        rc[p][2] = kInvalidCoord;
      }
    }
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      kk[q] = k0 + Map::kslot(tid, q) * Cfg::kVec;
      ctr[q].set(kk[q], tg.radix);
    }
  }

  __device__ __forceinline__ void load(u32 stage, const TapGeom& tg, int tid) {
    Batch local;
    Batch& batch = pick_batch(held, local);
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      // Packed: the channel digit (slot 3) runs over all the block's groups;
      // vec divides the group's channels, so a vector is all in or all out.
      const bool kv = kk[q] < tg.kdim && (!Cfg::kPacked || ctr[q].v[3] < climit);
      // Realign: the valid bytes of the vector (the digit's radix is the
      // channel count rounded up to vec).
      int nb = 0;
      if constexpr (Cfg::kRealign) {
        nb = tg.cvalid - ctr[q].v[3];
        nb = (nb < Cfg::kVec ? (nb > 0 ? nb : 0) : Cfg::kVec) * Cfg::kElemBytes;
      }
      int tc[3];
      int lin = tg.lin0 + ctr[q].v[3] * tg.lch;
#pragma unroll
      for (int d = kF; d < 3; ++d) {
        tc[d] = tg.base[d] + ctr[q].v[d] * tg.mul[d];
        lin += ctr[q].v[d] * tg.lstr[d];
      }
#pragma unroll
      for (int p = 0; p < Map::kP; ++p) {
        const int mn = Map::mnslot(tid, p);
        const bool in_tile = Map::mn_ok(mn);
        bool v = kv && in_tile;
#pragma unroll
        for (int d = kF; d < 3; ++d) v &= unsigned(rc[p][d] + tc[d]) < unsigned(tg.ext[d]);
        const T* s = src + (rbase[p] + lin);
        const u32 dst = stage + Tile::elem_offset(mn, ks * Cfg::kVec);
#pragma unroll
        for (int gi = 0; gi < Cfg::kLoadGpb; ++gi) {
          const bool vg = v && gi < ngroups;
          const int i = (q * Map::kP + p) * Cfg::kLoadGpb + gi;
          if constexpr (Cfg::kRealign) {
            batch.add(i, dst + gi * Tile::kBytes, reinterpret_cast<const char*>(vg ? s + gi * gstride : src),
                      vg ? nb : 0, this->end, in_tile);
          } else {
            batch.add(i, dst + gi * Tile::kBytes, vg ? s + gi * gstride : src, vg, in_tile);
          }
        }
      }
      kk[q] += Cfg::kTileK;
      ctr[q].step(tg.radix, tg.inc);
    }
    if constexpr (!Cfg::kRealign) batch.flush();
  }
  __device__ __forceinline__ void flush() {
    if constexpr (Cfg::kRealign) held.flush();
  }
};

// ---------------------------------------------------------------------------
// K-major strided matrix: B[n][k] = src[row(n) * ld + k] (fwd: w rows, one per
// output channel of a group, ld = F * Cg).
template <class Cfg>
struct StridedKMajor {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileB Tile;
  typedef SlotMap<Cfg::kTileK / Cfg::kVec, Cfg::kTileN, Cfg::kThreads, true> Map;

  const T* src;
  int kdim;
  int roff[Map::kP];  // -1: row outside the GEMM
  int kk[Map::kKP];

  // Row j of the tile: group g0 + j / GroupN, row n0 + j % GroupN of it.
  __device__ __forceinline__ void init(const T* src_, int g0, int ngroups, int n0, int rows_per_group, int kdim_,
                                       int k0, int tid) {
    src = src_;
    kdim = kdim_;
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int j = Map::mnslot(tid, p);
      const int gi = j / Cfg::kGroupN, n = n0 + j % Cfg::kGroupN;
      roff[p] = (n < rows_per_group && gi < ngroups) ? ((g0 + gi) * rows_per_group + n) * kdim : -1;
    }
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) kk[q] = k0 + Map::kslot(tid, q) * Cfg::kVec;
  }

  __device__ __forceinline__ void load(u32 stage, int tid) {
    CopyBatch<Cfg::kVecBytes, Map::kKP * Map::kP> batch;
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      const bool kv = kk[q] < kdim;
#pragma unroll
      for (int p = 0; p < Map::kP; ++p) {
        const int j = Map::mnslot(tid, p);
        const bool in_tile = Map::mn_ok(j);
        const bool v = kv && in_tile && roff[p] >= 0;
        batch.add(q * Map::kP + p, stage + Tile::elem_offset(j, ks * Cfg::kVec), v ? src + (roff[p] + kk[q]) : src,
                  v, in_tile);
      }
      kk[q] += Cfg::kTileK;
    }
    batch.flush();
  }
  __device__ __forceinline__ void flush() {}
};

// ---------------------------------------------------------------------------
// MN-major weights at the stride phase's taps (bwd_data B): row kk = (tap, k),
// B[kk][c] = w[(g*Kg + k) * F*Cg + f(tap) * Cg + c].
struct WTapGeom {
  int lin0;      // offset of the first valid tap: sum f0 * filt_inner * Cg
  int lstr[3];   // per tap digit: fs * filt_inner * Cg
  int lch;       // per k: F * Cg
};

// Packed (Cfg::kPacked, docs/packed.md): the block-diagonal weights of the
// block's groups. Row kk = (tap, k) with k < GPB * Kg (group k / Kg), column
// c < GPB * Cg (group j = c / Cg): w[(g0 * Kg + k) * F*Cg + f(tap) * Cg + c -
// j * Cg] where the two groups agree, else zero; pieces of kVecB elements
// (at most 8 bytes, == vec unless packed), which divides Cg.
template <class Cfg>
struct TapMNMajor {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileB Tile;
  static constexpr int kNdim = Cfg::kNdim, kF = 3 - kNdim;
  typedef SlotMap<Cfg::kTileK, Cfg::kTileN / Cfg::kVecB, Cfg::kThreads, false> Map;

  const T* src;
  int kg;             // packed: K/G
  int coff[Map::kP];  // -1: column outside the GEMM
  int klo[Map::kP];   // packed: the column's group's first packed k
  KCounter<kNdim + 1> ctr[Map::kKP];
  int kk[Map::kKP];

  // Column j: group g0 + j / GroupN, channel n0 + j % GroupN (of cols_per_group);
  // group g starts at g * group_stride.
  __device__ __forceinline__ void init(const T* src_, const TapGeom& tg, int g0, int ngroups, int n0,
                                       int cols_per_group, int group_stride, int k0, int tid) {
    src = src_;
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int j = Map::mnslot(tid, p) * Cfg::kVecB;
      const int gi = j / Cfg::kGroupN, n = n0 + j % Cfg::kGroupN;
      coff[p] = (n < cols_per_group && gi < ngroups) ? (g0 + gi) * group_stride + n : -1;
    }
    init_k(tg, k0, tid);
  }
  // Packed: cols, the valid columns (ngroups * Cg); ld, F * Cg.
  __device__ __forceinline__ void init_packed(const T* src_, const TapGeom& tg, int g0, int cols, int kg_, int cg,
                                              int ld, int k0, int tid) {
    src = src_;
    kg = kg_;
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int c = Map::mnslot(tid, p) * Cfg::kVecB;
      const int j = c / cg;
      klo[p] = j * kg_;
      coff[p] = c < cols ? g0 * kg_ * ld + c - j * cg : -1;
    }
    init_k(tg, k0, tid);
  }
  __device__ __forceinline__ void init_k(const TapGeom& tg, int k0, int tid) {
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      kk[q] = k0 + Map::kslot(tid, q);
      ctr[q].set(kk[q], tg.radix);
    }
  }

  __device__ __forceinline__ void load(u32 stage, const TapGeom& tg, const WTapGeom& wg, int tid) {
    CopyBatch<Cfg::kVecBBytes, Map::kKP * Map::kP> batch;
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      const bool kv = kk[q] < tg.kdim;
      const int k = ctr[q].v[3];
      int roff = wg.lin0 + k * wg.lch;
#pragma unroll
      for (int d = kF; d < 3; ++d) roff += ctr[q].v[d] * wg.lstr[d];
#pragma unroll
      for (int p = 0; p < Map::kP; ++p) {
        const int mn = Map::mnslot(tid, p);
        const bool in_tile = Map::mn_ok(mn);
        // Realign: rows k >= K/G are the channel digit's rounding (zeros).
        const bool v = kv && in_tile && coff[p] >= 0 && (!Cfg::kPacked || unsigned(k - klo[p]) < unsigned(kg)) &&
                       (!Cfg::kRealign || k < tg.cvalid);
        batch.add(q * Map::kP + p, stage + Tile::elem_offset(ks, mn * Cfg::kVecB), v ? src + (coff[p] + roff) : src, v,
                  in_tile);
      }
      kk[q] += Cfg::kTileK;
      ctr[q].step(tg.radix, tg.inc);
    }
    batch.flush();
  }
  __device__ __forceinline__ void flush() {}
};

// ---------------------------------------------------------------------------
// MN-major strided matrix with GPB groups (bwd_weight A): A^T[kk][m] =
// dy[kk * ld + (g0 + gi) * gstride + m], one sub-tile per group.
template <class Cfg>
using StridedMNSlots = SlotMap<Cfg::kTileK, Cfg::kTileM / Cfg::kVec, Cfg::kThreads, false>;
template <class Cfg>
struct StridedMNMajor : RealignState<Cfg::kRealign, StridedMNSlots<Cfg>::kP> {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileA Tile;
  typedef StridedMNSlots<Cfg> Map;

  typedef typename Select<Cfg::kRealign, RealignBatch<Map::kKP * Map::kP * Cfg::kLoadGpb>,
                          CopyBatch<Cfg::kVecBytes, Map::kKP * Map::kP * Cfg::kLoadGpb>>::type Batch;
  typedef typename Select<Cfg::kRealign, Batch, NoBatch>::type Held;

  Held held;  // realign: the stage's vectors until flush()
  const T* src;
  int ld, kdim, gstride, ngroups;
  int coff[Map::kP];  // -1: column outside the GEMM
  int kk[Map::kKP];

  __device__ __forceinline__ void init(const T* src_, int ld_, int kdim_, int g0, int gstride_, int ngroups_, int m0,
                                       int cols, int k0, int tid) {
    src = src_;
    ld = ld_;
    kdim = kdim_;
    gstride = gstride_;
    ngroups = ngroups_;
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int m = m0 + Map::mnslot(tid, p) * Cfg::kVec;
      coff[p] = m < cols ? g0 * gstride + m : -1;
      if constexpr (Cfg::kRealign)
        this->nbytes[p] = (cols - m < Cfg::kVec ? (cols - m > 0 ? cols - m : 0) : Cfg::kVec) * Cfg::kElemBytes;
    }
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) kk[q] = k0 + Map::kslot(tid, q);
  }

  __device__ __forceinline__ void load(u32 stage, int tid) {
    Batch local;
    Batch& batch = pick_batch(held, local);
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      const bool kv = kk[q] < kdim;
      const int roff = kk[q] * ld;
#pragma unroll
      for (int p = 0; p < Map::kP; ++p) {
        const int mn = Map::mnslot(tid, p);
        const bool in_tile = Map::mn_ok(mn);
        const bool v = kv && in_tile && coff[p] >= 0;
        const T* s = src + (roff + coff[p]);
        const u32 dst = stage + Tile::elem_offset(ks, mn * Cfg::kVec);
#pragma unroll
        for (int gi = 0; gi < Cfg::kLoadGpb; ++gi) {
          const bool vg = v && gi < ngroups;
          const int i = (q * Map::kP + p) * Cfg::kLoadGpb + gi;
          if constexpr (Cfg::kRealign) {
            batch.add(i, dst + gi * Tile::kBytes, reinterpret_cast<const char*>(vg ? s + gi * gstride : src),
                      vg ? this->nbytes[p] : 0, this->end, in_tile);
          } else {
            batch.add(i, dst + gi * Tile::kBytes, vg ? s + gi * gstride : src, vg, in_tile);
          }
        }
      }
      kk[q] += Cfg::kTileK;
    }
    if constexpr (!Cfg::kRealign) batch.flush();
  }
  __device__ __forceinline__ void flush() {
    if constexpr (Cfg::kRealign) held.flush();
  }
};

// ---------------------------------------------------------------------------
// MN-major gather (bwd_weight B): row kk = (n, output position), column =
// (group, tap, c); B[kk][col] = x[n, o * s - pad + f * dil, g * Cg + c].
// Columns are fixed per thread (tap coordinates in registers); rows step.
// Odd C/G (OddCgOf<Cfg>, config.cuh): the column is (tap, j) with j over
// the run p.xrun rounded up to vec (params.cuh OddCgCols: C/G, or the run
// merge's X * C, whose taps are the filter's without X), each vector is
// realigned (realign.cuh RealignColBatch) with its column's valid bytes,
// and held until flush(). Validity along W is per element (load_row_raw):
// a merged run crosses the image's edges mid-vector; a per-tap vector lies
// in one pixel, so the test comes out as the pixel's.
template <class Cfg>
using GatherMNSlots = SlotMap<Cfg::kTileK, Cfg::kTileN / Cfg::kVec, Cfg::kThreads, false>;
template <class Cfg>
using GatherMNHeld = RealignColBatch<GatherMNSlots<Cfg>::kKP * GatherMNSlots<Cfg>::kP, Cfg::kElemBytes, Cfg::kVec>;
template <class Cfg>
struct GatherMNMajor : RealignState<OddCgOf<Cfg>::value, GatherMNSlots<Cfg>::kP>,
                       HeldBatch<OddCgOf<Cfg>::value, GatherMNHeld<Cfg>> {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileB Tile;
  static constexpr int kNdim = Cfg::kNdim, kF = 3 - kNdim;
  static constexpr bool kOddCg = OddCgOf<Cfg>::value;
  typedef GatherMNSlots<Cfg> Map;

  const T* src;
  int clin[Map::kP];
  int ctc[Map::kP][3];  // odd C/G: [2] is the vector's place in its x row, less the row's pixel (ow * sw - pad) * C
  KCounter<kNdim + 1> ctr[Map::kKP];  // (n, o...) of the row
  int kk[Map::kKP];

  // Packed (one tile for the block's groups): column n is (group, tap, c),
  // the group n / (F * Cg) (operands.cuh BwdWeightOperands).
  __device__ __forceinline__ void init(const IgemmParams& p, int g0, int ngroups, int n0, int k0, int tid) {
    src = static_cast<const T*>(p.b);
#pragma unroll
    for (int s = 0; s < Map::kP; ++s) {
      const int j = Map::mnslot(tid, s) * Cfg::kVec;
      int gi = j / Cfg::kGroupN, n = n0 + j % Cfg::kGroupN;
      bool in_gemm = n < p.gemm_n;
      if constexpr (Cfg::kPacked) {
        const int fcg = p.filt_vol * p.Cg;
        gi = n / fcg;
        n -= gi * fcg;
      }
#pragma unroll
      for (int d = 0; d < 3; ++d) ctc[s][d] = 0;
      if (in_gemm && gi < ngroups) {
        // The channel digit's radix: C/G, or (odd C/G) the run rounded up to
        // vec; the run merge (xrun != C/G) has no X digit (its radix 1).
        const int run = kOddCg ? p.xrun : p.Cg;
        const int cpk = kOddCg ? (run + Cfg::kVec - 1) / Cfg::kVec * Cfg::kVec : p.Cg;
        const int c = n % cpk;
        int f = n / cpk, lin = (g0 + gi) * p.Cg + c;
        if constexpr (kOddCg) this->nbytes[s] = (run - c < Cfg::kVec ? run - c : Cfg::kVec) * Cfg::kElemBytes;
#pragma unroll
        for (int d = 2; d >= kF; --d) {
          const int radix = kOddCg && d == 2 && p.xrun != p.Cg ? 1 : p.filt[d];
          const int fd = f % radix;
          f /= radix;
          ctc[s][d] = fd * p.dil[d];
          lin += ctc[s][d] * p.in_inner[d] * p.C;
        }
        clin[s] = lin;
        if constexpr (kOddCg) ctc[s][2] = ctc[s][2] * p.C + (g0 + gi) * p.Cg + c;
      } else {
        clin[s] = 0;
        ctc[s][2] = kInvalidCoord;
        if constexpr (kOddCg) this->nbytes[s] = 0;
      }
    }
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      kk[q] = k0 + Map::kslot(tid, q);
      ctr[q].set(kk[q], p.kc_radix);
    }
  }

  __device__ __forceinline__ void load(u32 stage, const IgemmParams& p, int tid) {
    if constexpr (kOddCg) {
      this->held.stage = stage;
      load_into(this->held, stage, p, tid);  // odd C/G: held until flush()
    } else {
      CopyBatch<Cfg::kVecBytes, Map::kKP * Map::kP> batch;
      load_into(batch, stage, p, tid);
      batch.flush();
    }
  }
  template <class B>
  __device__ __forceinline__ void load_into(B& batch, u32 stage, const IgemmParams& p, int tid) {
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      const bool kv = kk[q] < p.gemm_k;
      // Counter slots: n in 3 - ndim, spatial slot d in d + 1.
      int pc[3];
      int rbase = ctr[q].v[kF] * p.in_vol * p.C;
#pragma unroll
      for (int d = kF; d < 3; ++d) {
        pc[d] = ctr[q].v[d + 1] * p.stride[d] - p.pad[d];
        rbase += pc[d] * p.in_inner[d] * p.C;
      }
#pragma unroll
      for (int s = 0; s < Map::kP; ++s) {
        const int mn = Map::mnslot(tid, s);
        const bool in_tile = Map::mn_ok(mn);
        bool v = kv && in_tile;
        // Odd C/G: W is tested per element (load_row_raw), the rest per pixel.
#pragma unroll
        for (int d = kF; d < (kOddCg ? 2 : 3); ++d) v &= unsigned(pc[d] + ctc[s][d]) < unsigned(p.in[d]);
        if constexpr (kOddCg) {
          // A column outside the GEMM has no valid bytes (init): zeros.
          batch.add(q * Map::kP + s, reinterpret_cast<const char*>(v ? src + (rbase + clin[s]) : src),
                    v ? this->nbytes[s] : 0, this->end, pc[2] * p.C + ctc[s][2], p.in[2] * p.C);
        } else {
          batch.add(q * Map::kP + s, stage + Tile::elem_offset(ks, mn * Cfg::kVec), v ? src + (rbase + clin[s]) : src,
                    v, in_tile);
        }
      }
      kk[q] += Cfg::kTileK;
      ctr[q].step(p.kc_radix, p.kc_inc);
    }
  }
  // Odd C/G: the held vectors to the stage, each with its column's valid
  // bytes, at the slot load() read it for.
  __device__ __forceinline__ void flush() {
    if constexpr (kOddCg) {
      const int tid = threadIdx.x;
#pragma unroll
      for (int q = 0; q < Map::kKP; ++q)
#pragma unroll
        for (int s = 0; s < Map::kP; ++s) {
          const int mn = Map::mnslot(tid, s);
          if (!Map::mn_ok(mn)) continue;
          const uint4 v = this->held.finish(q * Map::kP + s, this->nbytes[s]);
          dev::st_shared_v4(this->held.stage + Tile::elem_offset(Map::kslot(tid, q), mn * Cfg::kVec), v.x, v.y, v.z,
                            v.w);
        }
    }
  }
};

}  // namespace igemm
}  // namespace gconv
