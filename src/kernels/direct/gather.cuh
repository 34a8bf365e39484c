// fwd and bwd_data of the direct family: each output element gathers its taps
// from a source tile staged in shared memory.
//
//   fwd      : dst = y  (K channels, output dims), src = x  (C, input dims)
//              y[o, k]  = sum_{f, c<Cg} x[o*s - pad + f*dil, g*Cg + c] * w[k, f, c]
//   bwd_data : dst = dx (C channels, input dims),  src = dy (K, output dims)
//              dx[i, c] = sum_{f, kq<Kg : (i + pad - f*dil) % s == 0}
//                         dy[(i + pad - f*dil)/s, g*Kg + kq] * w[g*Kg + kq, f, c]
// Both are "dst channel o reads sg source channels of group o/og":
// fwd og = Kg, sg = Cg; bwd_data og = Cg, sg = Kg.
//
// A block writes a block_h x block_w tile of one depth slice for one channel
// slab. Depth taps are a loop: per valid z tap the block stages one (y, x)
// source tile plus that z-slice of the filter (as fp32) and accumulates, so
// shared memory stays 2D-sized for 3D filters. Threads own per_thread outputs
// along W, kColThreads apart (neighbouring threads write neighbouring pixels,
// which keeps both the stores and the shared-memory reads dense).
//
// bwd_data with stride s > 1: along each slot the taps reaching position i
// are f0, f0 + step, ... with step = s / gcd(s, dil); each one moves the dy
// position by -delta = -dil*step/s. The host precomputes step and delta, each
// thread finds f0 once per row/column, so no tap is tested and skipped.
#pragma once

#include "direct/common.cuh"

namespace gconv::direct {

// First tap f in [0, step) with (t - f*dil) % s == 0, or -1. t - f*dil may be
// negative; a remainder of 0 is sign-independent.
__device__ __forceinline__ int first_phase_tap(int t, int dil, int s, int step) {
  for (int f = 0; f < step; ++f)
    if ((t - f * dil) % s == 0) return f;
  return -1;
}

// Grouped entries (kGrp = G >= 2: Cg = Kg = G, compiled in). A lane's VEC
// destination channels read kSrc = max(G, VEC) consecutive source channels,
// loaded as whole vectors once per pixel and tap; destination j of the lane
// takes its G inputs from x_index(j, 0..G-1). The general entry instead reads
// VEC * sg scalars and as many weights per output and tap, which made it 4x
// slower than the implicit GEMM on ResNeXt's C/G = 4 layers.
template <int G, int VEC>
struct GroupedLane {
  static constexpr int kSrc = G > VEC ? G : VEC;
  static __device__ __forceinline__ constexpr int x_index(int j, int s) { return G > VEC ? s : (j / G) * G + s; }
};

template <int DT, int VEC, int SRC>
__device__ __forceinline__ void load_src(const typename Elem<DT>::type* xp, float (&xv)[SRC]) {
#pragma unroll
  for (int v = 0; v < SRC; v += VEC) {
    float t[VEC];
    load_vec<DT, VEC>(xp + v, t);
#pragma unroll
    for (int i = 0; i < VEC; ++i) xv[v + i] = t[i];
  }
}

// acc += the G products of destination j (weights wj of that destination).
template <int G, int VEC, int SRC>
__device__ __forceinline__ void grouped_fma(float& acc, const float (&xv)[SRC], const float (&wj)[G], int j) {
#pragma unroll
  for (int s = 0; s < G; ++s) acc = fmaf(xv[GroupedLane<G, VEC>::x_index(j, s)], wj[s], acc);
}

// kGrp: 1 = depthwise entry (vectorized), 0 = general entry (Cg, Kg <= 8 read
// at run time), G >= 2 = grouped entry for Cg = Kg = G.
template <class Cfg, bool kBwd, int kGrp>
__device__ __forceinline__ void gather(const DirectParams& p, unsigned char* smem) {
  using T = typename Cfg::T;
  constexpr int DT = Cfg::kDT, NDIM = Cfg::kNDim, VEC = Cfg::kVec, R = Cfg::kR;
  constexpr bool kDW = kGrp == 1;
  constexpr bool kGrouped = kGrp >= 2;
  constexpr int G = kGrouped ? kGrp : 1;
  using Lane = GroupedLane<G, VEC>;
  constexpr int SRC = Lane::kSrc;
  static_assert(!kGrouped || (G % VEC == 0 || VEC % G == 0), "grouped entry: G and vec nest");
  constexpr int BH = Cfg::kBH, BW = Cfg::kBW, COLT = Cfg::kColThreads, SLAB = Cfg::kSlab;

  const int lane = threadIdx.x % Cfg::kLanes;
  const int pix = threadIdx.x / Cfg::kLanes;
  const int trow = pix / COLT;
  const int tcol = pix % COLT;

  const int dst_ch = kBwd ? p.c : p.k;
  const int src_ch = kBwd ? p.k : p.c;
  const int og = kGrp > 0 ? kGrp : (kBwd ? p.cg : p.kg);
  const int sg = kGrp > 0 ? kGrp : (kBwd ? p.kg : p.cg);
  const int(&dsz)[3] = kBwd ? p.in : p.out_size;
  const int(&ssz)[3] = kBwd ? p.out_size : p.in;
  const int FZ = filt_extent<NDIM>(p, 0), FY = filt_extent<NDIM>(p, 1), FX = p.filt[2];
  const int FYX = FY * FX;

  // Block -> (slab, tile column, tile row, depth, image), slab fastest.
  int b = blockIdx.x;
  const int slab = b % p.slabs;
  b /= p.slabs;
  const int tw = b % p.tiles[2];
  b /= p.tiles[2];
  const int th = b % p.tiles[1];
  b /= p.tiles[1];
  const int dz = b % dsz[0];
  const int n = b / dsz[0];

  const int ob0 = slab * SLAB;
  int s_lo, s_hi;
  source_span<VEC>(ob0, imin(ob0 + SLAB, dst_ch), og, sg, src_ch, &s_lo, &s_hi);
  const int o0 = ob0 + lane * VEC;  // first channel this thread writes
  const bool active = o0 < dst_ch;

  const int row0 = th * BH, col0 = tw * BW;  // dst tile origin
  // Source tile origin; the host sized tile_rows/cols for this choice.
  int srow0, scol0;
  if constexpr (!kBwd) {
    srow0 = row0 * p.stride[1] - p.pad[1];
    scol0 = col0 * p.stride[2] - p.pad[2];
  } else {
    srow0 = ceil_div(row0 + p.pad[1] - (FY - 1) * p.dil[1], p.stride[1]);
    scol0 = ceil_div(col0 + p.pad[2] - (FX - 1) * p.dil[2], p.stride[2]);
  }
  const int TC = p.tile_cols, CS = p.src_cstride;

  T* xs = reinterpret_cast<T*>(smem);
  const int xs_bytes = (p.tile_rows * TC * CS * static_cast<int>(sizeof(T)) + 15) / 16 * 16;
  float* ws = reinterpret_cast<float*>(smem + xs_bytes);  // [FYX][SLAB][sg]

  // Per-thread tap walk (see the header comment): along y, taps fy0 + m*ystep
  // at staged row rl0 + m*drow; along x, per output r, taps fx0[r] + m*xstep
  // at staged column cl0[r] + m*dcol.
  int ny, fy0, ystep, rl0, drow;
  int nx[R], fx0[R], cl0[R];
  int xstep, dcol;
  if constexpr (!kBwd) {
    ny = FY, fy0 = 0, ystep = 1, rl0 = trow * p.stride[1], drow = p.dil[1];
    xstep = 1, dcol = p.dil[2];
#pragma unroll
    for (int r = 0; r < R; ++r) nx[r] = FX, fx0[r] = 0, cl0[r] = (tcol + r * COLT) * p.stride[2];
  } else {
    ystep = p.tap_step[1], drow = -p.tap_delta[1];
    xstep = p.tap_step[2], dcol = -p.tap_delta[2];
    const int ty = row0 + trow + p.pad[1];
    fy0 = first_phase_tap(ty, p.dil[1], p.stride[1], ystep);
    ny = (fy0 < 0 || fy0 >= FY) ? 0 : (FY - 1 - fy0) / ystep + 1;
    rl0 = ny > 0 ? (ty - fy0 * p.dil[1]) / p.stride[1] - srow0 : 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int tx = col0 + tcol + r * COLT + p.pad[2];
      fx0[r] = first_phase_tap(tx, p.dil[2], p.stride[2], xstep);
      nx[r] = (fx0[r] < 0 || fx0[r] >= FX) ? 0 : (FX - 1 - fx0[r]) / xstep + 1;
      cl0[r] = nx[r] > 0 ? (tx - fx0[r] * p.dil[2]) / p.stride[2] - scol0 : 0;
    }
  }

  // Outputs kColThreads apart share a stride phase when the stride divides
  // kColThreads (always for fwd and for stride 1): then one tap walk serves
  // all R outputs and each weight is loaded once per tap. The grouped
  // entries compile this path only (the plan runs them where it holds,
  // direct_plan.cpp's grouped_width): the per-output walk's registers made
  // bwd_data's grouped entries twice as slow as fwd's (145 vs 80 registers).
  const bool shared_phase = !kBwd || kGrouped || COLT % p.stride[2] == 0;

  // Shared-memory channel of source channel sg*(o/og) for each of my channels.
  int sl[VEC];
#pragma unroll
  for (int j = 0; j < VEC; ++j) sl[j] = kDW ? lane * VEC + j : (active ? (o0 + j) / og * sg - s_lo : 0);
  // Grouped entry: first staged channel of the lane's kSrc-wide source span
  // (the host's span and src_cstride are multiples of VEC, and so is this).
  const int xbase = G > VEC ? o0 / G * G - s_lo : o0 - s_lo;

  float acc[R][VEC];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[r][j] = 0.f;

  const T* __restrict__ src = static_cast<const T*>(p.a);
  const T* __restrict__ wt = static_cast<const T*>(p.b);

  for (int fz = 0; fz < FZ; ++fz) {
    // Source depth of this z tap; the test is uniform over the block.
    int sd;
    if constexpr (!kBwd) {
      sd = dz * p.stride[0] - p.pad[0] + fz * p.dil[0];
      if (sd < 0 || sd >= ssz[0]) continue;
    } else {
      const int t = dz + p.pad[0] - fz * p.dil[0];
      if (t < 0 || t % p.stride[0] != 0) continue;
      sd = t / p.stride[0];
      if (sd >= ssz[0]) continue;
    }

    __syncthreads();  // the previous slice is consumed
    stage_pixels<Cfg>(xs, src, n, sd, srow0, scol0, p.tile_rows, TC, ssz, src_ch, s_lo, s_hi - s_lo, CS);
    // Weights of this z-slice as fp32, ws[(tap*SLAB + ol)*sg + s]; the
    // global walk is contiguous in (tap, s) for fwd.
    const int wtotal = SLAB * FYX * sg;
    for (int e = threadIdx.x; e < wtotal; e += Cfg::kThreads) {
      int s, tap, ol;
      if constexpr (kGrp > 0) {
        // sg and SLAB compiled in: e is the ws index itself, split by
        // constant divisors (no run-time division by the filter size).
        constexpr int kRow = SLAB * kGrp;
        tap = e / kRow;
        const int rem = e - tap * kRow;
        ol = rem / sg;
        s = rem - ol * sg;
      } else {
        s = e % sg;
        const int rest = e / sg;
        tap = rest % FYX;
        ol = rest / FYX;
      }
      const int o = ob0 + ol;
      float v = 0.f;
      if (o < dst_ch) {
        int idx;
        if constexpr (!kBwd) {
          idx = ((o * FZ + fz) * FYX + tap) * p.cg + s;  // w[k=o, f, c=s]
        } else {
          const int grp = o / p.cg;
          idx = (((grp * p.kg + s) * FZ + fz) * FYX + tap) * p.cg + (o - grp * p.cg);  // w[g*Kg+s, f, c]
        }
        v = to_f32<DT>(wt[idx]);
      }
      ws[(tap * SLAB + ol) * sg + s] = v;
    }
    __syncthreads();

    if (!active) continue;
    if (!kBwd || shared_phase) {
      // All R outputs take the same taps: weights are loaded once per tap.
      for (int my = 0; my < ny; ++my) {
        const int fy = fy0 + my * ystep;
        const T* xrow = xs + (rl0 + my * drow) * TC * CS;
        for (int mx = 0; mx < nx[0]; ++mx) {
          const int fx = fx0[0] + mx * xstep;
          const float* wp = ws + ((fy * FX + fx) * SLAB + lane * VEC) * sg;
          const int cx = mx * dcol;
          if constexpr (kDW) {
            float wv[VEC];
            load_f32<VEC>(wp, wv);
#pragma unroll
            for (int r = 0; r < R; ++r) {
              float xv[VEC];
              load_vec<DT, VEC>(xrow + (cl0[r] + cx) * CS + lane * VEC, xv);
#pragma unroll
              for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(xv[j], wv[j], acc[r][j]);
            }
          } else if constexpr (kGrouped) {
            // R pixels' source vectors, then one destination's G weights at a
            // time across them: VEC*G/4 weight loads serve R*VEC*G FMAs.
            float xv[R][SRC];
#pragma unroll
            for (int r = 0; r < R; ++r) load_src<DT, VEC, SRC>(xrow + (cl0[r] + cx) * CS + xbase, xv[r]);
#pragma unroll
            for (int j = 0; j < VEC; ++j) {
              float wj[G];
              load_f32<G>(wp + j * G, wj);
#pragma unroll
              for (int r = 0; r < R; ++r) grouped_fma<G, VEC, SRC>(acc[r][j], xv[r], wj, j);
            }
          } else {
#pragma unroll
            for (int r = 0; r < R; ++r) {
              const T* xp = xrow + (cl0[r] + cx) * CS;
#pragma unroll
              for (int j = 0; j < VEC; ++j)
                for (int s = 0; s < sg; ++s) acc[r][j] = fmaf(to_f32<DT>(xp[sl[j] + s]), wp[j * sg + s], acc[r][j]);
            }
          }
        }
      }
    } else if constexpr (!kGrouped) {
      // bwd_data, outputs in different stride phases: taps per output.
      for (int my = 0; my < ny; ++my) {
        const int fy = fy0 + my * ystep;
        const T* xrow = xs + (rl0 + my * drow) * TC * CS;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          for (int mx = 0; mx < nx[r]; ++mx) {
            const int fx = fx0[r] + mx * xstep;
            const float* wp = ws + ((fy * FX + fx) * SLAB + lane * VEC) * sg;
            const T* xp = xrow + (cl0[r] + mx * dcol) * CS;
            if constexpr (kDW) {
              float wv[VEC], xv[VEC];
              load_f32<VEC>(wp, wv);
              load_vec<DT, VEC>(xp + lane * VEC, xv);
#pragma unroll
              for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(xv[j], wv[j], acc[r][j]);
            } else {
#pragma unroll
              for (int j = 0; j < VEC; ++j)
                for (int s = 0; s < sg; ++s) acc[r][j] = fmaf(to_f32<DT>(xp[sl[j] + s]), wp[j * sg + s], acc[r][j]);
            }
          }
        }
      }
    }
  }

  if (!active) return;
  T* __restrict__ dst = static_cast<T*>(p.out);
  const int h = row0 + trow;
  if (h >= dsz[1]) return;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int w = col0 + tcol + r * COLT;
    if (w < dsz[2]) store_vec<DT, VEC>(dst + (((n * dsz[0] + dz) * dsz[1] + h) * dsz[2] + w) * dst_ch + o0, acc[r]);
  }
}

}  // namespace gconv::direct
