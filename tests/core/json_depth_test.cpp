// JSON nesting is bounded before nlohmann's recursive parser sees a document:
// brackets inside strings (escaped quotes included) do not count, and a
// problem file line nested 100,000 levels deep is a parse error with its line
// instead of a stack overflow.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/json_depth.hpp"
#include "gconv/problem_file.hpp"

namespace gconv {
namespace {

std::string nested(int n) { return std::string(size_t(n), '[') + std::string(size_t(n), ']'); }

TEST(JsonDepth, CountsBracketsOutsideStringsOnly) {
  EXPECT_TRUE(check_json_depth(nested(256), "x").ok());
  const Status deep = check_json_depth(nested(257), "x.json");
  EXPECT_EQ(deep.code(), StatusCode::parse_error);
  EXPECT_NE(deep.message().find("x.json: JSON nested deeper than 256 levels"), std::string::npos) << deep.message();
  // 1,000 brackets inside a string, with an escaped quote before them.
  EXPECT_TRUE(check_json_depth("{\"s\": \"\\\"" + nested(1000) + "\"}", "x").ok());
  EXPECT_TRUE(check_json_depth("{\"a\": [{\"b\": [1, 2]}]}", "x", 4).ok());
  EXPECT_FALSE(check_json_depth("{\"a\": [{\"b\": [1, 2]}]}", "x", 3).ok());
}

TEST(JsonDepth, DeepProblemFileLineIsAParseErrorWithItsLine) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_deep_" + std::to_string(::getpid()) + ".jsonl")).string();
  {
    std::ofstream f(path);
    f << "{\"spec\": \"fwd_n1c8k8_h9w9_y3x3_p1\"}\n{\"N\": " << nested(100000) << "}\n";
  }
  auto r = read_problem_file(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::parse_error);
  EXPECT_NE(r.status().message().find(":2:"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("nested deeper"), std::string::npos) << r.status().message();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gconv
