// ceil_div's shift path must give what the division gives, for every sign
// of the numerator (the planners and the analytic model rely on its bits).
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>

#include "core/int_math.hpp"

namespace gconv {
namespace {

TEST(IntMath, CeilDivEqualsTheTruncatingFormula) {
  for (int64_t b : std::initializer_list<int64_t>{1, 2, 3, 4, 6, 8, 16, 24, 64, 128, 132, 256, int64_t{1} << 40})
    for (int64_t a = -300; a <= 300; ++a) ASSERT_EQ(ceil_div(a, b), (a + b - 1) / b) << a << " / " << b;
  const int64_t big = int64_t{1} << 61;
  EXPECT_EQ(ceil_div(big + 1, 8), (big + 8) / 8);
  EXPECT_EQ(ceil_div(big, int64_t{1} << 61), 1);
  EXPECT_EQ(ceil_div(0, 16), 0);
  EXPECT_EQ(ceil_div(17, 16), 2);
}

}  // namespace
}  // namespace gconv
