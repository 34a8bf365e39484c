// Serial split-K in one launch (IgemmParams::fixup): the splits of an output
// tile meet in the fp32 workspace slice without a memset before the kernel
// or a convert kernel after it.
//
// Each output tile owns three 64-bit words after the slice: a tag, a ready
// word and a count. The launch carries a 64-bit epoch that is unique per
// launch (igemm::next_epoch on the host), so words left in a reused
// workspace by anything else never equal it, and a CUDA graph that replays
// one launch finds the words reset by the previous replay.
//   1. Before its mainloop a split swaps the epoch into the tag
//      (atomicExch). The one that finds another value started first: it
//      zeroes the tile's part of the slice, sets count = 0 and publishes
//      ready = epoch (release), then runs its mainloop like the others.
//   2. After its mainloop every split waits for ready == epoch (acquire;
//      the zeroing happened while it ran its mainloop, so it rarely waits),
//      adds its partial (red.global.add) and increments the count; the split
//      whose increment reaches the number of splits with work is the last:
//      it reads the summed tile back (L2, ld.global.cg), converts it into
//      the output and zeroes the tag and ready words.
// A split only waits for the one that zeroes, which already holds an SM and
// waits for nobody: no assumption on how blocks are scheduled, so it is
// safe on the persistent grid and on grids larger than one wave. A tile
// with one working split stores its output directly (kFixOnly).
// (A first design had the first split to finish store its partial and the
// others wait for it: that wait sat on the critical path and made the one
// launch slower than memset + kernel + reduce; measured on an H200.)
// The adds are unordered fp32 atomics: results vary in the last bits from
// run to run (cluster and parallel split-K are the deterministic modes).
//
// Parallel split-K in one launch uses the same words without the zeroing,
// all after the mainloop: each split stores its partial into its own slice
// (plain stores), swaps the epoch into the tag (the first to do so resets
// the count and publishes ready), waits for ready, counts itself, and the
// last one sums the slices of the tile in split order (so the result does
// not depend on which split finished last: bit for bit the reduce kernel's
// sum) and converts. The wait is for a split that already swapped and is
// running: no scheduling assumption either.
#pragma once

#include "common/fixup.cuh"
#include "common/types.cuh"
#include "igemm/params.cuh"

namespace gconv {
namespace igemm {

using dev::u64;
using dev::fixup_begin;
using dev::fixup_arrive_slices;
using dev::fixup_count;
using dev::fixup_publish;
using dev::fixup_reset;
using dev::fixup_wait_ready;

// kFixOnly: the tile's one working split stores the output; kFixAdd: adds.
enum FixupRole { kFixOnly = 0, kFixAdd = 1 };

__device__ __forceinline__ u64* fixup_words(const IgemmParams& p, int out_tile) {
  return p.flags + static_cast<long long>(dev::kFixupWords) * out_tile;
}

// Splits of split_range's partition that get at least one K tile.
__device__ __forceinline__ int active_splits(int gemm_k, int tile_k, int splits) {
  const int ktiles = (gemm_k + tile_k - 1) / tile_k;
  if (ktiles <= 0) return 0;
  const int per = (ktiles + splits - 1) / splits;
  return (ktiles + per - 1) / per;
}

// Adds two adjacent floats (8-byte aligned) as one reduction.
__device__ __forceinline__ void red_add_v2(float* addr, float a, float b) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(addr), "f"(a), "f"(b) : "memory");
}

// One pass over the in-GEMM elements of an output tile, rows [m0, m0 +
// rows) and tile columns [0, cols), threads tid, tid + nthreads, ...:
// ZERO: ws = 0 (the first split, before its mainloop); else out = dtype(the
// sum of `slices` slices of out_elems floats, in slice order) (the last
// split; serial split-K has one slice).
// col_off(c, &ok) maps a tile column to its offset from the row's offset
// (group and column; ok false outside the GEMM); group_cols is the columns
// of one group (contiguous in memory; 4-column vectors need a multiple of 4).
// One block reads the whole tile back from L2, so each thread issues
// kFixBatch 16-byte loads before it stores any: one round trip per batch
// instead of one per vector (measured: the unbatched pass made the one-launch
// kernels slower than memset + kernel + reduce).
// Parallel split-K's sum over the slices holds the batch's sums across
// every slice's loads: half the batch keeps the mma.sync kernels within
// their launch bounds' registers (ptxas spilled with 8).
constexpr int kFixBatch = 8, kFixSumBatch = 4;

// pair_ok(m, c): whether the tile's element (m, c) is an output element at
// all (packed bwd_weight writes only its diagonal blocks; group_cols is then
// the block-diagonal's column period, F * Cg, so that a 4-column vector of
// one group is all in or all out).
template <int DT, bool ZERO, int B = kFixBatch, class RowOff, class ColOff, class PairOk>
__device__ __forceinline__ void fixup_pass(const IgemmParams& p, int m0, int rows, int gemm_m, int cols,
                                              int group_cols, RowOff&& row_off, ColOff&& col_off, PairOk&& pair_ok,
                                              int tid, int nthreads, int slices = 1) {
  typedef dev::Elem<DT> E;
  typedef typename E::T T;
  T* out = static_cast<T*>(p.dst);
  const int vpr = cols / 4;  // 4-column vectors per row (cols is a multiple of 4)
  const int total = rows * vpr;
  const bool vec_slices = slices == 1 || p.out_elems % 4 == 0;
  for (int v0 = tid; v0 < total; v0 += B * nthreads) {
    float4 s[B];
    int at[B];  // element offsets fit int32 (params.cuh)
    int kind[B];  // 0: nothing, 1: a whole vector loaded into s, 2: element by element
#pragma unroll
    for (int j = 0; j < B; ++j) {
      const int v = v0 + j * nthreads;
      const int m = m0 + v / vpr, c = (v % vpr) * 4;
      kind[j] = 0;
      at[j] = 0;
      s[j] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (v < total && m < gemm_m) {
        bool ok0, ok3;  // ok0 only fills the out-parameter: a column past the GEMM may start a group
        at[j] = row_off(m) + col_off(c, ok0);
        col_off(c + 3, ok3);
        // 2: a tail or a group boundary (element by element, each pair_ok'd);
        // a whole vector lies in one group, so pair_ok(m, c) speaks for it.
        // Slice sl starts sl * out_elems floats in: with out_elems off 4 its
        // vectors are off 16 bytes (an output of 26 elements, N = 1, 1x1).
        kind[j] = group_cols % 4 == 0 && ok3 && at[j] % 4 == 0 && vec_slices ? (pair_ok(m, c) ? 1 : 0) : 2;
      }
      if (!ZERO && kind[j] == 1) s[j] = __ldcg(reinterpret_cast<const float4*>(p.ws + at[j]));
    }
    if (!ZERO) {
      // The other slices, in order: a batch of loads per slice in flight.
      for (int sl = 1; sl < slices; ++sl) {
        const float* ws = p.ws + static_cast<long long>(sl) * p.out_elems;
#pragma unroll
        for (int j = 0; j < B; ++j) {
          if (kind[j] != 1) continue;
          const float4 b = __ldcg(reinterpret_cast<const float4*>(ws + at[j]));
          s[j].x += b.x;
          s[j].y += b.y;
          s[j].z += b.z;
          s[j].w += b.w;
        }
      }
    }
#pragma unroll
    for (int j = 0; j < B; ++j) {
      if (kind[j] == 1) {
        if (ZERO) {
          *reinterpret_cast<float4*>(p.ws + at[j]) = make_float4(0.f, 0.f, 0.f, 0.f);
        } else {
          E::store2(out + at[j], s[j].x, s[j].y);
          E::store2(out + at[j] + 2, s[j].z, s[j].w);
        }
      } else if (kind[j] == 2) {
        const int v = v0 + j * nthreads;
        const int m = m0 + v / vpr, c = (v % vpr) * 4;
        const int roff = row_off(m);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          bool ok;
          const int idx = roff + col_off(c + k, ok);
          if (!ok || !pair_ok(m, c + k)) continue;
          if (ZERO) {
            p.ws[idx] = 0.f;
          } else {
            float a = __ldcg(p.ws + idx);
            for (int sl = 1; sl < slices; ++sl) a += __ldcg(p.ws + static_cast<long long>(sl) * p.out_elems + idx);
            out[idx] = E::from_f32(a);
          }
        }
      }
    }
  }
}

template <int DT, bool ZERO, int B = kFixBatch, class RowOff, class ColOff>
__device__ __forceinline__ void fixup_pass(const IgemmParams& p, int m0, int rows, int gemm_m, int cols,
                                              int group_cols, RowOff&& row_off, ColOff&& col_off, int tid,
                                              int nthreads, int slices = 1) {
  fixup_pass<DT, ZERO, B>(p, m0, rows, gemm_m, cols, group_cols, row_off, col_off, [](int, int) { return true; }, tid,
                       nthreads, slices);
}

}  // namespace igemm
}  // namespace gconv
