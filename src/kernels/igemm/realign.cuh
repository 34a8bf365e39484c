// Realigned 16-byte loads (IgemmConfig::kRealign, name suffix _ra) for an
// operand whose channel runs start off a 16-byte boundary: K/G not a multiple
// of 8 (bf16) in bwd_data / bwd_weight, where dy's rows are K elements long
// (r2plus1d's 921-channel layers). cp.async needs an aligned source, so such
// rows used to go out as one 2-byte load per element (vec 1), 8x the load
// instructions. Here a thread reads the two aligned 16-byte chunks that cover
// its 8 elements (the second is usually its neighbour's first, an L1 hit),
// shifts the bytes into place in registers and zeroes the elements past the
// run's end. The loaded vectors are held in registers and stored to shared
// memory after the tile's MMAs (RealignBatch, mainloop.cuh kDeferFlush), so
// the loads' latency hides behind the MMAs instead of stalling the issue.
#pragma once

#include "common/ptx.cuh"

namespace gconv {
namespace igemm {

// Bytes [p, p + nbytes) (nbytes <= 16, a multiple of the element size, p
// aligned to the element size) as 16 bytes, zeros past nbytes. end: one past
// the tensor's last byte; the tensor's base is 16-byte aligned (the registry
// checks every pointer), so the aligned chunk at or below p lies inside it,
// and the chunk after it does when it ends at or before end.
__device__ __forceinline__ uint4 load_realigned(const char* p, int nbytes, const char* end) {
  u32 r[4] = {0u, 0u, 0u, 0u};
  if (nbytes > 0) {
    const int sh = int(reinterpret_cast<size_t>(p) & 15);
    const uint4* q = reinterpret_cast<const uint4*>(p - sh);
    if (reinterpret_cast<const char*>(q + 2) <= end) {
      const uint4 lo = __ldg(q), hi = __ldg(q + 1);
      u32 w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
      // Shift left by sh bytes: 8, then 4 (selects), then 2 (funnel shift).
      const bool s8 = sh & 8, s4 = sh & 4, s2 = sh & 2;
#pragma unroll
      for (int i = 0; i < 6; ++i) w[i] = s8 ? w[i + 2] : w[i];
#pragma unroll
      for (int i = 0; i < 5; ++i) w[i] = s4 ? w[i + 1] : w[i];
#pragma unroll
      for (int i = 0; i < 4; ++i) r[i] = s2 ? __funnelshift_r(w[i], w[i + 1], 16) : w[i];
#pragma unroll
      for (int i = 0; i < 4; ++i) r[i] = nbytes >= 4 * i + 4 ? r[i] : nbytes >= 4 * i + 2 ? (r[i] & 0xffffu) : 0u;
    } else {
      // The tensor's last bytes: the chunk after p's may reach past the
      // allocation. 2-byte loads of exactly the valid bytes (rare: the
      // last vector of the tensor).
      const unsigned short* h = reinterpret_cast<const unsigned short*>(p);
#pragma unroll
      for (int i = 0; i < 8; ++i)
        if (2 * i < nbytes) r[i / 2] |= u32(__ldg(h + i)) << (16 * (i % 2));
    }
  }
  return make_uint4(r[0], r[1], r[2], r[3]);
}

// The realigned copies of one operand's stage, N per thread: loaded by add(),
// stored by flush() (after the tile's MMAs when the mainloop defers it).
template <int N>
struct RealignBatch {
  uint4 val[N];
  u32 dst[N];
  bool use[N];

  // use = false: a slot outside the tile (nothing stored); nbytes = 0 stores zeros.
  __device__ __forceinline__ void add(int i, u32 d, const char* src, int nbytes, const char* end, bool in_tile) {
    val[i] = load_realigned(src, nbytes, end);
    dst[i] = d;
    use[i] = in_tile;
  }
  __device__ __forceinline__ void flush() {
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (use[i]) dev::st_shared_v4(dst[i], val[i].x, val[i].y, val[i].z, val[i].w);
  }
};

}  // namespace igemm
}  // namespace gconv
