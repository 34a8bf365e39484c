// Selection's fast path (per-kernel terms computed at pool load, problem
// terms once per problem, the families' rules split at that seam) must give
// exactly what a straightforward computation gives: every pool kernel asked
// through its family's one-shot can_implement and workspace_bytes, estimated
// by the one-shot analytic_ms, and (heuristic policy) scored by the model
// from features computed from scratch. Compared on a few hundred problems of
// the bundled sets, every direction, 1D/2D/3D and all three dtypes: the
// candidate list in order, the pick and the predicted times, bit for bit,
// and the estimate's summary in each reason. (The fast path shares one test
// and one estimate among the implicit-GEMM kernels of a class per problem:
// the odd shapes of train_odd.csv cover the classes' corners.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gconv/problem_file.hpp"
#include "heuristic/candidates.hpp"
#include "heuristic/features.hpp"
#include "heuristic/model.hpp"
#include "problem/fold.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::test_device;

const std::string kSource = GCONV_SOURCE_DIR;

// Bundled problems: the held-out real shapes (fwd bf16), the examples, and
// resnet50's three directions; plus each of a slice of them in the other
// directions and dtypes (those that are valid), so that every pool is used.
std::vector<Problem> identity_problems() {
  std::vector<Problem> out;
  size_t held_out = 0;
  for (const char* file : {"validation_holdout.csv", "example.csv", "resnet50_n32.jsonl", "train_odd.csv"}) {
    auto entries = read_problem_file(kSource + "/problems/" + file);
    EXPECT_TRUE(entries.ok()) << file << ": " << entries.status().to_string();
    if (!entries.ok()) continue;
    for (size_t i = 0; i < entries->size(); ++i) {
      // Every other held-out problem: the test stays a few seconds long.
      if ((std::string(file) == "validation_holdout.csv" || std::string(file) == "train_odd.csv") && i % 2 != 0)
        continue;
      held_out += std::string(file) == "validation_holdout.csv";
      out.push_back((*entries)[i].problem);
    }
  }
  EXPECT_GT(held_out, 200u);
  const size_t base = out.size();
  for (size_t i = 0; i < base; i += 7)
    for (int dir = 0; dir < 3; ++dir)
      for (int dt = 0; dt < 3; ++dt) {
        Problem p = out[i];
        p.direction = Direction(dir);
        p.dtype = DType(dt);
        if (p.validate().ok() && !(p.direction == out[i].direction && p.dtype == out[i].dtype)) out.push_back(p);
      }
  return out;
}

struct Reference {
  std::vector<const KernelTraits*> kernels;  // applicable, in analytic order
  std::vector<double> ms;
  std::vector<std::string> summary;  // AnalyticBreakdown::summary
};

// The applicable kernels of p in analytic order (order key, then pool order),
// through the one-shot calls only. `pools` by direction and dtype.
Reference reference_ranking(const Problem& p, const std::vector<KernelTraits> (&pools)[3][3], size_t workspace_limit) {
  const DeviceInfo& d = test_device();
  std::vector<std::pair<double, uint32_t>> order;
  std::vector<const KernelTraits*> found;
  std::vector<double> ms;
  std::vector<std::string> summary;
  for (const KernelTraits& t : pools[int(p.direction)][int(p.dtype)]) {
    if (t.ndim != p.ndim) continue;
    const KernelFamily& f = family_of(t);
    if (!f.can_implement(t, p, nullptr) || f.workspace_bytes(t, p) > workspace_limit) continue;
    AnalyticBreakdown b;
    const double est = analytic_ms(t, p, d, &b);
    order.emplace_back(b.order_key(), uint32_t(found.size()));
    found.push_back(&t);
    ms.push_back(est);
    summary.push_back(b.summary());
  }
  std::sort(order.begin(), order.end());
  Reference r;
  for (const auto& [key, i] : order) {
    r.kernels.push_back(found[i]);
    r.ms.push_back(ms[i]);
    r.summary.push_back(summary[i]);
  }
  return r;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

class SelectIdentity : public ::testing::Test {
 protected:
  void SetUp() override {
    const DeviceInfo& d = test_device();
    ASSERT_NE(d.rules, nullptr);
    for (int dir = 0; dir < 3; ++dir)
      for (int dt = 0; dt < 3; ++dt) {
        auto pool = load_pool(*d.rules, Direction(dir), DType(dt));
        ASSERT_TRUE(pool.ok()) << pool.status().to_string();
        pools_[dir][dt] = std::move(pool).value();
      }
    problems_ = identity_problems();
    ASSERT_GT(problems_.size(), 400u);
  }
  std::vector<KernelTraits> pools_[3][3];
  std::vector<Problem> problems_;
};

TEST_F(SelectIdentity, AnalyticPolicyRanksExactlyAsTheOneShotCalls) {
  auto reg = make_registry("", "off", /*memoize=*/false, "off");
  ASSERT_NE(reg, nullptr);
  const size_t limit = RegistryOptions{}.workspace_limit;
  size_t ranked = 0;
  for (const Problem& given : problems_) {
    const Problem p = fold_patches(given);
    const Reference ref = reference_ranking(p, pools_, limit);
    auto r = reg->rank(given, Policy::analytic(), std::numeric_limits<size_t>::max());
    ASSERT_TRUE(r.ok()) << given.to_spec() << ": " << r.status().to_string();
    if (ref.kernels.empty()) continue;  // the fallback: not this test's subject
    ASSERT_EQ(r->size(), ref.kernels.size()) << given.to_spec();
    for (size_t i = 0; i < ref.kernels.size(); ++i) {
      ASSERT_EQ((*r)[i].kernel, kernel_name(*ref.kernels[i])) << given.to_spec() << " rank " << i + 1;
      ASSERT_TRUE(same_bits((*r)[i].predicted_ms, ref.ms[i])) << given.to_spec() << " rank " << i + 1;
      ASSERT_EQ((*r)[i].reason, "analytic: " + ref.summary[i]) << given.to_spec() << " rank " << i + 1;
    }
    auto s = reg->select(given, Policy::analytic());
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->kernel, r->front().kernel) << given.to_spec();
    EXPECT_TRUE(same_bits(s->predicted_ms, ref.ms.front())) << given.to_spec();
    ++ranked;
  }
  EXPECT_GT(ranked, 400u);
}

TEST_F(SelectIdentity, HeuristicPolicyScoresExactlyAsFeaturesFromScratch) {
  const std::string models = kSource + "/models";
  auto reg = make_registry("", "off", /*memoize=*/false, models);
  ASSERT_NE(reg, nullptr);
  // The model and feature device as the registry chooses them (no GPU here:
  // the model's own GPU).
  const DeviceInfo& d = test_device();
  auto sel = heuristic::find_model(models, heuristic::gpu_props_of(d), nullptr);
  ASSERT_TRUE(sel.ok()) << sel.status().to_string();
  const heuristic::GpuProps props = d.has_gpu ? heuristic::gpu_props_of(d) : (*sel)->manifest().gpu;
  const DeviceInfo fdev = heuristic::device_info_for(props, d.rules);
  const RegistryOptions defaults;
  size_t scored = 0;
  for (const Problem& given : problems_) {
    const Problem p = fold_patches(given);
    if (!(*sel)->covers(p.dtype)) continue;
    const Reference ref = reference_ranking(p, pools_, defaults.workspace_limit);
    if (ref.kernels.empty()) continue;
    // The model's candidates: the analytic top K plus each class's best.
    std::vector<std::pair<double, uint32_t>> order, kept;
    std::vector<uint8_t> cls;
    for (size_t i = 0; i < ref.kernels.size(); ++i) {
      order.emplace_back(double(i), uint32_t(i));  // already in analytic order
      cls.push_back(uint8_t(heuristic::kernel_class(*ref.kernels[i])));
    }
    heuristic::model_candidates_unsorted(order, cls.data(), defaults.model_candidates, kept);
    std::vector<const KernelTraits*> ks;
    for (const auto& [key, i] : kept) ks.push_back(ref.kernels[i]);
    std::vector<float> scores(ks.size()), scratch;
    (*sel)->score(p, ks.data(), ks.size(), props, fdev, scores.data(), scratch);
    std::vector<size_t> idx(ks.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });

    auto r = reg->rank(given, Policy::heuristic(), std::numeric_limits<size_t>::max());
    ASSERT_TRUE(r.ok()) << given.to_spec() << ": " << r.status().to_string();
    ASSERT_EQ(r->size(), ks.size()) << given.to_spec();
    for (size_t j = 0; j < idx.size(); ++j) {
      const size_t i = idx[j];
      ASSERT_EQ((*r)[j].kernel, kernel_name(*ks[i])) << given.to_spec() << " place " << j + 1;
      const double model_ms = (*sel)->predicted_ms(scores[i]);
      const double ms = model_ms > 0 ? model_ms : ref.ms[kept[i].second];
      ASSERT_TRUE(same_bits((*r)[j].predicted_ms, ms)) << given.to_spec() << " place " << j + 1;
    }
    auto s = reg->select(given, Policy::heuristic());
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->kernel, kernel_name(*ks[idx.front()])) << given.to_spec();
    EXPECT_TRUE(same_bits(s->predicted_ms, (*r)[0].predicted_ms)) << given.to_spec();
    EXPECT_EQ(s->reason, (*r)[0].reason) << given.to_spec();
    ++scored;
  }
  EXPECT_GT(scored, 400u);
}

// The estimate's per-kernel terms (AnalyticKernel) are the expressions the
// estimate would otherwise evaluate per call: with them withheld (a dtype
// other than the problem's makes analytic_ms compute them again), every
// estimate has the same bits.
TEST_F(SelectIdentity, PrecomputedKernelTermsGiveTheSameEstimates) {
  const DeviceInfo& d = test_device();
  size_t checked = 0;
  for (size_t n = 0; n < problems_.size(); n += 5) {
    const Problem p = fold_patches(problems_[n]);
    const AnalyticProblem ap = analytic_problem(p, d);
    const DirectProblem dp = direct_problem(p);
    for (const KernelTraits& t : pools_[int(p.direction)][int(p.dtype)]) {
      if (t.ndim != p.ndim || !family_of(t).can_implement(t, p, nullptr)) continue;
      DirectPlan plan;
      const DirectPlan* pl = t.family == Family::direct && plan_direct(t, dp, &plan) ? &plan : nullptr;
      AnalyticKernel ak = analytic_kernel(t, d);
      AnalyticBreakdown fast, slow;
      const double a = analytic_ms(t, ak, ap, d, &fast, pl);
      ak.dtype = DType((int(ak.dtype) + 1) % 3);
      const double b = analytic_ms(t, ak, ap, d, &slow, pl);
      ASSERT_TRUE(same_bits(a, b)) << kernel_name(t) << " on " << p.to_spec();
      ASSERT_TRUE(same_bits(fast.order_key(), slow.order_key())) << kernel_name(t) << " on " << p.to_spec();
      ++checked;
    }
  }
  EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace gconv
