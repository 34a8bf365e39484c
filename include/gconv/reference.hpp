// CPU reference convolution: the ground truth every GPU kernel is checked
// against. Plain loops over the definitions, fp64 accumulation.
//
// Operands by direction (layouts as in gconv/problem.hpp, channels-last,
// computed as 3D with the spatial slots right-aligned):
//   direction   | a     | b     | out
//   ------------+-------+-------+-----
//   fwd         | x     | w     | y     y[n,o,k]   = sum_{t,cg} x[n, o*s - pad_lo + t*dil, g*Cg+cg] * w[k,t,cg]
//   bwd_data    | dy    | w     | dx    dx[n,i,c]  = sum over (o,t,kg) with o*s - pad_lo + t*dil == i of dy[n,o,g*Kg+kg] * w[g*Kg+kg,t,cg]
//   bwd_weight  | x     | dy    | dw    dw[k,t,cg] = sum_{n,o} dy[n,o,k] * x[n, o*s - pad_lo + t*dil, g*Cg+cg]
// (g is the group of the channel; input positions outside [0, in) read 0.)
// The three are adjoint: <fwd(x,w), dy> = <x, bwd_data(dy,w)> = <w, bwd_weight(x,dy)>.
//
// Contract: `out` is fully overwritten (no accumulation into it). Buffers are
// host memory, densely packed, and must not overlap. `threads` = 0 uses
// std::thread::hardware_concurrency(). The result does not depend on the
// number of threads (every output element is summed by one thread in a fixed
// order). Errors: the problem's validate() status, or invalid_argument for a
// null pointer; nothing is written then.
#pragma once

#include <cstdint>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"

namespace gconv {

// Element counts of a, b and out for p.direction (see the table above).
struct ReferenceOperands {
  int64_t a = 0, b = 0, out = 0;
};
ReferenceOperands reference_operands(const Problem& p);

// fp64 storage, p.dtype ignored.
Status reference_conv_f64(const Problem& p, const double* a, const double* b, double* out,
                          int threads = 0);

// Storage in p.dtype (bf16 / fp16 as uint16_t bit patterns, fp32 as float):
// inputs are widened exactly, accumulated in fp64, and each output element is
// rounded to p.dtype once (RNE).
Status reference_conv(const Problem& p, const void* a, const void* b, void* out, int threads = 0);

}  // namespace gconv
