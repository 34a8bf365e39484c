// Shared by the kernel families' NVRTC compile tests: compile instance
// sources two at a time (the CI machine has 2 cores) and look into the cubin.
#pragma once

#include <algorithm>
#include <atomic>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jit/compiler.hpp"
#include "kernels/family.hpp"
#include "kernels/traits.hpp"

namespace gconv::testing {

// Compiles every (source, name) for sm_90a; ptxas_verbose puts ptxas's
// resource report (registers, spills, warnings) into each Cubin's log.
inline std::vector<Result<jit::Cubin>> compile_sm90a(const std::vector<std::string>& sources,
                                                     const std::vector<std::string>& names, bool ptxas_verbose,
                                                     Status* setup) {
  jit::CompileOptions options;
  options.arch = "sm_90a";
  options.lineinfo = false;
  if (ptxas_verbose) options.extra = {"--ptxas-options=-v"};
  Result<jit::PreparedOptions> prepared = jit::prepare(options);
  *setup = prepared.ok() ? Status::Ok() : prepared.status();
  std::vector<Result<jit::Cubin>> results(sources.size(), Result<jit::Cubin>(internal_error("not compiled")));
  if (!prepared.ok()) return results;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < sources.size();)
      results[i] = jit::compile(sources[i], names[i] + ".cu", *prepared);
  };
  std::thread helper(worker);
  worker();
  helper.join();
  return results;
}

inline bool image_contains(const std::vector<char>& image, const std::string& s) {
  return std::search(image.begin(), image.end(), s.begin(), s.end()) != image.end();
}

// A compiled gconv_main instance (ptxas_verbose log): it built, holds its
// entry points, and spills no register.
inline void expect_built_without_spills(const Result<jit::Cubin>& r, const std::string& name,
                                        const std::vector<std::string>& entries) {
  ASSERT_TRUE(r.ok()) << name << ": " << r.status().to_string();
  const jit::Cubin& c = *r;
  EXPECT_FALSE(c.image.empty()) << name;
  for (const auto& entry : entries) EXPECT_TRUE(image_contains(c.image, entry)) << name << " lacks " << entry;
  EXPECT_NE(c.log.find("Compiling entry function 'gconv_main'"), std::string::npos) << name << ": " << c.log;
  static const std::regex spill("[1-9][0-9]* bytes spill stores");
  EXPECT_FALSE(std::regex_search(c.log, spill)) << name << " spills registers:\n" << c.log;
}

// Every kernel of `kernels` compiled for sm_90a from its family's instance
// source: built, its entry points present, no register spilled.
inline void expect_kernels_build_without_spills(const std::vector<KernelTraits>& kernels) {
  std::vector<std::string> sources, names;
  for (const auto& t : kernels) {
    sources.push_back(family_of(t).instance_source(t));
    names.push_back(kernel_name(t));
  }
  Status setup;
  const auto results = compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t i = 0; i < kernels.size(); ++i)
    expect_built_without_spills(results[i], names[i], family_of(kernels[i]).entry_points(kernels[i]));
}

}  // namespace gconv::testing
