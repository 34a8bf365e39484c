// Report arithmetic on a hand-made sweep whose answers are known exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "report/report.hpp"

namespace gconv::report {
namespace {

// Two problems x three gconv kernels, plus cuDNN rows. Problem A's fastest
// row failed its check, so its oracle is the second fastest (k2, 2.0 ms).
// Columns are out of the usual order, with an unknown one, and the 3D spec
// holds commas (quoted), as the sweep writer does.
const char* kTiny =
    "status,extra,latency_ms,spec,kernel,source,provider\n"
    "ok,x,4.0,fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1,k1,netA;netB,\n"
    "ok,x,2.0,fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1,k2,netA;netB,\n"
    "check_failed,x,1.0,fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1,k3,netA;netB,\n"
    "ok,x,3.0,fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1,cudnn_heuristic:ALGO_1,netA;netB,cudnn\n"
    "ok,x,1.0,fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1,cudnn_best:ALGO_0,netA;netB,cudnn\n"
    "# a comment line\n"
    "\n"
    "ok,x,8.0,\"bwd_weight_bf16_n2c32k32g32_d4h8w8_z3y3x3_s1,2,2_p1_dil1\",k1,netB,\n"
    "compile_error,x,,\"bwd_weight_bf16_n2c32k32g32_d4h8w8_z3y3x3_s1,2,2_p1_dil1\",k2,netB,\n"
    "ok,x,5.0,\"bwd_weight_bf16_n2c32k32g32_d4h8w8_z3y3x3_s1,2,2_p1_dil1\",k3,netB,\n"
    "ok,x,20.0,\"bwd_weight_bf16_n2c32k32g32_d4h8w8_z3y3x3_s1,2,2_p1_dil1\",cudnn_heuristic:ALGO_1,netB,cudnn\n"
    "ok,x,10.0,\"bwd_weight_bf16_n2c32k32g32_d4h8w8_z3y3x3_s1,2,2_p1_dil1\",cudnn_best:ALGO_3,netB,cudnn\n";

Sweep parse_tiny() {
  auto s = parse_sweep_csv(kTiny, "tiny.csv");
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return *s;
}

TEST(ReportTiny, ParsesProblemsByCanonicalSpec) {
  Sweep s = parse_tiny();
  ASSERT_EQ(s.problems.size(), 2u);
  ASSERT_EQ(s.rows.size(), 10u);
  EXPECT_EQ(s.problems[0].spec, "fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1");
  EXPECT_EQ(s.problems[0].family, Family::dense);
  EXPECT_EQ(s.problems[0].source, "netA;netB");
  EXPECT_EQ(s.problems[1].family, Family::depthwise);
  EXPECT_EQ(s.problems[1].ndim, 3);
  EXPECT_EQ(s.problems[1].direction, "bwd_weight");
  EXPECT_TRUE(std::isnan(s.rows[6].latency_ms));  // the empty cell
  EXPECT_TRUE(s.rows[3].baseline);
  EXPECT_FALSE(s.rows[0].baseline);
}

TEST(ReportTiny, OracleSkipsFailedAndBaselineRows) {
  Sweep s = parse_tiny();
  auto o = compute_oracles(s);
  ASSERT_EQ(o.size(), 2u);
  ASSERT_TRUE(o[0].found);
  EXPECT_EQ(o[0].kernel, "k2");  // k3 (1.0, failed) and cudnn_best (1.0) are not candidates
  EXPECT_EQ(o[0].ms, 2.0);
  ASSERT_TRUE(o[1].found);
  EXPECT_EQ(o[1].kernel, "k3");
  EXPECT_EQ(o[1].ms, 5.0);
}

TEST(ReportTiny, SourceSummariesCountGconvRowsPerNetwork) {
  Sweep s = parse_tiny();
  auto sums = summarize_sources(s, compute_oracles(s));
  ASSERT_EQ(sums.size(), 3u);  // all, netA, netB
  EXPECT_EQ(sums[0].source, "all");
  EXPECT_EQ(sums[0].problems, 2u);
  EXPECT_EQ(sums[0].kernels, 3u);
  EXPECT_EQ(sums[0].rows, 6u);
  EXPECT_EQ(sums[0].ok, 4u);
  EXPECT_EQ(sums[0].failed, 2u);
  EXPECT_EQ(sums[0].by_status.at("check_failed"), 1u);
  EXPECT_EQ(sums[0].by_status.at("compile_error"), 1u);
  EXPECT_EQ(sums[1].source, "netA");
  EXPECT_EQ(sums[1].problems, 1u);
  EXPECT_EQ(sums[1].rows, 3u);
  EXPECT_EQ(sums[2].source, "netB");
  EXPECT_EQ(sums[2].problems, 2u);
  EXPECT_EQ(sums[2].rows, 6u);
}

TEST(ReportTiny, CudnnBaselinesAndRatios) {
  Sweep s = parse_tiny();
  auto o = compute_oracles(s);
  auto bs = baselines_from_sweep(s, "cudnn");
  ASSERT_EQ(bs.size(), 2u);  // alphabetical: cudnn_best, cudnn_heuristic
  EXPECT_EQ(bs[0].name, "cudnn_best");
  EXPECT_EQ(bs[1].name, "cudnn_heuristic");

  // best: A 1.0/2.0 = 0.5, B 10/5 = 2 -> geomean 1, min 0.5, max 2, one win.
  Comparison best = compare(s, o, bs[0]);
  ASSERT_EQ(best.per_problem.size(), 2u);
  EXPECT_EQ(best.per_problem[0].ratio, 0.5);  // sorted by ratio
  EXPECT_EQ(best.per_problem[1].ratio, 2.0);
  ASSERT_FALSE(best.slices.empty());
  const RatioStats& all = best.slices[0];
  EXPECT_EQ(all.slice, "all");
  EXPECT_EQ(all.n, 2u);
  EXPECT_NEAR(all.geomean, 1.0, 1e-15);
  EXPECT_EQ(all.min, 0.5);
  EXPECT_EQ(all.max, 2.0);
  EXPECT_EQ(all.wins, 1u);
  std::vector<std::string> names;
  for (const auto& r : best.slices) names.push_back(r.slice);
  EXPECT_EQ(names, (std::vector<std::string>{"all", "fwd", "bwd_weight", "dense", "dense/fwd", "depthwise",
                                             "depthwise/bwd_weight", "3d", "3d/bwd_weight"}));

  // heuristic: A 3/2 = 1.5, B 20/5 = 4 -> geomean sqrt(6).
  Comparison heur = compare(s, o, bs[1]);
  EXPECT_NEAR(heur.slices[0].geomean, std::sqrt(6.0), 1e-14);
  EXPECT_EQ(heur.slices[0].wins, 2u);

  // Networks: netA holds A; netB holds A and B (directions apart).
  ASSERT_EQ(heur.networks.size(), 3u);
  EXPECT_EQ(heur.networks[0].network, "netA");
  EXPECT_EQ(heur.networks[0].gconv_ms, 2.0);
  EXPECT_EQ(heur.networks[0].baseline_ms, 3.0);
  EXPECT_EQ(heur.networks[1].network, "netB");
  EXPECT_EQ(heur.networks[1].direction, "bwd_weight");
  EXPECT_EQ(heur.networks[1].baseline_ms, 20.0);
  EXPECT_EQ(heur.networks[2].direction, "fwd");
  EXPECT_EQ(heur.networks[2].gconv_ms, 2.0);
}

TEST(ReportTiny, MissingBaselineAndOracleAreCounted) {
  Sweep s = parse_tiny();
  Baseline b;
  b.name = "x";
  b.ms["fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1"] = 4.0;
  b.ms["fwd_bf16_n1c8k8g1_w8_x3_s1_p1_dil1"] = 1.0;  // not in the sweep
  Comparison c = compare(s, compute_oracles(s), b);
  EXPECT_EQ(c.per_problem.size(), 1u);
  EXPECT_EQ(c.without_baseline, 1u);
  EXPECT_EQ(c.without_oracle, 1u);
  EXPECT_NEAR(c.slices[0].geomean, 2.0, 1e-15);
}

TEST(ReportTiny, RequiredColumnsAndRowWidthAreChecked) {
  auto a = parse_sweep_csv("kernel,spec,status\nk,fwd_bf16_n1c8k8g1_w8_x1_s1_p0_dil1,ok\n", "a.csv");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::parse_error);
  EXPECT_NE(a.status().message().find("latency_ms"), std::string::npos);
  auto b = parse_sweep_csv("kernel,spec,status,latency_ms\nk,s,ok\n", "b.csv");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("b.csv:2:"), std::string::npos);
}

TEST(ReportTiny, ColumnsStandInForAnUnparsableSpec) {
  auto s = parse_sweep_csv("kernel,spec,status,latency_ms,direction,c,g,ndim\nk,custom-1,ok,1.5,bwd_data,64,64,3\n",
                           "c.csv");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->problems[0].spec, "custom-1");
  EXPECT_EQ(s->problems[0].direction, "bwd_data");
  EXPECT_EQ(s->problems[0].family, Family::depthwise);
  EXPECT_EQ(s->problems[0].ndim, 3);
}

TEST(ReportTiny, SpellingsOfOneProblemMeet) {
  // Defaults (bf16, fwd, g1, s1, p0, dil1) omitted in the second spelling.
  auto s = parse_sweep_csv(
      "kernel,spec,status,latency_ms\n"
      "a,fwd_bf16_n2c16k16g1_h8w8_y1x1_s1_p0_dil1,ok,3\n"
      "b,n2c16k16h8w8,ok,2\n",
      "d.csv");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_EQ(s->problems.size(), 1u);
  EXPECT_EQ(compute_oracles(*s)[0].kernel, "b");
}

TEST(ReportTiny, JsonlBaselineKeepsTheFasterRecordAndSkipsMissingTimes) {
  const std::string text =
      "{\"about\": \"header\"}\n"
      "{\"nd\": 2, \"N\": 1, \"C\": 64, \"K\": 64, \"G\": 1, \"spatial\": [8, 8], \"kernel\": [3, 3], "
      "\"stride\": [1, 1], \"pad\": [1, 1], \"dil\": [1, 1], \"direction\": \"fwd\", \"t\": 5.0}\n"
      "{\"nd\": 2, \"N\": 1, \"C\": 64, \"K\": 64, \"G\": 1, \"spatial\": [8, 8], \"kernel\": [3, 3], "
      "\"stride\": [1, 1], \"pad\": [1, 1], \"dil\": [1, 1], \"direction\": \"fwd\", \"t\": 4.0}\n"
      "{\"nd\": 1, \"N\": 1, \"C\": 8, \"K\": 8, \"G\": 1, \"spatial\": [8], \"kernel\": [1], "
      "\"stride\": [1], \"pad\": [0], \"dil\": [1], \"direction\": \"fwd\", \"t\": null}\n";
  auto b = baseline_from_jsonl_text(text, "b.jsonl", "t");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->name, "jsonl:t");
  ASSERT_EQ(b->ms.size(), 1u);
  EXPECT_EQ(b->ms.at("fwd_bf16_n1c64k64g1_h8w8_y3x3_s1_p1_dil1"), 4.0);
  Sweep s = parse_tiny();
  Comparison c = compare(s, compute_oracles(s), *b);
  ASSERT_EQ(c.per_problem.size(), 1u);
  EXPECT_EQ(c.per_problem[0].ratio, 2.0);  // 4.0 / oracle 2.0
}

TEST(ReportFamily, KnownSpecs) {
  auto fam = [](const char* spec) {
    auto p = Problem::parse_spec(spec);
    EXPECT_TRUE(p.ok()) << spec;
    return family_of(p->c, p->g);
  };
  EXPECT_EQ(fam("fwd_bf16_n32c256k256g1_h56w56_y3x3_s1_p1_dil1"), Family::dense);
  EXPECT_EQ(fam("fwd_bf16_n32c512k512g32_h14w14_y3x3_s1_p1_dil1"), Family::grouped);
  EXPECT_EQ(fam("fwd_bf16_n32c144k144g144_h56w56_y3x3_s2_p1_dil1"), Family::depthwise);
  // Depthwise with a channel multiplier (K = 2C) is still depthwise: C/G == 1.
  EXPECT_EQ(fam("fwd_bf16_n1c32k64g32_h8w8_y3x3_s1_p1_dil1"), Family::depthwise);
  // C/G == 2: grouped.
  EXPECT_EQ(fam("fwd_bf16_n1c64k64g32_h8w8_y3x3_s1_p1_dil1"), Family::grouped);
  EXPECT_EQ(family_of(0, 1), Family::unknown);
}

TEST(ReportSources, SplitsOnSemicolons) {
  EXPECT_EQ(split_sources("a;b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_sources(" a ; ;a;c"), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(split_sources(""), (std::vector<std::string>{"(none)"}));
}

}  // namespace
}  // namespace gconv::report
