// Loaders of the packed igemm kernels' block-diagonal weights (IgemmConfig::
// kPacked, fwd and bwd_data B; docs/packed.md): pieces of kVecB elements
// (at most 8 bytes) copied where the piece lies in its row's (or column's)
// group, zero-filled elsewhere. The A gathers and bwd_weight's operands are
// the plain loaders of loaders.cuh.
#pragma once

#include "igemm/loaders.cuh"

namespace gconv {
namespace igemm {

// Packed fwd B (IgemmConfig::kPacked): the block-diagonal weights of the
// block's groups. Row n (output channel g0 * Kg + n, group j = n / Kg),
// column kk = (tap, c) with c < GPB * Cg: w[(g0 * Kg + n) * F*Cg + tap * Cg +
// c - j * Cg] when c lies in group j's channels, else zero. Pieces of kVecB
// elements (at most 8 bytes), which divides Cg, so a piece is all one or the
// other.
template <class Cfg>
struct PackedKMajorB {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileB Tile;
  typedef SlotMap<Cfg::kTileK / Cfg::kVecB, Cfg::kTileN, Cfg::kThreads, true> Map;

  const T* src;
  int kdim, cg;
  int radix[4], inc[4];  // (tap, c) counter, c in slot 3
  int roff[Map::kP];     // row offset minus the group's first channel; -1: no row
  int lo[Map::kP];       // the row's group's first packed channel
  KCounter<2> ctr[Map::kKP];
  int kk[Map::kKP];

  // rows: valid rows (ngroups * Kg); ld: F * Cg; cpk: GPB * Cg.
  __device__ __forceinline__ void init(const T* src_, int g0, int rows, int kg, int cg_, int ld, int cpk, int kdim_,
                                       int k0, int tid) {
    src = src_;
    kdim = kdim_;
    cg = cg_;
    radix[0] = radix[1] = radix[2] = 1;
    radix[3] = cpk;
    counter_increment(2, radix, Cfg::kTileK, inc);
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int n = Map::mnslot(tid, p);
      const int j = n / kg;
      lo[p] = j * cg;
      roff[p] = n < rows ? (g0 * kg + n) * ld - lo[p] : -1;
    }
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      kk[q] = k0 + Map::kslot(tid, q) * Cfg::kVecB;
      ctr[q].set(kk[q], radix);
    }
  }

  __device__ __forceinline__ void load(u32 stage, int tid) {
    CopyBatch<Cfg::kVecBBytes, Map::kKP * Map::kP> batch;
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      const bool kv = kk[q] < kdim;
      const int c = ctr[q].v[3], koff = ctr[q].v[2] * cg + c;
#pragma unroll
      for (int p = 0; p < Map::kP; ++p) {
        const int j = Map::mnslot(tid, p);
        const bool in_tile = Map::mn_ok(j);
        const bool v = kv && in_tile && roff[p] >= 0 && unsigned(c - lo[p]) < unsigned(cg);
        batch.add(q * Map::kP + p, stage + Tile::elem_offset(j, ks * Cfg::kVecB), v ? src + (roff[p] + koff) : src, v,
                  in_tile);
      }
      kk[q] += Cfg::kTileK;
      ctr[q].step(radix, inc);
    }
    batch.flush();
  }
};

// ---------------------------------------------------------------------------
// Packed bwd_data B: the block-diagonal weights at the phase's taps. Row kk
// = (tap, k) with k < GPB * Kg (group k / Kg), column c < GPB * Cg (group j =
// c / Cg): w[(g0 * Kg + k) * F*Cg + f(tap) * Cg + c - j * Cg] when the two
// groups agree, else zero.
template <class Cfg>
struct PackedTapMNMajor {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileB Tile;
  static constexpr int kNdim = Cfg::kNdim, kF = 3 - kNdim;
  typedef SlotMap<Cfg::kTileK, Cfg::kTileN / Cfg::kVecB, Cfg::kThreads, false> Map;

  const T* src;
  int kg;
  int coff[Map::kP];  // -1: column outside the GEMM
  int klo[Map::kP];   // the column's group's first packed k
  KCounter<kNdim + 1> ctr[Map::kKP];
  int kk[Map::kKP];

  // cols: valid columns (ngroups * Cg); ld: F * Cg.
  __device__ __forceinline__ void init(const T* src_, const TapGeom& tg, int g0, int cols, int kg_, int cg, int ld,
                                       int k0, int tid) {
    src = src_;
    kg = kg_;
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int c = Map::mnslot(tid, p) * Cfg::kVecB;
      const int j = c / cg;
      klo[p] = j * kg_;
      coff[p] = c < cols ? g0 * kg_ * ld + c - j * cg : -1;
    }
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
        const bool v = kv && in_tile && coff[p] >= 0 && unsigned(k - klo[p]) < unsigned(kg);
        batch.add(q * Map::kP + p, stage + Tile::elem_offset(ks, mn * Cfg::kVecB), v ? src + (coff[p] + roff) : src, v,
                  in_tile);
      }
      kk[q] += Cfg::kTileK;
      ctr[q].step(tg.radix, tg.inc);
    }
    batch.flush();
  }
};

}  // namespace igemm
}  // namespace gconv
