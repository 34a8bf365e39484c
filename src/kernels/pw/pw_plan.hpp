// Host side of the pw family: pointwise convolutions (1x1 filter, stride 1,
// no padding, one group) fwd and bwd_data as a streaming GEMM whose whole
// reduction fits one pass (device code pw.cuh): the rules an instance
// enforces, its grid, shared memory and kernel parameter.
//
// Traits of a pw kernel (KernelTraits fields):
//   tile_m    rows of a tile (64 or 128)
//   tile_n    output channels of a block (32, 64, 128 or 256)
//   tile_k    the reduction lengths it takes: tile_k / 2 < kd <= tile_k
//             (32: any kd <= 32; 64, 128 or 256)
//   warps_m   warps of a block (4 or 8); each owns tile_m / warps_m rows (16 or 32)
//   stages    A tiles in flight (2 to 4)
//   ndim      1, 2 or 3 (the kernel sees rows only; the pools carry all three)
// Every other field keeps its KernelTraits default.
#pragma once

#include <cstddef>
#include <string>

#include "gconv/problem.hpp"
#include "kernels/pw/params.cuh"
#include "kernels/traits.hpp"

namespace gconv::pw {

// Blocks a launch aims at per SM (at most; fewer when shared memory or the
// registers allow fewer) and the SMs it plans for (H100 / H200: 132), fixed
// so that the plan depends on the problem only.
inline constexpr int kBlocksPerSm = 4;
inline constexpr int kPlanSms = 132;

// Rules on the traits alone.
bool traits_ok(const KernelTraits& t, std::string* why);

// Whether p is a pointwise convolution the family covers at all (fwd or
// bwd_data, bf16 / fp16, one group, every filter size 1, stride 1, no
// padding); the traits' own rules are can_implement's.
bool problem_ok(const Problem& p, std::string* why);

// traits_ok, problem_ok and the instance's own ranges: tile_k / 2 < kd <=
// tile_k (tile_k 32: any kd); nn > tile_n / 2 (tile_n 32: any nn up to 32), or nn a multiple of 8 above
// tile_n (N tiles of 16-byte rows).
bool can_implement(const KernelTraits& t, const Problem& p, std::string* why);
// can_implement's own part, for a caller that has checked traits_ok once per
// kernel and problem_ok once per problem (the registry's selection loop).
bool instance_ok(const KernelTraits& t, const Problem& p, std::string* why);

// The GEMM's sides: rows, reduction length and output channels of p.
struct Gemm {
  long long rows = 0;
  int kd = 0, nn = 0;
  int kp = 0;  // kd rounded up to the mma's 16-element k-steps (B's rows, zero past kd)
};
Gemm gemm_of(const Problem& p);

// Shared memory of an instance at its largest (kd = tile_k, nn = tile_n;
// a launch takes what its problem needs, Plan::smem), its register
// estimate (the accumulators plus the fragments and addresses) and blocks
// per SM at that size.
size_t smem_bytes(const KernelTraits& t);
int register_estimate(const KernelTraits& t);
int blocks_per_sm(const KernelTraits& t);

struct Plan {
  PwParams params{};
  size_t smem = 0;
  long long n_tiles = 0;   // gridDim.x (an M tile's N tiles run side by side, its A rows shared in L2)
  long long blocks_m = 0;  // gridDim.y: blocks along M (each walks m_tiles / blocks_m tiles)
  int threads = 0;
};

// The grid and parameter of t on p (can_implement(t, p) must hold;
// pointers are left null).
Plan make_plan(const KernelTraits& t, const Problem& p);

std::string instance_source(const KernelTraits& t);

}  // namespace gconv::pw
