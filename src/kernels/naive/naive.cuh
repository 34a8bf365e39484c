// Naive convolution kernels: correct for every valid problem, direction,
// dtype and dimension, and not fast. They are the fallback for problems no
// other family implements and the GPU reference of the GPU tests, so each is
// a plain transcription of the CPU reference's definition
// (src/reference/reference.cpp, contract in gconv/reference.hpp):
//
//   fwd        : one thread per y element   y[n,o,k]   = sum_{t,c} x[n, o*s - pad + t*dil, g*Cg+c] * w[k,t,c]
//   bwd_data   : one thread per dx element  dx[n,i,c]  = sum over (t, kq) with o = (i + pad - t*dil)/s
//                                           a valid output position of dy[n,o,g*Kg+kq] * w[g*Kg+kq,t,c%Cg]
//   bwd_weight : one warp per dw element    dw[k,t,c]  = sum_{n,o} dy[n,o,k] * x[n, o*s - pad + t*dil, g*Cg+c]
//
// Products of two inputs are exact in fp64 and sums are fp64, rounded once to
// the output dtype (as the reference does), so results match the reference
// up to the order of fp64 additions. Input positions outside the tensor read 0.
#pragma once

#include "direct/dtype.cuh"
#include "naive/params.cuh"

namespace gconv::naive {

using gconv::direct::Elem;
using gconv::direct::from_f64;
using gconv::direct::to_f32;

enum DirId : int { kFwd = 0, kBwdData = 1, kBwdWeight = 2 };  // same order as gconv::Direction

template <int DT>
__device__ __forceinline__ double ld(const void* base, long long i) {
  return static_cast<double>(to_f32<DT>(static_cast<const typename Elem<DT>::type*>(base)[i]));
}

// Offsets of channels-last elements (first channel of a pixel / tap).
__device__ __forceinline__ long long x_at(const NaiveParams& p, long long b, long long d, long long h, long long w) {
  return (((b * p.in[0] + d) * p.in[1] + h) * p.in[2] + w) * p.c;
}
__device__ __forceinline__ long long y_at(const NaiveParams& p, long long b, long long d, long long h, long long w) {
  return (((b * p.out_size[0] + d) * p.out_size[1] + h) * p.out_size[2] + w) * p.k;
}
__device__ __forceinline__ long long w_at(const NaiveParams& p, long long kk, long long z, long long y, long long x) {
  return (((kk * p.filt[0] + z) * p.filt[1] + y) * p.filt[2] + x) * p.cg;
}
// Input position read by output position o through tap t in slot i.
__device__ __forceinline__ long long in_pos(const NaiveParams& p, int i, long long o, long long t) {
  return o * p.stride[i] - p.pad[i] + t * p.dil[i];
}
// Output position that reads input position pos through tap t in slot i, or -1.
__device__ __forceinline__ long long out_pos(const NaiveParams& p, int i, long long pos, long long t) {
  const long long num = pos + p.pad[i] - t * p.dil[i];
  if (num < 0 || num % p.stride[i] != 0) return -1;
  const long long o = num / p.stride[i];
  return o < p.out_size[i] ? o : -1;
}

template <int DT, int NDIM>
__device__ void fwd(const NaiveParams& p) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.total) return;
  long long r = idx;  // y is N, Do, Ho, Wo, K
  const long long kk = r % p.k;
  r /= p.k;
  const long long ow = r % p.out_size[2];
  r /= p.out_size[2];
  const long long oh = r % p.out_size[1];
  r /= p.out_size[1];
  const long long od = r % p.out_size[0];
  const long long b = r / p.out_size[0];
  const long long grp = kk / p.kg;
  double acc = 0;
  for (long long tz = 0; tz < (NDIM == 3 ? p.filt[0] : 1); ++tz) {
    const long long id = in_pos(p, 0, od, tz);
    if (id < 0 || id >= p.in[0]) continue;
    for (long long ty = 0; ty < (NDIM >= 2 ? p.filt[1] : 1); ++ty) {
      const long long ih = in_pos(p, 1, oh, ty);
      if (ih < 0 || ih >= p.in[1]) continue;
      for (long long tx = 0; tx < p.filt[2]; ++tx) {
        const long long iw = in_pos(p, 2, ow, tx);
        if (iw < 0 || iw >= p.in[2]) continue;
        const long long xo = x_at(p, b, id, ih, iw) + grp * p.cg;
        const long long wo = w_at(p, kk, tz, ty, tx);
        for (long long c = 0; c < p.cg; ++c) acc += ld<DT>(p.a, xo + c) * ld<DT>(p.b, wo + c);
      }
    }
  }
  static_cast<typename Elem<DT>::type*>(p.out)[idx] = from_f64<DT>(acc);
}

template <int DT, int NDIM>
__device__ void bwd_data(const NaiveParams& p) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.total) return;
  long long r = idx;  // dx is N, D, H, W, C
  const long long c = r % p.c;
  r /= p.c;
  const long long iw = r % p.in[2];
  r /= p.in[2];
  const long long ih = r % p.in[1];
  r /= p.in[1];
  const long long id = r % p.in[0];
  const long long b = r / p.in[0];
  const long long grp = c / p.cg, ci = c % p.cg;
  double acc = 0;
  for (long long tz = 0; tz < (NDIM == 3 ? p.filt[0] : 1); ++tz) {
    const long long od = out_pos(p, 0, id, tz);
    if (od < 0) continue;
    for (long long ty = 0; ty < (NDIM >= 2 ? p.filt[1] : 1); ++ty) {
      const long long oh = out_pos(p, 1, ih, ty);
      if (oh < 0) continue;
      for (long long tx = 0; tx < p.filt[2]; ++tx) {
        const long long ow = out_pos(p, 2, iw, tx);
        if (ow < 0) continue;
        const long long yo = y_at(p, b, od, oh, ow);
        for (long long kq = 0; kq < p.kg; ++kq) {
          const long long kk = grp * p.kg + kq;
          acc += ld<DT>(p.a, yo + kk) * ld<DT>(p.b, w_at(p, kk, tz, ty, tx) + ci);
        }
      }
    }
  }
  static_cast<typename Elem<DT>::type*>(p.out)[idx] = from_f64<DT>(acc);
}

// One warp per dw element: lanes take every 32nd output pixel, then a
// shuffle tree adds the 32 partial sums (a fixed order: deterministic).
template <int DT, int NDIM>
__device__ void bwd_weight(const NaiveParams& p) {
  const long long idx = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (idx >= p.total) return;  // whole warps: blockDim is a multiple of 32
  long long r = idx;  // dw is K, Z, Y, X, Cg
  const long long ci = r % p.cg;
  r /= p.cg;
  const long long tx = r % p.filt[2];
  r /= p.filt[2];
  const long long ty = r % p.filt[1];
  r /= p.filt[1];
  const long long tz = r % p.filt[0];
  const long long kk = r / p.filt[0];
  const long long grp = kk / p.kg;
  const long long pixels = p.n * p.out_size[0] * p.out_size[1] * p.out_size[2];
  double acc = 0;
  for (long long m = lane; m < pixels; m += 32) {
    long long q = m;
    const long long ow = q % p.out_size[2];
    q /= p.out_size[2];
    const long long oh = q % p.out_size[1];
    q /= p.out_size[1];
    const long long od = q % p.out_size[0];
    const long long b = q / p.out_size[0];
    const long long id = in_pos(p, 0, od, tz), ih = in_pos(p, 1, oh, ty), iw = in_pos(p, 2, ow, tx);
    if (id < 0 || id >= p.in[0] || ih < 0 || ih >= p.in[1] || iw < 0 || iw >= p.in[2]) continue;
    acc += ld<DT>(p.b, y_at(p, b, od, oh, ow) + kk) * ld<DT>(p.a, x_at(p, b, id, ih, iw) + grp * p.cg + ci);
  }
  for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) static_cast<typename Elem<DT>::type*>(p.out)[idx] = from_f64<DT>(acc);
}

template <int DT, int NDIM, int DIR>
__device__ __forceinline__ void run(const NaiveParams& p) {
  static_assert(NDIM >= 1 && NDIM <= 3, "ndim 1..3");
  if constexpr (DIR == kFwd) {
    fwd<DT, NDIM>(p);
  } else if constexpr (DIR == kBwdData) {
    bwd_data<DT, NDIM>(p);
  } else {
    bwd_weight<DT, NDIM>(p);
  }
}

}  // namespace gconv::naive
