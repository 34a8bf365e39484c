// Sweep CSV rows stay valid CSV whatever the spec or source holds: a 3D spec
// has commas ("s1,2,2"), a source may hold quotes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/sweep.hpp"

namespace gconv::bench {
namespace {

// Minimal RFC 4180 field splitter for one line.
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> f(1);
  bool q = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (q) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') f.back() += '"', ++i;
      else if (c == '"') q = false;
      else f.back() += c;
    } else if (c == '"') {
      q = true;
    } else if (c == ',') {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  return f;
}

TEST(SweepCsv, RowsHaveTheHeaderFieldCountAndRoundTripTheirText) {
  SweepRow r;
  r.kernel = "igemm_fwd_bf16_3d_m128n128k32_w2x2_s4_sk1_v8_g1";
  r.spec = "fwd_bf16_n4c3k64g1_d16h112w112_z3y7x7_s1,2,2_p1,3,3_dil1";
  r.source = "r2plus1d_18 \"stem\", first conv";
  r.status = "ok";
  r.check = "ok rel_err=1e-3";
  r.median_ms = 0.25;
  const auto header = split_csv(sweep_csv_header());
  const auto row = split_csv(sweep_csv_row(r, "NVIDIA H200"));
  ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(row[0], r.kernel);
  EXPECT_EQ(row[1], r.spec);
  EXPECT_EQ(row[2], r.source);
  EXPECT_EQ(row[3], "NVIDIA H200");
  EXPECT_EQ(row[5], "ok");
  EXPECT_DOUBLE_EQ(std::stod(row[6]), 0.25);
}

}  // namespace
}  // namespace gconv::bench
