// The arch rules file and is_legal: values read from configs/arch/sm90.json,
// the smem and register formulas, every rule rejecting with its reason, and
// config errors naming the file and key.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kernels/igemm/igemm_plan.hpp"
#include "pool/arch_rules.hpp"
#include "pool_test_util.hpp"

namespace gconv {
namespace {

using testing::sm90;

KernelTraits igemm(int tm, int tn, int tk, int wm, int wn, int stages) {
  KernelTraits t;
  t.family = Family::igemm;
  t.tile_m = tm, t.tile_n = tn, t.tile_k = tk;
  t.warps_m = wm, t.warps_n = wn;
  t.stages = stages;
  t.vec = 8;
  return t;
}

KernelTraits direct(int bh, int bw, int r, int vec) {
  KernelTraits t;
  t.family = Family::direct;
  t.block_h = bh, t.block_w = bw;
  t.per_thread = r;
  t.vec = vec;
  return t;
}

TEST(ArchRules, ReadsTheSm90File) {
  const ArchRules& r = sm90();
  EXPECT_EQ(r.arch, "sm90");
  EXPECT_EQ(r.smem_per_block_bytes, 232448);
  EXPECT_EQ(r.regs_per_thread_max, 255);
  EXPECT_EQ(r.regs_per_sm, 65536);
  EXPECT_EQ(r.max_threads_per_block, 1024);
  EXPECT_EQ(r.sm_count_hint, 132);
  EXPECT_EQ(r.max_vector_bytes, 16);
  EXPECT_EQ(r.mma_for(DType::bf16).k, 16);
  EXPECT_EQ(r.mma_for(DType::fp32).k, 8);
  EXPECT_EQ(r.igemm.warp_layouts.size(), 8u);
  EXPECT_EQ(r.igemm.stages_min, 2);
  EXPECT_EQ(r.igemm.stages_max, 5);
  EXPECT_EQ(r.tile_k_for(DType::fp32), (std::vector<int>{8, 16, 32}));
}

TEST(ArchRules, DefaultLoaderFollowsGconvConfigDir) {
  ASSERT_EQ(setenv("GCONV_CONFIG_DIR", "/nonexistent/gconv-configs", 1), 0);
  EXPECT_EQ(config_dir(), "/nonexistent/gconv-configs");
  auto r = load_default_arch_rules();
  EXPECT_EQ(r.status().code(), StatusCode::io_error);
  EXPECT_NE(r.status().message().find("/nonexistent/gconv-configs/arch/sm90.json"), std::string::npos);
  ASSERT_EQ(unsetenv("GCONV_CONFIG_DIR"), 0);
  EXPECT_EQ(config_dir(), testing::source_configs());
  EXPECT_TRUE(load_default_arch_rules().ok());
}

TEST(ArchRules, SmemIsTheKernelsOwnSize) {
  // bf16 fwd (both tiles K-major, unpadded): stages * (tile_m + tile_n) * tile_k * 2.
  EXPECT_EQ(smem_bytes(sm90(), igemm(128, 128, 32, 2, 2, 4)), 4 * 256 * 32 * 2);
  for (Direction d : testing::kDirections) {
    for (DType dt : testing::kDTypes) {
      KernelTraits t = igemm(64, 32, 32, 2, 1, 3);
      t.direction = d;
      t.dtype = dt;
      t.vec = 4;
      EXPECT_EQ(smem_bytes(sm90(), t), static_cast<int64_t>(igemm::smem_bytes(t)));
      // Stages multiply the size; every extra group adds an A tile.
      KernelTraits more = t;
      more.stages = 4;
      EXPECT_EQ(smem_bytes(sm90(), more) * 3, smem_bytes(sm90(), t) * 4);
      more = t;
      more.groups_per_block = 2;
      EXPECT_GE(smem_bytes(sm90(), more) - smem_bytes(sm90(), t), int64_t{3} * 64 * 32 * dtype_bytes(dt));
    }
  }
  EXPECT_EQ(smem_bytes(sm90(), direct(8, 16, 4, 8)), 0);
}

TEST(ArchRules, RegisterEstimate) {
  // 128x128 over 4 warps: 128 accumulators; one k-step of fragments
  // (64 + 64) * 16 * 2 / 128 = 32; 256 rows * 32 / (8 * 128 threads) = 8
  // copies per stage at 4 registers; + 28 overhead.
  EXPECT_EQ(register_estimate(sm90(), igemm(128, 128, 32, 2, 2, 4)), 128 + 32 + 8 * 4 + 28);
  // fp32 (tf32, k-step 8): 64x64 over 4 warps: 32 + (32 + 32) * 8 * 4 / 128 = 16
  // + 128 * 16 / (4 * 128) = 4 copies + 28.
  KernelTraits f = igemm(64, 64, 16, 2, 2, 3);
  f.dtype = DType::fp32;
  f.vec = 4;
  EXPECT_EQ(register_estimate(sm90(), f), 32 + 16 + 4 * 4 + 28);
  // 4 groups on 2 warps: 32 + 16 + (4 * 64 + 32) * 32 / (8 * 64) = 18 copies + 28.
  KernelTraits g = igemm(64, 32, 32, 2, 1, 3);
  g.groups_per_block = 4;
  EXPECT_EQ(register_estimate(sm90(), g), 32 + 16 + 18 * 4 + 28);
  // The same with vec 1 needs 144 copies: far over 255.
  g.vec = 1;
  testing::expect_illegal(g, "registers");
  // direct r4 v8: 32 accumulators + 32 inputs + 8 tap weights + 40.
  EXPECT_EQ(register_estimate(sm90(), direct(8, 16, 4, 8)), 32 + 32 + 8 + 40);
}

TEST(ArchRules, LegalExamples) {
  std::string why;
  EXPECT_TRUE(is_legal(sm90(), igemm(128, 128, 32, 2, 2, 4), &why)) << why;
  EXPECT_TRUE(is_legal(sm90(), igemm(256, 128, 64, 2, 4, 4), &why)) << why;
  EXPECT_TRUE(is_legal(sm90(), direct(8, 16, 4, 8), &why)) << why;
  KernelTraits det = direct(8, 16, 2, 8);
  det.direction = Direction::bwd_weight;
  det.deterministic = true;
  EXPECT_TRUE(is_legal(sm90(), det, &why)) << why;
}

TEST(ArchRules, RejectsWithTheReason) {
  // bf16 fwd 256x128x64 in 5 stages: 5 * 384 * 64 * 2 = 245760 bytes > 232448.
  testing::expect_illegal(igemm(256, 128, 64, 2, 4, 5), "smem", "245760");
  testing::expect_illegal(igemm(128, 128, 32, 3, 1, 4), "warps", "3x1");
  testing::expect_illegal(igemm(128, 128, 32, 8, 1, 4), "warps", "8x1");
  // warp tile m = 32 / 4 = 8 is not a multiple of the mma m (16).
  testing::expect_illegal(igemm(32, 64, 32, 4, 1, 4), "warps", "mma m");
  testing::expect_illegal(igemm(64, 8, 32, 1, 2, 4), "warps", "mma n");
  // 256x256 over 4 warps: 512 accumulators per thread.
  testing::expect_illegal(igemm(256, 256, 32, 2, 2, 3), "registers");
  testing::expect_illegal(igemm(128, 128, 8, 2, 2, 4), "tile", "tile_k 8");
  testing::expect_illegal(igemm(96, 128, 32, 2, 2, 4), "tile", "tile_m 96");
  testing::expect_illegal(igemm(128, 128, 32, 2, 2, 6), "stages");
  testing::expect_illegal(igemm(128, 128, 32, 2, 2, 1), "stages");
  KernelTraits t = igemm(128, 128, 32, 2, 2, 4);
  t.vec = 16;
  testing::expect_illegal(t, "vec");
  t.vec = 3;
  testing::expect_illegal(t, "vec");
  t = igemm(128, 128, 32, 2, 2, 4);
  t.dtype = DType::fp32;
  t.vec = 8;  // 32 bytes
  testing::expect_illegal(t, "vec");
  t.vec = 4;
  t.tile_k = 64;  // not a fp32 tile_k
  testing::expect_illegal(t, "tile");
  t = igemm(128, 128, 32, 2, 2, 4);
  t.split_k = 4;  // mode none needs 1
  testing::expect_illegal(t, "split");
  t.split_mode = SplitKMode::parallel;
  t.split_k = 1;
  testing::expect_illegal(t, "split");
  t.split_k = 256;
  testing::expect_illegal(t, "split");
  t = igemm(128, 128, 32, 2, 2, 4);
  t.groups_per_block = 3;
  testing::expect_illegal(t, "groups_per_block");
  t.groups_per_block = 16;  // the kernel packs at most 8
  testing::expect_illegal(t, "groups_per_block");
  t = igemm(64, 8, 32, 2, 1, 4);
  t.groups_per_block = 2;  // 4 columns per group: less than one mma n
  testing::expect_illegal(t, "groups_per_block", "mma n");
  t = igemm(128, 128, 32, 2, 2, 4);
  t.ndim = 4;
  testing::expect_illegal(t, "ndim");
  t = igemm(128, 128, 32, 2, 2, 4);
  t.block_w = 32;  // a direct field on an igemm kernel
  testing::expect_illegal(t, "canonical");

  testing::expect_illegal(direct(8, 16, 3, 8), "per_thread");
  testing::expect_illegal(direct(8, 12, 4, 8), "tile");
  testing::expect_illegal(direct(16, 16, 1, 1), "threads", "2048");
  // 16x16 r2: 1024 threads x (32 + 8 + 40 = 80) registers > 65536.
  testing::expect_illegal(direct(16, 16, 2, 8), "registers", "regs_per_sm");
  EXPECT_TRUE(is_legal(sm90(), direct(16, 16, 2, 4)));  // 1024 x (16 + 4 + 40) fits
  KernelTraits d = direct(4, 16, 4, 8);
  d.ndim = 1;
  testing::expect_illegal(d, "tile", "1D");
  d = direct(8, 16, 4, 8);
  d.deterministic = true;  // fwd
  testing::expect_illegal(d, "deterministic");
  d = direct(8, 16, 4, 8);
  d.stages = 4;  // an igemm field on a direct kernel
  testing::expect_illegal(d, "canonical");

  // The row stream (_tma) of register-window kernels: fwd and stride-1
  // bwd_data, 1D/2D, every tap's weights in registers.
  KernelTraits w = direct(8, 32, 8, 8);
  w.win_fx = 3, w.win_sx = 1, w.tma = true;
  std::string why;
  EXPECT_TRUE(is_legal(sm90(), w, &why)) << why;
  EXPECT_EQ(register_estimate(sm90(), w), (9 + 8 + 1) * 8 + 40);
  KernelTraits x = w;
  x.win_fx = 7;  // 49 taps x 8 channels
  testing::expect_illegal(x, "window tma", "160");
  x = w;
  x.ndim = 3;
  testing::expect_illegal(x, "window tma", "2D");
  x = w;
  x.direction = Direction::bwd_weight;
  testing::expect_illegal(x, "window tma");
  x = w;
  x.direction = Direction::bwd_data;
  x.win_sx = 2;
  testing::expect_illegal(x, "window tma", "stride-1");
  x = direct(8, 16, 4, 8);
  x.tma = true;  // a tile kernel
  testing::expect_illegal(x, "canonical");
}

// Zero or negative fields are illegal with a reason, never a crash (division by zero).
TEST(ArchRules, DegenerateTraitsAreRejected) {
  int KernelTraits::*fields[] = {&KernelTraits::tile_m,     &KernelTraits::tile_n,  &KernelTraits::tile_k,
                                 &KernelTraits::warps_m,    &KernelTraits::warps_n, &KernelTraits::stages,
                                 &KernelTraits::split_k,    &KernelTraits::vec,     &KernelTraits::groups_per_block,
                                 &KernelTraits::block_h,    &KernelTraits::block_w, &KernelTraits::per_thread,
                                 &KernelTraits::ndim};
  for (KernelTraits base : {igemm(128, 128, 32, 2, 2, 4), direct(8, 16, 4, 8)}) {
    for (auto f : fields) {
      for (int v : {0, -1}) {
        KernelTraits t = base;
        t.*f = v;
        std::string why;
        EXPECT_FALSE(is_legal(sm90(), t, &why)) << kernel_name(t);
        EXPECT_FALSE(why.empty());
        (void)register_estimate(sm90(), t);
      }
    }
  }
}

std::string sm90_text() {
  std::ifstream in(testing::source_configs() + "/arch/sm90.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_config_error(const nlohmann::json& j, const std::string& key, const std::string& what) {
  auto r = parse_arch_rules(j.dump(), "test.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::parse_error);
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind("test.json: ", 0), 0u) << m;
  EXPECT_NE(m.find("'" + key + "'"), std::string::npos) << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
}

TEST(ArchRules, ConfigErrorsNameFileAndKey) {
  const nlohmann::json base = nlohmann::json::parse(sm90_text());
  ASSERT_TRUE(parse_arch_rules(base.dump(), "test.json").ok());

  nlohmann::json j = base;
  j["limits"]["smem_per_block"] = 1;
  expect_config_error(j, "limits.smem_per_block", "unknown key");
  j = base;
  j["igemm"]["tile_m"] = "64";
  expect_config_error(j, "igemm.tile_m", "expected a non-empty array of integers");
  j = base;
  j["igemm"]["tile_k"]["fp32"][1] = 1.5;
  expect_config_error(j, "igemm.tile_k.fp32[1]", "expected an integer");
  j = base;
  j["igemm"]["warp_layouts"][0] = "2by2";
  expect_config_error(j, "igemm.warp_layouts[0]", "AxB");
  j = base;
  j["direct"].erase("per_thread");
  expect_config_error(j, "direct.per_thread", "missing key");
  j = base;
  j["igemm"]["registers"]["fragment_k_steps"] = true;
  expect_config_error(j, "igemm.registers.fragment_k_steps", "expected an integer");

  auto bad = parse_arch_rules("{\"arch\": ", "broken.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("broken.json: invalid JSON"), std::string::npos);
  EXPECT_EQ(load_arch_rules("/nonexistent/sm90.json").status().code(), StatusCode::io_error);
}

}  // namespace
}  // namespace gconv
