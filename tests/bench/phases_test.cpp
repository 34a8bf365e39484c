// The sweep's phase accounting (bench/phases.hpp): the worker's "#phases"
// line survives the trip to the parent, the parent's sums and summary line
// say what the items said, and the trace CSV stays rectangular.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bench/phases.hpp"
#include "gconv/numeric.hpp"
#include "perf/sweep_csv.hpp"

namespace gconv::bench {
namespace {

ItemPhases sample(double scale) {
  ItemPhases p;
  for (size_t i = 0; i < kPhaseCount; ++i) p.s[i] = scale * double(i + 1) * 1e-6;  // 1, 2, ... us
  p.kernel = scale * 50e-6;
  return p;
}

TEST(Phases, EncodeThenParseGivesTheSameMicroseconds) {
  const ItemPhases in = sample(3.0);
  const std::string line = encode_phases(in);
  EXPECT_EQ(line.rfind("#phases wait=3.0 lookup=6.0 ", 0), 0u) << line;
  ItemPhases out;
  ASSERT_TRUE(parse_phases(line, &out)) << line;
  for (size_t i = 0; i < kPhaseCount; ++i) EXPECT_NEAR(out.s[i], in.s[i], 0.05e-6) << phase_name(Phase(i));
  EXPECT_NEAR(out.kernel, in.kernel, 0.05e-6);
  EXPECT_NEAR(out.sum(), in.sum(), 1e-9);
}

TEST(Phases, ParseIgnoresUnknownNamesAndZeroesMissingOnes) {
  ItemPhases out = sample(1.0);
  ASSERT_TRUE(parse_phases("#phases gpu=250 future_phase=7 kernel=40", &out));
  EXPECT_DOUBLE_EQ(out[Phase::gpu], 250e-6);
  EXPECT_DOUBLE_EQ(out.kernel, 40e-6);
  EXPECT_DOUBLE_EQ(out[Phase::wait], 0.0);
  EXPECT_DOUBLE_EQ(out.sum(), 250e-6);
  ASSERT_TRUE(parse_phases("#phases", &out));  // an item with nothing to say
  EXPECT_DOUBLE_EQ(out.sum(), 0.0);
}

TEST(Phases, ParseRejectsOtherLinesAndBadValues) {
  ItemPhases out;
  EXPECT_FALSE(parse_phases("#end", &out));
  EXPECT_FALSE(parse_phases("#phasesgpu=1", &out));
  EXPECT_FALSE(parse_phases("k,igemm,1,2", &out));
  EXPECT_FALSE(parse_phases("#phases gpu=abc", &out));
  EXPECT_FALSE(parse_phases("#phases gpu=12x", &out));
  EXPECT_FALSE(parse_phases("#phases gpu", &out));
  EXPECT_FALSE(parse_phases("#phases gpu=", &out));
}

TEST(Phases, TotalsAverageOverItemsAndTheSummarySaysSo) {
  PhaseTotals t;
  ItemPhases a, b;
  a[Phase::gpu] = 0.4e-3;
  a[Phase::wait] = 0.1e-3;
  a.kernel = 0.2e-3;
  b[Phase::gpu] = 0.6e-3;
  b[Phase::lookup] = 1.0e-3;  // a first use: the module load
  b.kernel = 0.2e-3;
  t.add(a);
  t.add(b);
  t.workers_started = 1;
  t.startup_s = 0.75;
  t.parent_s = 0.01;
  EXPECT_EQ(t.items, 2u);
  EXPECT_DOUBLE_EQ(t.sum[Phase::gpu], 1.0e-3);
  EXPECT_NEAR(t.sum.sum(), 2.1e-3, 1e-12);
  const std::string s = t.summary(3.0, 1);
  // Means per item in ms, shares of the 2.1 ms the phases add up to.
  EXPECT_NE(s.find("mean of 2 items"), std::string::npos) << s;
  EXPECT_NE(s.find("GPU wait 0.500 (47.6%) [timed kernels 0.200]"), std::string::npos) << s;
  EXPECT_NE(s.find("kernel lookup 0.500 (47.6%)"), std::string::npos) << s;
  EXPECT_NE(s.find("between items 0.050 (4.8%)"), std::string::npos) << s;
  EXPECT_NE(s.find("buffer fill 0.000 (0.0%)"), std::string::npos) << s;
  EXPECT_NE(s.find("sum 1.050 ms/item"), std::string::npos) << s;
  EXPECT_NE(s.find("1 worker start 0.75 s"), std::string::npos) << s;
  EXPECT_NE(s.find("wall 3.00 s x 1 slot"), std::string::npos) << s;
  EXPECT_EQ(s.find('\n'), std::string::npos);  // one line
}

TEST(Phases, AnEmptySweepSummarizesWithoutDividingByZero) {
  const std::string s = PhaseTotals{}.summary(0.0, 2);
  EXPECT_NE(s.find("mean of 0 items"), std::string::npos) << s;
  EXPECT_EQ(s.find("nan"), std::string::npos) << s;
  EXPECT_EQ(s.find("inf"), std::string::npos) << s;
}

TEST(Phases, TraceRowsHaveTheHeadersColumnsAndQuoteTheSpec) {
  const auto header = split_csv_line(phase_trace_header());
  ASSERT_EQ(header.size(), 4 + kPhaseCount + 1);
  EXPECT_EQ(header[4], "wait_us");
  EXPECT_EQ(header.back(), "kernel_us");
  const std::string spec = "fwd,n1,c8";  // commas: must be quoted
  const auto row = split_csv_line(phase_trace_row(17, "gconv", "igemm_x", spec, sample(2.0)));
  ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(row[0], "17");
  EXPECT_EQ(row[3], spec);
  EXPECT_EQ(row[4], "2.0");    // wait, us
  EXPECT_EQ(row.back(), "100.0");  // kernel, us
}

// The sweep's inputs come from one block per (dtype, seed) of the period's
// length, shared by all problems (bench/sweep.cpp). That gives a small
// problem the same values as the block of its own size did only because
// fill_random is indexed by element: a shorter fill is a prefix of a longer.
TEST(Phases, ASharedFillBlockGivesEveryTensorTheValuesOfItsOwnBlock) {
  for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
    const size_t es = size_t(dtype_bytes(t));
    std::vector<unsigned char> shorter(1000 * es), longer(5003 * es);
    fill_random(t, shorter.data(), 1000, 11);
    fill_random(t, longer.data(), 5003, 11);
    EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin())) << to_string(t);
    std::vector<unsigned char> other(1000 * es);
    fill_random(t, other.data(), 1000, 12);
    EXPECT_NE(shorter, other) << to_string(t);  // the seeds still differ
  }
}

}  // namespace
}  // namespace gconv::bench
