// The packed igemm kernels' fwd B loader (IgemmConfig::kPacked,
// docs/packed.md): the block-diagonal weights in pieces of kVecB elements (at
// most 8 bytes), copied where the piece lies in its row's group, zero-filled
// elsewhere. bwd_data's B is TapMNMajor's packed form, the A gathers and
// bwd_weight's operands are the plain loaders (loaders.cuh).
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
  __device__ __forceinline__ void flush() {}
};


}  // namespace igemm
}  // namespace gconv
