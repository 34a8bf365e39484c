// The heuristic policy with a learned model: the shipped H200 model is found
// and used (reason names it; picks differ from the analytic ones somewhere;
// rank's first equals select), and a corrupt, truncated or foreign-schema
// model falls back to the analytic estimate, selecting exactly what the
// analytic policy selects.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "heuristic/model.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::spec;
using testing::TempDir;
namespace fs = std::filesystem;

const std::string kModels = std::string(GCONV_SOURCE_DIR) + "/models";

std::vector<Problem> some_problems() {
  return {spec("fwd_bf16_n32c64k64_h56w56_y3x3_p1"), spec("bwd_data_bf16_n32c256k256_h28w28_y3x3_s2_p1"),
          spec("bwd_weight_bf16_n8c512k512_h14w14_y3x3_p1"), spec("fwd_bf16_n32c192k192g192_h28w28_y3x3_p1"),
          spec("fwd_bf16_n16c256k256g32_h28w28_y3x3_p1"), spec("bwd_weight_bf16_n4c64k64_d8h28w28_z3y3x3_p1"),
          spec("fwd_bf16_n8c80k160_w3000_x5_p2")};
}

TEST(ModelPolicy, ShippedModelIsUsedAndNamedInTheReason) {
  auto reg = make_registry("", "off", true, kModels);
  auto an = make_registry("", "off", true, "off");
  ASSERT_NE(reg, nullptr);
  int differ = 0;
  for (const Problem& p : some_problems()) {
    auto h = reg->select(p, Policy::heuristic());
    auto a = an->select(p, Policy::analytic());
    ASSERT_TRUE(h.ok() && a.ok()) << p.to_spec();
    EXPECT_NE(h->reason.find("heuristic: model"), std::string::npos) << h->reason;
    EXPECT_GT(h->predicted_ms, 0);
    differ += h->kernel != a->kernel;
    auto r = reg->rank(p, Policy::heuristic(), 3);
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->empty());
    EXPECT_EQ(r->front().kernel, h->kernel) << p.to_spec();
    for (size_t i = 1; i < r->size(); ++i) EXPECT_NE((*r)[i].kernel, (*r)[i - 1].kernel);
  }
  EXPECT_GT(differ, 0) << "the model never disagreed with the analytic policy: is it used?";
}

// topk:K measures the model's K best candidates where a model covers the
// dtype (the analytic estimate's top K missed the fastest kernel by up to
// 1.7x on large weight gradients), and the analytic top K without one.
TEST(ModelPolicy, TopkRanksByTheModelWhenThereIsOne) {
  auto reg = make_registry("", "off", true, kModels);
  auto an = make_registry("", "off", true, "off");
  ASSERT_NE(reg, nullptr);
  ASSERT_NE(an, nullptr);
  int differ = 0;
  for (const Problem& p : some_problems()) {
    auto h = reg->rank(p, Policy::heuristic(), 8);
    auto t = reg->rank(p, Policy::topk(8), 8);
    auto ta = an->rank(p, Policy::topk(8), 8);
    auto aa = an->rank(p, Policy::analytic(), 8);
    ASSERT_TRUE(h.ok() && t.ok() && ta.ok() && aa.ok()) << p.to_spec();
    ASSERT_EQ(t->size(), h->size()) << p.to_spec();
    for (size_t i = 0; i < t->size(); ++i) EXPECT_EQ((*t)[i].kernel, (*h)[i].kernel) << p.to_spec() << " #" << i;
    ASSERT_EQ(ta->size(), aa->size()) << p.to_spec();
    for (size_t i = 0; i < ta->size(); ++i) EXPECT_EQ((*ta)[i].kernel, (*aa)[i].kernel) << p.to_spec() << " #" << i;
    for (size_t i = 0; i < std::min(t->size(), ta->size()); ++i) differ += (*t)[i].kernel != (*ta)[i].kernel;
  }
  EXPECT_GT(differ, 0) << "topk's list never differed from the analytic one: is the model used?";
}

// The shipped model is a cascade: in a ranked list, the main model's kernels
// (the prefilter's best `keep`) come first; the rest are ranked by the
// prefilter and say so.
TEST(ModelPolicy, RankListsNameTheKernelsThePrefilterLeftOut) {
  auto reg = make_registry("", "off", true, kModels);
  ASSERT_NE(reg, nullptr);
  auto r = reg->rank(spec("fwd_bf16_n32c64k64_h56w56_y3x3_p1"), Policy::heuristic(), 12);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 12u);
  auto model = heuristic::Selector::load(kModels + "/h200");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  ASSERT_NE((*model)->prefilter(), nullptr) << "the shipped model is no cascade";
  const size_t keep = size_t((*model)->prefilter_keep());
  ASSERT_LT(keep, r->size());
  size_t main = 0;
  while (main < r->size() && (*r)[main].reason.find("prefilter") == std::string::npos) ++main;
  EXPECT_EQ(main, keep);
  for (size_t i = main; i < r->size(); ++i) {
    // "prefilter predicts X ms" (regression) or "prefilter score X" (ranking).
    EXPECT_NE((*r)[i].reason.find("prefilter "), std::string::npos) << (*r)[i].reason;
    EXPECT_GT((*r)[i].predicted_ms, 0);  // the prefilter's prediction, or the analytic estimate
  }
}

// A copy of the shipped model folder (with its prefilter), to be edited or damaged.
void copy_model(const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy(kModels + "/h200", to, fs::copy_options::recursive);
}

// Replaces the first occurrence of `from` in a copied model's manifest.
void edit_manifest(const fs::path& model, const std::string& from, const std::string& to) {
  const fs::path man = model / "manifest.json";
  std::ifstream in(man);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(man) << text;
}

TEST(ModelPolicy, ShippedModelCoversEveryDataType) {
  auto reg = make_registry("", "off", true, kModels);
  ASSERT_NE(reg, nullptr);
  for (const char* sp : {"fwd_fp16_n32c64k64_h56w56_y3x3_p1", "bwd_weight_fp32_n8c128k128_h28w28_y3x3_p1"}) {
    auto h = reg->select(spec(sp), Policy::heuristic());
    ASSERT_TRUE(h.ok());
    EXPECT_NE(h->reason.find("heuristic: model"), std::string::npos) << h->reason;
  }
}

TEST(ModelPolicy, DataTypesTheModelNeverSawUseTheAnalyticEstimate) {
  TempDir dir;
  copy_model(dir.path() / "h200");
  // A model trained on bf16 only (its manifest's dtypes).
  const fs::path man = dir.path() / "h200" / "manifest.json";
  std::ifstream in(man);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t from = text.find("\"dtypes\""), to = text.find(']', from);
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos);
  text.replace(from, to + 1 - from, "\"dtypes\": [\"bf16\"]");
  std::ofstream(man) << text;
  auto reg = make_registry("", "off", true, dir.path().string());
  auto an = make_registry("", "off", true, "off");
  for (const char* sp : {"fwd_fp16_n32c64k64_h56w56_y3x3_p1", "bwd_weight_fp32_n8c128k128_h28w28_y3x3_p1"}) {
    const Problem p = spec(sp);
    auto h = reg->select(p, Policy::heuristic());
    auto a = an->select(p, Policy::analytic());
    ASSERT_TRUE(h.ok() && a.ok());
    EXPECT_EQ(h->kernel, a->kernel) << sp;
    EXPECT_NE(h->reason.find("has no"), std::string::npos) << h->reason;
  }
}

void expect_analytic_fallback(const std::string& models_dir) {
  auto reg = make_registry("", "off", true, models_dir);
  auto an = make_registry("", "off", true, "off");
  ASSERT_NE(reg, nullptr);
  for (const Problem& p : some_problems()) {
    auto h = reg->select(p, Policy::heuristic());
    auto a = an->select(p, Policy::analytic());
    ASSERT_TRUE(h.ok() && a.ok());
    EXPECT_EQ(h->kernel, a->kernel) << p.to_spec();
    EXPECT_NE(h->reason.find("no learned model"), std::string::npos) << h->reason;
  }
}

// Cuts every model file of a model folder in half, whatever its format
// (json/ubj, compressed or not, and the compact model.gcf).
void truncate_model_file(const fs::path& folder) {
  int cut = 0;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().rfind("model.", 0) == 0) {
      fs::resize_file(e.path(), fs::file_size(e.path()) / 2);
      ++cut;
    }
  ASSERT_GT(cut, 0) << "no model file in " << folder;
}

TEST(ModelPolicy, TruncatedModelFallsBackToAnalytic) {
  TempDir d;
  copy_model(d.path() / "h200");
  ASSERT_NO_FATAL_FAILURE(truncate_model_file(d.path() / "h200"));
  expect_analytic_fallback(d.path().string());
}

// The shipped model is a cascade: a damaged first stage loses the whole
// model, never half of it.
TEST(ModelPolicy, TruncatedPrefilterFallsBackToAnalytic) {
  TempDir d;
  copy_model(d.path() / "h200");
  ASSERT_TRUE(fs::is_directory(d.path() / "h200" / "prefilter")) << "the shipped model has no prefilter";
  ASSERT_NO_FATAL_FAILURE(truncate_model_file(d.path() / "h200" / "prefilter"));
  expect_analytic_fallback(d.path().string());
}

TEST(ModelPolicy, OtherFeatureSchemaFallsBackToAnalytic) {
  TempDir d;
  copy_model(d.path() / "h200");
  edit_manifest(d.path() / "h200", "\"feature_schema\": \"", "\"feature_schema\": \"v0-old");
  expect_analytic_fallback(d.path().string());
}

// Nonsense GPU figures in a manifest (an SM count of 0 divided every
// estimate, a negative bandwidth misled every pick) refuse the model.
TEST(ModelPolicy, ManifestGpuFiguresOutOfRangeFallBack) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"sm_count\": 132", "\"sm_count\": 0"}, {"\"hbm_gbps\": ", "\"hbm_gbps\": -"}}) {
    TempDir d;
    copy_model(d.path() / "h200");
    edit_manifest(d.path() / "h200", from, to);
    expect_analytic_fallback(d.path().string());
  }
}

// A prefilter that points back at the model (by "." or through a link)
// recursed until memory ran out: refused, the analytic estimate is used.
TEST(ModelPolicy, PrefilterPointingBackAtTheModelFallsBack) {
  {
    TempDir d;
    copy_model(d.path() / "h200");
    edit_manifest(d.path() / "h200", "\"dir\": \"prefilter\"", "\"dir\": \".\"");
    expect_analytic_fallback(d.path().string());
  }
  {
    TempDir d;
    copy_model(d.path() / "h200");
    fs::remove_all(d.path() / "h200" / "prefilter");
    fs::create_directory_symlink(".", d.path() / "h200" / "prefilter");
    expect_analytic_fallback(d.path().string());
  }
}

TEST(ModelPolicy, GarbageManifestAndEmptyFolderFallBack) {
  TempDir d;
  fs::create_directories(d.path() / "broken");
  std::ofstream(d.path() / "broken" / "manifest.json") << "{ not json";
  expect_analytic_fallback(d.path().string());
  expect_analytic_fallback((d.path() / "missing").string());
}

TEST(ModelPolicy, ConcurrentHeuristicSelectsAgree) {
  const std::vector<Problem> problems = some_problems();
  auto reference = make_registry("", "off", true, kModels);
  std::vector<std::string> expected;
  for (const Problem& p : problems) expected.push_back(reference->select(p, Policy::heuristic())->kernel);
  auto reg = make_registry("", "off", false, kModels);  // no memo: every call scores
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < problems.size(); ++i) {
          const size_t j = (i + size_t(t)) % problems.size();
          auto s = reg->select(problems[j], Policy::heuristic());
          if (!s.ok() || s->kernel != expected[j]) ++mismatches[size_t(t)];
        }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[size_t(t)], 0) << "thread " << t;
}

}  // namespace
}  // namespace gconv
