// Thin wrappers over the PTX that the tensor-core kernels need (sm_80+ and
// valid on sm_90a): cp.async with zero-fill, ldmatrix, mma.sync, tf32 cvt.
//
// Shared-memory operands are 32-bit shared-window addresses (smem_u32), the
// form ldmatrix / cp.async take, so callers do address arithmetic once.
#pragma once

#include "common/types.cuh"

namespace gconv {
namespace dev {

__device__ __forceinline__ u32 smem_u32(const void* p) { return static_cast<u32>(__cvta_generic_to_shared(p)); }

// ---- cp.async -------------------------------------------------------------
// Copies BYTES (4, 8 or 16) from global to shared memory. When pred is false
// the source size is 0, so nothing is read and the destination is zero-filled:
// this is how every out-of-bounds element (padding, tile tails) becomes 0.
// src must still be a valid address; callers pass the tensor base then.
template <int BYTES>
__device__ __forceinline__ void cp_async(u32 dst, const void* src, bool pred) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  const int src_size = pred ? BYTES : 0;
  if (BYTES == 16) {
    // .cg: 16-byte copies may bypass L1; operands are streamed once per CTA.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_size) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES), "r"(src_size)
                 : "memory");
  }
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void st_shared_u16(u32 addr, u16 v) {
  asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(addr), "h"(v) : "memory");
}
__device__ __forceinline__ void st_shared_v4(u32 addr, u32 a, u32 b, u32 c, u32 d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}
__device__ __forceinline__ u32 ld_shared_u32(u32 addr) {
  u32 v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

// ---- ldmatrix -------------------------------------------------------------
// Lane l gives the row address of row (l % 8) of matrix (l / 8); each lane
// gets back one 32-bit word per matrix (row l / 4, word l % 4; with .trans the
// 16-bit elements are transposed). Volatile so that the compiler never moves
// a fragment load across the __syncthreads that publishes the tile.
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2(u32 (&r)[2], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2_trans(u32 (&r)[2], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}

// ---- mma.sync -------------------------------------------------------------
// D = A * B + D, fp32 accumulators. Fragment layouts (g = lane / 4, t = lane % 4):
//   m16n8k16 (16-bit): a = {(g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..)},
//                      b = {(k 2t..2t+1, n g), (k 2t+8.., n g)}
//   m16n8k8 (tf32):    a = {(g, t), (g+8, t), (g, t+4), (g+8, t+4)}, b = {(k t, n g), (k t+4, n g)}
//   c/d:               {(g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)}
template <int DT>
__device__ __forceinline__ void mma(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]);

template <>
__device__ __forceinline__ void mma<kBF16>(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <>
__device__ __forceinline__ void mma<kFP16>(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <>
__device__ __forceinline__ void mma<kFP32>(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// fp32 bits -> tf32 bits, rounded to nearest (ties away), as cuBLAS/cuDNN do;
// the tensor core would otherwise just drop the low 13 mantissa bits.
__device__ __forceinline__ u32 to_tf32(u32 f32_bits) {
  u32 r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(f32_bits)));
  return r;
}

}  // namespace dev
}  // namespace gconv
