// The order of a sweep's work list (order_work) and --policy's restriction
// (keep_picks): each problem's provider item comes before its gconv items,
// so every prefix of the list that reaches a problem's gconv items holds
// that problem's provider item; nothing is lost or duplicated against the
// plain candidate list; shard, resume and unsupported pairs are honoured.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/plan.hpp"

namespace gconv::bench {
namespace {

const std::vector<std::string> kNames = {"gconv", "cudnn"};
const DoneFn kNothingDone = [](const std::string&, const std::string&, const std::string&) { return false; };

TEST(WorkOrder, EveryPrefixHasTheProviderRowsOfItsProblems) {
  auto plan = build_plan({"example", "all", "", 0});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  std::vector<bool> app;
  const auto cands = candidate_items(*plan, &app);
  const WorkList w = order_work(*plan, cands, app, kNames, {0, 1}, Shard{}, kNothingDone);

  size_t applicable = 0;
  for (bool a : app) applicable += a;
  const size_t problems = plan->problems.size();
  // 24 rows x 3 directions, less 6 repeats: example.csv lists some shapes
  // in more than one direction, and a problem is planned once (PlanDedupe).
  ASSERT_EQ(problems, 66u);
  EXPECT_EQ(plan->duplicates, 6u);
  EXPECT_EQ(w.items.size(), applicable + problems);
  EXPECT_EQ(w.unsupported.size(), cands.size() - applicable);
  EXPECT_EQ(w.skipped, 0u);

  // Walk the list as a time-bounded sweep would: a gconv item of a problem
  // whose cudnn item has not come yet would be a prefix without its row.
  std::set<int> provider_seen;
  std::set<std::pair<int, int>> gconv_seen;
  int last_problem = -1;
  for (const WorkItem& it : w.items) {
    EXPECT_GE(it.problem, last_problem) << "problem-major order";
    last_problem = it.problem;
    if (it.kernel < 0) {
      EXPECT_EQ(it.provider, 1);
      EXPECT_TRUE(provider_seen.insert(it.problem).second) << "two cudnn items for problem " << it.problem;
    } else {
      EXPECT_EQ(it.provider, 0);
      EXPECT_TRUE(provider_seen.count(it.problem)) << "gconv item before cudnn's for problem " << it.problem;
      EXPECT_TRUE(gconv_seen.insert({it.problem, it.kernel}).second);
    }
  }
  EXPECT_EQ(provider_seen.size(), problems);
  // The gconv items are exactly the applicable candidates, in their order.
  std::vector<std::pair<int, int>> want, got;
  for (size_t i = 0; i < cands.size(); ++i)
    if (app[i]) want.push_back({cands[i].problem, cands[i].kernel});
  for (const WorkItem& it : w.items)
    if (it.kernel >= 0) got.push_back({it.problem, it.kernel});
  EXPECT_EQ(got, want);
}

TEST(WorkOrder, ShardsPartitionAndResumeSkips) {
  auto plan = build_plan({"example", "fwd", "", 0});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  std::vector<bool> app;
  const auto cands = candidate_items(*plan, &app);
  const WorkList whole = order_work(*plan, cands, app, kNames, {0, 1}, Shard{}, kNothingDone);
  size_t total = 0;
  std::set<std::tuple<int, int, int>> seen;
  for (int i = 0; i < 3; ++i) {
    const WorkList part = order_work(*plan, cands, app, kNames, {0, 1}, Shard{i, 3}, kNothingDone);
    total += part.items.size();
    for (const auto& it : part.items) EXPECT_TRUE(seen.insert({it.problem, it.kernel, it.provider}).second);
  }
  EXPECT_EQ(total, whole.items.size());

  // Resume: the rows of the first problem are in the output already.
  const std::string spec0 = plan->specs[0];
  size_t first_problem_items = 0;
  for (const auto& it : whole.items) first_problem_items += plan->specs[size_t(it.problem)] == spec0;
  const WorkList resumed = order_work(*plan, cands, app, kNames, {0, 1}, Shard{},
                                      [&](const std::string&, const std::string& spec, const std::string&) {
                                        return spec == spec0;
                                      });
  size_t inapplicable0 = 0;
  for (size_t i = 0; i < cands.size(); ++i) inapplicable0 += plan->specs[size_t(cands[i].problem)] == spec0 && !app[i];
  EXPECT_EQ(resumed.items.size(), whole.items.size() - first_problem_items);
  EXPECT_EQ(resumed.skipped, first_problem_items + inapplicable0);

  // Providers alone: one item per problem, none of gconv.
  const WorkList cudnn_only = order_work(*plan, cands, app, kNames, {1}, Shard{}, kNothingDone);
  EXPECT_EQ(cudnn_only.items.size(), plan->problems.size());
  EXPECT_TRUE(cudnn_only.unsupported.empty());
}

TEST(WorkOrder, KeepPicksKeepsExactlyThePickedPairs) {
  auto plan = build_plan({"example", "fwd", "", 0});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  std::vector<bool> app;
  auto cands = candidate_items(*plan, &app);
  // Picks: the first applicable kernel of even problems, the first two of
  // problem 1, nothing for the others, plus a kernel of another direction
  // (never a candidate of these problems: keeps nothing).
  std::vector<std::vector<int>> picks(plan->problems.size());
  std::map<int, std::vector<int>> applicable_of;
  for (size_t i = 0; i < cands.size(); ++i)
    if (app[i]) applicable_of[cands[i].problem].push_back(cands[i].kernel);
  std::set<std::pair<int, int>> want;
  for (auto& [p, ks] : applicable_of) {
    const size_t n = p == 1 ? 2 : (p % 2 == 0 ? 1 : 0);
    for (size_t j = 0; j < n && j < ks.size(); ++j) {
      picks[size_t(p)].push_back(ks[j]);
      want.insert({p, ks[j]});
    }
  }
  picks[0].push_back(-5);
  keep_picks(picks, &cands, &app);
  ASSERT_EQ(cands.size(), app.size());
  std::set<std::pair<int, int>> got;
  for (size_t i = 0; i < cands.size(); ++i) {
    EXPECT_TRUE(app[i]);
    got.insert({cands[i].problem, cands[i].kernel});
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(cands.size(), want.size());
  const WorkList w = order_work(*plan, cands, app, kNames, {0, 1}, Shard{}, kNothingDone);
  EXPECT_EQ(w.items.size(), want.size() + plan->problems.size());
}

}  // namespace
}  // namespace gconv::bench
