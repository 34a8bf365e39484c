#include "kernels/fixup.hpp"

#include <atomic>
#include <chrono>
#include <random>

#include "jit/env.hpp"

namespace gconv {

bool splitk_fixup_enabled() {
  static const bool on = jit::process_env_on("GCONV_SPLITK_FIXUP");
  return on;
}

bool slices_fixup(long long summed_bytes) {
  static const long long limit = [] {
    const auto kb = jit::process_env_int("GCONV_PARALLEL_FIXUP_KB", 0, 1ll << 30);
    return kb ? *kb * 1024 : kParallelFixupBytes;
  }();
  return splitk_fixup_enabled() && summed_bytes <= limit;
}

uint64_t next_launch_epoch() {
  static std::atomic<uint64_t> counter{[] {
    uint64_t seed =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull;
    try {
      std::random_device rd;
      seed ^= static_cast<uint64_t>(rd()) << 32 ^ rd();
    } catch (...) {
      // No entropy source: the clock alone still differs between processes.
    }
    return seed;
  }()};
  uint64_t e = counter.fetch_add(1, std::memory_order_relaxed);
  while (e == 0) e = counter.fetch_add(1, std::memory_order_relaxed);
  return e;
}

}  // namespace gconv
