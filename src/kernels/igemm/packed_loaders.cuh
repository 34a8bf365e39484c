// The fwd B loader that walks K as (tap, channel) instead of a row's linear
// offset, for the packed kernels (docs/packed.md; bwd_data's packed B is
// TapMNMajor's packed form, the A gathers and bwd_weight's operands are the
// plain loaders, loaders.cuh) and the realigned kernels (docs/realign.md).
#pragma once

#include "igemm/loaders.cuh"

namespace gconv {
namespace igemm {

// fwd B walked as (tap, channel) by a counter of its own, for the packed and
// the realigned kernels (the plain kernels walk a row's linear offset:
// StridedKMajor). Row n is output channel g0 * Kg + n; column kk = (tap, c)
// reads w[(g0 * Kg + n) * F*Cg + tap * Cg + c - lo], zeros elsewhere:
// - packed (IgemmConfig::kPacked): the block-diagonal weights of the
//   block's groups, c < GPB * Cg, lo the row's group's first packed channel
//   (j * Cg, j = n / Kg), zeros off the group; pieces of kVecB elements (at
//   most 8 bytes), which divides Cg, so a piece is all in or all out;
// - realigned (IgemmConfig::kRealign, odd C/G): one group, c runs over C/G
//   rounded up to vec (the A gather's counter), zeros for c >= C/G; rows
//   start at any element offset (F*Cg is odd), so every vector is realigned
//   (realign.cuh) and held until flush().
template <class Cfg>
struct TapKMajorB : RealignState<Cfg::kRealign, 1> {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileB Tile;
  typedef SlotMap<Cfg::kTileK / Cfg::kVecB, Cfg::kTileN, Cfg::kThreads, true> Map;
  typedef typename Select<Cfg::kRealign, RealignBatch<Map::kKP * Map::kP>, NoBatch>::type Held;

  Held held;
  const T* src;
  int kdim, cg;
  int radix[4], inc[4];                 // (tap, c) counter, c in slot 3
  int roff[Map::kP];                    // row offset minus lo; -1: no row
  int lo[Cfg::kPacked ? Map::kP : 1];   // packed: the row's group's first packed channel
  KCounter<2> ctr[Map::kKP];
  int kk[Map::kKP];

  // rows: valid rows (packed: ngroups * Kg, the block's one N tile, n0 = 0;
  // realign: Kg); ld: F * Cg; cpk: the channel digit's radix (packed: GPB *
  // Cg; realign: Cg rounded up to vec); kdim: F * cpk; end: one past the
  // weights (realign).
  __device__ __forceinline__ void init(const T* src_, const T* end_, int g0, int n0, int rows, int kg, int cg_, int ld,
                                       int cpk, int kdim_, int k0, int tid) {
    src = src_;
    if constexpr (Cfg::kRealign) this->end = reinterpret_cast<const char*>(end_);
    kdim = kdim_;
    cg = cg_;
    radix[0] = radix[1] = radix[2] = 1;
    radix[3] = cpk;
    counter_increment(2, radix, Cfg::kTileK, inc);
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      if constexpr (Cfg::kPacked) {
        const int n = Map::mnslot(tid, p);
        const int j = n / kg;
        lo[p] = j * cg;
        roff[p] = n < rows ? (g0 * kg + n) * ld - lo[p] : -1;
      } else {
        const int n = n0 + Map::mnslot(tid, p);
        roff[p] = n < rows ? (g0 * kg + n) * ld : -1;
      }
    }
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      kk[q] = k0 + Map::kslot(tid, q) * Cfg::kVecB;
      ctr[q].set(kk[q], radix);
    }
  }

  __device__ __forceinline__ void load(u32 stage, int tid) {
    CopyBatch<Cfg::kVecBBytes, Map::kKP * Map::kP> batch;  // packed
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      const bool kv = kk[q] < kdim;
      const int c = ctr[q].v[3], koff = ctr[q].v[2] * cg + c;
      if constexpr (Cfg::kRealign) {
        int nb = cg - c;
        nb = kv ? (nb < Cfg::kVec ? (nb > 0 ? nb : 0) : Cfg::kVec) * Cfg::kElemBytes : 0;
#pragma unroll
        for (int p = 0; p < Map::kP; ++p) {
          const int j = Map::mnslot(tid, p);
          const bool in_tile = Map::mn_ok(j);
          const bool v = in_tile && roff[p] >= 0 && nb > 0;
          held.add(q * Map::kP + p, stage + Tile::elem_offset(j, ks * Cfg::kVec),
                   reinterpret_cast<const char*>(v ? src + (roff[p] + koff) : src), v ? nb : 0, this->end, in_tile);
        }
      } else {
#pragma unroll
        for (int p = 0; p < Map::kP; ++p) {
          const int j = Map::mnslot(tid, p);
          const bool in_tile = Map::mn_ok(j);
          const bool v = kv && in_tile && roff[p] >= 0 && unsigned(c - lo[p]) < unsigned(cg);
          batch.add(q * Map::kP + p, stage + Tile::elem_offset(j, ks * Cfg::kVecB), v ? src + (roff[p] + koff) : src,
                    v, in_tile);
        }
      }
      kk[q] += Cfg::kTileK;
      ctr[q].step(radix, inc);
    }
    if constexpr (!Cfg::kRealign) batch.flush();
  }
  __device__ __forceinline__ void flush() {
    if constexpr (Cfg::kRealign) held.flush();
  }
};

}  // namespace igemm
}  // namespace gconv
