// What one block's TMA loads can stream on this GPU, apart from any
// convolution: the per-block limit the wgmma family's small tiles run into
// (docs/wgmma.md, "Where a small layer's time goes": a 64-row tile's 16 KB
// stages complete ~800 SM cycles apart whatever the grid).
//
// One thread per block (two with --issuers 2) streams K stages of L boxes of
// R rows x 128 bytes through a ring of S stages; one consumer thread waits for
// each stage and releases it (no MMAs). Printed per configuration: kernel
// time, aggregate GB/s, and per block (median) the cycles from one issue to the
// next while the ring still has free stages, the first load's latency, and
// the steady cycles per stage.
//
// Build (this machine, no driver needed): nvcc -arch=sm_90a -O3 -std=c++17
//   bench/tma_probe.cu -o tma_probe. Run on the GPU machine: ./tma_probe
//   (bench/device_call.sh tmaprobe). Not part of the library.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probe_util.cuh"


namespace {

constexpr int kRec = 40;  // clocks recorded per block: 0 start, 1-16 issues, 17-32 fulls, 33 end, 34 smid
constexpr int kMaxStages = 16;

struct Args {
  int stages, loads, ktiles, issuers, box_rows, mode;  // mode 0 ring of TMA loads, 2 ring of bulk 1D copies,
  // 3 issue only, 4 issue only after prefetch.tensormap, 5 issue only, bulk 1D
  long long block_rows;                                // rows between blocks' first rows
  long long region_rows;                               // rows addressed (wrap-around)
  const char* src;                                     // mode 2
  long long row_bytes;                                 // mode 2: bytes between rows
  long long* rec;
  int gmem;  // the tensor map read from global memory, not the kernel parameter
};

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void arrive_expect(unsigned bar, unsigned bytes) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void arrive(unsigned bar) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void wait(unsigned bar, unsigned parity) {
  unsigned ok = 0;
  while (!ok) {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(ok)
        : "r"(bar), "r"(parity)
        : "memory");
  }
}

__global__ void __launch_bounds__(160) probe(const __grid_constant__ CUtensorMap map, const CUtensorMap* gmap, Args a) {
  extern __shared__ unsigned char smem[];
  __shared__ __align__(8) unsigned long long bars[2 * kMaxStages];
  const unsigned ring = (smem_u32(smem) + 1023u) & ~1023u;
  const unsigned box_bytes = static_cast<unsigned>(a.box_rows) * 128u;
  const unsigned stage_bytes = box_bytes * a.loads;
  const unsigned full = smem_u32(bars), empty = full + 8 * kMaxStages;
  const int tid = threadIdx.x;
  long long* rec = a.rec + static_cast<long long>(blockIdx.x) * kRec;
  if (tid == 0) {
    for (int s = 0; s < a.stages; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(full + 8 * s), "r"(a.issuers) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(empty + 8 * s), "r"(1) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const long long t0 = clock64();
  const CUtensorMap* m = a.gmem ? gmap : &map;
  const long long first_row = static_cast<long long>(blockIdx.x) * a.block_rows;
  if (a.mode >= 3) {
    // Issue only: thread 0 issues `ktiles` (<= 16) loads back to back into
    // one stage (their data races harmlessly), all completing on barrier 0;
    // the clocks after each issue stay in registers until the end.
    if (tid != 0) return;
    const int n = a.ktiles;
    arrive_expect(full, n * box_bytes);
    if (a.mode == 4) asm volatile("prefetch.tensormap [%0];\n" ::"l"(m) : "memory");
    long long t[16];
    int row = static_cast<int>(first_row % a.region_rows);
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      if (k < n) {
        if (a.mode == 5) {
          asm volatile(
              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(ring),
              "l"(a.src + static_cast<long long>(row) * a.row_bytes), "r"(box_bytes), "r"(full)
              : "memory");
        } else {
          asm volatile(
              "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
              "%3}], [%4];\n" ::"r"(ring),
              "l"(m), "r"(0), "r"(row), "r"(full)
              : "memory");
        }
        row += a.box_rows;
        t[k] = clock64();
      }
    }
    wait(full, 0);
    const long long done = clock64();
    for (int k = 0; k < n; ++k) rec[1 + k] = t[k] - t0;
    rec[17] = done - t0;
    rec[0] = t0;
    return;
  }
  if (tid == 0 || (a.issuers == 2 && tid == 32)) {
    const int part = tid / 32;
    // Rows stepped in 32 bits (no 64-bit division in the loop).
    const int region = static_cast<int>(a.region_rows);
    int row = static_cast<int>(first_row % a.region_rows) + part * a.box_rows;
    const int step = a.issuers * a.box_rows;
    int mine = 0;
    for (int l = part; l < a.loads; l += a.issuers) ++mine;
    long long t[16];
    for (int k = 0; k < a.ktiles; ++k) {
      const int s = k % a.stages;
      const unsigned ph = (k / a.stages) & 1;
      if (k >= a.stages) wait(empty + 8 * s, ph ^ 1);
      arrive_expect(full + 8 * s, mine * box_bytes);
      for (int l = part; l < a.loads; l += a.issuers) {
        const unsigned dst = ring + s * stage_bytes + l * box_bytes;
        if (a.mode == 2) {
          asm volatile(
              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
              "l"(a.src + static_cast<long long>(row) * a.row_bytes), "r"(box_bytes), "r"(full + 8 * s)
              : "memory");
        } else {
          asm volatile(
              "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
              "%3}], [%4];\n" ::"r"(dst),
              "l"(m), "r"(0), "r"(row), "r"(full + 8 * s)
              : "memory");
        }
        row += step;
        if (row >= region) row -= region;
      }
      if (k < 16) t[k & 15] = clock64();
    }
    if (part == 0)
      for (int k = 0; k < 16 && k < a.ktiles; ++k) rec[1 + k] = t[k] - t0;
  } else if (tid == 128) {
    for (int k = 0; k < a.ktiles; ++k) {
      const int s = k % a.stages;
      wait(full + 8 * s, (k / a.stages) & 1);
      if (k < 16) rec[17 + k] = clock64() - t0;
      arrive(empty + 8 * s);
    }
    rec[33] = clock64() - t0;
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    rec[34] = sm;
    rec[0] = t0;
  }
}

// Issue only from W warps at once (lane 0 of each): 16 loads each, fully
// unrolled, clocks kept in registers; warp w's loads complete on barrier w.
// Tells whether a block's TMA issue rate is per warp (more issuing warps, more
// loads a cycle) or per SM.
template <int W, int V>
__global__ void __launch_bounds__(128) issue_warps(const __grid_constant__ CUtensorMap map, int box_rows,
                                                   long long* rec) {
  extern __shared__ unsigned char smem[];
  // V = 1: each load on a barrier of its own, armed just before it
  // (arrive.expect_tx, as a ring stage is); V = 2: also a wait on a
  // barrier whose phase has completed (a free stage's empty barrier).
  __shared__ __align__(8) unsigned long long bars[4], own[4][16], done_bar;
  const unsigned ring = (smem_u32(smem) + 1023u) & ~1023u;
  const int tid = threadIdx.x, warp = tid / 32;
  const unsigned box_bytes = static_cast<unsigned>(box_rows) * 128u;
  if (tid == 0) {
    for (int w = 0; w < 4; ++w) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(&bars[w])), "r"(1) : "memory");
      for (int k = 0; k < 16; ++k)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(&own[w][k])), "r"(1) : "memory");
    }
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(&done_bar)), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    arrive(smem_u32(&done_bar));
  }
  __syncthreads();
  if (warp >= W || (tid & 31) != 0) return;
  const unsigned dst = ring + warp * box_bytes;
  if (V == 0) arrive_expect(smem_u32(&bars[warp]), 16 * box_bytes);
  long long t[17];
  t[0] = clock64();
  int row = warp * 16 * box_rows;
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const unsigned bar = V == 0 ? smem_u32(&bars[warp]) : smem_u32(&own[warp][k]);
    if (V == 2) wait(smem_u32(&done_bar), 0);
    if (V >= 1) arrive_expect(bar, box_bytes);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
        "[%4];\n" ::"r"(dst),
        "l"(&map), "r"(0), "r"(row), "r"(bar)
        : "memory");
    row += box_rows;
    t[k + 1] = clock64();
  }
  if (V == 0) {
    wait(smem_u32(&bars[warp]), 0);
  } else {
    for (int k = 0; k < 16; ++k) wait(smem_u32(&own[warp][k]), 0);
  }
  const long long done = clock64();
  long long* r = rec + (static_cast<long long>(blockIdx.x) * 4 + warp) * 20;
  for (int k = 0; k < 17; ++k) r[k] = t[k] - t[0];
  r[17] = done - t[0];
}

// Ping-pong between two threads of different warps over two mbarriers (as a
// ring's full/empty handshake): thread 0 arrives on `ping`, thread 32 waits
// for it and arrives on `pong`, thread 0 waits for that, 64 rounds. W: 0
// try_wait loop, 1 test_wait spin, 2 try_wait with a suspend-time hint of
// 0x10 ns. Reports cycles per round trip (two signals).
template <int W>
__device__ __forceinline__ void wait_as(unsigned bar, unsigned parity) {
  unsigned ok = 0;
  while (!ok) {
    if (W == 1) {
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(ok)
          : "r"(bar), "r"(parity)
          : "memory");
    } else if (W == 2) {
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\nselp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(ok)
          : "r"(bar), "r"(parity), "r"(0x10)
          : "memory");
    } else {
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(ok)
          : "r"(bar), "r"(parity)
          : "memory");
    }
  }
}
template <int W>
__global__ void __launch_bounds__(64) pingpong(long long* rec) {
  __shared__ __align__(8) unsigned long long bars[2];
  const unsigned ping = smem_u32(&bars[0]), pong = smem_u32(&bars[1]);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(ping), "r"(1) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(pong), "r"(1) : "memory");
  }
  __syncthreads();
  constexpr int kRounds = 64;
  if (threadIdx.x == 0) {
    const long long t0 = clock64();
    for (int r = 0; r < kRounds; ++r) {
      arrive(ping);
      wait_as<W>(pong, r & 1);
    }
    rec[blockIdx.x] = (clock64() - t0) / kRounds;
  } else if (threadIdx.x == 32) {
    for (int r = 0; r < kRounds; ++r) {
      wait_as<W>(ping, r & 1);
      arrive(pong);
    }
  }
}

struct Config {
  std::string name;
  int mode = 0, gmem = 0, box_rows = 64, loads = 2, issuers = 1, stages = 4, grid = 75, ktiles = 48, width = 1152;
  bool shared = false;  // every block reads the same rows (L2-resident after the warm-up)
  CUtensorMapL2promotion promo = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
};

}  // namespace

int main() {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                      cudaEnableDefault, &q));
  if (!encode) {
    std::fprintf(stderr, "no cuTensorMapEncodeTiled\n");
    return 1;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("# %s, %d SMs, clock attr %d MHz\n", prop.name, prop.multiProcessorCount, clock_khz / 1000);

  const size_t src_bytes = size_t(1) << 30;  // 1 GiB: streaming configs never wrap into L2-resident rows
  char* src = nullptr;
  char* flush = nullptr;
  const size_t flush_bytes = size_t(256) << 20;
  CK(cudaMalloc(&src, src_bytes));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMemset(src, 1, src_bytes));
  CUtensorMap* gmap = nullptr;
  CK(cudaMalloc(&gmap, sizeof(CUtensorMap)));
  long long* rec = nullptr;
  const int max_grid = 1024;
  CK(cudaMalloc(&rec, sizeof(long long) * kRec * max_grid));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  std::vector<Config> cfgs;
  const auto add = [&](const char* name, auto f) {
    Config c;
    c.name = name;
    f(c);
    cfgs.push_back(c);
  };
  add("base: 2 x 64-row boxes, 1 issuer, 4 stages, 75 blocks, pitch 2304 B", [](Config&) {});
  add("grid 1", [](Config& c) { c.grid = 1; });
  add("grid 8", [](Config& c) { c.grid = 8; });
  add("grid 132", [](Config& c) { c.grid = 132; });
  add("grid 264 (2/SM)", [](Config& c) { c.grid = 264; });
  add("grid 396 (3/SM)", [](Config& c) { c.grid = 396; });
  add("L2-resident rows", [](Config& c) { c.shared = true; });
  add("L2-resident, grid 1", [](Config& c) { c.shared = true; c.grid = 1; });
  add("L2-resident, grid 132", [](Config& c) { c.shared = true; c.grid = 132; });
  add("pitch 128 B (contiguous box)", [](Config& c) { c.width = 64; });
  add("2 issuers", [](Config& c) { c.issuers = 2; });
  add("8 stages", [](Config& c) { c.stages = 8; });
  add("12 stages", [](Config& c) { c.stages = 12; });
  add("1 x 64-row box a stage", [](Config& c) { c.loads = 1; });
  add("4 x 64-row boxes a stage", [](Config& c) { c.loads = 4; });
  add("2 x 128-row boxes", [](Config& c) { c.box_rows = 128; });
  add("2 x 256-row boxes", [](Config& c) { c.box_rows = 256; c.stages = 3; });
  add("8 x 32-row boxes", [](Config& c) { c.box_rows = 32; c.loads = 8; });
  add("map in global memory", [](Config& c) { c.gmem = 1; });
  add("bulk 1D copies (contiguous 8 KB)", [](Config& c) { c.mode = 2; c.width = 64; });
  add("L2 promotion none", [](Config& c) { c.promo = CU_TENSOR_MAP_L2_PROMOTION_NONE; });
  add("L2 promotion 256B", [](Config& c) { c.promo = CU_TENSOR_MAP_L2_PROMOTION_L2_256B; });
  add("L2-resident, 8 stages", [](Config& c) { c.shared = true; c.stages = 8; });
  add("L2-resident, 2 issuers, 8 stages", [](Config& c) { c.shared = true; c.stages = 8; c.issuers = 2; });
  add("L2-resident, grid 1, 12 stages, 1 x 128 rows", [](Config& c) {
    c.shared = true;
    c.grid = 1;
    c.stages = 12;
    c.loads = 1;
    c.box_rows = 128;
  });
  // Issue only: 16 loads back to back from one thread (issue_dt: cycles per
  // load instruction; lat0: first issue to all 16 complete).
  const auto io = [&](const char* name, int rows, int mode, bool shared, int grid, int gmem) {
    add(name, [=](Config& c) {
      c.mode = mode; c.box_rows = rows; c.loads = 1; c.stages = 1; c.ktiles = 16; c.shared = shared; c.grid = grid;
      c.gmem = gmem;
    });
  };
  io("issue only: 8-row boxes, warm, grid 1", 8, 3, true, 1, 0);
  io("issue only: 32-row boxes, warm, grid 1", 32, 3, true, 1, 0);
  io("issue only: 64-row boxes, warm, grid 1", 64, 3, true, 1, 0);
  io("issue only: 128-row boxes, warm, grid 1", 128, 3, true, 1, 0);
  io("issue only: 256-row boxes, warm, grid 1", 256, 3, true, 1, 0);
  io("issue only: 64-row boxes, cold, grid 1", 64, 3, false, 1, 0);
  io("issue only: 64-row boxes, warm, grid 132", 64, 3, true, 132, 0);
  io("issue only: 64-row boxes, warm, map in gmem", 64, 3, true, 1, 1);
  io("issue only: 64-row boxes, warm, prefetch.tensormap", 64, 4, true, 1, 0);
  io("issue only: bulk 1D 1 KB, warm", 8, 5, true, 1, 0);
  io("issue only: bulk 1D 8 KB, warm", 64, 5, true, 1, 0);
  io("issue only: bulk 1D 32 KB, warm", 256, 5, true, 1, 0);



  {
    const char* names[3] = {"try_wait loop", "test_wait spin", "try_wait, hint 0x10"};
    for (int W = 0; W < 3; ++W) {
      for (int rep = 0; rep < 3; ++rep) {
        if (W == 0) pingpong<0><<<132, 64>>>(rec);
        if (W == 1) pingpong<1><<<132, 64>>>(rec);
        if (W == 2) pingpong<2><<<132, 64>>>(rec);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      }
      std::vector<long long> h(132);
      CK(cudaMemcpy(h.data(), rec, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost));
      std::vector<double> v(h.begin(), h.end());
      std::printf("mbarrier ping-pong, %s: %.0f cycles a round trip (two signals)\n", names[W], probe_median(v));
    }
  }
  {
    // Issue only from 1, 2 or 4 warps of one block (L2-resident rows, grid 1
    // and 132): cycles per load per warp, and all loads done.
    CUtensorMap map;
    cuuint64_t dims[2] = {1152, static_cast<cuuint64_t>(src_bytes / 2304)};
    cuuint64_t strides[1] = {2304};
    cuuint32_t box[2] = {64, 64};
    cuuint32_t estr[2] = {1, 1};
    if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, src, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      std::printf("encode failed\n");
      return 1;
    }
    for (int V : {0, 1, 2})
    for (int grid : {1, 132}) {
      for (int W : {1, 2, 4}) {
        const size_t smem = 4 * 64 * 128 + 1024;
        for (int rep = 0; rep < 3; ++rep) {
          const auto go = [&](auto k) { k<<<grid, 128, smem>>>(map, 64, rec); };
          if (V == 0 && W == 1) go(issue_warps<1, 0>);
          if (V == 0 && W == 2) go(issue_warps<2, 0>);
          if (V == 0 && W == 4) go(issue_warps<4, 0>);
          if (V == 1 && W == 1) go(issue_warps<1, 1>);
          if (V == 1 && W == 2) go(issue_warps<2, 1>);
          if (V == 1 && W == 4) go(issue_warps<4, 1>);
          if (V == 2 && W == 1) go(issue_warps<1, 2>);
          if (V == 2 && W == 2) go(issue_warps<2, 2>);
          if (V == 2 && W == 4) go(issue_warps<4, 2>);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        }
        std::vector<long long> h(static_cast<size_t>(grid) * 4 * 20);
        CK(cudaMemcpy(h.data(), rec, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost));
        std::vector<double> per, first, all;
        for (int b = 0; b < grid; ++b)
          for (int w = 0; w < W; ++w) {
            const long long* x = h.data() + (static_cast<size_t>(b) * 4 + w) * 20;
            per.push_back(double(x[16] - x[1]) / 15);
            first.push_back(double(x[1]));
            all.push_back(double(x[17]));
          }
        const char* variant = V == 0 ? "plain      " : V == 1 ? "+arm      " : "+arm+wait";
        std::printf("%s issue from %d warp(s), grid %3d, 64-row boxes: first %5.0f, then %5.0f cycles a load per warp, "
                    "all 16 done at %5.0f\n",
                    variant, W, grid, probe_median(first), probe_median(per), probe_median(all));
      }
    }
  }
  std::printf("%-52s %8s %8s %8s %8s %8s %8s\n", "config", "us", "GB/s", "issue_dt", "lat0", "cyc/stg", "B/cyc");
  for (const Config& c : cfgs) {
    const long long rows_total = static_cast<long long>(src_bytes / (c.width * 2));
    CUtensorMap map;
    cuuint64_t dims[2] = {static_cast<cuuint64_t>(c.width), static_cast<cuuint64_t>(rows_total)};
    cuuint64_t strides[1] = {static_cast<cuuint64_t>(c.width) * 2};
    cuuint32_t box[2] = {64, static_cast<cuuint32_t>(c.box_rows)};
    cuuint32_t estr[2] = {1, 1};
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, src, dims, strides, box, estr,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, c.promo,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      std::printf("%-52s encode failed %d\n", c.name.c_str(), int(r));
      continue;
    }
    CK(cudaMemcpy(gmap, &map, sizeof(map), cudaMemcpyHostToDevice));
    Args a{};
    a.stages = c.stages;
    a.loads = c.loads;
    a.ktiles = c.ktiles;
    a.issuers = c.issuers;
    a.box_rows = c.box_rows;
    a.mode = c.mode;
    a.gmem = c.gmem;
    const long long rows_per_block = static_cast<long long>(c.ktiles) * c.loads * c.box_rows;
    a.block_rows = c.shared ? 0 : rows_per_block;
    a.region_rows = c.shared ? rows_per_block : rows_total;
    a.src = src;
    a.row_bytes = c.width * 2;
    a.rec = rec;
    const size_t smem = static_cast<size_t>(c.stages) * c.loads * c.box_rows * 128 + 1024;
    if (smem > 200 * 1024) {
      std::printf("%-52s skipped: %zu bytes of shared memory\n", c.name.c_str(), smem);
      continue;
    }
    std::vector<double> times;
    std::vector<long long> h(static_cast<size_t>(kRec) * c.grid);
    for (int rep = 0; rep < 6; ++rep) {
      if (!c.shared) CK(cudaMemsetAsync(flush, rep, flush_bytes));
      CK(cudaEventRecord(e0));
      probe<<<c.grid, 160, smem>>>(map, gmap, a);
      CK(cudaEventRecord(e1));
      CK(cudaGetLastError());
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep > 0) times.push_back(ms * 1000.0);
    }
    CK(cudaMemcpy(h.data(), rec, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost));
    std::vector<double> issue_dt, lat0, per_stage;
    const int free_issues = std::min(c.stages, 16);
    for (int b = 0; b < c.grid; ++b) {
      const long long* x = h.data() + static_cast<size_t>(b) * kRec;
      if (c.mode >= 3) {
        issue_dt.push_back(double(x[c.ktiles] - x[1]) / (c.ktiles - 1));
        lat0.push_back(double(x[17] - x[1]));
        per_stage.push_back(double(x[17] - x[1]) / c.ktiles);
        continue;
      }
      if (free_issues > 1) issue_dt.push_back(double(x[free_issues] - x[1]) / (free_issues - 1));
      lat0.push_back(double(x[17] - x[1]));
      per_stage.push_back(double(x[32] - x[17 + 4]) / (15 - 4));
    }
    const double us = probe_median(times);
    const double bytes = double(c.grid) * c.ktiles * c.loads * c.box_rows * 128;
    const double cps = probe_median(per_stage);
    std::printf("%-52s %8.2f %8.0f %8.0f %8.0f %8.0f %8.1f\n", c.name.c_str(), us, bytes / us / 1e3,
                probe_median(issue_dt), probe_median(lat0), cps, c.loads * c.box_rows * 128 / cps);
  }
  return 0;
}
