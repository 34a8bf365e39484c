// Shards split a sweep into disjoint slices that cover it; merge drops exact
// duplicates and reports conflicting duplicates and gaps.
#include <gtest/gtest.h>

#include "bench/merge.hpp"
#include "bench/plan.hpp"
#include "bench/progress.hpp"

namespace gconv::bench {
namespace {

TEST(Shard, SlicesAreDisjointCoverAndBalanced) {
  const int n = 16;
  std::vector<int> per(n, 0);
  for (int k = 0; k < 40; ++k)
    for (int p = 0; p < 50; ++p) {
      const std::string kern = "igemm_k" + std::to_string(k), spec = "spec" + std::to_string(p);
      int hits = 0;
      for (int i = 0; i < n; ++i)
        if (in_shard(Shard{i, n}, kern, spec)) ++hits, ++per[i];
      EXPECT_EQ(hits, 1);
    }
  for (int c : per) EXPECT_GT(c, 2000 / n / 2);  // no shard under half its share
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cull);   // stable across builds and machines
}

TEST(Shard, ParseAcceptsIOverNOnly) {
  auto s = parse_shard("3/16");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 16);
  for (const char* bad : {"16/16", "-1/4", "3", "a/4", "1/0", "1/4x"}) EXPECT_FALSE(parse_shard(bad).ok()) << bad;
}

SweepTable table(std::vector<std::vector<std::string>> rows) {
  SweepTable t;
  t.header = {"kernel", "spec", "provider", "latency_ms"};
  for (auto& r : rows) {
    t.lines.push_back(r[0] + "," + r[1] + "," + r[2] + "," + r[3]);
    t.rows.push_back(r);
  }
  return t;
}

TEST(Merge, ExactDuplicatesDroppedConflictsAndGapsReported) {
  const SweepTable a = table({{"k1", "s1", "gconv", "1.0"}, {"k1", "s2", "gconv", "2.0"}});
  const SweepTable b = table({{"k1", "s2", "gconv", "2.0"},    // exact duplicate
                              {"k2", "s1", "gconv", "3.0"},
                              {"k1", "s1", "gconv", "9.0"}});  // same key, other result
  const std::set<RowKey> expected = {{"k1", "s1", "gconv"}, {"k1", "s2", "gconv"}, {"k2", "s1", "gconv"},
                                     {"k2", "s2", "gconv"}, {"k3", "s1", "gconv"}};
  auto m = merge_sweeps({a, b}, &expected);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->table.rows.size(), 3u);
  EXPECT_EQ(m->exact_duplicates, 1u);
  ASSERT_EQ(m->conflicts.size(), 1u);
  EXPECT_EQ(m->conflicts[0], (RowKey{"k1", "s1", "gconv"}));
  EXPECT_EQ(m->table.rows[0][3], "1.0");  // the first one read is kept
  EXPECT_EQ(m->gaps, (std::vector<RowKey>{{"k2", "s2", "gconv"}, {"k3", "s1", "gconv"}}));
}

TEST(Merge, ColumnsAreMatchedByName) {
  SweepTable a = table({{"k1", "s1", "gconv", "1.0"}});
  SweepTable b;
  b.header = {"latency_ms", "provider", "spec", "kernel"};
  b.rows = {{"4.0", "gconv", "s9", "k1"}};
  b.lines = {"4.0,gconv,s9,k1"};
  auto m = merge_sweeps({a, b}, nullptr);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->table.rows.size(), 2u);
  EXPECT_EQ(m->table.rows[1], (std::vector<std::string>{"k1", "s9", "gconv", "4.0"}));
  EXPECT_EQ(m->table.lines[1], "k1,s9,gconv,4.0");
  b.header[0] = "median";
  EXPECT_FALSE(merge_sweeps({a, b}, nullptr).ok());
}

TEST(Progress, LineShowsCountsRateEtaAndFailures) {
  EXPECT_EQ(Progress::format(50, 200, 10.0, 3), "50/200 (25.0%), 5.0 items/s, ETA 0m30s, 3 failed");
  EXPECT_EQ(Progress::format(0, 10, 0.0, 0), "0/10 (0.0%), 0.0 items/s, ETA ?, 0 failed");
}

}  // namespace
}  // namespace gconv::bench
