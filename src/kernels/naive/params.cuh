// NaiveParams: the kernel argument of the naive family (host and device).
// 64-bit sizes throughout: the naive kernels favour obvious correctness over
// speed. Spatial slots as in gconv::Problem (0 = D, 1 = H, 2 = W).
#pragma once

namespace gconv::naive {

struct NaiveParams {
  // ConvArgs order: fwd (x, w, y), bwd_data (dy, w, dx), bwd_weight (x, dy, dw).
  const void* a;
  const void* b;
  void* out;
  long long n, c, k, g, cg, kg;
  long long in[3], out_size[3], filt[3], stride[3], pad[3], dil[3];
  long long total;  // elements of `out`
};

}  // namespace gconv::naive
