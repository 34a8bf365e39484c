// Register-window depthwise kernels of the direct family (window.cuh): the
// names round-trip, the plan's rules and launch shape, and every direction x
// dtype compiles under NVRTC for sm_90a without spilling its window (ptxas
// -v) and defines its one entry point.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "compile_test_util.hpp"
#include "kernels/direct/direct_plan.hpp"
#include "kernels/family.hpp"

namespace gconv {
namespace {

Problem depthwise(Direction dir, DType dt, int64_t c, int64_t fx, int64_t sx, int ndim = 2) {
  Problem p;
  p.ndim = ndim;
  p.direction = dir;
  p.dtype = dt;
  p.n = 3;
  p.c = p.k = p.g = c;
  p.in = {ndim == 3 ? 5 : 1, ndim == 1 ? 1 : 13, 29};
  p.filter = {ndim == 3 ? 3 : 1, ndim == 1 ? 1 : 3, fx};
  p.stride = {1, ndim == 1 ? 1 : sx, sx};
  p.pad_lo = p.pad_hi = {ndim == 3 ? 1 : 0, ndim == 1 ? 0 : 1, fx / 2};
  return p;
}

KernelTraits window(const Problem& p, int fx, int sx, int r = 8, int vec = 8) {
  KernelTraits t;
  t.family = Family::direct;
  t.direction = p.direction;
  t.dtype = p.dtype;
  t.ndim = p.ndim;
  t.block_h = p.ndim == 1 ? 1 : 8;
  t.block_w = p.ndim == 1 ? r * 32 : r * 4;  // 256 threads, as the pools' window kernels
  t.per_thread = r;
  t.vec = vec;
  t.win_fx = fx;
  t.win_sx = sx;
  return t;
}

TEST(DirectWindow, NamesRoundTripAndAreStrict) {
  const Problem p = depthwise(Direction::bwd_weight, DType::fp16, 64, 5, 2);
  const KernelTraits t = window(p, 5, 2);
  const std::string name = kernel_name(t);
  EXPECT_EQ(name, "direct_bwd_weight_fp16_2d_t8x32_r8_v8_w5s2");
  Result<KernelTraits> back = parse_kernel_name(name);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, t);
  // The row stream (_tma) of fwd / bwd_data.
  KernelTraits s = window(depthwise(Direction::fwd, DType::bf16, 64, 3, 1), 3, 1);
  s.tma = true;
  EXPECT_EQ(kernel_name(s), "direct_fwd_bf16_2d_t8x32_r8_v8_w3s1_tma");
  back = parse_kernel_name(kernel_name(s));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, s);
  for (const char* bad : {"direct_fwd_bf16_2d_t8x32_r8_v8_w3s1_det", "direct_fwd_bf16_2d_t8x32_r8_v8_w03s1",
                          "direct_fwd_bf16_2d_t8x32_r8_v8_w3s1_tma_det", "direct_fwd_bf16_2d_t8x32_r8_v8_tma",
                          "direct_fwd_bf16_2d_t8x32_r8_v8_w3", "direct_fwd_bf16_2d_t8x32_r8_v8_w3s"})
    EXPECT_FALSE(parse_kernel_name(bad).ok()) << bad;
}

TEST(DirectWindow, PlanRules) {
  const Problem p = depthwise(Direction::fwd, DType::bf16, 64, 3, 1);
  std::string why;
  EXPECT_TRUE(direct_family().can_implement(window(p, 3, 1), p, &why)) << why;
  EXPECT_FALSE(direct_family().can_implement(window(p, 5, 1), p, &why));
  EXPECT_NE(why.find("filter width 5"), std::string::npos) << why;
  EXPECT_FALSE(direct_family().can_implement(window(p, 3, 2), p, &why));

  Problem dil = p;
  dil.dilation = {1, 1, 2};
  EXPECT_FALSE(direct_family().can_implement(window(dil, 3, 1), dil, &why));
  EXPECT_NE(why.find("W dilation 1"), std::string::npos) << why;
  dil.dilation = {1, 2, 1};  // dilation along H is a run-time loop
  EXPECT_TRUE(direct_family().can_implement(window(dil, 3, 1), dil, &why)) << why;

  Problem grouped = p;
  grouped.k = 128;  // depth multiplier 2
  EXPECT_FALSE(direct_family().can_implement(window(grouped, 3, 1), grouped, &why));
  EXPECT_NE(why.find("depthwise"), std::string::npos) << why;

  // bwd_data: a W stride of 1 needs stride 1 everywhere; W stride 2 takes
  // the phase-split window, with any H stride.
  Problem strided_bwd = depthwise(Direction::bwd_data, DType::bf16, 64, 3, 2);
  EXPECT_TRUE(direct_family().can_implement(window(strided_bwd, 3, 2), strided_bwd, &why)) << why;
  strided_bwd.stride = {1, 2, 1};
  EXPECT_FALSE(direct_family().can_implement(window(strided_bwd, 3, 1), strided_bwd, &why));
  EXPECT_NE(why.find("stride 1 in every dimension"), std::string::npos) << why;
  const Problem strided_wgrad = depthwise(Direction::bwd_weight, DType::bf16, 64, 3, 2);
  EXPECT_TRUE(direct_family().can_implement(window(strided_wgrad, 3, 2), strided_wgrad, &why)) << why;
}

TEST(DirectWindow, GatherLaunchShape) {
  // 96 channels = 12 vectors of 8: one slab of 12 lanes, 256 / 12 = 21 rows of
  // 8 outputs per block; no workspace.
  Problem p = depthwise(Direction::fwd, DType::bf16, 96, 7, 1);
  const KernelTraits t = window(p, 7, 1);
  ASSERT_EQ(t.threads(), 256);
  Result<DirectPlan> plan = plan_direct(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->params.lanes, 12);
  EXPECT_EQ(plan->params.items_per_block, 21);
  EXPECT_EQ(plan->threads, 252);
  EXPECT_EQ(plan->params.strips, 4);                  // ceil(29 / 8)
  EXPECT_EQ(plan->params.items, 3 * 13 * 4);          // n * rows * strips
  EXPECT_EQ(plan->blocks, (3 * 13 * 4 + 20) / 21);    // ceil(items / 21)
  EXPECT_EQ(plan->grid_y, 1);
  EXPECT_EQ(plan->smem, size_t{3 * 7 * 12 * 8 * 4});  // fp32 weights of the slab
  EXPECT_EQ(plan->workspace, 0u);
  EXPECT_EQ(direct_family().workspace_bytes(t, p), 0u);

  // 400 channels = 50 vectors: two even slabs of 25 lanes.
  p = depthwise(Direction::bwd_data, DType::bf16, 400, 3, 1);
  plan = plan_direct(window(p, 3, 1), p);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->params.lanes, 25);
  EXPECT_EQ(plan->grid_y, 2);
}

KernelTraits stream(const Problem& p, int fx, int sx, int r = 8, int vec = 8) {
  KernelTraits t = window(p, fx, sx, r, vec);
  t.tma = true;
  return t;
}

TEST(DirectWindow, RowStreamKernelsWhereTheWeightsFitRegisters) {
  Problem p = depthwise(Direction::fwd, DType::bf16, 64, 3, 1);
  EXPECT_TRUE(window_stream_compiled(window(p, 3, 1, 8, 8)));    // 72 + 64 <= 160
  EXPECT_FALSE(window_stream_compiled(window(p, 7, 1, 8, 8)));   // 392 weights
  EXPECT_TRUE(window_stream_compiled(window(p, 7, 1, 8, 2)));    // 98 + 16
  const Problem w = depthwise(Direction::bwd_weight, DType::bf16, 64, 3, 1);
  EXPECT_FALSE(window_stream_compiled(window(w, 3, 1)));  // bwd_weight has its own kernel

  // The gather kernel plans window_gather, its _tma twin the stream.
  Result<DirectPlan> plan = plan_direct(window(p, 3, 1), p);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->params.wg_stream, 0);
  p.n = 2;
  p.in = {1, 20, 30};
  plan = plan_direct(stream(p, 3, 1), p);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->params.wg_stream, 1);
  EXPECT_EQ(plan->params.wg_tma, 1);
  EXPECT_EQ(plan->params.strips, 4);            // ceil(30 / 8)
  EXPECT_EQ(plan->params.wg_xw, 31 + 3);        // (strips * R - 1) * SX + FX
  EXPECT_EQ(plan->params.wg_xp, 35);            // odd pixel pitch
  EXPECT_EQ(plan->params.wg_rows, 8);
  EXPECT_EQ(plan->params.wg_steps, 2 * 3);      // n x ceil(20 / 8)
  EXPECT_EQ(plan->grid_y, 4);                   // 64 bf16 channels in 32-byte slabs
  EXPECT_EQ(plan->workspace, 0u);
  EXPECT_GE(plan->smem, size_t{2} * plan->params.wg_stage);

  std::string why;
  // The stream has no phases: strided bwd_data, and 3D, stay with the gather.
  const Problem bs = depthwise(Direction::bwd_data, DType::bf16, 64, 3, 2);
  EXPECT_TRUE(direct_family().can_implement(window(bs, 3, 2), bs, &why)) << why;
  EXPECT_FALSE(direct_family().can_implement(stream(bs, 3, 2), bs, &why));
  EXPECT_NE(why.find("stride 1"), std::string::npos) << why;
  // Channels whose rows are not 16-byte multiples cannot be a TMA box.
  Problem odd = depthwise(Direction::fwd, DType::bf16, 36, 3, 1);
  EXPECT_TRUE(direct_family().can_implement(window(odd, 3, 1, 8, 4), odd, &why)) << why;
  EXPECT_FALSE(direct_family().can_implement(stream(odd, 3, 1, 8, 4), odd, &why));
  EXPECT_NE(why.find("TMA box"), std::string::npos) << why;
  // A filter taller than the compiled width.
  Problem tall = p;
  tall.filter = {1, 5, 3};
  tall.pad_lo = tall.pad_hi = {0, 2, 1};
  EXPECT_FALSE(direct_family().can_implement(stream(tall, 3, 1), tall, &why));
  EXPECT_NE(why.find("5 tall"), std::string::npos) << why;
  const Problem p3 = depthwise(Direction::fwd, DType::bf16, 64, 3, 1, 3);
  EXPECT_FALSE(direct_family().can_implement(stream(p3, 3, 1), p3, &why));
  EXPECT_NE(why.find("1D and 2D"), std::string::npos) << why;
}

TEST(DirectWindow, WgradRules) {
  const Problem p = depthwise(Direction::bwd_weight, DType::bf16, 64, 3, 1);
  std::string why;
  // 5 x 5 sums of 8 channels would spill: 4 channels a thread fit.
  const Problem p5 = depthwise(Direction::bwd_weight, DType::bf16, 64, 5, 1);
  EXPECT_FALSE(direct_family().can_implement(window(p5, 5, 1, 8, 8), p5, &why));
  EXPECT_NE(why.find("register budget"), std::string::npos) << why;
  EXPECT_TRUE(direct_family().can_implement(window(p5, 5, 1, 8, 4), p5, &why)) << why;
  // The sums cover filter rows up to the window's width.
  Problem tall = p;
  tall.filter = {1, 5, 3};
  tall.pad_lo = tall.pad_hi = {0, 2, 1};
  EXPECT_FALSE(direct_family().can_implement(window(tall, 3, 1), tall, &why));
  EXPECT_NE(why.find("filter height 5"), std::string::npos) << why;
}

TEST(DirectWindow, WgradLaunchShapeStreamsRowsPerSlabAndZTap) {
  const Problem p = depthwise(Direction::bwd_weight, DType::bf16, 96, 3, 1, 3);
  const KernelTraits t = window(p, 3, 1);
  Result<DirectPlan> plan = plan_direct(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const direct::DirectParams& q = plan->params;
  // 12 vectors of 8 channels in slabs of 32-byte pixels: 2 lanes of 16
  // channels, 6 slabs.
  EXPECT_EQ(q.lanes, 2);
  EXPECT_EQ(q.wg_slabw, 16);
  EXPECT_EQ(plan->grid_y, 6);
  EXPECT_EQ(plan->grid_z, 3);  // z taps
  EXPECT_EQ(plan->threads, 256);
  // dy 29 wide in strips of 8 -> 32 (pitch 33); x (32 - 1) + 3 = 34 (pitch 35).
  EXPECT_EQ(q.strips, 4);
  EXPECT_EQ(q.wg_dyw, 32);
  EXPECT_EQ(q.wg_dyp, 33);
  EXPECT_EQ(q.wg_xw, 34);
  EXPECT_EQ(q.wg_xp, 35);
  // 8 rows a step: x 10 rows of 35 x 32 bytes (11,200, 128-aligned for TMA:
  // 11,264), dy 8 x 33 x 32 = 8,448; TMA (96 channels of 2 bytes make 16-byte
  // rows, every box side <= 256): the 110 KB budget holds 5 such stages, 4 at most.
  EXPECT_EQ(q.wg_rows, 8);
  EXPECT_EQ(q.wg_tma, 1);
  EXPECT_EQ(q.wg_xbytes, 11264);
  EXPECT_EQ(q.wg_stage, 11264 + 8448);
  EXPECT_EQ(q.wg_stages, 4);
  EXPECT_EQ(plan->smem, size_t{4} * (11264 + 8448));
  EXPECT_EQ(q.wg_tx_bytes, 10 * 35 * 32 + 8 * 33 * 32);
  // 3 images x 5 depths x 2 steps; 264 / 18 regions -> 15 blocks, also the
  // cap of two steps a block.
  EXPECT_EQ(q.wg_plane_steps, 2);
  EXPECT_EQ(q.wg_steps, 30);
  EXPECT_EQ(q.wg_blocks, 15);
  EXPECT_EQ(plan->blocks, 15);
  // Slices of 3 x 3 taps x 16 channels per block, then three words a region.
  EXPECT_EQ(q.fixup, 1);
  EXPECT_EQ(plan->fixup_offset, (size_t{18 * 15 * 9 * 16 * 4} + 255) / 256 * 256);
  EXPECT_EQ(plan->workspace, plan->fixup_offset + 18 * 3 * 8);
  EXPECT_EQ(direct_family().workspace_bytes(t, p), plan->workspace);
  EXPECT_EQ(plan->finish_blocks, 0);
  EXPECT_EQ(plan->launches(), 1);
  const TmaArgs xm = window_wgrad_x_map(p, *plan);
  EXPECT_EQ(xm.rank, 4);
  EXPECT_EQ(xm.dims[0], 96u);  // C, W, H, N * D
  EXPECT_EQ(xm.dims[1], 29u);
  EXPECT_EQ(xm.dims[2], 13u);
  EXPECT_EQ(xm.dims[3], 15u);
  EXPECT_EQ(xm.strides[0], 96u * 2);
  EXPECT_EQ(xm.strides[2], 13u * 29 * 96 * 2);
  EXPECT_EQ(xm.box[0], 16u);  // slab, x pitch, x rows, 1
  EXPECT_EQ(xm.box[1], 35u);
  EXPECT_EQ(xm.box[2], 10u);
  EXPECT_EQ(xm.box[3], 1u);
  const TmaArgs dm = window_wgrad_dy_map(p, *plan);
  EXPECT_EQ(dm.dims[1], 29u);  // stride 1, pad 1: dy is x's size
  EXPECT_EQ(dm.dims[3], 15u);
  EXPECT_EQ(dm.box[1], 33u);
  EXPECT_EQ(dm.box[2], 8u);
  EXPECT_EQ(size_t(xm.box[0]) * xm.box[1] * xm.box[2] * 2 + size_t(dm.box[0]) * dm.box[1] * dm.box[2] * 2,
            size_t(q.wg_tx_bytes));

  // 100 channels (4-channel vectors): 200-byte rows, no tensor map; cp.async.
  Problem odd = depthwise(Direction::bwd_weight, DType::bf16, 100, 3, 1);
  plan = plan_direct(window(odd, 3, 1, 8, 4), odd);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->params.wg_tma, 0);
  EXPECT_EQ(plan->params.wg_stages, 2);

  // One image of 2 rows: one step, one block a region, dw written directly.
  Problem small = depthwise(Direction::bwd_weight, DType::bf16, 64, 3, 1);
  small.n = 1;
  small.in = {1, 2, 29};
  plan = plan_direct(window(small, 3, 1), small);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->params.wg_rows, 2);
  EXPECT_EQ(plan->params.wg_blocks, 1);
  EXPECT_EQ(plan->params.fixup, 0);
  EXPECT_EQ(plan->workspace, 0u);
}

TEST(DirectWindow, StridedBwdDataStripsArePerPhase) {
  // dx width 29, W stride 2: phases of 15 and 14 pixels, 2 strips of 8 each.
  const Problem p = depthwise(Direction::bwd_data, DType::bf16, 64, 3, 2);
  Result<DirectPlan> plan = plan_direct(window(p, 3, 2), p);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->params.strips, 4);
  EXPECT_EQ(plan->params.items, 3 * 13 * 4);
}

TEST(DirectWindow, GatherTakesSeveralRowsPerItemWhenTheGridIsLarge) {
  Problem p = depthwise(Direction::fwd, DType::bf16, 64, 3, 1);
  p.n = 32;
  p.in = {1, 112, 112};
  Result<DirectPlan> plan = plan_direct(window(p, 3, 1), p);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // 8 lanes x 32 items a block; single rows would make 1568 blocks, 2 rows
  // an item 784 (>= 4 x 132), 4 rows 392 (fewer).
  EXPECT_EQ(plan->params.rows_per_item, 2);
  EXPECT_EQ(plan->params.items, 32 * 56 * 14);
  EXPECT_EQ(plan->blocks, 32 * 56 * 14 / 32);
}

TEST(DirectWindow, EveryDirectionAndDtypeCompilesWithoutSpills) {
  struct Case {
    Direction d;
    DType t;
    int fx, sx, r, vec = 8;
    bool tma = false;
  };
  const Case cases[] = {{Direction::fwd, DType::bf16, 7, 1, 8},       {Direction::fwd, DType::fp32, 3, 2, 8},
                        {Direction::fwd, DType::bf16, 3, 1, 8},       {Direction::bwd_data, DType::bf16, 5, 1, 8, 4},
                        {Direction::bwd_data, DType::fp16, 5, 1, 8},  {Direction::bwd_data, DType::bf16, 7, 1, 4},
                        {Direction::bwd_data, DType::bf16, 5, 2, 8},
                        {Direction::bwd_weight, DType::bf16, 7, 1, 8, 2}, {Direction::bwd_weight, DType::fp16, 5, 2, 8, 4},
                        {Direction::bwd_weight, DType::bf16, 3, 1, 8, 8}, {Direction::bwd_weight, DType::fp32, 3, 2, 4, 4},
                        // the row stream (_tma)
                        {Direction::fwd, DType::bf16, 3, 1, 8, 8, true},  {Direction::fwd, DType::fp32, 3, 2, 4, 4, true},
                        {Direction::bwd_data, DType::bf16, 5, 1, 8, 4, true}, {Direction::fwd, DType::fp16, 7, 1, 8, 2, true}};
  std::vector<std::string> sources, names;
  std::vector<KernelTraits> traits;
  for (const Case& c : cases) {
    const Problem p = depthwise(c.d, c.t, 64, c.fx, c.sx);
    KernelTraits t = window(p, c.fx, c.sx, c.r, c.t == DType::fp32 ? std::min(c.vec, 4) : c.vec);
    t.tma = c.tma;
    ASSERT_TRUE(!t.tma || window_stream_compiled(t));
    traits.push_back(t);
    sources.push_back(direct_family().instance_source(t));
    names.push_back(kernel_name(t));
    ASSERT_EQ(direct_family().entry_points(t), std::vector<std::string>{"gconv_win"});
    EXPECT_NE(sources.back().find(t.tma ? "window_stream<" : "window_"), std::string::npos);
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE(names[i]);
    ASSERT_TRUE(results[i].ok()) << results[i].status().message();
    EXPECT_TRUE(testing::image_contains(results[i]->image, "gconv_win"));
    // ptxas reports "N bytes spill stores"; the window (bwd_weight: every
    // tap's sums) must stay in registers. bwd_weight keeps ptxas's occupancy
    // target, which may park a word or two on the stack; sums that no longer
    // fit spill far more.
    const std::string& log = results[i]->log;
    const std::regex spill(R"((\d+) bytes spill stores)");
    int reports = 0;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), spill); it != std::sregex_iterator(); ++it, ++reports)
      EXPECT_LE(std::stoi((*it)[1].str()), traits[i].direction == Direction::bwd_weight ? 16 : 0) << log;
    EXPECT_EQ(reports, int(direct_family().entry_points(traits[i]).size())) << log;
  }
}

}  // namespace
}  // namespace gconv
