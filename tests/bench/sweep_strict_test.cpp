// The four sweep readers (eval/train's loader, report, merge) agree on bad
// rows: an ok row whose latency is not a finite positive number is an error
// naming file and line (report took inf as an oracle, merge copied it on);
// a row of an invalid problem is skipped and counted, or under --strict is
// an error naming file, line and rule.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bench/merge.hpp"
#include "bench/sweep.hpp"
#include "heuristic/dataset.hpp"
#include "perf/sweep_csv.hpp"
#include "report/report.hpp"

namespace gconv::bench {
namespace {

constexpr const char* kValid = "fwd_bf16_n8c64k64g1_h14w14_y3x3_s1_p1_dil1";
constexpr const char* kValid2 = "fwd_bf16_n8c64k64g1_h28w28_y3x3_s1_p1_dil1";
constexpr const char* kStride0 = "fwd_bf16_n8c64k64g1_h14w14_y3x3_s0_p1_dil1";
const char* const kKernels[] = {"igemm_fwd_bf16_2d_m64n64k32_w2x2_s3_sk1_v8_g1",
                                "igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1"};

// A sweep: header on line 1, then two kernels per spec; `latency` replaces
// the latency of the last row when not empty.
std::string sweep_text(const std::vector<const char*>& specs, const std::string& latency = "") {
  std::string text = sweep_csv_header() + "\n";
  double ms = 0.01;
  for (const char* s : specs)
    for (const char* k : kKernels) {
      SweepRow r = make_row(*parse_kernel_name(k), ProblemEntry{*Problem::parse_spec(s), "t", 0}, "ok");
      r.median_ms = r.min_ms = (ms += 0.001);
      text += sweep_csv_row(r, "NVIDIA H200") + "\n";
    }
  if (!latency.empty()) {
    // latency_ms is the 5th field from the end of a row.
    const size_t end = text.size() - 1, row = text.rfind('\n', end - 1) + 1;
    std::vector<size_t> commas;
    for (size_t i = row; i < end; ++i)
      if (text[i] == ',') commas.push_back(i);
    const size_t a = commas[commas.size() - 5] + 1, b = commas[commas.size() - 4];
    text.replace(a, b - a, latency);
  }
  return text;
}

std::string write_file(const std::string& tag, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("gconv_strict_" + tag + "_" + std::to_string(::getpid()) + ".csv"))
          .string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(SweepStrict, BadLatencyIsAnErrorWithFileAndLineInEveryReader) {
  for (const std::string lat : {"inf", "nan", "-0.5", "0", "fast", "1e999"}) {
    const std::string text = sweep_text({kValid, kValid}, lat);  // the bad row is line 5
    const std::string path = write_file("lat", text);
    auto d = heuristic::load_sweeps({path});
    ASSERT_FALSE(d.ok()) << lat;
    EXPECT_TRUE(has(d.status().message(), path + ":5")) << d.status().message();
    auto rep = report::parse_sweep_csv(text, "r.csv");
    ASSERT_FALSE(rep.ok()) << lat;
    EXPECT_EQ(rep.status().code(), StatusCode::parse_error);
    EXPECT_TRUE(has(rep.status().message(), "r.csv:5: latency_ms '" + lat + "'")) << rep.status().message();
    auto t = parse_sweep_csv(text, "m.csv");
    ASSERT_TRUE(t.ok());
    auto m = merge_sweeps({*t}, nullptr);
    ASSERT_FALSE(m.ok()) << lat;
    EXPECT_TRUE(has(m.status().message(), "m.csv:5: latency_ms '" + lat + "'")) << m.status().message();
    std::filesystem::remove(path);
  }
}

TEST(SweepStrict, InvalidProblemRowsAreSkippedOrUnderStrictRefused) {
  const std::string text = sweep_text({kValid, kStride0, kValid2});  // rows of kStride0: lines 4 and 5
  const std::string path = write_file("inv", text);

  heuristic::LoadStats st;
  auto d = heuristic::load_sweeps({path}, &st);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(st.invalid, 2u);
  EXPECT_TRUE(has(st.first_invalid, path + ":4")) << st.first_invalid;
  auto ds = heuristic::load_sweeps({path}, nullptr, 2, /*strict=*/true);
  ASSERT_FALSE(ds.ok());
  EXPECT_EQ(ds.status().code(), StatusCode::invalid_argument);
  EXPECT_TRUE(has(ds.status().message(), path + ":4")) << ds.status().message();
  EXPECT_TRUE(has(ds.status().message(), "stride")) << ds.status().message();

  auto rep = report::parse_sweep_csv(text, "r.csv");
  ASSERT_TRUE(rep.ok()) << rep.status().to_string();
  EXPECT_EQ(rep->rows.size(), 4u);
  EXPECT_EQ(rep->problems.size(), 2u);
  EXPECT_EQ(rep->invalid_rows, 2u);
  EXPECT_TRUE(has(rep->first_invalid, "r.csv:4: " + std::string(kStride0))) << rep->first_invalid;
  auto reps = report::parse_sweep_csv(text, "r.csv", /*strict=*/true);
  ASSERT_FALSE(reps.ok());
  EXPECT_TRUE(has(reps.status().message(), "r.csv:4")) << reps.status().message();

  auto t = parse_sweep_csv(text, "m.csv");
  ASSERT_TRUE(t.ok());
  auto m = merge_sweeps({*t}, nullptr);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->table.rows.size(), 4u);
  EXPECT_EQ(m->invalid.count, 2u);
  EXPECT_TRUE(has(m->invalid.summary(), "2 rows of invalid problems skipped, the first: m.csv:4")) << m->invalid.summary();
  for (size_t i = 0; i < m->table.rows.size(); ++i) EXPECT_NE(m->table.get(i, "spec"), kStride0);
  auto ms = merge_sweeps({*t}, nullptr, /*strict=*/true);
  ASSERT_FALSE(ms.ok());
  EXPECT_TRUE(has(ms.status().message(), "m.csv:4")) << ms.status().message();
  std::filesystem::remove(path);
}

// A baseline time in a JSON-lines file must be a positive number too (a
// negative one made the geometric mean NaN).
TEST(SweepStrict, BaselineJsonlTimesMustBePositive) {
  const std::string line = R"({"spec": ")" + std::string(kValid) + R"(", "torch_exh_ms": )";
  auto ok = report::baseline_from_jsonl_text("\xEF\xBB\xBF" + line + "0.5}\n", "b.jsonl", "torch_exh_ms");
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();  // a byte order mark does not shift the lines
  EXPECT_EQ(ok->ms.at(kValid), 0.5);
  auto bad = report::baseline_from_jsonl_text(line + "1}\n" + line + "-2}\n", "b.jsonl", "torch_exh_ms");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(has(bad.status().message(), "b.jsonl:2: 'torch_exh_ms' -2")) << bad.status().message();
}

}  // namespace
}  // namespace gconv::bench
