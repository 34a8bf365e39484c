// What a warpgroup's wgmmas cost (docs/wgmma.md, "The ring's cost and the
// fixed cost"): chains into 1, 2 or 4 accumulators (`chain`: ITERS stages of
// 4 wgmmas, K = 64 in steps of 16, bf16, operands already in shared memory in
// the kernels' 128-byte swizzled layouts, fence / commit / wait for the group
// before); then the kernels' ring protocol without loads and its variants
// (`ring`, the MODE list there). Printed: SM cycles per wgmma or per stage,
// and the tensor rate (FLOP per cycle per SM; 4096 is the H100's dense bf16
// peak per SM).
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
#include "wgmma/wgmma.cuh"


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

// Runs kernel 3 times on `grid` blocks (the last run counts) and returns the
// clocks its warpgroup leaders wrote (out[2 * block + w], w < slots), each
// divided by `units` (wgmmas or stages).
std::vector<double> clocks_per_unit(void (*kernel)(long long*, float*), int grid, int threads, size_t smem,
                                    long long* out, float* sink, int slots, double units) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  for (int rep = 0; rep < 3; ++rep) {
    kernel<<<grid, threads, smem>>>(out, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  std::vector<long long> h(size_t(grid) * 2);
  CK(cudaMemcpy(h.data(), out, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost));
  std::vector<double> per;
  for (int i = 0; i < grid; ++i)
    for (int w = 0; w < slots; ++w) per.push_back(double(h[size_t(i) * 2 + w]) / units);
  return per;
}

template <int N, int C, int TB, int WG>
void run(const char* label, long long* out, float* sink, int grid) {
  const double cyc = probe_median(
      clocks_per_unit(chain<N, C, TB, WG>, grid, 128 * WG, 3 * 8192 + 256 * 128 + 1024, out, sink, WG, kIters * 4));
  const double flop = 2.0 * 64 * N * 16 * WG;  // per wgmma slot of all warpgroups
  std::printf("%-44s grid %3d: %6.1f cycles a wgmma, %6.0f FLOP/cycle/SM\n", label, grid, cyc, flop / cyc);
}

// The kernels' ring protocol without loads (as GCONV_WGMMA_NOLOAD): warpgroup
// 0's thread 0 arms stage k's full barrier once the consumers released it
// (empty, 4 warp arrivals); warpgroup 1 waits on full, issues the stage's 4
// wgmmas (each stage its own shared-memory address), commits, waits for the
// group before and releases that one's stage: wg::consume's loop. MODE:
//   0 that loop (shared memory left as it is);
//   1 the same on random bf16 operands (the stages filled first);
//   2 no wait on full (the consumer only releases): the cost of the wait;
//   3 a wait on a barrier whose phase completed once, no release: the cost
//     of a satisfied try_wait without the producer;
//   4 two groups in flight (wait_group 2, release the stage two back);
//   5 wait_group 0 every stage (one group's latency, fully serialized);
//   6 one release a stage (thread 0 of the warpgroup, empty counts 1);
//   7 K = 128 a stage (8 wgmmas over two 64-wide K blocks);
//   8 both 6 and 7;
//   9 mode 0 plus what a traced kernel adds: thread 0 of the warpgroup
//     stamps the clock into shared memory after each wait (trace::mark);
//  10 stages consumed in pairs: wait for both, their 8 wgmmas as one group,
//     both released once the group retired (K = 64 stages as the
//     producers fill them, the consumer's pace of mode 7);
//  11 the wait for stage k + 1 moved between group k's commit and the
//     wait_group (the next group issues as soon as it returns);
//  12 one thread polls the full barrier, a named barrier releases the
//     warpgroup's other threads.
// 64-wide K blocks a stage of the ring's MODE.
__host__ __device__ constexpr int ring_k_blocks(int mode) { return mode == 7 || mode == 8 ? 2 : 1; }

template <int N, int S, int MODE>
__global__ void __launch_bounds__(256) ring(long long* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  typedef gconv::wg::MmaAsync<N, 0, 0, 0> Mma;
  constexpr int kKB = ring_k_blocks(MODE);
  constexpr unsigned kABytes = 8192 * kKB, kStage = kABytes + N * 128 * kKB;
  constexpr unsigned kRel = MODE == 6 || MODE == 8 ? 128 : 32;  // releasing threads: one per kRel
  constexpr int kLag = MODE == 4 ? 2 : MODE == 5 ? 0 : 1;  // groups left in flight
  const unsigned base = (static_cast<unsigned>(__cvta_generic_to_shared(smem)) + 1023u) & ~1023u;
  const unsigned bars = base + S * kStage;  // full[s] at bars + 8s, empty[s] at bars + 8(S + s), once at 16S
  if (MODE == 1) {
    unsigned char* p = smem + (base - static_cast<unsigned>(__cvta_generic_to_shared(smem)));
    for (unsigned i = threadIdx.x; i < S * kStage / 2; i += blockDim.x) {
      unsigned h = i * 2654435761u + 12345u;
      h ^= h >> 13;
      // bf16 in [-2, 2): sign, exponent 126..127, random mantissa
      reinterpret_cast<unsigned short*>(p)[i] = static_cast<unsigned short>(((h & 1u) << 15) | ((126u + ((h >> 1) & 1u)) << 7) | ((h >> 2) & 0x7Fu));
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      gconv::wg::mbar_init(bars + 8 * s, 1);
      gconv::wg::mbar_init(bars + 8 * (S + s), 128 / kRel);
    }
    gconv::wg::mbar_init(bars + 16 * S, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    if (threadIdx.x == 0) {
      if (MODE == 3) {
        gconv::wg::mbar_arrive(bars + 16 * S);
        return;
      }
#pragma unroll 1
      for (int k = 0; k < kIters; ++k) {
        const int s = k % S;
        if (k >= S) gconv::wg::mbar_wait(bars + 8 * (S + s), ((k / S) - 1) & 1);
        gconv::wg::mbar_arrive(bars + 8 * s);
      }
    }
    return;
  }
  float d[N / 2];
#pragma unroll
  for (int r = 0; r < N / 2; ++r) d[r] = 0.f;
  if (MODE == 3) gconv::wg::mbar_wait(bars + 16 * S, 0);
  const long long t0 = clock64();
  int rel = 0;
  if constexpr (MODE == 10) {
    // Pairs of stages (S even): the group of pair j retires before pair j - 1 is released.
#pragma unroll 1
    for (int k = 0; k < kIters; k += 2) {
      const int s = k % S;
      gconv::wg::mbar_wait(bars + 8 * s, (k / S) & 1);
      gconv::wg::mbar_wait(bars + 8 * (s + 1), (k / S) & 1);
      gconv::wg::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 8; ++ks) {
        const unsigned a = base + (s + ks / 4) * kStage, b = a + kABytes;
        Mma::run(d, make_desc(a + (ks % 4) * 32, 16, 1024, 128), make_desc(b + (ks % 4) * 32, 16, 1024, 128));
      }
      gconv::wg::wgmma_commit();
      gconv::wg::wgmma_wait<1>();
      if (k >= 2) {
        if (threadIdx.x % 32 == 0) {
          gconv::wg::mbar_arrive(bars + 8 * (S + rel));
          gconv::wg::mbar_arrive(bars + 8 * (S + rel + 1));
        }
        rel = rel + 2 == S ? 0 : rel + 2;
      }
    }
  }
#pragma unroll 1
  for (int k = 0; k < (MODE == 10 ? 0 : kIters); ++k) {
    const int s = k % S;
    if (MODE == 3) {
      gconv::wg::mbar_wait(bars + 16 * S, 0);
    } else if (MODE == 11) {
      if (k == 0) gconv::wg::mbar_wait(bars, 0);  // later stages: waited for in the previous iteration
    } else if (MODE == 12) {
      if (threadIdx.x == 128) gconv::wg::mbar_wait(bars + 8 * s, (k / S) & 1);
      asm volatile("bar.sync 1, 128;\n" ::: "memory");
    } else if (MODE != 2) {
      gconv::wg::mbar_wait(bars + 8 * s, (k / S) & 1);
    }
    if (MODE == 9 && threadIdx.x == 128) {
      volatile long long* st = reinterpret_cast<volatile long long*>(smem + (bars + 16 * S + 64 - static_cast<unsigned>(__cvta_generic_to_shared(smem))));
      if (st[k % 8] == 0) st[k % 8] = clock64() - t0 + 1;
    }
    const unsigned a = base + s * kStage, b = a + kABytes;
    gconv::wg::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4 * kKB; ++ks) {
      const unsigned off = (ks / 4) * 8192u + (ks % 4) * 32u, boff = (ks / 4) * N * 128u + (ks % 4) * 32u;
      Mma::run(d, make_desc(a + off, 16, 1024, 128), make_desc(b + boff, 16, 1024, 128));
    }
    gconv::wg::wgmma_commit();
    if (MODE == 11 && k + 1 < kIters) gconv::wg::mbar_wait(bars + 8 * ((k + 1) % S), ((k + 1) / S) & 1);
    gconv::wg::wgmma_wait<kLag>();
    if (MODE != 3 && k >= kLag) {
      if (threadIdx.x % kRel == 0) gconv::wg::mbar_arrive(bars + 8 * (S + rel));
      rel = rel + 1 == S ? 0 : rel + 1;
    }
  }
  gconv::wg::wgmma_wait<0>();
  const long long t1 = clock64();
  gconv::wg::fence_regs(d);
  float sum = 0;
#pragma unroll
  for (int r = 0; r < N / 2; ++r) sum += d[r];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  if (threadIdx.x == 128) out[blockIdx.x * 2] = t1 - t0;
}

template <int N, int S, int MODE>
void run_ring(const char* label, long long* out, float* sink, int grid) {
  const int kb = ring_k_blocks(MODE);
  const size_t smem = S * kb * (8192 + N * 128) + 16 * S + 128 + 1024;
  const double cyc = probe_median(clocks_per_unit(ring<N, S, MODE>, grid, 256, smem, out, sink, 1, kIters));
  std::printf("%-44s grid %3d: %6.1f cycles a stage (%d wgmmas)\n", label, grid, cyc, 4 * kb);
}

// The kernels' own consumer loop (wg::consume<Cfg>, the code gconv_main
// runs) on the ring probe's producer without loads (thread 0 arms each full
// barrier once the stage is released): the same protocol as `ring`, so a
// difference between the two is the consumer's code (thirty-fifth session:
// the kernels' untraced stage of a 64-row tile took ~575 cycles where `ring`
// takes 327-362). PEER: -1 as a constant, or (1) -1 that the compiler cannot
// see (as in gconv_main, whose multicast partner is a launch parameter: the
// remote release stays in the loop, predicated off).
template <class Cfg, int PEER>
__global__ void __launch_bounds__(Cfg::kThreads) own_consume(long long* out, float* sink) {
  using namespace gconv::wg;
  extern __shared__ __align__(1024) unsigned char smem[];
  constexpr int S = Cfg::kStages;
  const u32 ring = (static_cast<u32>(__cvta_generic_to_shared(smem)) + 1023u) & ~1023u;
  const u32 full = ring + Cfg::kBarOffset, empty = full + 8 * S;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, 4 * Cfg::kConsumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x < kWarpgroup) {
    if (threadIdx.x == 0) {
#pragma unroll 1
      for (int k = 0; k < kIters; ++k) {
        const int s = k % S;
        if (k >= S) mbar_wait(empty + 8 * s, ((k / S) - 1) & 1);
        mbar_arrive(full + 8 * s);
      }
    }
    return;
  }
  const int ctid = threadIdx.x - kWarpgroup;
  const int peer = PEER == 0 ? -1 : (sink[0] == 12345.f ? 0 : -1);
  WgAcc<Cfg> acc;
  RingPos<S> rd, rel;
  const long long t0 = clock64();
  consume<Cfg>(acc, kIters, 0, kIters * Cfg::kTileK, ring, full, empty, (ctid / kWarpgroup) * Cfg::kWgM, ctid & 31,
               rd, rel, peer, TapSkip{});
  const long long t1 = clock64();
  float sum = 0;
#pragma unroll
  for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < Cfg::kNI; ++ni)
#pragma unroll
      for (int r = 0; r < Cfg::kAccPerInstr; ++r) sum += acc.d[mi][ni][r];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  if (ctid == 0) out[blockIdx.x * 2] = t1 - t0;
}

template <class Cfg, int PEER>
void run_own(const char* label, long long* out, float* sink, int grid) {
  const size_t smem = Cfg::kBarOffset + 16 * Cfg::kStages + 1024;
  const double cyc =
      probe_median(clocks_per_unit(own_consume<Cfg, PEER>, grid, Cfg::kThreads, smem, out, sink, 1, kIters));
  std::printf("%-44s grid %3d: %6.1f cycles a stage\n", label, grid, cyc);
}

// The fwd bf16 2D TMA configs of the thirty-fifth session's traces
// (wgmma_plan.cpp instance_source: DIR, DT, NDIM, TM, TN, TK, CWG, STAGES,
// SPLIT, VEC, TMA, EPI_MIN, MAX_N, ISSUERS).
typedef gconv::wg::WgmmaConfig<0, 0, 2, 64, 64, 64, 1, 6, 0, 8, true, 16384, 256, 2> OwnM64N64;
typedef gconv::wg::WgmmaConfig<0, 0, 2, 64, 128, 64, 1, 6, 0, 8, true, 16384, 256, 2> OwnM64N128;
typedef gconv::wg::WgmmaConfig<0, 0, 2, 64, 256, 64, 1, 4, 0, 8, true, 16384, 256, 2> OwnM64N256;

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
    run_own<OwnM64N64, 0>("own consume m64n64 s6", out, sink, grid);
    run_own<OwnM64N64, 1>("own consume m64n64 s6, runtime peer", out, sink, grid);
    run_own<OwnM64N128, 0>("own consume m64n128 s6", out, sink, grid);
    run_own<OwnM64N128, 1>("own consume m64n128 s6, runtime peer", out, sink, grid);
    run_own<OwnM64N256, 0>("own consume m64n256 s4", out, sink, grid);
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
    run_ring<64, 4, 0>("ring m64n64 s4", out, sink, grid);
    run_ring<64, 4, 1>("ring m64n64 s4, random operands", out, sink, grid);
    run_ring<64, 4, 2>("ring m64n64 s4, no wait on full", out, sink, grid);
    run_ring<64, 4, 3>("ring m64n64 s4, satisfied wait, no release", out, sink, grid);
    run_ring<64, 4, 4>("ring m64n64 s4, 2 groups in flight", out, sink, grid);
    run_ring<64, 4, 5>("ring m64n64 s4, wait_group 0", out, sink, grid);
    run_ring<64, 4, 9>("ring m64n64 s4, traced (shared-memory stamps)", out, sink, grid);
    run_ring<64, 4, 6>("ring m64n64 s4, one release", out, sink, grid);
    run_ring<64, 4, 11>("ring m64n64 s4, next wait before wait_group", out, sink, grid);
    run_ring<64, 4, 12>("ring m64n64 s4, one poller + named barrier", out, sink, grid);
    run_ring<128, 4, 11>("ring m64n128 s4, next wait before wait_group", out, sink, grid);
    run_ring<128, 4, 12>("ring m64n128 s4, one poller + named barrier", out, sink, grid);
    run_ring<64, 4, 10>("ring m64n64 s4, stages in pairs", out, sink, grid);
    run_ring<64, 6, 10>("ring m64n64 s6, stages in pairs", out, sink, grid);
    run_ring<64, 8, 10>("ring m64n64 s8, stages in pairs", out, sink, grid);
    run_ring<128, 4, 10>("ring m64n128 s4, stages in pairs", out, sink, grid);
    run_ring<64, 4, 7>("ring m64n64 s4, K 128 a stage", out, sink, grid);
    run_ring<64, 4, 8>("ring m64n64 s4, K 128, one release", out, sink, grid);
    run_ring<128, 4, 0>("ring m64n128 s4", out, sink, grid);
    run_ring<128, 4, 7>("ring m64n128 s4, K 128 a stage", out, sink, grid);
    run_ring<256, 4, 0>("ring m64n256 s4", out, sink, grid);
    run_ring<256, 4, 1>("ring m64n256 s4, random operands", out, sink, grid);
    run_ring<256, 4, 5>("ring m64n256 s4, wait_group 0", out, sink, grid);
  }
  return 0;
}
