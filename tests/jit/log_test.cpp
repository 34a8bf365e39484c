// The stderr logger of src/core/log.hpp (used by the JIT for cache warnings).
#include "core/log.hpp"

#include <gtest/gtest.h>

namespace gconv {
namespace {

TEST(JitLog, ParsesLevelsAndFallsBack) {
  EXPECT_EQ(parse_log_level("quiet", LogLevel::info), LogLevel::quiet);
  EXPECT_EQ(parse_log_level("warn", LogLevel::quiet), LogLevel::warn);
  EXPECT_EQ(parse_log_level("info", LogLevel::quiet), LogLevel::info);
  EXPECT_EQ(parse_log_level("loud", LogLevel::warn), LogLevel::warn);
  EXPECT_EQ(parse_log_level(nullptr, LogLevel::quiet), LogLevel::quiet);
}

TEST(JitLog, LevelGatesStderrAndNothingGoesToStdout) {
  LogLevel saved = log_level();
  set_log_level(LogLevel::warn);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  log_warn("cache entry x was corrupt");
  log_info("not shown at warn");
  std::string err = ::testing::internal::GetCapturedStderr();
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(err, "gconv [warn]: cache entry x was corrupt\n");
  EXPECT_EQ(out, "");

  set_log_level(LogLevel::quiet);
  ::testing::internal::CaptureStderr();
  log_warn("hidden");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  set_log_level(saved);
}

}  // namespace
}  // namespace gconv
