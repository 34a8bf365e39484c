// Pool expansion: exact counts of small hand-checked configs, pruning rules,
// duplicates, config errors naming file and key, and the properties of the
// real pools (size, legality, no duplicates).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "pool/pool.hpp"
#include "pool_test_util.hpp"

namespace gconv {
namespace {

using testing::sm90;

// Group 0: 2 tile_m x 2 tile_n x 1 tile_k x 2 warps x 2 stages x 2 splits x
// 1 vec x 2 groups_per_block = 64 combinations.
//   - stages 6 is outside [2, 5]: 32 illegal.
//   - The other 32 are legal under sm90: warps 4x1 gives warp tiles of
//     16 (tile_m 64) or 32 rows (mma m 16) and 64/128 columns; the largest
//     register estimate is 128x128 g2 on 4x1: 128 acc + (32 + 128) * 16 * 2 / 128
//     = 40 fragments + 4 * ((2 * 128 + 128) * 32 / (8 * 128) = 12 copies) + 28
//     = 244 <= 255; g2 gives groups of 32 or 64 columns,
//     which the warps' 32..128 columns span or lie in; smem at most
//     3 * (2 * 128 + 128) * 32 * 2 = 73728.
//   - "groups_per_block > 1 && tile_n > 64" excludes tile_n 128 with g2:
//     2 tile_m x 2 warps x 2 splits = 8 excluded, so 24 kept.
// Group 1: one kernel equal to group 0's m128n128k32_w2x2_s3_sk1_v8_g1: a duplicate.
// Total: 65 combinations = 32 illegal + 8 excluded + 1 duplicate + 24 kept.
constexpr const char* kIgemmPool = R"({
  "family": "igemm", "direction": "fwd", "ndims": [2],
  "exclude": [{"if": "groups_per_block > 1 && tile_n > 64", "why": "test"}],
  "dtypes": {
    "bf16": [
      {"tile_m": [64, 128], "tile_n": [64, 128], "tile_k": [32], "warps": ["2x2", "4x1"],
       "stages": [3, 6], "split": ["1", "4p"], "vec": [8], "groups_per_block": [1, 2]},
      {"tile_m": [128], "tile_n": [128], "tile_k": [32], "warps": ["2x2"],
       "stages": [3], "split": ["1"], "vec": [8], "groups_per_block": [1]}
    ],
    "fp16": {"same_as": "bf16"}
  }
})";

TEST(PoolExpand, HandCountedIgemmPool) {
  auto config = parse_pool_config(kIgemmPool, "inline.json");
  ASSERT_TRUE(config.ok()) << config.status().to_string();
  ExpandStats st;
  ExpandOptions bf16;
  bf16.dtype = DType::bf16;
  auto kernels = expand_pool(sm90(), *config, bf16, &st);
  ASSERT_TRUE(kernels.ok());
  EXPECT_EQ(kernels->size(), 24u);
  EXPECT_EQ(st.combinations, 65);
  EXPECT_EQ(st.illegal, 32);
  EXPECT_EQ(st.illegal_by_rule["stages"], 32);
  EXPECT_EQ(st.excluded, 8);
  EXPECT_EQ(st.duplicates, 1);
  EXPECT_EQ(st.kept, 24);
  // Documented order: lists nest as tile_m, tile_n, tile_k, warps, stages, split, vec, gpb.
  EXPECT_EQ(kernel_name(kernels->front()), "igemm_fwd_bf16_2d_m64n64k32_w2x2_s3_sk1_v8_g1");
  EXPECT_EQ(kernel_name((*kernels)[1]), "igemm_fwd_bf16_2d_m64n64k32_w2x2_s3_sk1_v8_g2");
  EXPECT_EQ(kernel_name((*kernels)[2]), "igemm_fwd_bf16_2d_m64n64k32_w2x2_s3_sk4p_v8_g1");
  for (const KernelTraits& t : *kernels) {
    EXPECT_EQ(t.dtype, DType::bf16);
    EXPECT_FALSE(t.groups_per_block > 1 && t.tile_n > 64) << kernel_name(t);
  }

  // fp16 copies bf16's groups; without a dtype option both expand.
  ExpandStats both;
  auto all = expand_pool(sm90(), *config, {}, &both);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 48u);
  EXPECT_EQ(both.combinations, 130);
  ExpandOptions nd3;
  nd3.ndim = 3;
  EXPECT_TRUE(expand_pool(sm90(), *config, nd3)->empty());
}

// bwd_weight, ndims 1 and 2: 2 tiles x 2 per_thread x 2 vec x 2 deterministic
// = 16 combinations per ndim, 32 in all.
//   ndim 1: block_h 8 and 16 are not 1: all 16 illegal ("tile").
//   ndim 2: 16x16 r1 has 16 * 16 * 8 = 2048 threads: 4 illegal ("threads").
//     Register estimate = 2 * r * v + v + 40; 1024-thread blocks need <= 64:
//     8x16 r1 (1024 threads): v8 16 + 8 + 40 = 64 fits, v1 43;
//     8x16 r2 (512 threads): v8 80, v1 45;
//     16x16 r2 (1024 threads): v8 80 > 64: 2 illegal ("registers"), v1 45.
//     Legal: 5 shapes x 2 deterministic = 10 kept.
// The exclude rule of the group matches nothing legal (r4 is not listed).
constexpr const char* kDirectPool = R"({
  "family": "direct", "direction": "bwd_weight", "ndims": [1, 2],
  "dtypes": {
    "bf16": {"tile": ["8x16", "16x16"], "per_thread": [1, 2], "vec": [8, 1],
             "deterministic": [false, true],
             "exclude": [{"if": "per_thread == 4", "why": "test"}]}
  }
})";

TEST(PoolExpand, HandCountedDirectPool) {
  auto config = parse_pool_config(kDirectPool, "inline.json");
  ASSERT_TRUE(config.ok()) << config.status().to_string();
  ExpandStats st;
  auto kernels = expand_pool(sm90(), *config, {}, &st);
  ASSERT_TRUE(kernels.ok());
  EXPECT_EQ(st.combinations, 32);
  EXPECT_EQ(st.illegal, 22);
  EXPECT_EQ(st.illegal_by_rule["tile"], 16);
  EXPECT_EQ(st.illegal_by_rule["threads"], 4);
  EXPECT_EQ(st.illegal_by_rule["registers"], 2);
  EXPECT_EQ(st.excluded, 0);
  EXPECT_EQ(kernels->size(), 10u);
  std::set<std::string> names;
  for (const KernelTraits& t : *kernels) names.insert(kernel_name(t));
  EXPECT_EQ(names, (std::set<std::string>{
                       "direct_bwd_weight_bf16_2d_t8x16_r1_v8", "direct_bwd_weight_bf16_2d_t8x16_r1_v8_det",
                       "direct_bwd_weight_bf16_2d_t8x16_r1_v1", "direct_bwd_weight_bf16_2d_t8x16_r1_v1_det",
                       "direct_bwd_weight_bf16_2d_t8x16_r2_v8", "direct_bwd_weight_bf16_2d_t8x16_r2_v8_det",
                       "direct_bwd_weight_bf16_2d_t8x16_r2_v1", "direct_bwd_weight_bf16_2d_t8x16_r2_v1_det",
                       "direct_bwd_weight_bf16_2d_t16x16_r2_v1", "direct_bwd_weight_bf16_2d_t16x16_r2_v1_det"}));
}

void expect_config_error(const std::string& text, const std::string& key, const std::string& what) {
  auto c = parse_pool_config(text, "bad.json");
  ASSERT_FALSE(c.ok()) << text;
  EXPECT_EQ(c.status().code(), StatusCode::parse_error);
  const std::string& m = c.status().message();
  EXPECT_EQ(m.rfind("bad.json: ", 0), 0u) << m;
  EXPECT_NE(m.find("'" + key + "'"), std::string::npos) << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(PoolExpand, ConfigErrorsNameFileAndKey) {
  const std::string p = kIgemmPool;
  expect_config_error(replace(p, "\"tile_k\": [32]", "\"tile_kk\": [32]"), "dtypes.bf16[0].tile_kk", "unknown key");
  expect_config_error(replace(p, "\"tile_k\": [32], ", ""), "dtypes.bf16[0].tile_k", "missing key");
  expect_config_error(replace(p, "\"tile_m\": [64, 128]", "\"tile_m\": 64"), "dtypes.bf16[0].tile_m",
                      "expected a non-empty array of integers");
  expect_config_error(replace(p, "\"tile_m\": [64, 128]", "\"tile_m\": [64, \"128\"]"), "dtypes.bf16[0].tile_m[1]",
                      "expected an integer");
  expect_config_error(replace(p, "\"4p\"", "\"4x\""), "dtypes.bf16[0].split[1]", "\"4x\"");
  expect_config_error(replace(p, "\"4p\"", "\"1p\""), "dtypes.bf16[0].split[1]", "n >= 2");
  expect_config_error(replace(p, "\"4x1\"", "\"4-1\""), "dtypes.bf16[0].warps[1]", "AxB");
  expect_config_error(replace(p, "\"igemm\"", "\"gemm\""), "family", "\"igemm\", \"direct\", \"tinyc\" or \"pw\"");
  expect_config_error(replace(p, "\"fwd\"", "\"forward\""), "direction", "forward");
  expect_config_error(replace(p, "\"ndims\": [2]", "\"ndims\": [4]"), "ndims[0]", "1, 2 or 3");
  expect_config_error(replace(p, "\"bf16\": [", "\"bf8\": ["), "dtypes.bf8", "unknown key");
  expect_config_error(replace(p, "{\"same_as\": \"bf16\"}", "{\"same_as\": \"fp32\"}"), "dtypes.fp16.same_as",
                      "\"fp32\" is not a dtype");
  expect_config_error(replace(p, "tile_n > 64", "tile_n >> 64"), "exclude[0].if",
                      "filter: expected a value at column 33");
  expect_config_error(replace(p, "\"why\": \"test\"", "\"because\": \"test\""), "exclude[0].because", "unknown key");
  expect_config_error(replace(kDirectPool, "\"deterministic\": [false, true]", "\"deterministic\": [0, 1]"),
                      "dtypes.bf16.deterministic[0]", "true or false");
  expect_config_error(replace(kDirectPool, "\"per_thread\": [1, 2]", "\"stages\": [1, 2]"), "dtypes.bf16.stages",
                      "unknown key");
  auto broken = parse_pool_config("{\"family\": ", "broken.json");
  EXPECT_NE(broken.status().message().find("broken.json: invalid JSON"), std::string::npos);
}

// A configs folder of its own: two pool files whose kernels overlap.
TEST(PoolExpand, LoadPoolDeduplicatesAcrossFilesAndFollowsTheConfigDir) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gconv_pool_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "pools");
  fs::create_directories(dir / "arch");
  fs::copy_file(testing::source_configs() + "/arch/sm90.json", dir / "arch" / "sm90.json",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "pools" / "a.json") << kIgemmPool;
  std::ofstream(dir / "pools" / "b.json") << kIgemmPool;  // 24 more duplicates
  std::ofstream(dir / "pools" / "c.json") << kDirectPool;  // another direction
  std::ofstream(dir / "pools" / "notes.txt") << "not a pool";

  ExpandStats st;
  auto pool = load_pool(sm90(), Direction::fwd, DType::bf16, dir.string(), &st);
  ASSERT_TRUE(pool.ok()) << pool.status().to_string();
  EXPECT_EQ(pool->size(), 24u);
  EXPECT_EQ(st.duplicates, 1 + 25);  // b.json repeats a.json's 24 and its own duplicate
  EXPECT_EQ(st.combinations, 130);

  // An empty configs_dir means config_dir(), i.e. $GCONV_CONFIG_DIR.
  ASSERT_EQ(setenv("GCONV_CONFIG_DIR", dir.c_str(), 1), 0);
  auto via_env = load_pool(sm90(), Direction::bwd_weight, DType::bf16);
  EXPECT_TRUE(load_default_arch_rules().ok());
  ASSERT_EQ(unsetenv("GCONV_CONFIG_DIR"), 0);
  ASSERT_TRUE(via_env.ok()) << via_env.status().to_string();
  EXPECT_EQ(via_env->size(), 10u);

  // A broken file fails the load and is named.
  std::ofstream(dir / "pools" / "d.json") << "{\"family\": \"igemm\", \"direction\": \"fwd\"}";
  auto bad = load_pool(sm90(), Direction::fwd, DType::bf16, dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("d.json: missing key 'ndims'"), std::string::npos)
      << bad.status().message();
  fs::remove_all(dir);

  EXPECT_EQ(load_pool(sm90(), Direction::fwd, DType::bf16, dir.string()).status().code(), StatusCode::io_error);
}

// ---- the real pools ----------------------------------------------------------

TEST(RealPools, AtLeast150Bf16KernelsPerDirectionAndNdim) {
  for (Direction d : testing::kDirections) {
    auto pool = load_pool(sm90(), d, DType::bf16, testing::source_configs());
    ASSERT_TRUE(pool.ok()) << pool.status().to_string();
    std::map<int, int> per_ndim;
    for (const KernelTraits& t : *pool) ++per_ndim[t.ndim];
    for (int nd = 1; nd <= 3; ++nd) {
      EXPECT_GE(per_ndim[nd], 150) << to_string(d) << " " << nd << "d";
      // igemm + direct up to ~330 (+ 32-46 packed igemm kernels), wgmma 160
      // (fwd, 32 of them 96, 144 or 192 wide, 6 staged), 134 (bwd_data, 12 staged,
      // 8 192 wide) or 558 (bwd_weight, 68 of them cluster split-K, 15 of
      // 64/128 splits, 7 with two-block stages, 64 one-launch splits of the
      // vec 4 / 2 tiles, 30 deep rings of 6 / 8 stages, 20 staged, 34 192
      // wide (10 staged), 15 serial splits off the powers of two; 558 with
      // the 54 packed kernels): a pool past 940 a dimension costs more to
      // sweep and build than it is likely to win (the vec 4 / 2 and staged
      // kernels only apply to channel counts that 8 does not divide, the TMA
      // kernels to C/G a multiple of 64, the packed ones to grouped layers of
      // 8-32 channels a group, so they cost sweep time only there).
      EXPECT_LE(per_ndim[nd], 940) << to_string(d) << " " << nd << "d";
    }
  }
}

TEST(RealPools, EveryKernelIsLegalAndDistinct) {
  const auto& all = testing::all_pool_kernels();
  std::set<std::string> names;
  for (const KernelTraits& t : all) {
    std::string why;
    EXPECT_TRUE(is_legal(sm90(), t, &why)) << kernel_name(t) << ": " << why;
    EXPECT_TRUE(names.insert(kernel_name(t)).second) << "duplicate " << kernel_name(t);
  }
}

TEST(RealPools, CoverEveryDirectionDtypeFamilyAndNdim) {
  std::set<std::tuple<Direction, DType, Family, int>> seen;
  bool det = false, vec1 = false, split_parallel = false, split_serial = false, gpb = false;
  int max_bwd_weight_split = 0;
  for (const KernelTraits& t : testing::all_pool_kernels()) {
    seen.insert({t.direction, t.dtype, t.family, t.ndim});
    det |= t.deterministic;
    vec1 |= t.vec == 1;
    split_parallel |= t.split_mode == SplitKMode::parallel;
    split_serial |= t.split_mode == SplitKMode::serial;
    gpb |= t.groups_per_block > 1;
    if (t.direction == Direction::bwd_weight) max_bwd_weight_split = std::max(max_bwd_weight_split, t.split_k);
  }
  // igemm and direct: every direction x dtype; wgmma: fwd x 3 dtypes,
  // bwd_data and bwd_weight x bf16/fp16 (tf32 wgmma reads K-major operands
  // only); tinyc: bwd_data x bf16/fp16, 2D and 3D, and bwd_weight x
  // bf16/fp16, 2D; pw: fwd and bwd_data x bf16/fp16 x 1D/2D/3D.
  EXPECT_EQ(seen.size(), (3u * 3u * 2u + 3u + 2u + 2u) * 3u + 4u + 2u + 2u * 2u * 3u);
  EXPECT_TRUE(det && vec1 && split_parallel && split_serial && gpb);
  EXPECT_GE(max_bwd_weight_split, 64);
}

}  // namespace
}  // namespace gconv
