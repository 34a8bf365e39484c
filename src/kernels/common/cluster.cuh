// Thread-block clusters (sm_90): the rank of a block in its cluster, the
// cluster-wide barrier, and loads from another block's shared memory
// (distributed shared memory). Used where the blocks of a cluster add their
// partial results without a workspace or a second launch: the depthwise
// weight-gradient window kernels (direct/window.cuh) and the wgmma family's
// cluster split-K (wgmma/wgmma.cuh).
#pragma once

namespace gconv {
namespace dev {

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Every thread of every block of the cluster arrives; release/acquire order
// the shared-memory writes before it against the remote reads after it.
// Aligned: every thread of a warp executes it together.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The address in block `rank`'s shared memory of the variable this block
// has at shared address `local`.
__device__ __forceinline__ unsigned cluster_map(unsigned local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}

__device__ __forceinline__ float ld_cluster_f32(const float* local, unsigned rank) {
  const unsigned remote = cluster_map(static_cast<unsigned>(__cvta_generic_to_shared(local)), rank);
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  return v;
}

// Four floats (16-byte aligned) of block `rank`'s shared memory at the
// shared address `local` has in this block.
__device__ __forceinline__ float4 ld_cluster_v4(unsigned local, unsigned rank) {
  const unsigned remote = cluster_map(local, rank);
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(remote)
               : "memory");
  return v;
}

}  // namespace dev
}  // namespace gconv
