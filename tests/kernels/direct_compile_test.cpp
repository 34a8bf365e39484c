// Every direction x dtype x dimension of the direct and naive families
// compiles under NVRTC for sm_90a (no GPU needed), and the image defines the
// entry points the family names. To stay within ~20 compiles on a 2-core CI
// machine, each family covers the 9 direction x dtype pairs once with the
// dimensions rotated, so each direction also meets 1D, 2D and 3D.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "compile_test_util.hpp"
#include "jit/compiler.hpp"
#include "kernels/family.hpp"
#include "kernels/naive/naive.hpp"

namespace gconv {
namespace {

struct Instance {
  std::string name;
  std::string source;
  std::vector<std::string> entries;
};

KernelTraits direct_traits(Direction d, DType t, int ndim, bool det) {
  KernelTraits k;
  k.family = Family::direct;
  k.direction = d;
  k.dtype = t;
  k.ndim = ndim;
  k.block_h = ndim == 1 ? 1 : 8;
  k.block_w = ndim == 1 ? 64 : 16;
  k.per_thread = 4;
  k.vec = t == DType::fp32 ? 4 : 8;
  k.deterministic = det;
  return k;
}

std::vector<Instance> instances() {
  std::vector<Instance> out;
  const Direction dirs[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_weight};
  const DType types[] = {DType::bf16, DType::fp16, DType::fp32};
  for (int d = 0; d < 3; ++d)
    for (int t = 0; t < 3; ++t) {
      const int ndim = 1 + (d + t) % 3;
      // bwd_weight: bf16 and fp32 deterministic, fp16 with atomics.
      const KernelTraits k = direct_traits(dirs[d], types[t], ndim, dirs[d] == Direction::bwd_weight && t != 1);
      out.push_back({kernel_name(k), direct_family().instance_source(k), direct_family().entry_points(k)});
      Problem p;
      p.direction = dirs[d];
      p.dtype = types[t];
      p.ndim = 1 + (d + t + 1) % 3;
      const KernelTraits n = naive_traits(p);
      out.push_back({naive_kernel_name(n), naive_family().instance_source(n), naive_family().entry_points(n)});
    }
  return out;
}

TEST(DirectCompile, EveryDirectionDtypeAndDimensionCompilesForSm90a) {
  const std::vector<Instance> all = instances();
  ASSERT_EQ(all.size(), 18u);
  std::vector<std::string> sources, names;
  for (const auto& i : all) {
    sources.push_back(i.source);
    names.push_back(i.name);
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, false, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();

  for (size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(all[i].name);
    ASSERT_TRUE(results[i].ok()) << results[i].status().message();
    EXPECT_EQ(results[i]->arch, "sm_90a");
    for (const std::string& e : all[i].entries) EXPECT_TRUE(testing::image_contains(results[i]->image, e)) << e;
  }
}

}  // namespace
}  // namespace gconv
