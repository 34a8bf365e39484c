// Every direction x dtype x dimension of the igemm family compiles under
// NVRTC for sm_90a from the embedded headers (no GPU needed), defines the
// entry points the family names, and does not spill registers. The 27
// instances rotate tile shapes, warp grids, stages, split-K modes, vector
// widths and groups per block; three more cover odd corners (an odd number
// of n8 atoms per warp, 2-byte copies with one k-step per tile, a warp
// spanning four groups), four packed ones (several groups as one
// block-diagonal GEMM, every direction). 34 compiles, two at a time (the CI
// machine has 2 cores).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "compile_test_util.hpp"
#include "jit/compiler.hpp"
#include "kernels/family.hpp"
#include "kernels/igemm/igemm_plan.hpp"

namespace gconv {
namespace {

struct Shape {
  int tm, tn, tk, wm, wn, stages;
};

KernelTraits make(Direction d, DType t, int ndim, Shape s, SplitKMode mode, int split, int vec, int gpb) {
  KernelTraits k;
  k.family = Family::igemm;
  k.direction = d;
  k.dtype = t;
  k.ndim = ndim;
  k.tile_m = s.tm;
  k.tile_n = s.tn;
  k.tile_k = s.tk;
  k.warps_m = s.wm;
  k.warps_n = s.wn;
  k.stages = s.stages;
  k.split_mode = mode;
  k.split_k = split;
  k.vec = vec;
  k.groups_per_block = gpb;
  return k;
}

std::vector<KernelTraits> instances() {
  const Shape shapes[] = {{128, 128, 32, 2, 2, 3}, {64, 64, 32, 2, 2, 4}, {128, 64, 64, 2, 2, 2},
                          {64, 128, 32, 2, 4, 5},  {256, 128, 32, 4, 2, 2}};
  const Direction dirs[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_weight};
  const DType types[] = {DType::bf16, DType::fp16, DType::fp32};
  std::vector<KernelTraits> out;
  for (int d = 0; d < 3; ++d)
    for (int t = 0; t < 3; ++t)
      for (int nd = 1; nd <= 3; ++nd) {
        const int i = d * 9 + t * 3 + nd - 1;
        const SplitKMode mode = i % 3 == 0 ? SplitKMode::none : i % 3 == 1 ? SplitKMode::parallel : SplitKMode::serial;
        const int split = mode == SplitKMode::none ? 1 : mode == SplitKMode::parallel ? 4 : 3;
        const int vec = (types[t] == DType::fp32 ? 4 : 8) / (i % 4 == 0 ? 2 : 1);
        out.push_back(make(dirs[d], types[t], nd, shapes[i % 5], mode, split, vec, i % 7 == 3 ? 2 : 1));
      }
  out.push_back(make(Direction::fwd, DType::bf16, 2, {64, 24, 32, 4, 1, 3}, SplitKMode::none, 1, 8, 1));
  out.push_back(make(Direction::bwd_data, DType::bf16, 2, {64, 32, 16, 2, 1, 3}, SplitKMode::none, 1, 1, 1));
  out.push_back(make(Direction::fwd, DType::fp16, 2, {64, 128, 16, 2, 2, 4}, SplitKMode::none, 1, 8, 8));
  // Packed (block-diagonal groups): fwd 2D bf16, bwd_data 3D bf16, bwd_data 1D fp32.
  KernelTraits pk = make(Direction::fwd, DType::bf16, 2, {128, 16, 32, 4, 1, 4}, SplitKMode::none, 1, 4, 4);
  pk.packed = true;
  out.push_back(pk);
  pk = make(Direction::bwd_data, DType::bf16, 3, {256, 32, 16, 4, 1, 4}, SplitKMode::none, 1, 8, 2);
  pk.packed = true;
  out.push_back(pk);
  pk = make(Direction::bwd_data, DType::fp32, 1, {64, 32, 16, 2, 1, 3}, SplitKMode::none, 1, 2, 8);
  pk.packed = true;
  out.push_back(pk);
  pk = make(Direction::bwd_weight, DType::fp16, 2, {32, 64, 64, 1, 2, 3}, SplitKMode::serial, 8, 8, 4);
  pk.packed = true;
  out.push_back(pk);
  // Realigned dy (K/G off a multiple of vec): bwd_data 3D bf16 with serial
  // split-K, bwd_weight 2D bf16, bwd_data 1D fp32.
  KernelTraits ra = make(Direction::bwd_data, DType::bf16, 3, {64, 128, 32, 2, 2, 4}, SplitKMode::serial, 4, 8, 1);
  ra.realign = true;
  out.push_back(ra);
  ra = make(Direction::bwd_weight, DType::bf16, 2, {128, 64, 32, 2, 2, 4}, SplitKMode::none, 1, 8, 1);
  ra.realign = true;
  out.push_back(ra);
  ra = make(Direction::bwd_data, DType::fp32, 1, {64, 64, 16, 2, 2, 3}, SplitKMode::none, 1, 4, 1);
  ra.realign = true;
  out.push_back(ra);
  return out;
}

TEST(IgemmCompile, EveryDirectionDtypeAndDimensionCompilesForSm90aWithoutSpills) {
  const std::vector<KernelTraits> all = instances();
  ASSERT_EQ(all.size(), 37u);
  for (const auto& t : all) {
    std::string why;
    ASSERT_TRUE(igemm::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
  }
  std::vector<std::string> sources, names;
  for (const auto& t : all) {
    sources.push_back(igemm_family().instance_source(t));
    names.push_back(kernel_name(t));
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);  // ptxas reports spills into the log
  ASSERT_TRUE(setup.ok()) << setup.to_string();

  for (size_t i = 0; i < all.size(); ++i)
    testing::expect_built_without_spills(results[i], names[i], igemm_family().entry_points(all[i]));
}

}  // namespace
}  // namespace gconv
