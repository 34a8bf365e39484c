// Shared helpers of the registry host tests: problems, the no-GPU device, a
// registry that never touches the user's tuning cache, and temporary dirs.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "gconv/registry.hpp"
#include "registry/device_info.hpp"

namespace gconv::testing {

inline Problem spec(const std::string& s) {
  auto p = Problem::parse_spec(s);
  EXPECT_TRUE(p.ok()) << s << ": " << p.status().to_string();
  return p.ok() ? *p : Problem{};
}

// The device as create() sees it here (no GPU on the host test machines).
inline const DeviceInfo& test_device() {
  static const DeviceInfo d = [] {
    auto r = query_device("");
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : DeviceInfo{};
  }();
  return d;
}

// model_dir "off" by default: these tests pin the analytic behaviour; the
// learned model's policy is tested with explicit folders (model_policy_test).
inline std::unique_ptr<Registry> make_registry(const std::string& filter = "", const std::string& cache = "off",
                                               bool memoize = true, const std::string& model_dir = "off") {
  RegistryOptions o;
  o.model_dir = model_dir;
  o.kernel_filter = filter;
  o.tuning_cache_path = cache;
  o.memoize = memoize;
  auto r = Registry::create(o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : nullptr;
}

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("gconv_registry_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace gconv::testing
