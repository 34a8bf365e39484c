// The filter language: each operator, precedence, names of enum fields,
// fields that do not apply to a family, and errors with their columns.
#include <string>

#include <gtest/gtest.h>

#include "pool/filter.hpp"
#include "pool_test_util.hpp"

namespace gconv {
namespace {

using testing::sm90;

// igemm_bwd_weight_bf16_2d_m128n64k32_w2x2_s4_sk16p_v8_g1
KernelTraits gemm() {
  KernelTraits t;
  t.family = Family::igemm;
  t.direction = Direction::bwd_weight;
  t.tile_m = 128, t.tile_n = 64, t.tile_k = 32;
  t.warps_m = 2, t.warps_n = 2;
  t.stages = 4;
  t.split_mode = SplitKMode::parallel;
  t.split_k = 16;
  return t;
}

// direct_fwd_fp32_3d_t8x16_r4_v4
KernelTraits dir() {
  KernelTraits t;
  t.family = Family::direct;
  t.dtype = DType::fp32;
  t.ndim = 3;
  t.block_h = 8, t.block_w = 16;
  t.per_thread = 4;
  t.vec = 4;
  return t;
}

bool match(const std::string& expr, const KernelTraits& t) {
  auto f = Filter::parse(expr);
  EXPECT_TRUE(f.ok()) << expr << ": " << f.status().to_string();
  return f.ok() && f->matches(sm90(), t);
}

TEST(Filter, EachComparisonOperator) {
  const KernelTraits t = gemm();  // tile_n == 64
  EXPECT_TRUE(match("tile_n == 64", t));
  EXPECT_FALSE(match("tile_n == 65", t));
  EXPECT_TRUE(match("tile_n != 65", t));
  EXPECT_FALSE(match("tile_n != 64", t));
  EXPECT_TRUE(match("tile_n < 65", t));
  EXPECT_FALSE(match("tile_n < 64", t));
  EXPECT_TRUE(match("tile_n <= 64", t));
  EXPECT_FALSE(match("tile_n <= 63", t));
  EXPECT_TRUE(match("tile_n > 63", t));
  EXPECT_FALSE(match("tile_n > 64", t));
  EXPECT_TRUE(match("tile_n >= 64", t));
  EXPECT_FALSE(match("tile_n >= 65", t));
  // Literal on the left, and two fields.
  EXPECT_TRUE(match("128 > tile_n", t));
  EXPECT_TRUE(match("tile_m > tile_n", t));
  EXPECT_TRUE(match("warps_m == warps_n", t));
}

TEST(Filter, LogicalOperatorsAndPrecedence) {
  const KernelTraits t = gemm();
  EXPECT_TRUE(match("tile_m == 128 && tile_n == 64", t));
  EXPECT_FALSE(match("tile_m == 128 && tile_n == 128", t));
  EXPECT_TRUE(match("tile_m == 1 || tile_n == 64", t));
  EXPECT_FALSE(match("tile_m == 1 || tile_n == 1", t));
  EXPECT_TRUE(match("!(tile_m == 1)", t));
  EXPECT_FALSE(match("!tile_m == 128", t));  // '!' applies to the comparison
  EXPECT_TRUE(match("!!(tile_m == 128)", t));
  // && binds tighter than ||: true || (false && false) is true,
  // while (true || false) && false is false.
  EXPECT_TRUE(match("tile_m == 128 || tile_n == 1 && stages == 1", t));
  EXPECT_FALSE(match("(tile_m == 128 || tile_n == 1) && stages == 1", t));
  // false && false || true is (false && false) || true.
  EXPECT_TRUE(match("tile_m == 1 && tile_n == 1 || stages == 4", t));
  EXPECT_FALSE(match("tile_m == 1 && (tile_n == 1 || stages == 4)", t));
  EXPECT_TRUE(match("  ( ( tile_n>=64 ) )&&stages==4", t));
}

TEST(Filter, EnumAndBoolFields) {
  const KernelTraits g = gemm(), d = dir();
  EXPECT_TRUE(match("family == igemm", g));
  EXPECT_TRUE(match("family == direct || split_mode == parallel", g));
  EXPECT_TRUE(match("family == direct || split_mode == parallel", d));
  EXPECT_TRUE(match("direction == bwd_weight && dtype == bf16", g));
  EXPECT_TRUE(match("dtype != bf16 && ndim == 3", d));
  EXPECT_TRUE(match("split_mode == none", d));  // direct kernels do not split
  EXPECT_TRUE(match("split_k == 16 && split_mode != serial", g));
  KernelTraits det = dir();
  det.direction = Direction::bwd_weight;
  det.deterministic = true;
  EXPECT_TRUE(match("deterministic", det));
  EXPECT_FALSE(match("!deterministic", det));
  EXPECT_TRUE(match("deterministic == true", det));
  EXPECT_TRUE(match("deterministic == false", g));
}

TEST(Filter, FieldsOfTheOtherFamilyReadZero) {
  const KernelTraits g = gemm(), d = dir();
  EXPECT_TRUE(match("tile_m == 0 && stages == 0 && split_k == 0 && groups_per_block == 0", d));
  EXPECT_FALSE(match("tile_n >= 64", d));
  EXPECT_TRUE(match("block_h == 0 && block_w == 0 && per_thread == 0", g));
  EXPECT_TRUE(match("block_h == 8 && block_w == 16 && per_thread == 4 && vec == 4", d));
}

TEST(Filter, DerivedFields) {
  const KernelTraits g = gemm(), d = dir();
  EXPECT_TRUE(match("threads == 128", g));
  EXPECT_TRUE(match("threads == 256", d));  // 8 * (16 / 4) * 8 lanes
  EXPECT_TRUE(match("smem_bytes == " + std::to_string(smem_bytes(sm90(), g)), g));
  EXPECT_TRUE(match("smem_bytes >= 49152", g));  // at least 4 * (128 + 64) * 32 * 2
  EXPECT_TRUE(match("smem_bytes == 0", d));
  EXPECT_TRUE(match("warp_tile_m == 64 && warp_tile_n == 32", g));
  // 128*64/128 = 64 accumulators + (64 + 32) * 16 * 2 / 128 = 24 fragments
  // + 4 * (192 * 32 / (8 * 128) = 6 copies) + 28.
  EXPECT_TRUE(match("registers == 140", g));
}

void expect_error(const std::string& expr, int column, const std::string& what) {
  auto f = Filter::parse(expr);
  ASSERT_FALSE(f.ok()) << expr;
  EXPECT_EQ(f.status().code(), StatusCode::parse_error);
  const std::string& m = f.status().message();
  EXPECT_EQ(m.rfind("filter: ", 0), 0u) << m;
  EXPECT_NE(m.find("at column " + std::to_string(column)), std::string::npos) << expr << " -> " << m;
  EXPECT_NE(m.find(what), std::string::npos) << expr << " -> " << m;
}

TEST(Filter, SyntaxErrorsNameTheColumn) {
  expect_error("tile_n >= && stages == 4", 11, "expected a value");
  expect_error("tile_n >= ", 11, "expected a value");
  expect_error("", 1, "expected a value");
  expect_error("tile_n >= 64 &&", 16, "expected a value");
  expect_error("(tile_n >= 64", 14, "expected ')'");
  expect_error("tile_n >= 64)", 13, "unexpected ')'");
  expect_error("tile_n = 64", 8, "use '=='");
  expect_error("tile_n == 64 & stages == 4", 14, "use '&&'");
  expect_error("tile_n == 64 | stages == 4", 14, "use '||'");
  expect_error("tile_n == 6.4", 12, "unexpected character '.'");
  expect_error("tile_n 64", 8, "expected a comparison operator");
  expect_error("tile_n == 64 stages", 14, "unexpected 'stages'");
  expect_error("tile_n == 99999999999999999999", 11, "integer too large");
}

TEST(Filter, UnknownFieldsAndValues) {
  expect_error("tile_q >= 3", 1, "unknown field 'tile_q'");
  expect_error("3 <= tile_q", 6, "unknown field 'tile_q'");
  expect_error("tile_m == stages && tile_x == 1", 21, "unknown field 'tile_x'");
  expect_error("tile_m == fwd", 11, "unknown field 'fwd'");
  expect_error("bogus", 1, "unknown field 'bogus'");
  expect_error("family == gemm", 11, "unknown value 'gemm' for family");
  expect_error("split_mode == 2", 15, "split_mode takes a name");
  expect_error("direction < bwd_weight", 11, "operator '<' does not apply to direction");
  expect_error("dtype == direction", 10, "cannot compare dtype with direction");
  expect_error("family == tile_m", 11, "cannot compare family with tile_m");
}

// Parsing, evaluating and freeing recurse over the expression: the input
// cannot make them exhaust the stack (10,000 nested parentheses did).
TEST(Filter, DeepOrHugeExpressionsAreRefusedWithTheLimit) {
  const auto nested = [](int n, const char* open, const char* close) {
    std::string s;
    for (int i = 0; i < n; ++i) s += open;
    s += "stages == 4";
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  auto ok = Filter::parse(nested(60, "(", ")"));
  EXPECT_TRUE(ok.ok()) << ok.status().to_string();
  auto deep = Filter::parse(nested(65, "(", ")"));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nesting deeper than 64"), std::string::npos) << deep.status().to_string();
  auto nots = Filter::parse(nested(65, "!", ""));
  ASSERT_FALSE(nots.ok());
  EXPECT_NE(nots.status().message().find("nesting deeper than 64"), std::string::npos);
  auto huge = Filter::parse(nested(10000, "(", ")"));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("more than 4096 tokens"), std::string::npos) << huge.status().to_string();
  std::string chain = "stages == 4";
  for (int i = 0; i < 2000; ++i) chain += " && stages == 4";
  EXPECT_FALSE(Filter::parse(chain).ok());
}

TEST(Filter, KeepsItsText) {
  auto f = Filter::parse("stages == 4");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->text(), "stages == 4");
  EXPECT_EQ(Filter::field_names().size(), 28u);
}

}  // namespace
}  // namespace gconv
