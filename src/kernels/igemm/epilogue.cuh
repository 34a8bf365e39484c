// Epilogue: accumulators -> output (dtype), or -> the fp32 split-K workspace
// (parallel: one slice per split; serial: atomics into one slice), and the
// reduce kernel that sums the slices and converts. The workspace slices use
// the output tensor's own layout, so the reduce is a flat elementwise pass.
#pragma once

#include "igemm/fixup.cuh"
#include "igemm/mainloop.cuh"

namespace gconv {
namespace igemm {

// Stores two adjacent results converted to the output dtype at out[idx],
// out[idx + 1]: one paired access when both exist and idx is even (aligned),
// else singles.
template <class Cfg>
__device__ __forceinline__ void store_pair_out(const IgemmParams& p, int idx, float v0, float v1, bool ok0, bool ok1) {
  typedef dev::Elem<Cfg::kDType> E;
  typename Cfg::T* out = static_cast<typename Cfg::T*>(p.dst);
  if (ok0 && ok1 && (idx & 1) == 0) {
    E::store2(out + idx, v0, v1);
  } else {
    if (ok0) out[idx] = E::from_f32(v0);
    if (ok1) out[idx + 1] = E::from_f32(v1);
  }
}

// Stores two horizontally adjacent results (columns nn, nn + 1) at idx, idx + 1.
// Serial split-K: `role` (fixup.cuh) when p.fixup is set, else atomics into
// the zeroed slice.
template <class Cfg>
__device__ __forceinline__ void store_pair(const IgemmParams& p, int split, int idx, float v0, float v1, bool ok0,
                                           bool ok1, int role = kFixAdd) {
  if constexpr (Cfg::kSplit == kSplitSerial) {
    if (role == kFixOnly) {
      store_pair_out<Cfg>(p, idx, v0, v1, ok0, ok1);
    } else if (ok0 && ok1 && (idx & 1) == 0) {
      red_add_v2(p.ws + idx, v0, v1);
    } else {
      if (ok0) atomicAdd(p.ws + idx, v0);
      if (ok1) atomicAdd(p.ws + idx + 1, v1);
    }
  } else if constexpr (Cfg::kSplit == kSplitNone) {
    store_pair_out<Cfg>(p, idx, v0, v1, ok0, ok1);
  } else if constexpr (Cfg::kSplit == kSplitParallel) {
    float* ws = p.ws + static_cast<long long>(split) * p.out_elems;
    if (ok0 && ok1 && (idx & 1) == 0) {
      *reinterpret_cast<float2*>(ws + idx) = make_float2(v0, v1);
    } else {
      if (ok0) ws[idx] = v0;
      if (ok1) ws[idx + 1] = v1;
    }
  }
}

// Output tile staged in shared memory for coalesced 16-byte stores: rows
// padded by 16 bytes (32 for fp32) so that fragment writes hit distinct banks,
// followed by one int per row (its output offset). Used when it fits in the
// pipeline's shared memory, for outputs written with plain stores.
template <class Cfg>
struct EpiStage {
  static constexpr bool kF32Out = Cfg::kSplit != kSplitNone || Cfg::kDType == dev::kFP32;
  static constexpr int kOutBytes = kF32Out ? 4 : 2;
  static constexpr int kVec = 16 / kOutBytes;
  static constexpr int kPitch = Cfg::kTileN * kOutBytes + (kF32Out ? 32 : 16);
  static constexpr int kRowOffBytes = Cfg::kTileM * kPitch;
  static constexpr int kBytes = kRowOffBytes + Cfg::kTileM * 4;
  // Packed bwd_weight writes only the diagonal blocks of its tile, element
  // pairs at a time (epilogue below).
  static constexpr bool kUse = Cfg::kSplit != kSplitSerial && kBytes <= Cfg::kSmemBytes &&
                               !(Cfg::kPacked && Cfg::kDir == kBwdWeight);
};

// out[row_off(m) + (g0 + gi) * col_group_stride + nn] for each accumulator,
// where column c of the tile is group gi = c / GroupN, nn = n0 + c % GroupN
// (odd C/G bwd_weight: nn's place in the filter row, params.cuh OddCgCols).
// row_off(m) is only called for m < gemm_m. The staged path reuses the
// pipeline's shared memory after a barrier; every thread must call this.
template <class Cfg, class RowOff>
__device__ __forceinline__ void epilogue(const WarpMma<Cfg>& w, const IgemmParams& p, int split, int m0, int n0,
                                         int g0, int ngroups, int gemm_m, int gemm_n, int col_group_stride,
                                         RowOff&& row_off, unsigned char* smem, int role = kFixAdd) {
  constexpr int MI = Cfg::kMI, NI = Cfg::kNI;
  constexpr bool kOddCg = OddCgOf<Cfg>::value;
  const int g = w.lane >> 2, t = w.lane & 3;
  if constexpr (EpiStage<Cfg>::kUse) {
    typedef EpiStage<Cfg> ES;
    const int tid = threadIdx.x;
    int* rows = reinterpret_cast<int*>(smem + ES::kRowOffBytes);
    __syncthreads();  // every warp is done reading the last pipeline stage
    for (int r = tid; r < Cfg::kTileM; r += Cfg::kThreads) rows[r] = m0 + r < gemm_m ? row_off(m0 + r) : -1;
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = w.warp_m * Cfg::kWarpM + i * 16 + h * 8 + g;
#pragma unroll
        for (int j = 0; j < NI; ++j) {
          const int col = w.warp_n * Cfg::kWarpN + j * 8 + 2 * t;
          unsigned char* dstp = smem + row * ES::kPitch + col * ES::kOutBytes;
          const float v0 = w.acc[i][j][2 * h], v1 = w.acc[i][j][2 * h + 1];
          if constexpr (ES::kF32Out) {
            *reinterpret_cast<float2*>(dstp) = make_float2(v0, v1);
          } else {
            dev::Elem<Cfg::kDType>::store2(reinterpret_cast<typename Cfg::T*>(dstp), v0, v1);
          }
        }
      }
    __syncthreads();
    constexpr int VPR = Cfg::kTileN / ES::kVec;  // vectors per tile row
    for (int v = tid; v < Cfg::kTileM * VPR; v += Cfg::kThreads) {
      const int row = v / VPR, col = (v % VPR) * ES::kVec;
      const int roff = rows[row];
      const int gi = col / Cfg::kGroupN, nn = n0 + col % Cfg::kGroupN;
      if (roff < 0 || gi >= ngroups || nn >= gemm_n) continue;
      // Odd C/G: the vector's offset in the filter row and its columns that
      // exist (up to its tap's end).
      int coff = nn, avail = 0;
      if constexpr (kOddCg) {
        coff = OddCgCols(p, Cfg::kVec).map(nn, avail);
        if (avail <= 0) continue;
      }
      const long long idx = static_cast<long long>(roff) + (g0 + gi) * col_group_stride + coff +
                            (Cfg::kSplit == kSplitParallel ? static_cast<long long>(split) * p.out_elems : 0);
      const uint4 val = *reinterpret_cast<const uint4*>(smem + row * ES::kPitch + col * ES::kOutBytes);
      if constexpr (ES::kF32Out) {
        float* out = Cfg::kSplit == kSplitParallel ? p.ws : static_cast<float*>(p.dst);
        if ((kOddCg ? avail >= ES::kVec : nn + ES::kVec <= gemm_n) && idx % ES::kVec == 0) {
          *reinterpret_cast<uint4*>(out + idx) = val;
        } else {
          const float* e = reinterpret_cast<const float*>(&val);
#pragma unroll
          for (int k = 0; k < ES::kVec; ++k)
            if (kOddCg ? k < avail : nn + k < gemm_n) out[idx + k] = e[k];
        }
      } else {
        typename Cfg::T* out = static_cast<typename Cfg::T*>(p.dst);
        if ((kOddCg ? avail >= ES::kVec : nn + ES::kVec <= gemm_n) && idx % ES::kVec == 0) {
          *reinterpret_cast<uint4*>(out + idx) = val;
        } else {
          const typename Cfg::T* e = reinterpret_cast<const typename Cfg::T*>(&val);
#pragma unroll
          for (int k = 0; k < ES::kVec; ++k)
            if (kOddCg ? k < avail : nn + k < gemm_n) out[idx + k] = e[k];
        }
      }
    }
  } else {
    // Packed bwd_weight: column nn is (group j, tap, c) of the block, j =
    // nn / (F * Cg); it lands at column nn - j * F * Cg of row m's filter
    // and only where j is row m's group (m / Kg). F * Cg is even (packed
    // vectors are 2 elements or wider and divide Cg), so a pair of columns
    // never spans two groups.
    // Odd C/G: a pair of columns (nn even) lies in one tap, contiguous in dw.
    constexpr bool kDiag = Cfg::kPacked && Cfg::kDir == kBwdWeight;
    const int fcg = p.filt_vol * p.Cg;
    int coff[NI], cgrp[NI];
    bool ok0[NI], ok1[NI];
#pragma unroll
    for (int j = 0; j < NI; ++j) {
      const int c = w.warp_n * Cfg::kWarpN + j * 8 + 2 * t;
      const int gi = c / Cfg::kGroupN, nn = n0 + c % Cfg::kGroupN;
      ok0[j] = gi < ngroups && nn < gemm_n;
      ok1[j] = gi < ngroups && nn + 1 < gemm_n;
      coff[j] = (g0 + gi) * col_group_stride + nn;
      if constexpr (kOddCg) {
        int avail;
        coff[j] = (g0 + gi) * col_group_stride + OddCgCols(p, Cfg::kVec).map(nn, avail);
        ok0[j] = gi < ngroups && avail >= 1;
        ok1[j] = gi < ngroups && avail >= 2;
      }
      cgrp[j] = 0;
      if constexpr (kDiag) {
        cgrp[j] = nn / fcg;
        coff[j] -= cgrp[j] * fcg;
      }
    }
#pragma unroll
    for (int i = 0; i < MI; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = m0 + w.warp_m * Cfg::kWarpM + i * 16 + h * 8 + g;
        if (m >= gemm_m) continue;
        const int roff = row_off(m);
        const int rgrp = kDiag ? m / p.Kg : 0;
#pragma unroll
        for (int j = 0; j < NI; ++j) {
          const bool diag = !kDiag || cgrp[j] == rgrp;
          store_pair<Cfg>(p, split, roff + coff[j], w.acc[i][j][2 * h], w.acc[i][j][2 * h + 1], ok0[j] && diag,
                          ok1[j] && diag, role);
        }
      }
    }
  }
}

// Split-K finish: out = dtype(sum of the workspace slices in slice order)
// (one slice for serial split-K). Grid-stride over the output; 4 elements
// per step when the element count allows 16-byte workspace reads. A thread
// loads kReduceBatch slices before it adds them (in order): a small output
// split 64 or 128 ways has few threads, and one load in flight each left the
// reduce several times slower than the splits' own sum (thirty-first session).
constexpr int kReduceBatch = 8;

__device__ __forceinline__ void add_to(float& a, float b) { a += b; }
__device__ __forceinline__ void add_to(float4& a, const float4& b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
}

// src[0] + src[slice] + ... + src[(S - 1) * slice], added in slice order,
// kReduceBatch loads in flight.
template <class V>
__device__ __forceinline__ V sum_slices(const V* src, long long slice, int S) {
  V a = src[0];
  int s = 1;
  for (; s + kReduceBatch <= S; s += kReduceBatch) {
    V b[kReduceBatch];
#pragma unroll
    for (int j = 0; j < kReduceBatch; ++j) b[j] = src[(s + j) * slice];
#pragma unroll
    for (int j = 0; j < kReduceBatch; ++j) add_to(a, b[j]);
  }
  for (; s < S; ++s) add_to(a, src[s * slice]);
  return a;
}

template <class Cfg>
__device__ __forceinline__ void igemm_reduce(const IgemmParams& p) {
  typedef dev::Elem<Cfg::kDType> E;
  typedef typename Cfg::T T;
  const int S = Cfg::kSplit == kSplitParallel ? p.splits : 1;
  const long long slice = p.out_elems;
  const float* ws = p.ws;
  T* out = static_cast<T*>(p.dst);
  const int stride = gridDim.x * blockDim.x;
  if ((p.out_elems & 3) == 0) {
    const int n4 = p.out_elems >> 2;
    const float4* ws4 = reinterpret_cast<const float4*>(ws);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
      const float4 a = sum_slices(ws4 + i, slice >> 2, S);
      E::store2(out + 4 * i, a.x, a.y);
      E::store2(out + 4 * i + 2, a.z, a.w);
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.out_elems; i += stride)
      out[i] = E::from_f32(sum_slices(ws + i, slice, S));
  }
}

}  // namespace igemm
}  // namespace gconv
