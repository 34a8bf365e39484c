// CSV encodings that once made a column vanish silently (a byte order mark
// glued to 'direction': every row read as fwd) are either read right or are
// an error naming the file, the line and the cause; the same holds for the
// sweep reader.
#include <gtest/gtest.h>

#include <string>

#include "gconv/problem_file.hpp"
#include "perf/sweep_csv.hpp"
#include "problem/csv_text.hpp"

namespace gconv {
namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

const std::string kRows =
    "direction,dtype,n,c,k,g,h,w,y,x\n"
    "bwd_data,fp16,2,8,8,1,9,9,3,3\n"
    "bwd_weight,fp32,2,8,8,2,9,9,1,1\n";

TEST(CsvEncoding, ByteOrderMarkDoesNotHideTheFirstColumn) {
  auto r = parse_problem_text("\xEF\xBB\xBF" + kRows, "bom.csv");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].problem.direction, Direction::bwd_data);
  EXPECT_EQ((*r)[1].problem.direction, Direction::bwd_weight);
  EXPECT_EQ((*r)[1].problem.dtype, DType::fp32);
  EXPECT_EQ((*r)[0].line, 2);
  // Sniffed (no .csv name) the same.
  auto s = parse_problem_text("\xEF\xBB\xBF" + kRows, "set");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ((*s)[0].problem.direction, Direction::bwd_data);
}

TEST(CsvEncoding, CrlfQuotedAndSpacedHeaderNamesAreRead) {
  std::string crlf;
  for (char ch : "\" Direction \",DTYPE,n,c,k,g,h,w,y,x,source\n"
                 "\"bwd_data\",fp16,2,8,8,1,9,9,3,3,\"a, \"\"quoted\"\" source\"\n")
    if (ch == '\n') crlf += "\r\n";
    else if (ch) crlf += ch;
  auto r = parse_problem_text(crlf, "crlf.csv");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].problem.direction, Direction::bwd_data);
  EXPECT_EQ((*r)[0].source, "a, \"quoted\" source");
}

TEST(CsvEncoding, UnreadableEncodingsAreErrorsNamingTheCause) {
  struct Case {
    std::string text, needle;
  };
  const Case cases[] = {
      {std::string("\xFF\xFE", 2) + "d\0i\0r\0", "UTF-16"},
      {std::string("direction,c\nfwd,\0", 17), "e.csv:2: a NUL byte"},
      {"direction,c,k,h,w\rfwd,8,8,9,9\r", "e.csv:1: a carriage return without a line feed"},
  };
  for (const Case& c : cases) {
    auto r = parse_problem_text(c.text, "e.csv");
    ASSERT_FALSE(r.ok()) << c.needle;
    EXPECT_EQ(r.status().code(), StatusCode::parse_error);
    EXPECT_TRUE(has(r.status().message(), c.needle)) << r.status().message();
    auto t = bench::parse_sweep_csv(c.text, "e.csv");
    ASSERT_FALSE(t.ok()) << c.needle;
    EXPECT_TRUE(has(t.status().message(), c.needle)) << t.status().message();
  }
}

// A known column name with bytes an exporter adds unseen (a no-break space,
// a zero-width space) is an error, not an unknown column silently ignored.
TEST(CsvEncoding, KnownColumnWithStrayBytesIsAnError) {
  for (const std::string name : {"direction\xC2\xA0", "\xE2\x80\x8B" "direction", "di rection"}) {
    auto r = parse_problem_text(name + ",dtype,n,c,k,g,h,w,y,x\nbwd_data,fp16,2,8,8,1,9,9,3,3\n", "s.csv");
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_TRUE(has(r.status().message(), "s.csv:1: column 1")) << r.status().message();
    EXPECT_TRUE(has(r.status().message(), "did you mean 'direction'")) << r.status().message();
  }
  // Names that resemble no column stay allowed (files carry extra columns).
  auto ok = parse_problem_text("notes\xC2\xA0,c,k,h,w\nx,8,8,9,9\n", "s.csv");
  EXPECT_TRUE(ok.ok()) << ok.status().to_string();
}

TEST(CsvEncoding, SweepHeaderIsNormalizedAndRowsKeepTheirLines) {
  const std::string text =
      "\xEF\xBB\xBF" "Kernel , spec,Latency_MS\r\n# a comment\r\n\r\nk1,s1,0.5\r\nk2,\"s,2\",0.25\r\n";
  auto t = bench::parse_sweep_csv(text, "w.csv");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->header, (std::vector<std::string>{"kernel", "spec", "latency_ms"}));
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->get(1, "spec"), "s,2");
  EXPECT_EQ(t->where(0), "w.csv:4");
  EXPECT_EQ(t->where(1), "w.csv:5");
  auto dup = bench::parse_sweep_csv("kernel,spec,KERNEL\nk,s,k\n", "d.csv");
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(has(dup.status().message(), "d.csv:1: duplicate column 'kernel'")) << dup.status().message();
  auto stray = bench::parse_sweep_csv("kernel,spec,\"latency_ms\xC2\xA0\"\nk,s,1\n", "x.csv");
  ASSERT_FALSE(stray.ok());
  EXPECT_TRUE(has(stray.status().message(), "did you mean 'latency_ms'")) << stray.status().message();
}

}  // namespace
}  // namespace gconv
