// Problem files: CSV / JSONL / text round trips, the cuDNN benchmark file,
// compressed files, and errors that carry "file:line:" and the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "gconv/problem_file.hpp"
#include "random_problem.hpp"

namespace gconv {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kData = GCONV_TEST_DATA_DIR;

// A fresh directory per test, removed afterwards.
class ProblemFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("gconv_pf_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path dir_;
};

std::vector<ProblemEntry> random_entries(uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<ProblemEntry> v;
  const char* sources[] = {"", "resnet50", "a, b", "say \"hi\"", " padded ", "line\nbreak"};
  for (int i = 0; i < count; ++i)
    v.push_back({testing::random_valid_problem(rng), sources[i % 6], 0});
  return v;
}

Status read_error(const std::string& text, const std::string& name) {
  auto r = parse_problem_text(text, name);
  EXPECT_FALSE(r.ok()) << "parsed: " << text;
  return r.ok() ? Status() : r.status();
}

TEST_F(ProblemFile, CsvRoundTrip) {
  const auto entries = random_entries(7, 600);
  const std::string path = (dir_ / "set.csv").string();
  ASSERT_TRUE(write_problem_csv(path, entries).ok());
  auto back = read_problem_file(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_EQ(back->size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ((*back)[i].problem, entries[i].problem) << entries[i].problem.to_spec();
    std::string src = entries[i].source;
    if (src == "line\nbreak") src = "line break";  // documented: newlines become spaces
    EXPECT_EQ((*back)[i].source, src);
    EXPECT_EQ((*back)[i].line, int64_t(i) + 2);  // line 1 is the header
  }
  // The header is the documented schema.
  std::ifstream f(path);
  std::string header;
  std::getline(f, header);
  std::string expect;
  for (const auto& c : problem_csv_columns()) expect += (expect.empty() ? "" : ",") + c;
  EXPECT_EQ(header, expect);
}

TEST_F(ProblemFile, JsonlRoundTripWithBothKeyStyles) {
  const auto entries = random_entries(11, 500);
  std::string csv_style, cudnn_style;
  for (const auto& e : entries) {
    const Problem& p = e.problem;
    nlohmann::json a = {{"direction", to_string(p.direction)}, {"dtype", to_string(p.dtype)}, {"ndim", p.ndim},
                        {"n", p.n}, {"c", p.c}, {"k", p.k}, {"g", p.g}, {"source", e.source}, {"extra", 1.5}};
    nlohmann::json b = {{"nd", p.ndim}, {"N", p.n}, {"C", p.c}, {"K", p.k}, {"G", p.g},
                        {"direction", to_string(p.direction)}, {"dtype", to_string(p.dtype)},
                        {"source", e.source}};
    static const char* dn[3] = {"d", "h", "w"};
    static const char* fn[3] = {"z", "y", "x"};
    for (int i = p.first_slot(); i < 3; ++i) {
      const std::string s = dn[i];
      a[dn[i]] = p.in[i];
      a[fn[i]] = p.filter[i];
      a["stride_" + s] = p.stride[i];
      a["pad_" + s + "_lo"] = p.pad_lo[i];
      a["pad_" + s + "_hi"] = p.pad_hi[i];
      a["dil_" + s] = p.dilation[i];
      b["spatial"].push_back(p.in[i]);
      b["kernel"].push_back(p.filter[i]);
      b["stride"].push_back(p.stride[i]);
      b["dil"].push_back(p.dilation[i]);
      if (p.pad_lo[i] == p.pad_hi[i]) b["pad"].push_back(p.pad_lo[i]);
      else b["pad"].push_back({p.pad_lo[i], p.pad_hi[i]});
    }
    csv_style += a.dump() + "\n";
    cudnn_style += b.dump() + "\n";
  }
  for (const std::string& text : {csv_style, "{\"about\": \"header\"}\n" + cudnn_style}) {
    auto back = parse_problem_text(text, "mem.jsonl");
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    ASSERT_EQ(back->size(), entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      EXPECT_EQ((*back)[i].problem, entries[i].problem) << entries[i].problem.to_spec();
      EXPECT_EQ((*back)[i].source, entries[i].source);
    }
  }
}

TEST_F(ProblemFile, TextRoundTripAndComments) {
  const auto entries = random_entries(13, 500);
  std::string text = "# specs, one per line\n\n";
  for (const auto& e : entries) text += "  " + e.problem.to_spec() + "\tmodel " + std::to_string(e.problem.n) + "\n";
  const std::string path = write("set.txt", text);
  auto back = read_problem_file(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_EQ(back->size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ((*back)[i].problem, entries[i].problem);
    EXPECT_EQ((*back)[i].source, "model " + std::to_string(entries[i].problem.n));
    EXPECT_EQ((*back)[i].line, int64_t(i) + 3);
  }
}

TEST_F(ProblemFile, HandWrittenCsvWithOptionalColumns) {
  auto r = read_problem_file(kData + "/problems_mixed.csv");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 5u);
  const auto& v = *r;
  EXPECT_EQ(v[0].problem, *Problem::parse_spec("n32c3k64_h224w224_y7x7_s2_p3"));
  EXPECT_EQ(v[0].source, "resnet50 conv1");
  EXPECT_EQ(v[0].line, 4);
  EXPECT_EQ(v[1].problem, *Problem::parse_spec("bwd_data_n32c128k128g32_h56w56_y3x3_p1"));
  EXPECT_EQ(v[1].source, "ResNeXt, grouped");
  EXPECT_EQ(v[2].problem, *Problem::parse_spec("bwd_weight_fp16_n8c64k64_d16h56w56_z3y3x3_s1_p1"));
  EXPECT_EQ(v[2].source, "spec only, \"quoted\"");
  EXPECT_EQ(v[2].line, 7);
  // A direction cell overrides the spec's prefix.
  EXPECT_EQ(v[3].problem, *Problem::parse_spec("fwd_n4c16k16g16_h28w28_y3x3_s2_p0:1"));
  EXPECT_EQ(v[4].problem, *Problem::parse_spec("n8c1k512_w16000_x10_s5"));
  EXPECT_EQ(v[4].problem.ndim, 1);
  EXPECT_EQ(v[4].source, "audio 1D");
}

TEST_F(ProblemFile, CudnnPublicFileLoads) {
  auto r = read_problem_file(kData + "/cudnn_h200_public.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  // 586 lines, the first is the "about" header.
  ASSERT_EQ(r->size(), 585u);
  const auto& first = (*r)[0];
  EXPECT_EQ(first.problem, *Problem::parse_spec("fwd_bf16_n32c3k64g1_h224w224_y7x7_s2_p3_dil1"));
  EXPECT_EQ(first.source, "resnet50");
  EXPECT_EQ(first.line, 2);
  size_t fwd = 0, three_d = 0, depthwise = 0;
  for (const auto& e : *r) {
    fwd += e.problem.direction == Direction::fwd;
    three_d += e.problem.ndim == 3;
    depthwise += e.problem.is_depthwise();
  }
  EXPECT_EQ(fwd, 195u);
  EXPECT_EQ(three_d, 99u);
  EXPECT_EQ(depthwise, 90u);
}

TEST_F(ProblemFile, CompressedFilesGiveTheSameProblems) {
  auto plain = read_problem_file(kData + "/cudnn_h200_public.jsonl");
  ASSERT_TRUE(plain.ok());
  for (const char* ext : {".gz", ".zst"}) {
    auto z = read_problem_file(kData + "/cudnn_h200_public.jsonl" + ext);
    ASSERT_TRUE(z.ok()) << ext << ": " << z.status().to_string();
    ASSERT_EQ(z->size(), plain->size()) << ext;
    for (size_t i = 0; i < z->size(); ++i) {
      EXPECT_EQ((*z)[i].problem, (*plain)[i].problem);
      EXPECT_EQ((*z)[i].source, (*plain)[i].source);
      EXPECT_EQ((*z)[i].line, (*plain)[i].line);
    }
  }
  // Corrupt or truncated compressed files are io_errors naming the path.
  std::vector<std::string> bad = {write("broken.csv.gz", "this is not gzip data"),
                                  write("broken.csv.zst", "this is not zstd data")};
  for (const char* ext : {".gz", ".zst"}) {
    std::ifstream f(kData + "/cudnn_h200_public.jsonl" + ext, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    bad.push_back(write(std::string("truncated.jsonl") + ext, bytes.substr(0, bytes.size() / 2)));
  }
  for (const std::string& path : bad) {
    auto r = read_problem_file(path);
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), StatusCode::io_error) << r.status().to_string();
    EXPECT_THAT(r.status().message(), StartsWith(path + ": "));
  }
}

TEST_F(ProblemFile, MissingFileIsAnIoError) {
  for (const std::string name : {"nope.csv", "nope.csv.gz", "nope.jsonl.zst"}) {
    auto r = read_problem_file((dir_ / name).string());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::io_error) << r.status().to_string();
    EXPECT_THAT(r.status().message(), HasSubstr(name));
  }
}

TEST_F(ProblemFile, BadCsvRowsReportFileLineAndField) {
  const std::string head = "n,c,k,g,h,w,y,x,source\n";
  struct Case { std::string row; StatusCode code; std::string contains; };
  const Case cases[] = {
      {"1,8,8,1,x5,5,3,3,a", StatusCode::parse_error, "column 'h': 'x5' is not an integer"},
      {"1,8,8,1,5,5,3.5,3,a", StatusCode::parse_error, "column 'y': '3.5' is not an integer"},
      {"1,8,8,1,5,99999999999999999999,3,3,a", StatusCode::parse_error, "column 'w'"},
      {"1,7,8,2,5,5,3,3,a", StatusCode::invalid_problem, "C (7) is not divisible by G (2)"},
      {"1,8,8,1,2,5,3,3,a", StatusCode::invalid_problem, "dilated filter y"},
      {"1,,8,1,5,5,3,3,a", StatusCode::parse_error, "missing column 'c'"},
      {"1,8,8,1,5,3,3,a", StatusCode::parse_error, "8 fields, the header has 9"},
      {"1,8,8,1,5,5,3,3,\"a", StatusCode::parse_error, "unterminated quoted field"},
  };
  for (const Case& c : cases) {
    // Two good rows first so the bad one is on line 4.
    const std::string text = head + "1,8,8,1,5,5,3,3,ok\n\n" + c.row + "\n";
    Status s = read_error(text, "sets/bad.csv");
    EXPECT_EQ(s.code(), c.code) << c.row << ": " << s.to_string();
    EXPECT_THAT(s.message(), StartsWith("sets/bad.csv:4: ")) << c.row;
    EXPECT_THAT(s.message(), HasSubstr(c.contains)) << c.row;
  }
  // Header problems are reported on the header's line.
  Status dup = read_error("# c\nn,c,C,k,w\n", "x.csv");
  EXPECT_EQ(dup.message(), "x.csv:2: duplicate column 'c'");
  EXPECT_EQ(read_error("", "empty.csv").message(), "empty.csv: no header line");
}

TEST_F(ProblemFile, CsvSpecAndColumnsMustAgree) {
  const std::string head = "spec,c,k,h,w,d,ndim\n";
  auto ok = parse_problem_text(head + "n1c8k8_h5w6,8,8,5,6,,2\n", "a.csv");
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  Status s = read_error(head + "n1c8k8_h5w6,8,16,5,6,,2\n", "a.csv");
  EXPECT_THAT(s.message(), StartsWith("a.csv:2: column 'spec': 'n1c8k8_h5w6' does not match"));
  // An unused dimension may only hold its neutral value.
  EXPECT_TRUE(parse_problem_text(head + ",8,8,5,6,1,2\n", "a.csv").ok());
  Status u = read_error(head + ",8,8,5,6,4,2\n", "a.csv");
  EXPECT_EQ(u.message(), "a.csv:2: column 'd': 4 given for a 2D problem (must be empty or 1)");
  // A bad spec names the column and the position in the spec.
  Status b = read_error(head + "n1c8q8_h5w6,,,,,,\n", "a.csv");
  EXPECT_EQ(b.message(), "a.csv:2: column 'spec': unknown key 'q' at position 4");
  Status n = read_error(head + ",,,,,,\n", "a.csv");
  EXPECT_THAT(n.message(), HasSubstr("a.csv:2: no problem"));
  Status d = read_error("direction,c,k,w\nsideways,1,1,1\n", "a.csv");
  EXPECT_EQ(d.message(), "a.csv:2: column 'direction': unknown name 'sideways'");
}

TEST_F(ProblemFile, BadJsonlRowsReportFileLineAndField) {
  const std::string good = R"({"nd": 1, "N": 1, "C": 4, "K": 4, "spatial": [9], "kernel": [3]})";
  struct Case { std::string row; StatusCode code; std::string contains; };
  const Case cases[] = {
      {R"({"nd": 2, "C": 4, "K": 4, "spatial": [9], "kernel": [3, 3]})", StatusCode::parse_error,
       "key 'spatial': 1 entries for a 2D problem"},
      {R"({"nd": 1, "C": 4, "K": "four", "spatial": [9]})", StatusCode::parse_error, "key 'K'"},
      {R"({"nd": 1, "C": 4, "K": 4, "spatial": [9], "stride": [0]})", StatusCode::invalid_problem, "stride_w (0)"},
      {R"({"nd": 1, "C": 4, "spatial": [9]})", StatusCode::parse_error, "missing key 'K'"},
      {R"({"c": 4, "k": 4, "w": 9.5})", StatusCode::parse_error, "key 'w'"},
      {R"({"c": 4, "k": 4, "w": 9, "direction": "up"})", StatusCode::parse_error, "key 'direction': unknown name 'up'"},
      {R"({"c": 4, "k": 4, )", StatusCode::parse_error, "not valid JSON"},
      {R"([1, 2])", StatusCode::parse_error, "expected a JSON object"},
  };
  for (const Case& c : cases) {
    const std::string text = "{\"about\": 1}\n" + good + "\n" + c.row + "\n";
    Status s = read_error(text, "b.jsonl");
    EXPECT_EQ(s.code(), c.code) << c.row << ": " << s.to_string();
    EXPECT_THAT(s.message(), StartsWith("b.jsonl:3: ")) << c.row;
    EXPECT_THAT(s.message(), HasSubstr(c.contains)) << c.row;
  }
}

TEST_F(ProblemFile, BadTextRowReportsFileLine) {
  Status s = read_error("n1c1k1_w5\nn1c1k1_h5 resnet\n", "c.txt");
  EXPECT_EQ(s.code(), StatusCode::parse_error);
  EXPECT_EQ(s.message(), "c.txt:2: spec: missing input size w");
  Status v = read_error("n1c1k1_w5\n\nn1c3k2g2_w5\n", "c.txt");
  EXPECT_EQ(v.code(), StatusCode::invalid_problem);
  EXPECT_THAT(v.message(), StartsWith("c.txt:3: C (3)"));
}

TEST_F(ProblemFile, FormatIsSniffedForUnknownExtensions) {
  auto csv = parse_problem_text("c,k,w\n4,4,9\n", "set.dat");
  ASSERT_TRUE(csv.ok()) << csv.status().to_string();
  EXPECT_EQ(csv->at(0).problem, *Problem::parse_spec("c4k4_w9"));
  auto jsonl = parse_problem_text("\n{\"c\": 4, \"k\": 4, \"w\": 9}\n", "set");
  ASSERT_TRUE(jsonl.ok()) << jsonl.status().to_string();
  EXPECT_EQ(jsonl->at(0).problem, *Problem::parse_spec("c4k4_w9"));
  // A spec with a comma list is not mistaken for a CSV header.
  auto text = parse_problem_text("c4k4_h9w9_s2,1\n", "set");
  ASSERT_TRUE(text.ok()) << text.status().to_string();
  EXPECT_EQ(text->at(0).problem.stride[1], 2);
  // Empty sets are fine.
  auto none = parse_problem_text("# nothing\n", "x.txt");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(ProblemFile, BundledExampleSetLoads) {
  ASSERT_EQ(::setenv("GCONV_PROBLEMS_DIR", dir_.c_str(), 1), 0);
  EXPECT_EQ(default_problem_dir(), dir_.string());
  ASSERT_EQ(::unsetenv("GCONV_PROBLEMS_DIR"), 0);
  EXPECT_EQ(default_problem_dir(), std::string(GCONV_SOURCE_DIR) + "/problems");
  auto r = read_problem_file(default_problem_dir() + "/example.csv");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_GE(r->size(), 20u);
  int nd[4] = {0, 0, 0, 0}, depthwise = 0, grouped = 0, bwd = 0;
  for (const auto& e : *r) {
    EXPECT_FALSE(e.source.empty()) << "line " << e.line;
    nd[e.problem.ndim]++;
    depthwise += e.problem.is_depthwise();
    grouped += e.problem.is_grouped();
    bwd += e.problem.direction != Direction::fwd;
  }
  EXPECT_GT(nd[1], 0);
  EXPECT_GT(nd[2], 0);
  EXPECT_GT(nd[3], 0);
  EXPECT_GT(depthwise, 0);
  EXPECT_GT(grouped, 0);
  EXPECT_GT(bwd, 0);
}

}  // namespace
}  // namespace gconv

namespace gconv {
namespace {

// A FIFO blocked the reader forever and /dev/zero grew without end: only
// regular files are read, and anything else is an io_error naming it.
TEST(ProblemFileBounds, NonRegularFilesAreRefusedByName) {
  const std::string fifo = (std::filesystem::temp_directory_path() /
                            ("gconv_fifo_" + std::to_string(::getpid()) + ".csv")).string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero"), std::filesystem::temp_directory_path().string()}) {
    auto r = read_problem_file(path);
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), StatusCode::io_error) << path;
    EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos) << r.status().message();
  }
  std::filesystem::remove(fifo);
}

}  // namespace
}  // namespace gconv
