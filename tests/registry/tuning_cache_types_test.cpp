// A tuning cache with a field of the wrong type (or out of range) is refused
// with one warning naming the file and the field, and selection goes on: a
// wrong-typed header field once made Registry::select throw nlohmann's
// type_error, which the C API reported as "internal". A FIFO at the cache's
// path is refused instead of blocking every select.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "core/log.hpp"
#include "registry/tuning_cache.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::spec;
using testing::TempDir;

const TuningKey kKey{"GPU X", "0.1.0", "pool"};

std::string cache_text(const std::string& header_field, const std::string& entry) {
  return R"({"format": "gconv-tuning-cache", "format_version": 1, )" + header_field +
         R"(, "gconv_version": "0.1.0", "pool_version": "pool", "entries": {"p": )" + entry + "}}";
}

const std::string kGoodGpu = R"("gpu": "GPU X")";
const std::string kGoodEntry =
    R"({"kernel": "k", "measured_ms": 0.5, "policy": "exhaustive", "kernels_measured": 3, "tuning_seconds": 1})";

TEST(TuningCacheTypes, WrongTypedFieldsAreParseErrorsNamingFileAndField) {
  struct Case {
    std::string text, needle;
  };
  const Case cases[] = {
      {cache_text(R"("gpu": 7)", kGoodEntry), "c.json: field 'gpu' is not a string (number)"},
      {cache_text(R"("gpu": null)", kGoodEntry), "c.json: field 'gpu' is not a string (null)"},
      {cache_text(kGoodGpu, R"({"kernel": "k", "measured_ms": "fast", "policy": "exhaustive",
                               "kernels_measured": 3, "tuning_seconds": 1})"),
       "c.json: entry 'p': field 'measured_ms' is not a number (string)"},
      {cache_text(kGoodGpu, R"({"kernel": "k", "measured_ms": 0.5, "policy": "exhaustive",
                               "kernels_measured": 1e300, "tuning_seconds": 1})"),
       "c.json: entry 'p': field 'kernels_measured' is 1e+300, out of range"},
      {cache_text(kGoodGpu, R"({"kernel": "k", "measured_ms": 0.5, "policy": "exhaustive",
                               "tuning_seconds": 1})"),
       "c.json: entry 'p': field 'kernels_measured' is missing"},
      {cache_text(kGoodGpu, "[1]"), "c.json: entry 'p': is not an object (array)"},
      {R"({"format": ["gconv-tuning-cache"], "format_version": 1})", "c.json: is not a gconv tuning cache"},
      {R"({"format": "gconv-tuning-cache", "format_version": "1"})", "c.json: is not a gconv tuning cache"},
  };
  for (const Case& c : cases) {
    std::map<std::string, TuningEntry> out;
    const Status s = parse_tuning_cache(c.text, "c.json", kKey, &out);
    ASSERT_FALSE(s.ok()) << c.needle;
    EXPECT_EQ(s.code(), StatusCode::parse_error);
    EXPECT_NE(s.message().find(c.needle), std::string::npos) << s.message();
    EXPECT_TRUE(out.empty());
  }
  std::map<std::string, TuningEntry> out;
  ASSERT_TRUE(parse_tuning_cache(cache_text(kGoodGpu, kGoodEntry), "c.json", kKey, &out).ok());
  EXPECT_EQ(out.at("p").kernels_measured, 3);
}

TEST(TuningCacheTypes, SelectGoesOnWithOneWarningNamingTheField) {
  const LogLevel saved = log_level();
  set_log_level(LogLevel::warn);
  TempDir dir;
  const auto path = dir.path() / "tuning.json";
  std::ofstream(path) << cache_text(R"("gpu": 7)", kGoodEntry);
  ::testing::internal::CaptureStderr();
  auto reg = make_registry("", path.string());
  const Problem p = spec("fwd_bf16_n8c64k64_h28w28_y3x3_p1");
  Result<Solution> s = Status();
  EXPECT_NO_THROW(s = reg->select(p, Policy::exhaustive()));
  EXPECT_NE(s.status().code(), StatusCode::internal) << s.status().to_string();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(path.string() + ": field 'gpu' is not a string"), std::string::npos) << err;
  set_log_level(saved);
}

TEST(TuningCacheTypes, FifoAtTheCachePathIsRefusedNotWaitedOn) {
  TempDir dir;
  const auto path = dir.path() / "tuning.json";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const LogLevel saved = log_level();
  set_log_level(LogLevel::warn);
  ::testing::internal::CaptureStderr();
  TuningCache c(path, kKey);
  EXPECT_FALSE(c.lookup("p").has_value());  // would block forever if the FIFO were opened
  const std::string err = ::testing::internal::GetCapturedStderr();
  set_log_level(saved);
  EXPECT_EQ(c.warnings(), 1);
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

}  // namespace
}  // namespace gconv
