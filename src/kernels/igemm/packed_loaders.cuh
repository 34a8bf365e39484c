// The fwd B loaders that walk K as (tap, channel) instead of a row's linear
// offset: the packed kernels' (IgemmConfig::kPacked, docs/packed.md): the
// block-diagonal weights in pieces of kVecB elements (at most 8 bytes),
// copied where the piece lies in its row's group, zero-filled elsewhere
// (bwd_data's B is TapMNMajor's packed form, the A gathers and bwd_weight's
// operands are the plain loaders, loaders.cuh); and the realigned kernels'
// (IgemmConfig::kRealign), whose channel digit is rounded up to the vector.
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

// Realigned fwd B (IgemmConfig::kRealign, odd C/G): the weights of output
// channel n of group g0, K-major along (tap, c) with c running over C/G
// rounded up to vec (the A gather's counter): w[(g0 * Kg + n) * F*Cg + tap *
// Cg + c], zeros for c >= C/G. Rows start at any element offset (F*Cg is
// odd), so every vector is realigned (realign.cuh), held until flush().
template <class Cfg>
struct RealignKMajorB {
  typedef typename Cfg::T T;
  typedef typename Cfg::TileB Tile;
  typedef SlotMap<Cfg::kTileK / Cfg::kVec, Cfg::kTileN, Cfg::kThreads, true> Map;

  RealignBatch<Map::kKP * Map::kP> held;
  const T* src;
  const char* end;  // one past the weights
  int kdim, cg;
  int radix[4], inc[4];  // (tap, c) counter, c in slot 3
  int roff[Map::kP];     // -1: no row
  KCounter<2> ctr[Map::kKP];
  int kk[Map::kKP];

  // ld: F * Cg; cpad: Cg rounded up to vec; kdim: F * cpad.
  __device__ __forceinline__ void init(const T* src_, const T* end_, int g0, int n0, int kg, int ld, int cg_, int cpad,
                                       int kdim_, int k0, int tid) {
    src = src_;
    end = reinterpret_cast<const char*>(end_);
    kdim = kdim_;
    cg = cg_;
    radix[0] = radix[1] = radix[2] = 1;
    radix[3] = cpad;
    counter_increment(2, radix, Cfg::kTileK, inc);
#pragma unroll
    for (int p = 0; p < Map::kP; ++p) {
      const int n = n0 + Map::mnslot(tid, p);
      roff[p] = n < kg ? (g0 * kg + n) * ld : -1;
    }
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      kk[q] = k0 + Map::kslot(tid, q) * Cfg::kVec;
      ctr[q].set(kk[q], radix);
    }
  }

  __device__ __forceinline__ void load(u32 stage, int tid) {
#pragma unroll
    for (int q = 0; q < Map::kKP; ++q) {
      const int ks = Map::kslot(tid, q);
      const int c = ctr[q].v[3], koff = ctr[q].v[2] * cg + c;
      int nb = cg - c;
      nb = kk[q] < kdim ? (nb < Cfg::kVec ? (nb > 0 ? nb : 0) : Cfg::kVec) * Cfg::kElemBytes : 0;
#pragma unroll
      for (int p = 0; p < Map::kP; ++p) {
        const int j = Map::mnslot(tid, p);
        const bool in_tile = Map::mn_ok(j);
        const bool v = in_tile && roff[p] >= 0 && nb > 0;
        held.add(q * Map::kP + p, stage + Tile::elem_offset(j, ks * Cfg::kVec),
                 reinterpret_cast<const char*>(v ? src + (roff[p] + koff) : src), v ? nb : 0, end, in_tile);
      }
      kk[q] += Cfg::kTileK;
      ctr[q].step(radix, inc);
    }
  }
  __device__ __forceinline__ void flush() { held.flush(); }
};

}  // namespace igemm
}  // namespace gconv
