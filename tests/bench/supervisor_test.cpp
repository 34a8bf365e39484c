// Crash isolation without a GPU: fake workers (small shell scripts speaking
// the worker protocol) crash, hang or fail to start; the supervisor must
// record the culprit item, restart, and deliver every item exactly once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "bench/supervisor.hpp"

namespace gconv::bench {
namespace {

// A fake worker: answers item "i" with the row "row,i" unless told otherwise.
std::string script(const std::string& name, const std::string& body) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("gconv_fake_worker_" + name + "_" + std::to_string(::getpid()) + ".sh");
  std::ofstream f(path);
  f << "#!/bin/sh\necho '#ready'\nwhile read item; do\n" << body << "\n  echo \"row,$item\"\n  echo '#end'\ndone\n";
  f.close();
  ::chmod(path.c_str(), 0755);
  return path.string();
}

struct Collected {
  std::map<size_t, ItemResult> by_item;
  size_t calls = 0;
};

Collected run(const std::string& worker, size_t n, int slots, double timeout_s, SupervisorStats* stats, Status* s) {
  SupervisorOptions o;
  o.timeout_s = timeout_s;
  for (int i = 0; i < slots; ++i) o.slots.push_back({{worker}, {{"FAKE_SLOT", std::to_string(i)}}});
  Collected c;
  *s = run_supervised(
      n, [](size_t i) { return std::to_string(i); }, o,
      [&](size_t i, const ItemResult& r) {
        ++c.calls;
        c.by_item[i] = r;
      },
      stats);
  return c;
}

TEST(Supervisor, CrashOnTheThirdItemIsRecordedAndTheRestComplete) {
  const std::string w = script("crash", "  if [ \"$item\" = 2 ]; then kill -SEGV $$; fi");
  SupervisorStats st;
  Status s;
  const Collected c = run(w, 8, 1, 10, &st, &s);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(c.calls, 8u);  // each item exactly once
  ASSERT_EQ(c.by_item.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const ItemResult& r = c.by_item.at(i);
    if (i == 2) {
      EXPECT_EQ(r.failure, "crashed");
      EXPECT_NE(r.detail.find("signal 11"), std::string::npos) << r.detail;
      EXPECT_TRUE(r.lines.empty());
    } else {
      EXPECT_EQ(r.failure, "");
      ASSERT_EQ(r.lines.size(), 1u);
      EXPECT_EQ(r.lines[0], "row," + std::to_string(i));
    }
  }
  EXPECT_EQ(st.crashed, 1u);
  EXPECT_EQ(st.workers_started, 2u);  // the first, and one restart
  std::filesystem::remove(w);
}

TEST(Supervisor, AHungItemTimesOutAndIsKilled) {
  const std::string w = script("hang", "  if [ \"$item\" = 1 ]; then sleep 30; fi");
  SupervisorStats st;
  Status s;
  const auto t0 = std::chrono::steady_clock::now();
  const Collected c = run(w, 4, 1, 0.5, &st, &s);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  ASSERT_EQ(c.by_item.size(), 4u);
  EXPECT_EQ(c.by_item.at(1).failure, "timeout");
  EXPECT_EQ(c.by_item.at(3).lines, std::vector<std::string>{"row,3"});
  EXPECT_EQ(st.timed_out, 1u);
  std::filesystem::remove(w);
}

TEST(Supervisor, ItemsSpreadOverSlotsEachDeliveredOnce) {
  // Every third item crashes, in whichever slot it lands.
  const std::string w = script("multi", "  if [ $((item % 3)) = 0 ]; then kill -KILL $$; fi");
  SupervisorStats st;
  Status s;
  const Collected c = run(w, 30, 3, 10, &st, &s);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(c.calls, 30u);
  ASSERT_EQ(c.by_item.size(), 30u);
  for (size_t i = 0; i < 30; ++i)
    EXPECT_EQ(c.by_item.at(i).failure, i % 3 == 0 ? "crashed" : "") << i;
  EXPECT_EQ(st.crashed, 10u);
  std::filesystem::remove(w);
}

TEST(Supervisor, AWorkerThatCannotStartIsAnErrorNotACrashPerItem) {
  SupervisorStats st;
  Status s;
  const Collected c = run("/bin/false", 5, 1, 10, &st, &s);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(c.calls, 0u);
  Status s2;
  run("/nonexistent/gconv-worker", 5, 1, 10, &st, &s2);
  EXPECT_FALSE(s2.ok());
}

}  // namespace
}  // namespace gconv::bench

namespace gconv::bench {
namespace {

TEST(Supervisor, ARetiringWorkerGetsNoFurtherItemAndIsReplaced) {
  // Item 1 is answered, then the worker retires and exits (a sticky CUDA
  // error): no item may be charged to it as a crash.
  const std::string w = script("retire", "  if [ \"$item\" = 1 ]; then echo \"row,$item\"; echo '#retire'; echo '#end'; exit 3; fi");
  SupervisorStats st;
  Status s;
  const Collected c = run(w, 5, 1, 10, &st, &s);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(c.by_item.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(c.by_item.at(i).failure, "") << i;
    EXPECT_EQ(c.by_item.at(i).lines, std::vector<std::string>{"row," + std::to_string(i)});
  }
  EXPECT_EQ(st.crashed, 0u);
  EXPECT_EQ(st.workers_started, 2u);
  std::filesystem::remove(w);
}

}  // namespace
}  // namespace gconv::bench
