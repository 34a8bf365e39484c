// The pool and the kernel families must agree: every pool kernel is one the
// family's own host rules accept, and the shared-memory size the pool checks
// is the one the igemm kernel allocates. A change on either side that breaks
// this shows up here, not as a dead registry entry.
#include <string>

#include <gtest/gtest.h>

#include "kernels/direct/direct_plan.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "pool_test_util.hpp"

namespace gconv {
namespace {

using testing::sm90;

TEST(PoolVsKernels, IgemmPoolKernelsPassTheFamilyRulesWithTheSameSmem) {
  int n = 0;
  for (const KernelTraits& t : testing::all_pool_kernels()) {
    if (t.family != Family::igemm) continue;
    ++n;
    std::string why;
    EXPECT_TRUE(igemm::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
    EXPECT_EQ(smem_bytes(sm90(), t), static_cast<int64_t>(igemm::smem_bytes(t))) << kernel_name(t);
  }
  EXPECT_GT(n, 1000);
}

// A depthwise 3x3 (3x3x3 in 3D, 3 in 1D) problem with 64 channels, stride 1,
// 'same' padding (a register-window kernel's own filter width and W stride):
// every direct kernel of the pool must plan it.
Problem depthwise(const KernelTraits& t) {
  Problem p;
  p.ndim = t.ndim;
  p.direction = t.direction;
  p.dtype = t.dtype;
  p.n = 2;
  p.c = p.k = p.g = 64;
  const int first = 3 - t.ndim;
  for (int i = first; i < 3; ++i) {
    p.in[i] = t.ndim == 1 ? 64 : t.ndim == 2 ? 28 : 12;
    p.filter[i] = 3;
    p.pad_lo[i] = p.pad_hi[i] = 1;
  }
  if (t.win_fx > 0) {  // a register-window kernel: its filter width and W stride
    p.filter[2] = t.win_fx;
    p.stride[2] = t.win_sx;
    p.pad_lo[2] = p.pad_hi[2] = t.win_fx / 2;
  }
  if (t.tma && t.ndim == 2 && t.win_fx < 3) {  // the row stream holds filters up to win_fx x win_fx
    p.filter[1] = t.win_fx;
    p.pad_lo[1] = p.pad_hi[1] = t.win_fx / 2;
  }
  return p;
}

TEST(PoolVsKernels, DirectPoolKernelsPlanADepthwiseProblem) {
  int n = 0;
  for (const KernelTraits& t : testing::all_pool_kernels()) {
    if (t.family != Family::direct) continue;
    ++n;
    Problem p = depthwise(t);
    ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
    auto plan = plan_direct(t, p);
    ASSERT_TRUE(plan.ok()) << kernel_name(t) << ": " << plan.status().to_string();
    if (t.win_fx > 0) {  // lanes x items per block: at most the traits' threads
      EXPECT_LE(plan->threads, t.threads()) << kernel_name(t);
      EXPECT_GT(plan->threads, t.threads() / 2) << kernel_name(t);
    } else {
      EXPECT_EQ(plan->threads, t.threads()) << kernel_name(t);
    }
  }
  EXPECT_GT(n, 300);
}

}  // namespace
}  // namespace gconv
