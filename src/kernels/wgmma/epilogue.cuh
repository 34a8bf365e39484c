// The wgmma kernels' epilogues (wgmma.cuh runs them): the accumulators of a
// consumer warpgroup (WgAcc), stores straight from them (store), the staged
// epilogue through the idle ring (store_staged), through the kernel's own
// staging area (store_sep) or out of it with TMA stores (store_tma), and the
// cluster split-K reduction through distributed shared memory
// (reduce_cluster).
#pragma once

#include "common/cluster.cuh"
#include "igemm/epilogue.cuh"
#include "igemm/operands.cuh"
#include "wgmma/config.cuh"

namespace gconv {
namespace wg {

using igemm::BlockPos;
using igemm::IgemmParams;
// One consumer warpgroup's accumulators: [m64 block][instruction][register].
// Register r of instruction (mi, ni) holds row 16 * warp + (lane / 4) +
// 8 * ((r / 2) % 2), column 8 * (r / 4) + 2 * (lane % 4) + r % 2 of the
// instruction's 64 x kInstrN block (the m16n8 C layout, repeated along N).
template <class Cfg>
struct WgAcc {
  float d[Cfg::kMI][Cfg::kNI][Cfg::kAccPerInstr];
};

// Packed bwd_weight (Cfg::kPackedOut; docs/packed.md "wgmma"): the kernel
// runs group blocks of Cg' = gpb * C/G input and Kg' = gpb * K/G output
// channels (p.Cg, p.Kg), so the tile of group block g0 holds gpb x gpb
// blocks of which only the diagonal ones are weights. GEMM row m is output
// channel k = g0 * Kg' + m, of the block's group j = m / (K/G) (none past
// K: a last block partly empty); column n = tap * TW + c is the block's
// input channel c, of group c / (C/G), where TW (p.pk_tw, else Cg') is the
// tap's columns (c >= Cg' is padding: a group past the block's). Weight
// (k, tap, c - j * C/G) sits at (k * F - j) * C/G + tap * C/G + c of dw
// (K x F x C/G): a row part plus a column part, kept where the column's
// group is the row's. With C/G a multiple of 8 (packed.cpp) the 2-, 4- and
// 8-column vectors of the epilogues lie in one (tap, group) run, which is
// contiguous in dw.
struct PackedOut {
  __device__ __forceinline__ static int row(const IgemmParams& p, int g0, int m, int& j) {
    const int k = g0 * p.Kg + m;
    j = k < p.K ? m / p.pk_kg : -1;
    return (k * p.filt_vol - j) * p.pk_cg;
  }
  __device__ __forceinline__ static int col(const IgemmParams& p, int n, int& j) {
    const int tw = p.pk_tw ? p.pk_tw : p.Cg;
    const int tap = n / tw, c = n - tap * tw;
    j = c / p.pk_cg;
    return tap * p.pk_cg + c;
  }
  // GEMM row m, column n of group block g0: their offset in dw (idx), and
  // whether they lie in one of the diagonal blocks (a weight; idx means
  // nothing otherwise).
  template <class I>
  __device__ __forceinline__ static bool at(const IgemmParams& p, int g0, int m, int n, I& idx) {
    int jr, jc;
    const int r = row(p, g0, m, jr), c = col(p, n, jc);
    idx = r + c;
    return jc == jr;
  }
};

// Stores one consumer thread's results: out[row_off(m) + g0 * col_stride + n]
// through igemm's store_pair (output dtype, workspace slice or atomics).
template <class Cfg, class Ops>
__device__ __forceinline__ void store(const WgAcc<Cfg>& acc, const IgemmParams& p, const Ops& ops,
                                      const BlockPos& b, int m0, int n0, int wg_row0, int ctid,
                                      int role = igemm::kFixAdd) {
  const int warp = ctid >> 5, lane = ctid & 31;
  const int gemm_n = ops.gemm_n(p);
  const int goff = b.g0 * ops.col_stride(p);
#pragma unroll
  for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = m0 + wg_row0 + mi * 64 + warp * 16 + h * 8 + (lane >> 2);
      if (m >= ops.gemm_m) continue;
      int jr = 0;
      const int roff = Cfg::kPackedOut ? PackedOut::row(p, b.g0, m, jr) : ops.row_off(p, m) + goff;
#pragma unroll
      for (int ni = 0; ni < Cfg::kNI; ++ni)
#pragma unroll
        for (int j = 0; j < Cfg::kInstrN / 8; ++j) {
          const int n = n0 + ni * Cfg::kInstrN + j * 8 + 2 * (lane & 3);
          const float v0 = acc.d[mi][ni][4 * j + 2 * h], v1 = acc.d[mi][ni][4 * j + 2 * h + 1];
          if constexpr (Cfg::kPackedOut) {
            int jc;
            const int c = PackedOut::col(p, n, jc);
            const bool ok = n < gemm_n && jc == jr;  // the pair lies in one (tap, group) run
            igemm::store_pair<Cfg>(p, b.split, roff + c, v0, v1, ok, ok, role);
          } else {
            igemm::store_pair<Cfg>(p, b.split, roff + n, v0, v1, n < gemm_n, n + 1 < gemm_n, role);
          }
        }
    }
}

// Calls put(dst, v0, v1) for every pair of this thread's accumulators in
// columns [c0, c0 + CW), dst = at(r, byte): r the pair's row among the
// warpgroup's kWgM, byte its column offset (in output-typed bytes) within the
// pass; put writes the pair there in the output type (fp32 for split-K and
// fp32 outputs). c0 is a constant once the callers' loops are unrolled, so
// each pass keeps only its columns' accumulators.
template <class Cfg, int CW, class At>
__device__ __forceinline__ void stage_pairs(const WgAcc<Cfg>& acc, int c0, int ctid, At&& at) {
  const int warp = ctid >> 5, lane = ctid & 31;
#pragma unroll
  for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = mi * 64 + warp * 16 + h * 8 + (lane >> 2);
#pragma unroll
      for (int ni = 0; ni < Cfg::kNI; ++ni)
#pragma unroll
        for (int j = 0; j < Cfg::kInstrN / 8; ++j) {
          const int col8 = ni * Cfg::kInstrN + j * 8 - c0;  // this 8-column group, relative to the pass
          if (col8 < 0 || col8 >= CW) continue;
          unsigned char* dst = at(r, (col8 + 2 * (lane & 3)) * Cfg::kOutBytes);
          const float v0 = acc.d[mi][ni][4 * j + 2 * h], v1 = acc.d[mi][ni][4 * j + 2 * h + 1];
          if constexpr (Cfg::kF32Out) {
            *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
          } else {
            dev::Elem<Cfg::kDType>::store2(reinterpret_cast<typename Cfg::T*>(dst), v0, v1);
          }
        }
    }
}

// The staged epilogue (Cfg::kStaged): once every consumer has finished its
// MMAs (so the ring is idle: the producer's last copies were consumed), each
// warpgroup writes its accumulators as output-typed rows into the ring, then
// stores its rows with 16-byte vectors along the output's contiguous
// channels. stage_rows writes columns [c0, c0 + CW) of a warpgroup's rows
// (rows padded by 16 bytes, then one int per row: its output offset, written
// with the first columns) into the ring, or into the kernel's own staging
// area (kEpiSep), without a barrier of its own; stage_tile is that for the
// whole tile after a barrier over the consumers; store_rows stores the
// staged columns and store_staged does all three.
template <class Cfg, int CW, class Ops>
__device__ __forceinline__ void stage_rows(const WgAcc<Cfg>& acc, const IgemmParams& p, const Ops& ops, int m0,
                                           int wg, unsigned char* ring, int ctid, int c0 = 0) {
  constexpr int P = CW * Cfg::kOutBytes + 16;
  const int row0 = wg * Cfg::kWgM;
  int* rows = reinterpret_cast<int*>(ring + Cfg::kTileM * P);
  if (c0 == 0) {
    for (int r = ctid; r < Cfg::kWgM; r += kWarpgroup) {
      const int m = m0 + row0 + r;
      // Packed: the GEMM row itself (store_rows maps it with its columns).
      rows[row0 + r] = m < ops.gemm_m ? (Cfg::kPackedOut ? m : ops.row_off(p, m)) : -1;
    }
  }
  stage_pairs<Cfg, CW>(acc, c0, ctid, [&](int r, int byte) { return ring + (row0 + r) * P + byte; });
}

template <class Cfg, class Ops>
__device__ __forceinline__ void stage_tile(const WgAcc<Cfg>& acc, const IgemmParams& p, const Ops& ops, int m0,
                                           int wg, unsigned char* ring, int ctid) {
  bar_sync<1>(kWarpgroup * Cfg::kConsumers);  // every consumer is done with the ring
  stage_rows<Cfg, Cfg::kTileN>(acc, p, ops, m0, wg, ring, ctid);
}

// A barrier over one consumer warpgroup (named barriers 2 and 3).
__device__ __forceinline__ void wg_sync(int wg) {
  if (wg == 0) {
    bar_sync<2>(kWarpgroup);
  } else {
    bar_sync<3>(kWarpgroup);
  }
}

// Stores a warpgroup's staged columns [c0, c0 + CW) from `ring` (see
// stage_rows).
template <class Cfg, int CW, class Ops>
__device__ __forceinline__ void store_rows(const IgemmParams& p, const Ops& ops, const BlockPos& b, int n0, int wg,
                                           const unsigned char* ring, int ctid, int role, int c0 = 0) {
  constexpr int OB = Cfg::kOutBytes, P = CW * OB + 16, V = 16 / OB;
  const int row0 = wg * Cfg::kWgM;
  const int* rows = reinterpret_cast<const int*>(ring + Cfg::kTileM * P);
  const int gemm_n = ops.gemm_n(p);
  const long long goff = (long long)b.g0 * ops.col_stride(p) +
                         (Cfg::kSplit == igemm::kSplitParallel ? (long long)b.split * p.out_elems : 0);
  constexpr int VPR = CW / V;  // vectors per row
  for (int v = ctid; v < Cfg::kWgM * VPR; v += kWarpgroup) {
    const int row = row0 + v / VPR, col = (v % VPR) * V;
    const int roff = rows[row], n = n0 + c0 + col;
    if (roff < 0 || n >= gemm_n) continue;
    long long idx = roff + goff + n;
    if constexpr (Cfg::kPackedOut) {
      if (!PackedOut::at(p, b.g0, roff, n, idx)) continue;  // off the diagonal blocks
    }
    const uint4 val = *reinterpret_cast<const uint4*>(ring + row * P + col * OB);
    if constexpr (Cfg::kSplit == igemm::kSplitSerial) {
      // Fixup roles (igemm/fixup.cuh): the only split converts; otherwise
      // (and without fixup) the split adds into the zeroed slice.
      const float* e = reinterpret_cast<const float*>(&val);
      const bool whole = n + V <= gemm_n && idx % V == 0;
      if (role == igemm::kFixOnly) {
        typename Cfg::T* out = static_cast<typename Cfg::T*>(p.dst);
        if (whole) {
          dev::Elem<Cfg::kDType>::store2(out + idx, e[0], e[1]);
          dev::Elem<Cfg::kDType>::store2(out + idx + 2, e[2], e[3]);
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (n + k < gemm_n) out[idx + k] = dev::Elem<Cfg::kDType>::from_f32(e[k]);
        }
      } else if (whole) {
        red_add_v4(p.ws + idx, make_float4(e[0], e[1], e[2], e[3]));
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (n + k < gemm_n) atomicAdd(p.ws + idx + k, e[k]);
      }
    } else if constexpr (Cfg::kF32Out) {
      float* out = Cfg::kSplit == igemm::kSplitParallel ? p.ws : static_cast<float*>(p.dst);
      if (n + V <= gemm_n && idx % V == 0) {
        *reinterpret_cast<uint4*>(out + idx) = val;
      } else {
        const float* e = reinterpret_cast<const float*>(&val);
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (n + k < gemm_n) out[idx + k] = e[k];
      }
    } else {
      typename Cfg::T* out = static_cast<typename Cfg::T*>(p.dst);
      if (n + V <= gemm_n && idx % V == 0) {
        *reinterpret_cast<uint4*>(out + idx) = val;
      } else {
        const typename Cfg::T* e = reinterpret_cast<const typename Cfg::T*>(&val);
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (n + k < gemm_n) out[idx + k] = e[k];
      }
    }
  }
}

template <class Cfg, class Ops>
__device__ __forceinline__ void store_staged(const WgAcc<Cfg>& acc, const IgemmParams& p, const Ops& ops,
                                             const BlockPos& b, int m0, int n0, int wg, unsigned char* ring,
                                             int ctid, int role = igemm::kFixAdd) {
  stage_tile<Cfg>(acc, p, ops, m0, wg, ring, ctid);
  wg_sync(wg);  // this warpgroup's rows are staged
  store_rows<Cfg, Cfg::kTileN>(p, ops, b, n0, wg, ring, ctid, role);
}

// kEpiSep: the kernel's own staging area, so the ring keeps filling with the
// next tile. A warpgroup's rows are written and read by its own threads
// only: the barrier before staging also ends its reads of the previous tile
// (or pass). The area holds kEpiCols columns: the tile goes through it in
// kTileN / kEpiCols passes.
template <class Cfg, class Ops>
__device__ __forceinline__ void store_sep(const WgAcc<Cfg>& acc, const IgemmParams& p, const Ops& ops,
                                          const BlockPos& b, int m0, int n0, int wg, unsigned char* epi, int ctid) {
  constexpr int CW = Cfg::kEpiCols;
#pragma unroll
  for (int c0 = 0; c0 < Cfg::kTileN; c0 += CW) {
    wg_sync(wg);
    stage_rows<Cfg, CW>(acc, p, ops, m0, wg, epi, ctid, c0);
    wg_sync(wg);
    store_rows<Cfg, CW>(p, ops, b, n0, wg, epi, ctid, igemm::kFixOnly, c0);
  }
}

// The output map's coordinates (x: column, innermost; y: row) of GEMM row m,
// column n of group g0: rows of K (fwd) or C (bwd_data) channels with the
// group's channels from g0 * K/G (C/G) on; bwd_weight rows of C/G * filter
// with the group's rows from g0 * K/G on.
template <class Cfg>
__device__ __forceinline__ void store_coords(const IgemmParams& p, int g0, int m, int n, int& x, int& y) {
  if constexpr (Cfg::kDir == kBwdWeight) {
    x = n;
    y = g0 * p.Kg + m;
  } else {
    x = g0 * (Cfg::kDir == kFwd ? p.Kg : p.Cg) + n;
    y = m;
  }
}

// TMA stores (kTmaStore with p.out_map): each consumer warpgroup stages
// kStoreCols columns of its rows at a time in a buffer of its own, laid out
// as the map's 128-byte swizzle wants it (16-byte chunk c of row r at chunk
// c ^ (r % 8): the fragment writes of 8 rows hit distinct banks), and one
// thread stores the box; the stores run on while the warpgroup stages the
// next pass or goes on to its next tile's MMAs. A buffer is written again
// once its previous store has read it (bulk_wait_read by the thread that
// issued it, then the warpgroup's barrier). The map clips rows and columns
// outside the tensor: whole tiles or a problem of one group only
// (tma_store_tile), so that a tile's tail never reaches another group.
template <class Cfg>
__device__ __forceinline__ bool tma_store_tile(const IgemmParams& p, int gemm_m, int gemm_n, int m0, int n0) {
  return p.out_map && (p.G == 1 || (m0 + Cfg::kTileM <= gemm_m && n0 + Cfg::kTileN <= gemm_n));
}

template <class Cfg>
__device__ __forceinline__ void store_tma(const WgAcc<Cfg>& acc, const TensorMap* tc, int x0, int y0, int wg,
                                          u32 area, unsigned char* area_ptr, int ctid) {
  constexpr int CW = Cfg::kStoreCols, NB = Cfg::kStoreBufs, BB = Cfg::kStoreBufBytes;
  const int first = Cfg::kStoreOffset - Cfg::kEpiOffset + wg * NB * BB;
#pragma unroll
  for (int pass = 0; pass < Cfg::kStorePasses; ++pass) {
    const int c0 = pass * CW, buf = first + (pass % NB) * BB;
    if (ctid == 0) bulk_wait_read<NB - 1>();
    wg_sync(wg);  // the buffer's previous store has read it
    stage_pairs<Cfg, CW>(acc, c0, ctid, [&](int r, int byte) {
      return area_ptr + buf + r * 128 + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15));
    });
    fence_proxy_async();  // the staged rows, visible to the bulk copy
    wg_sync(wg);
    if (ctid == 0) tma_store_2d(tc, area + buf, x0 + c0, y0);
  }
}

// Stores one summed 4-column vector of the output (element by element at a
// tail or a misaligned offset).
template <class Cfg>
__device__ __forceinline__ void store_sum4(typename Cfg::T* out, long long idx, int n, int gemm_n, const float4& s) {
  if (n + 4 <= gemm_n && idx % 4 == 0) {
    dev::Elem<Cfg::kDType>::store2(out + idx, s.x, s.y);
    dev::Elem<Cfg::kDType>::store2(out + idx + 2, s.z, s.w);
  } else {
    const float e[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (n + k < gemm_n) out[idx + k] = dev::Elem<Cfg::kDType>::from_f32(e[k]);
  }
}

// reduce_cluster for a cluster of S blocks (2, 4, 8): each thread requests
// the S ranks' vectors of 8 / S of its vectors before it adds any, so eight
// distributed-shared-memory loads are in flight per thread where the
// one-vector loop had S (its `asm volatile` loads with a memory clobber stay
// behind the previous vector's global stores). Same registers (eight float4)
// and the same rank-order sums. A small gain: every bwd_weight cluster kernel
// on the 67 public dense problems it applies to, A/B in one H100 run
// (GCONV_WGMMA_CLUSTER_BATCH=0, 2026-11-28): 1.0065 over 4,497 pairs (2c
// 1.011, 4c 0.999, 8c 1.013). The trace's interval from staging to reduced
// (4.9k SM cycles for 128 x 128 of two blocks, 7.7k for 128 x 256 of four)
// is mostly the cluster barrier's wait for the slowest block, not the loads.
template <class Cfg, int S, class Ops>
__device__ __forceinline__ void reduce_cluster_batched(const IgemmParams& p, const Ops& ops, const BlockPos& b,
                                                       int n0, u32 ring, const unsigned char* ring_ptr, int tid) {
  constexpr int P = Cfg::kOutPitch, VPR = Cfg::kTileN / 4, B = 8 / S;
  constexpr int rows_per = Cfg::kTileM / S, total = rows_per * VPR;
  const int r0 = b.split * rows_per;
  const int* rows = reinterpret_cast<const int*>(ring_ptr + Cfg::kTileM * P);
  const int gemm_n = ops.gemm_n(p);
  const long long goff = (long long)b.g0 * ops.col_stride(p);
  typename Cfg::T* out = static_cast<typename Cfg::T*>(p.dst);
  for (int v0 = tid; v0 < total; v0 += B * Cfg::kThreads) {
    float4 u[B][S];
    long long idx[B];
    int n[B];
    bool ok[B];
#pragma unroll
    for (int j = 0; j < B; ++j) {
      const int v = v0 + j * Cfg::kThreads;
      const int row = r0 + v / VPR, col = (v % VPR) * 4;
      const int roff = v < total ? rows[row] : -1;
      n[j] = n0 + col;
      ok[j] = roff >= 0 && n[j] < gemm_n;
      idx[j] = roff + goff + n[j];
      if constexpr (Cfg::kPackedOut) {
        if (ok[j]) ok[j] = PackedOut::at(p, b.g0, roff, n[j], idx[j]);
      }
      if (ok[j]) {
        const u32 local = ring + row * P + col * 4;
#pragma unroll
        for (int q = 0; q < S; ++q) u[j][q] = dev::ld_cluster_v4(local, static_cast<unsigned>(q));
      }
    }
#pragma unroll
    for (int j = 0; j < B; ++j) {
      if (!ok[j]) continue;
      float4 s = u[j][0];
#pragma unroll
      for (int q = 1; q < S; ++q) {
        s.x += u[j][q].x;
        s.y += u[j][q].y;
        s.z += u[j][q].z;
        s.w += u[j][q].w;
      }
      store_sum4<Cfg>(out, idx[j], n[j], gemm_n, s);
    }
  }
}

// Cluster split-K (Cfg::kCluster): the p.splits blocks of one output tile
// are one cluster (rank = split) and each has staged its fp32 partial tile
// (stage_tile). Block `rank` owns rows [rank, rank + 1) * kTileM / splits of
// the tile: every thread of the block sums those rows' 4-column vectors over
// the cluster's ranks in rank order (distributed shared memory, so the sum
// is the same whatever the timing), converts and stores them. One launch, no
// workspace, no atomics.
template <class Cfg, class Ops>
__device__ __forceinline__ void reduce_cluster(const IgemmParams& p, const Ops& ops, const BlockPos& b, int n0,
                                               u32 ring, const unsigned char* ring_ptr, int tid) {
#if !defined(GCONV_WGMMA_CLUSTER_SERIAL) && !defined(GCONV_WGMMA_CLUSTER_NOBATCH)
  // Cluster sizes of the pool (wgmma_plan.cpp: 2, 4 or 8); any other takes the loop below.
  if constexpr (Cfg::kTileM % 8 == 0) {
    if (p.splits == 2) return reduce_cluster_batched<Cfg, 2>(p, ops, b, n0, ring, ring_ptr, tid);
    if (p.splits == 4) return reduce_cluster_batched<Cfg, 4>(p, ops, b, n0, ring, ring_ptr, tid);
    if (p.splits == 8) return reduce_cluster_batched<Cfg, 8>(p, ops, b, n0, ring, ring_ptr, tid);
  }
#endif
  constexpr int P = Cfg::kOutPitch, VPR = Cfg::kTileN / 4;  // fp32 staging, 4-column vectors per row
  constexpr int kClusterMax = 8;  // the portable cluster size bounds a cluster kernel's split_k (wgmma_plan.cpp)
  const int S = p.splits, rows_per = Cfg::kTileM / S, r0 = b.split * rows_per;
  const int* rows = reinterpret_cast<const int*>(ring_ptr + Cfg::kTileM * P);
  const int gemm_n = ops.gemm_n(p);
  const long long goff = (long long)b.g0 * ops.col_stride(p);
  typename Cfg::T* out = static_cast<typename Cfg::T*>(p.dst);
  for (int v = tid; v < rows_per * VPR; v += Cfg::kThreads) {
    const int row = r0 + v / VPR, col = (v % VPR) * 4;
    const int roff = rows[row], n = n0 + col;
    if (roff < 0 || n >= gemm_n) continue;
    long long at = roff + goff + n;
    if constexpr (Cfg::kPackedOut) {
      if (!PackedOut::at(p, b.g0, roff, n, at)) continue;
    }
    const u32 local = ring + row * P + col * 4;
#ifdef GCONV_WGMMA_CLUSTER_SERIAL
    // The earlier loop, each load added before the next is issued
    // (GCONV_WGMMA_CLUSTER_AHEAD=0 builds it, wgmma_plan.cpp: A/B runs).
    float4 s = dev::ld_cluster_v4(local, 0);
#pragma unroll 1
    for (int q = 1; q < S; ++q) {
      const float4 u = dev::ld_cluster_v4(local, static_cast<unsigned>(q));
      s.x += u.x;
      s.y += u.y;
      s.z += u.z;
      s.w += u.w;
    }
#else
    // Every rank's vector is requested before the first is added: one
    // distributed-shared-memory latency instead of S in a row (the loop
    // above spent ~2,300 SM cycles on a 64 x 64 tile of two blocks,
    // GCONV_WGMMA_TRACE, H100). The sum keeps rank order.
    float4 u[kClusterMax];
#pragma unroll
    for (int q = 0; q < kClusterMax; ++q)
      if (q < S) u[q] = dev::ld_cluster_v4(local, static_cast<unsigned>(q));
    float4 s = u[0];
#pragma unroll
    for (int q = 1; q < kClusterMax; ++q)
      if (q < S) {
        s.x += u[q].x;
        s.y += u[q].y;
        s.z += u[q].z;
        s.w += u[q].w;
      }
#endif
    store_sum4<Cfg>(out, at, n, gemm_n, s);
  }
}

}  // namespace wg
}  // namespace gconv
