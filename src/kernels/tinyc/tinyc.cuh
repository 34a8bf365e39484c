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
// 3D (ND == 3): a block owns the tile of one dx depth slice z and loops
// over the depth taps fz that reach it (dy slice zo = (z + pd - fz * dd) /
// sd, a whole number inside dy); each restages the halo of slice zo and the
// weights of plane fz, and the accumulators add up across them. A slice no
// tap reaches is written as zeros. ND == 2 folds the depth loop into one
// pass with constants, so a 2D instance compiles to the 2D kernel.
//
// K not a multiple of 8: the halo is staged with 2-byte loads instead of
// 16-byte cp.async copies (p.kvec 1 instead of 8, tinyc_plan.cpp); the halo
// layout is the same for both.
//
// Template: DT (bf16/fp16), TH, TW (dx tile; TW / sw a multiple of 16, and
// the tasks of a phase a multiple of kTpw: checked by tinyc_plan.cpp),
// NW warps, ND (2 or 3 spatial dimensions).
#pragma once

#include "common/ptx.cuh"
#include "common/types.cuh"
#include "tinyc/params.cuh"

namespace gconv {
namespace tinyc {

using dev::u32;

extern __shared__ __align__(16) unsigned char tc_smem[];

// Stages the dy halo of one K chunk from the dy slice `dy` (Ho x Wo x K):
// halo pixel pix (row-major, halo_h x halo_w) gets channels k0 .. k0 + kKc
// of dy pixel (r0 + pix / halo_w, c0 + pix % halo_w), zeros outside dy and
// past K (their weights are zero, but 0 * a NaN left in shared memory would
// poison the accumulators). 16-byte cp.async copies: K % 8 == 0 and dy
// 16-byte aligned, so a copy is wholly inside or past K.
template <int NT, typename T>
__device__ __forceinline__ void stage_halo_vec(u32 halo, const T* dy, const TinycParams& p, int r0, int c0, int k0,
                                               int tid) {
  constexpr int kUnits = kKc / 8;
  const int units = p.halo_h * p.halo_w * kUnits;
  for (int v = tid; v < units; v += NT) {
    const int pix = v / kUnits, kv = v % kUnits;
    const int r = r0 + pix / p.halo_w, c = c0 + pix % p.halo_w, k = k0 + kv * 8;
    const bool ok = r >= 0 && r < p.ho && c >= 0 && c < p.wo && k < p.k;
    const T* src = ok ? dy + (static_cast<long long>(r) * p.wo + c) * p.k + k : dy;
    dev::cp_async<16>(halo + pix * kPitch + kv * 16, src, ok);
  }
}

// The same for any other K (or a dy not 16-byte aligned): a thread gathers
// 8 channels with 2-byte loads (all issued before the store, so their
// latencies overlap) and writes them as one 16-byte piece of the halo row.
// Narrower cp.async copies (8 or 4 bytes, for K % 4 or K % 2 == 0) were
// left out: as extra branches they cost the K % 8 == 0 path 10 registers.
template <int NT, typename T>
__device__ __forceinline__ void stage_halo_odd(u32 halo, const T* dy, const TinycParams& p, int r0, int c0, int k0,
                                               int tid) {
  constexpr int kUnits = kKc / 8;
  const int units = p.halo_h * p.halo_w * kUnits;
#pragma unroll 2
  for (int v = tid; v < units; v += NT) {
    const int pix = v / kUnits, kv = v % kUnits;
    const int r = r0 + pix / p.halo_w, c = c0 + pix % p.halo_w, k = k0 + kv * 8;
    u32 x[4] = {0u, 0u, 0u, 0u};
    if (r >= 0 && r < p.ho && c >= 0 && c < p.wo) {
      const T* src = dy + (static_cast<long long>(r) * p.wo + c) * p.k + k;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (k + j < p.k) x[j / 2] |= u32(src[j]) << (16 * (j % 2));
    }
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(halo + pix * kPitch + kv * 16), "r"(x[0]),
                 "r"(x[1]), "r"(x[2]), "r"(x[3])
                 : "memory");
  }
}

template <int DT, int TH, int TW, int NW, int ND>
__device__ __forceinline__ void bwd_data(const TinycParams& p) {
  typedef typename dev::Elem<DT>::T T;
  static_assert(ND == 2 || ND == 3, "tinyc kernels are 2D or 3D");
  constexpr int kTasks = TH * TW / 16;                 // 16-pixel tasks per tile, all phases
  constexpr int kItems = kTasks / kTpw;                // items of kTpw tasks
  static_assert(kItems % NW == 0, "every warp gets the same number of items");
  constexpr int kIpw = kItems / NW;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // Blocks: (n, z, tile_y, tile_x), tile_x fastest.
  int bid = blockIdx.x;
  const int tx = bid % p.tiles_w;
  bid /= p.tiles_w;
  const int ty = bid % p.tiles_h;
  bid /= p.tiles_h;
  const int depth = ND == 3 ? p.d : 1;  // dx depth
  const int z = ND == 3 ? bid % p.d : 0;
  const int n = ND == 3 ? bid / p.d : bid;
  const int h0 = ty * TH, w0 = tx * TW;
  const int r0 = h0 / p.sh + p.q0y, c0 = w0 / p.sw + p.q0x;  // dy origin of the halo
  const int pj = TW / p.sw;                                  // pixels per phase row
  const int phase_tasks = (TH / p.sh) * pj / 16;
  const int taps = p.fh * p.fw;  // taps of one depth plane

  const u32 halo = dev::smem_u32(tc_smem);
  const u32 wts = halo + p.halo_h * p.halo_w * kPitch;  // [tap][kKc][8] elements of T
  const T* w = static_cast<const T*>(p.w);

  float acc[kIpw][kTpw][4];
#pragma unroll
  for (int i = 0; i < kIpw; ++i)
#pragma unroll
    for (int t = 0; t < kTpw; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][t][r] = 0.f;

  const int fdepth = ND == 3 ? p.fd : 1;
  bool staged = false;  // shared memory holds a staged chunk that some warp may still read
  for (int fz = 0; fz < fdepth; ++fz) {
    int zo = 0;  // the dy slice of depth tap fz
    if (ND == 3) {
      const int az = z + p.pd - fz * p.dd;
      if (az < 0 || az % p.sd != 0) continue;
      zo = az / p.sd;
      if (zo >= p.od) continue;
    }
    const long long slice = static_cast<long long>(n) * (ND == 3 ? p.od : 1) + zo;  // (n, zo)
    const T* dy = static_cast<const T*>(p.dy) + slice * p.ho * p.wo * p.k;
    // Plane fz of w: w[k][fz][fy][fx] is at (k * fdepth * taps + fz * taps + tap) * C.
    const T* wz = w + static_cast<long long>(fz) * taps * p.c;
    for (int kc = 0; kc < p.kchunks; ++kc) {
      const int k0 = kc * kKc;
      if (staged) __syncthreads();  // the previous chunk's reads are done
      staged = true;
      // dy halo, zeros outside dy and past K.
      if (p.kvec == 8)
        stage_halo_vec<NW * 32>(halo, dy, p, r0, c0, k0, tid);
      else
        stage_halo_odd<NW * 32>(halo, dy, p, r0, c0, k0, tid);
      dev::cp_async_commit();
      // Weights of the chunk: w[k][fz][tap][c] -> rows [tap][k - k0] of 8 c (zeros
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
          const T* src = wz + (static_cast<long long>(k) * fdepth * taps + tap) * p.c;
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
    dx[(((static_cast<long long>(n) * depth + z) * p.h + h0 + hl) * p.w_ + w0) * p.c + x] = tile[hl * TW * p.c + x];
  }
}

}  // namespace tinyc
}  // namespace gconv
