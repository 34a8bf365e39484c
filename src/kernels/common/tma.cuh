// mbarriers and tensor-memory-accelerator loads (sm_90), shared by the kernel
// families that stage operands through TMA (wgmma, the direct family's
// window_wgrad and window_stream). Shared-memory operands are 32-bit
// shared-window addresses.
// Host side of the tensor maps: kernels/tensor_map.hpp.
#pragma once

#include "common/ptx.cuh"
#include "common/types.cuh"

namespace gconv {
namespace dev {

// ---- mbarrier (CTA scope) ---------------------------------------------------
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Release semantics: this thread's earlier writes are visible to a thread
// whose wait observes the phase this arrival completes.
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}
// Waits until the phase of parity `parity` has completed (acquire).
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// ---- tensor memory accelerator ------------------------------------------------
// A CUtensorMap's bytes (host: wgmma/tma.hpp), taken by value as a
// __grid_constant__ kernel parameter; instructions name it by address.
struct __align__(64) TensorMap {
  u64 words[16];
};

// Arrives on the barrier and adds `bytes` to the transaction count its
// phase waits for (the TMA loads complete those bytes).
__device__ __forceinline__ void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

// A tiled 2D box at (x, y) (x innermost) into shared memory at dst.
__device__ __forceinline__ void tma_load_2d(u32 dst, const TensorMap* map, int x, int y, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

// A tiled 3D box at (x, y, z) (x innermost).
__device__ __forceinline__ void tma_load_3d(u32 dst, const TensorMap* map, int x, int y, int z, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(bar)
      : "memory");
}

// A tiled 4D box at (x, y, z, w) (x innermost).
__device__ __forceinline__ void tma_load_4d(u32 dst, const TensorMap* map, int x, int y, int z, int w, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
      "%5}], [%6];\n" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(w), "r"(bar)
      : "memory");
}

// A ring of S shared-memory stages, each completing on its barrier of bars
// (S <= the caller's __shared__ array), over steps [s_begin, s_end): thread 0
// keeps S - 1 steps in flight; issue(s, buf) arms barrier buf (an expected
// transaction count, or a bare arrive for a step with nothing to load) and
// starts step s's copies into stage buf; every thread waits for step s and
// runs consume(s, buf). The __syncthreads at the top of an iteration retires
// step s - 1's reads before its stage takes step s + S - 1, so every use of
// a stage is one barrier phase. Used by the direct family's row streams.
template <class Issue, class Consume>
__device__ __forceinline__ void tma_ring(u64* bars, int S, int s_begin, int s_end, Issue&& issue, Consume&& consume) {
  if (threadIdx.x == 0)
    for (int i = 0; i < S; ++i) mbar_init(smem_u32(&bars[i]), 1);
  __syncthreads();
  if (threadIdx.x == 0)
    for (int i = 0; i < S - 1 && s_begin + i < s_end; ++i) issue(s_begin + i, i);
  for (int s = s_begin; s < s_end; ++s) {
    const int k = s - s_begin, buf = k % S;
    __syncthreads();  // step s - 1 is consumed: its stage takes step s + S - 1
    if (threadIdx.x == 0 && s + S - 1 < s_end) issue(s + S - 1, (k + S - 1) % S);
    mbar_wait(smem_u32(&bars[buf]), static_cast<u32>((k / S) & 1));
    consume(s, buf);
  }
}

}  // namespace dev
}  // namespace gconv
