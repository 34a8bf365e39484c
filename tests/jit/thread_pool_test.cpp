// The thread pool and compile_many.
#include "jit/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "jit_test_util.hpp"

namespace gconv::jit {
namespace {

TEST(JitThreadPool, ParallelForRunsEveryIndexExactlyOnce) {
  constexpr size_t kN = 1000;
  std::vector<std::atomic<int>> hits(kN);
  std::mutex mu;
  std::set<std::thread::id> ids;
  parallel_for(kN, 4, [&](size_t i) {
    hits[i]++;
    std::lock_guard<std::mutex> lk(mu);
    ids.insert(std::this_thread::get_id());
  });
  for (size_t i = 0; i < kN; ++i) EXPECT_EQ(hits[i].load(), 1) << i;
  EXPECT_LE(ids.size(), 4u);
}

TEST(JitThreadPool, WaitIdleWaitsForAllTasksAndPoolIsReusable) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3);
  std::atomic<int> done{0};
  for (int round = 1; round <= 2; ++round) {
    for (int i = 0; i < 50; ++i)
      pool.submit([&] {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        ++done;
      });
    pool.wait_idle();
    EXPECT_EQ(done.load(), 50 * round);
  }
}

TEST(JitThreadPool, DestructorDrainsTheQueue) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 20; ++i) pool.submit([&] { ++done; });
  }
  EXPECT_EQ(done.load(), 20);
}

TEST(JitCompileMany, ResultsArePerItemAndInOrder) {
  std::vector<CompileJob> jobs;
  for (int i = 0; i < 4; ++i) jobs.push_back({testing::vector_add_source(std::to_string(i)), "v" + std::to_string(i) + ".cu"});
  jobs[2].source += "\nthis is not C++;\n";
  CompileOptions o;
  o.arch = "sm_90a";
  CompileBatch batch = compile_many(jobs, o, 2);
  ASSERT_EQ(batch.results.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    if (i == 2) {
      ASSERT_FALSE(batch.results[i].ok());
      EXPECT_EQ(batch.results[i].status().code(), StatusCode::compile_error);
      EXPECT_NE(batch.results[i].status().message().find("v2.cu"), std::string::npos);
    } else {
      ASSERT_TRUE(batch.results[i].ok()) << batch.results[i].status().to_string();
      EXPECT_TRUE(testing::is_elf(batch.results[i]->image));
    }
  }
  EXPECT_GT(batch.total_ms, 0.0);
}

TEST(JitCompileMany, BadOptionsFailEveryItem) {
  CompileOptions o;
  o.arch = "compute_90";
  CompileBatch batch = compile_many({{"", "a.cu"}, {"", "b.cu"}}, o, 2);
  ASSERT_EQ(batch.results.size(), 2u);
  for (const auto& r : batch.results) EXPECT_EQ(r.status().code(), StatusCode::invalid_argument);
}

}  // namespace
}  // namespace gconv::jit
