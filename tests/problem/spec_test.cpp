// Problem specs: canonical printing, parsing to the right fields, round trips
// and error positions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "gconv/problem.hpp"
#include "random_problem.hpp"

namespace gconv {
namespace {

using ::testing::HasSubstr;

Problem parse_ok(std::string_view spec) {
  auto r = Problem::parse_spec(spec);
  EXPECT_TRUE(r.ok()) << spec << ": " << r.status().to_string();
  return r.ok() ? *r : Problem{};
}

std::string parse_err(std::string_view spec) {
  auto r = Problem::parse_spec(spec);
  EXPECT_FALSE(r.ok()) << spec << " parsed but should not";
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::parse_error) << spec << ": " << r.status().to_string();
  return r.status().message();
}

TEST(Spec, CanonicalFormOfA2DGroupedProblem) {
  Problem p;
  p.ndim = 2;
  p.n = 32;
  p.c = 256;
  p.k = 256;
  p.g = 32;
  p.in = {1, 56, 56};
  p.filter = {1, 3, 3};
  p.pad_lo = {0, 1, 1};
  p.pad_hi = {0, 1, 1};
  EXPECT_EQ(p.to_spec(), "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1");
  EXPECT_EQ(parse_ok(p.to_spec()), p);
}

TEST(Spec, CanonicalFormPrintsListsOnlyWhenNeeded) {
  Problem p;
  p.ndim = 3;
  p.direction = Direction::bwd_weight;
  p.dtype = DType::fp16;
  p.n = 8;
  p.c = 64;
  p.k = 64;
  p.in = {16, 56, 56};
  p.filter = {3, 3, 3};
  p.stride = {1, 2, 2};
  p.pad_lo = {1, 0, 1};
  p.pad_hi = {1, 1, 1};
  EXPECT_EQ(p.to_spec(), "bwd_weight_fp16_n8c64k64g1_d16h56w56_z3y3x3_s1,2,2_p1,0:1,1_dil1");
  // A uniform asymmetric pad is one lo:hi entry.
  Problem q;
  q.ndim = 2;
  q.c = q.k = q.g = 32;
  q.in = {1, 112, 112};
  q.filter = {1, 3, 3};
  q.stride = {1, 2, 2};
  q.pad_lo = {0, 0, 0};
  q.pad_hi = {0, 1, 1};
  EXPECT_EQ(q.to_spec(), "fwd_bf16_n1c32k32g32_h112w112_y3x3_s2_p0:1_dil1");
}

TEST(Spec, HandWrittenSpecsParseToTheExpectedFields) {
  // Defaults: fwd, bf16, n 1, g 1, filter 1, stride 1, pad 0, dilation 1.
  Problem a = parse_ok("c16k32_w100");
  EXPECT_EQ(a.ndim, 1);
  EXPECT_EQ(a.direction, Direction::fwd);
  EXPECT_EQ(a.dtype, DType::bf16);
  EXPECT_EQ(a.n, 1);
  EXPECT_EQ(a.c, 16);
  EXPECT_EQ(a.k, 32);
  EXPECT_EQ(a.g, 1);
  EXPECT_EQ(a.in, (std::array<int64_t, 3>{1, 1, 100}));
  EXPECT_EQ(a.filter, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(a.stride, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(a.pad_lo, (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(a.dilation, (std::array<int64_t, 3>{1, 1, 1}));

  // Separators are optional; a filter key alone sets ndim.
  Problem b = parse_ok("bwd_data_n4c8k8y3x5h9w11s2,1p1,0:2dil1,2");
  EXPECT_EQ(b.direction, Direction::bwd_data);
  EXPECT_EQ(b.dtype, DType::bf16);
  EXPECT_EQ(b.ndim, 2);
  EXPECT_EQ(b.in, (std::array<int64_t, 3>{1, 9, 11}));
  EXPECT_EQ(b.filter, (std::array<int64_t, 3>{1, 3, 5}));
  EXPECT_EQ(b.stride, (std::array<int64_t, 3>{1, 2, 1}));
  EXPECT_EQ(b.pad_lo, (std::array<int64_t, 3>{0, 1, 0}));
  EXPECT_EQ(b.pad_hi, (std::array<int64_t, 3>{0, 1, 2}));
  EXPECT_EQ(b.dilation, (std::array<int64_t, 3>{1, 1, 2}));

  // dtype without direction; z makes it 3D; one value fills every dim.
  Problem c = parse_ok("fp32_n2c6k9g3_d4h5w6_z3_s2_p1:0");
  EXPECT_EQ(c.direction, Direction::fwd);
  EXPECT_EQ(c.dtype, DType::fp32);
  EXPECT_EQ(c.ndim, 3);
  EXPECT_EQ(c.g, 3);
  EXPECT_EQ(c.in, (std::array<int64_t, 3>{4, 5, 6}));
  EXPECT_EQ(c.filter, (std::array<int64_t, 3>{3, 1, 1}));
  EXPECT_EQ(c.stride, (std::array<int64_t, 3>{2, 2, 2}));
  EXPECT_EQ(c.pad_lo, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(c.pad_hi, (std::array<int64_t, 3>{0, 0, 0}));

  Problem d = parse_ok("bwd_weight_fp16_n1c1k1_h3w3");
  EXPECT_EQ(d.direction, Direction::bwd_weight);
  EXPECT_EQ(d.dtype, DType::fp16);
  EXPECT_EQ(d.ndim, 2);

  // Largest int64 is accepted by the parser (validate() rejects it later).
  Problem e = parse_ok("n9223372036854775807c1k1w1");
  EXPECT_EQ(e.n, INT64_MAX);
  EXPECT_FALSE(e.validate().ok());
}

TEST(Spec, RandomProblemsRoundTrip) {
  std::mt19937_64 rng(12345);
  int asymmetric = 0, per_dim_stride = 0;
  for (int i = 0; i < 3000; ++i) {
    const Problem p = testing::random_valid_problem(rng);
    const std::string s = p.to_spec();
    auto q = Problem::parse_spec(s);
    ASSERT_TRUE(q.ok()) << s << ": " << q.status().to_string();
    ASSERT_EQ(*q, p) << s;
    ASSERT_EQ(q->to_spec(), s);
    for (int j = 0; j < 3; ++j) {
      asymmetric += p.pad_lo[j] != p.pad_hi[j];
      per_dim_stride += p.stride[j] != p.stride[2];
    }
  }
  // The generator really covers the interesting cases.
  EXPECT_GT(asymmetric, 500);
  EXPECT_GT(per_dim_stride, 300);
}

TEST(Spec, ErrorsNameTheTokenAndPosition) {
  EXPECT_EQ(parse_err("n32c256q3k1_h5w5"), "unknown key 'q' at position 7");
  EXPECT_EQ(parse_err("n1c1k1_y3x3_w5"), "missing input size h");
  EXPECT_EQ(parse_err("n1c1k1_z3_h5w5"), "missing input size d");
  EXPECT_EQ(parse_err("n1c1k1"), "missing input size w");
  EXPECT_EQ(parse_err("n1k1_w5"), "missing input channels c");
  EXPECT_EQ(parse_err("n1c1_w5"), "missing output channels k");
  EXPECT_EQ(parse_err("c1k1_h5w5_s1,2,1"), "stride list has 3 entries for a 2D problem at position 11");
  EXPECT_EQ(parse_err("c1k1_d5h5w5_p1,1"), "padding list has 2 entries for a 3D problem at position 13");
  EXPECT_EQ(parse_err("c1k1_w5_dil1,1"), "dilation list has 2 entries for a 1D problem at position 11");
  EXPECT_EQ(parse_err("c1k1h5h5w5"), "duplicate key 'h' at position 6");
  EXPECT_EQ(parse_err("c1k1_w5_s1:2"), "'s' does not take lo:hi pairs at position 10");
  EXPECT_EQ(parse_err("c1k1_w5_p1:"), "empty number in 'p' at position 11");
  EXPECT_EQ(parse_err("c1k1_w5_p1,,1"), "empty list entry in 'p' at position 11");
  EXPECT_EQ(parse_err("c1k1_w5_p1:2:3"), "unexpected ':' in the value of 'p' at position 12");
  EXPECT_EQ(parse_err("c1k_w5"), "key 'k' has no value at position 2");
  EXPECT_EQ(parse_err("c1k1__w5"), "unexpected '_' at position 5");
  EXPECT_EQ(parse_err("c1k1_w5_"), "unexpected '_' at position 7");
  EXPECT_EQ(parse_err("c1k1 w5"), "unexpected character ' ' at position 4");
  EXPECT_EQ(parse_err("c1k1_W5"), "unexpected character 'W' at position 5");
  EXPECT_EQ(parse_err("c1k-1_w5"), "unexpected character '-' at position 3");
  EXPECT_EQ(parse_err("5c1k1_w5"), "value without a key at position 0");
  EXPECT_EQ(parse_err("n99999999999999999999c1k1_w5"),
            "value of 'n' (99999999999999999999) overflows int64 at position 1");
  EXPECT_EQ(parse_err(""), "empty spec");
  EXPECT_EQ(parse_err("fwd_"), "no size tokens at position 4");
  // A prefix must be followed by '_'; unknown names are unknown keys.
  EXPECT_EQ(parse_err("bf16c1k1_w5"), "unknown key 'bf' at position 0");
  EXPECT_EQ(parse_err("bwd_c1k1_w5"), "unknown key 'bwd' at position 0");
  EXPECT_EQ(parse_err("fp64_c1k1_w5"), "unknown key 'fp' at position 0");
  // Direction after dtype is not in the grammar.
  EXPECT_THAT(parse_err("bf16_fwd_c1k1_w5"), HasSubstr("unknown key 'fwd'"));
}

TEST(Spec, ParseDoesNotValidateSemantics) {
  // Syntactically fine, semantically wrong: parse succeeds, validate() fails.
  Problem p = parse_ok("n1c7k8g2_h5w5");
  EXPECT_EQ(p.validate().code(), StatusCode::invalid_problem);
  Problem q = parse_ok("n0c1k1_w5");
  EXPECT_EQ(q.validate().code(), StatusCode::invalid_problem);
}

}  // namespace
}  // namespace gconv
