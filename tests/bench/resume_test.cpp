// Resume: an interrupted sweep file (rows, then a torn half row) is repaired
// and completed so that every key is present exactly once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "bench/sweep.hpp"
#include "perf/sweep_csv.hpp"

namespace gconv::bench {
namespace {

std::vector<SweepRow> all_rows() {
  std::vector<SweepRow> rows;
  auto t = parse_kernel_name("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1");
  EXPECT_TRUE(t.ok());
  for (int c : {8, 16, 32, 64, 128}) {
    auto p = Problem::parse_spec("fwd_bf16_n1c" + std::to_string(c) + "k" + std::to_string(c) + "g1_h9w9_y3x3_s1_p1_dil1");
    EXPECT_TRUE(p.ok());
    rows.push_back(make_row(*t, ProblemEntry{*p, "src, \"quoted\"", 0}, "ok"));
  }
  return rows;
}

TEST(SweepResume, TornLastLineIsCutAndEveryRowEndsUpExactlyOnce) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_resume_" + std::to_string(::getpid()) + ".csv")).string();
  const auto rows = all_rows();
  {  // first run: header, two complete rows, then half of the third (killed mid-write)
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << sweep_csv_header() << "\n" << sweep_csv_row(rows[0], "g") << "\n" << sweep_csv_row(rows[1], "g") << "\n";
    const std::string third = sweep_csv_row(rows[2], "g");
    f << third.substr(0, third.size() / 2);
  }
  std::set<RowKey> done;
  size_t torn = 0;
  ASSERT_TRUE(prepare_append(path, sweep_csv_header(), &done, &torn).ok());
  EXPECT_GT(torn, 0u);
  EXPECT_EQ(done.size(), 2u);
  {  // second run: writes only what is not done
    RowWriter w;
    ASSERT_TRUE(w.open(path).ok());
    for (const auto& r : rows)
      if (!done.count({r.kernel, r.spec, r.provider})) ASSERT_TRUE(w.write_line(sweep_csv_row(r, "g")).ok());
  }
  // A third start finds nothing torn and everything done.
  std::set<RowKey> again;
  ASSERT_TRUE(prepare_append(path, sweep_csv_header(), &again, &torn).ok());
  EXPECT_EQ(torn, 0u);
  EXPECT_EQ(again.size(), rows.size());
  auto t = read_sweep_csv(path);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  ASSERT_EQ(t->rows.size(), rows.size());
  std::map<RowKey, int> count;
  for (size_t i = 0; i < t->rows.size(); ++i) ++count[row_key(*t, i)];
  for (const auto& r : rows) EXPECT_EQ((count[{r.kernel, r.spec, "gconv"}]), 1) << r.spec;
  std::filesystem::remove(path);
}

TEST(SweepResume, NewFileGetsTheHeaderAndAForeignHeaderIsRefused) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_resume_h_" + std::to_string(::getpid()) + ".csv")).string();
  std::filesystem::remove(path);
  std::set<RowKey> done;
  ASSERT_TRUE(prepare_append(path, sweep_csv_header(), &done).ok());
  auto t = read_sweep_csv(path);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->header, sweep_csv_columns());
  EXPECT_TRUE(t->rows.empty());
  {
    std::ofstream f(path, std::ios::trunc);
    f << "kernel,spec,latency_ms\n";
  }
  EXPECT_EQ(prepare_append(path, sweep_csv_header(), &done).code(), StatusCode::invalid_argument);
  std::filesystem::remove(path);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A file that is not a sweep is refused before a byte changes: neither its
// "torn" last line is cut nor is it replaced by a header.
TEST(SweepResume, AFileThatIsNotASweepIsLeftUntouched) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_resume_u_" + std::to_string(::getpid()) + ".txt")).string();
  for (const std::string& content : {std::string("my notes\nline two without newline"),
                                     std::string("a single line, no newline"),
                                     std::string("kernel,spec\nx,y\npartial")}) {
    {
      std::ofstream f(path, std::ios::binary | std::ios::trunc);
      f << content;
    }
    std::set<RowKey> done;
    size_t torn = 0;
    const Status s = prepare_append(path, sweep_csv_header(), &done, &torn);
    EXPECT_EQ(s.code(), StatusCode::invalid_argument) << content;
    EXPECT_NE(s.message().find("left untouched"), std::string::npos) << s.to_string();
    EXPECT_EQ(slurp(path), content);
    EXPECT_EQ(torn, 0u);
  }
  std::filesystem::remove(path);
  // A directory (or any non-regular file) is refused by name.
  std::set<RowKey> done;
  const Status dir = prepare_append(std::filesystem::temp_directory_path().string(), sweep_csv_header(), &done);
  EXPECT_EQ(dir.code(), StatusCode::invalid_argument);
  EXPECT_NE(dir.message().find("not a regular file"), std::string::npos) << dir.to_string();
}

// A run killed while writing the header left a prefix of it: the file is
// completed, not refused.
TEST(SweepResume, ATornHeaderIsRewritten) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_resume_th_" + std::to_string(::getpid()) + ".csv")).string();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << sweep_csv_header().substr(0, 20);
  }
  std::set<RowKey> done;
  size_t torn = 0;
  ASSERT_TRUE(prepare_append(path, sweep_csv_header(), &done, &torn).ok());
  EXPECT_EQ(torn, 20u);
  EXPECT_EQ(slurp(path), sweep_csv_header() + "\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gconv::bench
