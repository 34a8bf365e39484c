// Host side of the one-launch split-K protocol (device side:
// kernels/common/fixup.cuh): the kernels whose splits meet in an fp32
// accumulator (igemm / wgmma serial and parallel split-K, direct bwd_weight)
// zero, add and convert inside their one launch, coordinated by three
// 64-bit words per output region placed in the workspace after the
// accumulator, and by an epoch unique to each launch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gconv {

// Words per output region (tag, ready, count).
inline constexpr int kFixupWords = 3;

// Bytes from the workspace start to the words: the fp32 accumulator of
// `acc_elems` elements (0 when the accumulator is the output), rounded up to
// 256 bytes.
inline size_t fixup_words_offset(int64_t acc_elems) {
  return (static_cast<size_t>(acc_elems) * sizeof(float) + 255) / 256 * 256;
}
inline size_t fixup_words_bytes(int64_t regions) {
  return static_cast<size_t>(regions) * kFixupWords * sizeof(uint64_t);
}

// The one-launch path is on unless GCONV_SPLITK_FIXUP=0 (read once), which
// restores memset + kernel + reduce/finish for A/B runs.
bool splitk_fixup_enabled();

// Split slices summed in one launch (igemm / wgmma parallel split-K, the
// direct family's deterministic bwd_weight): a region's last split sums
// every slice of the region alone, `summed_bytes` read by one block, where a
// reduce (finish) kernel spreads them over the whole GPU. So such a kernel
// takes the one-launch path only while that read stays within
// kParallelFixupBytes (default; GCONV_PARALLEL_FIXUP_KB overrides it, read
// once: 0 never, a large value always), and only with splitk_fixup_enabled().
inline constexpr long long kParallelFixupBytes = 16 << 10;
bool slices_fixup(long long summed_bytes);
// An igemm / wgmma tile: split_k slices of tile_m x tile_n floats.
inline bool parallel_fixup(int split_k, int tile_m, int tile_n) {
  return slices_fixup(static_cast<long long>(split_k) * tile_m * tile_n * 4);
}

// A 64-bit value unique per launch and never 0: a counter from a random
// start, so that no two launches of the process share one and words left in
// a reused workspace by anything else never match it.
uint64_t next_launch_epoch();

}  // namespace gconv
