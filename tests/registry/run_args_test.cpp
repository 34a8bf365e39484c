// Registry::run argument checks that need no GPU: invalid problems, null and
// misaligned pointers (named by operand), and no_device instead of a crash
// when there is no GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include "registry/validate.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::spec;

// Addresses that are never dereferenced: the checks fail before any use.
void* fake(uintptr_t addr) { return reinterpret_cast<void*>(addr); }

TEST(RegistryRunArgs, NullPointersAreNamedByOperand) {
  struct Case {
    const char* spec;
    int null_index;
    const char* expect;
  } cases[] = {
      {"fwd_bf16_n2c8k8_h8w8_y3x3_p1", 0, "a (x) is null"},
      {"fwd_bf16_n2c8k8_h8w8_y3x3_p1", 1, "b (w) is null"},
      {"fwd_bf16_n2c8k8_h8w8_y3x3_p1", 2, "out (y) is null"},
      {"bwd_data_bf16_n2c8k8_h8w8_y3x3_p1", 0, "a (dy) is null"},
      {"bwd_data_bf16_n2c8k8_h8w8_y3x3_p1", 2, "out (dx) is null"},
      {"bwd_weight_fp32_n2c8k8_h8w8_y3x3_p1", 1, "b (dy) is null"},
      {"bwd_weight_fp32_n2c8k8_h8w8_y3x3_p1", 2, "out (dw) is null"},
  };
  auto reg = make_registry();
  for (const Case& c : cases) {
    const Problem p = spec(c.spec);
    void* ptrs[3] = {fake(0x10000), fake(0x20000), fake(0x30000)};
    ptrs[c.null_index] = nullptr;
    auto sol = reg->select(p, Policy::analytic());
    ASSERT_TRUE(sol.ok());
    Status s = reg->run(*sol, p, ptrs[0], ptrs[1], ptrs[2], nullptr, 0, nullptr);
    EXPECT_EQ(s.code(), StatusCode::invalid_argument) << c.spec;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
    // The convenience overload checks the same way.
    Status s2 = reg->run(p, ptrs[0], ptrs[1], ptrs[2], nullptr, 0, nullptr);
    EXPECT_EQ(s2.code(), StatusCode::invalid_argument) << c.spec;
  }
}

TEST(RegistryRunArgs, MisalignedPointersAreInvalidArguments) {
  auto reg = make_registry();
  const Problem p = spec("fwd_bf16_n2c8k8_h8w8_y3x3_p1");
  auto sol = reg->select(p, Policy::analytic());
  ASSERT_TRUE(sol.ok());
  Status s = reg->run(*sol, p, fake(0x10000), fake(0x20008), fake(0x30000), nullptr, 0, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("b (w) (0x20008) is not aligned to 16 bytes"), std::string::npos) << s.message();
  s = reg->run(*sol, p, fake(0x10000), fake(0x20000), fake(0x30000), fake(0x40004), 1024, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("workspace"), std::string::npos) << s.message();

  EXPECT_TRUE(check_pointers(Direction::fwd, fake(16), fake(32), fake(48), nullptr).ok());
  EXPECT_FALSE(check_pointers(Direction::fwd, fake(16), fake(32), fake(50), nullptr).ok());
  EXPECT_STREQ(operand_names(Direction::bwd_weight).out, "dw");
}

TEST(RegistryRunArgs, InvalidProblemComesFirst) {
  auto reg = make_registry();
  Problem p = spec("fwd_bf16_n2c8k8_h8w8_y3x3_p1");
  Solution sol = *reg->select(p, Policy::analytic());
  p.c = 7;  // not divisible by ... and w/x shapes no longer agree
  p.g = 2;
  Status s = reg->run(sol, p, nullptr, nullptr, nullptr, nullptr, 0, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_problem) << s.to_string();
}

TEST(RegistryRunArgs, WithoutAGpuRunIsNoDeviceNotACrash) {
  auto reg = make_registry();
  if (reg->device_name() != "none") GTEST_SKIP() << "a GPU is present";
  for (const char* sp : {"fwd_bf16_n2c8k8_h8w8_y3x3_p1", "bwd_weight_bf16_n32c256k64_h56w56"}) {
    const Problem p = spec(sp);
    auto sol = reg->select(p, Policy::analytic());
    ASSERT_TRUE(sol.ok());
    Status s = reg->run(*sol, p, fake(0x10000), fake(0x20000), fake(0x30000), nullptr, 0, nullptr);
    EXPECT_EQ(s.code(), StatusCode::no_device) << s.to_string();
    s = reg->run(p, fake(0x10000), fake(0x20000), fake(0x30000), nullptr, 0, nullptr);
    EXPECT_EQ(s.code(), StatusCode::no_device) << s.to_string();
  }
}

}  // namespace
}  // namespace gconv
