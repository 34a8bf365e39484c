// The naive kernel family: the general fallback (any valid problem, every
// direction, dtype and dimension; device code in naive.cuh) and the GPU
// reference of the GPU tests. Not part of the pool: there is no Family::naive,
// so its instances are described by a fixed KernelTraits (naive_traits), and
// the family answers from the Problem's direction, dtype and ndim alone.
//
// Launch: 256 threads per block; fwd and bwd_data one thread per output
// element, bwd_weight one warp per dw element. No workspace. Every output
// element is written (bwd_data writes 0 where no tap reaches).
#pragma once

#include <string>

#include "gconv/problem.hpp"
#include "kernels/family.hpp"
#include "kernels/traits.hpp"

namespace gconv {

const KernelFamily& naive_family();

// The traits of the naive instance for p's direction, dtype and ndim:
// family = direct with a 1x1 tile, per_thread 1, vec 1, deterministic. That
// value is not a useful direct config, so it cannot clash with a pool entry;
// use naive_kernel_name, not kernel_name, to label it.
KernelTraits naive_traits(const Problem& p);

// "naive_<dir>_<dtype>_<nd>d", e.g. "naive_bwd_data_fp16_3d".
std::string naive_kernel_name(const KernelTraits& t);

}  // namespace gconv
