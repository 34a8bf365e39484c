// Integer fields of a model manifest: a number beyond int (the fuzzer's
// 1e48) or a float is a parse error naming the key, never a conversion.
#include <gtest/gtest.h>

#include <string>

#include "heuristic/model.hpp"

namespace gconv::heuristic {
namespace {

std::string manifest(const std::string& num_features, const std::string& keep) {
  return R"({"format": "gconv-selector/1", "feature_schema": "x", "num_features": )" + num_features +
         R"(, "objective": "reg", "gpu": {}, "prefilter": {"dir": "prefilter", "keep": )" + keep + "}}";
}

TEST(ManifestIntegers, OutOfRangeOrFractionalIsAParseErrorNamingTheKey) {
  struct Case {
    std::string num_features, keep, key;
  };
  for (const Case& c : {Case{"999999999999999999999999999999999999999999999119", "2", "'num_features'"},
                        Case{"1e48", "2", "'num_features'"}, Case{"141.5", "2", "'num_features'"},
                        Case{"4294967297", "2", "'num_features'"}, Case{"141", "-4294967297", "'prefilter.keep'"},
                        Case{"141", "2.0", "'prefilter.keep'"}}) {
    auto m = parse_manifest(manifest(c.num_features, c.keep));
    ASSERT_FALSE(m.ok()) << c.num_features << " " << c.keep;
    EXPECT_EQ(m.status().code(), StatusCode::parse_error);
    EXPECT_NE(m.status().message().find(c.key), std::string::npos) << m.status().message();
  }
}

}  // namespace
}  // namespace gconv::heuristic
