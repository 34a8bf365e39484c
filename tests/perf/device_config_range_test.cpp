// Integer figures of a device config (configs/device/<arch>.json) beyond the
// range of their integer type are refused naming the key: converting such a
// double to int was undefined behaviour (found by tests/fuzz/fuzz_device_config).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "perf/device_info.hpp"
#include "pool/arch_rules.hpp"
#include "problem/read_text.hpp"

namespace gconv {
namespace {

TEST(DeviceConfigRange, IntegerFiguresOutOfRangeAreRefusedByKey) {
  auto text = problem_io::read_text_file(config_dir() + "/device/sm90.json");
  ASSERT_TRUE(text.ok()) << text.status().to_string();
  DeviceInfo ok;
  ASSERT_TRUE(parse_device_estimates(*text, "sm90.json", &ok).ok());
  EXPECT_GT(ok.sm_count, 0);
  for (const char* key : {"sm_count", "regs_per_sm", "max_threads_per_sm", "max_blocks_per_sm", "l2_bytes",
                          "smem_per_sm_bytes"}) {
    nlohmann::json j = nlohmann::json::parse(*text);
    j[key] = 1e300;
    DeviceInfo d;
    const Status s = parse_device_estimates(j.dump(), "sm90.json", &d);
    ASSERT_FALSE(s.ok()) << key;
    EXPECT_EQ(s.code(), StatusCode::parse_error);
    EXPECT_NE(s.message().find("sm90.json: key '" + std::string(key) + "'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace gconv
