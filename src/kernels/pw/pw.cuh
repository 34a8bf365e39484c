// Pointwise convolutions (1x1, stride 1, no padding, one group) as a
// streaming GEMM: out[M][nn] = a[M][kd] * B[kd][nn] with the whole
// reduction (kd <= TK) in one pass. These layers (the 1x1 convolutions of
// MobileNet, ShuffleNet, EfficientNet, RegNet) are bound by memory: a row of
// a moves kd channels in and nn out for 2 * kd * nn flops. What the implicit
// GEMM kernels lose on them is the fixed cost of a tile (one k-step of work
// per prologue and epilogue) and the epilogue's narrow stores on channel
// counts off 8 (58, 116, 230). Here:
//   - a block loads its B tile (TN output channels x kd) once and then walks
//     M tiles blockIdx.y, + gridDim.y, ... (a persistent grid of a few blocks
//     per SM) through a ring of ST shared-memory stages filled by cp.async;
//   - a tile's A rows are one contiguous byte range of global memory (rows
//     of kd channels back to back), copied in whole 16-byte chunks whatever
//     kd is;
//   - the output tile goes through shared memory and leaves in 16-byte
//     stores; with one N tile (nn <= TN) it is again one contiguous range,
//     so nn need not be a multiple of 8.
// Warps split the tile's rows (TM / NW each, 16 or 32) and each computes all
// TN columns with mma.sync (m16n8k16, fp32 accumulators).
#pragma once

#include "common/ptx.cuh"
#include "pw/params.cuh"

namespace gconv {
namespace pw {

using dev::u16;
using dev::u32;

// The B tile, zero outside n < ncols and k < kd up to the reduction's
// 16-element steps (kp). fwd keeps sB[n][k] (a row of w is a row of B^T),
// bwd_data sB[k][n] (w's rows run along n): both copied as they lie, in
// 16-byte cp.async chunks where the rows allow (fwd: kd % 8 == 0; bwd_data:
// nn % 8 == 0), else element by element with 8 loads in flight a thread.
// The copies join the caller's first cp.async group.
template <int TN, int TK, int NT>
__device__ __forceinline__ void load_b(const PwParams& p, u16* sB, int n0, int ncols, int kp) {
  const u16* __restrict__ w = static_cast<const u16*>(p.w);
  const int tid = threadIdx.x;
  const u32 sB_u = dev::smem_u32(sB);
  const bool trans = p.b_trans != 0;
  const int stride = trans ? TN + 8 : TK + 8;        // elements per smem row (PwParams::b_stride)
  const int rows = trans ? kp : TN;                  // smem rows (k for bwd_data, n for fwd)
  const int cols = trans ? TN : kp;                  // elements a row holds
  const int lim_r = trans ? p.kd : ncols;            // live rows
  const int lim_c = trans ? ncols : p.kd;            // live elements of a row
  const bool vec = trans ? p.o_rows8 != 0 : p.a_rows8 != 0;
  // Global element (r, c) of the tile: fwd w[(n0 + r) * ldw + c], bwd_data w[r * ldw + n0 + c].
  const long long base = trans ? (long long)n0 : (long long)n0 * p.ldw;
  if (vec) {
    // Chunk i = (row r, chunk j) walked without a division a step.
    const int c8 = cols >> 3, qr = NT / c8, qj = NT - qr * c8;
    int r = tid / c8, j = tid - r * c8;
    for (int i = tid; i < rows * c8; i += NT) {
      const int c = j * 8;
      const bool live = r < lim_r && c < lim_c;
      dev::cp_async<16>(sB_u + (r * stride + c) * 2, live ? w + base + (long long)r * p.ldw + c : w, live);
      r += qr, j += qj;
      if (j >= c8) j -= c8, ++r;
    }
  } else {
    const int total = rows * cols;
    for (int i0 = tid; i0 < total; i0 += 8 * NT) {
      u16 v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int i = i0 + u * NT, r = i / cols, c = i - r * cols;
        v[u] = (i < total && r < lim_r && c < lim_c) ? w[base + (long long)r * p.ldw + c] : u16(0);
      }
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int i = i0 + u * NT, r = i / cols, c = i - r * cols;
        if (i < total) sB[r * stride + c] = v[u];
      }
    }
  }
}

// Tile t of a block (rows r0 = (blockIdx.y + t * gridDim.y) * TM ..) into
// the stage at dst: rows * kd * 2 bytes from r0 * kd * 2 (16-byte aligned:
// TM % 8 == 0 and a 16-byte aligned), in 16-byte chunks; with kd % 8 == 0
// each row starts a chunk and takes a_stride8 of them in shared memory.
template <int TM, int NT>
__device__ __forceinline__ void load_a(const PwParams& p, int t, unsigned char* stage, int kd8, int a_stride8) {
  const int tid = threadIdx.x;
  const long long r0 = (long long)(blockIdx.y + (long long)t * gridDim.y) * TM;
  const int rows = int(min((long long)TM, p.rows - r0));
  const int bytes = rows * p.kd * 2;
  const unsigned char* src = static_cast<const unsigned char*>(p.a) + r0 * p.kd * 2;
  const u32 dst = dev::smem_u32(stage);
  const int chunks = bytes >> 4;
  if (p.a_rows8) {
    // Chunk c = (row r, chunk j) walked without a division a step.
    const int qr = NT / kd8, qj = NT - qr * kd8;
    int r = tid / kd8, j = tid - r * kd8;
    for (int c = tid; c < chunks; c += NT) {
      dev::cp_async<16>(dst + (r * a_stride8 + j) * 16, src + c * 16, true);
      r += qr, j += qj;
      if (j >= kd8) j -= kd8, ++r;
    }
  } else {
    for (int c = tid; c < chunks; c += NT) dev::cp_async<16>(dst + c * 16, src + c * 16, true);
  }
  // Rows packed back to back (kd off 8) may end mid-chunk: the last
  // elements by plain loads (no copy reads past the tensor's end).
  const int tail = (bytes & 15) >> 1;
  if (tail != 0 && tid == chunks % NT) {
    const u16* s16 = reinterpret_cast<const u16*>(src + chunks * 16);
    u16* d16 = reinterpret_cast<u16*>(stage + chunks * 16);
    for (int e = 0; e < 8; ++e) d16[e] = e < tail ? s16[e] : u16(0);
  }
}

template <int DT, int TM, int TN, int TK, int NW, int ST>
__device__ __forceinline__ void pointwise(const PwParams& p) {
  constexpr int kThreads = NW * 32;
  constexpr int WM = TM / NW;  // rows per warp: 16 or 32
  constexpr int MT = WM / 16;
  constexpr int NT8 = TN / 8;
  constexpr int KS = TK / 16;
  static_assert(WM == 16 || WM == 32, "a warp owns 16 or 32 rows");
  static_assert(TN % 16 == 0 && TK % 16 == 0, "TN and TK are multiples of 16");

  extern __shared__ __align__(128) unsigned char smem[];
  u16* sB = reinterpret_cast<u16*>(smem);
  unsigned char* sA = smem + p.a_off;
  unsigned char* sO = smem + p.o_off;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t4 = lane & 3;
  const int kd = p.kd, nn = p.nn;
  // blockIdx.x: the N tile (the N tiles of an M tile run side by side and
  // share its A rows through L2); blockIdx.y: the block's walk along M.
  const int n0 = blockIdx.x * TN;
  const int ncols = min(TN, nn - n0);
  const int kp = (kd + 15) & ~15;
  const int ks = kp >> 4;
  const int kd8 = kd >> 3;
  const int a_stride8 = kd8 | 1;  // chunks a row of A takes in shared memory (a_rows8): odd, conflict-free
  const int o_stride8 = (min(nn, TN) >> 3) | 1;
  const int my_tiles = (p.m_tiles - int(blockIdx.y) + int(gridDim.y) - 1) / int(gridDim.y);
  u16* __restrict__ go = static_cast<u16*>(p.out);


  load_b<TN, TK, kThreads>(p, sB, n0, ncols, kp);
  for (int s = 0; s < ST - 1; ++s) {
    if (s < my_tiles) load_a<TM, kThreads>(p, s, sA + s * p.a_stage, kd8, a_stride8);
    dev::cp_async_commit();
  }
  const u32 sB_u = dev::smem_u32(sB);

  for (int t = 0; t < my_tiles; ++t) {
    if (t + ST - 1 < my_tiles) load_a<TM, kThreads>(p, t + ST - 1, sA + ((t + ST - 1) % ST) * p.a_stage, kd8, a_stride8);
    dev::cp_async_commit();
    dev::cp_async_wait<ST - 1>();
    __syncthreads();

    float acc[MT][NT8][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT8; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;

    const unsigned char* a_st = sA + (t % ST) * p.a_stage;
    const u32 a_st_u = dev::smem_u32(a_st);
    const u16* a16 = reinterpret_cast<const u16*>(a_st);
#pragma unroll
    for (int s = 0; s < KS; ++s) {
      if (s < ks) {
        u32 af[MT][4];
        const bool upper_live = 16 * s + 8 < kd;  // the step's k 8..15 hold channels
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          const int rb = warp * WM + mt * 16;
          if (p.a_rows8) {
            const int r = rb + (lane & 15), ch = 2 * s + (lane >> 4);
            dev::ldmatrix_x4(af[mt], a_st_u + (r * a_stride8 + ch) * 16);
            if (!upper_live) af[mt][2] = af[mt][3] = 0;
          } else {
            // Rows of kd channels back to back (any kd): element (r, k) at r * kd + k.
            const int k = 16 * s + 2 * t4;
#pragma unroll
            for (int q = 0; q < 4; ++q) {
              const int r = rb + g + (q & 1) * 8, kk = k + (q >> 1) * 8;
              const u32 lo = kk < kd ? u32(a16[r * kd + kk]) : 0u;
              const u32 hi = kk + 1 < kd ? u32(a16[r * kd + kk + 1]) : 0u;
              af[mt][q] = lo | (hi << 16);
            }
          }
        }
#pragma unroll
        for (int np = 0; np < NT8 / 2; ++np) {
          if (np * 16 < ncols) {
            u32 bf[4];
            if (p.b_trans) {
              // sB[k][n]: matrices (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15), transposed.
              const int k = s * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, n = np * 16 + (lane >> 4) * 8;
              dev::ldmatrix_x4_trans(bf, sB_u + (k * (TN + 8) + n) * 2);
            } else {
              // sB[n][k]: matrices (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
              const int n = np * 16 + (lane & 7) + ((lane >> 4) << 3);
              dev::ldmatrix_x4(bf, sB_u + (n * (TK + 8) + s * 16 + ((lane >> 3) & 1) * 8) * 2);
            }
            const u32 b0[2] = {bf[0], bf[1]}, b1[2] = {bf[2], bf[3]};
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
              dev::mma<DT>(acc[mt][2 * np], af[mt], b0);
              dev::mma<DT>(acc[mt][2 * np + 1], af[mt], b1);
            }
          }
        }
      }
    }

    // Accumulators -> the output tile in shared memory: rows of o_stride8
    // chunks (o_rows8) or rows of nn elements back to back.
    u16* o16 = reinterpret_cast<u16*>(sO);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int j = 0; j < NT8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = warp * WM + mt * 16 + g + h * 8, n = j * 8 + 2 * t4;
          if (n < ncols) {
            const int idx = p.o_rows8 ? r * o_stride8 * 8 + n : r * nn + n;
            const float v0 = acc[mt][j][2 * h], v1 = acc[mt][j][2 * h + 1];
            if ((idx & 1) == 0 && n + 1 < ncols) {
              *reinterpret_cast<u32*>(o16 + idx) = DT == dev::kBF16 ? dev::pack2_bf16(v0, v1) : dev::pack2_f16(v0, v1);
            } else {
              o16[idx] = dev::Elem<DT>::from_f32(v0);
              if (n + 1 < ncols) o16[idx + 1] = dev::Elem<DT>::from_f32(v1);
            }
          }
        }
    __syncthreads();

    const long long r0 = (long long)(blockIdx.y + (long long)t * gridDim.y) * TM;
    const int rows = int(min((long long)TM, p.rows - r0));
    if (p.o_rows8) {
      const int cc = ncols >> 3, qr = kThreads / cc, qj = kThreads - qr * cc;
      const int total = rows * cc;
      int r = tid / cc, j = tid - r * cc;
      for (int c = tid; c < total; c += kThreads) {
        const uint4 v = *reinterpret_cast<const uint4*>(sO + (r * o_stride8 + j) * 16);
        *reinterpret_cast<uint4*>(go + (r0 + r) * nn + n0 + j * 8) = v;
        r += qr, j += qj;
        if (j >= cc) j -= cc, ++r;
      }
    } else {
      // One N tile: the tile's rows are rows * nn elements from r0 * nn
      // (16-byte aligned: r0 % 8 == 0 and out 16-byte aligned).
      u16* dst = go + r0 * nn;
      const int elems = rows * nn, full = elems >> 3;
      for (int c = tid; c < full; c += kThreads)
        *reinterpret_cast<uint4*>(dst + c * 8) = *reinterpret_cast<const uint4*>(sO + c * 16);
      for (int e = full * 8 + tid; e < elems; e += kThreads) dst[e] = o16[e];
    }
  }
}

}  // namespace pw
}  // namespace gconv
