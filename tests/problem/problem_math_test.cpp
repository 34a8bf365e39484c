// Derived quantities of Problem against numbers computed by hand.
#include <gtest/gtest.h>

#include "gconv/problem.hpp"

namespace gconv {
namespace {

Problem resnet50_3x3() {
  Problem p;
  p.ndim = 2;
  p.n = 32;
  p.c = p.k = 256;
  p.in = {1, 56, 56};
  p.filter = {1, 3, 3};
  p.pad_lo = p.pad_hi = {0, 1, 1};
  return p;
}

TEST(ProblemMath, ResNet50Layer) {
  Problem p = resnet50_3x3();
  ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
  EXPECT_EQ(p.out(1), 56);
  EXPECT_EQ(p.out(2), 56);
  EXPECT_EQ(p.out_volume(), 3136);
  // 2 * 32 * 256 * 3136 * 256 * 9
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 32 * 256 * 3136 * 256 * 9);
  GemmShape f = p.gemm();
  EXPECT_EQ(f.m, 32 * 3136);
  EXPECT_EQ(f.n, 256);
  EXPECT_EQ(f.k, 2304);
  p.direction = Direction::bwd_data;
  GemmShape d = p.gemm();
  EXPECT_EQ(d.m, 32 * 3136);
  EXPECT_EQ(d.n, 256);
  EXPECT_EQ(d.k, 2304);
  p.direction = Direction::bwd_weight;
  GemmShape w = p.gemm();
  EXPECT_EQ(w.m, 256);
  EXPECT_EQ(w.n, 2304);
  EXPECT_EQ(w.k, 32 * 3136);
  // x and y: 32*56*56*256 each; w: 256*9*256; bf16 = 2 bytes.
  EXPECT_EQ(p.min_bytes(), (2 * 32 * 56 * 56 * 256 + 256 * 9 * 256) * 2);
  EXPECT_FALSE(p.is_depthwise());
  EXPECT_FALSE(p.is_pointwise());
}

TEST(ProblemMath, StridedDilatedOutputSize) {
  Problem p;
  p.ndim = 1;
  p.c = p.k = 4;
  p.in = {1, 1, 17};
  p.filter = {1, 1, 3};
  p.stride = {1, 1, 2};
  p.dilation = {1, 1, 2};
  p.pad_lo = {0, 0, 0};
  p.pad_hi = {0, 0, 1};
  // effective filter 5, padded input 18: (18 - 5) / 2 + 1 = 7
  ASSERT_TRUE(p.validate().ok());
  EXPECT_EQ(p.out(2), 7);
  EXPECT_EQ(p.out(0), 1);
  EXPECT_EQ(p.out(1), 1);
}

TEST(ProblemMath, DepthwiseAndPointwiseFlags) {
  Problem p;
  p.c = p.k = p.g = 32;
  p.in = {1, 14, 14};
  EXPECT_TRUE(p.is_depthwise());
  EXPECT_TRUE(p.is_pointwise());
  p.k = 64;  // channel multiplier 2: still depthwise (one input channel per group)
  EXPECT_TRUE(p.is_depthwise());
  p.c = 64;  // two input channels per group: grouped, not depthwise
  EXPECT_FALSE(p.is_depthwise());
  EXPECT_TRUE(p.is_grouped());
}

TEST(ProblemMath, TensorDescriptors) {
  Problem p = resnet50_3x3();
  p.ndim = 3;
  p.in = {4, 8, 8};
  p.filter = {3, 3, 3};
  p.pad_lo = p.pad_hi = {1, 1, 1};
  p.g = 2;
  TensorDesc x = p.x_desc();
  ASSERT_EQ(x.dims, (std::vector<std::string>{"N", "D", "H", "W", "C"}));
  EXPECT_EQ(x.shape, (std::vector<int64_t>{32, 4, 8, 8, 256}));
  EXPECT_EQ(x.strides, (std::vector<int64_t>{4 * 8 * 8 * 256, 8 * 8 * 256, 8 * 256, 256, 1}));
  TensorDesc w = p.w_desc();
  EXPECT_EQ(w.shape, (std::vector<int64_t>{256, 3, 3, 3, 128}));
  TensorDesc y = p.y_desc();
  EXPECT_EQ(y.dims, (std::vector<std::string>{"N", "Do", "Ho", "Wo", "K"}));
  EXPECT_EQ(y.shape, (std::vector<int64_t>{32, 4, 8, 8, 256}));
}

}  // namespace
}  // namespace gconv
