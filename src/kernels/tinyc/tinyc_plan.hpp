// Host side of the tinyc family: tensor-core kernels for convolutions with
// tiny channel counts. bwd_data for dx with at most 8 channels and one group
// (e.g. the C = 3 stems; device code tinyc.cuh), and bwd_weight of grouped
// convolutions with C/G = K/G = 4, 8 or 16 (ResNeXt / RegNet; device code
// tinyc_wgrad.cuh): the rules an instance enforces, its geometry, shared
// memory, workspace and kernel parameter.
//
// Traits of a tinyc kernel (KernelTraits fields):
//   block_h, block_w   bwd_data: the dx tile of a block (block_h a multiple
//                      of the H stride, block_w / the W stride a multiple of
//                      16); bwd_weight: the dy tile of one reduction step
//                      (block_w a multiple of 16)
//   warps_m            warps per block (bwd_data 2, 4 or 8; bwd_weight 4 or 8)
//   vec                8, the default: the name does not carry it; the dy
//                      copy width follows K at run time (TinycParams::kvec)
//   ndim               2 or 3 (3D: a block owns a tile of one dx depth
//                      slice); bwd_weight 2
// Every other field keeps its KernelTraits default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/tensor_map.hpp"
#include "kernels/tinyc/params.cuh"
#include "kernels/traits.hpp"

namespace gconv::tinyc {

// The H / W plane geometry both kernel parameters carry (TinycParams,
// TinycWgradParams): batch, input and output planes, C, filter, stride, low
// padding and dilation of slots 1 and 2.
template <class Q>
void set_plane(const Problem& p, Q& q) {
  q.n = int(p.n);
  q.h = int(p.in[1]);
  q.w_ = int(p.in[2]);
  q.c = int(p.c);
  q.ho = int(p.out(1));
  q.wo = int(p.out(2));
  q.fh = int(p.filter[1]);
  q.fw = int(p.filter[2]);
  q.sh = int(p.stride[1]);
  q.sw = int(p.stride[2]);
  q.ph = int(p.pad_lo[1]);
  q.pw = int(p.pad_lo[2]);
  q.dh = int(p.dilation[1]);
  q.dw = int(p.dilation[2]);
}

// Rules on the traits alone.
bool traits_ok(const KernelTraits& t, std::string* why);
// traits_ok's tile and warp rules for bwd_weight (tinyc_wgrad.cpp); the
// family, dtype, vec and canonical-form rules are traits_ok's own.
bool wgrad_traits_ok(const KernelTraits& t, std::string* why);

// traits_ok plus the problem rules (direction, dtype, ndim, one group, C <= 8,
// tile vs stride, shared memory, index ranges). Any K, any depth stride,
// padding and dilation.
bool can_implement(const KernelTraits& t, const Problem& p, std::string* why);

struct Plan {
  TinycParams params{};
  size_t smem = 0;
  long long blocks = 0;
  int threads = 0;
};

// The halo geometry, shared memory and grid of t on p (can_implement(t, p)
// must hold; pointers are left null).
Plan make_plan(const KernelTraits& t, const Problem& p);

// Channels per dy copy (TinycParams::kvec): 8 (16-byte copies) when k % 8
// == 0 and dy_address is 16-byte aligned, else 1 (make_plan passes 16,
// launch the address of dy).
int copy_channels(int64_t k, uintptr_t dy_address);

std::string instance_source(const KernelTraits& t);

// ---- bwd_weight (tinyc_wgrad.cpp) ------------------------------------------
// Blocks a bwd_weight launch aims at over all its slabs (a fixed number, so
// that the plan depends on the problem only): two per SM of an H100 / H200.
inline constexpr int64_t kWgradBlocks = 264;
// ... and the fp32 atomics its blocks add at most (a block adds 64 x taps x
// C/G of them: at C/G = 16 and small images, where a block has a step or
// two, they would outnumber the products).
inline constexpr int64_t kWgradAtomics = int64_t{1} << 21;

struct WgradPlan {
  TinycWgradParams params{};
  size_t smem = 0;
  long long blocks = 0;  // per slab (gridDim.x)
  long long slabs = 0;   // gridDim.y
  int threads = 0;
  size_t workspace = 0;     // the fp32 accumulator of dw, then the slabs' fixup words
  size_t flags_offset = 0;  // bytes from the workspace to the words
};

// The bwd_weight rules on top of traits_ok: 2D, C/G = K/G in {4, 8, 16}, C
// == K a multiple of 8 (or one group with C <= 8, K a multiple of 8 and W * C
// of 8: the stems), at most kWMaxTaps filter taps, shared memory (two stages
// of the dy tile and its x halo).
bool wgrad_can_implement(const KernelTraits& t, const Problem& p, std::string* why);
// Whether p takes the kernels' stem entry (gconv_stem): one group of at most
// kMaxC input channels (the C = 3 stems), the slabs over K.
bool wgrad_stem(const Problem& p);
// The geometry, grid and workspace of t on p (wgrad_can_implement must hold;
// pointers are left null).
WgradPlan make_wgrad_plan(const KernelTraits& t, const Problem& p);
std::string wgrad_instance_source(const KernelTraits& t);
// The tensor maps of a bwd_weight launch (128-byte swizzle): x as (C, W, H, N)
// with a box of 64 channels x the tile's x rectangle, dy as (K, Wo, Ho, N)
// with a box of 64 channels x the dy tile.
TmaArgs wgrad_x_map(const Problem& p, const WgradPlan& plan);
TmaArgs wgrad_dy_map(const KernelTraits& t, const Problem& p);

}  // namespace gconv::tinyc
