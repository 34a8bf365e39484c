// Element types of the direct and naive kernels: storage <-> fp32/fp64
// conversions and vector loads/stores of N consecutive channels.
//
// Header-free on purpose (no cuda_bf16.h / cuda_fp16.h): NVRTC then needs no
// toolkit headers, and every conversion is one PTX cvt with round to nearest
// even, the rounding the CPU reference uses (gconv/numeric.hpp).
#pragma once

namespace gconv::direct {

// Values of the DT template parameter; same order as gconv::DType.
enum DTypeId : int { kBF16 = 0, kFP16 = 1, kFP32 = 2 };

template <int DT>
struct Elem;
template <>
struct Elem<kBF16> {
  using type = unsigned short;  // bit pattern
};
template <>
struct Elem<kFP16> {
  using type = unsigned short;  // bit pattern
};
template <>
struct Elem<kFP32> {
  using type = float;
};

template <int DT>
__device__ __forceinline__ float to_f32(typename Elem<DT>::type v) {
  if constexpr (DT == kBF16) {
    return __uint_as_float(static_cast<unsigned>(v) << 16);  // exact
  } else if constexpr (DT == kFP16) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
    return f;
  } else {
    return v;
  }
}

template <int DT>
__device__ __forceinline__ typename Elem<DT>::type from_f32(float f) {
  if constexpr (DT == kBF16) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
  } else if constexpr (DT == kFP16) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
  } else {
    return f;
  }
}

// One rounding from fp64 (a float detour would round twice): the naive
// kernels' results then equal the reference's wherever the sums agree.
template <int DT>
__device__ __forceinline__ typename Elem<DT>::type from_f64(double d) {
  if constexpr (DT == kBF16) {
    unsigned short h;
    asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(h) : "d"(d));
    return h;
  } else if constexpr (DT == kFP16) {
    unsigned short h;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d));
    return h;
  } else {
    return static_cast<float>(d);  // cvt.rn.f32.f64
  }
}

// N consecutive elements as raw 32-bit words (N * sizeof(elem) is 2, 4, 8 or
// 16 bytes). The pointer must be aligned to that size: callers guarantee it by
// requiring channel counts and offsets divisible by N.
template <int DT, int N>
__device__ __forceinline__ void load_vec(const typename Elem<DT>::type* src, float (&out)[N]) {
  using E = typename Elem<DT>::type;
  constexpr int kBytes = N * static_cast<int>(sizeof(E));
  static_assert(kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16, "vector of 2, 4, 8 or 16 bytes");
  if constexpr (kBytes == 2) {
    out[0] = to_f32<DT>(*src);
  } else {
    constexpr int kWords = kBytes / 4;
    unsigned w[kWords];
    if constexpr (kWords == 4) {
      const uint4 v = *reinterpret_cast<const uint4*>(src);
      w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    } else if constexpr (kWords == 2) {
      const uint2 v = *reinterpret_cast<const uint2*>(src);
      w[0] = v.x, w[1] = v.y;
    } else {
      w[0] = *reinterpret_cast<const unsigned*>(src);
    }
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if constexpr (sizeof(E) == 2) {
        out[i] = to_f32<DT>(static_cast<unsigned short>((w[i / 2] >> (16 * (i % 2))) & 0xffffu));
      } else {
        out[i] = __uint_as_float(w[i]);
      }
    }
  }
}

template <int DT, int N>
__device__ __forceinline__ void store_vec(typename Elem<DT>::type* dst, const float (&in)[N]) {
  using E = typename Elem<DT>::type;
  constexpr int kBytes = N * static_cast<int>(sizeof(E));
  static_assert(kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16, "vector of 2, 4, 8 or 16 bytes");
  if constexpr (kBytes == 2) {
    *dst = from_f32<DT>(in[0]);
  } else {
    constexpr int kWords = kBytes / 4;
    unsigned w[kWords];
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      if constexpr (sizeof(E) == 2) {
        w[i] = static_cast<unsigned>(from_f32<DT>(in[2 * i])) |
               (static_cast<unsigned>(from_f32<DT>(in[2 * i + 1])) << 16);
      } else {
        w[i] = __float_as_uint(in[i]);
      }
    }
    if constexpr (kWords == 4) {
      *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    } else if constexpr (kWords == 2) {
      *reinterpret_cast<uint2*>(dst) = make_uint2(w[0], w[1]);
    } else {
      *reinterpret_cast<unsigned*>(dst) = w[0];
    }
  }
}

// Copies N elements (raw bits, no conversion) or writes N zeros: the staging
// of global tiles into shared memory.
template <int DT, int N>
__device__ __forceinline__ void copy_vec(typename Elem<DT>::type* dst, const typename Elem<DT>::type* src) {
  using E = typename Elem<DT>::type;
  constexpr int kBytes = N * static_cast<int>(sizeof(E));
  if constexpr (kBytes == 16) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (kBytes == 8) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
  } else if constexpr (kBytes == 4) {
    *reinterpret_cast<unsigned*>(dst) = *reinterpret_cast<const unsigned*>(src);
  } else {
    static_assert(kBytes == 2, "vector of 2, 4, 8 or 16 bytes");
    *dst = *src;
  }
}

template <int DT, int N>
__device__ __forceinline__ void zero_vec(typename Elem<DT>::type* dst) {
  using E = typename Elem<DT>::type;
  constexpr int kBytes = N * static_cast<int>(sizeof(E));
  if constexpr (kBytes == 16) {
    *reinterpret_cast<uint4*>(dst) = make_uint4(0u, 0u, 0u, 0u);
  } else if constexpr (kBytes == 8) {
    *reinterpret_cast<uint2*>(dst) = make_uint2(0u, 0u);
  } else if constexpr (kBytes == 4) {
    *reinterpret_cast<unsigned*>(dst) = 0u;
  } else {
    static_assert(kBytes == 2, "vector of 2, 4, 8 or 16 bytes");
    *dst = 0;
  }
}

// N consecutive fp32 values from shared memory (weights staged as fp32),
// 16 bytes at a time where N allows. `src` is aligned to 4 * min(N, 4) bytes.
template <int N>
__device__ __forceinline__ void load_f32(const float* src, float (&out)[N]) {
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const float4 v = *reinterpret_cast<const float4*>(src + i);
      out[i] = v.x, out[i + 1] = v.y, out[i + 2] = v.z, out[i + 3] = v.w;
    }
  } else if constexpr (N == 2) {
    const float2 v = *reinterpret_cast<const float2*>(src);
    out[0] = v.x, out[1] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = src[i];
  }
}

}  // namespace gconv::direct
