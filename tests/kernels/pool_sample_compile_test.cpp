// NVRTC compiles a random sample of every pool (each direction x dtype, both
// families) for sm_90a, without a GPU: the pool holds no kernel that fails to
// build. (The GPU run compiles every bf16 kernel; this keeps CI honest about
// the rest at a cost of a few compiles.)
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "pool/arch_rules.hpp"
#include "pool/pool.hpp"
#include "runtime/instance.hpp"

namespace gconv {
namespace {

TEST(PoolSampleCompile, RandomKernelsOfEveryPoolCompileForSm90a) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  std::mt19937_64 rng(std::random_device{}());
  std::vector<KernelTraits> sample;
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
      auto pool = load_pool(*rules, d, t);
      ASSERT_TRUE(pool.ok()) << pool.status().to_string();
      for (Family f : {Family::igemm, Family::direct}) {
        std::vector<KernelTraits> of_family;
        for (const auto& k : *pool)
          if (k.family == f) of_family.push_back(k);
        ASSERT_FALSE(of_family.empty()) << to_string(d) << " " << to_string(t) << " " << to_string(f);
        sample.push_back(of_family[rng() % of_family.size()]);
      }
    }
  std::vector<Status> built = prebuild(sample, 2, "sm_90a");
  ASSERT_EQ(built.size(), sample.size());
  for (size_t i = 0; i < sample.size(); ++i)
    EXPECT_TRUE(built[i].ok()) << kernel_name(sample[i]) << ": " << built[i].to_string();
}

}  // namespace
}  // namespace gconv
