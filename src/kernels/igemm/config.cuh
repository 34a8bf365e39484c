// IgemmConfig: the compile-time shape of one igemm instance (one per
// KernelTraits), and SmemTile, the swizzled shared-memory tile both operands use.
#pragma once

#include "common/types.cuh"
#include "igemm/params.cuh"

namespace gconv {
namespace igemm {

using dev::u32;

// Largest power of two dividing x (x > 0).
__host__ __device__ constexpr int low_pow2(int x) { return x & -x; }
__host__ __device__ constexpr int cmin(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr int log2_pow2(int x) { return x <= 1 ? 0 : 1 + log2_pow2(x / 2); }

// Compile-time choice of a type.
template <bool B, class T, class F>
struct Select {
  typedef T type;
};
template <class T, class F>
struct Select<false, T, F> {
  typedef F type;
};

// A tile of ROWS rows of ROW_ELEMS elements, stored row after row.
//
// PAD == 0: the 16-byte chunks of each row are permuted by an XOR swizzle,
// chunk c of row r sitting at c ^ f(r). ldmatrix (and a row of cp.async)
// touches one chunk in each of 8 consecutive rows; f makes those 8 chunks land
// in 8 different bank groups whatever the row length: with P = the largest
// power of two dividing the chunks per row (capped at 8), row r starts at bank
// group (r * CPR) % 8, so f(r) = (r >> (3 - log2 P)) & (P - 1) fills the groups
// the row offsets leave equal. f never leaves the aligned block of P chunks.
//
// PAD > 0: rows padded by PAD elements, no swizzle. fp32 MN-major tiles use it
// (fragments are read with 32-bit loads there, rows k and k + 1..3 by lanes
// t = 0..3: a pitch of 8 mod 32 words keeps them apart), so that fragment
// addresses are a per-lane base plus constants.
template <int ROWS, int ROW_ELEMS, int ELEM_BYTES, int PAD = 0>
struct SmemTile {
  static constexpr int kRows = ROWS;
  static constexpr int kElemsPerChunk = 16 / ELEM_BYTES;
  static constexpr int kRowBytes = (ROW_ELEMS + PAD) * ELEM_BYTES;
  static constexpr int kChunksPerRow = ROW_ELEMS * ELEM_BYTES / 16;
  static constexpr int kBytes = ROWS * kRowBytes;
  static_assert((ROW_ELEMS * ELEM_BYTES) % 16 == 0 && kRowBytes % 16 == 0,
                "a tile row must be a whole number of 16-byte chunks");
  static constexpr int kP = PAD > 0 ? 1 : cmin(low_pow2(kChunksPerRow), 8);
  static constexpr int kMask = kP - 1;
  static constexpr int kShift = 3 - log2_pow2(kP);

  __device__ static __forceinline__ int swz(int row) { return (row >> kShift) & kMask; }
  // Byte offset of chunk `chunk` of row `row`.
  __device__ static __forceinline__ int chunk_offset(int row, int chunk) {
    return row * kRowBytes + ((chunk ^ swz(row)) << 4);
  }
  // Byte offset of element `elem` of row `row`.
  __device__ static __forceinline__ int elem_offset(int row, int elem) {
    return chunk_offset(row, elem / kElemsPerChunk) + (elem % kElemsPerChunk) * ELEM_BYTES;
  }
};

// Row padding (elements) of an operand tile: 8 for fp32 MN-major, else 0 (the
// host's smem_bytes() in igemm_plan.cpp mirrors this).
__host__ __device__ constexpr int tile_pad(bool k_major, int dtype) { return !k_major && dtype == dev::kFP32 ? 8 : 0; }

// PK (packed): the GPB groups of a block form one block-diagonal GEMM
// instead of GPB narrow ones. Their channels are contiguous, so one A tile
// gathers all of them; fwd / bwd_data: K = taps x GPB * Cg, and B holds each
// group's weights in its diagonal block, zeros elsewhere; bwd_weight: M =
// GPB * Kg rows, N = GPB groups x taps x Cg columns, and only the diagonal
// blocks of the result are written. GPB times the mma work of the groups
// alone, but one wide gather instead of GPB narrow ones and no per-group
// padding of N or K to the mma shape, which is what C/G = 4..16 needs
// (operands.cuh).
// RA (realign): the operands along an odd channel count are read in 16-byte
// vectors from any element offset (realign.cuh) instead of 2-byte copies:
// fwd x and w (C/G), bwd_data dy (K/G; w stays aligned, C/G a multiple of
// vec), bwd_weight dy (odd K/G) or x (odd C/G, OddCgConfig below).
template <int DIR, int DT, int NDIM, int TM, int TN, int TK, int WARPS_M, int WARPS_N, int STAGES, int SPLIT, int VEC,
          int GPB, int PK = 0, int RA = 0>
struct IgemmConfig {
  static constexpr int kDir = DIR, kDType = DT, kNdim = NDIM;
  static constexpr int kTileM = TM, kTileN = TN, kTileK = TK;
  static constexpr int kWarpsM = WARPS_M, kWarpsN = WARPS_N;
  static constexpr int kStages = STAGES, kSplit = SPLIT, kVec = VEC, kGpb = GPB;
  static constexpr bool kPacked = PK != 0;
  static constexpr bool kRealign = RA != 0;
  // A sub-tiles per stage: one per group, or one for all (packed).
  static constexpr int kLoadGpb = kPacked ? 1 : GPB;
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;

  typedef typename dev::Elem<DT>::T T;
  static constexpr int kElemBytes = dev::Elem<DT>::kBytes;
  static constexpr int kVecBytes = VEC * kElemBytes;
  // Packed fwd / bwd_data B (the block-diagonal weights): pieces of at most
  // 8 bytes, so that a group of 4 bf16 channels (2 fp32) fills whole pieces
  // while A gathers 16-byte vectors across the groups (loaders.cuh).
  static constexpr int kVecB = kPacked ? cmin(VEC, 8 / kElemBytes) : VEC;
  static constexpr int kVecBBytes = kVecB * kElemBytes;
  // Realigned A vectors are held in registers from their loads until after
  // the tile's MMAs, then stored (mainloop.cuh): the loads are in flight
  // while the tensor cores run instead of stalling the thread at once.
  static constexpr bool kDeferFlush = kRealign;
  // One mma k-step: m16n8k16 for 16-bit types, m16n8k8 (tf32) for fp32; both
  // are 32 bytes of K, i.e. two 16-byte chunks of a K-major row.
  static constexpr int kKStep = DT == dev::kFP32 ? 8 : 16;
  static constexpr int kKSteps = TK / kKStep;

  // Warp tile and mma atoms per warp.
  static constexpr int kWarpM = TM / WARPS_M, kWarpN = TN / WARPS_N;
  static constexpr int kMI = kWarpM / 16, kNI = kWarpN / 8;
  // Groups per block: the TN columns are GPB groups of kGroupN columns, each
  // with its own A sub-tile. A warp spans kWarpGroups whole groups (or lies
  // inside one), and each of its n8 atoms belongs to exactly one group.
  // Packed: the tile's columns are one block-diagonal GEMM's (kGroupN = TN).
  static constexpr int kGroupN = kPacked ? TN : TN / GPB;
  static constexpr int kWarpGroups = kWarpN >= kGroupN ? kWarpN / kGroupN : 1;
  static constexpr int kAtomsPerGroup = kNI / kWarpGroups;
  // Prefetch the next tile's first fragments behind the last k-step's mmas
  // (worth 10-25% on 64x64 warp tiles) where the registers allow a fragment
  // buffer to stay live across the loaders' copies. Fitted to ptxas spill
  // reports on sm_90a: warp tiles above 32x32 spill with it when several
  // groups share the block; 64x64 ones also when copies are narrower than 16
  // bytes, for fp32, and in bwd_data/bwd_weight at tile_k 64.
  static constexpr bool kCrossTilePrefetch =
      kMI * kNI <= 8 ||
      (kLoadGpb == 1 && (kMI * kNI <= 16 || (kVecBytes == 16 && DT != dev::kFP32 && TK <= (DIR == kFwd ? 64 : 32))));
  // Minimum blocks per SM for __launch_bounds__. Small warp tiles (<= 32
  // accumulators) serve grids of many short blocks, where occupancy hides
  // latency: they get 168 registers (3 blocks of 128 threads) instead of
  // whatever the compiler would hoist. Larger warp tiles, and copies narrower
  // than 8 bytes (more copy slots per thread), get the whole register file (an
  // explicit 1: without it ptxas picks its own cap and spills).
  static constexpr int kMinBlocks =
      (kMI * kNI <= 8 && kVecBytes >= 8 && 65536 / (kThreads * 168) > 1) ? 65536 / (kThreads * 168) : 1;

  // Operand orientation in shared memory. K-major: rows are M (or N) and K is
  // contiguous (plain ldmatrix); MN-major: rows are K (ldmatrix.trans).
  //   fwd:        A = x im2col (K-major),  B = w (K-major)
  //   bwd_data:   A = dy taps (K-major),   B = w (MN-major, contiguous in c)
  //   bwd_weight: A = dy^T (MN-major),     B = x im2col (MN-major)
  static constexpr bool kAKMajor = DIR != kBwdWeight;
  static constexpr bool kBKMajor = DIR == kFwd;

  typedef SmemTile<kAKMajor ? TM : TK, kAKMajor ? TK : TM, kElemBytes, tile_pad(kAKMajor, DT)> TileA;  // one group's
  typedef SmemTile<kBKMajor ? TN : TK, kBKMajor ? TK : TN, kElemBytes, tile_pad(kBKMajor, DT)> TileB;
  static constexpr int kABytes = kLoadGpb * TileA::kBytes;
  static constexpr int kStageBytes = kABytes + TileB::kBytes;
  static constexpr int kSmemBytes = STAGES * kStageBytes;

  static_assert(TM % (16 * WARPS_M) == 0, "warp tile M must be a multiple of 16");
  static_assert(TN % (8 * WARPS_N) == 0, "warp tile N must be a multiple of 8");
  static_assert(TK % kKStep == 0, "tile_k must be a multiple of the mma k-step");
  static_assert(STAGES >= 2 && STAGES <= 5, "2..5 pipeline stages");
  static_assert(kPacked || (TN % GPB == 0 && kGroupN % 8 == 0), "each group needs a multiple of 8 columns");
  static_assert(!kPacked || GPB > 1, "packed: several groups per block");
  static_assert(kLoadGpb == 1 || kWarpN % kGroupN == 0 || kGroupN % kWarpN == 0,
                "a warp must span whole groups or lie inside one");
  static_assert(VEC * kElemBytes <= 16 && (VEC & (VEC - 1)) == 0, "vec: 1, 2, 4 or 8 (16-bit), 1, 2 or 4 (fp32)");
  static_assert(!kRealign || (kVecBytes == 16 && !kPacked && GPB == 1),
                "realign: 16-byte vectors, one group per block, not packed");
};

// A realigned bwd_weight instance (RA) runs one of two bodies, picked per
// launch by C/G (igemm.cuh igemm_main): on the vector, the IgemmConfig itself
// (dy realigned along an odd K/G, x on cp.async); odd, OddCgConfig: x (B)
// realigned along C/G, the GEMM's columns (tap, c) with c over C/G rounded
// up to vec so that a vector never spans two taps (the rounding's columns
// load zeros and are never written, params.cuh OddCgCols), dy (A) on
// cp.async (K/G on the vector). The same body runs the run merge (one
// group, W dilation 1: columns (Z x Y tap, j) with j over X x C, the
// launch's IgemmParams::xrun). One name, one traits flag: which operand
// runs off the vector, and how, is the problem's business, not the pool's.
template <class Cfg>
struct OddCgConfig : Cfg {
  static constexpr bool kRealign = false;  // A, dy along K/G: cp.async
  static constexpr bool kOddCg = true;     // B, x along C/G: realigned
  static constexpr bool kDeferFlush = true;
};
// A realigned bwd_data instance's second body (igemm.cuh igemm_main), for
// an odd C/G (dx's channels) with K/G on the vector: w (B, MN-major along
// C/G: its rows of C/G elements start at any offset) in 2-byte pieces, dy
// (A, K-major along K/G) on cp.async in 16-byte vectors and the K counter
// unrounded; the epilogue stores dx's odd rows element by element where a
// vector would be misaligned. w is the small operand every M tile re-reads
// from L1/L2, so narrowing only it keeps dy, the one that streams, on 16
// bytes, where the vec 1 kernels copied both 2 bytes at a time (r2plus1d's
// C = 45 and 921 bwd_data layers ran at 0.45-0.70 of cuDNN that way).
template <class Cfg>
struct NarrowBConfig : Cfg {
  static constexpr bool kRealign = false;
  static constexpr bool kDeferFlush = false;
  static constexpr int kVecB = 1;
  static constexpr int kVecBBytes = Cfg::kElemBytes;
};
// Cfg::kOddCg where a config defines it (OddCgConfig), else false (IgemmConfig,
// the wgmma producers' loader configs).
template <class C, class = void>
struct OddCgOf {
  static constexpr bool value = false;
};
template <class C>
struct OddCgOf<C, decltype(void(C::kOddCg))> {
  static constexpr bool value = C::kOddCg;
};

}  // namespace igemm
}  // namespace gconv
