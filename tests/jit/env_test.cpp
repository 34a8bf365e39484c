// process_env_int: the integer knobs (GCONV_WGMMA_PERSISTENT,
// GCONV_DIRECT_WGRAD_BLOCKS) read a whole decimal integer within bounds and
// ignore anything else.
#include <gtest/gtest.h>

#include <cstdlib>

#include "jit/env.hpp"

namespace gconv::jit {
namespace {

TEST(ProcessEnvInt, WholeIntegersWithinBoundsOnly) {
  const char* name = "GCONV_TEST_ENV_INT";
  ::unsetenv(name);
  EXPECT_FALSE(process_env_int(name, 0, 10).has_value());
  const std::pair<const char*, std::optional<long long>> cases[] = {
      {"", std::nullopt}, {"7", 7},  {"0", 0},           {"10", 10},          {"11", std::nullopt},
      {"-1", std::nullopt}, {"3x", std::nullopt}, {"x3", std::nullopt}, {"99999999999999999999", std::nullopt}};
  for (const auto& [text, want] : cases) {
    ::setenv(name, text, 1);
    EXPECT_EQ(process_env_int(name, 0, 10), want) << "'" << text << "'";
  }
  ::unsetenv(name);
}

}  // namespace
}  // namespace gconv::jit
