// The cache-key digest: streaming equals one-shot, parts are framed.
#include "jit/hash.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gconv::jit {
namespace {

TEST(JitHash, StreamingMatchesOneShotAtEverySplit) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + (i * 7) % 26);
  Digest whole = hash_bytes(text.data(), text.size());
  for (size_t split = 0; split <= text.size(); split += 13) {
    Hasher h;
    h.update(text.data(), split);
    h.update(text.data() + split, text.size() - split);
    EXPECT_EQ(h.finish(), whole) << "split at " << split;
  }
}

TEST(JitHash, PartsAreFramed) {
  Hasher a, b;
  a.add_part("ab");
  a.add_part("c");
  b.add_part("a");
  b.add_part("bc");
  EXPECT_NE(a.finish(), b.finish());
}

TEST(JitHash, SingleByteChangesChangeBothLanes) {
  std::string base(64, 'x');
  Digest d0 = hash_bytes(base.data(), base.size());
  std::set<uint64_t> his, los;
  for (size_t i = 0; i < base.size(); ++i) {
    std::string t = base;
    t[i] = 'y';
    Digest d = hash_bytes(t.data(), t.size());
    EXPECT_NE(d.hi, d0.hi);
    EXPECT_NE(d.lo, d0.lo);
    his.insert(d.hi);
    los.insert(d.lo);
  }
  EXPECT_EQ(his.size(), base.size());
  EXPECT_EQ(los.size(), base.size());
  // Lengths differ even when the extra bytes are zeros.
  std::string z1(5, '\0'), z2(6, '\0');
  EXPECT_NE(hash_bytes(z1.data(), z1.size()), hash_bytes(z2.data(), z2.size()));
}

TEST(JitHash, HexIs32LowercaseDigits) {
  Digest d{0x0123456789abcdefull, 0xfedcba9876543210ull};
  EXPECT_EQ(d.hex(), "0123456789abcdeffedcba9876543210");
}

}  // namespace
}  // namespace gconv::jit
