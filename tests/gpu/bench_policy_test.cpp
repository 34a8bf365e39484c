// gconv bench --policy on a GPU: for every problem, exactly the registry's
// pick is timed (one gconv row, the kernel select() names), the provider's
// rows come before it in the file (a sweep stopped anywhere has cuDNN's rows
// for the problems it timed), and the summary is printed.
// Runs the gconv binary next to this test's build dir ($GCONV_CLI overrides).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "bench/supervisor.hpp"
#include "gconv/registry.hpp"
#include "perf/sweep_csv.hpp"

namespace gconv::bench {
namespace {

std::string gconv_cli() {
  if (const char* e = std::getenv("GCONV_CLI"); e && *e) return e;
  return (std::filesystem::path(self_executable()).parent_path().parent_path() / "gconv").string();
}

TEST(BenchPolicy, TimesExactlyThePicksAfterTheProvidersRows) {
  const auto dir = std::filesystem::temp_directory_path() / ("gconv_bench_policy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string problems = (dir / "p.txt").string(), out = (dir / "out.csv").string(),
                    log = (dir / "err.txt").string();
  const std::vector<std::string> specs = {"fwd_bf16_n8c64k64g1_h28w28_y3x3_s1_p1_dil1",
                                          "bwd_data_bf16_n8c128k128g128_h14w14_y3x3_s1_p1_dil1",
                                          "bwd_weight_bf16_n4c64k128g2_h14w14_y1x1_s1_p0_dil1"};
  {
    std::ofstream f(problems);
    for (size_t i = 0; i < specs.size(); ++i) f << specs[i] << " net" << (i % 2) << "\n";
  }
  const std::string cmd = "'" + gconv_cli() + "' bench --problems '" + problems +
                          "' --policy heuristic --provider gconv,cudnn --warmup 1 --repeats 3 --out '" + out +
                          "' 2> '" + log + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  RegistryOptions ro;
  ro.tuning_cache_path = "off";
  auto reg = Registry::create(ro);
  ASSERT_TRUE(reg.ok()) << reg.status().to_string();
  auto t = read_sweep_csv(out);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  std::map<std::string, int> gconv_rows, first_gconv, first_cudnn;
  for (size_t i = 0; i < t->rows.size(); ++i) {
    const std::string spec = t->get(i, "spec"), prov = t->get(i, "provider");
    std::map<std::string, int>& first = prov == "gconv" ? first_gconv : first_cudnn;
    if (!first.count(spec)) first[spec] = int(i);
    if (prov != "gconv") continue;
    ++gconv_rows[spec];
    auto p = Problem::parse_spec(spec);
    ASSERT_TRUE(p.ok());
    auto pick = (*reg)->select(*p, Policy::heuristic());
    ASSERT_TRUE(pick.ok());
    EXPECT_EQ(t->get(i, "kernel"), pick->kernel) << spec;
    EXPECT_EQ(t->get(i, "status"), "ok") << t->lines[i];
  }
  for (const auto& s : specs) {
    EXPECT_EQ(gconv_rows[s], 1) << s;
    ASSERT_TRUE(first_cudnn.count(s)) << "no cudnn row for " << s;
    EXPECT_LT(first_cudnn[s], first_gconv[s]) << s << ": cudnn's rows must come first";
  }
  std::ifstream in(log);
  const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(err.find("gconv bench --policy heuristic"), std::string::npos) << err;
  EXPECT_NE(err.find("net net0"), std::string::npos) << err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gconv::bench
