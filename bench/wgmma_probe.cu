// How fast one warpgroup's wgmmas run when each waits for the one before
// (one accumulator) and when 2 or 4 independent accumulators take turns:
// the question behind small tiles' pace (docs/wgmma.md, "What paces a small
// tile": a 64x64 tile's stage of 4 dependent m64n64k16 wgmmas took ~845 SM
// cycles with or without its loads).
//
// Each configuration runs ITERS stages of 4 wgmmas (K = 64 in steps of 16,
// bf16, operands already in shared memory, the kernels' 128-byte swizzled
// layouts), with the consumers' own stage loop: fence, the 4 wgmmas, commit,
// wait until at most one group is pending. Printed: SM cycles per wgmma and
// the tensor rate that is (FLOP per cycle per SM; 4096 is the H100's dense
// bf16 peak per SM at its boost clock).
//
// Build (this machine): nvcc -gencode arch=compute_90a,code=sm_90a -O3
//   -std=c++17 -Isrc/kernels bench/wgmma_probe.cu -o .device/wgmma_probe (the
//   wgmma instructions need the "a" target); run on the GPU machine
//   (bench/device_call.sh wgprobe). Not part of the library.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_util.cuh"

#include "wgmma/mma_async.cuh"
#include "wgmma/sm90.cuh"


namespace {

using gconv::wg::make_desc;
using gconv::wg::u64;

constexpr int kIters = 256;

// N: the instruction's N; C: accumulator chains; TB: 1 = B MN-major (as
// bwd_data's weights), 0 = K-major; WG: consumer warpgroups (each its own
// rows of A, the same B).
template <int N, int C, int TB, int WG>
__global__ void __launch_bounds__(128 * WG) chain(long long* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  typedef gconv::wg::MmaAsync<N, 0, 0, TB> Mma;
  const unsigned base = (static_cast<unsigned>(__cvta_generic_to_shared(smem)) + 1023u) & ~1023u;
  const int wg = threadIdx.x / 128;
  const unsigned a = base + wg * 8192;            // 64 x 64 bf16, K-major rows of 128 bytes
  const unsigned b = base + 2 * 8192;             // N x 64 bf16
  float d[C][N / 2];
#pragma unroll
  for (int c = 0; c < C; ++c)
#pragma unroll
    for (int r = 0; r < N / 2; ++r) d[c][r] = 0.f;
  __syncthreads();
  const long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < kIters; ++it) {
    gconv::wg::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      const u64 da = make_desc(a + ks * 32, 16, 1024, 128);
      // K-major B: rows of 128 bytes; MN-major: 64-element blocks of 8 KB
      // (K rows of 128 bytes), the K step 16 rows further.
      const u64 db = TB ? make_desc(b + ks * 16 * 128, 8192, 1024, 128) : make_desc(b + ks * 32, 16, 1024, 128);
      Mma::run(d[ks % C], da, db);
    }
    gconv::wg::wgmma_commit();
    gconv::wg::wgmma_wait<1>();
  }
  gconv::wg::wgmma_wait<0>();
  const long long t1 = clock64();
  float s = 0;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    gconv::wg::fence_regs(d[c]);
#pragma unroll
    for (int r = 0; r < N / 2; ++r) s += d[c][r];
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x % 128 == 0) out[blockIdx.x * 2 + wg] = t1 - t0;
}

template <int N, int C, int TB, int WG>
void run(const char* label, long long* out, float* sink, int grid) {
  const size_t smem = 3 * 8192 + 256 * 128 + 1024;
  CK(cudaFuncSetAttribute(chain<N, C, TB, WG>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  for (int rep = 0; rep < 3; ++rep) {
    chain<N, C, TB, WG><<<grid, 128 * WG, smem>>>(out, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  std::vector<long long> h(size_t(grid) * 2);
  CK(cudaMemcpy(h.data(), out, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost));
  std::vector<double> per;
  for (int i = 0; i < grid; ++i)
    for (int w = 0; w < WG; ++w) per.push_back(double(h[size_t(i) * 2 + w]) / (kIters * 4));
  const double cyc = probe_median(per);
  const double flop = 2.0 * 64 * N * 16 * WG;  // per wgmma slot of all warpgroups
  std::printf("%-44s grid %3d: %6.1f cycles a wgmma, %6.0f FLOP/cycle/SM\n", label, grid, cyc, flop / cyc);
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  long long* out = nullptr;
  float* sink = nullptr;
  CK(cudaMalloc(&out, sizeof(long long) * 2 * 1024));
  CK(cudaMalloc(&sink, sizeof(float) * 256 * 1024));
  for (int grid : {1, 132}) {
    run<64, 1, 0, 1>("m64n64k16, 1 chain, B K-major", out, sink, grid);
    run<64, 2, 0, 1>("m64n64k16, 2 chains, B K-major", out, sink, grid);
    run<64, 4, 0, 1>("m64n64k16, 4 chains, B K-major", out, sink, grid);
    run<64, 1, 1, 1>("m64n64k16, 1 chain, B MN-major", out, sink, grid);
    run<64, 2, 1, 1>("m64n64k16, 2 chains, B MN-major", out, sink, grid);
    run<64, 4, 1, 1>("m64n64k16, 4 chains, B MN-major", out, sink, grid);
    run<128, 1, 0, 1>("m64n128k16, 1 chain", out, sink, grid);
    run<128, 2, 0, 1>("m64n128k16, 2 chains", out, sink, grid);
    run<256, 1, 0, 1>("m64n256k16, 1 chain", out, sink, grid);
    run<64, 1, 0, 2>("m64n64k16, 1 chain, 2 warpgroups", out, sink, grid);
    run<256, 1, 0, 2>("m64n256k16, 1 chain, 2 warpgroups", out, sink, grid);
  }
  return 0;
}
