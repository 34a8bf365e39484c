// IgemmParams: the one kernel parameter of every igemm instance, a POD shared
// by the host (src/kernels/igemm/igemm_plan.cpp fills it) and the device (the
// kernels read it from parameter space). Plain ints and pointers only, so the
// host compiler and NVRTC agree on the layout.
//
// Spatial arrays use the Problem's right-aligned 3 slots (slot 2 is W/X).
// Every element offset fits int32: Problem::validate() caps tensors at 2^31-1
// elements and can_implement() rejects geometries whose padded index range
// would not fit (see igemm_plan.cpp).
#pragma once

namespace gconv {
namespace igemm {

// n / d for 0 <= n < 2^31 and 1 <= d < 2^31, given mul = ceil(2^shift / d)
// and shift = 31 + ceil(log2 d) (mul < 2^32; exact: mul * d - 2^shift < d
// and n < 2^31 keep the error below one). Host and device.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
__host__ __device__
#endif
inline int fast_div(int n, unsigned mul, int shift) {
  return static_cast<int>((static_cast<unsigned long long>(static_cast<unsigned>(n)) * mul) >> shift);
}

enum DirId { kFwd = 0, kBwdData = 1, kBwdWeight = 2 };
// kSplitCluster: wgmma only (the splits of a tile are one cluster and add
// through distributed shared memory; wgmma/wgmma.cuh store_cluster).
enum SplitId { kSplitNone = 0, kSplitParallel = 1, kSplitSerial = 2, kSplitCluster = 3 };

struct IgemmParams {
  // GEMM operands and result, see igemm.cuh: fwd: a = x, b = w, dst = y;
  // bwd_data: a = dy, b = w, dst = dx; bwd_weight: a = dy, b = x, dst = dw.
  const void* a;
  const void* b;
  void* dst;
  float* ws;  // split-K workspace (fp32, in the output's layout), else null

  // Thread blocks, linearized in blockIdx.x: n tile fastest, then group
  // block, phase (bwd_data stride phases; 1 otherwise), m tile, split. Blocks
  // that share an A tile run together; phases of unequal work interleave.
  int n_tiles, g_blocks, m_tiles, splits, phases;

  int batch, C, K, G, Cg, Kg;
  int in[3], out[3], filt[3], stride[3], pad[3], dil[3];
  // Product of the spatial sizes right of slot i (row-major strides in pixels).
  int in_inner[3], out_inner[3], filt_inner[3];
  int in_vol, out_vol, filt_vol;

  // GEMM sizes per group. bwd_data recomputes M and K per stride phase in
  // the kernel; these hold the unphased sizes there.
  int gemm_m, gemm_n, gemm_k;

  // Mixed-radix counter along GEMM K, digits right-aligned (slot 3 fastest):
  // fwd: (z, y, x, c) taps and channel; bwd_weight: (n, od, oh, ow) for 3D,
  // (n, oh, ow) in slots 1..3 for 2D, (n, ow) in slots 2..3 for 1D.
  // inc = tile_k written in that radix (slot 3-ndim may exceed its radix).
  int kc_radix[4], kc_inc[4];

  int out_elems;  // elements of the output tensor (also one workspace slice)

  // Serial or parallel split-K in one launch (igemm/fixup.cuh): fixup != 0
  // selects it (else serial's slice is zeroed before the kernel, and the
  // slices are converted after it); flags: kFixupWords words per output tile
  // after the slices; epoch: unique per launch, never 0.
  unsigned long long* flags;
  unsigned long long epoch;
  int fixup;
  // wgmma kernels with a staging area of their own: 1 when the launch passes
  // a tensor map of the output (its rows an affine map of the GEMM rows), so
  // that whole tiles leave through TMA stores (wgmma.cuh store_tma).
  int out_map;
  // TMA producers of pointwise problems (wgmma/tma.hpp flat_ok): 1 when the
  // im2col operand's map is a tiled (channels, N * pixels) matrix, loaded at
  // (channel, row) instead of through im2col.
  int tma_flat;
  // TMA producers, one box of several 64-channel blocks per operand and
  // stage (wgmma/tma.hpp): bit 0, bwd_weight dy (A, tile_m / 64 blocks);
  // bit 1, bwd_weight x of pointwise problems or bwd_data w (B, tile_n / 64).
  int tma_blocks;
  // wgmma fwd TMA kernels without split (wgmma_family.cpp multicast_ok): 2
  // when the launch forms clusters of two blocks on adjacent M tiles of one
  // N tile that share B, each loading half of B's rows for both (TMA
  // multicast); else 1.
  int mcast;

  // Division by n_tiles, g_blocks, phases, m_tiles (in that order) as a
  // multiply and shift (fast_div; host: igemm_plan.cpp set_fast_div): the
  // block's position is a chain of four divisions ahead of its first load,
  // each a dependent run of ~20 instructions as an integer division. (Last
  // in the struct, so kernels built from older headers read the rest
  // unchanged in A/B runs.)
  unsigned div_mul[4];
  int div_shift[4];
  // wgmma bwd_data TMA producers (im2col, not flat): the lower corner of dy's
  // im2col map per slot, common to every stride phase (wgmma/tma.hpp
  // bwd_data_corners); a phase's filter bases lie its own shift beyond it.
  int tma_lower[3];
  // Realigned bwd_weight reading x along an odd C/G (config.cuh
  // OddCgConfig): the run of contiguous x elements its column vectors walk.
  // C/G: one tap's channels; X * C (one group, W dilation 1): the run
  // merge, the X taps of a filter row folded into one run (for W stride sw,
  // output pixel ow, row (n, z, y), x[ow * sw - pad_w + fx, c] sits at
  // (ow * sw - pad_w) * C + fx * C + c of the row). igemm_plan.cpp
  // realign_x_run picks it; C/G elsewhere. (Last: see div_mul.)
  int xrun;
  // wgmma TMA fwd / bwd_data whose channels a tap (C/G, K/G) are not whole
  // 64-channel blocks (wgmma/tma.hpp tap_k): the GEMM's K per tap,
  // those channels rounded up to the block, so that every block of the K
  // walk lies inside one tap; the consumers skip the MMAs of the K steps
  // past the channels (wgmma.cuh consume). 0 elsewhere. (Last: see div_mul.)
  int tap_k;
  // Packed wgmma bwd_weight (wgmma/packed.hpp, docs/packed.md "wgmma"):
  // the kernel runs ceil(G / gpb) group blocks of gpb * C/G and gpb * K/G
  // channels (G, Cg, Kg above; C and K stay the tensors'), one
  // block-diagonal GEMM per block, and keeps only the diagonal blocks: these
  // are the problem's own C/G and K/G (0 when not packed; wgmma
  // epilogue.cuh PackedOut). pk_tw: GEMM columns per filter tap where a
  // block's channels are padded to whole 64-channel boxes (columns past Cg
  // are never stored), else 0 (Cg). (Last: see div_mul.)
  int pk_cg, pk_kg, pk_tw;
};

// bwd_weight with an odd C/G (realigned x: config.cuh OddCgConfig): GEMM
// column nn is (tap, j) with j over the run xrun rounded up to vec (cpk;
// p.gemm_n is taps * cpk), the taps the filter's (the run merge: its Z x Y,
// X folded into the run); it lands at tap * xrun + j of its filter row (dw
// is K x taps x X x C/G, so a merged run's (fx, c) are contiguous there
// too), and only j < xrun exists. A run of columns from a multiple of 4
// stays inside one tap (cpk is a multiple of vec: 4 or 8), so it is
// contiguous in dw up to the run's end: the epilogue's vectors and pairs
// and the split-K fixup's 4-column vectors rely on that. Host and device
// (the host tests check the map).
struct OddCgCols {
  int run, cpk, gemm_n;
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
  __host__ __device__
#endif
  OddCgCols(const IgemmParams& p, int vec) : run(p.xrun), cpk((p.xrun + vec - 1) / vec * vec), gemm_n(p.gemm_n) {}
  // Column nn's offset in its filter row; avail: the columns nn, nn + 1, ...
  // that exist before the run's padding (<= 0: nn itself does not).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
  __host__ __device__
#endif
  int map(int nn, int& avail) const {
    const int f = nn / cpk, c = nn - f * cpk;
    avail = nn < gemm_n ? run - c : 0;
    return f * run + c;
  }
};

}  // namespace igemm
}  // namespace gconv
