// Patch folding (problem/fold.hpp): which problems fold, what they fold to,
// and that the folded problem is the same linear map on the same memory:
// the CPU reference of the folded problem on the original operands' bytes
// equals the reference of the original, in every direction and ndim.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gconv/reference.hpp"
#include "problem/fold.hpp"

namespace gconv {
namespace {

// A patch embedding: C channels, filter and stride sx along W (and sy along
// H), no padding, W a multiple of sx.
Problem patchify(Direction d, int ndim, int64_t c, int64_t k, int64_t sx, int64_t sy = 1) {
  Problem p;
  p.ndim = ndim;
  p.direction = d;
  p.dtype = DType::fp32;
  p.n = 2;
  p.c = c;
  p.k = k;
  p.in = {ndim == 3 ? 3 : 1, ndim >= 2 ? 3 * sy : 1, 5 * sx};
  p.filter = {ndim == 3 ? 2 : 1, ndim >= 2 ? sy : 1, sx};
  p.stride = {1, ndim >= 2 ? sy : 1, sx};
  return p;
}

TEST(Fold, PatchEmbeddingsFoldWIntoChannels) {
  const Problem p = patchify(Direction::fwd, 2, 3, 8, 4, 4);  // a ConvNeXt-like stem
  ASSERT_TRUE(p.validate().ok()) << p.validate().message();
  ASSERT_TRUE(foldable(p));
  const Problem f = fold_patches(p);
  EXPECT_EQ(f.c, 12);
  EXPECT_EQ(f.k, 8);
  EXPECT_EQ(f.in[2], 5);
  EXPECT_EQ(f.filter[2], 1);
  EXPECT_EQ(f.stride[2], 1);
  EXPECT_EQ(f.in[1], p.in[1]);  // H keeps its filter and stride
  EXPECT_EQ(f.filter[1], 4);
  EXPECT_EQ(f.stride[1], 4);
  EXPECT_TRUE(f.validate().ok());
  // Same tensors, element for element; the output does not change shape.
  const ReferenceOperands a = reference_operands(p), b = reference_operands(f);
  EXPECT_EQ(a.a, b.a);
  EXPECT_EQ(a.b, b.b);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(p.out(1), f.out(1));
  EXPECT_EQ(p.out(2), f.out(2));
  // Idempotent: the folded problem has filter width 1.
  EXPECT_FALSE(foldable(f));
  EXPECT_EQ(fold_patches(f).to_spec(), f.to_spec());
}

TEST(Fold, OnlyExactTilingsOfWFold) {
  const Problem base = patchify(Direction::bwd_data, 2, 3, 8, 4, 4);
  ASSERT_TRUE(foldable(base));
  Problem p = base;
  p.g = 1, p.c = 8, p.k = 8;
  EXPECT_TRUE(foldable(p));
  p.g = 2;  // groups would interleave: never
  EXPECT_FALSE(foldable(p));
  p = base;
  p.pad_lo[2] = 1, p.pad_hi[2] = 1;  // padding along W
  p.in[2] = 18;
  EXPECT_FALSE(foldable(p));
  p = base;
  p.in[2] = 22;  // not a multiple of the stride: the last columns are never read
  EXPECT_FALSE(foldable(p));
  p = base;
  p.filter[2] = 3;  // overlapping windows
  EXPECT_FALSE(foldable(p));
  p = base;
  p.stride[2] = 1, p.filter[2] = 1;  // nothing to fold
  EXPECT_FALSE(foldable(p));
  p = base;
  p.dilation[2] = 2;
  EXPECT_FALSE(foldable(p));
  EXPECT_EQ(fold_patches(p).to_spec(), p.to_spec());  // unchanged when it does not fold
  // H padding, strides and filters are free.
  p = base;
  p.pad_lo[1] = 1, p.pad_hi[1] = 2;
  EXPECT_TRUE(foldable(p));
}

std::vector<float> random_values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(size_t(n), 0.0f);
  for (float& x : v) x = dist(rng);
  return v;
}

TEST(Fold, FoldedProblemComputesTheSameOnTheSameMemory) {
  struct Case {
    int ndim;
    int64_t c, k, sx, sy;
  };
  const Case cases[] = {{2, 3, 8, 4, 4}, {2, 3, 5, 16, 16}, {2, 6, 7, 2, 2}, {1, 3, 4, 4, 1},
                        {3, 3, 6, 2, 2}, {2, 5, 3, 3, 1}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
      Problem p = patchify(d, c.ndim, c.c, c.k, c.sx, c.sy);
      p.pad_lo[1] = c.ndim >= 2 ? 1 : 0;  // H padding does not matter
      ASSERT_TRUE(foldable(p)) << p.to_spec();
      const Problem f = fold_patches(p);
      SCOPED_TRACE(p.to_spec() + " -> " + f.to_spec());
      const ReferenceOperands ops = reference_operands(p);
      const std::vector<float> a = random_values(ops.a, seed++), b = random_values(ops.b, seed++);
      std::vector<float> want(size_t(ops.out), -7.0f), got(size_t(ops.out), 7.0f);
      ASSERT_TRUE(reference_conv(p, a.data(), b.data(), want.data(), 1).ok());
      ASSERT_TRUE(reference_conv(f, a.data(), b.data(), got.data(), 1).ok());
      for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::abs(want[i]))) << i;
    }
  }
}

}  // namespace
}  // namespace gconv
