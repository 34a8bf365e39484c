// FNV-1a 64 of a string: a stable hash (the same on every build and machine)
// for choices that must repeat across runs and processes: the bench's shard
// and sample assignment, the training split's order of layer shapes. Kept in
// core/ because bench/ and heuristic/ both need it and neither may import the
// other's layer. Not for cache keys (jit/hash.hpp has the 128-bit digest).
#pragma once

#include <cstdint>
#include <string_view>

namespace gconv {

inline uint64_t fnv1a(std::string_view s) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;  // FNV-1a 64-bit prime
  }
  return h;
}

}  // namespace gconv
