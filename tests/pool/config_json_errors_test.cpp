// A JSON config (arch rules, pool file) with a number too large for a double
// is a parse_error naming the file: nlohmann throws out_of_range for it, not
// parse_error, and the exception escaped parse_arch_rules and terminated the
// process. The first text is the input tests/fuzz/fuzz_device_config found
// (its selector byte dropped).
#include <gtest/gtest.h>

#include <string>

#include "pool/arch_rules.hpp"
#include "pool/pool.hpp"

namespace gconv {
namespace {

TEST(ConfigJsonErrors, NumberOverflowIsAParseErrorNamingTheFile) {
  const std::string texts[] = {std::string("13e30151\0\0c", 11), "1e999", R"({"limits": {"smem": 2e400}})"};
  for (const std::string& text : texts) {
    Result<ArchRules> a = Status();
    EXPECT_NO_THROW(a = parse_arch_rules(text, "arch.json"));
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.status().code(), StatusCode::parse_error);
    EXPECT_EQ(a.status().message().rfind("arch.json: invalid JSON", 0), 0u) << a.status().message();
    Result<PoolConfig> p = Status();
    EXPECT_NO_THROW(p = parse_pool_config(text, "pool.json"));
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().message().rfind("pool.json: invalid JSON", 0), 0u) << p.status().message();
  }
}

}  // namespace
}  // namespace gconv
