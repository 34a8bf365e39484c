// The run-time cuDNN loader: a clean not_found when no library is found or a
// library lacks the API, the search list, the cuDNN-status boundary, and,
// where libcudnn is installed, that every function (legacy and backend API)
// resolves and that a machine without a GPU gets a Status (not a crash) and
// no rows from the provider.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <optional>

#include "bench/cudnn_loader.hpp"
#include "bench/cudnn_provider.hpp"

namespace gconv::bench {
namespace {

constexpr const char* kNotFound = "cuDNN not found: set GCONV_CUDNN_LIB or LD_LIBRARY_PATH; tried ";

TEST(CudnnLoader, MissingLibraryIsNotFound) {
  auto r = load_cudnn({"/nonexistent/libcudnn.so.9", "/nonexistent/libcudnn.so"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::not_found);
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind(kNotFound, 0), 0u) << m;
  EXPECT_NE(m.find("/nonexistent/libcudnn.so.9 ("), std::string::npos) << m;
  EXPECT_NE(m.find("; /nonexistent/libcudnn.so ("), std::string::npos) << m;
}

TEST(CudnnLoader, EmptySearchListIsNotFound) {
  auto r = load_cudnn({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::not_found);
  EXPECT_NE(r.status().message().find("(no candidates)"), std::string::npos);
}

TEST(CudnnLoader, LibraryWithoutTheApiIsSkipped) {
  // libm opens but exports no cuDNN function: named in the message.
  auto r = load_cudnn({"libm.so.6"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::not_found);
  EXPECT_NE(r.status().message().find("libm.so.6 (opened, but has no cudnnGetVersion"), std::string::npos)
      << r.status().message();
}

TEST(CudnnLoader, SearchListPutsEnvironmentFirst) {
  const char* old = std::getenv("GCONV_CUDNN_LIB");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  setenv("GCONV_CUDNN_LIB", "/opt/x/libcudnn.so.9", 1);
  EXPECT_EQ(default_cudnn_candidates(),
            (std::vector<std::string>{"/opt/x/libcudnn.so.9", "libcudnn.so.9", "libcudnn.so"}));
  unsetenv("GCONV_CUDNN_LIB");
  EXPECT_EQ(default_cudnn_candidates(), (std::vector<std::string>{"libcudnn.so.9", "libcudnn.so"}));
  if (saved) setenv("GCONV_CUDNN_LIB", saved->c_str(), 1);
}

TEST(CudnnLoader, StatusBoundary) {
  const CudnnApi none;  // no library: the text falls back, the code mapping holds
  EXPECT_TRUE(cudnn_status(none, CUDNN_STATUS_SUCCESS, "cudnnX").ok());
  Status s = cudnn_status(none, CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, "cudnnConvolutionForward");
  EXPECT_EQ(s.code(), StatusCode::not_supported);
  EXPECT_EQ(s.message(), "cudnnConvolutionForward: unknown cuDNN error (3004)");
  EXPECT_EQ(cudnn_status(none, CUDNN_STATUS_BAD_PARAM, "f").code(), StatusCode::not_supported);
  EXPECT_EQ(cudnn_status(none, CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, "f").code(),
            StatusCode::out_of_memory);
  EXPECT_EQ(cudnn_status(none, CUDNN_STATUS_EXECUTION_FAILED, "f").code(), StatusCode::cuda_error);
}

bool have_gpu() {
  int n = 0;
  const bool yes = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return yes;
}

TEST(CudnnLoader, InstalledLibraryResolvesEveryFunction) {
  auto r = cudnn_api();
  if (!r.ok()) GTEST_SKIP() << r.status().message();
  const CudnnApi& api = **r;
  int resolved = 0;
#define GCONV_CUDNN_COUNT(name) resolved += api.name != nullptr;
  GCONV_CUDNN_FUNCTIONS(GCONV_CUDNN_COUNT)
#undef GCONV_CUDNN_COUNT
  EXPECT_EQ(resolved, int(cudnn_function_names().size()));
  EXPECT_GE(api.version, 90000u) << api.path;
  EXPECT_NE(api.path.find("libcudnn"), std::string::npos) << api.path;
  EXPECT_STREQ(api.cudnnGetErrorString(CUDNN_STATUS_SUCCESS), "CUDNN_STATUS_SUCCESS");
  // A second load returns the same process-wide table.
  auto again = cudnn_api();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *r);
}

TEST(CudnnLoader, NoGpuGivesCleanErrors) {
  auto r = cudnn_api();
  if (!r.ok()) GTEST_SKIP() << r.status().message();
  if (have_gpu()) GTEST_SKIP() << "a CUDA device is present";
  cudnnHandle_t h = nullptr;
  const cudnnStatus_t st = (*r)->cudnnCreate(&h);
  ASSERT_NE(st, CUDNN_STATUS_SUCCESS);
  Status s = cudnn_status(**r, st, "cudnnCreate");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("cudnnCreate: ", 0), 0u) << s.message();

  // The provider: a Status, no rows, no crash.
  Problem p;
  p.n = 2, p.c = 16, p.k = 16;
  p.in = {1, 8, 8};
  p.filter = {1, 3, 3};
  p.pad_lo = p.pad_hi = {0, 1, 1};
  int rows = 0;
  Status run = run_cudnn_rows(p, DeviceBuffers{nullptr, nullptr, nullptr, nullptr, 0}, TimingOptions{},
                              [&](const SweepRow&) { ++rows; });
  EXPECT_EQ(run.code(), StatusCode::no_device) << run.to_string();
  EXPECT_EQ(rows, 0);
}

TEST(CudnnLoader, NoGpuGivesNoRowsEvenWhereLegacyCannot) {
  // Asymmetric padding: the legacy API's rows would be "unsupported" without
  // touching the device, but the graph API's need it, so the device is known
  // first and no row is emitted (a sweep then writes one error row). The rows
  // of such a problem on a GPU: tests/gpu/cudnn_provider_test.cpp.
  auto r = cudnn_api();
  if (!r.ok()) GTEST_SKIP() << r.status().message();
  if (have_gpu()) GTEST_SKIP() << "a CUDA device is present";
  Problem p;
  p.n = 1, p.c = 4, p.k = 4;
  p.in = {1, 8, 8};
  p.filter = {1, 2, 2};
  p.pad_hi = {0, 1, 1};
  ASSERT_TRUE(p.validate().ok());
  std::vector<SweepRow> rows;
  Status run = run_cudnn_rows(p, DeviceBuffers{nullptr, nullptr, nullptr, nullptr, 0}, TimingOptions{},
                              [&](const SweepRow& row) { rows.push_back(row); });
  EXPECT_EQ(run.code(), StatusCode::no_device) << run.to_string();
  EXPECT_TRUE(rows.empty());
}

}  // namespace
}  // namespace gconv::bench
