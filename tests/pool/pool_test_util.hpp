// Shared helpers of the pool tests: the real arch rules and pools of the
// source tree (configs/), loaded once.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pool/arch_rules.hpp"
#include "pool/pool.hpp"

namespace gconv::testing {

inline std::string source_configs() { return std::string(GCONV_SOURCE_DIR) + "/configs"; }

inline const ArchRules& sm90() {
  static const ArchRules rules = [] {
    auto r = load_arch_rules(source_configs() + "/arch/sm90.json");
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : ArchRules{};
  }();
  return rules;
}

inline constexpr Direction kDirections[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_weight};
inline constexpr DType kDTypes[] = {DType::bf16, DType::fp16, DType::fp32};

// Every kernel of every pool, all directions and dtypes.
inline const std::vector<KernelTraits>& all_pool_kernels() {
  static const std::vector<KernelTraits> all = [] {
    std::vector<KernelTraits> out;
    for (Direction d : kDirections) {
      for (DType t : kDTypes) {
        auto pool = load_pool(sm90(), d, t, source_configs());
        EXPECT_TRUE(pool.ok()) << pool.status().to_string();
        if (pool.ok()) out.insert(out.end(), pool->begin(), pool->end());
      }
    }
    return out;
  }();
  return all;
}

// parse_kernel_name(name) fails with a parse_error whose message names the
// 1-based position where the name goes wrong and says what was expected.
inline void expect_name_error_at(const char* name, int position, const char* expected) {
  auto t = parse_kernel_name(name);
  ASSERT_FALSE(t.ok()) << name;
  EXPECT_EQ(t.status().code(), StatusCode::parse_error);
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("at position " + std::to_string(position)), std::string::npos) << name << " -> " << m;
  EXPECT_NE(m.find(expected), std::string::npos) << name << " -> " << m;
}

// `t` is illegal under sm90 and the reason starts with `rule` (and holds
// `detail`, when given).
inline void expect_illegal(const KernelTraits& t, const std::string& rule, const std::string& detail = "") {
  std::string why;
  EXPECT_FALSE(is_legal(sm90(), t, &why)) << kernel_name(t);
  EXPECT_EQ(why.substr(0, why.find(':')), rule) << kernel_name(t) << ": " << why;
  if (!detail.empty()) EXPECT_NE(why.find(detail), std::string::npos) << why;
}

}  // namespace gconv::testing
