// Sweep CSV rows stay valid CSV whatever the spec or source holds (a 3D spec
// has commas, a source may hold quotes), carry the kernel traits and the
// problem columns, and read back by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/sweep.hpp"
#include "perf/sweep_csv.hpp"

namespace gconv::bench {
namespace {

ProblemEntry entry(const std::string& spec, const std::string& source) {
  auto p = Problem::parse_spec(spec);
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return ProblemEntry{*p, source, 0};
}

TEST(SweepCsv, HeaderHasKeyTraitProblemAndResultColumnsInOrder) {
  const auto& cols = sweep_csv_columns();
  EXPECT_EQ(cols.front(), "kernel");
  EXPECT_EQ(cols[1], "family");
  EXPECT_EQ(cols.back(), "check");
  auto at = [&](const std::string& n) { return std::find(cols.begin(), cols.end(), n) - cols.begin(); };
  EXPECT_LT(at("deterministic"), at("direction"));
  EXPECT_LT(at("source"), at("provider"));
  for (const auto& c : problem_csv_columns()) EXPECT_LT(at(c), long(cols.size())) << c;
  EXPECT_EQ(split_csv_line(sweep_csv_header()).size(), cols.size());
}

TEST(SweepCsv, RowsRoundTripThroughTheReader) {
  auto t = parse_kernel_name("igemm_fwd_bf16_3d_m128n128k32_w2x2_s4_sk8p_v8_g1");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  const ProblemEntry e = entry("fwd_bf16_n4c3k64g1_d16h112w112_z3y7x7_s1,2,2_p1,3,3_dil1", "r2plus1d_18 \"stem\", first conv");
  SweepRow r = make_row(*t, e, "ok", "ok rel_err=1e-3");
  r.median_ms = 0.25;
  r.min_ms = 0.2;
  SweepRow crashed = make_row(*t, entry("fwd_bf16_n1c8k8g1_h9w9_y3x3_s1_p1_dil1", ""), "crashed",
                              "killed by signal 11 (Segmentation fault)");
  const std::string text =
      sweep_csv_header() + "\n" + sweep_csv_row(r, "NVIDIA H200") + "\n" + sweep_csv_row(crashed, "NVIDIA H200") + "\n";
  auto table = parse_sweep_csv(text, "mem.csv");
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->get(0, "kernel"), r.kernel);
  EXPECT_EQ(table->get(0, "family"), "igemm");
  EXPECT_EQ(table->get(0, "split_mode"), "parallel");
  EXPECT_EQ(table->get(0, "split_k"), "8");
  EXPECT_EQ(table->get(0, "stages"), "4");
  EXPECT_EQ(table->get(0, "spec"), r.spec);
  EXPECT_EQ(table->get(0, "source"), e.source);
  EXPECT_EQ(table->get(0, "ndim"), "3");
  EXPECT_EQ(table->get(0, "stride_h"), "2");
  EXPECT_EQ(table->get(0, "pad_w_hi"), "3");
  EXPECT_EQ(table->get(0, "provider"), "gconv");
  EXPECT_EQ(table->get(0, "gpu"), "NVIDIA H200");
  EXPECT_EQ(table->get(0, "status"), "ok");
  EXPECT_DOUBLE_EQ(std::stod(table->get(0, "latency_ms")), 0.25);
  EXPECT_EQ(table->get(1, "status"), "crashed");
  EXPECT_EQ(table->get(1, "check"), crashed.check);
  EXPECT_EQ(row_key(*table, 1), (RowKey{crashed.kernel, crashed.spec, "gconv"}));
}

TEST(SweepCsv, ProviderRowsWithoutTraitsHaveEmptyTraitColumns) {
  SweepRow r;
  r.kernel = "cudnn_best:implicit_precomp_gemm";
  r.provider = "cudnn";
  r.spec = "fwd_bf16_n1c8k8g1_h9w9_y3x3_s1_p1_dil1";
  r.status = "ok";
  auto table = parse_sweep_csv(sweep_csv_header() + "\n" + sweep_csv_row(r, "none") + "\n", "m.csv");
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  EXPECT_EQ(table->get(0, "family"), "cudnn");
  EXPECT_EQ(table->get(0, "tile_m"), "");
  EXPECT_EQ(table->get(0, "c"), "8");
  EXPECT_EQ(table->get(0, "provider"), "cudnn");
}

TEST(SweepCsv, ReaderRejectsARowWithTheWrongFieldCount) {
  auto t = parse_sweep_csv("a,b,c\n1,2,3\n1,2\n", "x.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("x.csv:3"), std::string::npos);
}

}  // namespace
}  // namespace gconv::bench

namespace gconv::bench {
namespace {

TEST(SweepCsv, TraitColumnsOfTheOtherFamilyAreEmpty) {
  auto t = parse_kernel_name("direct_fwd_bf16_2d_t8x16_r4_v8");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  auto p = Problem::parse_spec("fwd_bf16_n1c32k32g32_h14w14_y3x3_s1_p1_dil1");
  ASSERT_TRUE(p.ok());
  const SweepRow r = make_row(*t, ProblemEntry{*p, "", 0}, "ok");
  auto table = parse_sweep_csv(sweep_csv_header() + "\n" + sweep_csv_row(r, "g") + "\n", "m.csv");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->get(0, "family"), "direct");
  EXPECT_EQ(table->get(0, "tile_m"), "");
  EXPECT_EQ(table->get(0, "split_mode"), "");
  EXPECT_EQ(table->get(0, "block_h"), "8");
  EXPECT_EQ(table->get(0, "block_w"), "16");
  EXPECT_EQ(table->get(0, "per_thread"), "4");
  EXPECT_EQ(table->get(0, "vec"), "8");
  EXPECT_EQ(table->get(0, "deterministic"), "0");
}

}  // namespace
}  // namespace gconv::bench
