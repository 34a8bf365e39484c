// Host side of the one-launch split-K protocol (device side:
// kernels/common/fixup.cuh): the kernels whose splits meet in an fp32
// accumulator (igemm / wgmma serial split-K, direct bwd_weight with atomics)
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

// A 64-bit value unique per launch and never 0: a counter from a random
// start, so that no two launches of the process share one and words left in
// a reused workspace by anything else never match it.
uint64_t next_launch_epoch();

}  // namespace gconv
