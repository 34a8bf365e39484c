// Test-only header (tests/jit): a device helper reached through a nested
// include, to check that the JIT resolves headers included by headers.
#pragma once

namespace gconv::testing {

__device__ __forceinline__ float scale_add(float a, float b, float alpha) { return alpha * a + b; }

}  // namespace gconv::testing
