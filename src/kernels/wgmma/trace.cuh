// The wgmma kernels' phase clocks (GCONV_WGMMA_TRACE), for latency studies
// of small layers' blocks (docs/wgmma.md, bench/wgmma_trace.py).
#pragma once

namespace gconv {
namespace wg {

// Latency study (GCONV_WGMMA_TRACE=N, wgmma_plan.hpp trace_blocks): SM-clock
// stamps of a block's phases in a static shared buffer, each slot kept at its
// first write (the first output tile of a persistent block), copied out by
// blocks 0 .. N-1 at the end and printed by gconv_trace_dump. Without the
// define every mark is empty.
namespace trace {
// kRelease + k: the first consumer warp released stage k (its MMAs retired);
// kWake + k: the producer's wait for the stage of its fill S + k returned.
enum : int {
  kEntry, kInit, kIssue = 2, kFull = 26, kConsumed = 50, kStored, kReduced, kTileAt, kPreIssue,
  kGlobal = 60, kSm, kEnd, kDone, kRelease = 64, kWake = 80, kBuf = 96
};
constexpr int kSlots = 24, kRows = 16;
#ifdef GCONV_WGMMA_TRACE
__device__ __forceinline__ long long* buf() {
  __shared__ long long b[kBuf];
  return b;
}
__device__ __forceinline__ void mark(int slot) {
#ifdef GCONV_WGMMA_TRACE_LIGHT
  // GCONV_WGMMA_TRACE_LIGHT (wgmma_plan.cpp): no per-stage marks after the
  // first, so the mainloop runs as untraced (first full to consumed).
  if ((slot > kIssue && slot < kFull) || (slot > kFull && slot < kConsumed) || slot == kPreIssue || slot >= kRelease)
    return;
#endif
  long long* b = buf();
  if (b[slot] == 0) b[slot] = clock64() - b[kEntry] + 1;
}
__device__ __forceinline__ void begin() {
  long long* b = buf();
  for (int i = 0; i < kBuf; ++i) b[i] = 0;
  b[kEntry] = clock64();
  unsigned long long g;
  unsigned sm;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  b[kGlobal] = static_cast<long long>(g);
  b[kSm] = sm;
}
// The traced blocks' clocks, copied out by the thread that finishes last
// among the consumer leaders (`leaders` of them) and printed by a kernel of
// their own (gconv_trace_dump, launched after gconv_main): a printf in
// gconv_main would be a call, across which ptxas serializes the wgmmas
// (C7510), and the clocks would be of another kernel.
__device__ long long g_blocks[GCONV_WGMMA_TRACE][kBuf];
__device__ __forceinline__ void finish(int leaders) {
  long long* b = buf();
  __threadfence_block();
  if (atomicAdd(reinterpret_cast<unsigned long long*>(&b[kDone]), 1ull) != static_cast<unsigned long long>(leaders - 1))
    return;
  if (static_cast<int>(blockIdx.x) >= GCONV_WGMMA_TRACE) return;
  b[kEnd] = clock64() - b[kEntry];
  long long* g = g_blocks[blockIdx.x];
  for (int i = 0; i < kBuf; ++i) g[i] = b[i];
}
// gconv_trace_dump (one thread): the lines bench/wgmma_trace.py reads, for
// every block the last launch copied out (each cleared once printed).
__device__ __forceinline__ void dump() {
  for (int blk = 0; blk < GCONV_WGMMA_TRACE; ++blk) {
    long long* b = g_blocks[blk];
    if (b[kEnd] == 0) continue;
    printf("WGT b=%d sm=%lld gt=%lld init=%lld consumed=%lld stored=%lld reduced=%lld end=%lld tile_at=%lld pre_issue=%lld\n",
           blk, b[kSm], b[kGlobal], b[kInit], b[kConsumed], b[kStored], b[kReduced], b[kEnd], b[kTileAt], b[kPreIssue]);
    const char* names[4] = {"issue", "full", "release", "wake"};
    const int rows[4] = {kIssue, kFull, kRelease, kWake};
    for (int r = 0; r < 4; ++r) {
      const long long* s = b + rows[r];
      printf("WGT b=%d %s %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\n", blk,
             names[r], s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12], s[13], s[14],
             s[15]);
    }
    b[kEnd] = 0;
  }
}
#else
__device__ __forceinline__ void mark(int) {}
__device__ __forceinline__ void begin() {}
__device__ __forceinline__ void finish(int) {}
__device__ __forceinline__ void dump() {}
#endif
}  // namespace trace

}  // namespace wg
}  // namespace gconv
