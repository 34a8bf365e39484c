// Model tooling around training (heuristic/train.hpp, heuristic/metrics.hpp):
// two selections compared, the feature-importance table, what a --model
// argument names, and a warm start that keeps the model's objective,
// parameters and prefilter.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "heuristic/model.hpp"
#include "heuristic/train.hpp"
#include "problem/read_text.hpp"
#include "xgb_test_util.hpp"

namespace gconv::heuristic {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kData = GCONV_TEST_DATA_DIR;
const std::string kSweep = kData + "/selector_sweep_small.csv.gz";

std::string temp_dir(const std::string& tag) {
  static std::atomic<int> n{0};
  const fs::path p = fs::temp_directory_path() / ("gconv_mc_" + tag + "_" + std::to_string(::getpid()) + "_" +
                                                  std::to_string(n++));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

GpuProps h200() {
  auto t = problem_io::read_text_file(kData + "/gpu_h200.json");
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  auto g = t.ok() ? gpu_props_from_json(*t) : Result<GpuProps>(t.status());
  return g.ok() ? *g : GpuProps{};
}

nlohmann::json manifest_of(const std::string& dir) {
  auto t = problem_io::read_text_file(dir + "/manifest.json");
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? nlohmann::json::parse(*t) : nlohmann::json{};
}

// ---------------------------------------------------------------------------

TEST(CompareModels, AgreementCountsSameTiedAndFaster) {
  auto r = [](size_t g, size_t row, double eff) {
    GroupResult x;
    x.group = g;
    x.picked_row = row;
    x.efficiency = eff;
    return x;
  };
  const std::vector<GroupResult> a = {r(0, 1, 0.9), r(1, 5, 1.0), r(2, 7, 0.5), r(3, 9, 0.999)};
  const std::vector<GroupResult> b = {r(0, 1, 0.9), r(1, 6, 0.8), r(2, 8, 0.9), r(3, 10, 1.0)};
  const Agreement g = compare_picks(a, b);
  EXPECT_EQ(g.problems, 4u);
  EXPECT_EQ(g.same_kernel, 1u);  // group 0
  EXPECT_EQ(g.a_faster, 1u);     // group 1: 1.0 vs 0.8
  EXPECT_EQ(g.b_faster, 1u);     // group 2
  EXPECT_EQ(g.tied, 1u);         // group 3: within 0.5%
  EXPECT_THAT(format_agreement(g, "m1", "m2"), HasSubstr("same kernel 25.0%"));
  // Selections of different problem lists are not compared.
  EXPECT_EQ(compare_picks(a, {b[0]}).problems, 0u);
  EXPECT_EQ(compare_picks({a[1]}, {a[0]}).problems, 0u);
}

TEST(CompareModels, SideBySideTableHasTheDeltas) {
  Summary x, y;
  x.problems = y.problems = 10;
  x.mean = 0.90;
  y.mean = 0.95;
  x.p10 = 0.80;
  y.p10 = 0.70;
  x.min = y.min = 0.5;
  const std::string t = format_comparison({{"all", x}, {"3d", Summary{}}}, {{"all", y}, {"3d", Summary{}}}, "A", "B");
  EXPECT_THAT(t, HasSubstr("a = A"));
  EXPECT_THAT(t, HasSubstr("b = B"));
  EXPECT_THAT(t, HasSubstr("0.9000  0.9500 +0.0500"));
  EXPECT_THAT(t, HasSubstr("0.8000  0.7000 -0.1000"));
  EXPECT_EQ(t.find("\n3d"), std::string::npos) << "a slice empty in both is left out:\n" << t;
}

// The importance table of a forest: sorted by gain, shares summing to 1, the
// constant column never split on, the signal columns on top.
TEST(FeatureImportanceTable, SortedSharesAndSignal) {
  if (!testing::have_xgboost()) GTEST_SKIP() << "built without XGBoost";
  const TrainData d = testing::synthetic(2000, 6, 3);
  TrainParams p;
  p.rounds = 30;
  p.max_depth = 4;
  p.threads = 1;
  auto b = Booster::train(d, p);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto text = b->save_json();
  ASSERT_TRUE(text.ok());
  auto f = Forest::from_json(*text);
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  const auto v = feature_importance(*f);
  ASSERT_EQ(v.size(), 6u);
  double share = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    share += v[i].gain_share;
    if (i) EXPECT_GE(v[i - 1].gain, v[i].gain);
  }
  EXPECT_NEAR(share, 1.0, 1e-9);
  const auto& table = feature_table();
  EXPECT_EQ(v.back().name, table[3].name);  // column 3 is constant
  EXPECT_EQ(v.back().splits, 0);
  EXPECT_EQ(v.back().gain, 0.0);
  std::set<std::string> top2 = {v[0].name, v[1].name};
  EXPECT_TRUE(top2.count(table[0].name) || top2.count(table[1].name));
  const std::string csv = importance_csv(v);
  EXPECT_EQ(csv.rfind("rank,feature,gain,gain_share,splits\n1,", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
}

TEST(ModelArgument, KindsAndErrors) {
  const std::string root = temp_dir("kind");
  fs::create_directories(root + "/models/h200");
  std::ofstream(root + "/models/h200/manifest.json") << "{}";
  fs::create_directories(root + "/empty/sub");
  EXPECT_EQ(*model_folder_kind(root + "/models/h200"), ModelFolderKind::model);
  EXPECT_EQ(*model_folder_kind(root + "/models"), ModelFolderKind::folder_of_models);
  auto e = model_folder_kind(root + "/empty");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::invalid_argument);
  EXPECT_THAT(e.status().message(), HasSubstr("is not a model folder (no manifest.json) nor a folder of models"));
  auto m = model_folder_kind(root + "/missing");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::not_found);
  fs::remove_all(root);
}

// ---------------------------------------------------------------------------
// Training: a base model, then warm starts from it and from a cascade.

class WarmStart : public ::testing::Test {
 protected:
  static TrainOptions small(const std::string& out) {
    TrainOptions o;
    o.data = {kSweep};
    o.out = out;
    o.gpu = h200();
    o.objectives = {};  // no cross-validation: the final model only
    o.params.rounds = 8;
    o.params.threads = 1;
    return o;
  }
  static void SetUpTestSuite() {
    if (!testing::have_xgboost()) return;
    root_ = new std::string(temp_dir("warm"));
    TrainOptions o = small(*root_ + "/models/base");
    o.objective = "reg";
    o.params.max_depth = 3;
    o.params.eta = 0.3;
    o.params.subsample = 0.9;
    auto r = train_selector(o);
    if (!r.ok()) *root_ = "error: " + r.status().to_string();
  }
  static void TearDownTestSuite() {
    if (root_ && root_->rfind("error", 0) != 0) fs::remove_all(*root_);
    delete root_;
    root_ = nullptr;
  }
  void SetUp() override {
    if (!testing::have_xgboost()) GTEST_SKIP() << "built without XGBoost";
    ASSERT_NE(root_->rfind("error", 0), 0u) << *root_;
  }
  static std::string base() { return *root_ + "/models/base"; }
  static std::string* root_;
};
std::string* WarmStart::root_ = nullptr;

TEST_F(WarmStart, EveryModelHasItsImportanceTable) {
  auto t = problem_io::read_text_file(base() + "/importance.csv");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(std::count(t->begin(), t->end(), '\n'), num_features() + 1);
}

TEST_F(WarmStart, KeepsObjectiveAndParametersUnlessGiven) {
  TrainOptions o = small(*root_ + "/w1");
  o.warm_start = base();
  o.params.max_depth = 9;  // defaults of the command line, not given: the model's win
  auto r = train_selector(o);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->chosen, "reg");
  const auto m = manifest_of(o.out);
  EXPECT_EQ(m["objective"], "reg");
  EXPECT_EQ(m["params"]["max_depth"], 3);
  EXPECT_DOUBLE_EQ(m["params"]["eta"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(m["params"]["subsample"].get<double>(), 0.9);
  EXPECT_EQ(m["params"]["rounds"], 16);  // 8 + 8
  EXPECT_THAT(r->text(), HasSubstr("the model's parameters kept"));

  TrainOptions g = small(*root_ + "/w2");
  g.warm_start = base();
  g.params.max_depth = 5;
  g.params_given = {"max_depth"};
  auto r2 = train_selector(g);
  ASSERT_TRUE(r2.ok()) << r2.status().to_string();
  const auto m2 = manifest_of(g.out);
  EXPECT_EQ(m2["params"]["max_depth"], 5);
  EXPECT_DOUBLE_EQ(m2["params"]["eta"].get<double>(), 0.3);
}

TEST_F(WarmStart, OtherObjectiveOrAFolderOfModelsIsRefused) {
  TrainOptions o = small(*root_ + "/w3");
  o.warm_start = base();
  o.objective = "rank:pairwise";
  auto r = train_selector(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::invalid_argument);
  EXPECT_THAT(r.status().message(), HasSubstr("trained with objective reg"));
  EXPECT_FALSE(fs::exists(o.out));

  TrainOptions f = small(*root_ + "/w4");
  f.warm_start = *root_ + "/models";
  auto r2 = train_selector(f);
  ASSERT_FALSE(r2.ok());
  EXPECT_THAT(r2.status().message(), HasSubstr("is a folder of models"));
}

// A cascade's warm start keeps the prefilter and its keep count, also when
// the new model is written over the old folder.
TEST_F(WarmStart, CascadeKeepsItsPrefilter) {
  TrainOptions c = small(*root_ + "/cascade");
  c.objective = "reg";
  c.params.max_depth = 4;
  c.prefilter = base();
  c.prefilter_keep = 3;
  auto rc = train_selector(c);
  ASSERT_TRUE(rc.ok()) << rc.status().to_string();

  for (const std::string out : {*root_ + "/cascade_w", *root_ + "/cascade"}) {
    TrainOptions o = small(out);
    o.warm_start = *root_ + "/cascade";
    auto r = train_selector(o);
    ASSERT_TRUE(r.ok()) << out << ": " << r.status().to_string();
    EXPECT_THAT(r->text(), HasSubstr("prefilter kept"));
    auto s = Selector::load(out);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    ASSERT_NE((*s)->prefilter(), nullptr) << out;
    EXPECT_EQ((*s)->prefilter_keep(), 3);
    EXPECT_EQ(manifest_of(out)["params"]["max_depth"], 4);
  }
}

// eval --model takes a model folder or a folder of models: the one trained
// on the data's GPU.
TEST_F(WarmStart, ModelForDataPicksByGpu) {
  std::string chosen;
  auto one = load_model_for_data(base(), "anything", &chosen);
  ASSERT_TRUE(one.ok()) << one.status().to_string();
  EXPECT_EQ(chosen, base());
  auto only = load_model_for_data(*root_ + "/models", "another GPU", &chosen);
  ASSERT_TRUE(only.ok()) << only.status().to_string();  // the folder's only model
  EXPECT_EQ(chosen, base());
  fs::copy(base(), *root_ + "/models/copy", fs::copy_options::recursive);
  auto by_gpu = load_model_for_data(*root_ + "/models", h200().name, &chosen);
  ASSERT_TRUE(by_gpu.ok()) << by_gpu.status().to_string();
  EXPECT_EQ(chosen, base());  // both are H200 models: the first by name
  auto none = load_model_for_data(*root_ + "/models", "another GPU", &chosen);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("none was trained on another GPU"));
  fs::remove_all(*root_ + "/models/copy");
}

}  // namespace
}  // namespace gconv::heuristic
