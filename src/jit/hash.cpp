#include "jit/hash.hpp"

#include <cstring>

namespace gconv::jit {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;
constexpr uint64_t kMurmurM = 0xc6a4a7935bd1e995ull;
constexpr int kMurmurR = 47;
constexpr uint64_t kMurmurSeed = 0x67636f6e7631ull;  // "gconv1"

uint64_t load_le64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Final avalanche (MurmurHash3 fmix64): every input bit affects every output bit.
uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

}  // namespace

std::string Digest::hex() const {
  static const char* kDigits = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[15 - i] = kDigits[(hi >> (4 * i)) & 0xf];
    s[31 - i] = kDigits[(lo >> (4 * i)) & 0xf];
  }
  return s;
}

Hasher::Hasher() : fnv_(kFnvOffset), murmur_(kMurmurSeed) {}

void Hasher::mix_word(uint64_t k) {
  k *= kMurmurM;
  k ^= k >> kMurmurR;
  k *= kMurmurM;
  murmur_ ^= k;
  murmur_ *= kMurmurM;
}

void Hasher::update(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  length_ += n;
  for (size_t i = 0; i < n; ++i) {
    fnv_ ^= p[i];
    fnv_ *= kFnvPrime;
  }
  // Word lane: complete a pending partial word, then whole words, then keep the rest.
  size_t i = 0;
  if (tail_len_ > 0) {
    while (tail_len_ < 8 && i < n) tail_[tail_len_++] = p[i++];
    if (tail_len_ < 8) return;
    mix_word(load_le64(tail_));
    tail_len_ = 0;
  }
  for (; i + 8 <= n; i += 8) mix_word(load_le64(p + i));
  while (i < n) tail_[tail_len_++] = p[i++];
}

void Hasher::add_u64(uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  update(b, 8);
}

void Hasher::add_part(std::string_view part) {
  add_u64(part.size());
  update(part.data(), part.size());
}

Digest Hasher::finish() const {
  uint64_t m = murmur_;
  if (tail_len_ > 0) {
    unsigned char last[8] = {};
    std::memcpy(last, tail_, tail_len_);
    m ^= load_le64(last);
    m *= kMurmurM;
  }
  m ^= length_ * kMurmurM;
  Digest d;
  d.hi = fmix64(fnv_ ^ (length_ << 1));
  d.lo = fmix64(m);
  return d;
}

Digest hash_bytes(const void* data, size_t n) {
  Hasher h;
  h.update(data, n);
  return h.finish();
}

}  // namespace gconv::jit
