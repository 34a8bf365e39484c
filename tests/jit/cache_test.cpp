// The on-disk CUBIN cache: hits skip NVRTC, keys track every input, corrupt
// entries are detected and rebuilt, concurrent writers leave a valid entry.
#include "jit/cache.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/log.hpp"
#include "jit/engine.hpp"
#include "jit_test_util.hpp"

namespace gconv::jit {
namespace {

using testing::ScratchDir;
using testing::vector_add_source;

CompileOptions hopper() {
  CompileOptions o;
  o.arch = "sm_90a";
  return o;
}

Digest key_of(const std::string& src, const CompileOptions& o) {
  auto p = prepare(o);
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return cache_key(src, *p);
}

class QuietLogs : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = log_level();
    set_log_level(LogLevel::quiet);  // corrupt-entry warnings are expected here
  }
  void TearDown() override { set_log_level(saved_); }
  LogLevel saved_ = LogLevel::warn;
};

using JitCache = QuietLogs;

TEST_F(JitCache, MissThenHitDoesNotCompileAgain) {
  ScratchDir dir;
  JitEngine engine{CubinCache(dir.path())};
  BuildInfo first, second;
  auto a = engine.build_only(vector_add_source(), "v.cu", hopper(), &first);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_TRUE(first.compiled);
  EXPECT_FALSE(first.cache_hit);
  EXPECT_TRUE(std::filesystem::exists(engine.cache().entry_path(first.key)));

  auto b = engine.build_only(vector_add_source(), "v.cu", hopper(), &second);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(second.cache_hit);
  EXPECT_FALSE(second.compiled);
  EXPECT_EQ(first.key, second.key);
  EXPECT_EQ(a->image, b->image);
  JitStats s = engine.stats();
  EXPECT_EQ(s.compiles, 1u);
  EXPECT_EQ(s.cache_hits, 1u);
  EXPECT_EQ(s.cache_misses, 1u);

  // A second engine (another process, in effect) also hits.
  JitEngine other{CubinCache(dir.path())};
  ASSERT_TRUE(other.build_only(vector_add_source(), "v.cu", hopper()).ok());
  EXPECT_EQ(other.stats().compiles, 0u);
}

TEST_F(JitCache, DisabledCacheAlwaysCompilesAndWritesNothing) {
  ScratchDir dir;
  JitEngine engine{CubinCache(dir.path() / "c", /*enabled=*/false)};
  ASSERT_TRUE(engine.build_only(vector_add_source(), "v.cu", hopper()).ok());
  ASSERT_TRUE(engine.build_only(vector_add_source(), "v.cu", hopper()).ok());
  EXPECT_EQ(engine.stats().compiles, 2u);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "c"));
}

TEST_F(JitCache, KeyTracksSourceOptionsArchAndHeaders) {
  std::string src = vector_add_source();
  Digest base = key_of(src, hopper());
  EXPECT_EQ(base, key_of(src, hopper()));  // deterministic

  EXPECT_NE(base, key_of(src + " ", hopper()));
  CompileOptions extra = hopper();
  extra.extra = {"-DGCONV_X=1"};
  EXPECT_NE(base, key_of(src, extra));
  CompileOptions noline = hopper();
  noline.lineinfo = false;
  EXPECT_NE(base, key_of(src, noline));
  CompileOptions ampere = hopper();
  ampere.arch = "sm_80";
  EXPECT_NE(base, key_of(src, ampere));

  // The text of any header, even one the source does not include.
  HeaderMap h = embedded_kernel_sources();
  CompileOptions own = hopper();
  own.headers = &h;
  EXPECT_EQ(base, key_of(src, own));
  h["testing/scale.cuh"] += "\n// edited\n";
  EXPECT_NE(base, key_of(src, own));
  h = embedded_kernel_sources();
  h["testing/unrelated.cuh"] = "#pragma once\n";
  EXPECT_NE(base, key_of(src, own));

  // And the NVRTC version.
  auto p = prepare(hopper());
  ASSERT_TRUE(p.ok());
  NvrtcVersion v = nvrtc_version();
  EXPECT_NE(cache_key(src, *p, v), cache_key(src, *p, NvrtcVersion{v.major, v.minor + 1}));
}

// Damages the stored entry with `damage`, then checks the next build notices,
// deletes it, rebuilds, and leaves a valid entry behind.
void expect_detected_and_rebuilt(const std::function<void(std::vector<char>&)>& damage, const char* what) {
  SCOPED_TRACE(what);
  ScratchDir dir;
  JitEngine engine{CubinCache(dir.path())};
  BuildInfo info;
  auto good = engine.build_only(vector_add_source(), "v.cu", hopper(), &info);
  ASSERT_TRUE(good.ok());
  auto path = engine.cache().entry_path(info.key);
  std::vector<char> bytes = testing::read_file(path);
  damage(bytes);
  testing::write_file(path, bytes);

  BuildInfo again;
  auto rebuilt = engine.build_only(vector_add_source(), "v.cu", hopper(), &again);
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_TRUE(again.cache_corrupt);
  EXPECT_FALSE(again.cache_hit);
  EXPECT_TRUE(again.compiled);
  EXPECT_NE(again.warning.find(what), std::string::npos) << again.warning;
  EXPECT_EQ(rebuilt->image, good->image);
  EXPECT_EQ(engine.stats().corrupt_entries, 1u);

  // The rebuilt entry is valid: the next lookup is a clean hit.
  auto hit = engine.cache().load(info.key);
  ASSERT_TRUE(hit.payload.has_value());
  EXPECT_FALSE(hit.corrupt);
  EXPECT_EQ(*hit.payload, good->image);
}

TEST_F(JitCache, FlippedPayloadByteIsDetected) {
  expect_detected_and_rebuilt([](std::vector<char>& b) { b[b.size() / 2] ^= 0x40; }, "checksum mismatch");
}

TEST_F(JitCache, TruncatedPayloadIsDetected) {
  expect_detected_and_rebuilt([](std::vector<char>& b) { b.resize(b.size() - 100); }, "payload length mismatch");
}

TEST_F(JitCache, TruncatedHeaderIsDetected) {
  expect_detected_and_rebuilt([](std::vector<char>& b) { b.resize(20); }, "truncated header");
}

TEST_F(JitCache, WrongMagicIsDetected) {
  expect_detected_and_rebuilt([](std::vector<char>& b) { b[0] = 'X'; }, "bad magic");
}

TEST_F(JitCache, EntryUnderAnotherKeyIsDetected) {
  expect_detected_and_rebuilt([](std::vector<char>& b) { b[20] ^= 1; }, "key mismatch");
}

TEST_F(JitCache, CorruptEntryIsNeverReturnedByLoad) {
  ScratchDir dir;
  CubinCache cache(dir.path());
  Digest key{1, 2};
  std::vector<char> payload(1000, 'p');
  ASSERT_TRUE(cache.store(key, payload).ok());
  auto ok = cache.load(key);
  ASSERT_TRUE(ok.payload.has_value());
  EXPECT_EQ(*ok.payload, payload);

  auto bytes = testing::read_file(cache.entry_path(key));
  bytes.back() ^= 1;
  testing::write_file(cache.entry_path(key), bytes);
  auto bad = cache.load(key);
  EXPECT_FALSE(bad.payload.has_value());
  EXPECT_TRUE(bad.corrupt);
  EXPECT_FALSE(std::filesystem::exists(cache.entry_path(key)));  // deleted
  auto after = cache.load(key);                                   // now a plain miss, reported once
  EXPECT_FALSE(after.corrupt);
  EXPECT_FALSE(after.payload.has_value());
}

// A directory where an entry belongs (reading it threw from a compile
// worker and ended `gconv build -j 2`): reported, left alone, never loaded;
// storing over it fails with a message naming it.
TEST_F(JitCache, DirectoryInPlaceOfAnEntryIsReportedNotThrown) {
  ScratchDir dir;
  CubinCache cache(dir.path());
  Digest key{3, 4};
  std::filesystem::create_directories(cache.entry_path(key) / "inside");
  CubinCache::LoadResult r;
  EXPECT_NO_THROW(r = cache.load(key));
  EXPECT_FALSE(r.payload.has_value());
  EXPECT_TRUE(r.corrupt);
  EXPECT_NE(r.warning.find("not a regular file"), std::string::npos) << r.warning;
  EXPECT_TRUE(std::filesystem::is_directory(cache.entry_path(key) / "inside"));  // untouched
  const Status s = cache.store(key, std::vector<char>(64, 'p'));
  EXPECT_EQ(s.code(), StatusCode::io_error);
  EXPECT_NE(s.message().find(cache.entry_path(key).string()), std::string::npos) << s.message();
}

TEST_F(JitCache, ConcurrentWritersLeaveOneValidEntry) {
  ScratchDir dir;
  CubinCache cache(dir.path());
  Digest key{0xabc, 0xdef};
  // Distinct payloads per writer: whichever rename lands last, the entry
  // must be exactly one writer's payload.
  constexpr int kThreads = 8, kRounds = 25;
  std::vector<std::vector<char>> payloads;
  for (int t = 0; t < kThreads; ++t) payloads.emplace_back(200000 + 1000 * t, static_cast<char>('A' + t));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        if (!cache.store(key, payloads[t]).ok()) ++failures;
        auto got = cache.load(key);  // readers racing writers never see a torn entry
        if (got.corrupt) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto final = cache.load(key);
  ASSERT_TRUE(final.payload.has_value());
  bool matches_one = false;
  for (const auto& p : payloads) matches_one |= (*final.payload == p);
  EXPECT_TRUE(matches_one);
  // No temporary files are left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".cubin") << e.path();
  }
  EXPECT_EQ(files, 1);
}

TEST_F(JitCache, ConcurrentBuildsOfOneKernelCompileOnce) {
  ScratchDir dir;
  JitEngine engine{CubinCache(dir.path())};
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] { ok += engine.build_only(vector_add_source("once"), "v.cu", hopper()).ok(); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 6);
  EXPECT_EQ(engine.stats().compiles, 1u);
  EXPECT_EQ(engine.stats().cache_hits, 5u);
}

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(JitCacheDir, EnvironmentOrder) {
  auto d1 = default_cache_dir(fake_env({{"GCONV_CACHE_DIR", "/a"}, {"XDG_CACHE_HOME", "/b"}, {"HOME", "/c"}}));
  ASSERT_TRUE(d1.ok());
  EXPECT_EQ(d1->string(), "/a");
  auto d2 = default_cache_dir(fake_env({{"XDG_CACHE_HOME", "/b"}, {"HOME", "/c"}}));
  ASSERT_TRUE(d2.ok());
  EXPECT_EQ(d2->string(), "/b/gconv");
  auto d3 = default_cache_dir(fake_env({{"HOME", "/c"}}));
  ASSERT_TRUE(d3.ok());
  EXPECT_EQ(d3->string(), "/c/.cache/gconv");
  EXPECT_FALSE(default_cache_dir(fake_env({})).ok());

  EXPECT_TRUE(cache_enabled_by_env(fake_env({})));
  EXPECT_FALSE(cache_enabled_by_env(fake_env({{"GCONV_CACHE", "off"}})));
  CubinCache off = CubinCache::from_env(fake_env({{"GCONV_CACHE", "off"}, {"HOME", "/c"}}));
  EXPECT_FALSE(off.enabled());
  EXPECT_TRUE(off.store(Digest{1, 1}, {'x'}).ok());  // a no-op, not an error
}

TEST(JitCacheDir, UnwritableDirectoryIsIoErrorNotACrash) {
  ScratchDir dir;
  testing::write_file(dir.path() / "file", {'x'});
  CubinCache cache(dir.path() / "file" / "sub");  // a path under a regular file
  Status s = cache.store(Digest{1, 1}, {'x'});
  EXPECT_EQ(s.code(), StatusCode::io_error);
}

}  // namespace
}  // namespace gconv::jit
