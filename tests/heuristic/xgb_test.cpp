// The XGBoost wrapper: training, prediction transforms, model files in both
// formats, warm start, and errors as Status (never a throw or a crash).
#include "heuristic/xgb.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "xgb_test_util.hpp"

namespace gconv::heuristic {
namespace {

using testing::have_xgboost;
using testing::small_params;
using testing::synthetic;

#define SKIP_WITHOUT_XGBOOST()                                   \
  if (!have_xgboost()) {                                         \
    EXPECT_EQ(Booster::train(synthetic(10, 4, 1), TrainParams{}) \
                  .status()                                      \
                  .code(),                                       \
              StatusCode::not_supported);                        \
    GTEST_SKIP() << "built without XGBoost";                     \
  }

std::filesystem::path temp_dir() {
  auto d = std::filesystem::temp_directory_path() /
           ("gconv_xgb_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(d);
  return d;
}

TEST(XgbBooster, VersionIs16OrNewer) {
  SKIP_WITHOUT_XGBOOST();
  const std::string v = Booster::xgboost_version();
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(v.c_str(), "%d.%d", &major, &minor), 2) << v;
  EXPECT_TRUE(major > 1 || (major == 1 && minor >= 6)) << v;
}

TEST(XgbBooster, TrainsAndPredictsMarginAndTransform) {
  SKIP_WITHOUT_XGBOOST();
  TrainData d = synthetic(400, 8, 1);
  Result<Booster> reg = Booster::train(d, small_params("reg:squarederror", 20, 4));
  ASSERT_TRUE(reg.ok()) << reg.status().to_string();
  EXPECT_EQ(reg->num_features(), 8);
  EXPECT_EQ(reg->boosted_rounds(), 20);
  auto margin = reg->predict(d.x.data(), d.rows, d.cols, true);
  auto value = reg->predict(d.x.data(), d.rows, d.cols, false);
  ASSERT_TRUE(margin.ok() && value.ok());
  ASSERT_EQ(margin->size(), 400u);
  EXPECT_EQ(*margin, *value);  // identity link
  // It learned something: the training error is far below the label variance.
  double err = 0, var = 0, mean = 0;
  for (float y : d.label) mean += y / d.rows;
  for (int r = 0; r < d.rows; ++r) {
    err += std::pow((*margin)[r] - d.label[r], 2);
    var += std::pow(d.label[r] - mean, 2);
  }
  EXPECT_LT(err, 0.1 * var);

  // binary:logistic: the value is the sigmoid of the margin.
  for (float& y : d.label) y = y > 0 ? 1.0f : 0.0f;
  Result<Booster> clf = Booster::train(d, small_params("binary:logistic", 10, 3));
  ASSERT_TRUE(clf.ok()) << clf.status().to_string();
  auto m = clf->predict(d.x.data(), d.rows, d.cols, true);
  auto p = clf->predict(d.x.data(), d.rows, d.cols, false);
  ASSERT_TRUE(m.ok() && p.ok());
  for (int r = 0; r < d.rows; ++r) EXPECT_NEAR((*p)[r], 1.0 / (1.0 + std::exp(-(*m)[r])), 1e-6);
}

TEST(XgbBooster, ModelFilesRoundTripInBothFormats) {
  SKIP_WITHOUT_XGBOOST();
  TrainData d = synthetic(300, 6, 2);
  Result<Booster> b = Booster::train(d, small_params("reg:squarederror", 15, 5));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto want = b->predict(d.x.data(), d.rows, d.cols);
  ASSERT_TRUE(want.ok());
  const auto dir = temp_dir();
  for (const char* name : {"m.json", "m.ubj"}) {
    const std::string path = (dir / name).string();
    ASSERT_TRUE(b->save_file(path).ok());
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    Result<Booster> l = Booster::load_file(path);
    ASSERT_TRUE(l.ok()) << l.status().to_string();
    EXPECT_EQ(l->num_features(), 6);
    EXPECT_EQ(l->boosted_rounds(), 15);
    auto got = l->predict(d.x.data(), d.rows, d.cols);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, *want) << name;
  }
  // The JSON text is XGBoost's model JSON; the buffer loader reads it back.
  Result<std::string> json = b->save_json();
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"gbtree\""), std::string::npos);
  Result<Booster> from_text = Booster::load_buffer(*json);
  ASSERT_TRUE(from_text.ok()) << from_text.status().to_string();
  EXPECT_EQ(*from_text->predict(d.x.data(), d.rows, d.cols), *want);

  const Status bad_ext = b->save_file((dir / "m.bin").string());
  EXPECT_EQ(bad_ext.code(), StatusCode::invalid_argument);
  std::filesystem::remove_all(dir);
}

TEST(XgbBooster, ErrorsAreStatuses) {
  SKIP_WITHOUT_XGBOOST();
  TrainData d = synthetic(50, 4, 3);

  TrainData short_label = d;
  short_label.label.pop_back();
  EXPECT_EQ(Booster::train(short_label, small_params("reg:squarederror", 2, 2)).status().code(),
            StatusCode::invalid_argument);
  TrainData bad_groups = d;
  bad_groups.group_sizes = {10, 10};
  EXPECT_EQ(Booster::train(bad_groups, small_params("rank:pairwise", 2, 2)).status().code(),
            StatusCode::invalid_argument);

  // XGBoost itself rejects this; its message comes through.
  Result<Booster> bad_obj = Booster::train(d, small_params("reg:no_such_objective", 2, 2));
  ASSERT_FALSE(bad_obj.ok());
  EXPECT_EQ(bad_obj.status().code(), StatusCode::invalid_argument);
  EXPECT_NE(bad_obj.status().message().find("XGBoost"), std::string::npos);
  EXPECT_NE(bad_obj.status().message().find("no_such_objective"), std::string::npos)
      << bad_obj.status().message();

  Result<Booster> b = Booster::train(d, small_params("reg:squarederror", 2, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->predict(d.x.data(), d.rows, 5).status().code(), StatusCode::invalid_argument);

  EXPECT_EQ(Booster::load_file("/nonexistent/gconv/model.json").status().code(), StatusCode::not_found);
  Result<Booster> garbage = Booster::load_buffer("{\"learner\": 42");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::parse_error);
  EXPECT_NE(garbage.status().message().find("XGBoosterLoadModelFromBuffer"), std::string::npos);

  Booster empty;
  EXPECT_EQ(empty.num_features(), 0);
  EXPECT_EQ(empty.predict(d.x.data(), d.rows, d.cols).status().code(), StatusCode::invalid_argument);
}

TEST(XgbBooster, WarmStartContinuesTheModel) {
  SKIP_WITHOUT_XGBOOST();
  TrainData d = synthetic(300, 6, 4);
  Result<Booster> first = Booster::train(d, small_params("reg:squarederror", 10, 4));
  ASSERT_TRUE(first.ok());
  Result<Booster> more = Booster::train(d, small_params("reg:squarederror", 10, 4), &*first);
  ASSERT_TRUE(more.ok()) << more.status().to_string();
  EXPECT_EQ(more->boosted_rounds(), 20);
  EXPECT_EQ(first->boosted_rounds(), 10);  // the warm start model is left as it was
  // More rounds fit the training data better.
  auto p10 = first->predict(d.x.data(), d.rows, d.cols);
  auto p20 = more->predict(d.x.data(), d.rows, d.cols);
  double e10 = 0, e20 = 0;
  for (int r = 0; r < d.rows; ++r) {
    e10 += std::pow((*p10)[r] - d.label[r], 2);
    e20 += std::pow((*p20)[r] - d.label[r], 2);
  }
  EXPECT_LT(e20, e10);

  TrainData other = synthetic(100, 5, 5);
  EXPECT_EQ(Booster::train(other, small_params("reg:squarederror", 2, 2), &*first).status().code(),
            StatusCode::invalid_argument);
}

}  // namespace
}  // namespace gconv::heuristic
