// The compact form of a Forest (forest_compact.cpp): a mapped copy gives the
// same margins, contributions and importances as the forest it was written
// from, bit for bit, with every evaluation kernel; writing is reproducible;
// a truncated, corrupt or inconsistent file is a parse_error naming the file
// and the field, never a crash or a hang.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "heuristic/forest.hpp"
#include "heuristic/forest_compact.hpp"

namespace gconv::heuristic {
namespace {

namespace fs = std::filesystem;
using detail::Kernel;

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("gconv_compact_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& b) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << b;
}

// A random XGBoost JSON model: a chain of depth max_depth, then trees of
// depth 0..11, node ids
// in depth-first order (the reader renumbers them), NaN and infinite
// thresholds UBJSON could carry replaced by extreme finite ones here.
nlohmann::json random_model(int features, int trees, int max_depth, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  nlohmann::json list = nlohmann::json::array();
  for (int t = 0; t < trees; ++t) {
    std::vector<int> left, right, index, dl;
    std::vector<float> cond, hess, loss;
    // Tree 0 is a deep chain (the exact path: deeper than `sets` takes);
    // the others are 0..11 deep (the complete layout takes up to 10).
    const int depth = t == 0 ? max_depth : int(rng() % 12u);
    std::function<int(int)> grow = [&](int level) {
      const int id = int(left.size());
      left.push_back(-1), right.push_back(-1), index.push_back(0), dl.push_back(int(rng() % 2));
      cond.push_back(u(rng)), hess.push_back(1.0f + float(rng() % 100)), loss.push_back(float(rng() % 1000) / 10);
      // Chains (one side a leaf) reach the full depth without 2^depth nodes.
      if (level < depth && (t == 0 || level < 3 || rng() % 4 != 0)) {
        index[size_t(id)] = int(rng() % uint32_t(features));
        const bool chain = level >= (t == 0 ? 2 : 6);
        const int l = grow(level + 1);
        left[size_t(id)] = l;
        const int r = chain ? grow(depth) : grow(level + 1);
        right[size_t(id)] = r;
      }
      return id;
    };
    grow(0);
    list.push_back({{"left_children", left},   {"right_children", right}, {"split_indices", index},
                    {"split_conditions", cond}, {"default_left", dl},      {"sum_hessian", hess},
                    {"loss_changes", loss}});
  }
  nlohmann::json info = nlohmann::json::array();
  for (int t = 0; t < trees; ++t) info.push_back(0);
  return {{"learner",
           {{"learner_model_param", {{"base_score", "2.5E-1"}, {"num_feature", std::to_string(features)}}},
            {"objective", {{"name", "rank:ndcg"}}},
            {"gradient_booster", {{"name", "gbtree"}, {"model", {{"tree_info", info}, {"trees", list}}}}}}}};
}

std::vector<float> random_rows(int rows, int features, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.5f, 2.5f);
  std::vector<float> x(size_t(rows) * features);
  for (auto& v : x) v = rng() % 10 == 0 ? NAN : u(rng);
  return x;
}

void expect_same(const Forest& a, const Forest& b, int rows, uint32_t seed) {
  ASSERT_EQ(a.num_features(), b.num_features());
  ASSERT_EQ(a.num_trees(), b.num_trees());
  EXPECT_EQ(a.base_margin(), b.base_margin());
  EXPECT_EQ(a.objective(), b.objective());
  EXPECT_EQ(a.num_exact_trees(), b.num_exact_trees());
  EXPECT_EQ(a.feature_gain(), b.feature_gain());
  EXPECT_EQ(a.feature_splits(), b.feature_splits());
  const int F = a.num_features();
  const std::vector<float> x = random_rows(rows, F, seed);
  for (Kernel k : {Kernel::automatic, Kernel::traverse, Kernel::sets, Kernel::sets_portable}) {
    std::vector<float> pa(static_cast<size_t>(rows)), pb(static_cast<size_t>(rows), -1.0f);
    a.predict(x.data(), rows, pa.data(), k);
    b.predict(x.data(), rows, pb.data(), k);
    EXPECT_EQ(0, std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(float))) << "kernel " << int(k);
  }
  std::vector<float> ca(size_t(F) + 1), cb(size_t(F) + 1);
  for (int r = 0; r < std::min(rows, 50); ++r) {
    a.contributions(x.data() + size_t(r) * F, ca.data());
    b.contributions(x.data() + size_t(r) * F, cb.data());
    EXPECT_EQ(0, std::memcmp(ca.data(), cb.data(), ca.size() * sizeof(float))) << "row " << r;
  }
}

TEST(ForestCompact, MappedCopyPredictsBitForBit) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const nlohmann::json m = random_model(23, 60, 70, seed);
    auto f = Forest::from_json(m.dump());
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    ASSERT_GT(f->num_exact_trees(), 0) << "the deep tree must take the exact path";
    const std::string path = temp_path("same_" + std::to_string(seed) + ".gcf");
    uint64_t sum = 0;
    ASSERT_TRUE(f->write_compact(path, &sum).ok());
    auto g = Forest::load_compact(path, 23);
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    EXPECT_EQ(g->compact_checksum(), sum);
    expect_same(*f, *g, 700, seed + 10);
    // Written again, from the mapped copy: the same bytes.
    const std::string again = temp_path("again_" + std::to_string(seed) + ".gcf");
    ASSERT_TRUE(g->write_compact(again).ok());
    EXPECT_EQ(read_bytes(path), read_bytes(again));
    // The mapping outlives the file name and the first Forest.
    fs::remove(path);
    fs::remove(again);
    Forest copy = *g;
    g = Forest();
    expect_same(*f, copy, 64, seed + 20);
  }
}

TEST(ForestCompact, EmptyAndSingleLeafForests) {
  nlohmann::json m = random_model(3, 1, 0, 9);
  auto f = Forest::from_json(m.dump());
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  const std::string path = temp_path("leaf.gcf");
  ASSERT_TRUE(f->write_compact(path).ok());
  auto g = Forest::load_compact(path);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  expect_same(*f, *g, 20, 1);
  fs::remove(path);
}

class CompactCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    auto f = Forest::from_json(random_model(11, 30, 9, 5).dump());
    ASSERT_TRUE(f.ok());
    path_ = temp_path("bad.gcf");
    ASSERT_TRUE(f->write_compact(path_).ok());
    good_ = read_bytes(path_);
  }
  void TearDown() override { fs::remove(path_); }
  // Loads `bytes` as the file; expects a parse_error naming the file and `field`.
  void expect_refused(const std::string& bytes, const std::string& field) {
    write_bytes(path_, bytes);
    auto r = Forest::load_compact(path_, 11);
    ASSERT_FALSE(r.ok()) << "accepted a file that should fail on " << field;
    EXPECT_EQ(r.status().code(), StatusCode::parse_error) << r.status().to_string();
    EXPECT_NE(r.status().message().find(path_), std::string::npos) << r.status().to_string();
    EXPECT_NE(r.status().message().find(field), std::string::npos) << r.status().to_string();
  }
  // A payload edit with the checksum made right again: only the structural
  // checks can catch it.
  std::string resealed(std::string b) {
    const uint64_t sum = compact_file_checksum(b.data(), b.size());
    std::memcpy(&b[24], &sum, 8);
    return b;
  }
  uint64_t array_offset(const std::string& b, int id) {
    uint64_t off;
    std::memcpy(&off, &b[96 + 24 * id + 8], 8);
    return off;
  }
  std::string path_, good_;
};

TEST_F(CompactCorruption, TruncatedAtAnyLengthIsRefused) {
  for (size_t len : {size_t(0), size_t(10), size_t(95), size_t(96), size_t(200), good_.size() / 2, good_.size() - 1})
    expect_refused(good_.substr(0, len), "truncated");
  std::string longer = good_ + "x";
  expect_refused(longer, "file_bytes");
}

TEST_F(CompactCorruption, FlippedBytesFailTheChecksum) {
  for (size_t at : {size_t(100), size_t(300), good_.size() / 2, good_.size() - 1}) {
    std::string b = good_;
    b[at] = char(b[at] ^ 0x10);
    expect_refused(b, "checksum");
  }
}

TEST_F(CompactCorruption, HeaderFieldsAreChecked) {
  std::string b = good_;
  b[0] = 'X';
  expect_refused(b, "magic");
  b = good_;
  b[8] = 3;  // a version this build does not read
  expect_refused(b, "version");
  b = good_;
  float margin = 7.0f;  // header fields are under the checksum too
  std::memcpy(&b[40], &margin, 4);
  expect_refused(b, "checksum");
  write_bytes(path_, good_);
  auto other = Forest::load_compact(path_, 12);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("num_features"), std::string::npos) << other.status().to_string();
}

// Edits under a good checksum (made on purpose): the complete layout a
// selection walks is checked at load and refused.
TEST_F(CompactCorruption, LayoutIndicesOutsideTheirArraysAreRefusedAtLoad) {
  // A complete-layout split reading past the row.
  std::string b = good_;
  const uint64_t full = array_offset(b, 7);
  uint16_t off = 0xfff8;
  std::memcpy(&b[full], &off, 2);
  expect_refused(resealed(b), "column offsets");
  // A tree's complete layout starting past the end of its array.
  b = good_;
  const uint64_t split = array_offset(b, 3);
  uint32_t far = 0x7fffffff;
  std::memcpy(&b[split], &far, 4);
  expect_refused(resealed(b), "complete layout");
  // A tree's depth other than its depth entry (the walk's step count).
  b = good_;
  const uint64_t depth = array_offset(b, 5);
  b[depth] = char(b[depth] + 1);
  expect_refused(resealed(b), "depth");
  // The array table pointing outside the file.
  b = good_;
  uint64_t count = uint64_t(1) << 40;
  std::memcpy(&b[96 + 24 * 1 + 16], &count, 8);
  expect_refused(resealed(b), "outside the file");
}

// The node arrays (exact path, `sets`, contributions) of trees that have a
// complete layout are checked on first use instead: a bad one turns those
// off, and every prediction stays the complete layout's, exact.
TEST_F(CompactCorruption, BadNodesUnderAGoodChecksumLeaveSelectionExact) {
  auto good = Forest::load_compact(path_, 11);
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  const std::vector<float> x = random_rows(300, 11, 77);
  std::vector<float> want(300);
  good->predict(x.data(), 300, want.data(), Kernel::traverse);
  for (int edit = 0; edit < 2; ++edit) {
    std::string b = good_;
    const uint64_t nodes = array_offset(b, 1);
    if (edit == 0) {
      int32_t self = 0;  // the root's left child: the root itself (a cycle)
      std::memcpy(&b[nodes], &self, 4);
    } else {
      uint32_t feature = 11;  // the root's feature: past the row
      std::memcpy(&b[nodes + 4], &feature, 4);
    }
    write_bytes(path_, resealed(b));
    auto f = Forest::load_compact(path_, 11);
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    for (Kernel k : {Kernel::automatic, Kernel::traverse, Kernel::sets, Kernel::sets_portable}) {
      std::vector<float> got(300);
      f->predict(x.data(), 300, got.data(), k);
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float))) << "edit " << edit;
    }
    std::vector<float> c(12, -1.0f);
    f->contributions(x.data(), c.data());
    for (int i = 0; i < 11; ++i) EXPECT_EQ(c[size_t(i)], 0.0f);
    EXPECT_EQ(c[11], want[0]);
  }
}

// Random edits anywhere past the header, resealed so that only the
// structural checks stand between them and the evaluator: each file is
// refused with a parse_error or evaluates (every kernel, contributions)
// without faulting; refusals and acceptances are both seen.
TEST_F(CompactCorruption, RandomResealedEditsNeverFault) {
  std::mt19937 rng(1234);
  const std::vector<float> x = random_rows(200, 11, 3);
  int refused = 0, accepted = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string b = good_;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = 96 + rng() % (b.size() - 96);
      b[at] = char(rng() % 256);
    }
    write_bytes(path_, resealed(b));
    auto f = Forest::load_compact(path_, 11);
    if (!f.ok()) {
      EXPECT_EQ(f.status().code(), StatusCode::parse_error) << f.status().to_string();
      ++refused;
      continue;
    }
    ++accepted;
    std::vector<float> out(200), c(12);
    for (Kernel k : {Kernel::automatic, Kernel::traverse, Kernel::sets, Kernel::sets_portable})
      f->predict(x.data(), 200, out.data(), k);
    f->contributions(x.data(), c.data());
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(accepted, 0);
}

TEST(ForestCompact, NotARegularFileOrMissing) {
  auto dir = Forest::load_compact(fs::temp_directory_path().string());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("not a regular file"), std::string::npos) << dir.status().to_string();
  auto missing = Forest::load_compact(temp_path("none.gcf"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::not_found);
}

}  // namespace
}  // namespace gconv::heuristic
