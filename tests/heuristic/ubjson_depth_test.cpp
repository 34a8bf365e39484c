// The UBJSON pre-scan of model files: what nlohmann writes (plain, sized and
// typed containers) passes within the bound; nesting past it, element counts
// the bytes cannot hold, and cut-short input are parse errors naming the
// source, found without recursion (a million levels run on any stack).
#include "heuristic/ubjson_depth.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "heuristic/forest.hpp"

namespace gconv::heuristic {
namespace {

std::string bytes_of(const std::vector<std::uint8_t>& v) { return std::string(v.begin(), v.end()); }

nlohmann::json nested(int depth) {
  nlohmann::json j = {{"leaf", {1.5, 2.5, -3}}, {"s", "text"}, {"t", true}, {"n", nullptr}};
  for (int i = 0; i < depth; ++i) j = {{"k" + std::to_string(i), j}, {"arr", {i, i + 1}}};
  return j;
}

TEST(UbjsonDepth, WellFormedDocumentsPassWithinTheBound) {
  for (bool size : {false, true})
    for (bool type : {false, true}) {
      if (type && !size) continue;  // nlohmann needs use_size for use_type
      const std::string b = bytes_of(nlohmann::json::to_ubjson(nested(20), size, type));
      EXPECT_TRUE(check_ubjson_depth(b, "doc", 64).ok()) << size << type;
      // 20 levels of objects, each value one level deeper, plus the leaf array.
      const Status s = check_ubjson_depth(b, "doc", 20);
      EXPECT_FALSE(s.ok());
      EXPECT_NE(s.message().find("nested deeper than 20"), std::string::npos) << s.to_string();
    }
}

TEST(UbjsonDepth, DeepNestingIsRefusedWithoutRecursion) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  const Status s = check_ubjson_depth(deep, "model.ubj", 256);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("model.ubj"), std::string::npos);
  EXPECT_NE(s.message().find("nested deeper than 256"), std::string::npos) << s.to_string();
  // Through the model reader: the same error, no stack overflow.
  auto f = Forest::from_ubjson(deep);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("nested deeper"), std::string::npos) << f.status().to_string();
}

TEST(UbjsonDepth, CountsTheBytesCannotHoldAreRefused) {
  // A typed array of 2^60 nulls: nlohmann would build them all.
  std::string bomb = "[$Z#L";
  bomb += std::string("\x10\x00\x00\x00\x00\x00\x00\x00", 8);
  Status s = check_ubjson_depth(bomb, "m", 256);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("elements"), std::string::npos) << s.to_string();
  // A typed float array announcing more than is there.
  std::string floats = "[$d#i";
  floats += char(10);
  floats += std::string(12, '\0');
  s = check_ubjson_depth(floats, "m", 256);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cut short"), std::string::npos) << s.to_string();
  // Cut short anywhere.
  const std::string b = bytes_of(nlohmann::json::to_ubjson(nested(3), true, true));
  for (size_t len = 0; len < b.size(); ++len)
    EXPECT_FALSE(check_ubjson_depth(b.substr(0, len), "m", 256).ok()) << "prefix of " << len << " bytes";
}

}  // namespace
}  // namespace gconv::heuristic
