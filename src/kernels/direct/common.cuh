// Shared pieces of the direct kernels: the instance config, index helpers,
// channel spans and the staging of pixel tiles and weights in shared memory.
//
// Thread layout (fixed by KernelTraits::threads(), src/kernels/traits.cpp):
// a block has kPix = block_h * (block_w / per_thread) pixel threads times
// kLanes channel lanes, lane fastest, so a warp's accesses to one pixel's
// channels are contiguous. Each lane holds kVec consecutive channels; a
// block's channel slab is kSlab = kLanes * kVec channels.
#pragma once

#include "direct/dtype.cuh"
#include "direct/params.cuh"

namespace gconv::direct {

template <int DT, int NDIM, int BH, int BW, int R, int VEC, int THREADS, bool DET>
struct Config {
  using T = typename Elem<DT>::type;
  static constexpr int kDT = DT;
  static constexpr int kNDim = NDIM;
  static constexpr int kBH = BH;  // 1 for 1D (the host writes the effective value)
  static constexpr int kBW = BW;
  static constexpr int kR = R;
  static constexpr int kVec = VEC;
  static constexpr int kThreads = THREADS;
  static constexpr bool kDet = DET;
  static constexpr int kColThreads = BW / R;
  static constexpr int kPix = BH * kColThreads;
  static constexpr int kLanes = THREADS / kPix;
  static constexpr int kSlab = kLanes * VEC;

  static_assert(NDIM >= 1 && NDIM <= 3, "ndim 1..3");
  static_assert(NDIM != 1 || BH == 1, "1D tiles have one row");
  static_assert(BW % R == 0, "block_w must be a multiple of per_thread");
  static_assert(THREADS % kPix == 0 && kLanes >= 1, "threads = pixel threads * lanes");
  static_assert(THREADS <= 1024, "at most 1024 threads per block");
  static_assert(VEC * sizeof(T) <= 16 && (VEC & (VEC - 1)) == 0, "vec of at most 16 bytes, a power of 2");
};

__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int round_down(int a, int m) { return a / m * m; }  // a >= 0
__device__ __forceinline__ int round_up(int a, int m) { return (a + m - 1) / m * m; }  // a >= 0
// Floor and ceiling of a / b for any sign of a, b > 0.
__device__ __forceinline__ int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
__device__ __forceinline__ int ceil_div(int a, int b) { return -floor_div(-a, b); }

// Source channels read by the destination channels [o_lo, o_hi) when
// destination channel o uses the sg source channels of group o / og, widened
// to multiples of VEC (so staging uses whole vectors). Mirrors span() in
// direct_plan.cpp, which bounds the width by the stride src_cstride.
template <int VEC>
__device__ __forceinline__ void source_span(int o_lo, int o_hi, int og, int sg, int src_total, int* s_lo, int* s_hi) {
  *s_lo = round_down(o_lo / og * sg, VEC);
  *s_hi = imin(src_total, round_up(((o_hi - 1) / og + 1) * sg, VEC));
}

// Stages a rows x cols pixel tile of a channels-last tensor (depth slice d of
// image n; sizes D, H, W, channels `ch`) into shared memory: pixel (r, c) of
// the tile takes channels [ch_lo, ch_lo + count) at dst + (r*cols + c)*cstride.
// Pixels outside the tensor read 0 (the zero padding). count % VEC == 0.
template <class Cfg>
__device__ __forceinline__ void stage_pixels(typename Cfg::T* dst, const typename Cfg::T* __restrict__ src,
                                             int n, int d, int row0, int col0, int rows, int cols,
                                             const int (&size)[3], int ch, int ch_lo, int count, int cstride) {
  constexpr int VEC = Cfg::kVec;
  using T = typename Cfg::T;
  const int nv = count / VEC;  // vectors per pixel
  const int plane = (n * size[0] + d) * size[1];
  auto one = [&](int pix, int r, int c, int v) {
    const int h = row0 + r;
    const int w = col0 + c;
    T* to = dst + pix * cstride + v * VEC;
    if (h >= 0 && h < size[1] && w >= 0 && w < size[2]) {
      copy_vec<Cfg::kDT, VEC>(to, src + ((plane + h) * size[2] + w) * ch + ch_lo + v * VEC);
    } else {
      zero_vec<Cfg::kDT, VEC>(to);
    }
  };
  const int npix = rows * cols;
  if (Cfg::kThreads % nv == 0) {
    // Common case (a full depthwise slab has nv = kLanes): each thread keeps
    // one vector slot and walks pixels without integer division.
    const int v = threadIdx.x % nv;
    const int step = Cfg::kThreads / nv;
    const int step_r = step / cols, step_c = step - step_r * cols;
    int pix = threadIdx.x / nv;
    int r = pix / cols, c = pix - r * cols;
    for (; pix < npix; pix += step) {
      one(pix, r, c, v);
      c += step_c;
      r += step_r;
      if (c >= cols) c -= cols, ++r;
    }
  } else {
    for (int e = threadIdx.x; e < npix * nv; e += Cfg::kThreads) {
      const int v = e % nv;
      const int pix = e / nv;
      const int r = pix / cols;
      one(pix, r, pix - r * cols, v);
    }
  }
}

// Filter extent of slot i as the compiler should see it: unused slots of a
// lower-dimensional instance are the constant 1.
template <int NDIM>
__device__ __forceinline__ int filt_extent(const DirectParams& p, int i) {
  return i < 3 - NDIM ? 1 : p.filt[i];
}

}  // namespace gconv::direct
