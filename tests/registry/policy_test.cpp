// Policy text form: every policy survives to_string -> parse, and malformed
// text is a parse_error that says what was expected.
#include <gtest/gtest.h>

#include "gconv/registry.hpp"

namespace gconv {
namespace {

TEST(RegistryPolicy, RoundTripsEveryKind) {
  for (const Policy& p : {Policy::heuristic(), Policy::analytic(), Policy::exhaustive(), Policy::topk(1),
                          Policy::topk(4), Policy::topk(37)}) {
    auto back = Policy::parse(p.to_string());
    ASSERT_TRUE(back.ok()) << p.to_string() << ": " << back.status().to_string();
    EXPECT_EQ(back->kind, p.kind) << p.to_string();
    if (p.kind == Policy::Kind::topk) {
      EXPECT_EQ(back->k, p.k);
    }
    EXPECT_EQ(back->to_string(), p.to_string());
  }
  EXPECT_EQ(Policy::topk(8).to_string(), "topk:8");
  EXPECT_EQ(Policy::exhaustive().to_string(), "exhaustive");
}

TEST(RegistryPolicy, RejectsMalformedText) {
  for (const char* bad : {"", "Heuristic", "fast", "topk", "topk:", "topk:0", "topk:-3", "topk:x", "topk:4x",
                          "topk: 4", "topk:99999999999", "exhaustive ", "analytic,topk:2"}) {
    auto p = Policy::parse(bad);
    ASSERT_FALSE(p.ok()) << "'" << bad << "' parsed";
    EXPECT_EQ(p.status().code(), StatusCode::parse_error) << bad;
    EXPECT_NE(p.status().message().find("policy '"), std::string::npos) << p.status().message();
  }
  auto p = Policy::parse("topk:0");
  EXPECT_NE(p.status().message().find("from 1"), std::string::npos) << p.status().message();
}

}  // namespace
}  // namespace gconv
