// A sweep row whose spec parses but names an invalid problem (stride 0, G
// that does not divide C, G = 0) is skipped and counted, with the file, the
// row and the broken rule in the summary: no feature or estimate is ever
// computed for it (they divide by its sizes), nothing is trained on it.
// The derived sizes of such a problem never divide by zero either.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "bench/sweep.hpp"
#include "heuristic/dataset.hpp"
#include "heuristic/xgb.hpp"

namespace gconv::heuristic {
namespace {

TEST(DatasetInvalid, RowsOfInvalidProblemsAreSkippedWithTheirRowAndRule) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_invalid_rows_" + std::to_string(::getpid()) + ".csv")).string();
  const char* kernels[] = {"igemm_fwd_bf16_2d_m64n64k32_w2x2_s3_sk1_v8_g1",
                           "igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1"};
  const char* specs[] = {"fwd_bf16_n8c64k64g1_h14w14_y3x3_s1_p1_dil1",   // valid
                         "fwd_bf16_n8c64k64g1_h14w14_y3x3_s0_p1_dil1",   // stride 0
                         "fwd_bf16_n8c64k64g0_h14w14_y3x3_s1_p1_dil1",   // no groups
                         "fwd_bf16_n8c64k64g3_h14w14_y3x3_s1_p1_dil1"};  // G does not divide C
  {
    std::ofstream f(path);
    f << bench::sweep_csv_header() << "\n";
    double ms = 0.01;
    for (const char* s : specs)
      for (const char* k : kernels) {
        auto parsed = Problem::parse_spec(s);
        ASSERT_TRUE(parsed.ok()) << s;
        bench::SweepRow r = bench::make_row(*parse_kernel_name(k), ProblemEntry{*parsed, "t", 0}, "ok");
        r.median_ms = r.min_ms = (ms += 0.001);
        f << bench::sweep_csv_row(r, "NVIDIA H200") << "\n";
      }
  }
  LoadStats st;
  auto d = load_sweeps({path}, &st);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->groups(), 1u);
  EXPECT_EQ(d->specs[0], specs[0]);
  EXPECT_EQ(st.invalid, 6u);
  EXPECT_EQ(st.used, 2u);
  EXPECT_NE(st.first_invalid.find("data row 3"), std::string::npos) << st.first_invalid;
  EXPECT_NE(st.first_invalid.find("stride"), std::string::npos) << st.first_invalid;
  EXPECT_NE(st.summary().find("6 rows of invalid problems skipped"), std::string::npos) << st.summary();
  std::filesystem::remove(path);
}

// inf or non-numeric latencies are refused with their row (inf passed the
// old "positive" test and turned eval's mean into NaN).
TEST(DatasetInvalid, NonFiniteLatencyIsAParseErrorWithItsRow) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_inf_rows_" + std::to_string(::getpid()) + ".csv")).string();
  auto parsed = Problem::parse_spec("fwd_bf16_n8c64k64g1_h14w14_y3x3_s1_p1_dil1");
  ASSERT_TRUE(parsed.ok());
  for (double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    {
      std::ofstream f(path);
      f << bench::sweep_csv_header() << "\n";
      int i = 0;
      for (const char* k : {"igemm_fwd_bf16_2d_m64n64k32_w2x2_s3_sk1_v8_g1", "igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1"}) {
        bench::SweepRow r = bench::make_row(*parse_kernel_name(k), ProblemEntry{*parsed, "t", 0}, "ok");
        r.median_ms = r.min_ms = i++ == 0 ? 0.01 : bad;
        f << bench::sweep_csv_row(r, "NVIDIA H200") << "\n";
      }
    }
    auto d = load_sweeps({path});
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), StatusCode::parse_error);
    EXPECT_NE(d.status().message().find("data row 2"), std::string::npos) << d.status().message();
    EXPECT_NE(d.status().message().find("finite positive"), std::string::npos) << d.status().message();
  }
  std::filesystem::remove(path);
}

// Training parameters XGBoost would accept and turn into an unloadable model.
TEST(DatasetInvalid, TrainParametersOutOfRangeAreRefusedByName) {
  TrainParams ok;
  EXPECT_TRUE(validate_params(ok).ok());
  const auto refused = [](TrainParams p, const char* name) {
    const Status s = validate_params(p);
    EXPECT_EQ(s.code(), StatusCode::invalid_argument) << name;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  };
  TrainParams p;
  p.eta = std::numeric_limits<double>::quiet_NaN();
  refused(p, "eta");
  p = ok;
  p.eta = 0;
  refused(p, "eta");
  p = ok;
  p.max_depth = 0;
  refused(p, "max_depth");
  p = ok;
  p.subsample = 1.5;
  refused(p, "subsample");
  p = ok;
  p.lambda = -1;
  refused(p, "lambda");
  p = ok;
  p.rounds = -3;
  refused(p, "rounds");
}

TEST(DatasetInvalid, DerivedSizesOfInvalidProblemsDoNotDivideByZero) {
  Problem p = *Problem::parse_spec("fwd_bf16_n8c64k64g1_h14w14_y3x3_s1_p1_dil1");
  p.stride[2] = 0;
  p.g = 0;
  EXPECT_FALSE(p.validate().ok());
  EXPECT_EQ(p.out(2), 0);
  EXPECT_EQ(p.c_per_group(), 0);
  EXPECT_EQ(p.k_per_group(), 0);
  EXPECT_TRUE(std::isfinite(p.flops()));
  EXPECT_EQ(p.flops(), 0.0);
}

}  // namespace
}  // namespace gconv::heuristic
