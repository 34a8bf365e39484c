// KernelTraits: the configuration of one kernel instance, as data.
//
// A pool is a list of KernelTraits expanded from configs/pools/*.json under the
// rules of configs/arch/<arch>.json (src/pool). The name of an instance is
// computed by kernel_name() and parsed back by parse_kernel_name(); names key
// the registry, the JIT cache, sweep CSVs and the selector's training rows.
//
// Name grammar (one function builds it, its inverse parses it):
//   igemm_<dir>_<dtype>_<nd>d_m<TM>n<TN>k<TK>_w<WM>x<WN>_s<stages>_sk<S>[p|s]_v<vec>_g<gpb>[_pk|_ra]
//     e.g. igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1; _pk: packed
//     (the gpb groups as one block-diagonal GEMM); _ra: realigned (odd
//     channel counts read in 16-byte vectors from any offset)
//     sk1 = no split-K; sk8p = 8-way parallel split-K (fp32 workspace + reduce);
//     sk8s = 8-way serial split-K (fp32 atomics into a workspace, then convert).
//   wgmma_<dir>_<dtype>_<nd>d_m<TM>n<TN>k<TK>_c<CWG>_s<stages>_sk<S>[p|s|c]_v<vec>[_tma]
//     e.g. wgmma_fwd_bf16_2d_m128n128k64_c1_s4_sk1_v8: CWG consumer
//     warpgroups (KernelTraits::warps_m) share the CTA tile; warps_n and
//     groups_per_block are always 1 and not written; sk as for igemm.
//   direct_<dir>_<dtype>_<nd>d_t<BH>x<BW>_r<R>_v<vec>[_det]
//     e.g. direct_fwd_bf16_2d_t8x16_r4_v8: a block computes an 8x16 output
//     tile, each thread R outputs along W for vec channels; _det marks the
//     deterministic (workspace) reduction of bwd_weight.
//   tinyc_bwd_data_<dtype>_2d_t<BH>x<BW>_w<warps>
//     e.g. tinyc_bwd_data_bf16_2d_t16x64_w8: tensor-core bwd_data for dx of
//     at most 8 channels (src/kernels/tinyc), a 16x64 dx tile, 8 warps.
//   pw_<dir>_<dtype>_<nd>d_m<TM>n<TN>k<TK>_w<warps>_s<stages>
//     e.g. pw_fwd_bf16_2d_m64n64k64_w4_s3: a pointwise fwd / bwd_data
//     kernel (src/kernels/pw): TM-row tiles, TN output channels a block,
//     reductions of TK / 2 < kd <= TK channels, warps, A stages.
//   direct_<dir>_<dtype>_<nd>d_t<BH>x<BW>_r<R>_v<vec>_w<FX>s<SX>[_tma]
//     e.g. direct_fwd_bf16_2d_t8x32_r8_v8_w3s1: a register-window depthwise
//     kernel (src/kernels/direct/window.cuh) for filter width FX and W stride
//     SX, compiled in; R outputs along W per thread, threads as for the tile
//     kernels (block_h * block_w / R * 8); it never carries _det. _tma (fwd
//     and bwd_data, 1D/2D): the TMA row stream (window_stream.cuh) instead
//     of the gather (window_gather).
#pragma once

#include <string>
#include <string_view>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"

namespace gconv {

// tinyc: tensor-core bwd_data for dx with at most 8 channels (C = 3 stems),
// src/kernels/tinyc.
// pw: pointwise fwd / bwd_data (1x1, stride 1, no padding, one group) as a
// streaming GEMM whose reduction fits one pass, src/kernels/pw.
enum class Family { igemm, direct, wgmma, tinyc, pw };
// Split-K: parallel = fp32 slices + a reduce kernel; serial = atomic adds into
// one zeroed fp32 slice + a convert kernel; cluster (wgmma only) = the splits
// of a tile are one thread-block cluster that adds its partial tiles through
// distributed shared memory: one launch, no workspace, deterministic.
enum class SplitKMode { none, parallel, serial, cluster };

const char* to_string(Family f);
const char* to_string(SplitKMode m);  // "none", "parallel", "serial", "cluster"

// The implicit-GEMM families (igemm, wgmma): the tile_*, warps_*, stages,
// split and groups_per_block fields apply to them, block_h.. to direct only.
inline bool is_implicit_gemm(Family f) { return f == Family::igemm || f == Family::wgmma; }
// The families whose GEMM tile fields (tile_*, warps_*, stages) describe
// the kernel: the implicit GEMMs and pw (pointwise GEMM: warps_n 1). What
// lists traits (sweep CSVs, the filter language, `gconv kernels`) writes
// those fields for these and the block fields for the others.
inline bool has_gemm_tile(Family f) { return is_implicit_gemm(f) || f == Family::pw; }

struct KernelTraits {
  Family family = Family::igemm;
  Direction direction = Direction::fwd;
  DType dtype = DType::bf16;
  int ndim = 2;

  // igemm: CTA tile, warp grid, cp.async pipeline depth, split-K, vector
  // width of global accesses (elements), groups per thread block.
  // wgmma: the same fields; warps_m counts consumer warpgroups, warps_n and
  // groups_per_block are 1 (src/kernels/wgmma/wgmma_plan.hpp).
  int tile_m = 128, tile_n = 128, tile_k = 32;
  int warps_m = 2, warps_n = 2;
  int stages = 3;
  SplitKMode split_mode = SplitKMode::none;
  int split_k = 1;
  int vec = 8;
  int groups_per_block = 1;
  // igemm fwd / bwd_data with groups_per_block > 1: the groups form one
  // block-diagonal GEMM with a shared A tile (src/kernels/igemm/config.cuh).
  bool packed = false;
  // igemm: the operands along an odd channel count (fwd: x and w, C/G;
  // bwd_data: dy, K/G; bwd_weight: dy along K/G or x along C/G) read in
  // 16-byte vectors realigned in registers (src/kernels/igemm/realign.cuh).
  bool realign = false;

  // direct: output tile per block (block_h x block_w), outputs per thread
  // along W (per_thread), channels per thread (vec above), deterministic
  // bwd_weight reduction.
  int block_h = 8, block_w = 16;
  int per_thread = 1;
  bool deterministic = false;
  // direct, register-window variant: the filter width and W stride it is
  // compiled for (win_fx == 0: a tile kernel, win_sx then 0 too).
  int win_fx = 0, win_sx = 0;

  // wgmma: the producer loads both operands with the tensor memory
  // accelerator (im2col and tiled tensor maps) instead of cp.async gathers.
  // direct register-window fwd / bwd_data: the source rows come as a TMA
  // row stream with the weights in registers (window_stream.cuh) instead of
  // window_gather's shared-memory weights and global source loads.
  bool tma = false;

  int threads() const;  // threads per block
  bool operator==(const KernelTraits&) const = default;
};

// The one function that names a kernel, and its inverse.
std::string kernel_name(const KernelTraits& t);
Result<KernelTraits> parse_kernel_name(std::string_view name);

}  // namespace gconv
