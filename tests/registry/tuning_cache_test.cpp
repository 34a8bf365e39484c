// The tuning cache: a stored winner is found by a new TuningCache and by a
// new Registry (from_tuning_cache); a stale or corrupt file is ignored with
// exactly one warning and no crash, and the next store rewrites it; writes
// leave no temporary files behind.
#include "registry/tuning_cache.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/log.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::spec;
using testing::TempDir;

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
}

// The key a registry created on this machine uses.
TuningKey current_key(const Registry& reg) {
  return TuningKey{reg.device_name(), version(), pool_version(testing::test_device().rules_arch)};
}

class LogLevelGuard {
 public:
  LogLevelGuard() : saved_(log_level()) { set_log_level(LogLevel::warn); }
  ~LogLevelGuard() { set_log_level(saved_); }

 private:
  LogLevel saved_;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RegistryTuningCache, PolicyCoverage) {
  EXPECT_TRUE(tuning_policy_covers("exhaustive", Policy::exhaustive()));
  EXPECT_TRUE(tuning_policy_covers("exhaustive", Policy::topk(4)));
  EXPECT_TRUE(tuning_policy_covers("topk:8", Policy::topk(4)));
  EXPECT_TRUE(tuning_policy_covers("topk:4", Policy::topk(4)));
  EXPECT_FALSE(tuning_policy_covers("topk:2", Policy::topk(4)));
  EXPECT_FALSE(tuning_policy_covers("topk:64", Policy::exhaustive()));
  EXPECT_FALSE(tuning_policy_covers("garbage", Policy::topk(1)));
  EXPECT_EQ(tuning_entry_key("s", ""), "s");
  EXPECT_NE(tuning_entry_key("s", "family==igemm"), "s");
  EXPECT_EQ(resolve_tuning_cache_path("off"), "");
  EXPECT_EQ(resolve_tuning_cache_path("/x/t.json"), "/x/t.json");
  // The pool version is a stable 32-hex digest.
  EXPECT_EQ(pool_version("sm90"), pool_version("sm90"));
  EXPECT_EQ(pool_version("sm90").size(), 32u);
}

TEST(RegistryTuningCache, StoreThenLoadInANewObjectAndFileIsAtomic) {
  TempDir dir;
  const auto path = dir.path() / "sub" / "tuning.json";
  const TuningKey key{"GPU X", "0.1.0", "abc"};
  {
    TuningCache c(path, key);
    EXPECT_FALSE(c.lookup("p1").has_value());
    ASSERT_TRUE(c.store("p1", {"k1", 0.5, "exhaustive", 12, 3.5}).ok());
    ASSERT_TRUE(c.store("p2", {"k2", 0.25, "topk:4", 4, 1.0}).ok());
    EXPECT_EQ(c.warnings(), 0);
  }
  TuningCache again(path, key);
  auto e = again.lookup("p1");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kernel, "k1");
  EXPECT_DOUBLE_EQ(e->measured_ms, 0.5);
  EXPECT_EQ(e->policy, "exhaustive");
  EXPECT_EQ(e->kernels_measured, 12);
  EXPECT_DOUBLE_EQ(e->tuning_seconds, 3.5);
  EXPECT_EQ(again.lookup("p2")->kernel, "k2");
  EXPECT_EQ(again.warnings(), 0);
  // Only the file itself: every temporary was renamed into place.
  int files = 0;
  for (const auto& f : std::filesystem::directory_iterator(path.parent_path())) {
    ++files;
    EXPECT_EQ(f.path().filename(), "tuning.json");
  }
  EXPECT_EQ(files, 1);
  // A second writer's entries survive a store by the first (merge on write).
  TuningCache other(path, key);
  ASSERT_TRUE(other.store("p3", {"k3", 1.0, "exhaustive", 2, 0.1}).ok());
  TuningCache first(path, key);
  ASSERT_TRUE(first.store("p4", {"k4", 1.0, "exhaustive", 2, 0.1}).ok());
  TuningCache reader(path, key);
  for (const char* k : {"p1", "p2", "p3", "p4"}) EXPECT_TRUE(reader.lookup(k).has_value()) << k;
}

TEST(RegistryTuningCache, ARegistryServesMeasuredWinnersFromTheCache) {
  TempDir dir;
  const std::string path = (dir.path() / "tuning.json").string();
  auto reg = make_registry("", path);
  ASSERT_NE(reg, nullptr);
  const Problem p = spec("fwd_bf16_n32c64k64_h56w56_y3x3_p1");
  auto ranked = reg->rank(p, Policy::analytic(), 5);
  ASSERT_TRUE(ranked.ok());
  ASSERT_GE(ranked->size(), 3u);
  // Pretend a measurement found the third-ranked kernel fastest.
  const std::string winner = (*ranked)[2].kernel;
  {
    TuningCache c(path, current_key(*reg));
    ASSERT_TRUE(c.store(tuning_entry_key(p.to_spec(), ""), {winner, 0.0421, "exhaustive", 200, 7.5}).ok());
  }
  auto fresh = make_registry("", path);
  for (const Policy& pol : {Policy::exhaustive(), Policy::topk(4)}) {
    auto s = fresh->select(p, pol);
    ASSERT_TRUE(s.ok()) << pol.to_string() << ": " << s.status().to_string();
    EXPECT_TRUE(s->from_tuning_cache);
    EXPECT_EQ(s->kernel, winner);
    EXPECT_DOUBLE_EQ(s->measured_ms, 0.0421);
    EXPECT_EQ(s->kernels_measured, 200);
    EXPECT_DOUBLE_EQ(s->tuning_seconds, 7.5);
    EXPECT_EQ(s->workspace_bytes, (*ranked)[2].workspace_bytes);
    EXPECT_NE(s->reason.find("tuning cache"), std::string::npos) << s->reason;
  }
  // The estimate-only policies do not read the cache.
  auto a = fresh->select(p, Policy::analytic());
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->from_tuning_cache);
  EXPECT_EQ(a->kernel, (*ranked)[0].kernel);

  if (fresh->device_name() != "none") return;  // the misses below would measure on a GPU
  // Entries under another filter, or naming a kernel that is no candidate, are misses.
  auto filtered = make_registry("stages>=3", path);
  EXPECT_EQ(filtered->select(p, Policy::exhaustive()).status().code(), StatusCode::no_device);
  {
    TuningCache c(path, current_key(*reg));
    ASSERT_TRUE(c.store(tuning_entry_key(p.to_spec(), ""), {"igemm_fwd_bf16_2d_m16n8k16_w1x1_s2_sk1_v8_g1", 0.01,
                                                            "exhaustive", 3, 1.0})
                    .ok());
    ASSERT_TRUE(c.store(tuning_entry_key(spec("fwd_bf16_n8c64k64_h28w28_y3x3_p1").to_spec(), ""),
                        {winner, 0.01, "topk:2", 2, 1.0})
                    .ok());
  }
  auto third = make_registry("", path);
  EXPECT_EQ(third->select(p, Policy::exhaustive()).status().code(), StatusCode::no_device);
  // A topk:2 entry answers topk:2 but not topk:3 or exhaustive.
  const Problem q = spec("fwd_bf16_n8c64k64_h28w28_y3x3_p1");
  EXPECT_TRUE(third->select(q, Policy::topk(2)).ok());
  EXPECT_EQ(third->select(q, Policy::topk(3)).status().code(), StatusCode::no_device);
  EXPECT_EQ(third->select(q, Policy::exhaustive()).status().code(), StatusCode::no_device);
}

TEST(RegistryTuningCache, StaleFileIsIgnoredWithOneWarningAndRewritten) {
  LogLevelGuard level;
  TempDir dir;
  const auto path = dir.path() / "tuning.json";
  const TuningKey key{"GPU X", "0.1.0", "pool-now"};
  for (const TuningKey& old : {TuningKey{"GPU X", "0.0.9", "pool-now"}, TuningKey{"GPU Y", "0.1.0", "pool-now"},
                               TuningKey{"GPU X", "0.1.0", "pool-before"}}) {
    {
      std::filesystem::remove(path);
      TuningCache writer(path, old);
      ASSERT_TRUE(writer.store("p", {"k_old", 1.0, "exhaustive", 5, 1.0}).ok());
    }
    ::testing::internal::CaptureStderr();
    TuningCache c(path, key);
    EXPECT_FALSE(c.lookup("p").has_value());
    EXPECT_FALSE(c.lookup("q").has_value());
    ASSERT_TRUE(c.store("p", {"k_new", 0.5, "exhaustive", 5, 1.0}).ok());
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(count(err, "gconv [warn]"), 1u) << err;
    EXPECT_NE(err.find("stale"), std::string::npos) << err;
    EXPECT_EQ(c.warnings(), 1);
    // Rewritten for the current key, without the old entry.
    auto root = nlohmann::json::parse(read(path));
    EXPECT_EQ(root["gpu"], "GPU X");
    EXPECT_EQ(root["gconv_version"], "0.1.0");
    EXPECT_EQ(root["pool_version"], "pool-now");
    EXPECT_EQ(root["entries"]["p"]["kernel"], "k_new");
    TuningCache reread(path, key);
    EXPECT_EQ(reread.lookup("p")->kernel, "k_new");
    EXPECT_EQ(reread.warnings(), 0);
  }
}

TEST(RegistryTuningCache, CorruptFilesAreIgnoredWithOneWarningAndNoCrash) {
  LogLevelGuard level;
  TempDir dir;
  const auto path = dir.path() / "tuning.json";
  const TuningKey key{"GPU X", "0.1.0", "pool"};
  std::string valid;
  {
    TuningCache c(path, key);
    ASSERT_TRUE(c.store("p", {"k", 0.5, "exhaustive", 5, 1.0}).ok());
    valid = read(path);
  }
  const std::string garbage("\x00\xff\x13garbage\x7f{{{", 14);
  const std::vector<std::string> corrupt = {
      garbage,
      valid.substr(0, valid.size() / 2),  // truncated
      "",
      "[]",
      R"({"format": "gconv-tuning-cache", "format_version": 1, "gpu": "GPU X", "gconv_version": "0.1.0",
          "pool_version": "pool", "entries": {"p": {"kernel": 7}}})",
      R"({"format": "gconv-tuning-cache", "format_version": 99})",
  };
  for (const std::string& text : corrupt) {
    write(path, text);
    ::testing::internal::CaptureStderr();
    TuningCache c(path, key);
    EXPECT_FALSE(c.lookup("p").has_value());
    EXPECT_FALSE(c.lookup("p").has_value());
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(count(err, "gconv [warn]"), 1u) << err;
    EXPECT_EQ(c.warnings(), 1);
    ASSERT_TRUE(c.store("p", {"k2", 0.5, "exhaustive", 5, 1.0}).ok());
    TuningCache reread(path, key);
    ASSERT_TRUE(reread.lookup("p").has_value());
    EXPECT_EQ(reread.lookup("p")->kernel, "k2");
  }
  // Through a Registry: a corrupt file costs one warning, select still answers.
  write(path, garbage);
  ::testing::internal::CaptureStderr();
  auto reg = make_registry("", path.string());
  const Problem p = spec("fwd_bf16_n8c64k64_h28w28_y3x3_p1");
  auto s1 = reg->select(p, Policy::exhaustive());
  auto s2 = reg->select(p, Policy::topk(2));
  auto a = reg->select(p, Policy::analytic());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(a.ok());
  if (reg->device_name() == "none") {
    EXPECT_EQ(s1.status().code(), StatusCode::no_device);
    EXPECT_EQ(s2.status().code(), StatusCode::no_device);
  }
  EXPECT_EQ(count(err, "gconv [warn]"), 1u) << err;
}

TEST(RegistryTuningCache, DisabledCacheNeverWrites) {
  TempDir dir;
  TuningCache c("", {"g", "v", "p"});
  EXPECT_FALSE(c.enabled());
  EXPECT_TRUE(c.store("p", {"k", 1, "exhaustive", 1, 1}).ok());
  EXPECT_FALSE(c.lookup("p").has_value());
}

}  // namespace
}  // namespace gconv
