// Hopper-only PTX (sm_90a) of the wgmma family: mbarriers, the generic ->
// async proxy fence, warpgroup MMA fences, and the shared-memory matrix
// descriptor. Shared-memory operands are 32-bit shared-window addresses.
#pragma once

#include "common/tma.cuh"
#include "common/types.cuh"

namespace gconv {
namespace wg {

using dev::u32;
using dev::u64;
// common/tma.cuh
using dev::mbar_arrive;
using dev::mbar_arrive_expect_tx;
using dev::mbar_init;
using dev::mbar_try_wait;
using dev::mbar_wait;
using dev::tma_load_2d;
using dev::tma_load_3d;
using dev::tma_load_4d;
using dev::TensorMap;

// Arrival on the barrier at the same shared address in block `rank` of the
// cluster (release at cluster scope): a multicast producer's partner learns
// that this block's consumers released a stage both blocks' loads fill.
__device__ __forceinline__ void mbar_arrive_cluster(u32 bar, u32 rank) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}
// Makes the barriers this thread initialized visible to the other blocks of
// the cluster (before the cluster barrier that precedes their first use).
__device__ __forceinline__ void fence_mbar_init_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Orders this thread's completed generic-proxy writes to shared memory
// (st.shared, cp.async) before later async-proxy reads (wgmma operands).
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads of
// the CTA: syncs the consumer warpgroups without the producer.
// The id is an immediate: a register id makes ptxas reserve all 16 barriers.
template <int ID>
__device__ __forceinline__ void bar_sync(int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"n"(ID), "r"(threads) : "memory");
}

// Adds four floats to global memory (16-byte aligned) as one reduction
// (sm_90): a quarter of the atomic operations of scalar adds.
__device__ __forceinline__ void red_add_v4(float* addr, float4 v) {
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(addr), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

// ---- tensor memory accelerator: multicast, stores, im2col -----------------------
// (tiled loads and the map type: common/tma.cuh)

// tma_load_2d into the same shared address of every block in `mask` (bit r:
// cluster rank r), each completing bytes on its own barrier at `bar`.
__device__ __forceinline__ void tma_load_2d_multicast(u32 dst, const TensorMap* map, int x, int y, u32 bar,
                                                      unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar), "h"(mask)
      : "memory");
}

// A tiled 2D box from shared memory at src to (x, y) of the tensor (x
// innermost); elements outside the tensor are not written. One bulk group
// per call (the issuing thread waits on its groups: bulk_wait_read /
// bulk_wait_all).
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, u32 src, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n"
      "cp.async.bulk.commit_group;\n" ::"l"(map),
      "r"(src), "r"(x), "r"(y)
      : "memory");
}
// Until at most N of this thread's bulk stores still read shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
// Until every bulk store of this thread has completed.
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

// An im2col load: channels from c, pixels from the filter base (w, h, d) of
// image n onwards, each shifted by the tap offsets (ow, oh, od).
template <int NDIM>
__device__ __forceinline__ void tma_load_im2col(u32 dst, const TensorMap* map, int c, const int (&base)[3], int n,
                                                const unsigned short (&off)[3], u32 bar) {
  if constexpr (NDIM == 1) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5], {%6};\n" ::"r"(dst),
        "l"(map), "r"(c), "r"(base[2]), "r"(n), "r"(bar), "h"(off[2])
        : "memory");
  } else if constexpr (NDIM == 2) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
        "%5}], [%6], {%7, %8};\n" ::"r"(dst),
        "l"(map), "r"(c), "r"(base[2]), "r"(base[1]), "r"(n), "r"(bar), "h"(off[2]), "h"(off[1])
        : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
        "%5, %6}], [%7], {%8, %9, %10};\n" ::"r"(dst),
        "l"(map), "r"(c), "r"(base[2]), "r"(base[1]), "r"(base[0]), "r"(n), "r"(bar), "h"(off[2]), "h"(off[1]),
        "h"(off[0])
        : "memory");
  }
}

// ---- warpgroup MMA ordering --------------------------------------------------
// wgmma_fence: accumulator registers written by ordinary instructions (or
// read by them) are ordered before the next wgmma.mma_async.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// At most N committed groups of this warpgroup still run.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across the
// asynchronous MMAs (their registers change behind its back until the wait).
template <int R>
__device__ __forceinline__ void fence_regs(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// ---- shared-memory matrix descriptor ------------------------------------------
// Swizzle width W (bytes) -> the descriptor's layout type.
__host__ __device__ constexpr int swizzle_mode(int w) { return w == 128 ? 1 : w == 64 ? 2 : 3; }

// start: shared address of the operand's first core matrix; lbo / sbo: byte
// distances between core-matrix blocks (K-major: sbo = next 8 rows, lbo
// unused; MN-major: lbo = next MN block of W bytes, sbo = next 8 K rows).
__device__ __forceinline__ u64 make_desc(u32 start, u32 lbo, u32 sbo, int w) {
  return u64((start & 0x3FFFF) >> 4) | (u64(lbo >> 4) << 16) | (u64(sbo >> 4) << 32) |
         (u64(swizzle_mode(w)) << 62);
}
// The start-address field holds address / 16 in its low 14 bits; shared
// addresses stay below 2^18, so an offset adds without a carry out.
__device__ __forceinline__ u64 desc_add(u64 desc, u32 bytes) { return desc + u64(bytes >> 4); }

}  // namespace wg
}  // namespace gconv
