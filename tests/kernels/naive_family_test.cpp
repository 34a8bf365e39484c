// Host tests of the naive family: it accepts every valid problem whose
// direction, dtype and dimension its traits name, and nothing else.
#include <gtest/gtest.h>

#include <string>

#include "kernels/naive/naive.hpp"

namespace gconv {
namespace {

Problem dense_3d() {
  Problem p;
  p.ndim = 3;
  p.direction = Direction::bwd_weight;
  p.dtype = DType::fp32;
  p.n = 2;
  p.c = 256;  // G = 1, Cg = 256: far outside the direct family
  p.k = 96;
  p.in = {5, 9, 11};
  p.filter = {3, 3, 3};
  p.stride = {2, 1, 3};
  p.pad_lo = {1, 0, 2};
  p.pad_hi = {0, 2, 1};
  p.dilation = {1, 2, 1};
  return p;
}

TEST(NaiveFamily, TraitsAndName) {
  Problem p = dense_3d();
  const KernelTraits t = naive_traits(p);
  EXPECT_EQ(t.family, Family::direct);
  EXPECT_EQ(t.direction, Direction::bwd_weight);
  EXPECT_EQ(t.dtype, DType::fp32);
  EXPECT_EQ(t.ndim, 3);
  EXPECT_EQ(naive_kernel_name(t), "naive_bwd_weight_fp32_3d");
  EXPECT_NE(kernel_name(t), naive_kernel_name(t));
}

TEST(NaiveFamily, ImplementsAnyValidProblemOfItsKind) {
  Problem p = dense_3d();
  ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    for (DType dt : {DType::bf16, DType::fp16, DType::fp32}) {
      p.direction = d;
      p.dtype = dt;
      std::string why;
      EXPECT_TRUE(naive_family().can_implement(naive_traits(p), p, &why)) << why;
      EXPECT_EQ(naive_family().workspace_bytes(naive_traits(p), p), 0u);
    }
}

TEST(NaiveFamily, RejectsOtherKindsAndInvalidProblems) {
  Problem p = dense_3d();
  KernelTraits t = naive_traits(p);
  Problem other = p;
  other.direction = Direction::fwd;
  std::string why;
  EXPECT_FALSE(naive_family().can_implement(t, other, &why));
  EXPECT_NE(why.find("naive_bwd_weight_fp32_3d"), std::string::npos);
  other = p;
  other.dtype = DType::bf16;
  EXPECT_FALSE(naive_family().can_implement(t, other, nullptr));
  Problem invalid = p;
  invalid.g = 3;  // 256 % 3 != 0
  EXPECT_FALSE(naive_family().can_implement(t, invalid, &why));
  EXPECT_NE(why.find("not divisible"), std::string::npos);
}

TEST(NaiveFamily, InstanceSourceNamesTheProblemKind) {
  Problem p = dense_3d();
  p.direction = Direction::bwd_data;
  p.dtype = DType::fp16;
  p.ndim = 2;
  const KernelTraits t = naive_traits(p);
  const std::string src = naive_family().instance_source(t);
  EXPECT_NE(src.find("#include \"naive/naive.cuh\""), std::string::npos);
  EXPECT_NE(src.find("gconv::naive::run<1, 2, 1>(p)"), std::string::npos);
  EXPECT_EQ(naive_family().entry_points(t), std::vector<std::string>{"gconv_main"});
}

TEST(NaiveFamily, LaunchChecksBeforeTouchingTheDevice) {
  Problem p = dense_3d();
  float dummy[4];
  ConvArgs args{dummy, dummy, dummy, nullptr, 0};
  EXPECT_EQ(naive_family().launch(naive_traits(p), LoadedKernel{}, p, args, nullptr).code(), StatusCode::internal);
  Problem other = p;
  other.dtype = DType::bf16;
  EXPECT_EQ(naive_family().launch(naive_traits(p), LoadedKernel{}, other, args, nullptr).code(),
            StatusCode::not_supported);
}

}  // namespace
}  // namespace gconv
