// A bounded per-thread memo of a launch's host work (wgmma_family.cpp): the
// launch plan of a (kernel, problem) and the tensor maps it encodes for the
// operands' addresses. A training step calls the same convolutions on the
// same addresses step after step (PyTorch's caching allocator hands the
// same blocks back), and encoding two or three tensor maps through the
// driver is most of the host time of a launch that is not the launch
// itself. Lookups hash the addresses and compare the whole key; when full,
// the memo starts over (a step's worth of entries is refilled in one step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>

namespace gconv::wgmma {

// K: equality-comparable, with `hash()`; V: the memoized work.
template <class K, class V>
class LaunchMemo {
 public:
  explicit LaunchMemo(size_t capacity) : capacity_(capacity) {}

  // The value stored for key, or null (valid until the next put).
  V* find(const K& key) {
    const auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }

  // Stores value for key (replacing an older value of the same key) and
  // returns the stored copy; at capacity, every older entry is dropped first.
  V& put(const K& key, V value) {
    if (map_.size() >= capacity_ && map_.find(key) == map_.end()) map_.clear();
    return map_.insert_or_assign(key, std::move(value)).first->second;
  }

  size_t size() const { return map_.size(); }

 private:
  struct Hash {
    size_t operator()(const K& k) const { return k.hash(); }
  };
  size_t capacity_;
  std::unordered_map<K, V, Hash> map_;
};

// Mixes pointer-sized words into a hash (the key's addresses).
inline size_t hash_words(std::initializer_list<uintptr_t> words) {
  size_t h = 1469598103934665603ull;
  for (const uintptr_t w : words) h = (h ^ std::hash<uintptr_t>{}(w)) * 1099511628211ull;
  return h;
}

}  // namespace gconv::wgmma
