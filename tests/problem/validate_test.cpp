// Problem::validate(): every rule of the header's contract fails with
// invalid_problem and a message that names the offending field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "gconv/problem.hpp"

namespace gconv {
namespace {

using ::testing::HasSubstr;

// A valid 2D problem to break one field at a time.
Problem base() {
  auto p = Problem::parse_spec("fwd_bf16_n2c8k16g2_h10w12_y3x3_s1_p1_dil1");
  EXPECT_TRUE(p.ok());
  return *p;
}

struct Case {
  const char* name;
  std::function<void(Problem&)> mutate;
  const char* must_contain;  // the field named in the message
};

TEST(Validate, BaseProblemIsValid) { EXPECT_TRUE(base().validate().ok()) << base().validate().to_string(); }

TEST(Validate, EveryRuleNamesItsField) {
  const int64_t big = int64_t{1} << 40;
  const Case cases[] = {
      {"ndim 0", [](Problem& p) { p.ndim = 0; }, "ndim"},
      {"ndim 4", [](Problem& p) { p.ndim = 4; }, "ndim"},
      {"N 0", [](Problem& p) { p.n = 0; }, "N (0)"},
      {"N negative", [](Problem& p) { p.n = -3; }, "N (-3)"},
      {"C 0", [](Problem& p) { p.c = 0; }, "C (0)"},
      {"K 0", [](Problem& p) { p.k = 0; }, "K (0)"},
      {"G 0", [](Problem& p) { p.g = 0; }, "G (0)"},
      {"C not divisible by G", [](Problem& p) { p.c = 7; }, "C (7) is not divisible by G (2)"},
      {"K not divisible by G", [](Problem& p) { p.k = 9; }, "K (9) is not divisible by G (2)"},
      {"input h 0", [](Problem& p) { p.in[1] = 0; }, "input size h"},
      {"input w negative", [](Problem& p) { p.in[2] = -1; }, "input size w"},
      {"filter y 0", [](Problem& p) { p.filter[1] = 0; }, "filter size y"},
      {"stride 0", [](Problem& p) { p.stride[2] = 0; }, "stride_w"},
      {"dilation 0", [](Problem& p) { p.dilation[1] = 0; }, "dilation_h"},
      {"negative pad lo", [](Problem& p) { p.pad_lo[1] = -1; }, "pad_lo_h"},
      {"negative pad hi", [](Problem& p) { p.pad_hi[2] = -2; }, "pad_hi_w"},
      // Output < 1 happens exactly when the dilated filter exceeds the padded input.
      {"filter larger than padded input", [](Problem& p) { p.filter[2] = 15; }, "dilated filter x (15)"},
      {"dilated filter larger than padded input",
       [](Problem& p) {
         p.dilation[1] = 6;  // 6 * 2 + 1 = 13 > 10 + 2
       },
       "dilated filter y (13)"},
      {"unused slot not neutral", [](Problem& p) { p.in[0] = 2; }, "slot d"},
      {"unused slot stride", [](Problem& p) { p.stride[0] = 2; }, "slot d"},
      {"unknown direction value", [](Problem& p) { p.direction = static_cast<Direction>(7); }, "direction"},
      {"unknown dtype value", [](Problem& p) { p.dtype = static_cast<DType>(9); }, "dtype"},
      {"64-bit overflow of x",
       [&](Problem& p) {
         p.n = big;
         p.c = big;
         p.k = 2;
         p.g = 1;
       },
       "input x"},
      {"size beyond 2^31", [](Problem& p) { p.in[2] = (int64_t{1} << 31) + 5; }, "exceeds 2^31"},
  };
  for (const Case& c : cases) {
    Problem p = base();
    c.mutate(p);
    Status s = p.validate();
    EXPECT_EQ(s.code(), StatusCode::invalid_problem) << c.name << ": " << s.to_string();
    EXPECT_THAT(s.message(), HasSubstr(c.must_contain)) << c.name;
  }
}

TEST(Validate, TensorElementLimitIsInclusive) {
  // A 1D problem whose input has exactly kMaxTensorElements elements is fine;
  // one more element is not, and the message names the tensor.
  Problem p;
  p.ndim = 1;
  p.c = p.k = 1;
  p.in = {1, 1, kMaxTensorElements};
  EXPECT_TRUE(p.validate().ok()) << p.validate().to_string();
  p.in[2] = kMaxTensorElements + 1;
  Status s = p.validate();
  EXPECT_EQ(s.code(), StatusCode::invalid_problem);
  EXPECT_THAT(s.message(), HasSubstr("input x"));
  EXPECT_THAT(s.message(), HasSubstr("2147483648 elements"));

  // The weight: K * filter * C/G over the limit.
  Problem w = *Problem::parse_spec("n1c65536k65536_w1");
  Status sw = w.validate();
  EXPECT_EQ(sw.code(), StatusCode::invalid_problem);
  EXPECT_THAT(sw.message(), HasSubstr("weight w"));

  // The output alone over the limit: many output channels from a tiny input.
  Problem y = *Problem::parse_spec("n65536c1k65536_w1");
  Status sy = y.validate();
  EXPECT_EQ(sy.code(), StatusCode::invalid_problem);
  EXPECT_THAT(sy.message(), HasSubstr("output y"));
}

TEST(Validate, UnknownDirectionAndDtypeNames) {
  auto d = parse_direction("backward");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("direction"));
  EXPECT_THAT(d.status().message(), HasSubstr("backward"));
  auto t = parse_dtype("fp8");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("dtype"));
  EXPECT_THAT(t.status().message(), HasSubstr("fp8"));
  for (Direction x : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
    auto r = parse_direction(to_string(x));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, x);
  }
  for (DType x : {DType::bf16, DType::fp16, DType::fp32}) {
    auto r = parse_dtype(to_string(x));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, x);
  }
}

TEST(Validate, EdgeCasesThatAreValid) {
  // Filter exactly as large as the padded input: output 1.
  Problem p = *Problem::parse_spec("c4k4_h3w3_y5x5_p1");
  EXPECT_TRUE(p.validate().ok()) << p.validate().to_string();
  EXPECT_EQ(p.out(1), 1);
  EXPECT_EQ(p.out(2), 1);
  // Depthwise, 3D, asymmetric pads, stride larger than the filter.
  Problem q = *Problem::parse_spec("n3c6k12g6_d5h7w9_z2y3x1_s3,1,4_p0:1,2,0:3_dil2,1,1");
  EXPECT_TRUE(q.validate().ok()) << q.validate().to_string();
}

}  // namespace
}  // namespace gconv
