// The module layering of src/ (house style: "lower layers never import higher
// ones"): every #include of "<module>/..." from a file under src/<m>/ must name
// a module at or below m in the order below. The order is a strict line, so
// it also rules out cycles (issue 19 found registry <-> heuristic, registry ->
// bench and jit <-> kernels).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Lowest first. A module may include itself and anything before it.
//   core       status, CUDA error conversion, logging, small helpers
//   problem    Problem, specs, problem files and CSV text
//   reference  host reference convolution
//   check      result comparison
//   jit        NVRTC compile, disk cache, module load and launch
//   kernels    families, traits, plans (launch through jit)
//   pool       kernel pools and arch rules
//   runtime    a loaded, launchable instance (jit + kernels)
//   perf       device facts, analytic cost model, GPU timer, sweep CSV format
//   heuristic  features and the learned selector (and its training)
//   registry   the dispatcher: policies, tuning cache, measuring
//   bench      sweeps, cuDNN provider, plans, supervisor
//   report     reports from sweep files
//   capi       the C API
//   cli        the gconv tool
// A new module under src/ must be placed here (the test fails until it is).
const std::vector<std::string> kLayers = {"core",    "problem",   "reference", "check",  "jit",
                                          "kernels", "pool",      "runtime",   "perf",   "heuristic",
                                          "registry", "bench",    "report",    "capi",   "cli"};

int rank_of(const std::string& module) {
  auto it = std::find(kLayers.begin(), kLayers.end(), module);
  return it == kLayers.end() ? -1 : static_cast<int>(it - kLayers.begin());
}

struct Violation {
  std::string file;  // relative to src/
  int line;
  std::string include;
};

// Every include of a higher module from a source file under src_dir.
// `unplaced` receives the module folders missing from kLayers.
std::vector<Violation> upward_includes(const fs::path& src_dir, std::vector<std::string>* unplaced) {
  std::vector<Violation> out;
  // "x/y.hpp" or <x/y.hpp>; only the first path component matters.
  const std::regex include_re(R"(^\s*#\s*include\s*[<"]([A-Za-z0-9_]+)/([^">]+)[">])");
  for (const auto& dir : fs::directory_iterator(src_dir)) {
    if (!dir.is_directory()) continue;
    const std::string module = dir.path().filename().string();
    const int own = rank_of(module);
    if (own < 0) {
      unplaced->push_back(module);
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".cuh" && ext != ".h" && ext != ".inc") continue;
      std::ifstream in(entry.path());
      std::string text;
      int line_no = 0;
      while (std::getline(in, text)) {
        ++line_no;
        std::smatch m;
        if (!std::regex_search(text, m, include_re)) continue;
        // Paths whose first component is not a module (gconv/ public headers,
        // nlohmann/, NVRTC-relative kernel paths such as "igemm/igemm.cuh"
        // inside src/kernels) are not layer edges.
        const int target = rank_of(m[1].str());
        if (target > own)
          out.push_back({fs::relative(entry.path(), src_dir).string(), line_no, m[1].str() + "/" + m[2].str()});
      }
    }
  }
  return out;
}

TEST(Layering, NoModuleIncludesAHigherOne) {
  const fs::path src = fs::path(GCONV_SOURCE_DIR) / "src";
  ASSERT_TRUE(fs::is_directory(src)) << src;
  std::vector<std::string> unplaced;
  const auto bad = upward_includes(src, &unplaced);
  for (const auto& m : unplaced)
    ADD_FAILURE() << "src/" << m << "/ is not in kLayers (tests/core/layering_test.cpp): place it in the order";
  for (const auto& v : bad)
    ADD_FAILURE() << "src/" << v.file << ":" << v.line << " includes \"" << v.include
                  << "\", a module above its own in kLayers";
  EXPECT_TRUE(bad.empty()) << bad.size() << " upward includes";
}

// The order itself is what the test enforces; a name listed twice would make
// rank_of silently pick the lower place.
TEST(Layering, OrderNamesEachModuleOnce) {
  std::vector<std::string> sorted = kLayers;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
}

}  // namespace
