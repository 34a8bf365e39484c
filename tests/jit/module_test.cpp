// Loading and launching through the CUDA runtime's library API. On a machine
// without a GPU every step must fail with a Status, never crash; with a GPU
// the test kernel runs and its output is checked.
#include "jit/module.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <thread>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/log.hpp"
#include "jit/engine.hpp"
#include "jit_test_util.hpp"

namespace gconv::jit {
namespace {

using testing::kVectorAddEntry;
using testing::ScratchDir;
using testing::vector_add_source;

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

CompileOptions target() {
  CompileOptions o;
  if (!have_gpu()) o.arch = "sm_90a";  // with a GPU: its own arch
  return o;
}

TEST(JitCudaStatus, MapsErrorsToCodesWithCallName) {
  EXPECT_TRUE(cuda_status(cudaSuccess, "x").ok());
  Status nodev = cuda_status(cudaErrorNoDevice, "cudaLibraryLoadData");
  EXPECT_EQ(nodev.code(), StatusCode::no_device);
  EXPECT_EQ(nodev.message().rfind("cudaLibraryLoadData: ", 0), 0u) << nodev.message();
  EXPECT_NE(nodev.message().find("cudaErrorNoDevice"), std::string::npos);
  EXPECT_EQ(cuda_status(cudaErrorInsufficientDriver, "f").code(), StatusCode::no_device);
  EXPECT_EQ(cuda_status(cudaErrorMemoryAllocation, "f").code(), StatusCode::out_of_memory);
  EXPECT_EQ(cuda_status(cudaErrorInvalidValue, "f").code(), StatusCode::cuda_error);
}

TEST(JitModule, LoadWithoutGpuIsAnErrorStatus) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present";
  auto cubin = compile(vector_add_source(), "v.cu", target());
  ASSERT_TRUE(cubin.ok()) << cubin.status().to_string();
  auto m = LoadedModule::load(cubin->image, {kVectorAddEntry});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(m.status().code() == StatusCode::no_device || m.status().code() == StatusCode::cuda_error)
      << m.status().to_string();
  EXPECT_NE(m.status().message().find("cudaLibraryLoadData"), std::string::npos);
}

TEST(JitModule, EmptyImageAndNullKernelAreRejected) {
  auto m = LoadedModule::load({}, {kVectorAddEntry});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::invalid_argument);
  Status s = launch(nullptr, dim3(1), dim3(1), 0, nullptr, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
}

TEST(JitEngine, ConcurrentGetOrBuildCompilesOnce) {
  LogLevel saved = log_level();
  set_log_level(LogLevel::quiet);
  ScratchDir dir;
  JitEngine engine{CubinCache(dir.path())};
  constexpr int kThreads = 6;
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  std::vector<LoadedModule*> modules(kThreads, nullptr);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto m = engine.get_or_build(vector_add_source("shared"), {kVectorAddEntry}, target());
      results[t] = m.status();
      if (m.ok()) modules[t] = m->get();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(engine.stats().compiles, 1u);
  for (int t = 0; t < kThreads; ++t) {
    if (have_gpu()) {
      EXPECT_TRUE(results[t].ok()) << results[t].to_string();
      EXPECT_EQ(modules[t], modules[0]);  // one module, shared
    } else {
      EXPECT_EQ(results[t].code(), StatusCode::no_device) << results[t].to_string();
    }
  }
  EXPECT_EQ(engine.stats().loads, have_gpu() ? 1u : 0u);
  set_log_level(saved);
}

TEST(JitEngine, MissingEntryPointIsNotFound) {
  if (!have_gpu()) GTEST_SKIP() << "needs a GPU to load";
  ScratchDir dir;
  JitEngine engine{CubinCache(dir.path())};
  auto m = engine.get_or_build(vector_add_source(), {kVectorAddEntry, "no_such_kernel"}, target());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::not_found);
  EXPECT_NE(m.status().message().find("no_such_kernel"), std::string::npos);
}

// With a GPU: the JIT-compiled kernel computes y = alpha * a + b, launched
// once with the default and once with more than 48 KB of dynamic shared
// memory (which needs the attribute raised first).
TEST(JitEngine, LaunchedKernelComputesVectorAdd) {
  if (!have_gpu()) GTEST_SKIP() << "needs a GPU";
  ScratchDir dir;
  JitEngine engine{CubinCache(dir.path())};
  auto m = engine.get_or_build(vector_add_source(), {kVectorAddEntry}, CompileOptions{});
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  const int n = 10000;
  std::vector<float> a(n), b(n), y(n, 0.f);
  for (int i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 1.0f - i;
  float *da = nullptr, *db = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dy), n * 4), cudaSuccess);
  cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice);
  for (size_t smem : {size_t{0}, size_t{100 * 1024}}) {
    float alpha = smem ? 3.0f : 2.0f;
    int nn = n;
    void* args[] = {&da, &db, &dy, &alpha, &nn};
    Status s = launch((*m)->kernel(0), dim3((n + 4 * 128 - 1) / (4 * 128)), dim3(128), smem, nullptr, args);
    ASSERT_TRUE(s.ok()) << s.to_string();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], alpha * a[i] + b[i]) << "i=" << i << " smem=" << smem;
  }
  // Beyond any device's limit: a clean cuda_error, not a crash.
  int nn = n;
  float alpha = 1.f;
  void* args[] = {&da, &db, &dy, &alpha, &nn};
  Status too_big = launch((*m)->kernel(0), dim3(1), dim3(128), size_t{1} << 30, nullptr, args);
  EXPECT_EQ(too_big.code(), StatusCode::cuda_error);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dy);
  // The second request is served from the in-process table.
  BuildInfo info;
  auto again = engine.get_or_build(vector_add_source(), {kVectorAddEntry}, CompileOptions{}, "", &info);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(info.memory_hit);
  EXPECT_EQ(again->get(), m->get());
}

}  // namespace
}  // namespace gconv::jit
