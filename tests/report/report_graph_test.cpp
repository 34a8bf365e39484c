// cuDNN baselines when a sweep holds both cuDNN APIs' rows: cudnn_best is the
// faster of the legacy and graph best per problem, cudnn_heuristic the graph
// heuristic where it ran (else the legacy one), the legacy rows stay as
// cudnn_legacy_*; a sweep without graph rows keeps the old two baselines.
#include <gtest/gtest.h>

#include <string>

#include "report/report.hpp"

namespace gconv::report {
namespace {

// Problem A: both APIs, graph faster for best, graph heuristic 2.5.
// Problem B: graph best slower than legacy best; the graph heuristic failed.
// Problem C: legacy rows only (an older sweep merged in).
const char* kBoth =
    "kernel,spec,status,latency_ms,provider\n"
    "k1,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,1.0,\n"
    "cudnn_heuristic:implicit_gemm,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,6.0,cudnn\n"
    "cudnn_best:implicit_gemm,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,5.0,cudnn\n"
    "cudnn_graph_heuristic:eng3_tc,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,2.5,cudnn\n"
    "cudnn_graph_best:eng7_tc_tile3,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,2.0,cudnn\n"
    "k1,fwd_bf16_n1c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,4.0,\n"
    "cudnn_heuristic:gemm,fwd_bf16_n1c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,9.0,cudnn\n"
    "cudnn_best:gemm,fwd_bf16_n1c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,3.0,cudnn\n"
    "cudnn_graph_heuristic,fwd_bf16_n1c64k64g1_h8w8_y1x1_s1_p0_dil1,unsupported,,cudnn\n"
    "cudnn_graph_best:eng1,fwd_bf16_n1c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,3.5,cudnn\n"
    "k1,fwd_bf16_n2c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,8.0,\n"
    "cudnn_heuristic:gemm,fwd_bf16_n2c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,16.0,cudnn\n"
    "cudnn_best:gemm,fwd_bf16_n2c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,12.0,cudnn\n";

const std::string kA = "fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1";
const std::string kB = "fwd_bf16_n1c64k64g1_h8w8_y1x1_s1_p0_dil1";
const std::string kC = "fwd_bf16_n2c64k64g1_h8w8_y1x1_s1_p0_dil1";

TEST(ReportGraph, CombinedCudnnBaselines) {
  auto s = parse_sweep_csv(kBoth, "both.csv");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto bs = baselines_from_sweep(*s, "cudnn");
  ASSERT_EQ(bs.size(), 4u);
  EXPECT_EQ(bs[0].name, "cudnn_best");
  EXPECT_EQ(bs[1].name, "cudnn_heuristic");
  EXPECT_EQ(bs[2].name, "cudnn_legacy_best");
  EXPECT_EQ(bs[3].name, "cudnn_legacy_heuristic");

  EXPECT_EQ(bs[0].ms, (std::map<std::string, double>{{kA, 2.0}, {kB, 3.0}, {kC, 12.0}}));
  EXPECT_EQ(bs[1].ms, (std::map<std::string, double>{{kA, 2.5}, {kB, 9.0}, {kC, 16.0}}));
  EXPECT_EQ(bs[2].ms, (std::map<std::string, double>{{kA, 5.0}, {kB, 3.0}, {kC, 12.0}}));
  EXPECT_EQ(bs[3].ms, (std::map<std::string, double>{{kA, 6.0}, {kB, 9.0}, {kC, 16.0}}));
  EXPECT_EQ(bs[0].rows, "per problem the faster of cudnn_best:* and cudnn_graph_best:* rows");
  EXPECT_EQ(bs[1].rows, "cudnn_graph_heuristic:* rows, else cudnn_heuristic:* rows");
  EXPECT_NE(bs[2].rows.find("legacy"), std::string::npos);

  // The comparison carries the description: best ratios A 2/1, B 3/4, C 12/8.
  Comparison c = compare(*s, compute_oracles(*s), bs[0]);
  EXPECT_EQ(c.baseline, "cudnn_best");
  EXPECT_EQ(c.baseline_rows, bs[0].rows);
  ASSERT_EQ(c.per_problem.size(), 3u);
  EXPECT_EQ(c.per_problem[0].ratio, 0.75);
  EXPECT_EQ(c.per_problem[1].ratio, 1.5);
  EXPECT_EQ(c.per_problem[2].ratio, 2.0);
}

TEST(ReportGraph, GraphRowsAloneStillGiveBothBaselines) {
  const char* only_graph =
      "kernel,spec,status,latency_ms,provider\n"
      "k1,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,1.0,\n"
      "cudnn_graph_heuristic:eng3,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,2.5,cudnn\n"
      "cudnn_graph_best:eng7,fwd_bf16_n1c64k64g64_h8w8_y3x3_s1_p1_dil1,ok,2.0,cudnn\n";
  auto s = parse_sweep_csv(only_graph, "graph.csv");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto bs = baselines_from_sweep(*s, "cudnn");
  ASSERT_EQ(bs.size(), 2u);
  EXPECT_EQ(bs[0].name, "cudnn_best");
  EXPECT_EQ(bs[0].ms, (std::map<std::string, double>{{kA, 2.0}}));
  EXPECT_EQ(bs[1].name, "cudnn_heuristic");
  EXPECT_EQ(bs[1].ms, (std::map<std::string, double>{{kA, 2.5}}));
}

TEST(ReportGraph, LegacyOnlySweepKeepsItsTwoBaselines) {
  const char* legacy =
      "kernel,spec,status,latency_ms,provider\n"
      "cudnn_heuristic:gemm,fwd_bf16_n2c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,16.0,cudnn\n"
      "cudnn_best:gemm,fwd_bf16_n2c64k64g1_h8w8_y1x1_s1_p0_dil1,ok,12.0,cudnn\n";
  auto s = parse_sweep_csv(legacy, "legacy.csv");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto bs = baselines_from_sweep(*s, "cudnn");
  ASSERT_EQ(bs.size(), 2u);
  EXPECT_EQ(bs[0].name, "cudnn_best");
  EXPECT_EQ(bs[0].rows, "cudnn_best:* rows");
  EXPECT_EQ(bs[1].name, "cudnn_heuristic");
}

}  // namespace
}  // namespace gconv::report
