// The wgmma family compiles under NVRTC for sm_90a from the embedded headers
// (no GPU needed): every direction x dtype the family offers x dimension, with
// tile shapes, consumer warpgroups, stages, split-K modes and vector widths
// rotated; each instance defines its entry points, spills no register, and
// ptxas does not serialize its wgmma.mma_async (which it does, with a
// warning, when accumulator registers are touched between issue and wait).
// TMA-producer instances take the two tensor maps after IgemmParams, and
// instances with their own staging area the output's map after those.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "compile_test_util.hpp"
#include "jit/compiler.hpp"
#include "kernels/family.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv {
namespace {

struct Shape {
  int tm, tn, cwg, stages;
};

KernelTraits make(Direction d, DType t, int ndim, Shape s, SplitKMode mode, int split, int vec) {
  KernelTraits k;
  k.family = Family::wgmma;
  k.direction = d;
  k.dtype = t;
  k.ndim = ndim;
  k.tile_m = s.tm;
  k.tile_n = s.tn;
  k.tile_k = t == DType::fp32 ? 32 : 64;
  k.warps_m = s.cwg;
  k.warps_n = 1;
  k.stages = s.stages;
  k.split_mode = mode;
  k.split_k = split;
  k.vec = vec;
  return k;
}

std::vector<KernelTraits> instances() {
  const Shape shapes[] = {{128, 128, 1, 4}, {256, 128, 2, 4}, {128, 256, 2, 3}, {64, 32, 1, 6}, {128, 64, 2, 5}};
  std::vector<KernelTraits> out;
  int i = 0;
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
      if (t == DType::fp32 && d != Direction::fwd) continue;  // tf32 wgmma: K-major operands only
      for (int nd = 1; nd <= 3; ++nd, ++i) {
        const SplitKMode mode = i % 3 == 0 ? SplitKMode::none : i % 3 == 1 ? SplitKMode::parallel : SplitKMode::serial;
        const int split = mode == SplitKMode::none ? 1 : mode == SplitKMode::parallel ? 4 : 3;
        const int vec = (t == DType::fp32 ? 4 : 8) / (i % 4 == 0 ? 2 : 1);
        out.push_back(make(d, t, nd, shapes[i % 5], mode, split, vec));
      }
    }
  // 2-byte copies (one bf16 element per copy) and the narrowest tile.
  out.push_back(make(Direction::bwd_data, DType::bf16, 2, {64, 32, 1, 3}, SplitKMode::none, 1, 1));
  // The TMA producer: im2col of every tensor rank, tf32, split-K.
  for (int nd = 1; nd <= 3; ++nd) {
    KernelTraits k = make(Direction::fwd, nd == 2 ? DType::fp32 : DType::bf16, nd, shapes[nd],
                          nd == 3 ? SplitKMode::parallel : SplitKMode::none, nd == 3 ? 2 : 1, nd == 2 ? 4 : 8);
    k.tma = true;
    out.push_back(k);
    KernelTraits bd = make(Direction::bwd_data, DType::bf16, nd, shapes[nd - 1], SplitKMode::none, 1, 8);
    bd.tma = true;
    out.push_back(bd);
    KernelTraits bw = make(Direction::bwd_weight, DType::bf16, nd, shapes[nd - 1],
                           nd == 1 ? SplitKMode::parallel : SplitKMode::none, nd == 1 ? 8 : 1, 8);
    bw.tma = true;
    out.push_back(bw);
  }
  // Output tiles staged in passes beside a deep ring, with TMA stores
  // (m128n128 with 6 stages; m128n256 with 4 and the TMA producer).
  out.push_back(make(Direction::fwd, DType::bf16, 2, {128, 128, 1, 6}, SplitKMode::none, 1, 8));
  KernelTraits deep = make(Direction::bwd_data, DType::bf16, 2, {128, 256, 2, 4}, SplitKMode::none, 1, 8);
  deep.tma = true;
  out.push_back(deep);
  // Cluster split-K (one launch, partial tiles added through distributed
  // shared memory): every direction, both producers, tf32, clusters of 2..8.
  out.push_back(make(Direction::fwd, DType::fp32, 2, shapes[0], SplitKMode::cluster, 2, 4));
  out.push_back(make(Direction::bwd_data, DType::fp16, 3, shapes[1], SplitKMode::cluster, 4, 8));
  out.push_back(make(Direction::bwd_weight, DType::bf16, 2, shapes[2], SplitKMode::cluster, 8, 8));
  KernelTraits cw = make(Direction::bwd_weight, DType::bf16, 2, {256, 128, 2, 4}, SplitKMode::cluster, 4, 8);
  cw.tma = true;
  out.push_back(cw);
  KernelTraits cf = make(Direction::fwd, DType::bf16, 1, {128, 128, 1, 4}, SplitKMode::cluster, 2, 8);
  cf.tma = true;
  out.push_back(cf);
  // Two-block stages (tile_k 128, TMA): every direction, one or two
  // issuers' worth of barrier counts, serial and cluster split-K; the
  // consumer's full and half stages each a straight line of wgmmas.
  const struct {
    Direction d;
    DType t;
    int nd;
    Shape s;
    SplitKMode mode;
    int split;
  } two[] = {{Direction::fwd, DType::bf16, 2, {64, 64, 1, 4}, SplitKMode::none, 1},
             {Direction::fwd, DType::fp16, 3, {64, 64, 1, 3}, SplitKMode::cluster, 4},
             {Direction::bwd_data, DType::bf16, 2, {64, 64, 1, 4}, SplitKMode::none, 1},
             {Direction::bwd_data, DType::bf16, 1, {64, 64, 1, 3}, SplitKMode::cluster, 2},
             {Direction::bwd_weight, DType::bf16, 2, {64, 64, 1, 3}, SplitKMode::serial, 16},
             {Direction::bwd_weight, DType::fp16, 3, {64, 64, 1, 3}, SplitKMode::cluster, 8}};
  for (const auto& w : two) {
    KernelTraits k = make(w.d, w.t, w.nd, w.s, w.mode, w.split, 8);
    k.tile_k = 128;
    k.tma = true;
    out.push_back(k);
  }
  // Staged operands (TMA with realign: gconv_pad copies dy, or fwd's x and
  // w, into the workspace first): every direction.
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
    const bool wg = d == Direction::bwd_weight;
    KernelTraits k = make(d, DType::bf16, 3, {256, 128, 2, 4}, wg ? SplitKMode::cluster : SplitKMode::none,
                          wg ? 4 : 1, 8);
    k.tma = true;
    k.realign = true;
    out.push_back(k);
  }
  return out;
}

TEST(WgmmaCompile, EveryDirectionDtypeAndDimensionCompilesForSm90aWithoutSpills) {
  const std::vector<KernelTraits> all = instances();
  ASSERT_EQ(all.size(), 47u);
  for (const auto& t : all) {
    std::string why;
    ASSERT_TRUE(wgmma::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
  }
  std::vector<std::string> sources, names;
  for (const auto& t : all) {
    sources.push_back(wgmma_family().instance_source(t));
    names.push_back(kernel_name(t));
  }
  Status setup;
  // ptxas reports spills and warnings into the log.
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();

  for (size_t i = 0; i < all.size(); ++i) {
    testing::expect_built_without_spills(results[i], names[i], wgmma_family().entry_points(all[i]));
    // A cluster split-K kernel is one entry point with its cluster shape
    // (and the staged instances' copy of dy).
    if (all[i].split_mode == SplitKMode::cluster) {
      const std::vector<std::string> want = all[i].tma && all[i].realign
                                                ? std::vector<std::string>{"gconv_main", "gconv_pad"}
                                                : std::vector<std::string>{"gconv_main"};
      EXPECT_EQ(wgmma_family().entry_points(all[i]), want) << names[i];
      EXPECT_NE(sources[i].find("__cluster_dims__(" + std::to_string(all[i].split_k) + ", 1, 1)"), std::string::npos)
          << names[i];
    }
    // The launch finds a staged instance's copy kernel by pad_entry.
    if (all[i].tma && all[i].realign) {
      const std::vector<std::string> e = wgmma_family().entry_points(all[i]);
      ASSERT_LT(wgmma::pad_entry(all[i]), e.size()) << names[i];
      EXPECT_EQ(e[wgmma::pad_entry(all[i])], "gconv_pad") << names[i];
    }
    // The output's tensor map is a parameter exactly where the kernel has
    // its own staging area of whole 128-byte rows (all of these).
    EXPECT_EQ(sources[i].find("TensorMap tc") != std::string::npos, wgmma::tma_store(all[i])) << names[i];
    EXPECT_EQ(wgmma::tma_store(all[i]), wgmma::epilogue_separate(all[i])) << names[i];
    if (results[i].ok())
      EXPECT_EQ(results[i]->log.find("serialized"), std::string::npos)
          << names[i] << ": ptxas serialized wgmma:\n" << results[i]->log;
  }
}

// The study switches of wgmma_plan.cpp, which only take effect through the
// environment (read once per process): traced instances (GCONV_WGMMA_TRACE)
// whose TMA producers arm stages without loading them (GCONV_WGMMA_NOLOAD),
// and with only the marks outside the mainloop (GCONV_WGMMA_TRACE_LIGHT).
TEST(WgmmaCompile, StudySwitchesCompileWithoutSpillsOrSerializedWgmma) {
  std::vector<KernelTraits> ts;
  KernelTraits small = make(Direction::bwd_data, DType::bf16, 2, {64, 64, 1, 4}, SplitKMode::none, 1, 8);
  small.tma = true;
  ts.push_back(small);
  ts.push_back(make(Direction::fwd, DType::bf16, 2, {128, 128, 1, 4}, SplitKMode::none, 1, 8));
  KernelTraits tf32 = make(Direction::fwd, DType::fp32, 3, {64, 64, 1, 4}, SplitKMode::serial, 3, 4);
  tf32.tma = true;
  ts.push_back(tf32);
  ts.push_back(make(Direction::bwd_weight, DType::bf16, 2, {128, 128, 2, 4}, SplitKMode::cluster, 2, 8));
  std::vector<std::string> sources, names;
  for (const char* defines : {"#define GCONV_WGMMA_TRACE 4\n#define GCONV_WGMMA_NOLOAD 1\n",
                              "#define GCONV_WGMMA_TRACE 4\n#define GCONV_WGMMA_TRACE_LIGHT 1\n"})
    for (const auto& t : ts) {
      std::string why;
      ASSERT_TRUE(wgmma::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
      std::string src = defines + wgmma_family().instance_source(t);
      // (What instance_source adds when GCONV_WGMMA_TRACE is set in the
      // environment: the kernel that prints the clocks.)
      if (std::string(defines).find("TRACE") != std::string::npos)
        src += "extern \"C\" __global__ void gconv_trace_dump() { gconv::wg::trace::dump(); }\n";
      sources.push_back(src);
      names.push_back(kernel_name(t) + " with " + defines);
    }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t i = 0; i < sources.size(); ++i) {
    const bool traced = sources[i].find("GCONV_WGMMA_TRACE") != std::string::npos;
    testing::expect_built_without_spills(
        results[i], names[i],
        traced ? std::vector<std::string>{"gconv_main", "gconv_trace_dump"} : std::vector<std::string>{"gconv_main"});
    // Traced ones too: their clocks leave through global memory and a kernel
    // of their own prints them, so gconv_main makes no call across which
    // ptxas would serialize its wgmmas.
    if (results[i].ok())
      EXPECT_EQ(results[i]->log.find("serialized"), std::string::npos)
          << names[i] << ": ptxas serialized wgmma:\n" << results[i]->log;
  }
}

}  // namespace
}  // namespace gconv
