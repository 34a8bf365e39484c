// Test-only kernel template (tests/jit, tests/gpu): y[i] = alpha * a[i] + b[i].
// An instance source includes this header and defines an extern "C" entry.
#pragma once

#include "testing/scale.cuh"

namespace gconv::testing {

template <int kItemsPerThread>
__device__ void vector_add(const float* a, const float* b, float* y, float alpha, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * kItemsPerThread;
#pragma unroll
  for (int i = 0; i < kItemsPerThread; ++i) {
    int j = base + i;
    if (j < n) y[j] = scale_add(a[j], b[j], alpha);
  }
}

}  // namespace gconv::testing
