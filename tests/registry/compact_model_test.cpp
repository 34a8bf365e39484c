// The shipped model's compact form (models/h200/model.gcf and its
// prefilter's): it is what the registry loads, it is what `gconv model
// compact` makes of the committed model.ubj.zst byte for byte, and it
// predicts exactly what the parsed model predicts: on the feature rows of
// every applicable pool kernel of a problem set, and in the registry's picks,
// predicted times and rankings. A compact file that belongs to another model
// (swapped, stale) or an objective the manifest does not name is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "bench/plan.hpp"
#include "heuristic/features.hpp"
#include "heuristic/model.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::TempDir;
namespace fs = std::filesystem;

const std::string kModels = std::string(GCONV_SOURCE_DIR) + "/models";

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A copy of the shipped model folder without its compact files: what
// training leaves (the manifest still names them, they are not there).
fs::path parsed_only_copy(const TempDir& d) {
  const fs::path m = d.path() / "models" / "h200";
  fs::create_directories(m.parent_path());
  fs::copy(kModels + "/h200", m, fs::copy_options::recursive);
  fs::remove(m / "model.gcf");
  fs::remove(m / "prefilter" / "model.gcf");
  return m;
}

TEST(CompactModel, ShippedModelLoadsItsCompactForm) {
  auto s = heuristic::Selector::load(kModels + "/h200");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ((*s)->model_path(), kModels + "/h200/model.gcf");
  EXPECT_NE((*s)->forest().compact_checksum(), 0u);
  ASSERT_NE((*s)->prefilter(), nullptr);
  EXPECT_EQ((*s)->prefilter()->model_path(), kModels + "/h200/prefilter/model.gcf");
}

TEST(CompactModel, GconvModelCompactReproducesTheCommittedFiles) {
  TempDir d;
  const fs::path m = d.path() / "h200";
  fs::copy(kModels + "/h200", m, fs::copy_options::recursive);
  fs::remove(m / "model.gcf");
  fs::remove(m / "prefilter" / "model.gcf");
  std::vector<std::string> written;
  Status st = heuristic::write_compact_model(m.string(), &written);
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_EQ(written.size(), 2u);
  for (const char* f : {"model.gcf", "manifest.json", "prefilter/model.gcf", "prefilter/manifest.json"})
    EXPECT_TRUE(read_bytes(m / f) == read_bytes(fs::path(kModels) / "h200" / f))
        << f << " differs from the committed one: run gconv model compact models/h200";
}

TEST(CompactModel, SamePredictionsOnEveryPoolKernelOfAProblemSet) {
  TempDir d;
  auto compact = heuristic::Selector::load(kModels + "/h200");
  auto parsed = heuristic::Selector::load(parsed_only_copy(d).string());
  ASSERT_TRUE(compact.ok() && parsed.ok());
  ASSERT_EQ((*parsed)->forest().compact_checksum(), 0u) << "the copy must load the parsed model";
  auto plan = bench::build_plan({"example", "all", "", 0});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  std::vector<bool> app;
  const auto cands = bench::candidate_items(*plan, &app);
  const heuristic::GpuProps g = (*compact)->manifest().gpu;
  const DeviceInfo dev = heuristic::device_info_for(g);
  const int F = heuristic::num_features();
  size_t rows = 0;
  for (size_t i = 0; i < cands.size();) {
    const int pi = cands[i].problem;
    std::vector<const KernelTraits*> ks;
    for (; i < cands.size() && cands[i].problem == pi; ++i)
      if (app[i]) ks.push_back(&plan->kernels[size_t(cands[i].kernel)]);
    if (ks.empty()) continue;
    std::vector<float> x(ks.size() * size_t(F));
    heuristic::compute_features(plan->problems[size_t(pi)].problem, ks.data(), ks.size(), g, dev, x.data());
    for (auto stage : {0, 1}) {
      const heuristic::Forest& a = stage ? (*compact)->prefilter()->forest() : (*compact)->forest();
      const heuristic::Forest& b = stage ? (*parsed)->prefilter()->forest() : (*parsed)->forest();
      std::vector<float> pa(ks.size()), pb(ks.size());
      a.predict(x.data(), int(ks.size()), pa.data());
      b.predict(x.data(), int(ks.size()), pb.data());
      ASSERT_EQ(0, std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(float)))
          << plan->specs[size_t(pi)] << " stage " << stage;
    }
    rows += ks.size();
  }
  EXPECT_GT(rows, 5000u);  // 72 problems, ~150 applicable kernels each
}

TEST(CompactModel, SamePicksTimesAndRankings) {
  TempDir d;
  parsed_only_copy(d);
  auto compact = make_registry("", "off", false, kModels);
  auto parsed = make_registry("", "off", false, (d.path() / "models").string());
  ASSERT_NE(compact, nullptr);
  ASSERT_NE(parsed, nullptr);
  size_t n = 0;
  for (const char* set : {"example", "validation_holdout"}) {
    auto plan = bench::build_plan({set, "all", "", 0});
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    for (const auto& e : plan->problems) {
      auto a = compact->select(e.problem, Policy::heuristic());
      auto b = parsed->select(e.problem, Policy::heuristic());
      ASSERT_TRUE(a.ok() && b.ok()) << e.problem.to_spec();
      EXPECT_EQ(a->kernel, b->kernel) << e.problem.to_spec();
      EXPECT_EQ(a->predicted_ms, b->predicted_ms) << e.problem.to_spec();
      ++n;
    }
    auto ra = compact->rank(plan->problems[0].problem, Policy::heuristic(), 40);
    auto rb = parsed->rank(plan->problems[0].problem, Policy::heuristic(), 40);
    ASSERT_TRUE(ra.ok() && rb.ok());
    ASSERT_EQ(ra->size(), rb->size());
    for (size_t i = 0; i < ra->size(); ++i) {
      EXPECT_EQ((*ra)[i].kernel, (*rb)[i].kernel);
      EXPECT_EQ((*ra)[i].predicted_ms, (*rb)[i].predicted_ms);
    }
  }
  EXPECT_GT(n, 1500u);
}

// The prefilter's compact file in the main model's place: its own checksum
// is right, the manifest's is not.
TEST(CompactModel, SwappedCompactFileIsRefusedNamingTheManifestField) {
  TempDir d;
  const fs::path m = d.path() / "h200";
  fs::copy(kModels + "/h200", m, fs::copy_options::recursive);
  fs::copy_file(m / "prefilter" / "model.gcf", m / "model.gcf", fs::copy_options::overwrite_existing);
  auto s = heuristic::Selector::load(m.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("compact.checksum"), std::string::npos) << s.status().to_string();
  EXPECT_NE(s.status().message().find((m / "model.gcf").string()), std::string::npos) << s.status().to_string();
}

TEST(CompactModel, SwappedSourceModelIsRefused) {
  TempDir d;
  const fs::path m = parsed_only_copy(d);
  fs::copy_file(m / "prefilter" / "model.ubj.zst", m / "model.ubj.zst", fs::copy_options::overwrite_existing);
  auto s = heuristic::Selector::load(m.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("compact.source_checksum"), std::string::npos) << s.status().to_string();
}

TEST(CompactModel, ObjectiveOtherThanTheManifestsIsRefused) {
  TempDir d;
  const fs::path m = d.path() / "h200";
  fs::copy(kModels + "/h200", m, fs::copy_options::recursive);
  const fs::path man = m / "prefilter" / "manifest.json";
  std::string text = read_bytes(man);
  const size_t at = text.find("\"objective\": \"rank:ndcg\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::strlen("\"objective\": \"rank:ndcg\""), "\"objective\": \"reg\"");
  std::ofstream(man, std::ios::trunc) << text;
  auto s = heuristic::Selector::load(m.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("objective 'reg'"), std::string::npos) << s.status().to_string();
  EXPECT_NE(s.status().message().find("rank:ndcg"), std::string::npos) << s.status().to_string();
}

// --model means one thing everywhere: a model folder (as gconv eval takes)
// or a folder of models (as the registry's default). A model folder was
// scanned as a folder of models and its prefilter/ used alone.
TEST(FindModel, AModelFolderIsThatModelAndAFolderOfModelsIsSearched) {
  heuristic::GpuProps h200;
  {
    auto s = heuristic::Selector::load(kModels + "/h200");
    ASSERT_TRUE(s.ok());
    h200 = (*s)->manifest().gpu;
  }
  for (const std::string& dir : {kModels + "/h200", kModels}) {
    std::string warning = "unset";
    auto s = heuristic::find_model(dir, h200, &warning);
    ASSERT_TRUE(s.ok()) << dir << ": " << s.status().to_string();
    EXPECT_EQ((*s)->dir(), kModels + "/h200");
    EXPECT_NE((*s)->prefilter(), nullptr) << dir << ": the cascade, not its first stage";
    EXPECT_EQ(warning, "");
  }
  TempDir d;
  fs::create_directories(d.path() / "empty_sub");
  auto none = heuristic::find_model(d.path().string(), h200, nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::not_found);
  EXPECT_NE(none.status().message().find("neither a model folder"), std::string::npos) << none.status().to_string();
}

}  // namespace
}  // namespace gconv
