// wgmma kernels in the learned selector's inputs: their own kernel classes
// (after igemm's, whose ids the shipped model's candidates were chosen with)
// and their feature rows (the igemm trait columns, both family flags 0,
// docs/features.md).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "heuristic/candidates.hpp"
#include "heuristic/features.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "perf/device_info.hpp"
#include "pool/pool.hpp"

namespace gconv::heuristic {
namespace {

KernelTraits gemm(Family f, int tm, int tn, int wm, int wn, SplitKMode mode = SplitKMode::none, int split = 1,
                  int vec = 8) {
  KernelTraits t;
  t.family = f;
  t.tile_m = tm, t.tile_n = tn, t.tile_k = 64;
  t.warps_m = wm, t.warps_n = wn;
  t.stages = 4;
  t.split_mode = mode, t.split_k = split;
  t.vec = vec;
  return t;
}

TEST(WgmmaClasses, FollowIgemmsAndKeepItsIds) {
  // igemm ids are what they were before wgmma existed: 1 + (split x 2 + large) x 5 + vec index.
  EXPECT_EQ(kernel_class(gemm(Family::igemm, 128, 128, 2, 2)), 1 + 1 * 5 + 3);
  EXPECT_EQ(kernel_class(gemm(Family::igemm, 64, 64, 2, 2, SplitKMode::serial, 4, 2)), 1 + 4 * 5 + 1);
  // wgmma: the same split x area x vec scheme after the 30 igemm classes.
  EXPECT_EQ(kernel_class(gemm(Family::wgmma, 128, 128, 1, 1)), 31 + 1 * 5 + 3);
  EXPECT_EQ(kernel_class(gemm(Family::wgmma, 64, 64, 1, 1, SplitKMode::parallel, 8, 4)), 31 + 2 * 5 + 2);

  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
    auto pool = load_pool(*rules, d, DType::bf16);
    ASSERT_TRUE(pool.ok());
    for (const KernelTraits& t : *pool) {
      const int c = kernel_class(t);
      if (t.family == Family::wgmma && t.realign) {
        EXPECT_EQ(c, 91) << kernel_name(t);  // realigned wgmma kernels: one class, after igemm's
      } else if (t.family == Family::wgmma && t.packed) {
        EXPECT_EQ(c, 93) << kernel_name(t);  // packed wgmma kernels: one class, after pw's
      } else if (t.family == Family::wgmma) {
        EXPECT_GE(c, 31) << kernel_name(t);
        // Cluster split-K classes come after the other wgmma classes.
        EXPECT_LT(c, t.split_mode == SplitKMode::cluster ? 71 : 61) << kernel_name(t);
        if (t.split_mode == SplitKMode::cluster) EXPECT_GE(c, 61) << kernel_name(t);
      } else if (t.family == Family::tinyc) {
        EXPECT_EQ(c, 71) << kernel_name(t);  // one class, after the cluster split-K classes
      } else if (t.family == Family::direct && (t.win_fx > 0 || t.deterministic)) {
        // The deterministic direct kernels: a class after tinyc; the register-window kernels a class per
        // vector width (vec 8 before the deterministic class, the other widths after it).
        // The row-stream window kernels (_tma): one class after those.
        if (t.win_fx == 0) {
          EXPECT_EQ(c, 73) << kernel_name(t);
        } else if (t.tma) {
          EXPECT_EQ(c, 79) << kernel_name(t);
        } else {
          EXPECT_EQ(c, t.vec == 8 ? 72 : t.vec == 4 ? 76 : t.vec == 2 ? 75 : 74) << kernel_name(t);
        }
      } else if (t.family == Family::direct && t.vec != 8) {
        // The other direct tile kernels: vec 8 in class 0, the narrower widths a class each (after the stream's).
        EXPECT_EQ(c, t.vec == 4 ? 82 : t.vec == 2 ? 81 : 80) << kernel_name(t);
      } else if (t.packed) {
        // Packed igemm kernels: a class per vector width, after the direct tile kernels'.
        EXPECT_EQ(c, t.vec == 8 ? 88 : t.vec == 4 ? 87 : t.vec == 2 ? 86 : 85) << kernel_name(t);
      } else if (t.realign) {
        EXPECT_EQ(c, 90) << kernel_name(t);  // realigned igemm kernels: one class, after the packed ones
      } else if (t.family == Family::pw) {
        EXPECT_EQ(c, 92) << kernel_name(t);  // pointwise streaming GEMM: one class, after the realigned wgmma
      } else {
        EXPECT_LT(c, 31) << kernel_name(t);
      }
    }
  }
}

int feature(const std::string& name) {
  const auto& table = feature_table();
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].name == name) return int(i);
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

TEST(WgmmaFeatures, AreTheIgemmTraitColumnsWithBothFamilyFlagsZero) {
  auto dev = query_device("sm_90a");
  ASSERT_TRUE(dev.ok()) << dev.status().to_string();
  ASSERT_NE(dev->rules, nullptr);
  const GpuProps g = gpu_props_of(*dev);
  auto p = Problem::parse_spec("fwd_bf16_n32c256k256_h56w56_y3x3_p1");
  ASSERT_TRUE(p.ok());
  KernelTraits w = gemm(Family::wgmma, 256, 128, 2, 1, SplitKMode::parallel, 2);
  KernelTraits i = gemm(Family::igemm, 256, 128, 2, 1, SplitKMode::parallel, 2);
  const size_t nf = static_cast<size_t>(num_features());
  std::vector<float> fw(nf), fi(nf);
  compute_features(*p, w, g, *dev, fw.data());
  compute_features(*p, i, g, *dev, fi.data());
  EXPECT_EQ(fw[feature("k_family_igemm")], 0.0f);
  EXPECT_EQ(fw[feature("k_family_direct")], 0.0f);
  EXPECT_EQ(fi[feature("k_family_igemm")], 1.0f);
  EXPECT_EQ(fw[feature("k_tile_m")], 256.0f);
  EXPECT_EQ(fw[feature("k_tile_n")], 128.0f);
  EXPECT_EQ(fw[feature("k_tile_k")], 64.0f);
  EXPECT_EQ(fw[feature("k_warps_m")], 2.0f);
  EXPECT_EQ(fw[feature("k_warps_n")], 1.0f);
  EXPECT_EQ(fw[feature("k_warp_tile_m")], 128.0f);
  EXPECT_EQ(fw[feature("k_stages")], 4.0f);
  EXPECT_EQ(fw[feature("k_split_k")], 2.0f);
  EXPECT_EQ(fw[feature("k_split_parallel")], 1.0f);
  EXPECT_EQ(fw[feature("k_groups_per_block")], 1.0f);
  EXPECT_EQ(fw[feature("k_threads")], 384.0f);
  EXPECT_FLOAT_EQ(fw[feature("k_log_smem")], float(std::log2(1.0 + double(wgmma::smem_bytes(w)))));
  // The tiling terms are the igemm ones: same tile, same grid.
  for (const char* name : {"x_log_m_tiles", "x_log_n_tiles", "x_log_k_iters", "x_waste_m", "x_useful_fraction",
                           "x_log_blocks", "x_log_l2_bytes", "x_log_workspace", "x_launches"})
    EXPECT_EQ(fw[feature(name)], fi[feature(name)]) << name;
  // The analytic terms are wgmma's own (faster on this compute-bound problem).
  EXPECT_LT(fw[feature("a_log_compute_us")], fi[feature("a_log_compute_us")]);
  for (float v : fw) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace gconv::heuristic
