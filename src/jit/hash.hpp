// A 128-bit non-cryptographic digest for cache keys and entry checksums.
//
// Two independent 64-bit lanes over the same byte stream: FNV-1a 64 and a
// MurmurHash64A-style word hash with a final avalanche. A collision must hit
// both lanes at once, which for non-adversarial inputs (kernel sources,
// option strings) is far below any practical concern.
//
// Parts are length-prefixed (add_part), so ("ab","c") and ("a","bc") differ
// without needing a separator that could itself appear in the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gconv::jit {

struct Digest {
  uint64_t hi = 0, lo = 0;
  std::string hex() const;  // 32 lowercase hex digits, hi first
  bool operator==(const Digest&) const = default;
};

class Hasher {
 public:
  Hasher();
  // Raw bytes (no length prefix).
  void update(const void* data, size_t n);
  // A framed part: its 64-bit length, then its bytes.
  void add_part(std::string_view part);
  void add_u64(uint64_t v);
  Digest finish() const;

 private:
  void mix_word(uint64_t k);
  uint64_t fnv_;
  uint64_t murmur_;
  uint64_t length_ = 0;
  unsigned char tail_[8] = {};
  size_t tail_len_ = 0;
};

Digest hash_bytes(const void* data, size_t n);

}  // namespace gconv::jit
