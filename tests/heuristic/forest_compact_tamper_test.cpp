// A compact model file (model.gcf) holds each tree twice: as nodes (the
// `sets` kernel, contributions, deep trees) and as a complete layout (what a
// selection walks). A file whose checksum was made to match after one of
// the two was changed loaded and gave different margins per kernel (found by
// tests/fuzz fuzz_model). Now the first use of the nodes checks that both
// are one tree; when they are not, every kernel gives the complete layout's
// margins and contributions are the margin as bias alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "heuristic/forest.hpp"
#include "heuristic/forest_compact.hpp"

namespace gconv::heuristic {
namespace {

using detail::Kernel;

// root: f0 < 0.5 ? leaf 1 : (f1 < 0 ? leaf 2 : leaf 3); missing goes left at the root.
const char* kModel = R"({"learner": {
  "learner_model_param": {"base_score": "0E0", "num_feature": "2"},
  "objective": {"name": "reg:squarederror"},
  "gradient_booster": {"name": "gbtree", "model": {"tree_info": [0], "trees": [{
    "left_children": [1, -1, 3, -1, -1], "right_children": [2, -1, 4, -1, -1],
    "split_indices": [0, 0, 1, 0, 0], "split_conditions": [0.5, 1.0, 0.0, 2.0, 3.0],
    "default_left": [1, 0, 0, 0, 0], "sum_hessian": [4, 1, 3, 2, 1], "loss_changes": [1, 0, 1, 0, 0]}]}}}})";

constexpr uint32_t kNodesArray = 1, kFullValueArray = 8;  // ArrayId in forest_compact.cpp

struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("gconv_tamper_" + std::to_string(::getpid()) + ".gcf")).string();
  ~TempFile() { std::filesystem::remove(path); }
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The file offset of an array's first element (its table entry: id, element size, offset, count).
uint64_t array_offset(const std::string& file, uint32_t array) {
  uint64_t off = 0;
  std::memcpy(&off, file.data() + 96 + 24 * array + 8, 8);
  return off;
}

// Writes `file` with its header checksum recomputed, as a forger would.
void write_with_checksum(std::string file, const std::string& path) {
  std::memset(file.data() + 24, 0, 8);
  const uint64_t sum = compact_file_checksum(file.data(), file.size());
  std::memcpy(file.data() + 24, &sum, 8);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << file;
}

std::vector<float> margins(const Forest& f, const std::vector<float>& x, Kernel k) {
  std::vector<float> out(x.size() / 2);
  f.predict(x.data(), int(out.size()), out.data(), k);
  return out;
}

// 16 rows: each of the three leaves, and missing values.
std::vector<float> rows() {
  const float pairs[4][2] = {{0.0f, 0.0f}, {1.0f, -1.0f}, {1.0f, 1.0f}, {NAN, NAN}};
  std::vector<float> x;
  for (int r = 0; r < 16; ++r) x.insert(x.end(), pairs[r % 4], pairs[r % 4] + 2);
  return x;
}

class CompactTamper : public ::testing::Test {
 protected:
  void SetUp() override {
    saved = log_level();
    set_log_level(LogLevel::quiet);  // the refused check warns once
    auto f = Forest::from_json(kModel);
    ASSERT_TRUE(f.ok()) << f.status().message();
    ASSERT_TRUE(f->write_compact(file.path).ok());
    bytes = read_bytes(file.path);
  }
  void TearDown() override { set_log_level(saved); }
  LogLevel saved = LogLevel::warn;
  TempFile file;
  std::string bytes;
};

TEST_F(CompactTamper, GenuineFileAgreesEverywhereAndKeepsContributions) {
  auto g = Forest::load_compact(file.path, 2);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const std::vector<float> x = rows();
  const std::vector<float> want = {1, 2, 3, 1};  // NaN row: missing goes left at the root
  const std::vector<float> t = margins(*g, x, Kernel::traverse);
  for (size_t r = 0; r < t.size(); ++r) EXPECT_EQ(t[r], want[r % 4]) << r;
  EXPECT_EQ(margins(*g, x, Kernel::sets_portable), t);
  EXPECT_EQ(margins(*g, x, Kernel::sets), t);
  // Row (1, 1): the path root -> node 2 -> leaf 3 credits both features.
  float c[3];
  g->contributions(&x[4], c);
  EXPECT_NE(c[0], 0.0f);
  EXPECT_NE(c[1], 0.0f);
  EXPECT_FLOAT_EQ(c[0] + c[1] + c[2], 3.0f);
}

TEST_F(CompactTamper, ChangedCompleteLayoutLeafGivesOneAnswerForEveryKernel) {
  // Leaf 1 covers the first two leaf slots of the depth-2 layout; the
  // padding split under it sends every row right, to slot 1, which now says 7.
  std::string b = bytes;
  const float seven = 7.0f;
  std::memcpy(b.data() + array_offset(b, kFullValueArray) + 4, &seven, 4);
  write_with_checksum(b, file.path);
  auto g = Forest::load_compact(file.path, 2);
  ASSERT_TRUE(g.ok()) << g.status().message();  // the eager checks do not read the nodes
  const std::vector<float> x = rows();
  const std::vector<float> t = margins(*g, x, Kernel::traverse);
  EXPECT_EQ(t[0], 7.0f);  // what a selection walks
  EXPECT_EQ(margins(*g, x, Kernel::sets_portable), t);
  EXPECT_EQ(margins(*g, x, Kernel::sets), t);
  EXPECT_EQ(margins(*g, x, Kernel::automatic), t);
  float c[3];
  g->contributions(&x[0], c);  // the check refused the nodes: the margin as bias alone
  EXPECT_EQ(c[0], 0.0f);
  EXPECT_EQ(c[1], 0.0f);
  EXPECT_EQ(c[2], 7.0f);
}

TEST_F(CompactTamper, ChangedNodeGivesOneAnswerForEveryKernel) {
  // Node 4 (leaf 3): 16-byte nodes {left, feature_bits, value, mean}.
  std::string b = bytes;
  const float five = 5.0f;
  std::memcpy(b.data() + array_offset(b, kNodesArray) + 4 * 16 + 8, &five, 4);
  write_with_checksum(b, file.path);
  auto g = Forest::load_compact(file.path, 2);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const std::vector<float> x = rows();
  const std::vector<float> t = margins(*g, x, Kernel::traverse);
  EXPECT_EQ(t[2], 3.0f);  // row (1, 1)
  EXPECT_EQ(margins(*g, x, Kernel::sets_portable), t);
  EXPECT_EQ(margins(*g, x, Kernel::sets), t);
}

}  // namespace
}  // namespace gconv::heuristic
