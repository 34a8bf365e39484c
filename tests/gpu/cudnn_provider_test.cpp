// The cuDNN provider on a GPU: for ResNet-50 layers in every direction (bf16)
// and one grouped (ResNeXt) layer, run_cudnn_rows gives a heuristic and a
// best row, both ok with positive times, and cuDNN's output (its heuristic
// algorithm run once on the same buffers) matches the naive gconv kernel.
// Skipped without a device or without libcudnn (GCONV_CUDNN_LIB /
// LD_LIBRARY_PATH, e.g. PyTorch's nvidia/cudnn/lib).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

#include "bench/cudnn_loader.hpp"
#include "bench/cudnn_provider.hpp"
#include "check/compare.hpp"
#include "gconv/numeric.hpp"
#include "gconv/reference.hpp"
#include "gpu_harness.hpp"
#include "kernels/naive/naive.hpp"
#include "runtime/instance.hpp"

namespace gconv::gputest {
namespace {

bool have_gpu() {
  int n = 0;
  const bool yes = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return yes;
}

class CudnnProvider : public ::testing::TestWithParam<const char*> {};

TEST_P(CudnnProvider, RowsAreTimedAndOutputMatchesNaive) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto api = bench::cudnn_api();
  if (!api.ok()) GTEST_SKIP() << api.status().message();
  auto parsed = Problem::parse_spec(GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  const Problem p = *parsed;

  const ReferenceOperands ops = reference_operands(p);
  const size_t es = size_t(dtype_bytes(p.dtype));
  std::vector<unsigned char> ha(size_t(ops.a) * es), hb(size_t(ops.b) * es);
  fill_random(p.dtype, ha.data(), ops.a, 21);
  fill_random(p.dtype, hb.data(), ops.b, 22);
  DeviceBuffer a(ha.size()), b(hb.size()), out(size_t(ops.out) * es), ref(size_t(ops.out) * es);
  ASSERT_EQ(cudaMemcpy(a.ptr, ha.data(), ha.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b.ptr, hb.data(), hb.size(), cudaMemcpyHostToDevice), cudaSuccess);
  const bench::DeviceBuffers bufs{a.ptr, b.ptr, out.ptr, nullptr, 0};

  std::vector<bench::SweepRow> rows;
  bench::TimingOptions timing;
  Status s = bench::run_cudnn_rows(p, bufs, timing, [&](const bench::SweepRow& r) { rows.push_back(r); });
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel.rfind("cudnn_heuristic:", 0), 0u) << rows[0].kernel;
  EXPECT_EQ(rows[1].kernel.rfind("cudnn_best:", 0), 0u) << rows[1].kernel;
  for (const bench::SweepRow& r : rows) {
    EXPECT_EQ(r.status, "ok") << r.kernel << ": " << r.check;
    EXPECT_EQ(r.spec, p.to_spec());
    EXPECT_EQ(r.provider, "cudnn");
    EXPECT_GT(r.min_ms, 0) << r.kernel;
    EXPECT_GE(r.median_ms, r.min_ms) << r.kernel;
    EXPECT_NEAR(r.tflops, p.flops() / (r.median_ms * 1e-3) / 1e12, 1e-6 * r.tflops + 1e-9);
    std::printf("CUDNN %s %s %.4f ms %.1f TFLOP/s (%s; cuDNN %zu from %s)\n", r.kernel.c_str(), r.spec.c_str(),
                r.median_ms, r.tflops, r.check.c_str(), (*api)->version, (*api)->path.c_str());
  }

  // Reference: the naive kernel on the same inputs.
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const KernelTraits nt = naive_traits(p);
  auto naive = load_instance(nt, naive_family(), naive_kernel_name(nt));
  ASSERT_TRUE(naive.ok()) << naive.status().to_string();
  ASSERT_EQ(cudaMemset(ref.ptr, kPoisonByte, ref.bytes), cudaSuccess);
  ASSERT_TRUE(launch_instance(**naive, p, ConvArgs{a.ptr, b.ptr, ref.ptr, nullptr, 0}, stream).ok());
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);

  ASSERT_EQ(cudaMemset(out.ptr, kPoisonByte, out.bytes), cudaSuccess);
  Status once = bench::run_cudnn_once(p, bufs, stream);
  ASSERT_TRUE(once.ok()) << once.to_string();
  std::vector<unsigned char> hout(out.bytes), href(ref.bytes);
  ASSERT_EQ(cudaMemcpy(hout.data(), out.ptr, hout.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(href.data(), ref.ptr, href.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  CompareResult cr = compare_outputs(p.dtype, hout.data(), href.data(), ops.out, tolerance_for(p));
  EXPECT_TRUE(cr.ok) << p.to_spec() << ": " << cr.summary();
  cudaStreamDestroy(stream);
}

INSTANTIATE_TEST_SUITE_P(ResNet50, CudnnProvider,
                         ::testing::Values("fwd_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",         // layer1 conv2
                                           "bwd_data_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",
                                           "bwd_weight_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",
                                           "fwd_bf16_n32c256k512_h56w56_y1x1_s2_p0_dil1",       // layer2 downsample
                                           "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1"));  // ResNeXt 32x4d
}  // namespace
}  // namespace gconv::gputest
