// The copy machinery the igemm loaders share (loaders.cuh): which K and M/N
// slots of a tile a thread copies (SlotMap), and how one operand's copies of
// a stage go out (CopyBatch: cp.async, or 2-byte loads held until flush();
// realigned vectors: RealignBatch in realign.cuh).
#pragma once

#include "common/ptx.cuh"
#include "igemm/config.cuh"

namespace gconv {
namespace igemm {

// M/N slots per thread when each thread owns kp K slots.
__host__ __device__ constexpr int slots_per_thread(int ks, int mns, int threads, int kp) {
  return (mns + threads / (ks / kp) - 1) / (threads / (ks / kp));
}
// K slots per thread: the fewest that divide the K slots evenly, doubled
// while a thread would otherwise own more than 4x as many M/N slots. Both
// kinds of slot cost registers (row coordinates vs. K counters); balancing
// them keeps narrow vectors and long K tiles from spilling.
__host__ __device__ constexpr int k_slots_per_thread(int ks, int mns, int threads) {
  int kp = ks <= threads ? 1 : ks / threads;
  while (ks % (2 * kp) == 0 && slots_per_thread(ks, mns, threads, kp) > 4 * kp) kp *= 2;
  return kp;
}

// Thread -> (K slot, M/N slot) assignment for one tile of KS x MNS slots (a
// slot is one vector of VEC elements). K_FAST puts consecutive threads along
// K (K-major tiles: contiguous in global memory along K), else along M/N.
template <int KS, int MNS, int THREADS, bool K_FAST>
struct SlotMap {
  static_assert(KS <= THREADS ? THREADS % KS == 0 : KS % THREADS == 0,
                "the K slots of a tile must divide the threads, or the threads the K slots");
  static constexpr int kKP = k_slots_per_thread(KS, MNS, THREADS);  // K slots per thread
  static constexpr int kKT = KS / kKP;                                // K slots covered at once
  static constexpr int kMT = THREADS / kKT;                           // threads per K slot
  static constexpr int kP = (MNS + kMT - 1) / kMT;                    // M/N slots per thread
  static constexpr bool kExact = MNS % kMT == 0;
  __device__ static __forceinline__ int kslot(int tid, int q) { return (K_FAST ? tid % kKT : tid / kMT) + q * kKT; }
  __device__ static __forceinline__ int mnslot(int tid, int p) { return (K_FAST ? tid / kKT : tid % kMT) + p * kMT; }
  __device__ static __forceinline__ bool mn_ok(int mn) { return kExact || mn < MNS; }
};

// The copies of one operand's stage, N per thread. Vectors of 4/8/16 bytes
// go out as cp.async at once. A single 16-bit element (vec 1: odd channel
// counts) has no cp.async: the batch loads all N into registers first and
// stores them to shared memory in flush(), so that N loads are in flight
// together (one load then its st.shared per copy waited out the memory
// latency N times a stage). The pipeline's barrier orders both kinds.
template <int BYTES, int N>
struct CopyBatch {
  static constexpr int kHeld = BYTES >= 4 ? 1 : N;
  dev::u16 val[kHeld];
  u32 dst[kHeld];
  bool use[kHeld];

  // Copy i (a compile-time index after unrolling) of the stage; use = false:
  // a slot outside the tile (nothing stored); pred = false stores zeros.
  template <class T>
  __device__ __forceinline__ void add(int i, u32 d, const T* src, bool pred, bool in_tile = true) {
    if constexpr (BYTES >= 4) {
      if (in_tile) dev::cp_async<BYTES>(d, src, pred);
    } else {
      val[i] = pred ? __ldg(reinterpret_cast<const dev::u16*>(src)) : dev::u16(0);
      dst[i] = d;
      use[i] = in_tile;
    }
  }
  __device__ __forceinline__ void flush() {
    if constexpr (BYTES < 4) {
#pragma unroll
      for (int i = 0; i < N; ++i)
        if (use[i]) dev::st_shared_u16(dst[i], val[i]);
    }
  }
};

// A realigning loader's extra state: one past the tensor, and (MN-major)
// the valid bytes of each column vector. Empty otherwise, so that the other
// kernels' code is what it was (a member left unused still changed their PTX).
template <bool RA, int P>
struct RealignState {
  const char* end;
  int nbytes[P];
};
template <int P>
struct RealignState<false, P> {};

// The batch a realigning loader holds from load() to flush() (member held);
// nothing otherwise, as an empty base: an empty member still changed the
// other kernels' PTX (bwd_weight vec 1).
template <bool RA, class B>
struct HeldBatch {
  B held;
};
template <class B>
struct HeldBatch<false, B> {};

// What a loader that holds nothing keeps between load() and flush().
struct NoBatch {
  __device__ __forceinline__ void flush() {}
};
// The batch load() fills: the held one (realign), else a local one.
template <class B>
__device__ __forceinline__ B& pick_batch(B& held, B&) {
  return held;
}
template <class B>
__device__ __forceinline__ B& pick_batch(NoBatch&, B& local) {
  return local;
}

}  // namespace igemm
}  // namespace gconv
