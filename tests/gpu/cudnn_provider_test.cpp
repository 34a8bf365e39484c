// The cuDNN provider on a GPU.
//   CudnnProvider: for ResNet-50 layers in every direction (bf16) and one
//     grouped (ResNeXt) layer, run_cudnn_rows gives the four rows (legacy
//     heuristic and best, graph heuristic and best), all ok with positive
//     times; cuDNN's output (the legacy heuristic algorithm and the graph
//     heuristic plan, each run once on the same buffers) matches the naive
//     gconv kernel.
//   CudnnGraph: the graph rows are ok on dense, depthwise, grouped, 3D, 1D,
//     fp32 and asymmetrically padded problems (where the legacy rows are
//     "unsupported"; should no graph engine take the padding either, the
//     graph rows must say so); the graph heuristic's output and the autotuned winner's
//     (left in `out` by run_cudnn_rows, whose last launch is the winner's)
//     match the naive kernel.
// Skipped without a device or without libcudnn (GCONV_CUDNN_LIB /
// LD_LIBRARY_PATH, e.g. PyTorch's nvidia/cudnn/lib).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "bench/cudnn_graph.hpp"
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

// One problem's device buffers with random inputs, and the naive kernel's
// output on them as the reference.
struct Fixture {
  Problem p;
  ReferenceOperands ops;
  std::unique_ptr<DeviceBuffer> a, b, out, ref;
  cudaStream_t stream = nullptr;

  ~Fixture() {
    if (stream) cudaStreamDestroy(stream);
  }
  bench::DeviceBuffers bufs() const { return {a->ptr, b->ptr, out->ptr, nullptr, 0}; }

  // Uploads inputs and computes the reference (a fatal failure on error).
  void setup(const Problem& problem) {
    p = problem;
    ops = reference_operands(p);
    const size_t es = size_t(dtype_bytes(p.dtype));
    std::vector<unsigned char> ha(size_t(ops.a) * es), hb(size_t(ops.b) * es);
    fill_random(p.dtype, ha.data(), ops.a, 21);
    fill_random(p.dtype, hb.data(), ops.b, 22);
    a = std::make_unique<DeviceBuffer>(ha.size());
    b = std::make_unique<DeviceBuffer>(hb.size());
    out = std::make_unique<DeviceBuffer>(size_t(ops.out) * es);
    ref = std::make_unique<DeviceBuffer>(size_t(ops.out) * es);
    ASSERT_EQ(cudaMemcpy(a->ptr, ha.data(), ha.size(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b->ptr, hb.data(), hb.size(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    const KernelTraits nt = naive_traits(p);
    auto naive = load_instance(nt, naive_family(), naive_kernel_name(nt));
    ASSERT_TRUE(naive.ok()) << naive.status().to_string();
    ASSERT_EQ(cudaMemset(ref->ptr, kPoisonByte, ref->bytes), cudaSuccess);
    ASSERT_TRUE(launch_instance(**naive, p, ConvArgs{a->ptr, b->ptr, ref->ptr, nullptr, 0}, stream).ok());
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }

  // `out` against the reference.
  void expect_out_matches(const std::string& what) const {
    std::vector<unsigned char> hout(out->bytes), href(ref->bytes);
    ASSERT_EQ(cudaMemcpy(hout.data(), out->ptr, hout.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(href.data(), ref->ptr, href.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    CompareResult cr = compare_outputs(p.dtype, hout.data(), href.data(), ops.out, tolerance_for(p));
    EXPECT_TRUE(cr.ok) << what << " " << p.to_spec() << ": " << cr.summary();
  }

  // Poisons `out`, runs `once` (which synchronizes) and compares.
  void check_once(const std::string& what, const std::function<Status()>& once) const {
    ASSERT_EQ(cudaMemset(out->ptr, kPoisonByte, out->bytes), cudaSuccess);
    Status s = once();
    ASSERT_TRUE(s.ok()) << what << ": " << s.to_string();
    expect_out_matches(what);
  }
};

void expect_timed_ok(const bench::SweepRow& r, const Problem& p) {
  EXPECT_EQ(r.status, "ok") << r.kernel << ": " << r.check;
  EXPECT_EQ(r.spec, p.to_spec());
  EXPECT_EQ(r.provider, "cudnn");
  EXPECT_GT(r.min_ms, 0) << r.kernel;
  EXPECT_GE(r.median_ms, r.min_ms) << r.kernel;
  EXPECT_NEAR(r.tflops, p.flops() / (r.median_ms * 1e-3) / 1e12, 1e-6 * r.tflops + 1e-9);
  EXPECT_EQ(r.kernel.find(','), std::string::npos) << r.kernel;
}

void print_row(const bench::SweepRow& r, const bench::CudnnApi& api) {
  std::printf("CUDNN %s %s %s %.4f ms %.1f TFLOP/s (%s; cuDNN %zu from %s)\n", r.kernel.c_str(), r.spec.c_str(),
              r.status.c_str(), r.median_ms, r.tflops, r.check.c_str(), api.version, api.path.c_str());
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

class CudnnProvider : public ::testing::TestWithParam<const char*> {};

TEST_P(CudnnProvider, RowsAreTimedAndOutputMatchesNaive) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto api = bench::cudnn_api();
  if (!api.ok()) GTEST_SKIP() << api.status().message();
  auto parsed = Problem::parse_spec(GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(f.setup(*parsed));
  const Problem& p = f.p;

  std::vector<bench::SweepRow> rows;
  bench::TimingOptions timing;
  Status s = bench::run_cudnn_rows(p, f.bufs(), timing, [&](const bench::SweepRow& r) { rows.push_back(r); });
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(starts_with(rows[0].kernel, "cudnn_heuristic:")) << rows[0].kernel;
  EXPECT_TRUE(starts_with(rows[1].kernel, "cudnn_best:")) << rows[1].kernel;
  EXPECT_TRUE(starts_with(rows[2].kernel, "cudnn_graph_heuristic:eng")) << rows[2].kernel;
  EXPECT_TRUE(starts_with(rows[3].kernel, "cudnn_graph_best:eng")) << rows[3].kernel;
  for (const bench::SweepRow& r : rows) {
    expect_timed_ok(r, p);
    print_row(r, **api);
  }

  f.check_once("legacy heuristic", [&] { return bench::run_cudnn_once(p, f.bufs(), f.stream); });
  f.check_once("graph heuristic", [&] { return bench::run_cudnn_graph_once(p, f.bufs(), f.stream); });
}

INSTANTIATE_TEST_SUITE_P(ResNet50, CudnnProvider,
                         ::testing::Values("fwd_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",         // layer1 conv2
                                           "bwd_data_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",
                                           "bwd_weight_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",
                                           "fwd_bf16_n32c256k512_h56w56_y1x1_s2_p0_dil1",       // layer2 downsample
                                           "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1"));  // ResNeXt 32x4d

class CudnnGraph : public ::testing::TestWithParam<const char*> {};

TEST_P(CudnnGraph, GraphRowsAreOkAndOutputsMatchNaive) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto api = bench::cudnn_api();
  if (!api.ok()) GTEST_SKIP() << api.status().message();
  auto parsed = Problem::parse_spec(GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(f.setup(*parsed));
  const Problem& p = f.p;

  ASSERT_EQ(cudaMemset(f.out->ptr, kPoisonByte, f.out->bytes), cudaSuccess);
  std::vector<bench::SweepRow> rows;
  Status s = bench::run_cudnn_rows(p, f.bufs(), bench::TimingOptions{},
                                   [&](const bench::SweepRow& r) { rows.push_back(r); });
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(rows.size(), 4u);
  for (const bench::SweepRow& r : rows) print_row(r, **api);
  const bool asymmetric = p.pad_lo != p.pad_hi;
  if (asymmetric) {  // the legacy API cannot express it
    EXPECT_EQ(rows[0].kernel, "cudnn_heuristic");
    EXPECT_EQ(rows[1].kernel, "cudnn_best");
    EXPECT_EQ(rows[0].status, "unsupported");
    EXPECT_EQ(rows[1].status, "unsupported");
  } else {
    EXPECT_TRUE(starts_with(rows[0].kernel, "cudnn_heuristic:")) << rows[0].kernel;
    EXPECT_TRUE(starts_with(rows[1].kernel, "cudnn_best:")) << rows[1].kernel;
  }
  if (asymmetric && rows[2].status == "unsupported") {
    // Whether any engine takes pre != post padding is cuDNN's call; if none
    // does, the rows must say so (and the once-run must agree).
    EXPECT_EQ(rows[3].status, "unsupported") << rows[3].check;
    EXPECT_EQ(rows[2].check.rfind("cuDNN graph", 0), 0u) << rows[2].check;
    Status once = bench::run_cudnn_graph_once(p, f.bufs(), f.stream);
    EXPECT_EQ(once.code(), StatusCode::not_supported) << once.to_string();
    std::printf("CUDNN note: no graph engine supports asymmetric padding for %s\n", p.to_spec().c_str());
    return;
  }
  EXPECT_TRUE(starts_with(rows[2].kernel, "cudnn_graph_heuristic:eng")) << rows[2].kernel;
  EXPECT_TRUE(starts_with(rows[3].kernel, "cudnn_graph_best:eng")) << rows[3].kernel;
  expect_timed_ok(rows[2], p);
  expect_timed_ok(rows[3], p);
  // Autotuning never reports worse than its candidates' best by much: the
  // winner (re-timed) against the heuristic's time, with room for noise.
  if (rows[2].status == "ok" && rows[3].status == "ok")
    EXPECT_LE(rows[3].median_ms, 1.5 * rows[2].median_ms + 0.005) << rows[3].kernel << " vs " << rows[2].kernel;

  // The last launch of run_cudnn_rows is the autotuned winner's.
  if (rows[3].status == "ok") f.expect_out_matches("graph best (" + rows[3].kernel + ")");
  f.check_once("graph heuristic", [&] { return bench::run_cudnn_graph_once(p, f.bufs(), f.stream); });
}

INSTANTIATE_TEST_SUITE_P(Families, CudnnGraph,
                         ::testing::Values("fwd_bf16_n32c192k192g192_h28w28_y3x3_s1_p1_dil1",         // depthwise
                                           "bwd_data_bf16_n32c192k192g192_h28w28_y3x3_s1_p1_dil1",
                                           "bwd_weight_bf16_n32c192k192g192_h28w28_y3x3_s1_p1_dil1",
                                           "fwd_bf16_n32c576k160_h7w7_y1x1_s1_p0_dil1",               // small 1x1
                                           "bwd_data_bf16_n16c128k128g32_h28w28_y3x3_s1_p1_dil1",     // grouped
                                           "bwd_weight_bf16_n16c128k128g32_h28w28_y3x3_s1_p1_dil1",
                                           "fwd_bf16_n2c64k64_d8h28w28_z3y3x3_s1_p1_dil1",            // 3D dense
                                           "bwd_weight_bf16_n2c64k64g64_d8h28w28_z3y3x3_s1_p1_dil1",  // 3D depthwise
                                           "fwd_bf16_n4c32k32g32_w50_x5_s1_p2_dil2",                  // 1D
                                           "fwd_fp32_n8c64k64_h28w28_y3x3_s1_p1_dil1",                // fp32 (TF32)
                                           "fwd_fp16_n8c64k64g4_h28w28_y3x3_s2_p1_dil1",              // fp16 grouped
                                           "fwd_bf16_n8c64k64_h28w28_y2x2_s1_p0:1_dil1"));            // asymmetric pad
}  // namespace
}  // namespace gconv::gputest
