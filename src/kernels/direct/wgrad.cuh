// bwd_weight of the direct family:
//   dw[k, f, c] = sum_{n, o} dy[n, o, k] * x[n, o*s - pad + f*dil, g*Cg + c]   (k = g*Kg + kq)
//
// Work split. dw's channel index is the pair e = k*Cg + c (E = K*Cg pairs, c
// fastest, as stored); a block owns a slab of kSlab pairs, one pass of taps
// and one split of the (n, od, tile) items, all flattened into blockIdx.x.
// A pass is one z tap and up to taps_per_pass (y, x) taps. Inside a block,
// pixel thread `slot` = q * tap_slots + ts takes taps ts + r*tap_slots
// (r < per_thread) and the tile positions q, q + pos_groups, ...; so small
// filters still use every thread (3x3 on 32 slots: 3 taps each, 10 groups).
//
// Per item the block stages the dy tile and the x halo tile, each thread
// accumulates in registers (fp32); at the end the pos_groups partial sums are
// added in a fixed order through shared memory and the block's result goes to
//   - atomicAdd into the fp32 accumulator, or
//   - (deterministic, _det) its own split's slice of the workspace.
// In one launch (p.fixup; common/fixup.cuh has the protocol) the splits of a
// (slab, pass) region meet on the region's words:
//   - atomics: the split that starts first zeroes the region while the
//     others stage their tiles, every split waits for that before it adds,
//     and the split whose add completes the count converts the region to the
//     output dtype (fp32: the accumulator is dw itself);
//   - deterministic: the slices need no zeroing; each split stores its
//     slice, then the first to get there zeroes the count, and the split
//     that completes the count adds the region's slices in split order
//     0..S-1 (whatever split counts last, the same sums as wgrad_finish's,
//     bit for bit) and stores dw.
// A lone split stores its sums directly. Without p.fixup the accumulator is
// zeroed by a memset (atomics) and a second launch, wgrad_finish, converts
// it or adds the slices.
#pragma once

#include "common/fixup.cuh"
#include "direct/common.cuh"

namespace gconv::direct {

// One pass over the dw elements of a (slab, pass) region, the elements the
// block's final loop adds into: ZERO: acc = 0; else dw = dtype(acc) (nothing
// when the accumulator is dw itself).
template <class Cfg, bool ZERO>
__device__ __forceinline__ void wgrad_region(const DirectParams& p, int eb0, int E, int chunk, int tpp, int fyx_n,
                                             int fz, int fvol) {
  using T = typename Cfg::T;
  constexpr int SLAB = Cfg::kSlab;
  if (!ZERO && static_cast<void*>(p.acc) == p.out) return;
  T* dw = static_cast<T*>(p.out);
  for (int o = threadIdx.x; o < tpp * SLAB; o += Cfg::kThreads) {
    const int fyx = chunk * tpp + o / SLAB, e = eb0 + o % SLAB;
    if (fyx >= fyx_n || e >= E) continue;
    const int kk = e / p.cg, c = e - kk * p.cg;
    const int idx = (kk * fvol + fz * fyx_n + fyx) * p.cg + c;
    if constexpr (ZERO) {
      p.acc[idx] = 0.f;
    } else {
      dw[idx] = from_f32<Cfg::kDT>(__ldcg(p.acc + idx));
    }
  }
}

// Deterministic, one launch: the split that counts last adds the S slices of
// its (slab, pass) region in split order, as wgrad_finish does (s = 0, then
// s += slice 0, 1, ...: the same result bit for bit), and stores dw. The
// slices were written by other blocks: read from L2 (__ldcg) after the
// count's acquire, kBatch loads in flight a thread, since one block reads
// S * region elements. Walked so that a warp's loads coalesce: depthwise
// (dw[k][tap], taps contiguous) a warp per channel and a lane per tap, else
// in pair order (c fastest) as wgrad_region.
//
// Not inlined, and given parameter values only (a reference to the kernel's
// parameters would copy them to the stack; values wgrad decoded before its
// mainloop would stay live through it): inlined, or given those values,
// this loop cost some 1024-thread entries (64 registers) a spill and 1D r8
// v8 gconv_dw 128 -> 148 registers (one block an SM instead of two). So the
// region is decoded here again.
template <class Cfg, bool kDW>
__device__ __noinline__ void wgrad_sum_slices(const float* acc, void* out, int dw_elements, int S, int cg, int E,
                                              int slabs, int passes, int chunks, int tpp, int fyx_n, int fvol) {
  using T = typename Cfg::T;
  constexpr int SLAB = Cfg::kSlab;
  constexpr int kBatch = 8;
  const int slab = static_cast<int>(blockIdx.x % static_cast<unsigned>(slabs));
  const int pass = static_cast<int>(blockIdx.x / static_cast<unsigned>(slabs) % static_cast<unsigned>(passes));
  const int fz = pass / chunks, chunk = pass % chunks, eb0 = slab * SLAB;
  auto element = [&](int idx) {
    const float* src = acc + idx;
    const long long slice = dw_elements;
    float s = 0.f;
    int sp = 0;
    for (; sp + kBatch <= S; sp += kBatch) {
      float v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) v[j] = __ldcg(src + (sp + j) * slice);
#pragma unroll
      for (int j = 0; j < kBatch; ++j) s += v[j];
    }
    for (; sp < S; ++sp) s += __ldcg(src + sp * slice);
    static_cast<T*>(out)[idx] = from_f32<Cfg::kDT>(s);
  };
  constexpr int kWarp = Cfg::kThreads < 32 ? Cfg::kThreads : 32;
  if constexpr (kDW && Cfg::kThreads % kWarp == 0) {
    const int lane = threadIdx.x % kWarp;
    for (int el = threadIdx.x / kWarp; el < SLAB; el += Cfg::kThreads / kWarp) {
      const int e = eb0 + el;
      if (e >= E) break;
      for (int t = lane; t < tpp; t += kWarp) {
        const int fyx = chunk * tpp + t;
        if (fyx >= fyx_n) break;
        element(e * fvol + fz * fyx_n + fyx);  // Cg = 1: k = e, c = 0
      }
    }
  } else {
    for (int o = threadIdx.x; o < tpp * SLAB; o += Cfg::kThreads) {
      const int fyx = chunk * tpp + o / SLAB, e = eb0 + o % SLAB;
      if (fyx >= fyx_n || e >= E) continue;
      const int kk = e / cg, c = e - kk * cg;
      element((kk * fvol + fz * fyx_n + fyx) * cg + c);
    }
  }
}

// Grouped entries (Cg = Kg = G, compiled in): a lane's VEC pairs e0 + j are
// kDy consecutive k (k0 = e0 / G) times their c, so they read kDy dy
// channels and kX consecutive x channels from xb, each as one vector per
// position (general entry: VEC scalars of each). Pair j takes dy j / G (0 if
// G > VEC) and x x_index(j): with G <= VEC the lane's k are whole groups or
// lie in one group (powers of two), with G > VEC its pairs are VEC
// consecutive c of one k.
template <int G, int VEC>
struct WgradLane {
  static constexpr int kDy = G <= VEC ? VEC / G : 1;
  static constexpr int kX = G <= VEC ? (G > kDy ? G : kDy) : VEC;
  static __device__ __forceinline__ constexpr int dy_index(int j) { return G <= VEC ? j / G : 0; }
  static __device__ __forceinline__ constexpr int x_index(int j) { return G <= VEC ? j / G / G * G + j % G : j; }
};

// kGrp: 1 = depthwise entry, 0 = general entry, G >= 2 = grouped entry.
template <class Cfg, int kGrp>
__device__ __forceinline__ void wgrad(const DirectParams& p, unsigned char* smem) {
  using T = typename Cfg::T;
  constexpr int DT = Cfg::kDT, NDIM = Cfg::kNDim, VEC = Cfg::kVec, R = Cfg::kR;
  constexpr int BH = Cfg::kBH, BW = Cfg::kBW, SLAB = Cfg::kSlab;
  constexpr bool kDW = kGrp == 1;
  constexpr bool kGrouped = kGrp >= 2;
  constexpr int G = kGrouped ? kGrp : 1;
  using Lane = WgradLane<G, VEC>;
  static_assert(!kGrouped || (G % VEC == 0 || VEC % G == 0), "grouped entry: G and vec nest");

  const int lane = threadIdx.x % Cfg::kLanes;
  const int slot = threadIdx.x / Cfg::kLanes;
  const int FZ = filt_extent<NDIM>(p, 0), FY = filt_extent<NDIM>(p, 1), FX = p.filt[2];
  const int FYX = FY * FX;
  const int E = p.k * p.cg;

  int b = blockIdx.x;
  const int slab = b % p.slabs;
  b /= p.slabs;
  const int pass = b % p.passes;
  const int split = b / p.passes;
  const int fz = pass / p.chunks;
  const int chunk = pass % p.chunks;

  // Channel spans: dy channels k of my pairs, x channels g*Cg + c.
  const int eb0 = slab * SLAB;
  const int e_end = imin(eb0 + SLAB, E);
  int dy_lo, dy_hi, x_lo, x_hi;
  source_span<VEC>(eb0, e_end, p.cg, 1, p.k, &dy_lo, &dy_hi);
  {
    const int k_first = eb0 / p.cg, k_last = (e_end - 1) / p.cg;
    source_span<VEC>(k_first, k_last + 1, p.kg, p.cg, p.c, &x_lo, &x_hi);
  }
  const int e0 = eb0 + lane * VEC;
  const bool active = e0 < E;
  // Grouped entry: staged offsets of the lane's first dy and x channel.
  const int k0 = e0 / G;
  const int dyb = k0 - dy_lo;
  const int xb = G <= VEC ? k0 / G * G - x_lo : k0 / G * G + e0 % G - x_lo;
  int dyl[VEC], xl[VEC];
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    if constexpr (kDW) {
      dyl[j] = xl[j] = lane * VEC + j;
    } else {
      const int e = active ? e0 + j : eb0;
      const int kk = e / p.cg, c = e - kk * p.cg;
      dyl[j] = kk - dy_lo;
      xl[j] = kk / p.kg * p.cg + c - x_lo;
    }
  }

  // My taps and positions.
  const int TPP = p.taps_per_pass, TS = p.tap_slots, Q = p.pos_groups;
  const int q = slot / TS, ts = slot % TS;
  const bool slot_active = q < Q;
  const int TC = p.tile_cols, XCS = p.src_cstride, DYCS = p.dy_cstride;
  bool tap_ok[R];
  int xoff[R];  // staged-pixel offset of my tap r from output (0, 0)
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int t = ts + r * TS;
    const int fyx = chunk * TPP + t;
    tap_ok[r] = t < TPP && fyx < FYX;
    const int fy = tap_ok[r] ? fyx / FX : 0, fx = tap_ok[r] ? fyx % FX : 0;
    xoff[r] = fy * p.dil[1] * TC + fx * p.dil[2];
  }

  T* xs = reinterpret_cast<T*>(smem);
  const int xs_bytes = (p.tile_rows * TC * XCS * static_cast<int>(sizeof(T)) + 15) / 16 * 16;
  T* dys = reinterpret_cast<T*>(smem + xs_bytes);  // [BH*BW][DYCS]

  float acc[R][VEC];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[r][j] = 0.f;

  // One launch with atomics (p.fixup): the split of this region that starts
  // first zeroes it (the shared word is read before the tiles are staged
  // over it). Deterministic splits meet after their mainloop only (below).
  const int fvol = FZ * FYX;
  dev::u64* fix = nullptr;
  if constexpr (!Cfg::kDet) {
    if (p.fixup && p.splits > 1) {
      fix = p.flags + static_cast<long long>(dev::kFixupWords) * (blockIdx.x % (p.slabs * p.passes));
      volatile int* word = reinterpret_cast<volatile int*>(smem);
      if (threadIdx.x == 0) word[0] = dev::fixup_begin(fix, p.epoch);
      __syncthreads();
      const bool zero = word[0];
      __syncthreads();
      if (zero) {
        wgrad_region<Cfg, true>(p, eb0, E, chunk, TPP, FYX, fz, fvol);
        __syncthreads();  // the region is zeroed; the release below covers it
        if (threadIdx.x == 0) dev::fixup_publish(fix, p.epoch);
      }
    }
  }

  const T* __restrict__ x = static_cast<const T*>(p.a);
  const T* __restrict__ dy = static_cast<const T*>(p.b);
  const int it_begin = static_cast<int>(static_cast<long long>(split) * p.items / p.splits);
  const int it_end = static_cast<int>(static_cast<long long>(split + 1) * p.items / p.splits);

  for (int it = it_begin; it < it_end; ++it) {
    int rest = it;
    const int tw = rest % p.tiles[2];
    rest /= p.tiles[2];
    const int th = rest % p.tiles[1];
    rest /= p.tiles[1];
    const int od = rest % p.out_size[0];
    const int n = rest / p.out_size[0];
    const int id = od * p.stride[0] - p.pad[0] + fz * p.dil[0];
    if (id < 0 || id >= p.in[0]) continue;  // this z tap reads padding only; uniform
    const int oh0 = th * BH, ow0 = tw * BW;

    __syncthreads();  // the previous item is consumed
    stage_pixels<Cfg>(dys, dy, n, od, oh0, ow0, BH, BW, p.out_size, p.k, dy_lo, dy_hi - dy_lo, DYCS);
    stage_pixels<Cfg>(xs, x, n, id, oh0 * p.stride[1] - p.pad[1], ow0 * p.stride[2] - p.pad[2], p.tile_rows, TC,
                      p.in, p.c, x_lo, x_hi - x_lo, XCS);
    __syncthreads();

    if (!active || !slot_active) continue;
    const int nh = imin(BH, p.out_size[1] - oh0), nw = imin(BW, p.out_size[2] - ow0);
    for (int pos = q; pos < BH * BW; pos += Q) {
      const int oy = pos / BW, ox = pos % BW;
      if (oy >= nh || ox >= nw) continue;  // outside dy: not part of the sum
      const T* dyp = dys + pos * DYCS;
      const int xbase = oy * p.stride[1] * TC + ox * p.stride[2];
      if constexpr (kDW) {
        float dv[VEC];
        load_vec<DT, VEC>(dyp + lane * VEC, dv);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if (!tap_ok[r]) continue;
          float xv[VEC];
          load_vec<DT, VEC>(xs + (xbase + xoff[r]) * XCS + lane * VEC, xv);
#pragma unroll
          for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(dv[j], xv[j], acc[r][j]);
        }
      } else if constexpr (kGrouped) {
        float dv[Lane::kDy];
        load_vec<DT, Lane::kDy>(dyp + dyb, dv);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if (!tap_ok[r]) continue;
          float xv[Lane::kX];
          load_vec<DT, Lane::kX>(xs + (xbase + xoff[r]) * XCS + xb, xv);
#pragma unroll
          for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(dv[Lane::dy_index(j)], xv[Lane::x_index(j)], acc[r][j]);
        }
      } else {
        float dv[VEC];
#pragma unroll
        for (int j = 0; j < VEC; ++j) dv[j] = to_f32<DT>(dyp[dyl[j]]);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if (!tap_ok[r]) continue;
          const T* xp = xs + (xbase + xoff[r]) * XCS;
#pragma unroll
          for (int j = 0; j < VEC; ++j) acc[r][j] = fmaf(dv[j], to_f32<DT>(xp[xl[j]]), acc[r][j]);
        }
      }
    }
  }

  // Block reduction over position groups, in q order: red[q][ts][r][SLAB].
  __syncthreads();  // the tiles are no longer read; reuse their memory
  float* red = reinterpret_cast<float*>(smem);
  if (slot_active) {
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int j = 0; j < VEC; ++j) red[((q * TS + ts) * R + r) * SLAB + lane * VEC + j] = acc[r][j];
  }
  if (!Cfg::kDet && fix != nullptr && threadIdx.x == 0) dev::fixup_wait_ready(fix, p.epoch);  // the region is zeroed
  __syncthreads();
  const int outs = TS * R * SLAB;
  for (int o = threadIdx.x; o < outs; o += Cfg::kThreads) {
    const int el = o % SLAB;
    const int tr = o / SLAB;  // = ts' * R + r'
    const int t = tr / R + (tr % R) * TS;
    const int fyx = chunk * TPP + t;
    const int e = eb0 + el;
    if (t >= TPP || fyx >= FYX || e >= E) continue;
    float sum = 0.f;
    for (int qq = 0; qq < Q; ++qq) sum += red[(qq * TS * R + tr) * SLAB + el];
    const int kk = e / p.cg, c = e - kk * p.cg;
    const int idx = (kk * fvol + fz * FYX + fyx) * p.cg + c;
    if (p.fixup && p.splits == 1) {
      // The region's one split: no accumulator. 0 + sum rounds as
      // wgrad_finish's sum of one slice does (-0 becomes +0).
      static_cast<T*>(p.out)[idx] = from_f32<Cfg::kDT>(Cfg::kDet ? 0.f + sum : sum);
    } else if constexpr (Cfg::kDet) {
      p.acc[static_cast<long long>(split) * p.dw_elements + idx] = sum;
    } else {
      atomicAdd(p.acc + idx, sum);
    }
  }
  // Deterministic: the slices need no zeroing, only the count, so the
  // protocol's first step moves here, after the slice is stored: the split
  // that swaps the epoch in first zeroes the count and publishes ready, and
  // every split counts once ready holds the epoch (nobody counts before the
  // count is zeroed; the zeroing split waits for nobody). Nothing of it is
  // then held through the mainloop, whose registers stay as they were.
  if constexpr (Cfg::kDet) {
    if (p.fixup && p.splits > 1)
      fix = p.flags + static_cast<long long>(dev::kFixupWords) * (blockIdx.x % (p.slabs * p.passes));
  }
  if (fix == nullptr) return;
  __syncthreads();  // the block's sums are stored or added (fixup_count releases them); red is no longer read
  volatile int* word = reinterpret_cast<volatile int*>(smem);
  if (threadIdx.x == 0)
    word[0] = Cfg::kDet ? dev::fixup_arrive_slices(fix, p.epoch, p.splits) : dev::fixup_count(fix, p.splits);
  __syncthreads();
  if (!word[0]) return;
  if constexpr (Cfg::kDet) {
    // Every split has counted: the words can be reset before the sum, which
    // leaves nothing live across the call.
    if (threadIdx.x == 0) dev::fixup_reset(fix);
    wgrad_sum_slices<Cfg, kDW>(p.acc, p.out, p.dw_elements, p.splits, p.cg, p.k * p.cg, p.slabs, p.passes, p.chunks,
                               p.taps_per_pass, filt_extent<NDIM>(p, 1) * p.filt[2],
                               filt_extent<NDIM>(p, 0) * filt_extent<NDIM>(p, 1) * p.filt[2]);
  } else {
    wgrad_region<Cfg, false>(p, eb0, E, chunk, TPP, FYX, fz, fvol);
    if (threadIdx.x == 0) dev::fixup_reset(fix);
  }
}

// dw[i] = sum over the acc_splits slices of the accumulator, in slice order,
// rounded once to the output dtype: the second launch when p.fixup is off
// (GCONV_SPLITK_FIXUP=0). wgrad_sum_slices adds in the same order.
template <class Cfg>
__device__ __forceinline__ void wgrad_finish(const DirectParams& p) {
  using T = typename Cfg::T;
  T* __restrict__ dw = static_cast<T*>(p.out);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.dw_elements; i += stride) {
    float s = 0.f;
    for (int sp = 0; sp < p.acc_splits; ++sp) s += p.acc[sp * static_cast<long long>(p.dw_elements) + i];
    dw[i] = from_f32<Cfg::kDT>(s);
  }
}

}  // namespace gconv::direct
