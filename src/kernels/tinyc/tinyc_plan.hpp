// Host side of the tinyc family (tensor-core bwd_data for dx with at most 8
// channels and one group, e.g. the C = 3 stems; device code tinyc.cuh):
// the rules an instance enforces, its halo geometry, shared memory and
// kernel parameter.
//
// Traits of a tinyc kernel (KernelTraits fields):
//   block_h, block_w   the dx tile of a block (block_h a multiple of the H
//                      stride, block_w / the W stride a multiple of 16)
//   warps_m            warps per block (2, 4 or 8)
//   vec                8, the default: the name does not carry it; the dy
//                      copy width follows K at run time (TinycParams::kvec)
//   ndim               2 or 3 (3D: a block owns a tile of one dx depth slice)
// Every other field keeps its KernelTraits default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/tinyc/params.cuh"
#include "kernels/traits.hpp"

namespace gconv::tinyc {

// Rules on the traits alone.
bool traits_ok(const KernelTraits& t, std::string* why);

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

}  // namespace gconv::tinyc
