// The Registry on a GPU: select + run (registry-allocated workspace) checked
// against a reference for every direction and dtype (patch embeddings
// included, which run folded); 8 threads x 4 streams
// running mixed problems through one registry at once; the measuring
// policies and their tuning cache on a ResNet-50 layer (prints
// "TUNING <policy> <spec> <seconds> <kernels>"); and run()'s argument errors.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>
#include <unistd.h>

#include "core/cuda_check.hpp"
#include "gconv/numeric.hpp"
#include "gconv/reference.hpp"
#include "gconv/registry.hpp"
#include "gpu_harness.hpp"
#include "jit/engine.hpp"
#include "kernels/naive/naive.hpp"

namespace gconv::gputest {
namespace {

// Below this the CPU reference is quick enough; above, the naive GPU kernel
// (checked against the CPU by the pool tests) is the reference.
constexpr double kCpuReferenceMaxFlops = 3e8;

std::unique_ptr<Registry> make_registry(const std::string& cache = "off", size_t workspace_limit = size_t(1) << 30) {
  RegistryOptions o;
  o.tuning_cache_path = cache;
  o.workspace_limit = workspace_limit;
  auto r = Registry::create(o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : nullptr;
}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device"

Problem with(const std::string& spec, Direction d, DType t) {
  auto p = Problem::parse_spec(spec);
  EXPECT_TRUE(p.ok()) << spec;
  Problem q = p.ok() ? *p : Problem{};
  q.direction = d;
  q.dtype = t;
  EXPECT_TRUE(q.validate().ok()) << q.to_spec();
  return q;
}

// One problem's inputs, output and reference on the device.
struct Case {
  Problem p;
  std::vector<unsigned char> ha, hb;
  std::unique_ptr<DeviceBuffer> a, b, out, ref;
  size_t out_bytes = 0;

  Case(const Problem& prob, uint64_t seed) : p(prob) {
    const ReferenceOperands ops = reference_operands(p);
    const size_t eb = size_t(dtype_bytes(p.dtype));
    ha.resize(size_t(ops.a) * eb);
    hb.resize(size_t(ops.b) * eb);
    fill_random(p.dtype, ha.data(), ops.a, 2 * seed + 1);
    fill_random(p.dtype, hb.data(), ops.b, 2 * seed + 2);
    out_bytes = size_t(ops.out) * eb;
    a = std::make_unique<DeviceBuffer>(ha.size());
    b = std::make_unique<DeviceBuffer>(hb.size());
    out = std::make_unique<DeviceBuffer>(out_bytes);
    ref = std::make_unique<DeviceBuffer>(out_bytes);
  }
  // Uploads inputs and poisons both outputs (an unwritten element reads NaN).
  Status prepare(cudaStream_t s) {
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(a->ptr, ha.data(), ha.size(), cudaMemcpyHostToDevice, s));
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(b->ptr, hb.data(), hb.size(), cudaMemcpyHostToDevice, s));
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->ptr, kPoisonByte, out_bytes, s));
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(ref->ptr, kPoisonByte, out_bytes, s));
    return Status::Ok();
  }
  Status run_naive(cudaStream_t s) {
    const KernelTraits nt = naive_traits(p);
    auto inst = load_instance(nt, naive_family(), naive_kernel_name(nt));
    if (!inst.ok()) return inst.status();
    return launch_instance(**inst, p, ConvArgs{a->ptr, b->ptr, ref->ptr, nullptr, 0}, s);
  }
  // After the stream finished: the output against the reference.
  CompareResult compare(bool use_cpu) {
    std::vector<unsigned char> hout(out_bytes), href(out_bytes);
    cudaMemcpy(hout.data(), out->ptr, out_bytes, cudaMemcpyDeviceToHost);
    if (use_cpu) {
      EXPECT_TRUE(reference_conv(p, ha.data(), hb.data(), href.data()).ok());
    } else {
      cudaMemcpy(href.data(), ref->ptr, out_bytes, cudaMemcpyDeviceToHost);
    }
    return compare_outputs(p.dtype, hout.data(), href.data(), reference_operands(p).out, tolerance_for(p));
  }
};

const std::vector<std::string>& check_specs() {
  static const std::vector<std::string> specs = {
      "n4c64k64_h28w28_y3x3_p1",        // dense
      "n2c32k64g2_h15w15_y3x3_s2_p1",   // grouped, stride 2
      "n4c64k64g64_h20w20_y3x3_p1",     // depthwise
      "n2c128k128g32_h8w8_y3x3_p1",     // ResNeXt-like
      "n2c16k32_d5h9w9_z3y3x3_p1",      // 3D
      "n2c64k64_w50_x5_s2_p2",          // 1D
      "n2c3k16_h17w17_y7x7_s2_p3",      // C = 3 stem
      "n8c256k64_h14w14",               // pointwise: bwd_weight split-K with workspace
      // Patch embeddings, run folded (problem/fold.hpp): W into channels.
      "n2c3k32_h64w64_y16x16_s16",      // ViT-like, 16x16 stride 16
      "n4c3k24_h32w32_y4x4_s4",         // ConvNeXt-like stem
      "n2c24k48_h14w14_y2x2_s2",        // ConvNeXt-like downsampling
      "n2c3k16_w64_x4_s4",              // 1D
  };
  return specs;
}

void select_run_check(Direction d) {
  auto reg = make_registry();
  ASSERT_NE(reg, nullptr);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  int with_workspace = 0;
  for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
    for (const std::string& sp : check_specs()) {
      const Problem p = with(sp, d, t);
      auto sol = reg->select(p, Policy::heuristic());
      ASSERT_TRUE(sol.ok()) << p.to_spec() << ": " << sol.status().to_string();
      Case c(p, 7);
      ASSERT_TRUE(c.prepare(s).ok());
      const bool cpu = p.flops() <= kCpuReferenceMaxFlops;
      if (!cpu) ASSERT_TRUE(c.run_naive(s).ok());
      // Null workspace: the registry allocates what the kernel needs on the stream.
      Status st = reg->run(*sol, p, c.a->ptr, c.b->ptr, c.out->ptr, nullptr, 0, s);
      ASSERT_TRUE(st.ok()) << sol->kernel << " on " << p.to_spec() << ": " << st.to_string();
      ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess) << sol->kernel << " on " << p.to_spec();
      with_workspace += sol->workspace_bytes > 0;
      const CompareResult cr = c.compare(cpu);
      EXPECT_TRUE(cr.ok) << sol->kernel << " on " << p.to_spec() << " vs " << (cpu ? "cpu" : "naive") << ": "
                         << cr.summary() << " (" << sol->reason << ")";
      std::printf("CHECK %s %s %s\n", p.to_spec().c_str(), sol->kernel.c_str(), cr.ok ? "ok" : "FAILED");
    }
  }
  std::printf("%s: %d solutions used a registry-allocated workspace\n", to_string(d), with_workspace);
  cudaStreamDestroy(s);
}

TEST(RegistryGpu, SelectRunCheck_fwd) {
  REQUIRE_GPU();
  select_run_check(Direction::fwd);
}
TEST(RegistryGpu, SelectRunCheck_bwd_data) {
  REQUIRE_GPU();
  select_run_check(Direction::bwd_data);
}
TEST(RegistryGpu, SelectRunCheck_bwd_weight) {
  REQUIRE_GPU();
  select_run_check(Direction::bwd_weight);
}

TEST(RegistryGpu, EightThreadsFourStreamsMixedProblemsAllCorrect) {
  REQUIRE_GPU();
  auto reg = make_registry();
  ASSERT_NE(reg, nullptr);
  // Mixed directions and dtypes; every thread runs all of them in its own order.
  std::vector<Problem> mixed;
  const Direction dirs[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_weight};
  const DType types[] = {DType::bf16, DType::fp16, DType::fp32};
  for (size_t i = 0; i < check_specs().size(); ++i)
    for (size_t j = 0; j < 3; ++j) mixed.push_back(with(check_specs()[i], dirs[(i + j) % 3], types[(i + 2 * j) % 3]));
  const jit::JitStats before = jit::JitEngine::global().stats();

  constexpr int kThreads = 8, kStreams = 4;
  std::atomic<int> failures{0}, runs{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      cudaStream_t streams[kStreams];
      for (auto& s : streams) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      std::vector<std::unique_ptr<Case>> cases;
      // Enqueue everything first so that the streams overlap, then check.
      for (size_t i = 0; i < mixed.size(); ++i) {
        const Problem& p = mixed[(i + size_t(t) * 5) % mixed.size()];
        cudaStream_t s = streams[i % kStreams];
        cases.push_back(std::make_unique<Case>(p, 100 + uint64_t(t) * 1000 + i));
        Case& c = *cases.back();
        Status st = c.prepare(s);
        if (st.ok()) st = c.run_naive(s);
        if (st.ok()) st = reg->run(p, c.a->ptr, c.b->ptr, c.out->ptr, nullptr, 0, s);
        if (!st.ok()) {
          ++failures;
          errors[size_t(t)] += p.to_spec() + ": " + st.to_string() + "\n";
        }
      }
      for (auto& s : streams) cudaStreamSynchronize(s);
      for (auto& c : cases) {
        const CompareResult cr = c->compare(false);
        ++runs;
        if (!cr.ok) {
          ++failures;
          errors[size_t(t)] += c->p.to_spec() + ": " + cr.summary() + "\n";
        }
      }
      for (auto& s : streams) cudaStreamDestroy(s);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (const std::string& e : errors) EXPECT_TRUE(e.empty()) << e;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(runs.load(), kThreads * int(mixed.size()));

  // Each kernel was built (or read from the disk cache) and loaded once for the process.
  std::set<std::string> kernels;
  for (const Problem& p : mixed) {
    kernels.insert(reg->select(p, Policy::heuristic())->kernel);
    kernels.insert(naive_kernel_name(naive_traits(p)));
  }
  const jit::JitStats after = jit::JitEngine::global().stats();
  EXPECT_LE(after.loads - before.loads, kernels.size());
  EXPECT_LE((after.compiles - before.compiles) + (after.cache_hits - before.cache_hits), kernels.size());
}

void tune(const Policy& policy, const std::string& cache, const Problem& p, Solution* out) {
  auto reg = make_registry(cache);
  ASSERT_NE(reg, nullptr);
  auto s = reg->select(p, policy);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  std::printf("TUNING %s %s %.2f %d\n", policy.to_string().c_str(), p.to_spec().c_str(), s->tuning_seconds,
              s->kernels_measured);
  std::printf("  winner %s measured %.4f ms, predicted %.4f ms (%s)\n", s->kernel.c_str(), s->measured_ms,
              s->predicted_ms, s->reason.c_str());
  EXPECT_FALSE(s->from_tuning_cache);
  EXPECT_GT(s->measured_ms, 0);
  EXPECT_GT(s->tuning_seconds, 0);
  // Same registry again, then a new registry (a new process would read the file the same way).
  auto again = reg->select(p, policy);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->from_tuning_cache);
  EXPECT_EQ(again->kernel, s->kernel);
  auto fresh = make_registry(cache);
  auto cached = fresh->select(p, policy);
  ASSERT_TRUE(cached.ok()) << cached.status().to_string();
  EXPECT_TRUE(cached->from_tuning_cache) << cached->reason;
  EXPECT_EQ(cached->kernel, s->kernel);
  EXPECT_DOUBLE_EQ(cached->measured_ms, s->measured_ms);
  EXPECT_EQ(cached->kernels_measured, s->kernels_measured);
  *out = *s;
}

TEST(RegistryGpu, ExhaustiveAndTopkOnResnet50LayerUseTheTuningCache) {
  REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / ("gconv_tuning_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* sp : {"fwd_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",          // resnet50 layer1.0.conv2
                         "bwd_weight_bf16_n32c256k256_h14w14_y3x3_s1_p1_dil1"}) {  // layer3.1.conv2
    const Problem p = *Problem::parse_spec(sp);
    Solution ex, top;
    tune(Policy::exhaustive(), (dir / "exhaustive.json").string(), p, &ex);
    tune(Policy::topk(4), (dir / "topk.json").string(), p, &top);
    auto ranked = make_registry()->rank(p, Policy::analytic(), 4);
    ASSERT_TRUE(ranked.ok());
    EXPECT_GE(ex.kernels_measured, int(ranked->size()));
    EXPECT_LE(top.kernels_measured, 4);
    bool in_top4 = false;
    for (const Solution& r : *ranked) in_top4 |= r.kernel == top.kernel;
    EXPECT_TRUE(in_top4) << top.kernel;
    // Exhaustive measured a superset of topk's kernels (10% timing noise allowed).
    EXPECT_LE(ex.measured_ms, 1.1 * top.measured_ms);
    std::printf("  exhaustive %.4f ms vs topk:4 %.4f ms (analytic rank-1 predicted %.4f ms)\n", ex.measured_ms,
                top.measured_ms, (*ranked)[0].predicted_ms);
    // The winner computes the right thing.
    auto reg = make_registry();
    Case c(p, 3);
    ASSERT_TRUE(c.prepare(nullptr).ok());
    ASSERT_TRUE(c.run_naive(nullptr).ok());
    ASSERT_TRUE(reg->run(ex, p, c.a->ptr, c.b->ptr, c.out->ptr, nullptr, 0, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const CompareResult cr = c.compare(false);
    EXPECT_TRUE(cr.ok) << ex.kernel << ": " << cr.summary();
  }
  std::filesystem::remove_all(dir);
}

TEST(RegistryGpu, RunRejectsMisalignedForeignAndTooSmallArguments) {
  REQUIRE_GPU();
  auto reg = make_registry();
  // bwd_weight pointwise with a long reduction: pick a split-K candidate, which needs a workspace.
  const Problem p = *Problem::parse_spec("bwd_weight_bf16_n8c256k64_h28w28");
  auto ranked = reg->rank(p, Policy::analytic(), 1000);
  ASSERT_TRUE(ranked.ok());
  Solution sol;
  for (const Solution& s : *ranked)
    if (s.workspace_bytes > 0) {
      sol = s;
      break;
    }
  ASSERT_GT(sol.workspace_bytes, 0u) << "no split-K candidate";
  Case c(p, 5);
  ASSERT_TRUE(c.prepare(nullptr).ok());
  DeviceBuffer ws(sol.workspace_bytes);

  auto* a_bytes = static_cast<unsigned char*>(c.a->ptr);
  Status s = reg->run(sol, p, a_bytes + 2, c.b->ptr, c.out->ptr, ws.ptr, ws.bytes, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("a (x)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("not aligned to 16 bytes"), std::string::npos) << s.message();

  s = reg->run(sol, p, c.a->ptr, c.b->ptr, c.out->ptr, ws.ptr, sol.workspace_bytes - 16, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("too small"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(std::to_string(sol.workspace_bytes)), std::string::npos) << s.message();

  // Host memory (pageable and pinned) is not device memory.
  alignas(16) static unsigned char host[1 << 16];
  s = reg->run(sol, p, host, c.b->ptr, c.out->ptr, ws.ptr, ws.bytes, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("a (x)"), std::string::npos) << s.message();
  void* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 1 << 16), cudaSuccess);
  s = reg->run(sol, p, c.a->ptr, c.b->ptr, pinned, ws.ptr, ws.bytes, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("out (dw) is host"), std::string::npos) << s.message();
  cudaFreeHost(pinned);

  // A workspace the registry may not allocate itself.
  auto small = make_registry("off", 16);
  s = small->run(sol, p, c.a->ptr, c.b->ptr, c.out->ptr, nullptr, 0, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("workspace_limit"), std::string::npos) << s.message();

  // And the same call with a right-sized workspace runs correctly.
  ASSERT_TRUE(c.run_naive(nullptr).ok());
  ASSERT_TRUE(reg->run(sol, p, c.a->ptr, c.b->ptr, c.out->ptr, ws.ptr, ws.bytes, nullptr).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const CompareResult cr = c.compare(false);
  EXPECT_TRUE(cr.ok) << sol.kernel << ": " << cr.summary();
}

}  // namespace
}  // namespace gconv::gputest
