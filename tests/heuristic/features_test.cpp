// The selector's features: distinct kernels get distinct vectors on every
// pool, every entry is finite, the layout table and its schema id are
// consistent, GpuProps survive their JSON, and a few features mean what
// their formula says.
#include "heuristic/features.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../problem/random_problem.hpp"
#include "kernels/family.hpp"
#include "perf/analytic.hpp"
#include "perf/device_info.hpp"
#include "pool/pool.hpp"

namespace gconv::heuristic {
namespace {

constexpr Direction kDirections[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_weight};
constexpr DType kDTypes[] = {DType::bf16, DType::fp16, DType::fp32};

// The no-GPU device of the CI machines: the sm90 config estimates.
const DeviceInfo& device() {
  static const DeviceInfo d = [] {
    auto r = query_device("sm_90a");
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : DeviceInfo{};
  }();
  return d;
}

const GpuProps& props() {
  static const GpuProps g = gpu_props_of(device());
  return g;
}

// Pools by (direction, dtype), loaded once.
const std::vector<KernelTraits>& pool(Direction dir, DType dt) {
  static std::map<std::pair<Direction, DType>, std::vector<KernelTraits>> pools;
  auto it = pools.find({dir, dt});
  if (it != pools.end()) return it->second;
  std::vector<KernelTraits> kernels;
  if (device().rules) {
    auto r = load_pool(*device().rules, dir, dt, std::string(GCONV_SOURCE_DIR) + "/configs");
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (r.ok()) kernels = std::move(r).value();
  }
  return pools.emplace(std::make_pair(dir, dt), std::move(kernels)).first->second;
}

int index_of(const std::string& name) {
  const auto& table = feature_table();
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].name == name) return int(i);
  ADD_FAILURE() << "no feature named " << name;
  return 0;
}

std::vector<float> features(const Problem& p, const KernelTraits& t) {
  std::vector<float> v(num_features());
  compute_features(p, t, props(), device(), v.data());
  return v;
}

bool implements(const KernelTraits& t, const Problem& p) {
  return t.ndim == p.ndim && family_of(t).can_implement(t, p, nullptr);
}

// A problem of `ndim` spatial dims, each of size `size`, cubic filter.
Problem make(Direction dir, DType dt, int ndim, int64_t n, int64_t c, int64_t k, int64_t g, int64_t size,
             int64_t filter, int64_t stride, int64_t pad) {
  Problem p;
  p.direction = dir;
  p.dtype = dt;
  p.ndim = ndim;
  p.n = n, p.c = c, p.k = k, p.g = g;
  for (int i = p.first_slot(); i < 3; ++i) {
    p.in[i] = size;
    p.filter[i] = filter;
    p.stride[i] = stride;
    p.pad_lo[i] = p.pad_hi[i] = pad;
  }
  return p;
}

// Representative shapes per ndim: dense, grouped, depthwise, strided, near-
// depthwise, odd channels, and a long reduction with few tiles (split-K).
std::vector<Problem> representative(Direction dir, DType dt, int ndim) {
  const int64_t size = ndim == 1 ? 96 : ndim == 2 ? 28 : 10;
  std::vector<Problem> out = {
      make(dir, dt, ndim, 4, 64, 64, 1, size, 3, 1, 1),      // dense
      make(dir, dt, ndim, 4, 128, 128, 8, size, 3, 1, 1),    // grouped, C/G = 16
      make(dir, dt, ndim, 4, 256, 256, 32, size, 1, 1, 0),   // grouped pointwise, C/G = 8
      make(dir, dt, ndim, 4, 64, 64, 64, size, 3, 1, 1),     // depthwise
      make(dir, dt, ndim, 4, 64, 64, 64, size, 5, 2, 2),     // depthwise strided
      make(dir, dt, ndim, 4, 64, 128, 1, size, 3, 2, 1),     // dense strided
      make(dir, dt, ndim, 4, 64, 64, 32, size, 3, 1, 1),     // near-depthwise, C/G = 2
      make(dir, dt, ndim, 4, 12, 12, 1, size, 3, 1, 1),      // odd channels (vec 4)
      make(dir, dt, ndim, 64, 256, 256, 1, ndim == 3 ? 4 : 7, 1, 1, 0),  // long K / few tiles
  };
  for (const Problem& p : out) EXPECT_TRUE(p.validate().ok()) << p.to_spec() << ": " << p.validate().to_string();
  return out;
}

TEST(Features, DistinctKernelsGetDistinctVectorsOnEveryPool) {
  ASSERT_NE(device().rules, nullptr);
  std::set<std::string> covered;  // "<family> <dir> <dtype> <nd>d" with >= 2 kernels compared
  int64_t vectors = 0;  // feature vectors compared, over all pools and problems
  for (Direction dir : kDirections) {
    for (DType dt : kDTypes) {
      const auto& kernels = pool(dir, dt);
      ASSERT_FALSE(kernels.empty()) << to_string(dir) << " " << to_string(dt);
      for (int nd = 1; nd <= 3; ++nd) {
        const std::string pool_name = fmt::format("pool {} {} {}d", to_string(dir), to_string(dt), nd);
        for (const Problem& p : representative(dir, dt, nd)) {
          std::map<std::vector<float>, size_t> seen;
          std::map<Family, int> per_family;
          for (size_t i = 0; i < kernels.size(); ++i) {
            const KernelTraits& t = kernels[i];
            if (!implements(t, p)) continue;
            ++per_family[t.family];
            // The schema the shipped model was trained on has no column for
            // the wgmma producer kind (docs/features.md): a TMA kernel and
            // its cp.async twin share a vector until the model is retrained
            // with one. Each twin is compared through its cp.async kernel.
            if (t.tma) continue;
            auto [it, inserted] = seen.emplace(features(p, t), i);
            EXPECT_TRUE(inserted) << pool_name << ", problem " << p.to_spec() << ": " << kernel_name(t) << " and "
                                  << kernel_name(kernels[it->second]) << " have the same feature vector";
            ++vectors;
          }
          for (auto [family, count] : per_family)
            if (count >= 2) covered.insert(fmt::format("{} {} {} {}d", to_string(family), to_string(dir), to_string(dt), nd));
        }
      }
    }
  }
  // Every pool (family x direction x dtype x ndim) had at least one problem
  // on which two or more of its kernels were compared.
  std::string list;
  for (const auto& c : covered) list += c + "; ";
  for (const char* family : {"igemm", "direct"})
    for (Direction dir : kDirections)
      for (DType dt : kDTypes)
        for (int nd = 1; nd <= 3; ++nd) {
          const std::string key = fmt::format("{} {} {} {}d", family, to_string(dir), to_string(dt), nd);
          EXPECT_TRUE(covered.count(key)) << "pool not covered: " << key << " (covered: " << list << ")";
        }
  EXPECT_GT(vectors, 20000);
  std::printf("compared %lld feature vectors; pools covered: %s\n", static_cast<long long>(vectors), list.c_str());
}

TEST(Features, EveryFeatureIsFiniteAndVariesOverRandomProblems) {
  ASSERT_NE(device().rules, nullptr);
  std::mt19937_64 rng(20240611);
  const int nf = num_features();
  std::vector<float> lo(nf, INFINITY), hi(nf, -INFINITY);
  int checked = 0, problems = 0;
  std::vector<float> v(nf);
  while (checked < 4000 && problems < 5000) {
    const Problem p = testing::random_valid_problem(rng);
    ++problems;
    std::vector<const KernelTraits*> fit;
    for (const KernelTraits& t : pool(p.direction, p.dtype))
      if (implements(t, p)) fit.push_back(&t);
    std::shuffle(fit.begin(), fit.end(), rng);
    if (fit.size() > 12) fit.resize(12);
    for (const KernelTraits* t : fit) {
      compute_features(p, *t, props(), device(), v.data());
      for (int i = 0; i < nf; ++i) {
        ASSERT_TRUE(std::isfinite(v[i])) << feature_table()[i].name << " = " << v[i] << " for " << kernel_name(*t)
                                         << " on " << p.to_spec();
        lo[i] = std::min(lo[i], v[i]);
        hi[i] = std::max(hi[i], v[i]);
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 4000);
  // Random problems rarely meet the kernels some flags describe (a TMA
  // producer needs C/G a multiple of 64, a register window C/G = K/G = 1):
  // every kernel of four problems that do (the third a C = 3 stem's
  // bwd_data, for the tinyc flag; the last a pointwise layer, which the
  // random draw, a few hundred problems, can miss).
  for (const char* spec : {"fwd_bf16_n8c128k128_h14w14_y3x3_p1", "fwd_bf16_n8c64k64g64_h14w14_y3x3_p1",
                           "bwd_data_bf16_n2c3k64_h32w64_y7x7_s2_p3", "fwd_bf16_n8c64k128_h14w14"}) {
    const Problem p = *Problem::parse_spec(spec);
    for (const KernelTraits& t : pool(p.direction, p.dtype)) {
      if (!implements(t, p)) continue;
      compute_features(p, t, props(), device(), v.data());
      for (int i = 0; i < nf; ++i) {
        lo[i] = std::min(lo[i], v[i]);
        hi[i] = std::max(hi[i], v[i]);
      }
    }
  }
  // A feature that never changes carries no information, and usually means
  // compute_features forgot to write it.
  for (int i = 0; i < nf; ++i) EXPECT_LT(lo[i], hi[i]) << feature_table()[i].name << " is constant " << lo[i];
}

// The batch shares the problem's part across rows: each row must still be
// exactly the row compute_features gives alone (the trained model reads
// these bits), including after rows of the other family.
TEST(Features, BatchRowsAreBitIdenticalToSingleRows) {
  ASSERT_NE(device().rules, nullptr);
  std::mt19937_64 rng(4242);
  const size_t nf = size_t(num_features());
  size_t rows = 0;
  std::vector<float> batch, single(nf);
  for (int i = 0; i < 120; ++i) {
    Problem p = testing::random_valid_problem(rng);
    if (i % 3 == 0) p.g = p.c = p.k = 8 * (1 + i % 4);  // depthwise: direct kernels implement it
    if (!p.validate().ok()) continue;
    // Every kernel of the pool, implementing p or not (the values stay defined).
    std::vector<const KernelTraits*> ks;
    for (const KernelTraits& t : pool(p.direction, p.dtype))
      if (t.ndim == p.ndim) ks.push_back(&t);
    std::shuffle(ks.begin(), ks.end(), rng);
    batch.assign(ks.size() * nf, -1.0f);
    compute_features(p, ks.data(), ks.size(), props(), device(), batch.data());
    for (size_t r = 0; r < ks.size(); ++r) {
      compute_features(p, *ks[r], props(), device(), single.data());
      ASSERT_EQ(std::memcmp(single.data(), batch.data() + r * nf, nf * sizeof(float)), 0)
          << kernel_name(*ks[r]) << " on " << p.to_spec();
      ++rows;
    }
  }
  EXPECT_GT(rows, 10000u);
}

TEST(Features, TableNamesAreUniqueAndTheSchemaIdFollowsTheLayout) {
  const auto& table = feature_table();
  EXPECT_EQ(num_features(), int(table.size()));
  std::set<std::string> names;
  for (const FeatureInfo& f : table) {
    EXPECT_TRUE(names.insert(f.name).second) << "duplicate feature name " << f.name;
    EXPECT_FALSE(f.formula.empty()) << f.name;
    EXPECT_FALSE(f.why.empty()) << f.name;
    const std::string prefix = f.name.substr(0, 2);
    EXPECT_TRUE(prefix == "p_" || prefix == "k_" || prefix == "x_" || prefix == "a_") << f.name;
  }

  const std::string id = feature_schema_id();
  EXPECT_EQ(id, feature_schema_id());
  EXPECT_EQ(id, feature_schema_id_of(table));
  ASSERT_EQ(id.size(), 3u + 16u) << id;
  EXPECT_EQ(id.substr(0, 3), "v1-");
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 3), std::string::npos) << id;

  std::vector<FeatureInfo> a = {{"p_n", "N", "-"}, {"k_tile", "tile", "-"}};
  std::vector<FeatureInfo> renamed = a, reordered = {a[1], a[0]}, reformulated = a, rewhy = a;
  renamed[1].name = "k_tile_m";
  reformulated[0].formula = "lg(N)";
  rewhy[0].why = "other words";
  EXPECT_EQ(feature_schema_id_of(a), feature_schema_id_of(std::vector<FeatureInfo>(a)));
  EXPECT_NE(feature_schema_id_of(a), feature_schema_id_of(renamed));
  EXPECT_NE(feature_schema_id_of(a), feature_schema_id_of(reordered));
  EXPECT_NE(feature_schema_id_of(a), feature_schema_id_of(reformulated));
  EXPECT_EQ(feature_schema_id_of(a), feature_schema_id_of(rewhy)) << "the explanation is not part of the layout";
  // Separators: the split between names matters, not only their concatenation.
  EXPECT_NE(feature_schema_id_of({{"ab", "", ""}, {"c", "", ""}}), feature_schema_id_of({{"a", "", ""}, {"bc", "", ""}}));
}

TEST(Features, DocumentationListsEveryFeature) {
  std::ifstream f(std::string(GCONV_SOURCE_DIR) + "/docs/features.md");
  ASSERT_TRUE(f) << "docs/features.md is missing";
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  for (const FeatureInfo& info : feature_table())
    EXPECT_NE(doc.find("`" + info.name + "`"), std::string::npos) << info.name << " is not in docs/features.md";
}

TEST(Features, GpuPropsRoundTripThroughJson) {
  GpuProps g = props();
  EXPECT_EQ(g.sm_count, device().sm_count);
  EXPECT_EQ(g.mma_tflops[2], device().mma_tflops_for(DType::fp32));
  auto back = gpu_props_from_json(to_json(g));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, g);

  // Values that need every digit, and a real GPU name.
  g.name = "NVIDIA H200";
  g.clock_mhz = 1980.0 / 3.0;
  g.hbm_gbps = 0.1 + 0.2;
  g.l2_bytes = int64_t{60} << 30;
  g.cuda_core_tflops[1] = 66.9e-3;
  back = gpu_props_from_json(to_json(g));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, g);
}

TEST(Features, GpuPropsParserNamesAMissingOrMistypedKey) {
  const nlohmann::json full = nlohmann::json::parse(to_json(props()));
  const std::vector<std::string> keys = {"name",          "arch",        "sm_count",           "clock_mhz",
                                         "l2_bytes",      "smem_per_sm_bytes", "regs_per_sm",   "max_threads_per_sm",
                                         "max_blocks_per_sm", "hbm_gbps", "l2_gbps",           "smem_bytes_per_clk",
                                         "mma_tflops",    "cuda_core_tflops", "launch_us",     "wave_latency_us"};
  EXPECT_EQ(full.size(), keys.size()) << "a key of to_json is not checked here";
  for (const std::string& key : keys) {
    nlohmann::json j = full;
    ASSERT_TRUE(j.contains(key)) << key;
    j.erase(key);
    auto r = gpu_props_from_json(j.dump());
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.status().code(), StatusCode::parse_error);
    EXPECT_NE(r.status().message().find("missing key '" + key + "'"), std::string::npos) << r.status().message();
  }
  nlohmann::json j = full;
  j["mma_tflops"].erase("fp16");
  auto r = gpu_props_from_json(j.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("missing key 'mma_tflops.fp16'"), std::string::npos) << r.status().message();

  j = full;
  j["sm_count"] = "132";
  r = gpu_props_from_json(j.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::parse_error);
  EXPECT_NE(r.status().message().find("'sm_count'"), std::string::npos) << r.status().message();

  r = gpu_props_from_json("{not json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::parse_error);
}

// Training computes features offline from the manifest's GpuProps; selection
// from the live device. Both must see the same analytic model.
TEST(Features, DeviceInfoForPropsReproducesTheDevicesVectors) {
  const DeviceInfo rebuilt = device_info_for(props(), device().rules);
  EXPECT_EQ(gpu_props_of(rebuilt), props());
  int compared = 0;
  std::vector<float> a(num_features()), b(num_features());
  for (DType dt : kDTypes) {
    for (const Problem& p : representative(Direction::bwd_weight, dt, 2)) {
      for (const KernelTraits& t : pool(p.direction, p.dtype)) {
        if (!implements(t, p)) continue;
        compute_features(p, t, props(), device(), a.data());
        compute_features(p, t, props(), rebuilt, b.data());
        ASSERT_EQ(a, b) << kernel_name(t) << " on " << p.to_spec();
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 500);

  // A GPU with half the SMs and twice the bandwidth: waves and the analytic
  // terms move with it.
  GpuProps half = props();
  half.sm_count /= 2;
  half.hbm_gbps *= 2;
  const DeviceInfo small = device_info_for(half, device().rules);
  const Problem p = make(Direction::fwd, DType::bf16, 2, 32, 256, 256, 1, 28, 3, 1, 1);
  auto named = parse_kernel_name("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1");
  ASSERT_TRUE(named.ok()) << named.status().to_string();
  const KernelTraits t = *named;
  ASSERT_TRUE(implements(t, p)) << kernel_name(t);
  compute_features(p, t, props(), device(), a.data());
  compute_features(p, t, half, small, b.data());
  AnalyticBreakdown ab;
  analytic_ms(t, p, small, &ab);
  EXPECT_FLOAT_EQ(b[index_of("a_log_total_us")], float(std::log2(1.0 + ab.total_ms * 1e3)));
  EXPECT_NE(a[index_of("a_log_total_us")], b[index_of("a_log_total_us")]);
  EXPECT_GT(b[index_of("x_log_blocks_per_sm_avg")], a[index_of("x_log_blocks_per_sm_avg")]);
  EXPECT_EQ(a[index_of("p_log_flops")], b[index_of("p_log_flops")]);
}

// A few features against their formulas, on hand-made kernels.
KernelTraits igemm_kernel(const Problem& p, int tm, int tn, int tk, int wm, int wn, SplitKMode mode, int split) {
  KernelTraits t;
  t.family = Family::igemm;
  t.direction = p.direction;
  t.dtype = p.dtype;
  t.ndim = p.ndim;
  t.tile_m = tm, t.tile_n = tn, t.tile_k = tk, t.warps_m = wm, t.warps_n = wn;
  t.stages = 3;
  t.split_mode = mode;
  t.split_k = split;
  t.vec = 8;
  return t;
}

TEST(Features, TileWasteSplitGainAndAnalyticTermsFollowTheirFormulas) {
  // fwd, 1x1 filter: GEMM M = N * H * W, N = K/G, K = C/G.
  Problem p = make(Direction::fwd, DType::bf16, 2, 1, 64, 64, 1, 16, 1, 1, 0);  // M = 256
  const KernelTraits t = igemm_kernel(p, 128, 64, 32, 2, 2, SplitKMode::none, 1);
  ASSERT_TRUE(implements(t, p));
  std::vector<float> v = features(p, t);
  EXPECT_FLOAT_EQ(v[index_of("x_waste_m")], 0.0f);
  EXPECT_FLOAT_EQ(v[index_of("x_waste_n")], 0.0f);
  EXPECT_FLOAT_EQ(v[index_of("x_log_m_tiles")], std::log2(1.0f + 2.0f));
  EXPECT_FLOAT_EQ(v[index_of("p_dir_fwd")] + v[index_of("p_dir_bwd_data")] + v[index_of("p_dir_bwd_weight")], 1.0f);
  EXPECT_FLOAT_EQ(v[index_of("k_family_igemm")], 1.0f);
  EXPECT_FLOAT_EQ(v[index_of("k_block_w")], 0.0f) << "direct-only features are 0 for igemm";
  EXPECT_FLOAT_EQ(v[index_of("x_split_gain")], 1.0f);

  AnalyticBreakdown ab;
  analytic_ms(t, p, device(), &ab);
  EXPECT_FLOAT_EQ(v[index_of("a_log_total_us")], float(std::log2(1.0 + ab.total_ms * 1e3)));
  EXPECT_FLOAT_EQ(v[index_of("a_tile_efficiency")], float(ab.tile_efficiency));
  EXPECT_FLOAT_EQ(v[index_of("x_blocks_per_sm")], float(ab.blocks_per_sm));

  // M = 15 * 15 = 225 rows on 128-row tiles: 2 tiles, 31 of 256 rows wasted.
  p.in = {1, 15, 15};
  v = features(p, t);
  EXPECT_FLOAT_EQ(v[index_of("x_waste_m")], float(1.0 - 225.0 / 256.0));

  // bwd_weight with a long reduction and a 1-block grid: split-K multiplies
  // the blocks in use; on a problem that fills the GPU it adds nothing.
  Problem w = make(Direction::bwd_weight, DType::bf16, 2, 64, 64, 64, 1, 28, 1, 1, 0);
  const KernelTraits s = igemm_kernel(w, 64, 64, 64, 2, 2, SplitKMode::parallel, 8);
  ASSERT_TRUE(implements(s, w));
  v = features(w, s);
  EXPECT_FLOAT_EQ(v[index_of("x_split_gain")], 8.0f);
  // 8 slices of a 64x64 tile (128 KB): summed by the reduce kernel, a second
  // launch; 4 slices of a 32x32 tile (16 KB) by the tile's last split, one
  // launch (kernels/fixup.hpp slices_fixup).
  EXPECT_FLOAT_EQ(v[index_of("x_launches")], 2.0f);
  const KernelTraits s4 = igemm_kernel(w, 32, 32, 64, 1, 1, SplitKMode::parallel, 4);
  ASSERT_TRUE(implements(s4, w));
  EXPECT_FLOAT_EQ(features(w, s4)[index_of("x_launches")], 1.0f);
  EXPECT_GT(v[index_of("x_log_workspace")], 0.0f);
  Problem big = make(Direction::fwd, DType::bf16, 2, 64, 256, 256, 1, 56, 3, 1, 1);
  const KernelTraits sb = igemm_kernel(big, 64, 64, 64, 2, 2, SplitKMode::parallel, 8);
  ASSERT_TRUE(implements(sb, big));
  EXPECT_FLOAT_EQ(features(big, sb)[index_of("x_split_gain")], 1.0f);
}

TEST(Features, DirectKernelsFillTheDirectFeaturesOnly) {
  const Problem p = make(Direction::fwd, DType::bf16, 2, 2, 64, 64, 64, 30, 3, 1, 1);  // depthwise 30x30
  const KernelTraits* direct = nullptr;
  for (const KernelTraits& t : pool(p.direction, p.dtype))
    if (t.family == Family::direct && t.block_h == 8 && t.block_w == 16 && t.vec == 8 && implements(t, p)) {
      direct = &t;
      break;
    }
  ASSERT_NE(direct, nullptr);
  const std::vector<float> v = features(p, *direct);
  EXPECT_FLOAT_EQ(v[index_of("k_family_direct")], 1.0f);
  EXPECT_FLOAT_EQ(v[index_of("k_tile_m")], 0.0f);
  EXPECT_FLOAT_EQ(v[index_of("x_waste_m")], 0.0f);
  EXPECT_FLOAT_EQ(v[index_of("k_block_h")], 8.0f);
  // 30 output rows on 8-row tiles: 4 tiles, 2 of 32 rows idle; 30 of 32 columns.
  EXPECT_FLOAT_EQ(v[index_of("x_direct_waste_h")], float(1.0 - 30.0 / 32.0));
  EXPECT_FLOAT_EQ(v[index_of("x_direct_waste_w")], float(1.0 - 30.0 / 32.0));
  // 64 channels in slabs of 8 lanes x 8: no idle lanes.
  EXPECT_FLOAT_EQ(v[index_of("x_direct_waste_c")], 0.0f);
  // 3x3 filter, stride 1: (8 + 2) x (16 + 2) source pixels per 8 x 16 outputs.
  EXPECT_FLOAT_EQ(v[index_of("x_direct_halo")], float(10.0 * 18.0 / 128.0));
  EXPECT_FLOAT_EQ(v[index_of("p_depthwise")], 1.0f);
  EXPECT_FLOAT_EQ(v[index_of("a_tile_efficiency")], 0.0f);
}

}  // namespace
}  // namespace gconv::heuristic
