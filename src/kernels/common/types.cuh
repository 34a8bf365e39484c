// Element types of device code and their conversions to and from fp32.
//
// bf16 and fp16 are carried as raw 16-bit patterns (u16) and converted with
// PTX cvt: that keeps kernels free of cuda_bf16.h / cuda_fp16.h, which NVRTC
// would otherwise parse for every instance. Rounding is round-to-nearest-even
// (cvt.rn), the same as the CPU reference's fp32 -> bf16/fp16 rounding.
#pragma once

namespace gconv {
namespace dev {

typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned long long u64;

// Matches gconv::DType's order (bf16, fp16, fp32); instance sources spell the
// number, so keep the two in step.
enum DTypeId { kBF16 = 0, kFP16 = 1, kFP32 = 2 };

__device__ __forceinline__ float bf16_to_f32(u16 h) { return __uint_as_float(u32(h) << 16); }
__device__ __forceinline__ float f16_to_f32(u16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ u16 f32_to_bf16(float f) {
  u16 h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ u16 f32_to_f16(float f) {
  u16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
// cvt.rn.{bf16,f16}x2.f32 d, a, b puts a in the upper half: pass (hi, lo).
__device__ __forceinline__ u32 pack2_bf16(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ u32 pack2_f16(float lo, float hi) {
  u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Per-dtype storage type and conversions. store2 writes two adjacent
// elements with one access; the caller guarantees the alignment (even index).
template <int DT>
struct Elem;

template <>
struct Elem<kBF16> {
  typedef u16 T;
  static constexpr int kBytes = 2;
  static __device__ __forceinline__ float to_f32(T v) { return bf16_to_f32(v); }
  static __device__ __forceinline__ T from_f32(float v) { return f32_to_bf16(v); }
  static __device__ __forceinline__ void store2(T* p, float lo, float hi) {
    *reinterpret_cast<u32*>(p) = pack2_bf16(lo, hi);
  }
};

template <>
struct Elem<kFP16> {
  typedef u16 T;
  static constexpr int kBytes = 2;
  static __device__ __forceinline__ float to_f32(T v) { return f16_to_f32(v); }
  static __device__ __forceinline__ T from_f32(float v) { return f32_to_f16(v); }
  static __device__ __forceinline__ void store2(T* p, float lo, float hi) {
    *reinterpret_cast<u32*>(p) = pack2_f16(lo, hi);
  }
};

template <>
struct Elem<kFP32> {
  typedef float T;
  static constexpr int kBytes = 4;
  static __device__ __forceinline__ float to_f32(T v) { return v; }
  static __device__ __forceinline__ T from_f32(float v) { return v; }
  static __device__ __forceinline__ void store2(T* p, float lo, float hi) {
    *reinterpret_cast<float2*>(p) = make_float2(lo, hi);
  }
};

}  // namespace dev
}  // namespace gconv
