// WgmmaConfig: the compile-time shape of one wgmma instance, and WgTile, the
// swizzled shared-memory layout wgmma reads through matrix descriptors.
#pragma once

#include "common/types.cuh"
#include "igemm/params.cuh"
#include "wgmma/sm90.cuh"

namespace gconv {
namespace wg {

using igemm::kBwdData;
using igemm::kBwdWeight;
using igemm::kFwd;

__host__ __device__ constexpr int cmin(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr int round_up(int x, int m) { return (x + m - 1) / m * m; }

// An operand tile as wgmma's swizzled canonical layouts want it: NB blocks of
// ROWS rows of W bytes ([block][row][W]), each row's 16-byte chunks XOR-ed
// with address bits 7.. (the hardware applies the same XOR to the addresses
// it forms, so tiles sit at 1024-byte aligned addresses).
//   K-major (rows = M or N, K contiguous): one block, W = tile_k bytes.
//   MN-major (rows = K, M or N contiguous): W = min(MN bytes, 128), blocks
//   along MN.
// elem_offset(row, elem) is the igemm loaders' interface (SmemTile's):
// K-major row = M/N index, elem = k; MN-major row = k, elem = M/N index.
template <int ROWS, int W, int NB, int EB, bool K_MAJOR>
struct WgTile {
  static constexpr int kRows = ROWS, kW = W, kBlocks = NB;
  static constexpr int kBlockBytes = ROWS * W;
  static constexpr int kBytes = NB * kBlockBytes;
  static_assert(W == 32 || W == 64 || W == 128, "swizzle width 32, 64 or 128 bytes");
  static_assert(ROWS % 8 == 0, "whole 8-row core matrices");

  __device__ static __forceinline__ int byte_offset(int blk, int row, int b) {
    const int a = row * W + b;
    return blk * kBlockBytes + (a ^ (((a >> 7) & (W / 16 - 1)) << 4));
  }
  __device__ static __forceinline__ int elem_offset(int row, int elem) {
    if constexpr (K_MAJOR) {
      return byte_offset(0, row, elem * EB);
    } else {
      const int b = elem * EB;
      return byte_offset(b / W, row, b % W);
    }
  }
  // Descriptor of the operand block that starts at M/N index mn0 and K index
  // k0 (k0 a multiple of the MMA's K, mn0 of 64), for a tile at `tile`.
  __device__ static __forceinline__ u64 desc(u32 tile, int mn0, int k0) {
    if constexpr (K_MAJOR) {
      return make_desc(tile + mn0 * W + k0 * EB, 16, 8 * W, W);
    } else {
      return make_desc(tile + (mn0 * EB / W) * kBlockBytes + k0 * W, kBlockBytes, 8 * W, W);
    }
  }
};

template <int MN, int TK, int EB, bool K_MAJOR>
struct TileFor;
template <int MN, int TK, int EB>
struct TileFor<MN, TK, EB, true> {
  typedef WgTile<MN, TK * EB, 1, EB, true> type;
};
template <int MN, int TK, int EB>
struct TileFor<MN, TK, EB, false> {
  typedef WgTile<TK, cmin(MN * EB, 128), (MN * EB + 127) / 128, EB, false> type;
};

// Threads of one warpgroup.
constexpr int kWarpgroup = 128;

// EPI_MIN: the fewest outputs per tile of a kernel with a staging area of its
// own (kEpiSep; wgmma_plan.cpp passes its epilogue_min_outputs). MAX_N: the
// widest MMA instruction (wgmma_plan.cpp instr_n_max: 256, or 128 to compare).
// ISSUERS: the TMA producer's issuing threads (wgmma_plan.cpp
// tma_issuers): 1, or 2 (lane 0 of warp 0 issues A's loads, lane 0 of warp 1
// B's, each arming the stage's full barrier with its own bytes).
// PKG: packed bwd_weight (groups_per_block > 1; wgmma_plan.hpp
// packed_problem): the instance runs the problem of G / PKG groups of PKG
// times the channels and its epilogue stores only the diagonal blocks
// (epilogue.cuh PackedOut), never through TMA (its rows are not an affine
// map of the output's).
template <int DIR, int DT, int NDIM, int TM, int TN, int TK, int CWG, int STAGES, int SPLIT, int VEC, bool TMA = false,
          int EPI_MIN = 128 * 128, int MAX_N = 256, int ISSUERS = 1, int PKG = 1>
struct WgmmaConfig {
  static constexpr bool kPackedOut = PKG > 1;
  static constexpr int kDir = DIR, kDType = DT, kNdim = NDIM;
  // The producer: TMA loads issued by kIssuers threads (fwd: im2col A, tiled
  // B), or the whole warpgroup gathering with cp.async.
  static constexpr bool kTma = TMA;
  static constexpr int kIssuers = TMA ? ISSUERS : 1;
  static constexpr int kTileM = TM, kTileN = TN, kTileK = TK;
  static constexpr int kConsumers = CWG, kStages = STAGES, kSplit = SPLIT, kVec = VEC;
  static constexpr int kThreads = kWarpgroup * (CWG + 1);  // producer warpgroup first
  static constexpr int kGpb = 1, kGroupN = TN, kLoadGpb = 1;
  static constexpr bool kPacked = false, kRealign = false;

  typedef typename dev::Elem<DT>::T T;
  static constexpr int kElemBytes = dev::Elem<DT>::kBytes;
  static constexpr int kVecBytes = VEC * kElemBytes;
  // The igemm loaders' weight pieces: vec (only packed igemm kernels narrow them).
  static constexpr int kVecB = VEC, kVecBBytes = kVecBytes;

  // Each consumer warpgroup owns kWgM rows: kMI m64 MMAs of kNI instructions
  // of N = kInstrN columns each, per K step of kKStep.
  static constexpr int kWgM = TM / CWG;
  static constexpr int kMI = kWgM / 64;
  // MAX_N only splits the power-of-two tile it divides (256 into two 128s);
  // tiles of 96, 144 and 192 columns issue one instruction of their width.
  static constexpr int kInstrN = TN > MAX_N && TN % MAX_N == 0 ? MAX_N : TN;
  static constexpr int kNI = TN / kInstrN;
  static constexpr int kAccPerInstr = kInstrN / 2;
  static constexpr int kKStep = DT == dev::kFP32 ? 8 : 16;
  // K blocks: a TMA stage of TK = 256 bytes of K (tile_k 128 for 16-bit
  // types) holds two blocks of one 128-byte swizzle row each (a TMA box is at
  // most one such row wide), loaded and consumed as one stage: one full and
  // one empty barrier per 128 of K instead of per 64. The ring's protocol
  // costs ~200 SM cycles a stage (bench/wgmma_probe.cu, docs/wgmma.md), as
  // much as a 64x64x64 block's MMAs; a stage of two blocks halves that per
  // MMA. (In the kernels that paid only on layers of few tiles and a long K:
  // elsewhere small tiles are bound by L2 or by the launch's fixed cost,
  // docs/wgmma.md "Two-block stages".) Each block is laid out as a whole
  // stage of one block ([A][B]), so
  // the producers' per-block loads are unchanged. A K range that ends in
  // the middle of a stage leaves its second block unloaded and unread.
  static constexpr int kBlockK = TMA ? 128 / kElemBytes : TK;
  static constexpr int kKBlocks = TK / kBlockK;
  static constexpr int kKSteps = kBlockK / kKStep;

  // Operand orientation (see igemm/operands.cuh): K-major unless the tensor
  // is contiguous along M or N (bwd_data B = w, bwd_weight A = dy^T, B = x).
  static constexpr bool kAKMajor = DIR != kBwdWeight;
  static constexpr bool kBKMajor = DIR == kFwd;
  typedef typename TileFor<TM, kBlockK, kElemBytes, kAKMajor>::type TileA;
  typedef typename TileFor<TN, kBlockK, kElemBytes, kBKMajor>::type TileB;
  static constexpr int kABytes = round_up(TileA::kBytes, 1024);
  static constexpr int kBlockBytes = kABytes + round_up(TileB::kBytes, 1024);  // one K block: [A][B]
  static constexpr int kStageBytes = kKBlocks * kBlockBytes;
  static constexpr int kBarOffset = STAGES * kStageBytes;  // full[S], then empty[S]
  // Serial and parallel split-K: two words after the barriers carry the split's fixup
  // role to the consumers (igemm/fixup.cuh; the ring may hold the next tile).
  static constexpr int kFixOffset = kBarOffset + 2 * STAGES * 8;
  static constexpr int kFixBytes = SPLIT == igemm::kSplitSerial || SPLIT == igemm::kSplitParallel ? 16 : 0;
  static constexpr int kEpiOffset = kFixOffset + kFixBytes;
  // Stages a producer thread keeps in flight before it publishes the oldest:
  // it then waits for a stage the consumers released one tile earlier. At
  // STAGES - 1 the producer, publishing tile t, would wait for the release of
  // tile t - 1, which the consumers give only after tile t is published: a
  // deadlock. So at most STAGES - 2 (STAGES == 2 publishes each stage at once).
  static constexpr int kLag = STAGES - 2;
  // TMA: the bytes of a full K block's loads (whole boxes, out-of-bounds
  // elements included as zeros); bwd producers skip 64-wide blocks wholly
  // outside the GEMM and count what they issue.
  static constexpr int kTxBytes = TileA::kBytes + TileB::kBytes;
  // Epilogue staging: the output tile (fp32 for split-K and fp32 outputs,
  // else the dtype) goes through the idle ring, rows padded by 16 bytes
  // (fragment writes of 8 rows hit distinct banks), followed by one int per
  // row (its output offset); then 16-byte coalesced stores, or for serial
  // split-K 16-byte atomic adds (red.global.add.v4.f32) into the workspace.
  // Cluster split-K (kCluster) stages its fp32 partial tile the same way; the
  // cluster's blocks then add each other's through distributed shared memory
  // (wgmma.cuh reduce_cluster), so it needs the staging room.
  static constexpr bool kCluster = SPLIT == igemm::kSplitCluster;
  // Launches in clusters of two blocks sharing B through TMA multicast when
  // IgemmParams::mcast is 2 (wgmma.cuh wgmma_main): fwd TMA kernels without
  // split.
  static constexpr bool kMcastable = TMA && DIR == kFwd && SPLIT == igemm::kSplitNone;
  static constexpr bool kF32Out = SPLIT != 0 || DT == dev::kFP32;
  static constexpr int kOutBytes = kF32Out ? 4 : 2;
  static constexpr int kOutPitch = TN * kOutBytes + 16;
  static constexpr int kStagedBytes = TM * kOutPitch + TM * 4;
  static constexpr bool kStaged = kStagedBytes <= kBarOffset;
  // A staging area of its own (kEpiSep) for unsplit tiles of at least
  // EPI_MIN outputs and 128 bytes of output per row: a persistent block's
  // consumers stage and store tile t there while the producer already fills
  // the ring with tile t + 1, so large tiles keep 16-byte stores on the
  // persistent grid (wgmma_family.cpp runs these kernels persistent). The area holds kEpiCols columns of every row:
  // the whole tile where that fits beside the ring, else 128 or 64 columns
  // at a time (a deep ring of 128 x 256 tiles leaves ~20 KB), staged and
  // stored in turn. Without any of these the kernel runs one tile per block.
  static constexpr int kMaxSmem = 232448;  // igemm::kMaxSmemBytes
  static constexpr int epi_bytes(int cols) { return TM * (cols * kOutBytes + 16) + TM * 4; }
  static constexpr bool epi_fits(int cols) {
    return cols <= TN && TN % cols == 0 && kEpiOffset + epi_bytes(cols) + 1024 <= kMaxSmem;
  }
  static constexpr int kEpiCols = epi_fits(TN) ? TN : epi_fits(128) ? 128 : epi_fits(64) ? 64 : 0;
  static constexpr int kStoreCols = 128 / kOutBytes;
  static constexpr bool kEpiSep = SPLIT == igemm::kSplitNone && TM * TN >= EPI_MIN && kEpiCols > 0;
  // TMA stores from that area (kTmaStore; wgmma.cuh store_tma, when the
  // launch passes an output map): passes of kStoreCols columns, 128 bytes of
  // output per row (the width of the 128-byte swizzle the map and the staged
  // rows use), so only tiles of whole 128-byte rows: a 96- or 144-wide 16-bit
  // tile (192 or 288 bytes a row) keeps the threads' 16-byte stores from the
  // area (store_sep) and takes no output map (wgmma_plan.cpp tma_store).
  // Each consumer warpgroup stores a box of its kWgM rows in kStoreBufs
  // buffers of its own (two where they fit, so one pass is staged while the
  // previous one is still read; one when a tile has an odd number of
  // passes), from the first 1024-byte boundary of the area on.
  static constexpr bool kTmaStore = kEpiSep && TN % kStoreCols == 0 && !kPackedOut;
  static constexpr int kStorePasses = TN / kStoreCols;
  static constexpr int kStoreBufBytes = kWgM * 128;
  static constexpr int kStoreOffset = round_up(kEpiOffset, 1024);
  static constexpr int kStoreRoom = kEpiOffset + (kEpiCols > 0 ? epi_bytes(kEpiCols) : 0) - kStoreOffset;
  static constexpr int kStoreBufs =
      kStorePasses % 2 == 0 && kStoreRoom >= 2 * CWG * kStoreBufBytes ? 2 : 1;
  static_assert(!kTmaStore || kStoreRoom >= kStoreBufs * CWG * kStoreBufBytes,
                "every kernel with a staging area of its own and whole 128-byte rows can store through TMA "
                "(wgmma_plan.cpp tma_store assumes it)");
  // + the slack that aligns the ring to 1024 bytes (dynamic shared memory is
  // only 16-byte aligned); wgmma_plan.cpp's smem_bytes mirrors this.
  static constexpr int kSmemBytes = kEpiOffset + (kEpiSep ? epi_bytes(kEpiCols) : 0) + 1024;
  // Two blocks per SM (128 registers a thread) when the accumulators fit half
  // of that and the producer's copies are at least 8 bytes (narrower ones
  // mean more copy slots per thread, which spill under the cap).
  static constexpr int kMinBlocks =
      (CWG == 1 && kMI * kNI * kAccPerInstr <= 64 && kVecBytes >= 8) ? 2 : 1;

  // The producer's view for the igemm loaders: one warpgroup loads.
  struct Load {
    typedef typename dev::Elem<DT>::T T;
    typedef typename WgmmaConfig::TileA TileA;
    typedef typename WgmmaConfig::TileB TileB;
    static constexpr int kDir = DIR, kNdim = NDIM, kTileM = TM, kTileN = TN, kTileK = TK;
    static constexpr int kThreads = kWarpgroup, kVec = VEC, kVecBytes = VEC * dev::Elem<DT>::kBytes;
    static constexpr int kElemBytes = dev::Elem<DT>::kBytes;
    static constexpr int kGpb = 1, kGroupN = TN, kLoadGpb = 1;
    static constexpr bool kPacked = false, kRealign = false;
    static constexpr int kVecB = VEC, kVecBBytes = kVecBytes;
  };

  static_assert(CWG == 1 || CWG == 2, "one or two consumer warpgroups");
  static_assert(kWgM == 64 || kWgM == 128, "a consumer warpgroup owns 64 or 128 rows");
  static_assert(kInstrN == 32 || kInstrN == 64 || kInstrN == 96 || kInstrN == 128 || kInstrN == 144 ||
                    kInstrN == 192 || kInstrN == 256,
                "tile_n: 32, 64, 96, 128, 144, 192 or 256 (an MmaAsync specialization each)");
  static_assert(DIR == kFwd || (TN & (TN - 1)) == 0 || TN % 64 == 0,
                "tile_n 96, 144: fwd only (bwd_data / bwd_weight B tiles are MN-major in 64-column blocks; 192 is three)");
  static_assert(kNI * kInstrN == TN, "tile_n: whole instructions");
  static_assert(TK % kKStep == 0, "tile_k: a multiple of the MMA's K");
  static_assert(DT != dev::kFP32 || (kAKMajor && kBKMajor), "tf32 wgmma reads K-major operands only");
  static_assert(kMI * kNI * kAccPerInstr <= 128, "at most 128 accumulators per consumer thread");
  static_assert(STAGES >= 2 && STAGES <= 8, "2..8 stages");
  static_assert(ISSUERS == 1 || ISSUERS == 2, "one or two TMA issuers");
  static_assert(!kPackedOut || (DIR == kBwdWeight && SPLIT != igemm::kSplitParallel),
                "packed: bwd_weight, unsplit or with serial / cluster split-K (one slice in dw's own layout)");
  static_assert(!kCluster || kStaged, "cluster split-K: the fp32 partial tile must fit the ring");
  static_assert(!TMA || TK * kElemBytes == 128 || (TK * kElemBytes == 256 && kElemBytes == 2),
                "TMA producer: one or (16-bit types) two 128-byte K blocks a stage");
  static_assert(!TMA || kKBlocks == 1 || kKBlocks == 2, "one or two K blocks a stage");
  static_assert(TMA || kKBlocks == 1, "the cp.async producer loads one K block a stage");
  static_assert(!TMA || DIR == kFwd || (kElemBytes == 2 && TN % 64 == 0 && TM % 64 == 0),
                "TMA producer of bwd_data / bwd_weight: 16-bit types, MN-major tiles of whole 64-element blocks");
};

}  // namespace wg
}  // namespace gconv
