// fwd / bwd_data of the register-window depthwise kernels as a row stream:
// the instance of a _tma window kernel (KernelTraits::tma). Measured on an
// H100 (2026-11-27) against window_gather on the public depthwise problems:
// 1.5-1.9x faster on 7x7 filters and large planes, up to 1.37x slower on
// 7x7 planes (fixed costs of the pipeline), so both stay in the pool.
//
// The layout of window_wgrad.cuh's x tiles, turned around: a block owns a
// channel slab (blockIdx.y) and a run of steps (blockIdx.x), a step being
// wg_rows consecutive destination rows of one (n, depth) plane. Thread
// (lane, slot) holds every (fy, fx) weight of its lane's VEC channels in
// registers (flipped for bwd_data); per step one TMA box brings the source
// rows the step reads ((strips * R - 1) * SX + FX pixels wide, from -pad;
// zeros outside the tensor and past C) into the step's stage, and the
// thread's items (row, strip) multiply R outputs from a window of WIN
// source pixels per filter row and store them. bwd_data runs only where
// every stride is 1, as fwd over dy with the flipped filter and the
// mirrored padding (F - 1) * dil - pad. 1D and 2D (one depth tap).
#pragma once

#include "common/ptx.cuh"
#include "common/tma.cuh"
#include "direct/window.cuh"

namespace gconv::direct {

// Launch: grid (wg_blocks, slabs, 1), block of THREADS = slots * lanes; tsrc:
// the tensor map of the source (x, or dy for bwd_data).
template <class Cfg, bool kBwd>
__device__ __forceinline__ void window_stream(const DirectParams& p, unsigned char* smem,
                                              const dev::TensorMap* tsrc) {
  using T = typename Cfg::T;
  constexpr int DT = Cfg::kDT, VEC = Cfg::kVec, R = Cfg::kR, FX = Cfg::kFX, SX = Cfg::kSX, WIN = Cfg::kWin;
  constexpr int FYM = FX;  // filter rows the registers hold (the plan checks FY <= FX)
  const int lanes = p.lanes;
  const int slabw = lanes * VEC;
  const int lane = threadIdx.x % lanes;
  const int slot = threadIdx.x / lanes;
  const int slots = Cfg::kThreads / lanes;
  const int C = p.c;
  const int FY = p.filt[1];
  const int c_lo = blockIdx.y * slabw;
  const int c0 = c_lo + lane * VEC;
  const int(&dsz)[3] = kBwd ? p.in : p.out_size;  // destination: y, or dx
  const int sy = kBwd ? 1 : p.stride[1];
  const int pad_h = kBwd ? (FY - 1) * p.dil[1] - p.pad[1] : p.pad[1];
  const int pad_w = kBwd ? (FX - 1) - p.pad[2] : p.pad[2];  // W dilation 1
  const int ROWS = p.wg_rows, STRIPS = p.strips, XP = p.wg_xp;

  // The lane's weights, w (C, 1, FY, FX) for depthwise.
  float wv[FYM][FX][VEC];
  {
    const T* __restrict__ w = static_cast<const T*>(p.b);
    const int taps = FY * FX;
#pragma unroll
    for (int fy = 0; fy < FYM; ++fy)
#pragma unroll
      for (int fx = 0; fx < FX; ++fx)
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          const int c = c0 + j, tap = fy * FX + fx;
          const int src_tap = kBwd ? taps - 1 - tap : tap;
          wv[fy][fx][j] = fy < FY && c < C ? to_f32<DT>(w[static_cast<long long>(c) * taps + src_tap]) : 0.f;
        }
  }

  const long long steps = p.wg_steps;
  const int s_begin = static_cast<int>(steps * blockIdx.x / p.wg_blocks);
  const int s_end = static_cast<int>(steps * (blockIdx.x + 1) / p.wg_blocks);
  auto stage_ptr = [&](int buf) { return smem + buf * p.wg_stage; };
  // Step s: plane (n * depth + d), first destination row, rows.
  auto decode = [&](int s, int& plane, int& oh0, int& rows) {
    plane = s / p.wg_plane_steps;
    oh0 = (s - plane * p.wg_plane_steps) * ROWS;
    rows = imin(ROWS, dsz[1] - oh0);
  };

  __shared__ __align__(8) dev::u64 bars[kWgradMaxStages];
  auto issue = [&](int s, int buf) {
    const dev::u32 bar = dev::smem_u32(&bars[buf]);
    int plane, oh0, rows;
    decode(s, plane, oh0, rows);
    dev::mbar_arrive_expect_tx(bar, static_cast<dev::u32>(p.wg_tx_bytes));
    dev::tma_load_4d(dev::smem_u32(stage_ptr(buf)), tsrc, c_lo, -pad_w, oh0 * sy - pad_h, plane, bar);
  };
  T* __restrict__ dst = static_cast<T*>(p.out);
  auto multiply = [&](int s, int buf) {
    int plane, oh0, rows;
    decode(s, plane, oh0, rows);
    const T* xs = reinterpret_cast<const T*>(stage_ptr(buf));
    const int items = rows * STRIPS;
    for (int it = slot; it < items; it += slots) {
      const int row = it % rows, strip = it / rows;
      const int ow0 = strip * R;
      float acc[R][VEC];
      zero(acc);
#pragma unroll
      for (int fy = 0; fy < FYM; ++fy) {
        if (fy >= FY) break;
        const T* xrow = xs + ((row * sy + fy * p.dil[1]) * XP + ow0 * SX) * slabw + lane * VEC;
#pragma unroll
        for (int i = 0; i < WIN; ++i) {
          float xv[VEC];
          lds_vec<DT, VEC>(xrow + i * slabw, xv);
          window_taps<R, FX, SX>(i, [&](int r, int fx) {
#pragma unroll
            for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(wv[fy][fx][j], xv[j], acc[r][j]);
          });
        }
      }
      if (c0 >= C) continue;
      const long long base = (static_cast<long long>(plane) * dsz[1] + oh0 + row) * dsz[2];
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (ow0 + r < dsz[2]) store_vec<DT, VEC>(dst + (base + ow0 + r) * C + c0, acc[r]);
    }
  };

  // As window_wgrad's TMA loop: wg_stages - 1 steps in flight.
  dev::tma_ring(bars, p.wg_stages, s_begin, s_end, issue, multiply);
}

}  // namespace gconv::direct
