// Shared helpers of the registry host tests: problems, the no-GPU device, a
// registry that never touches the user's tuning cache, and temporary dirs.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "gconv/registry.hpp"
#include "kernels/family.hpp"
#include "perf/analytic.hpp"
#include "perf/device_info.hpp"
#include "pool/pool.hpp"

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

// The best estimate among the pool kernels that implement p and match `keep`.
template <class Keep>
inline double best_of_pool(const Problem& p, const Keep& keep, std::string* name = nullptr) {
  const DeviceInfo& d = test_device();
  auto pool = load_pool(*d.rules, p.direction, p.dtype);
  EXPECT_TRUE(pool.ok()) << pool.status().to_string();
  double best = std::numeric_limits<double>::infinity();
  if (!pool.ok()) return best;
  for (const KernelTraits& t : *pool) {
    if (t.ndim != p.ndim || !keep(t) || !family_of(t).can_implement(t, p, nullptr)) continue;
    const double ms = analytic_ms(t, p, d);
    if (ms < best) {
      best = ms;
      if (name) *name = kernel_name(t);
    }
  }
  return best;
}

}  // namespace gconv::testing
