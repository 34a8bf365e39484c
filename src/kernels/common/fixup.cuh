// The one-launch split-K protocol's tile words (device side), shared by the
// families whose splits meet in an fp32 accumulator: igemm / wgmma serial
// split-K (igemm/fixup.cuh, which describes the protocol) and the direct
// family's bwd_weight (direct/wgrad.cuh). Three 64-bit words per output
// region: tag, ready, count. Host side: kernels/fixup.hpp.
#pragma once

#include "common/types.cuh"

namespace gconv {
namespace dev {

// Words per output region (tag, ready, count); kernels/fixup.hpp mirrors it.
constexpr int kFixupWords = 3;

__device__ __forceinline__ u64 ld_acquire_u64(const u64* a) {
  u64 v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(v) : "l"(a) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_u64(u64* a, u64 v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(a), "l"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed_u64(u64* a, u64 v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;\n" ::"l"(a), "l"(v) : "memory");
}

// One thread per block, before the block's mainloop (active > 1): true for
// the split that started first, which zeroes the tile.
__device__ __forceinline__ bool fixup_begin(u64* w, u64 epoch) { return atomicExch(w, epoch) != epoch; }

// Memory order: the block's threads write (zeros, adds) and meet at a
// barrier; then one thread publishes with release semantics, which is
// cumulative over what the barrier ordered before it (the PTX memory model;
// CUTLASS's semaphores release the same way). So no thread but that one
// waits for the block's writes to drain.

// The zeroing split, one thread, after the block's barrier: count = 0, then
// ready.
__device__ __forceinline__ void fixup_publish(u64* w, u64 epoch) {
  st_relaxed_u64(w + 2, 0ull);
  st_release_u64(w + 1, epoch);
}

// Every split, one thread, before it adds: the tile is zeroed.
__device__ __forceinline__ void fixup_wait_ready(const u64* w, u64 epoch) {
  while (ld_acquire_u64(w + 1) != epoch) __nanosleep(32);
}

// One thread, after the block's barrier that follows its adds: true for the
// split that completes the sum (acquire: its block then reads the others'
// adds, after another barrier).
__device__ __forceinline__ bool fixup_count(u64* w, int active) {
  u64 old;
  asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;\n" : "=l"(old) : "l"(w + 2) : "memory");
  return old + 1 == static_cast<u64>(active);
}

// Splits that keep their own slices (igemm / wgmma parallel split-K, the
// direct family's _det) need no zeroing, so the protocol's first step comes
// after the mainloop, with nothing held through it: one thread, after the
// block's barrier that follows its slice's stores. The first split to swap
// the epoch in resets the count and publishes ready; every split waits for
// ready (a split that already swapped and is running) and counts. True for
// the split that completes the count.
__device__ __forceinline__ bool fixup_arrive_slices(u64* w, u64 epoch, int active) {
  if (fixup_begin(w, epoch)) fixup_publish(w, epoch);
  fixup_wait_ready(w, epoch);  // the count is reset
  return fixup_count(w, active);
}

// The last split, one thread, after the tile is converted: the words no
// longer hold this launch's epoch.
__device__ __forceinline__ void fixup_reset(u64* w) {
  st_relaxed_u64(w, 0ull);
  st_relaxed_u64(w + 1, 0ull);
}

}  // namespace dev
}  // namespace gconv
