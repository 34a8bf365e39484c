// Registry::select / rank / kernel_count without a GPU: the chosen kernel can
// implement every example problem, the fallback takes what no pool kernel
// can, ranking is ordered and agrees with select, and concurrent callers see
// the same answers.
#include <gtest/gtest.h>

#include <thread>

#include "gconv/problem_file.hpp"
#include "kernels/family.hpp"
#include "kernels/naive/naive.hpp"
#include "perf/analytic.hpp"
#include "pool/pool.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::spec;

std::vector<Problem> example_problems() {
  auto entries = read_problem_file(std::string(GCONV_SOURCE_DIR) + "/problems/example.csv");
  EXPECT_TRUE(entries.ok()) << entries.status().to_string();
  std::vector<Problem> out;
  if (entries.ok())
    for (const auto& e : *entries) out.push_back(e.problem);
  EXPECT_GE(out.size(), 20u);
  return out;
}

// The solution's kernel implements p and its workspace is the family's.
void expect_implements(const Solution& s, const Problem& p) {
  if (s.kernel.rfind("naive_", 0) == 0) {
    EXPECT_EQ(s.kernel, naive_kernel_name(naive_traits(p)));
    return;
  }
  auto t = parse_kernel_name(s.kernel);
  ASSERT_TRUE(t.ok()) << s.kernel;
  std::string why;
  EXPECT_TRUE(family_of(*t).can_implement(*t, p, &why)) << s.kernel << " on " << p.to_spec() << ": " << why;
  EXPECT_EQ(s.workspace_bytes, family_of(*t).workspace_bytes(*t, p)) << s.kernel;
}

TEST(RegistrySelect, AnalyticChoosesAnImplementingPoolKernelForEveryExample) {
  auto reg = make_registry();
  ASSERT_NE(reg, nullptr);
  for (const Problem& p : example_problems()) {
    auto s = reg->select(p, Policy::analytic());
    ASSERT_TRUE(s.ok()) << p.to_spec() << ": " << s.status().to_string();
    expect_implements(*s, p);
    // Every example has pool kernels: none should need the fallback.
    EXPECT_NE(s->kernel.rfind("naive_", 0), 0u) << p.to_spec();
    EXPECT_GT(s->predicted_ms, 0);
    EXPECT_EQ(s->measured_ms, -1);
    EXPECT_FALSE(s->from_tuning_cache);
    EXPECT_EQ(s->reason.rfind("analytic: ", 0), 0u) << s->reason;
    EXPECT_NE(s->reason.find("wave"), std::string::npos) << s->reason;
  }
}

TEST(RegistrySelect, HeuristicFallsBackToAnalyticAndSaysSo) {
  auto reg = make_registry();
  const Problem p = spec("fwd_bf16_n32c64k64_h56w56_y3x3_p1");
  auto h = reg->select(p, Policy::heuristic());
  auto a = reg->select(p, Policy::analytic());
  ASSERT_TRUE(h.ok() && a.ok());
  EXPECT_EQ(h->kernel, a->kernel);
  EXPECT_DOUBLE_EQ(h->predicted_ms, a->predicted_ms);
  EXPECT_NE(h->reason.find("no learned model"), std::string::npos) << h->reason;
}

TEST(RegistrySelect, ProblemNoPoolKernelImplementsGoesToTheNaiveFallback) {
  auto reg = make_registry("family==direct");  // direct kernels need C/G, K/G <= 8: a dense problem has none
  ASSERT_NE(reg, nullptr);
  const Problem p = spec("fwd_bf16_n8c64k64_h28w28_y3x3_p1");
  auto s = reg->select(p, Policy::analytic());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->kernel, "naive_fwd_bf16_2d");
  EXPECT_EQ(s->reason.rfind("fallback: no pool kernel implements " + p.to_spec(), 0), 0u) << s->reason;
  EXPECT_NE(s->reason.find("family==direct"), std::string::npos) << s->reason;
  EXPECT_EQ(s->workspace_bytes, 0u);
  EXPECT_GT(s->predicted_ms, 0);
  // Every policy falls back the same way, and rank lists the fallback alone.
  for (const Policy& pol : {Policy::heuristic(), Policy::exhaustive(), Policy::topk(3)}) {
    auto f = reg->select(p, pol);
    ASSERT_TRUE(f.ok()) << pol.to_string() << ": " << f.status().to_string();
    EXPECT_EQ(f->kernel, "naive_fwd_bf16_2d") << pol.to_string();
  }
  auto r = reg->rank(p, Policy::analytic(), 10);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].kernel, "naive_fwd_bf16_2d");
  // A depthwise problem still has direct kernels under that filter.
  auto dw = reg->select(spec("fwd_bf16_n8c64k64g64_h28w28_y3x3_p1"), Policy::analytic());
  ASSERT_TRUE(dw.ok());
  EXPECT_EQ(dw->kernel.rfind("direct_fwd_bf16_2d_", 0), 0u) << dw->kernel;
}

TEST(RegistrySelect, RankIsOrderedAndAgreesWithSelect) {
  auto reg = make_registry();
  for (const char* s : {"fwd_bf16_n32c256k256_h14w14_y3x3_p1", "bwd_weight_fp16_n16c64k128_h28w28_y3x3_p1",
                        "bwd_data_fp32_n8c32k32g2_d4h8w8_z3y3x3_s2_p1"}) {
    const Problem p = spec(s);
    auto r = reg->rank(p, Policy::analytic(), 25);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_FALSE(r->empty()) << s;
    EXPECT_LE(r->size(), 25u);
    // Ranked by the analytic order key: the estimate plus at most kHiddenTermShare of it.
    for (size_t i = 1; i < r->size(); ++i)
      EXPECT_LE((*r)[i - 1].predicted_ms, (*r)[i].predicted_ms * (1 + AnalyticBreakdown::kHiddenTermShare)) << s;
    for (const Solution& c : *r) expect_implements(c, p);
    auto best = reg->select(p, Policy::analytic());
    ASSERT_TRUE(best.ok());
    EXPECT_EQ(best->kernel, (*r)[0].kernel) << s;
    auto one = reg->rank(p, Policy::analytic(), 1);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->size(), 1u);
  }
}

TEST(RegistrySelect, KernelCountIsThePoolAfterTheFilter) {
  auto all = make_registry();
  auto igemm_only = make_registry("family==igemm");
  const DeviceInfo& d = testing::test_device();
  for (Direction dir : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
    for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
      auto pool = load_pool(*d.rules, dir, t);
      ASSERT_TRUE(pool.ok());
      size_t igemm = 0;
      for (const KernelTraits& k : *pool) igemm += k.family == Family::igemm;
      EXPECT_EQ(all->kernel_count(dir, t), pool->size()) << to_string(dir) << " " << to_string(t);
      EXPECT_EQ(igemm_only->kernel_count(dir, t), igemm) << to_string(dir) << " " << to_string(t);
      EXPECT_LT(igemm, pool->size()) << "premise: every pool has direct kernels";
    }
  }
}

TEST(RegistrySelect, KernelsNeedingMoreWorkspaceThanTheLimitAreNoCandidates) {
  const Problem p = spec("bwd_weight_bf16_n32c256k64_h56w56");  // long reduction: split-K wins
  auto unlimited = make_registry();
  auto s = unlimited->select(p, Policy::analytic());
  ASSERT_TRUE(s.ok());
  ASSERT_GT(s->workspace_bytes, 0u) << "premise: " << s->kernel << " uses split-K";
  RegistryOptions o;
  o.tuning_cache_path = "off";
  o.workspace_limit = s->workspace_bytes - 1;
  auto limited = Registry::create(o);
  ASSERT_TRUE(limited.ok());
  auto r = (*limited)->rank(p, Policy::analytic(), 100000);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->empty());
  for (const Solution& c : *r) EXPECT_LE(c.workspace_bytes, o.workspace_limit) << c.kernel;
  EXPECT_NE((*limited)->select(p, Policy::analytic())->kernel, s->kernel);
}

TEST(RegistrySelect, ErrorsAreStatuses) {
  auto reg = make_registry();
  Problem bad = spec("fwd_bf16_n2c8k8_h8w8");
  bad.g = 3;  // C not divisible by G
  auto s = reg->select(bad, Policy::analytic());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::invalid_problem);
  EXPECT_EQ(reg->rank(bad, Policy::analytic(), 3).status().code(), StatusCode::invalid_problem);

  Policy zero = Policy::topk(1);
  zero.k = 0;
  EXPECT_EQ(reg->select(spec("fwd_bf16_n2c8k8_h8w8"), zero).status().code(), StatusCode::invalid_argument);

  RegistryOptions o;
  o.kernel_filter = "tile_q > 3";
  o.tuning_cache_path = "off";
  auto r = Registry::create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::parse_error);
}

TEST(RegistrySelect, MeasuringWithoutAGpuOrCacheIsNoDevice) {
  auto reg = make_registry();
  if (reg->device_name() != "none") GTEST_SKIP() << "a GPU is present";
  for (const Policy& pol : {Policy::exhaustive(), Policy::topk(4)}) {
    auto s = reg->select(spec("fwd_bf16_n32c64k64_h56w56_y3x3_p1"), pol);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::no_device) << s.status().to_string();
  }
}

TEST(RegistrySelect, MemoizedAndFreshSelectionsAgree) {
  auto memo = make_registry("", "off", true), fresh = make_registry("", "off", false);
  for (int round = 0; round < 2; ++round) {
    for (const Problem& p : example_problems()) {
      auto a = memo->select(p, Policy::analytic());
      auto b = fresh->select(p, Policy::analytic());
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->kernel, b->kernel) << p.to_spec();
      EXPECT_EQ(a->reason, b->reason);
    }
  }
  // The memo keys on every field: a problem differing in one pad is not a hit.
  Problem p = spec("fwd_bf16_n32c144k144g144_h56w56_y3x3_p1");  // memory-bound: the estimate follows y's size
  Problem q = p;
  q.pad_hi[2] = 0;
  auto a = memo->select(p, Policy::analytic()), b = memo->select(q, Policy::analytic());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->predicted_ms, b->predicted_ms) << "q has a smaller output, so a different estimate";
  auto bf = fresh->select(q, Policy::analytic());
  ASSERT_TRUE(bf.ok());
  EXPECT_EQ(b->kernel, bf->kernel);
  EXPECT_DOUBLE_EQ(b->predicted_ms, bf->predicted_ms);
}

TEST(RegistrySelect, ConcurrentSelectsFromManyThreadsAgree) {
  const std::vector<Problem> problems = example_problems();
  auto reference = make_registry();
  std::vector<std::string> expected;
  for (const Problem& p : problems) expected.push_back(reference->select(p, Policy::analytic())->kernel);

  // Fresh registry: the threads race on the lazy pool loads and the memo.
  auto reg = make_registry();
  std::vector<std::thread> threads;
  std::vector<int> mismatches(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < problems.size(); ++i) {
          const size_t j = (i + size_t(t) * 3) % problems.size();
          auto s = reg->select(problems[j], t % 2 ? Policy::analytic() : Policy::heuristic());
          if (!s.ok() || s->kernel != expected[j]) ++mismatches[size_t(t)];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(mismatches[size_t(t)], 0) << "thread " << t;
}

}  // namespace
}  // namespace gconv
