// Tensor-core bwd_weight for grouped convolutions with few channels per group
// (C/G = K/G = 4, 8 or 16: ResNeXt's and RegNet's grouped 3x3 layers), where
// the implicit GEMM of one group is tiny (M = K/G rows, N = taps x C/G
// columns) and its reduction over N x output pixels is long. The igemm and
// wgmma kernels run one group (or a block-diagonal stack of groups) per tile
// and gather x once per filter tap from L2; the direct kernels multiply on
// the CUDA cores. Both ran at about half of cuDNN's speed.
//
// A block owns a slab of kWSlab channels (whole groups; the same channels of
// x and dy, since C/G == K/G) and walks a run of dy tiles (block_h x block_w
// output pixels of one image: the "steps" of the reduction, split evenly over
// the slab's blocks). Per step it stages the dy tile and the x rectangle the
// tile reads (its halo: the tile times the stride plus the filter's reach) in
// shared memory as two TMA boxes (64 channels x the tile, 64 channels x its
// x rectangle; zeros outside the tensors and past C) with the 128-byte
// swizzle, completing on the stage's mbarrier, the next step's while this one
// multiplies. (16-byte cp.async copies took as many instructions as the
// MMAs, ncu on an H100; one bulk copy a pixel was slower still: the TMA unit
// takes an instruction every ~60 cycles.) The tile's pixels inside dy are
// cut into 16-pixel tasks in row-major order, so an image smaller than the
// tile (7 x 7 in 8 x 16) wastes no task. Warp j of each group of four owns
// rows 16j .. 16j + 15 of the slab's K channels and, for each of its filter
// taps (all of them, or with 8 warps half), the 16 x 16 block of
// (k, c) pairs on the diagonal of those rows: for a task of 16 consecutive dy
// pixels it loads A = dy^T (16 k x 16 pixels) with one ldmatrix.x4.trans and,
// per tap, B = x shifted by the tap (16 pixels x 16 c) with another whose row
// addresses are the pixels' halo addresses, and runs two mma.m16n8k16. Only
// the (k, c) pairs of one group are kept (a quarter of the products at C/G =
// 4, half at 8, all at 16): the tensor cores have the slack, the staged x is
// what is scarce, and it is read once per step from global memory and once
// per tap from shared memory.
//
// Reduction over the slab's blocks, inside the launch (common/fixup.cuh): the
// slab's block that starts first zeroes its part of the fp32 accumulator,
// every block adds its group sums with atomics once that is published, and
// the block that counts last converts the part into dw. One launch, no
// memset; the sum's order varies from run to run (not deterministic).
//
// Template: DT (bf16/fp16), TH x TW (the dy tile; TW a multiple of 16), NW
// warps (4 or 8; with 8 the two halves split the filter taps).
#pragma once

#include "common/fixup.cuh"
#include "common/ptx.cuh"
#include "common/tma.cuh"
#include "common/types.cuh"
#include "tinyc/params.cuh"

namespace gconv {
namespace tinyc {

using dev::u32;

extern __shared__ __align__(16) unsigned char tcw_smem[];

// Byte offset of 16-byte chunk u of pixel p in a box that TMA wrote with
// the 128-byte swizzle (pixels of 128 bytes, the box 1024-byte aligned):
// chunk u of a row sits at position u ^ (row % 8), so the eight rows an
// ldmatrix reads at one chunk hit eight different bank groups.
__device__ __forceinline__ u32 swz(int p, int u) { return static_cast<u32>(p * 128 + ((u ^ (p & 7)) << 4)); }
// The stems' wide x copy: pixel u's 16 bytes, pixels 8-15 of each 16 swapped
// in pairs, so that 8 pixels at stride 2 (a stride-2 tap's ldmatrix rows)
// land in 8 different bank groups.
__device__ __forceinline__ u32 wide_px(int u) { return static_cast<u32>((u ^ ((u >> 3) & 1)) << 4); }
// The stems' x box for a dy tile starting at column ow0 starts on a 16-byte
// unit of the row (TMA faults on a start off 16 bytes): this many pixels
// (0 .. xu - 1) before the tile's halo.
__device__ __forceinline__ int box_lead(const TinycWgradParams& p, int ow0) {
  const int x0 = ow0 * p.sw - p.pw;
  return ((x0 % p.xu) + p.xu) % p.xu;
}

// STEM: the same kernel for one group of at most 8 input channels (the C = 3
// stems' weight gradient): the slab runs over K only, x is staged as packed
// rows of C channels a pixel (a tensor map of W * C elements a row: its
// pixels are not 16-byte rows), then widened by the block into 16 bytes a
// pixel (c past C zero) that ldmatrix reads: one x4 load covers two taps and
// one mma a tap and task covers every c. (2-byte gathers from the packed
// rows were ~250 instructions a task and warp: the kernel was issue-bound.)
// Slabs of at most 32 K rows use 2 (or 1) warps over K and the rest over taps.
template <int DT, int TH, int TW, int NW, bool STEM = false>
__device__ __forceinline__ void bwd_weight(const TinycWgradParams& p, const dev::TensorMap* tx,
                                           const dev::TensorMap* tdy) {
  typedef typename dev::Elem<DT>::T T;
  static_assert(TW % 16 == 0, "a tile row is whole 16-pixel tasks when the image is wider than the tile");
  static_assert(NW == 4 || NW == 8, "four warps cover the slab's 64 K rows");
  // With 8 warps the two halves split the filter taps (each keeps the sums
  // of its own, so a thread holds half the accumulators and a block of 8
  // warps fits two to an SM).
  constexpr int kNT = NW * 32, kParts = NW / 4, kTpp = (kWMaxTaps + kParts - 1) / kParts;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int c_lo = static_cast<int>(blockIdx.y) * kWSlab;
  const int kc = p.k - c_lo < kWSlab ? p.k - c_lo : kWSlab;  // K channels of this slab
  // Warps over the slab's 16-row K blocks (jn) and the taps (the rest).
  const int jn = STEM ? (kc <= 16 ? 1 : kc <= 32 ? 2 : 4) : 4;
  const int j = warp & (jn - 1), part = warp / jn;
  const int tpp = STEM ? (p.taps + NW / jn - 1) / (NW / jn) : kTpp;  // this warp's taps (<= kTpp)
  const int taps = p.taps, cg = p.cg;
  const int region = kc * taps * cg;  // this slab's part of dw (contiguous: dw is K x taps x C/G)
  float* acc_g = p.acc + static_cast<long long>(c_lo) * taps * cg;
  dev::u64* fix = p.flags + static_cast<long long>(dev::kFixupWords) * blockIdx.y;
  __shared__ int s_word;
  __shared__ __align__(8) dev::u64 bars[2];  // one per stage buffer, armed by thread 0
  // Stages at 1024-byte boundaries (the swizzle's period): [dy box][x box]
  // each, then one pixel of zeros (the A rows of lanes past the tile's
  // valid pixels).
  const u32 smem = (dev::smem_u32(tcw_smem) + 1023u) & ~1023u;
  constexpr u32 kDyBytes = (TH * TW * 128 + 1023) / 1024 * 1024;
  const u32 zero_px = smem + 2 * p.stage_bytes;
  const u32 xwide = zero_px + 128;  // STEM: the stage's x rectangle, 16 bytes a pixel (wide_px)

  // The slab's first block zeroes its part of the accumulator.
  if (tid == 0) {
    s_word = dev::fixup_begin(fix, p.epoch);
    dev::mbar_init(dev::smem_u32(&bars[0]), 1);
    dev::mbar_init(dev::smem_u32(&bars[1]), 1);
  }
  if (tid < 8) dev::st_shared_v4(zero_px + tid * 16, 0u, 0u, 0u, 0u);
  __syncthreads();
  if (s_word) {
    for (int e = tid; e < region; e += kNT) acc_g[e] = 0.f;
    __syncthreads();  // the part is zeroed; the release below covers it
    if (tid == 0) dev::fixup_publish(fix, p.epoch);
  }

  const int t0 = part * tpp;  // this warp's first tap
  constexpr int kNB = STEM ? 1 : 2;  // n8 blocks a tap: 16 c of the slab's groups, or the stem's 8
  float acc[kTpp][kNB][4];
#pragma unroll
  for (int t = 0; t < kTpp; ++t)
#pragma unroll
    for (int nb = 0; nb < kNB; ++nb)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[t][nb][r] = 0.f;
  // Halo pixel offset of each of this warp's taps (the host's table: a
  // division per tap here was ~20 dependent instructions each).
  // STEM: lanes 16-31 address the second tap of each pair (ldmatrix x4).
  int toff[kTpp];
#pragma unroll
  for (int t = 0; t < kTpp; ++t) {
    if constexpr (STEM) {
      const int tap = t0 + t + (lane >= 16 ? 1 : 0);
      toff[t] = t < tpp && tap < p.taps ? p.toffs[tap] : 0;
    } else {
      toff[t] = t0 + t < kWMaxTaps ? p.toffs[t0 + t] : 0;
    }
  }
  // ldmatrix rows of this lane. A (.trans, dy rows are pixels): matrices
  // (k 0-7, px 0-7), (k 8-15, px 0-7), (k 0-7, px 8-15), (k 8-15, px 8-15).
  // B (.trans, x rows are pixels): (px 0-7, c 0-7), (px 8-15, c 0-7),
  // (px 0-7, c 8-15), (px 8-15, c 8-15): registers 0-1 and 2-3 are the B
  // fragments of the two n8 blocks.
  const int pa = (lane & 7) + 8 * (lane >> 4), ka = 8 * ((lane >> 3) & 1);
  const int pb = (lane & 7) + 8 * ((lane >> 3) & 1), cb = 8 * (lane >> 4);

  const int s0 = static_cast<int>(static_cast<long long>(p.steps) * blockIdx.x / gridDim.x);
  const int s1 = static_cast<int>(static_cast<long long>(p.steps) * (blockIdx.x + 1) / gridDim.x);
  // Both boxes' bytes, zero fill included (the stems' x rows: C channels a pixel).
  const u32 stage_tx = static_cast<u32>(TH * TW * 128 + p.xh * p.xw * (STEM ? p.c * 2 : 128));
  // Step s: dy tile (ty, tx) of image n, and the x rectangle it reads; the
  // block's steps are consecutive, so both walks step an odometer (one
  // division at the block's first step).
  struct Tile {
    int tx, ty, n;
  };
  const auto tile_of = [&](int s) {
    Tile t;
    t.tx = s % p.tiles_w;
    s /= p.tiles_w;
    t.ty = s % p.tiles_h;
    t.n = s / p.tiles_h;
    return t;
  };
  const auto next_tile = [&](Tile& t) {
    if (++t.tx == p.tiles_w) {
      t.tx = 0;
      if (++t.ty == p.tiles_h) t.ty = 0, ++t.n;
    }
  };
  // Thread 0: two TMA boxes a step (64 channels x the tile; 64 channels x
  // its x rectangle), zeros outside the tensors and past C.
  const auto stage = [&](const Tile& tt, int buf) {
    const int n = tt.n, oh0 = tt.ty * TH, ow0 = tt.tx * TW;
    const u32 base = smem + buf * p.stage_bytes, bar = dev::smem_u32(&bars[buf]);
    dev::mbar_arrive_expect_tx(bar, stage_tx);
    dev::tma_load_4d(base, tdy, c_lo, ow0, oh0, n, bar);
    if constexpr (STEM) {
      // The box starts box_lead pixels before the halo, on a 16-byte unit.
      dev::tma_load_3d(base + kDyBytes, tx, (ow0 * p.sw - p.pw - box_lead(p, ow0)) * p.c, oh0 * p.sh - p.ph, n, bar);
    } else {
      dev::tma_load_4d(base + kDyBytes, tx, c_lo, ow0 * p.sw - p.pw, oh0 * p.sh - p.ph, n, bar);
    }
  };
  Tile cur = tile_of(s0), ahead = cur;  // the step multiplied, the step staged next
  if (tid == 0 && s0 < s1) stage(ahead, 0);
  next_tile(ahead);
  for (int s = s0; s < s1; ++s) {
    const int k = s - s0, buf = k & 1;
    if (tid == 0 && s + 1 < s1) stage(ahead, buf ^ 1);  // its buffer's reads ended at the barrier closing step s - 1
    next_tile(ahead);
    dev::mbar_wait(dev::smem_u32(&bars[buf]), static_cast<u32>((k >> 1) & 1));
    const int oh0 = cur.ty * TH, ow0 = cur.tx * TW;
    next_tile(cur);
    // The tile's pixels inside dy, nh x nw, as 16-pixel tasks in row-major
    // order (tiles at the image's edge, and images smaller than the tile,
    // have fewer tasks); a lane past them reads the zero pixel.
    const int nh = p.ho - oh0 < TH ? p.ho - oh0 : TH, nw = p.wo - ow0 < TW ? p.wo - ow0 : TW;
    const int tasks = (nh * nw + 15) / 16;
    const u32 dys = smem + buf * p.stage_bytes, xs = dys + kDyBytes;
    // This lane's A and B pixels (row, column of the tile), stepped by 16 a
    // task without a division (a division per task and lane was a chain of
    // ~20 dependent instructions ahead of the task's loads).
    // (A whole tile's rows are TW wide: a shift; an edge tile's nw divides.)
    int ra = nw == TW ? pa / TW : pa / nw, rb = nw == TW ? pb / TW : pb / nw;
    int ca = pa - ra * nw, cb2 = pb - rb * nw;
    int lead = 0;  // STEM: pixels of the x box ahead of the halo (stage)
    if constexpr (STEM) {
      lead = box_lead(p, ow0);
      // Widen the packed rows (C channels a pixel) into wide_px's 16 bytes.
      const unsigned short* xe = reinterpret_cast<const unsigned short*>(tcw_smem + (xs - dev::smem_u32(tcw_smem)));
      for (int px = tid; px < p.xh * p.xw; px += kNT) {
        u32 v[4] = {0u, 0u, 0u, 0u};
#pragma unroll
        for (int ch = 0; ch < kMaxC; ++ch)
          if (ch < p.c) v[ch >> 1] |= static_cast<u32>(xe[px * p.c + ch]) << (16 * (ch & 1));
        dev::st_shared_v4(xwide + wide_px(px), v[0], v[1], v[2], v[3]);
      }
      __syncthreads();  // the wide copy is complete
    }
    const int ua = 2 * j + (ka >> 3), ub = 2 * j + (cb >> 3);
#pragma unroll 1
    for (int tk = 0; tk < tasks; ++tk) {
      const bool va = ra < nh, vb = rb < nh;
      u32 a[4];
      dev::ldmatrix_x4_trans(a, va ? dys + swz(ra * TW + ca, ua) : zero_px);
      const int hp = vb ? (rb * p.sh) * p.xw + cb2 * p.sw : 0;
      if constexpr (STEM) {
        // Taps t and t + 1: matrices (px 0-7), (px 8-15) of each, c 0-7.
        const int hw = hp + (vb ? lead : 0);
#pragma unroll
        for (int t = 0; t < kTpp; t += 2) {
          if (t < tpp && t0 + t < taps) {
            u32 b[4];
            dev::ldmatrix_x4_trans(b, xwide + wide_px(hw + toff[t]));
            const u32 b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
            dev::mma<DT>(acc[t][0], a, b0);
            if (t + 1 < kTpp && t + 1 < tpp && t0 + t + 1 < taps) dev::mma<DT>(acc[t + 1 < kTpp ? t + 1 : t][0], a, b1);
          }
        }
      } else {
#pragma unroll
        for (int t = 0; t < kTpp; ++t) {
          if (t0 + t < taps) {
            u32 b[4];
            dev::ldmatrix_x4_trans(b, xs + swz(hp + toff[t], ub));
            const u32 b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
            dev::mma<DT>(acc[t][0], a, b0);
            dev::mma<DT>(acc[t][kNB - 1], a, b1);
          }
        }
      }
      ca += 16;
      while (ca >= nw) ca -= nw, ++ra;
      cb2 += 16;
      while (cb2 >= nw) cb2 -= nw, ++rb;
    }
    __syncthreads();  // buffer buf is read: the stage after next may overwrite it
  }

  if (tid == 0) dev::fixup_wait_ready(fix, p.epoch);  // the part is zeroed
  __syncthreads();
  // D fragment of an n8 block nb: register r is row (lane / 4) + 8 * (r / 2),
  // column 8 * nb + 2 * (lane % 4) + r % 2 of the warp's 16 x 16 block; the
  // pair is one group's when row and column agree above the group's bits
  // (C/G a power of two up to 16).
#pragma unroll
  for (int t = 0; t < kTpp; ++t)
#pragma unroll
    for (int nb = 0; nb < kNB; ++nb)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int krow = (lane >> 2) + 8 * (r >> 1), ccol = 8 * nb + 2 * (lane & 3) + (r & 1);
        const int kl = 16 * j + krow;
        if constexpr (STEM) {  // one group: every c below C (cg = C)
          if (t < tpp && t0 + t < taps && ccol < cg && kl < kc)
            atomicAdd(acc_g + (kl * taps + t0 + t) * cg + ccol, acc[t][nb][r]);
        } else {
          if (t0 + t < taps && (krow ^ ccol) < cg && kl < kc)
            atomicAdd(acc_g + (kl * taps + t0 + t) * cg + (ccol & (cg - 1)), acc[t][nb][r]);
        }
      }
  __syncthreads();  // the block's sums are added (fixup_count releases them)
  if (tid == 0) s_word = dev::fixup_count(fix, static_cast<int>(gridDim.x));
  __syncthreads();
  if (!s_word) return;
  // The last block: every block's sums are in; dw = the part, converted.
  T* dw = static_cast<T*>(p.dw_out) + static_cast<long long>(c_lo) * taps * cg;
  for (int e = tid; e < region; e += kNT) dw[e] = dev::Elem<DT>::from_f32(__ldcg(acc_g + e));
  __syncthreads();
  if (tid == 0) dev::fixup_reset(fix);
}

}  // namespace tinyc
}  // namespace gconv
