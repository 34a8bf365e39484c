// Host side of the tinyc family (tensor-core bwd_data for dx with at most 8
// channels and one group, e.g. the C = 3 stems; device code tinyc.cuh):
// the rules an instance enforces, its halo geometry, shared memory and
// kernel parameter.
//
// Traits of a tinyc kernel (KernelTraits fields):
//   block_h, block_w   the dx tile of a block (block_h a multiple of the H
//                      stride, block_w / the W stride a multiple of 16)
//   warps_m            warps per block (2, 4 or 8)
//   vec                8 (dy is read in 16-byte vectors: K % 8 == 0)
// Every other field keeps its KernelTraits default.
#pragma once

#include <cstddef>
#include <string>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/tinyc/params.cuh"
#include "kernels/traits.hpp"

namespace gconv::tinyc {

// Rules on the traits alone.
bool traits_ok(const KernelTraits& t, std::string* why);

// traits_ok plus the problem rules (direction, dtype, 2D, one group, C <= 8,
// K % 8 == 0, tile vs stride, shared memory, index ranges).
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

std::string instance_source(const KernelTraits& t);

}  // namespace gconv::tinyc
