// Tensor-core bwd_data for convolutions whose data gradient has few channels
// (C <= 8, one group: the C = 3 stems of image and video networks), where the
// implicit GEMM is tall and thin (N = C) and its im2col gather of dy reads
// each dy pixel once per filter tap that reaches it (12-16 times for a 7x7
// stride-2 stem): that gather, not the MMA, bounds the igemm kernels.
//
// A block owns a TH x TW tile of dx (all C channels) of one image. It stages
// the dy rectangle the tile reads (a halo of the tile / stride) in shared
// memory once per K chunk of kKc channels, and the weights of the chunk as
// [tap][k][8] (c padded to 8 with zeros). dx pixels are split by stride
// phase (py, px): the pixels of one phase see the same filter taps, and for
// those taps (no zero taps are visited) their dy pixels are consecutive in
// the halo. A warp computes tasks of 16 dx pixels of one phase x 8 channels
// with mma.m16n8k16: A (16 pixels x 16 k) comes from the halo through
// ldmatrix with one row address per pixel, B (16 k x 8 c) from the weights
// through ldmatrix.trans, so each dy element leaves global memory once per
// block and shared memory once per tap that uses it.
//
// Template: DT (bf16/fp16), TH, TW (dx tile; TW / sw a multiple of 16, and
// the tasks of a phase a multiple of kTpw: checked by tinyc_family.cpp),
// NW warps.
#pragma once

#include "common/ptx.cuh"
#include "common/types.cuh"
#include "tinyc/params.cuh"

namespace gconv {
namespace tinyc {

using dev::u32;

extern __shared__ __align__(16) unsigned char tc_smem[];

template <int DT, int TH, int TW, int NW>
__device__ __forceinline__ void bwd_data(const TinycParams& p) {
  typedef typename dev::Elem<DT>::T T;
  constexpr int kTasks = TH * TW / 16;                 // 16-pixel tasks per tile, all phases
  constexpr int kItems = kTasks / kTpw;                // items of kTpw tasks
  static_assert(kItems % NW == 0, "every warp gets the same number of items");
  constexpr int kIpw = kItems / NW;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  int bid = blockIdx.x;
  const int tx = bid % p.tiles_w;
  bid /= p.tiles_w;
  const int ty = bid % p.tiles_h;
  const int n = bid / p.tiles_h;
  const int h0 = ty * TH, w0 = tx * TW;
  const int r0 = h0 / p.sh + p.q0y, c0 = w0 / p.sw + p.q0x;  // dy origin of the halo
  const int pj = TW / p.sw;                                  // pixels per phase row
  const int phase_tasks = (TH / p.sh) * pj / 16;
  const int taps = p.fh * p.fw;

  const u32 halo = dev::smem_u32(tc_smem);
  const u32 wts = halo + p.halo_h * p.halo_w * kPitch;  // [tap][kKc][8] elements of T
  const T* dy = static_cast<const T*>(p.dy);
  const T* w = static_cast<const T*>(p.w);

  float acc[kIpw][kTpw][4];
#pragma unroll
  for (int i = 0; i < kIpw; ++i)
#pragma unroll
    for (int t = 0; t < kTpw; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][t][r] = 0.f;

  for (int kc = 0; kc < p.kchunks; ++kc) {
    const int k0 = kc * kKc;
    if (kc > 0) __syncthreads();  // the previous chunk's reads are done
    // dy halo: 16-byte vectors (8 channels; K % 8 == 0), zeros outside dy
    // and past K.
    const int vecs = p.halo_h * p.halo_w * (kKc / 8);
    for (int v = tid; v < vecs; v += NW * 32) {
      const int pix = v / (kKc / 8), kv = v % (kKc / 8);
      const int r = r0 + pix / p.halo_w, c = c0 + pix % p.halo_w, k = k0 + kv * 8;
      const bool ok = r >= 0 && r < p.ho && c >= 0 && c < p.wo && k < p.k;
      const T* src = ok ? dy + ((static_cast<long long>(n) * p.ho + r) * p.wo + c) * p.k + k : dy;
      dev::cp_async<16>(halo + pix * kPitch + kv * 16, src, ok);
    }
    dev::cp_async_commit();
    // Weights of the chunk: w[k][tap][c] -> rows [tap][k - k0] of 8 c (zeros
    // past C and K), one 16-byte store a row. Rows go tap-fastest so that a
    // warp reads w contiguously, and the loop is unrolled so that a thread
    // has several rows' loads in flight (a row at a time waited out the L2
    // latency once per row).
    const int rows = taps * kKc;
#pragma unroll 2
    for (int row = tid; row < rows; row += NW * 32) {
      const int tap = row % taps, kk = row / taps, k = k0 + kk;
      u32 x0 = 0, x1 = 0, x2 = 0, x3 = 0;  // 8 elements, zero past C (and K); the zero bits of bf16 and fp16 are 0
      if (k < p.k) {
        const T* src = w + (static_cast<long long>(k) * taps + tap) * p.c;
        x0 = u32(src[0]) | (p.c > 1 ? u32(src[1]) << 16 : 0u);
        if (p.c > 2) x1 = u32(src[2]) | (p.c > 3 ? u32(src[3]) << 16 : 0u);
        if (p.c > 4) x2 = u32(src[4]) | (p.c > 5 ? u32(src[5]) << 16 : 0u);
        if (p.c > 6) x3 = u32(src[6]) | (p.c > 7 ? u32(src[7]) << 16 : 0u);
      }
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(wts + (tap * kKc + kk) * 16), "r"(x0), "r"(x1),
                   "r"(x2), "r"(x3)
                   : "memory");
    }
    dev::cp_async_wait<0>();
    __syncthreads();

    const int kmax = p.k - k0 < kKc ? p.k - k0 : kKc;  // channels of this chunk
#pragma unroll
    for (int it = 0; it < kIpw; ++it) {
      const int item = warp + NW * it;
      const int phase = item * kTpw / phase_tasks;
      const int task0 = item * kTpw - phase * phase_tasks;
      const int py = phase / p.sw, px = phase % p.sw;
      // This lane's ldmatrix row: pixel (lane % 8) + 8 * ((lane / 8) % 2) of
      // each task at k offset 8 * (lane / 16); its halo address for the tap
      // at offset (0, 0), which each tap shifts by (qy, qx) halo pixels.
      u32 abase[kTpw];
#pragma unroll
      for (int t = 0; t < kTpw; ++t) {
        const int pix = (task0 + t) * 16 + (lane & 7) + 8 * ((lane >> 3) & 1);
        abase[t] = halo + ((pix / pj) * p.halo_w + pix % pj) * kPitch + (lane >> 4) * 16;
      }
      for (int fy = 0; fy < p.fh; ++fy) {
        // dy row of the phase's pixel row i: (h0 + py + sh * i + pad - fy * dil) / sh, a
        // whole number for the taps of the phase only (h0 is a multiple of sh).
        const int ay = py + p.ph - fy * p.dh;
        if (ay % p.sh != 0) continue;
        const int qy = ay / p.sh - p.q0y;  // halo row of pixel row 0
        for (int fx = 0; fx < p.fw; ++fx) {
          const int ax = px + p.pw - fx * p.dw;
          if (ax % p.sw != 0) continue;
          const int qx = ax / p.sw - p.q0x;
          const int tap = fy * p.fw + fx;
          const u32 shift = (qy * p.halo_w + qx) * kPitch;
          const u32 brow = wts + (tap * kKc + (lane & 15)) * 16;
          for (int kk = 0; kk < kmax; kk += 16) {
            u32 b[2];
            dev::ldmatrix_x2_trans(b, brow + kk * 16);
#pragma unroll
            for (int t = 0; t < kTpw; ++t) {
              u32 a[4];
              dev::ldmatrix_x4(a, abase[t] + shift + kk * 2);
              dev::mma<DT>(acc[it][t], a, b);
            }
          }
        }
      }
    }
  }

  // Store through shared memory: each thread writes its results into the
  // tile's dx rows there (register r of a task: row (lane / 4) + 8 * (r / 2),
  // channel 2 * (lane % 4) + r % 2), then the block writes each dx row of the
  // tile as one contiguous run (the phases interleave along W, so a task's
  // own pixels are stride-w apart in dx: stored from registers they cost a
  // partial sector each).
  __syncthreads();  // every warp is done with the halo and the weights
  T* tile = reinterpret_cast<T*>(tc_smem);  // [TH][TW][C]
#pragma unroll
  for (int it = 0; it < kIpw; ++it) {
    const int item = warp + NW * it;
    const int phase = item * kTpw / phase_tasks;
    const int task0 = item * kTpw - phase * phase_tasks;
    const int py = phase / p.sw, px = phase % p.sw;
#pragma unroll
    for (int t = 0; t < kTpw; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int pix = (task0 + t) * 16 + (lane >> 2) + 8 * (r >> 1);
        const int c = 2 * (lane & 3) + (r & 1);
        const int hl = py + p.sh * (pix / pj), wl = px + p.sw * (pix % pj);
        if (c < p.c) tile[(hl * TW + wl) * p.c + c] = dev::Elem<DT>::from_f32(acc[it][t][r]);
      }
  }
  __syncthreads();
  T* dx = static_cast<T*>(p.dx);
  const int cols = (p.w_ - w0 < TW ? p.w_ - w0 : TW) * p.c;  // elements of a tile row inside dx
  const int rows = p.h - h0 < TH ? p.h - h0 : TH;
  for (int e = tid; e < rows * cols; e += NW * 32) {
    const int hl = e / cols, x = e % cols;
    dx[((static_cast<long long>(n) * p.h + h0 + hl) * p.w_ + w0) * p.c + x] = tile[hl * TW * p.c + x];
  }
}

}  // namespace tinyc
}  // namespace gconv
