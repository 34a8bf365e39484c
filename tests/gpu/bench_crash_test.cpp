// gconv bench crash isolation on a GPU: with GCONV_TEST_FAULT_KERNEL naming a
// kernel, the worker measuring it dies; its rows must be "crashed", every
// other row "ok", later rows still measured, and each key present once.
// Runs the gconv binary next to this test's build dir ($GCONV_CLI overrides).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "bench/plan.hpp"
#include "bench/supervisor.hpp"
#include "perf/sweep_csv.hpp"

namespace gconv::bench {
namespace {

std::string gconv_cli() {
  if (const char* e = std::getenv("GCONV_CLI"); e && *e) return e;
  return (std::filesystem::path(self_executable()).parent_path().parent_path() / "gconv").string();
}

TEST(BenchCrash, FaultingKernelIsCrashedAndTheSweepGoesOn) {
  const auto dir = std::filesystem::temp_directory_path() / ("gconv_bench_crash_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string problems = (dir / "p.txt").string(), out = (dir / "out.csv").string();
  {
    std::FILE* f = std::fopen(problems.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "fwd_bf16_n1c32k32g32_h14w14_y3x3_s1_p1_dil1 a\nfwd_bf16_n2c64k64g64_h8w8_y3x3_s1_p1_dil1 b\n");
    std::fclose(f);
  }
  // Depthwise problems and a few direct kernels: 12 items, a short sweep.
  const std::string filter = "family==direct && vec==8 && per_thread==2";
  auto plan = build_plan({problems, "", filter});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  std::vector<bool> ok;
  const auto cands = candidate_items(*plan, &ok);
  std::vector<WorkItem> items;
  for (size_t i = 0; i < cands.size(); ++i)
    if (ok[i]) items.push_back(cands[i]);
  ASSERT_GE(items.size(), 3u);
  const std::string fault = plan->kernel_names[size_t(items[1].kernel)];
  const std::string cmd = "GCONV_TEST_FAULT_KERNEL='" + fault + "' '" + gconv_cli() + "' bench --problems '" + problems +
                          "' --filter '" + filter + "' --warmup 1 --repeats 3 --out '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  auto t = read_sweep_csv(out);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->rows.size(), items.size());
  std::map<RowKey, int> count;
  long first_crash = -1, last_ok = -1;
  for (size_t i = 0; i < t->rows.size(); ++i) {
    ++count[row_key(*t, i)];
    if (t->get(i, "kernel") == fault) {
      EXPECT_EQ(t->get(i, "status"), "crashed") << t->lines[i];
      if (first_crash < 0) first_crash = long(i);
    } else {
      EXPECT_EQ(t->get(i, "status"), "ok") << t->lines[i];
      last_ok = long(i);
    }
  }
  for (const auto& [k, n] : count) EXPECT_EQ(n, 1) << std::get<0>(k) << " " << std::get<1>(k);
  EXPECT_GE(first_crash, 0);
  EXPECT_GT(last_ok, first_crash);  // measured after the crash, by a new worker
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gconv::bench
