// The supervisor's part in the sweep's phase accounting (issue 19): a
// worker's "#phases" line reaches on_result with its item, a worker is sent
// its next item before on_result runs for the last one (so the parent's
// per-row work overlaps the worker's next measurement), and worker startup
// time is counted. Fake workers are shell scripts, as in supervisor_test.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "bench/supervisor.hpp"

namespace gconv::bench {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gconv_phases_" + name + "_" + std::to_string(::getpid())))
      .string();
}

// Answers item i with "row,i", a "#phases" line and an unrelated '#' line;
// appends each item it reads to `log` first.
std::string phases_worker(const std::string& log) {
  const std::string path = temp_path("worker.sh");
  std::ofstream f(path);
  f << "#!/bin/sh\necho '#ready'\nwhile read item; do\n"
    << "  echo \"$item\" >> '" << log << "'\n"
    << "  echo \"row,$item\"\n  echo '#note ignored'\n  echo \"#phases gpu=$item kernel=1\"\n  echo '#end'\ndone\n";
  f.close();
  ::chmod(path.c_str(), 0755);
  return path;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SupervisorPhases, ThePhasesLineReachesOnResultWithItsItem) {
  const std::string log = temp_path("log1");
  std::filesystem::remove(log);
  const std::string w = phases_worker(log);
  SupervisorOptions o;
  o.slots.push_back({{w}, {}});
  std::map<size_t, ItemResult> got;
  SupervisorStats st;
  Status s = run_supervised(
      4, [](size_t i) { return std::to_string(i); }, o, [&](size_t i, const ItemResult& r) { got[i] = r; }, &st);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i].lines, std::vector<std::string>{"row," + std::to_string(i)}) << i;  // '#' lines are not rows
    EXPECT_EQ(got[i].phases, "#phases gpu=" + std::to_string(i) + " kernel=1") << i;
  }
  EXPECT_EQ(st.workers_started, 1u);
  EXPECT_GT(st.startup_s, 0.0);
  EXPECT_LT(st.startup_s, 30.0);
  std::filesystem::remove(w);
  std::filesystem::remove(log);
}

TEST(SupervisorPhases, TheNextItemIsSentBeforeOnResultRuns) {
  // While on_result(i) runs, the worker must already have read item i + 1:
  // on_result waits (up to 10 s) for it to appear in the worker's log. If
  // the supervisor sent it only after on_result returned, it never would.
  const std::string log = temp_path("log2");
  std::filesystem::remove(log);
  const std::string w = phases_worker(log);
  SupervisorOptions o;
  o.slots.push_back({{w}, {}});
  const size_t n = 5;
  std::vector<bool> seen_next(n, false);
  Status s = run_supervised(
      n, [](size_t i) { return std::to_string(i); }, o,
      [&](size_t i, const ItemResult& r) {
        ASSERT_EQ(r.failure, "");
        if (i + 1 >= n) return;
        const std::string want = "\n" + std::to_string(i + 1) + "\n";
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < deadline) {
          if (("\n" + read_all(log)).find(want) != std::string::npos) {
            seen_next[i] = true;
            return;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
      });
  ASSERT_TRUE(s.ok()) << s.to_string();
  for (size_t i = 0; i + 1 < n; ++i) EXPECT_TRUE(seen_next[i]) << "item " << i + 1 << " not sent during on_result(" << i << ")";
  std::filesystem::remove(w);
  std::filesystem::remove(log);
}

}  // namespace
}  // namespace gconv::bench
