// bwd_weight of the register-window depthwise kernels (Cg = Kg = 1):
//   dw[c, fz, fy, fx] = sum_{n, od, oh, ow} dy[n, od, oh, ow, c] * x[n, id, ih, iw, c]
//   (id = od*sd - pd + fz*dd, ih = oh*sy - py + fy*dy, iw = ow*SX - px + fx)
//
// Work split. A region is (channel slab, z tap): blockIdx.y the slab of
// lanes * VEC channels, blockIdx.z the z tap. Its dy rows, flattened over
// (n, od, oh) in groups of wg_rows consecutive rows of one plane ("steps"),
// are divided into wg_blocks contiguous runs, one per blockIdx.x. Every block
// holds all the (fy, fx) taps of its lane's VEC channels in registers, so x
// and dy are read once per z tap (plus the (FY - 1) halo rows of each step),
// not once per filter row as the cluster-per-row kernel this replaces did
// (78 us against cuDNN's 47 at c144 56x56 3x3, H100, twentieth session).
//
// Per step the block stages the step's dy rows (strips * R pixels wide) and
// the x rows they read ((strips * R - 1) * SX + FX pixels wide, from iw =
// -px), zero outside the tensors and past C, both at an odd pixel pitch so
// that the slots sharing a shared-memory phase hit different banks: through
// TMA (one 4D box each, wg_stages stages) where the tensor maps allow, else
// cp.async copies in two stages (one copy per 16 bytes: on an H100 the
// copies alone took 58 of the 66 us of c144 56x56 3x3, the multiplies alone
// 33). The next steps' tiles load while this one multiplies. A thread
// (lane, slot) takes items (row, strip) of the step: R dy pixels and, per
// filter row, the window of WIN x pixels they read, each x vector loaded
// once and multiplied into every tap it meets.
//
// Reduction, deterministic and inside the launch: the block adds its slots'
// sums in slot order through shared memory; with one block per region it
// writes dw, else its slice of the fp32 workspace, and the region's block
// that counts last (common/fixup.cuh's words; the first block to start
// zeroes the count) adds the slices in block order and writes dw.
#pragma once

#include "common/fixup.cuh"
#include "common/ptx.cuh"
#include "common/tma.cuh"
#include "direct/window.cuh"

namespace gconv::direct {

// Launch: grid (wg_blocks, slabs, FZ), block of THREADS = slots * lanes; tx
// and tdy: tensor maps of x and dy when p.wg_tma (else unused).
template <class Cfg>
__device__ __forceinline__ void window_wgrad(const DirectParams& p, unsigned char* smem, const dev::TensorMap* tx,
                                             const dev::TensorMap* tdy) {
  using T = typename Cfg::T;
  constexpr int DT = Cfg::kDT, VEC = Cfg::kVec, R = Cfg::kR, FX = Cfg::kFX, SX = Cfg::kSX, WIN = Cfg::kWin;
  constexpr int FYM = FX;  // filter rows the sums cover (the plan checks FY <= FX)
  constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
  const int lanes = p.lanes;
  const int slabw = lanes * VEC;
  const int lane = threadIdx.x % lanes;
  const int slot = threadIdx.x / lanes;
  const int slots = Cfg::kThreads / lanes;
  const int C = p.c;
  const int FY = p.filt[1];
  const int fz = blockIdx.z;
  const int c_lo = blockIdx.y * slabw;
  const int c0 = c_lo + lane * VEC;
  const int(&isz)[3] = p.in;
  const int(&osz)[3] = p.out_size;
  const int ROWS = p.wg_rows, STRIPS = p.strips;
  const int XP = p.wg_xp, XW = p.wg_xw, DYP = p.wg_dyp, DYW = p.wg_dyw;  // DYW = strips * R
  const int region = blockIdx.z * gridDim.y + blockIdx.y;

  // One block per region writes dw directly; several meet in the workspace.
  dev::u64* fix = nullptr;
  __shared__ int s_last;
  if (p.fixup) {
    fix = p.flags + static_cast<long long>(dev::kFixupWords) * region;
    if (threadIdx.x == 0 && dev::fixup_begin(fix, p.epoch)) dev::fixup_publish(fix, p.epoch);
  }

  float acc[FYM][FX][VEC];
#pragma unroll
  for (int a = 0; a < FYM; ++a) zero(acc[a]);

  const T* __restrict__ x = static_cast<const T*>(p.a);
  const T* __restrict__ dy = static_cast<const T*>(p.b);
  const long long steps = p.wg_steps;
  const int s_begin = static_cast<int>(steps * blockIdx.x / p.wg_blocks);
  const int s_end = static_cast<int>(steps * (blockIdx.x + 1) / p.wg_blocks);

  // Step s: plane (n, od), first dy row oh0, rows; false when its x plane is
  // padding (this z tap reads nothing there).
  struct Step {
    int n, id, od, oh0, rows;
  };
  auto decode = [&](int s, Step& st) {
    const int hs = s % p.wg_plane_steps;
    const int plane = s / p.wg_plane_steps;
    st.od = plane % osz[0];
    st.n = plane / osz[0];
    st.id = st.od * p.stride[0] - p.pad[0] + fz * p.dil[0];
    st.oh0 = hs * ROWS;
    st.rows = imin(ROWS, osz[1] - st.oh0);
    return st.id >= 0 && st.id < isz[0];
  };
  auto stage_ptr = [&](int buf) { return smem + buf * p.wg_stage; };
  auto load = [&](int s, int buf) {
    Step st;
    if (!decode(s, st)) return;
    T* xs = reinterpret_cast<T*>(stage_ptr(buf));
    T* dys = reinterpret_cast<T*>(stage_ptr(buf) + p.wg_xbytes);
    const bool c_ok = c0 < C;
    const int xr = (st.rows - 1) * p.stride[1] + (FY - 1) * p.dil[1] + 1;
    const int ih0 = st.oh0 * p.stride[1] - p.pad[1];
    const long long xplane = static_cast<long long>(st.n * isz[0] + st.id) * isz[1];
    // Pixel (r, col) of the tile walks by `slots` without a division per copy.
    int r = slot / XW, col = slot - slot / XW * XW;
    const int dr = slots / XW, dc = slots - slots / XW * XW;
    for (; r < xr; r += dr, col += dc) {
      if (col >= XW) col -= XW, ++r;
      if (r >= xr) break;
      const int ih = ih0 + r, iw = col - p.pad[2];
      const bool ok = c_ok && ih >= 0 && ih < isz[1] && iw >= 0 && iw < isz[2];
      const T* src = ok ? x + ((xplane + ih) * isz[2] + iw) * C + c0 : x;
      dev::cp_async<kBytes>(dev::smem_u32(xs + (r * XP + col) * slabw + lane * VEC), src, ok);
    }
    const long long dplane = static_cast<long long>(st.n * osz[0] + st.od) * osz[1] + st.oh0;
    r = slot / DYW, col = slot - slot / DYW * DYW;
    const int er = slots / DYW, ec = slots - slots / DYW * DYW;
    for (; r < st.rows; r += er, col += ec) {
      if (col >= DYW) col -= DYW, ++r;
      if (r >= st.rows) break;
      const bool ok = c_ok && col < osz[2];
      const T* src = ok ? dy + ((dplane + r) * osz[2] + col) * C + c0 : dy;
      dev::cp_async<kBytes>(dev::smem_u32(dys + (r * DYP + col) * slabw + lane * VEC), src, ok);
    }
  };
  auto multiply = [&](int s, int buf) {
    Step st;
    if (!decode(s, st)) return;
    const T* xs = reinterpret_cast<const T*>(stage_ptr(buf));
    const T* dys = reinterpret_cast<const T*>(stage_ptr(buf) + p.wg_xbytes);
    const int items = st.rows * STRIPS;
    // Consecutive slots take consecutive rows of one strip (the odd pitch
    // puts them on different banks).
    for (int it = slot; it < items; it += slots) {
      const int row = it % st.rows, strip = it / st.rows;
      const int ow0 = strip * R;
      float dv[R][VEC];
#pragma unroll
      for (int r = 0; r < R; ++r) lds_vec<DT, VEC>(dys + (row * DYP + ow0 + r) * slabw + lane * VEC, dv[r]);
#pragma unroll
      for (int fy = 0; fy < FYM; ++fy) {
        if (fy >= FY) break;
        const T* xrow = xs + ((row * p.stride[1] + fy * p.dil[1]) * XP + ow0 * SX) * slabw + lane * VEC;
#pragma unroll
        for (int i = 0; i < WIN; ++i) {
          float xv[VEC];
          lds_vec<DT, VEC>(xrow + i * slabw, xv);
          window_taps<R, FX, SX>(i, [&](int r, int fx) {
#pragma unroll
            for (int j = 0; j < VEC; ++j) acc[fy][fx][j] = fmaf(dv[r][j], xv[j], acc[fy][fx][j]);
          });
        }
      }
    }
  };

  // p.wg_probe (timing probes only, wrong results): 1 skips the multiplies,
  // 2 the loads.
  if (p.wg_tma) {
    // TMA: thread 0 keeps wg_stages - 1 steps in flight, each stage one x box
    // and one dy box completing on the stage's barrier (a step with nothing
    // to load just arrives, so every use of a stage is one phase).
    __shared__ __align__(8) dev::u64 bars[kWgradMaxStages];
    auto issue = [&](int s, int buf) {
      const dev::u32 bar = dev::smem_u32(&bars[buf]);
      Step st;
      if (!decode(s, st) || p.wg_probe == 2) {
        dev::mbar_arrive(bar);
        return;
      }
      dev::mbar_arrive_expect_tx(bar, static_cast<dev::u32>(p.wg_tx_bytes));
      dev::tma_load_4d(dev::smem_u32(stage_ptr(buf)), tx, c_lo, -p.pad[2], st.oh0 * p.stride[1] - p.pad[1],
                       st.n * isz[0] + st.id, bar);
      dev::tma_load_4d(dev::smem_u32(stage_ptr(buf) + p.wg_xbytes), tdy, c_lo, 0, st.oh0, st.n * osz[0] + st.od,
                       bar);
    };
    dev::tma_ring(bars, p.wg_stages, s_begin, s_end, issue, [&](int s, int buf) {
      if (p.wg_probe != 1) multiply(s, buf);
    });
  } else {
    // cp.async, two stages: wait for step s, then (the barrier has retired
    // step s - 1's reads of the other buffer) start step s + 1's loads and
    // multiply step s.
    if (s_begin < s_end && p.wg_probe != 2) load(s_begin, 0);
    dev::cp_async_commit();
    for (int s = s_begin; s < s_end; ++s) {
      const int buf = (s - s_begin) & 1;
      dev::cp_async_wait<0>();
      __syncthreads();
      if (s + 1 < s_end && p.wg_probe != 2) load(s + 1, buf ^ 1);
      dev::cp_async_commit();
      if (p.wg_probe != 1) multiply(s, buf);
    }
    dev::cp_async_wait<0>();
  }
  __syncthreads();  // the tiles are no longer read: their memory holds the block sums

  // Block sums, one filter row at a time: part[slot][fx][slabw], added in
  // slot order.
  float* part = reinterpret_cast<float*>(smem);
  const int E1 = FX * slabw;
  const int E = FY * E1;
  const int taps = p.filt[0] * FY * FX;
  T* __restrict__ dw = static_cast<T*>(p.out);
  float* slice = fix != nullptr ? p.acc + (static_cast<long long>(region) * p.wg_blocks + blockIdx.x) * E : nullptr;
#pragma unroll
  for (int fy = 0; fy < FYM; ++fy) {
    if (fy >= FY) break;
    if (slot < slots) {
#pragma unroll
      for (int fx = 0; fx < FX; ++fx)
#pragma unroll
        for (int j = 0; j < VEC; ++j) part[(slot * FX + fx) * slabw + lane * VEC + j] = acc[fy][fx][j];
    }
    __syncthreads();
    for (int e = threadIdx.x; e < E1; e += Cfg::kThreads) {
      float s = 0.f;
      for (int q = 0; q < slots; ++q) s += part[q * E1 + e];
      if (fix == nullptr) {
        const int c = c_lo + e % slabw;
        if (c < C) dw[static_cast<long long>(c) * taps + (fz * FY + fy) * FX + e / slabw] = from_f32<DT>(s);
      } else {
        slice[fy * E1 + e] = s;
      }
    }
    __syncthreads();
  }
  if (fix == nullptr) return;

  // The region's last block adds the slices in block order.
  if (threadIdx.x == 0) {
    dev::fixup_wait_ready(fix, p.epoch);  // the count is zeroed
    s_last = dev::fixup_count(fix, p.wg_blocks);
  }
  __syncthreads();
  if (!s_last) return;
  // G threads share an element when the block has more threads than the
  // region has elements: thread g of an element adds the g-th run of slices,
  // then the element's first thread adds the G run sums in order (so the
  // order depends on the plan only).
  const float* slices = p.acc + static_cast<long long>(region) * p.wg_blocks * E;
  const int G = E >= Cfg::kThreads ? 1 : Cfg::kThreads / E;
  const int per_pass = Cfg::kThreads / G;
  const int run = (p.wg_blocks + G - 1) / G;
  const int g = threadIdx.x % G, el = threadIdx.x / G;
  for (int base = 0; base < E; base += per_pass) {
    const int e = base + el;
    float s = 0.f;
    if (el < per_pass && e < E) {
      const int b_end = imin(p.wg_blocks, (g + 1) * run);
      for (int b = g * run; b < b_end; ++b) s += __ldcg(slices + static_cast<long long>(b) * E + e);
    }
    part[threadIdx.x] = s;
    __syncthreads();
    if (g == 0 && el < per_pass && e < E) {
      float total = 0.f;
      for (int q = 0; q < G; ++q) total += part[el * G + q];
      const int c = c_lo + e % slabw;
      // e / slabw = fy * FX + fx
      if (c < C) dw[static_cast<long long>(c) * taps + fz * FY * FX + e / slabw] = from_f32<DT>(total);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) dev::fixup_reset(fix);
}

}  // namespace gconv::direct
