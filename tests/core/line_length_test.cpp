// Every line-oriented text gconv reads (problem files in CSV, JSON lines or
// plain text, sweep CSVs, the tuning cache, model manifests) refuses a line
// longer than problem_io::kMaxLineBytes with a parse error naming the file
// and the line: a file without line ends (binary data, /dev/urandom copied to
// disk) is an error, not one row copied whole again by every reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "gconv/problem_file.hpp"
#include "heuristic/model.hpp"
#include "perf/sweep_csv.hpp"
#include "problem/csv_text.hpp"
#include "registry/tuning_cache.hpp"

namespace gconv {
namespace {

using problem_io::check_line_lengths;
using problem_io::kMaxLineBytes;

bool has(const Status& s, const std::string& needle) { return s.message().find(needle) != std::string::npos; }

TEST(LineLength, TheLimitIsExactAndCountsNoLineEnd) {
  const std::string at_limit(16, 'a');
  EXPECT_TRUE(check_line_lengths("x\n" + at_limit + "\ny", "f", 16).ok());
  EXPECT_TRUE(check_line_lengths("x\r\n" + at_limit + "\r\ny", "f", 16).ok());  // CR of CRLF not counted
  EXPECT_TRUE(check_line_lengths(at_limit, "f", 16).ok());                       // last line, no line end
  EXPECT_TRUE(check_line_lengths("", "f", 16).ok());

  const Status over = check_line_lengths("x\n\n" + at_limit + "b\ny", "f.csv", 16);
  EXPECT_EQ(over.code(), StatusCode::parse_error);
  EXPECT_TRUE(has(over, "f.csv:3: line of more than 16 bytes")) << over.message();
  // A last line without its line end is measured too, and said to have none.
  const Status tail = check_line_lengths("x\n" + at_limit + "bc", "f.csv", 16);
  EXPECT_TRUE(has(tail, "f.csv:2: line of more than 16 bytes")) << tail.message();
  EXPECT_TRUE(has(tail, "no line end")) << tail.message();
  // A lone CR at the end of a line without LF is a byte of the line.
  EXPECT_FALSE(check_line_lengths(at_limit + "\r", "f", 16).ok());
}

TEST(LineLength, DefaultLimitIsOneMebibyte) {
  EXPECT_EQ(kMaxLineBytes, size_t(1) << 20);
  EXPECT_TRUE(check_line_lengths(std::string(kMaxLineBytes, 'a') + "\n", "f").ok());
  const Status s = check_line_lengths("a\n" + std::string(kMaxLineBytes + 1, 'a') + "\n", "f");
  EXPECT_TRUE(has(s, "f:2: line of more than 1 MiB")) << s.message();
}

TEST(LineLength, SweepCsvRowLongerThanTheLimitIsAnErrorWithItsLine) {
  const std::string header = "kernel,spec,provider,status,latency_ms\n";
  const std::string row = "k,fwd_n1c8k8_h9w9_y3x3_p1,gconv,ok,1.0\n";
  const std::string huge = "k," + std::string(kMaxLineBytes, 'x') + ",gconv,ok,1.0\n";
  ASSERT_TRUE(bench::parse_sweep_csv(header + row, "s.csv").ok());
  auto t = bench::parse_sweep_csv(header + row + huge + row, "s.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::parse_error);
  EXPECT_TRUE(has(t.status(), "s.csv:3: line of more than 1 MiB")) << t.status().message();
}

TEST(LineLength, ProblemFilesOfEveryFormatRefuseALongLine) {
  const std::string spec = "fwd_n1c8k8_h9w9_y3x3_p1";
  const std::string pad(kMaxLineBytes, ' ');
  struct Case {
    std::string name, text;
  };
  // The long line is the second one in each format; a line of the limit's
  // length just under it is still read (CSV: spaces around a field are trimmed).
  const Case cases[] = {
      {"p.txt", spec + "\n" + spec + " " + pad + "\n"},
      {"p.jsonl", "{\"spec\": \"" + spec + "\"}\n{\"spec\": \"" + spec + "\"}" + pad + "\n"},
      {"p.csv", "spec\n" + spec + pad + "\n"},
  };
  for (const Case& c : cases) {
    auto r = parse_problem_text(c.text, c.name);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), StatusCode::parse_error) << c.name;
    EXPECT_TRUE(has(r.status(), c.name + ":2: line of more than 1 MiB")) << r.status().message();
  }
  auto ok = parse_problem_text(spec + "\n" + spec + std::string(kMaxLineBytes - spec.size(), ' ') + "\n", "p.txt");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size(), 2u);
}

TEST(LineLength, AFileWithoutLineEndsIsRefusedNamingItsFirstLine) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("gconv_longline_" + std::to_string(::getpid()) + ".txt")).string();
  { std::ofstream(path, std::ios::binary) << std::string(3 * kMaxLineBytes, 'z'); }
  auto r = read_problem_file(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::parse_error);
  EXPECT_TRUE(has(r.status(), path + ":1: line of more than 1 MiB")) << r.status().message();
  EXPECT_TRUE(has(r.status(), "no line end")) << r.status().message();
}

TEST(LineLength, TuningCacheAndManifestRefuseALongLine) {
  // Valid JSON both: the long line is white space, which the JSON parser
  // itself would skip.
  const std::string pad(kMaxLineBytes + 1, ' ');
  std::map<std::string, TuningEntry> entries;
  const Status c = parse_tuning_cache("{\n\"format\": \"gconv-tuning-cache\",\n" + pad + "\n}", "tuning.json",
                                      TuningKey{"g", "v", "p"}, &entries);
  EXPECT_EQ(c.code(), StatusCode::parse_error);
  EXPECT_TRUE(has(c, "tuning.json:3: line of more than 1 MiB")) << c.message();

  auto m = heuristic::parse_manifest("{\n" + pad + "\"format\": \"gconv-selector/1\"}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::parse_error);
  EXPECT_TRUE(has(m.status(), "manifest.json:2: line of more than 1 MiB")) << m.status().message();
}

}  // namespace
}  // namespace gconv
