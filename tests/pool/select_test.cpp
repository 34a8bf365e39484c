// select_pool is the one way from (directions, dtypes, ndim, filter) to a
// kernel list: its result is the pools' kernels, in order, restricted as asked.
#include <gtest/gtest.h>

#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool/select.hpp"

namespace gconv {
namespace {

TEST(SelectPool, EqualsTheFilteredPoolsInOrder) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  PoolSelection s;
  s.directions = {Direction::bwd_data, Direction::fwd};
  s.dtypes = {DType::fp32, DType::bf16};
  s.ndim = 2;
  s.filter = "family==igemm && stages>=3";
  auto got = select_pool(*rules, s);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto f = Filter::parse(s.filter);
  ASSERT_TRUE(f.ok());
  std::vector<KernelTraits> want;
  for (Direction d : s.directions)
    for (DType t : s.dtypes) {
      auto pool = load_pool(*rules, d, t);
      ASSERT_TRUE(pool.ok());
      for (const auto& k : *pool)
        if (k.ndim == 2 && f->matches(*rules, k)) want.push_back(k);
    }
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(*got, want);
}

TEST(SelectPool, ParsesListsAndAllAndRejectsBadNames) {
  auto d = parse_directions("all");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->size(), 3u);
  auto d2 = parse_directions("bwd_weight,fwd");
  ASSERT_TRUE(d2.ok());
  EXPECT_EQ(*d2, (std::vector<Direction>{Direction::bwd_weight, Direction::fwd}));
  EXPECT_FALSE(parse_directions("fwd,sideways").ok());
  EXPECT_FALSE(parse_directions("").ok());
  auto t = parse_dtypes("fp16");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, std::vector<DType>{DType::fp16});
  EXPECT_EQ(parse_dtypes("all")->size(), 3u);
  EXPECT_FALSE(parse_dtypes("int8").ok());
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok());
  PoolSelection s;
  s.directions = {Direction::fwd};
  s.dtypes = {DType::bf16};
  s.filter = "stages >>= 3";
  auto bad = select_pool(*rules, s);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::parse_error);
}

}  // namespace
}  // namespace gconv
