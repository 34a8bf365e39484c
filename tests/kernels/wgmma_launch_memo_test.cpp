// The per-thread memo of a wgmma launch's host work (wgmma/launch_memo.hpp):
// found by the whole key (addresses hashed, every field compared), replaced
// per key, emptied when full.
#include <gtest/gtest.h>

#include <string>

#include "kernels/wgmma/launch_memo.hpp"

namespace gconv::wgmma {
namespace {

struct Key {
  const void* a;
  int shape;  // stands for what the hash leaves out (traits, problem)
  bool operator==(const Key&) const = default;
  size_t hash() const { return hash_words({reinterpret_cast<uintptr_t>(a)}); }
};

TEST(WgmmaLaunchMemo, FindsByTheWholeKeyAndReplacesPerKey) {
  LaunchMemo<Key, std::string> memo(4);
  int x = 0, y = 0;
  EXPECT_EQ(memo.find({&x, 1}), nullptr);
  EXPECT_EQ(memo.put({&x, 1}, "x1"), "x1");
  ASSERT_NE(memo.find({&x, 1}), nullptr);
  EXPECT_EQ(*memo.find({&x, 1}), "x1");
  // Same address (same hash), another shape: another entry.
  EXPECT_EQ(memo.find({&x, 2}), nullptr);
  memo.put({&x, 2}, "x2");
  EXPECT_EQ(*memo.find({&x, 1}), "x1");
  EXPECT_EQ(*memo.find({&x, 2}), "x2");
  EXPECT_EQ(memo.find({&y, 1}), nullptr);
  memo.put({&x, 1}, "x1 again");
  EXPECT_EQ(*memo.find({&x, 1}), "x1 again");
  EXPECT_EQ(memo.size(), 2u);
}

TEST(WgmmaLaunchMemo, StartsOverWhenFull) {
  LaunchMemo<Key, int> memo(3);
  int v[4] = {};
  for (int i = 0; i < 3; ++i) memo.put({&v[i], 0}, i);
  EXPECT_EQ(memo.size(), 3u);
  memo.put({&v[1], 0}, 10);  // an existing key: replaced, nothing dropped
  EXPECT_EQ(memo.size(), 3u);
  EXPECT_EQ(*memo.find({&v[1], 0}), 10);
  memo.put({&v[3], 0}, 3);  // a new key at capacity: the older entries go
  EXPECT_EQ(memo.size(), 1u);
  EXPECT_EQ(memo.find({&v[0], 0}), nullptr);
  EXPECT_EQ(*memo.find({&v[3], 0}), 3);
}

TEST(WgmmaLaunchMemo, HashWordsDependsOnEveryWordAndItsOrder) {
  EXPECT_NE(hash_words({1, 2}), hash_words({2, 1}));
  EXPECT_NE(hash_words({1, 2}), hash_words({1, 3}));
  EXPECT_EQ(hash_words({7, 8, 9}), hash_words({7, 8, 9}));
}

}  // namespace
}  // namespace gconv::wgmma
