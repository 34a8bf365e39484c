// Register-window depthwise kernels of the direct family (Cg = Kg = 1): the
// filter width FX and the W stride SX are compile-time, so a thread's R
// outputs along W and the (R-1)*SX + FX source pixels they read form a
// window held in registers. Each source vector is loaded once per (thread,
// filter row) and feeds up to FX FMAs; the tile kernels (gather.cuh) load one
// source vector per tap per output from shared memory, which makes them
// bound by shared-memory bandwidth at a fraction of the FMA rate.
//
// fwd / bwd_data (stride 1, flipped filter) : window_gather
//   thread = (channel vector `lane`, item `slot`); an item is R consecutive
//   outputs of one destination row. Weights of the block's channel slab sit
//   in shared memory as fp32 [tap][slab] and are read one filter row (FX
//   vectors) at a time. No source staging, no __syncthreads after the
//   weights: source rows are read through L1 (ld.global.nc), where the FY
//   rows a thread revisits and the neighbouring items' halos hit.
//
// bwd_weight : window_wgrad.cuh (all taps of a channel vector in registers,
//   dy rows streamed through shared memory, reduced inside the launch).
// fwd / bwd_data as such a row stream: window_stream.cuh (opt-in).
#pragma once

#include "direct/common.cuh"

namespace gconv::direct {

template <int DT, int VEC, int R, int THREADS, int FX, int SX>
struct WinConfig {
  using T = typename Elem<DT>::type;
  static constexpr int kDT = DT, kVec = VEC, kR = R, kThreads = THREADS, kFX = FX, kSX = SX;
  static constexpr int kWin = (R - 1) * SX + FX;  // source pixels of R outputs
  static_assert(FX >= 1 && SX >= 1 && R >= 1, "positive window");
};

// VEC channels of one pixel through the read-only path: 16-byte vectors are
// the common case, narrower ones for odd channel counts.
template <int DT, int VEC>
__device__ __forceinline__ void ldg_vec(const typename Elem<DT>::type* src, float (&out)[VEC]) {
  using E = typename Elem<DT>::type;
  constexpr int kBytes = VEC * static_cast<int>(sizeof(E));
  if constexpr (kBytes == 16) {
    unsigned w[4];
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "l"(src));
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      if constexpr (sizeof(E) == 2) {
        out[i] = to_f32<DT>(static_cast<unsigned short>((w[i / 2] >> (16 * (i % 2))) & 0xffffu));
      } else {
        out[i] = __uint_as_float(w[i]);
      }
    }
  } else {
    load_vec<DT, VEC>(src, out);
  }
}

// VEC channels as raw 32-bit words (VEC * element bytes is 4, 8 or 16), and
// their conversion (window_wgrad.cuh reads staged pixels this way).
template <int DT, int VEC>
struct Words {
  static constexpr int kN = VEC * static_cast<int>(sizeof(typename Elem<DT>::type)) / 4;
  static_assert(kN == 1 || kN == 2 || kN == 4, "4, 8 or 16 bytes");
  unsigned w[kN];
};
template <int DT, int VEC>
__device__ __forceinline__ void unpack(const Words<DT, VEC>& in, float (&out)[VEC]) {
#pragma unroll
  for (int i = 0; i < VEC; ++i) {
    if constexpr (sizeof(typename Elem<DT>::type) == 2) {
      out[i] = to_f32<DT>(static_cast<unsigned short>((in.w[i / 2] >> (16 * (i % 2))) & 0xffffu));
    } else {
      out[i] = __uint_as_float(in.w[i]);
    }
  }
}

// VEC channels of one staged pixel as raw words.
template <int DT, int VEC>
__device__ __forceinline__ void lds_words(const typename Elem<DT>::type* src, Words<DT, VEC>& out) {
  constexpr int N = Words<DT, VEC>::kN;
  if constexpr (N == 4) {
    const uint4 v = *reinterpret_cast<const uint4*>(src);
    out.w[0] = v.x, out.w[1] = v.y, out.w[2] = v.z, out.w[3] = v.w;
  } else if constexpr (N == 2) {
    const uint2 v = *reinterpret_cast<const uint2*>(src);
    out.w[0] = v.x, out.w[1] = v.y;
  } else {
    out.w[0] = *reinterpret_cast<const unsigned*>(src);
  }
}

// VEC channels of one staged pixel as fp32.
template <int DT, int VEC>
__device__ __forceinline__ void lds_vec(const typename Elem<DT>::type* src, float (&out)[VEC]) {
  Words<DT, VEC> w;
  lds_words<DT, VEC>(src, w);
  unpack<DT, VEC>(w, out);
}

// Output r of a thread's R reads window pixel r*SX + fx: f(r, fx) for every
// pair with r*SX + fx == i, resolved at compile time once i is unrolled.
template <int R, int FX, int SX, class F>
__device__ __forceinline__ void window_taps(int i, const F& f) {
#pragma unroll
  for (int fx = 0; fx < FX; ++fx) {
    if ((i - fx) % SX != 0) continue;
    const int r = (i - fx) / SX;
    if (r < 0 || r >= R) continue;
    f(r, fx);
  }
}

// Zeroed fp32 sums (accumulators, or a window of zero padding).
template <int A, int B>
__device__ __forceinline__ void zero(float (&a)[A][B]) {
#pragma unroll
  for (int i = 0; i < A; ++i)
#pragma unroll
    for (int j = 0; j < B; ++j) a[i][j] = 0.f;
}

// Weights of channels [c_lo, c_lo + slab) as fp32 ws[tap * slab + ch], taps
// in (z, y, x) order, reversed for bwd_data (the flipped filter). Channels
// past C read 0. w is (C, Z, Y, X) for depthwise (K = C, Cg = 1).
template <int DT>
__device__ __forceinline__ void stage_weights(float* ws, const typename Elem<DT>::type* __restrict__ w, int c_lo,
                                              int slab, int c_total, int taps, bool flip) {
  for (int e = threadIdx.x; e < taps * slab; e += blockDim.x) {
    const int ch = e % slab;
    const int tap = e / slab;
    const int c = c_lo + ch;
    const int src_tap = flip ? taps - 1 - tap : tap;
    ws[e] = c < c_total ? to_f32<DT>(w[static_cast<long long>(c) * taps + src_tap]) : 0.f;
  }
}

// bwd_data with W stride SX > 1 (window_gather's SX > 1 branch): a thread
// writes R dx pixels of one W phase, iw = iw0 + j*SX. They take the same
// taps fx = f0 + m*SX (m < nt; f0 and nt depend on the phase only), and tap m
// of pixel j reads dy column base + j - m: a window of R + kTaps - 1 dy
// pixels (kTaps = ceil(FX / SX)), no tap tested and skipped. H and D strides
// are run-time: per row, the taps whose (row + pad - f*dil) divides by the
// stride.
template <class Cfg>
__device__ __forceinline__ void window_bwd_strided(const DirectParams& p, const float* ws, int lane, int item, int c0) {
  using T = typename Cfg::T;
  constexpr int DT = Cfg::kDT, VEC = Cfg::kVec, R = Cfg::kR, FX = Cfg::kFX, SX = Cfg::kSX;
  constexpr int kTaps = (FX + SX - 1) / SX;
  const int slab = p.lanes * VEC;
  const int C = p.c;
  const int FZ = p.filt[0], FY = p.filt[1];
  const int(&ssz)[3] = p.out_size;  // dy
  const int(&dsz)[3] = p.in;        // dx
  const int RY = p.rows_per_item;
  const int row_groups = (dsz[1] + RY - 1) / RY;
  const int per_phase = p.strips / SX;  // strips of one W phase
  int rest = item;
  const int strip = rest % p.strips;
  rest /= p.strips;
  const int ih0 = rest % row_groups * RY;
  rest /= row_groups;
  const int id = rest % dsz[0];
  const int n = rest / dsz[0];
  const int iw0 = strip / per_phase + strip % per_phase * R * SX;
  const int f0 = (iw0 + p.pad[2]) % SX;  // iw0 + pad >= 0
  const int nt = f0 < FX ? (FX - 1 - f0) / SX + 1 : 0;
  const int base = (iw0 + p.pad[2] - f0) / SX;
  const T* __restrict__ src = static_cast<const T*>(p.a);
  T* __restrict__ dst = static_cast<T*>(p.out);

#pragma unroll 1
  for (int ih = ih0; ih < ih0 + RY && ih < dsz[1]; ++ih) {
    float acc[R][VEC];
    zero(acc);
    for (int fz = 0; fz < FZ; ++fz) {
      const int tz = id + p.pad[0] - fz * p.dil[0];
      if (tz < 0 || tz % p.stride[0] != 0 || tz / p.stride[0] >= ssz[0]) continue;
      const int od = tz / p.stride[0];
      for (int fy = 0; fy < FY; ++fy) {
        const int ty = ih + p.pad[1] - fy * p.dil[1];
        if (ty < 0 || ty % p.stride[1] != 0 || ty / p.stride[1] >= ssz[1]) continue;
        const int oh = ty / p.stride[1];
        const T* row = src + (static_cast<long long>((n * ssz[0] + od) * ssz[1] + oh) * ssz[2]) * C + c0;
        // Taps past nt weigh 0, so every window pixel runs the same code.
        float wv[kTaps][VEC];
        const float* wrow = ws + (fz * FY + fy) * FX * slab + lane * VEC;
#pragma unroll
        for (int m = 0; m < kTaps; ++m) {
          if (m < nt) {
            load_f32<VEC>(wrow + (f0 + m * SX) * slab, wv[m]);
          } else {
#pragma unroll
            for (int j = 0; j < VEC; ++j) wv[m][j] = 0.f;
          }
        }
#pragma unroll
        for (int i = 0; i < R + kTaps - 1; ++i) {
          const int d = i - (kTaps - 1);  // dy column base + d
          const int ow = base + d;
          if (ow < 0 || ow >= ssz[2]) continue;
          float xv[VEC];
          ldg_vec<DT, VEC>(row + static_cast<long long>(ow) * C, xv);
#pragma unroll
          for (int m = 0; m < kTaps; ++m) {
            const int r = d + m;
            if (r < 0 || r >= R) continue;
#pragma unroll
            for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(xv[j], wv[m][j], acc[r][j]);
          }
        }
      }
    }
    const long long out_row = static_cast<long long>((n * dsz[0] + id) * dsz[1] + ih) * dsz[2];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int iw = iw0 + r * SX;
      if (iw < dsz[2]) store_vec<DT, VEC>(dst + (out_row + iw) * C + c0, acc[r]);
    }
  }
}

template <class Cfg, bool kBwd>
__device__ __forceinline__ void window_gather(const DirectParams& p, unsigned char* smem) {
  using T = typename Cfg::T;
  constexpr int DT = Cfg::kDT, VEC = Cfg::kVec, R = Cfg::kR, FX = Cfg::kFX, SX = Cfg::kSX, WIN = Cfg::kWin;
  const int lanes = p.lanes;
  const int slab = lanes * VEC;
  const int lane = threadIdx.x % lanes;
  const int slot = threadIdx.x / lanes;
  const int C = p.c;
  const int FZ = p.filt[0], FY = p.filt[1];
  const int taps = FZ * FY * FX;

  float* ws = reinterpret_cast<float*>(smem);
  const int c_lo = blockIdx.y * slab;
  constexpr bool kStrided = kBwd && SX > 1;  // window_bwd_strided reads the filter unflipped
  stage_weights<DT>(ws, static_cast<const T*>(p.b), c_lo, slab, C, taps, kBwd && !kStrided);
  __syncthreads();

  const int item = blockIdx.x * p.items_per_block + slot;
  const int c0 = c_lo + lane * VEC;
  if (slot >= p.items_per_block || item >= p.items || c0 >= C) return;
  if constexpr (kStrided) {
    window_bwd_strided<Cfg>(p, ws, lane, item, c0);
    return;
  }

  // Source (x for fwd, dy for bwd_data) and destination sizes; bwd_data
  // (stride 1) is fwd over dy with the flipped filter and the mirrored pad.
  const int(&ssz)[3] = kBwd ? p.out_size : p.in;
  const int(&dsz)[3] = kBwd ? p.in : p.out_size;
  int pad[3], st[3];
#pragma unroll
  for (int i = 0; i < 3; ++i) {
    pad[i] = kBwd ? (p.filt[i] - 1) * p.dil[i] - p.pad[i] : p.pad[i];
    st[i] = kBwd ? 1 : p.stride[i];
  }

  const int RY = p.rows_per_item;
  const int row_groups = (dsz[1] + RY - 1) / RY;
  int rest = item;
  const int strip = rest % p.strips;
  rest /= p.strips;
  const int oh0 = rest % row_groups * RY;
  rest /= row_groups;
  const int od = rest % dsz[0];
  const int n = rest / dsz[0];
  const int ow0 = strip * R;
  const int iw0 = ow0 * SX - pad[2];
  const T* __restrict__ src = static_cast<const T*>(p.a);
  T* __restrict__ dst = static_cast<T*>(p.out);

  // Consecutive output rows: the source rows of row oh + 1 are mostly those
  // of row oh, still in L1.
#pragma unroll 1
  for (int oh = oh0; oh < oh0 + RY && oh < dsz[1]; ++oh) {
    float acc[R][VEC];
    zero(acc);

    for (int fz = 0; fz < FZ; ++fz) {
      const int id = od * st[0] - pad[0] + fz * p.dil[0];
      if (id < 0 || id >= ssz[0]) continue;
      for (int fy = 0; fy < FY; ++fy) {
        const int ih = oh * st[1] - pad[1] + fy * p.dil[1];
        if (ih < 0 || ih >= ssz[1]) continue;
        const T* row = src + (static_cast<long long>((n * ssz[0] + id) * ssz[1] + ih) * ssz[2]) * C + c0;
        float wv[FX][VEC];
        const float* wrow = ws + (fz * FY + fy) * FX * slab + lane * VEC;
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) load_f32<VEC>(wrow + fx * slab, wv[fx]);
#pragma unroll
        for (int i = 0; i < WIN; ++i) {
          const int iw = iw0 + i;
          float xv[VEC];
          if (iw >= 0 && iw < ssz[2]) {
            ldg_vec<DT, VEC>(row + static_cast<long long>(iw) * C, xv);
          } else {
#pragma unroll
            for (int j = 0; j < VEC; ++j) xv[j] = 0.f;
          }
          window_taps<R, FX, SX>(i, [&](int r, int fx) {
#pragma unroll
            for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(xv[j], wv[fx][j], acc[r][j]);
          });
        }
      }
    }

    const long long base = static_cast<long long>((n * dsz[0] + od) * dsz[1] + oh) * dsz[2];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int ow = ow0 + r;
      if (ow < dsz[2]) store_vec<DT, VEC>(dst + (base + ow) * C + c0, acc[r]);
    }
  }
}

}  // namespace gconv::direct
