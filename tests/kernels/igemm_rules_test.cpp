// igemm host rules: what can_implement accepts and rejects, exact split-K
// workspace sizes, entry points, and the launch plan's grid and K counter.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/family.hpp"
#include "kernels/igemm/igemm_plan.hpp"

namespace gconv {
namespace {

KernelTraits traits(Direction d, DType t, int ndim) {
  KernelTraits k;
  k.family = Family::igemm;
  k.direction = d;
  k.dtype = t;
  k.ndim = ndim;
  k.tile_m = 64;
  k.tile_n = 64;
  k.tile_k = 32;
  k.warps_m = 2;
  k.warps_n = 2;
  k.stages = 3;
  k.vec = t == DType::fp32 ? 4 : 8;
  return k;
}

// 2D problem: n x c -> k, g groups, h x w input, r x r filter, stride s, pad pd.
Problem conv2d(Direction d, DType t, int n, int c, int k, int g, int h, int w, int r, int s, int pd) {
  Problem p;
  p.ndim = 2;
  p.direction = d;
  p.dtype = t;
  p.n = n;
  p.c = c;
  p.k = k;
  p.g = g;
  p.in = {1, h, w};
  p.filter = {1, r, r};
  p.stride = {1, s, s};
  p.pad_lo = {0, pd, pd};
  p.pad_hi = {0, pd, pd};
  return p;
}

bool accepts(const KernelTraits& t, const Problem& p, std::string* why = nullptr) {
  std::string w;
  const bool ok = igemm_family().can_implement(t, p, &w);
  if (why) *why = w;
  return ok;
}

TEST(IgemmRules, VectorWidthMustDivideTheChannelsItRunsAlong) {
  const Problem rgb = conv2d(Direction::fwd, DType::bf16, 2, 3, 64, 1, 32, 32, 7, 2, 3);
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  std::string why;
  EXPECT_FALSE(accepts(t, rgb, &why));
  EXPECT_NE(why.find("vec"), std::string::npos) << why;
  t.vec = 1;
  EXPECT_TRUE(accepts(t, rgb, &why)) << why;

  // bwd_data also reads dy along K/G: Cg = 8 is fine, Kg = 12 is not for vec 8.
  const Problem bd = conv2d(Direction::bwd_data, DType::bf16, 2, 16, 24, 2, 8, 8, 3, 1, 1);
  KernelTraits tb = traits(Direction::bwd_data, DType::bf16, 2);
  EXPECT_FALSE(accepts(tb, bd));
  tb.vec = 4;
  EXPECT_TRUE(accepts(tb, bd, &why)) << why;
  // fwd reads only along C/G, so the same channels pass with vec 8.
  EXPECT_TRUE(accepts(traits(Direction::fwd, DType::bf16, 2), conv2d(Direction::fwd, DType::bf16, 2, 16, 24, 2, 8, 8,
                                                                      3, 1, 1)));
}

TEST(IgemmRules, VectorWidthIsBoundedBySixteenBytes) {
  const Problem p = conv2d(Direction::fwd, DType::fp32, 1, 64, 64, 1, 8, 8, 3, 1, 1);
  KernelTraits t = traits(Direction::fwd, DType::fp32, 2);
  t.vec = 8;  // 32 bytes of fp32
  EXPECT_FALSE(accepts(t, p));
  t.vec = 4;
  EXPECT_TRUE(accepts(t, p));
}

TEST(IgemmRules, GroupsPerBlockNeedWholeAtomsAndRoomForEachGroup) {
  // ResNeXt-like: Kg = 8, Cg = 4.
  const Problem p = conv2d(Direction::fwd, DType::bf16, 2, 128, 256, 32, 14, 14, 3, 1, 1);
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  t.vec = 4;
  t.groups_per_block = 8;  // 64 / 8 = 8 columns per group >= Kg
  std::string why;
  EXPECT_TRUE(accepts(t, p, &why)) << why;
  t.tile_n = 32;  // 4 columns per group: not a whole n8 atom
  EXPECT_FALSE(accepts(t, p));
  t.tile_n = 64;
  t.groups_per_block = 3;
  EXPECT_FALSE(accepts(t, p));

  // Kg = 24 does not fit 64 / 4 = 16 columns, fits 64 / 2 = 32.
  const Problem wide = conv2d(Direction::fwd, DType::bf16, 2, 32, 96, 4, 14, 14, 3, 1, 1);
  t.groups_per_block = 4;
  EXPECT_FALSE(accepts(t, wide, &why));
  EXPECT_NE(why.find("per-group GEMM N"), std::string::npos) << why;
  t.groups_per_block = 2;
  EXPECT_TRUE(accepts(t, wide, &why)) << why;

  // bwd_weight's per-group N is F * Cg: 9 * 4 = 36 needs 64 columns per group.
  const Problem bw = conv2d(Direction::bwd_weight, DType::bf16, 2, 32, 32, 8, 8, 8, 3, 1, 1);
  KernelTraits tw = traits(Direction::bwd_weight, DType::bf16, 2);
  tw.vec = 4;
  tw.groups_per_block = 2;
  EXPECT_FALSE(accepts(tw, bw));  // 32 columns per group
  tw.tile_n = 128;
  EXPECT_TRUE(accepts(tw, bw, &why)) << why;

  // A block whose groups are mostly empty is refused: G = 2 with 4 per block.
  const Problem two = conv2d(Direction::fwd, DType::bf16, 2, 16, 16, 2, 8, 8, 3, 1, 1);
  t.groups_per_block = 4;
  EXPECT_FALSE(accepts(t, two));
}

// Packed kernels: the block's groups are one block-diagonal GEMM, so they
// must fit tile_n together; fwd and bwd_data only; the plan's K counter
// spans the groups' channels and the block covers its groups in one N tile.
TEST(IgemmRules, PackedGroupsFillOneTileAndWidenK) {
  const Problem p = conv2d(Direction::fwd, DType::bf16, 2, 40, 40, 10, 9, 9, 3, 1, 1);  // Cg = Kg = 4
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  t.tile_n = 16;
  t.warps_m = 4;
  t.warps_n = 1;
  t.vec = 4;
  t.groups_per_block = 4;
  t.packed = true;
  std::string why;
  EXPECT_TRUE(accepts(t, p, &why)) << why;
  auto plan = igemm::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& q = plan->params;
  EXPECT_EQ(q.n_tiles, 1);
  EXPECT_EQ(q.g_blocks, 3);  // 10 groups, the last block half empty
  EXPECT_EQ(q.kc_radix[3], 16);  // 4 groups x 4 channels
  EXPECT_EQ(q.gemm_k, 9 * 16);
  EXPECT_EQ(plan->grid, unsigned(q.m_tiles * 3));
  EXPECT_EQ(igemm::smem_bytes(t), size_t(t.stages) * (64 + 16) * 32 * 2);  // one A tile, not four

  t.groups_per_block = 8;  // 8 x 4 = 32 columns > 16
  EXPECT_FALSE(accepts(t, p, &why));
  EXPECT_NE(why.find("packed"), std::string::npos) << why;
  t.tile_n = 32;
  EXPECT_TRUE(accepts(t, p, &why)) << why;
  // vec 8 gathers A across groups: 8 x 4 and the last block's 2 x 4 channels
  // are whole vectors; the weights go in 4-element pieces, C/G = 4 of them.
  t.vec = 8;
  EXPECT_TRUE(accepts(t, p, &why)) << why;
  t.groups_per_block = 4;
  t.tile_n = 16;
  const Problem nine = conv2d(Direction::fwd, DType::bf16, 2, 36, 36, 9, 9, 9, 3, 1, 1);  // last block: 1 group
  EXPECT_FALSE(accepts(t, nine, &why));
  EXPECT_NE(why.find("vec"), std::string::npos) << why;
  const Problem two = conv2d(Direction::fwd, DType::bf16, 2, 32, 32, 16, 9, 9, 3, 1, 1);  // C/G = 2 < a piece
  EXPECT_FALSE(accepts(t, two, &why));
  EXPECT_NE(why.find("piece"), std::string::npos) << why;

  // Every direction has a packed form; one group per block is not packed.
  KernelTraits w = t;
  w.direction = Direction::bwd_weight;
  EXPECT_TRUE(igemm::traits_ok(w, &why)) << why;
  w.direction = Direction::bwd_data;
  w.groups_per_block = 1;
  EXPECT_FALSE(igemm::traits_ok(w, &why));
  w.groups_per_block = 2;
  EXPECT_TRUE(igemm::traits_ok(w, &why)) << why;
}

// Realigned kernels read the operands along an odd channel count in 16-byte
// vectors from any offset (fwd: C/G, bwd: dy's K/G): one group per block,
// 16-byte vectors; only odd counts (even ones go to the vec 2 / 4 kernels);
// bwd_data also takes a C/G off the vector with K/G on it (w narrowed).
// fwd's K counter runs over C/G rounded up to vec (bwd_data's device side
// rounds K/G the same way).
TEST(IgemmRules, RealignServesOddChannelCountsOnly) {
  KernelTraits t = traits(Direction::bwd_data, DType::bf16, 2);
  t.tile_m = t.tile_n = 64;
  t.realign = true;
  std::string why;
  EXPECT_TRUE(igemm::traits_ok(t, &why)) << why;
  const Problem odd = conv2d(Direction::bwd_data, DType::bf16, 2, 64, 45, 1, 9, 9, 3, 1, 1);
  EXPECT_TRUE(accepts(t, odd, &why)) << why;
  auto plan = igemm::make_plan(t, odd);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->params.Kg, 45);
  EXPECT_FALSE(accepts(t, conv2d(Direction::bwd_data, DType::bf16, 2, 64, 7, 1, 9, 9, 3, 1, 1), &why));  // one vector
  EXPECT_NE(why.find("more than one vector"), std::string::npos) << why;
  for (int k : {48, 46, 44}) {
    const Problem even = conv2d(Direction::bwd_data, DType::bf16, 2, 64, k, 1, 9, 9, 3, 1, 1);
    EXPECT_FALSE(accepts(t, even, &why)) << k;
    EXPECT_NE(why.find("odd"), std::string::npos) << why;
  }
  // An odd C/G (dx's channels) with K/G on the vector: the narrow-B body (w
  // in 2-byte pieces, config.cuh NarrowBConfig); not an even one (the vec 2
  // / 4 kernels), not both off, not one vector or less.
  for (int c : {45, 921}) {
    const Problem odd_c = conv2d(Direction::bwd_data, DType::bf16, 2, c, 64, 1, 9, 9, 3, 1, 1);
    EXPECT_TRUE(accepts(t, odd_c, &why)) << c << ": " << why;
  }
  EXPECT_FALSE(accepts(t, conv2d(Direction::bwd_data, DType::bf16, 2, 230, 64, 1, 9, 9, 3, 1, 1), &why));
  EXPECT_NE(why.find("odd C/G"), std::string::npos) << why;
  EXPECT_FALSE(accepts(t, conv2d(Direction::bwd_data, DType::bf16, 2, 45, 45, 1, 9, 9, 3, 1, 1), &why));
  EXPECT_NE(why.find("both not multiples"), std::string::npos) << why;
  EXPECT_FALSE(accepts(t, conv2d(Direction::bwd_data, DType::bf16, 2, 3, 64, 1, 9, 9, 3, 1, 1), &why));
  EXPECT_NE(why.find("more than one vector"), std::string::npos) << why;
  const Problem grouped = conv2d(Direction::bwd_weight, DType::bf16, 2, 32, 26, 2, 9, 9, 3, 1, 1);  // K/G 13, C/G 16
  t.direction = Direction::bwd_weight;
  EXPECT_TRUE(accepts(t, grouped, &why)) << why;

  t.direction = Direction::fwd;
  EXPECT_TRUE(igemm::traits_ok(t, &why)) << why;
  const Problem fwd_odd = conv2d(Direction::fwd, DType::bf16, 2, 45, 64, 1, 9, 9, 3, 1, 1);
  EXPECT_TRUE(accepts(t, fwd_odd, &why)) << why;
  auto fplan = igemm::make_plan(t, fwd_odd);
  ASSERT_TRUE(fplan.ok()) << fplan.status().to_string();
  EXPECT_EQ(fplan->params.kc_radix[3], 48);  // 45 rounded up to vec 8
  EXPECT_EQ(fplan->params.gemm_k, 9 * 48);
  EXPECT_FALSE(accepts(t, conv2d(Direction::fwd, DType::bf16, 2, 64, 45, 1, 9, 9, 3, 1, 1), &why));  // C/G even
  t.direction = Direction::bwd_data;
  t.vec = 4;
  EXPECT_FALSE(igemm::traits_ok(t, &why));
  EXPECT_NE(why.find("16-byte"), std::string::npos) << why;
  t.dtype = DType::fp32;  // 4 x 4 bytes
  EXPECT_TRUE(igemm::traits_ok(t, &why)) << why;
  t.groups_per_block = 2;
  EXPECT_FALSE(igemm::traits_ok(t, &why));
  EXPECT_NE(why.find("one group per block"), std::string::npos) << why;
  t.packed = true;
  EXPECT_FALSE(igemm::traits_ok(t, &why));
}

TEST(IgemmRules, WarpColumnsMustSpanWholeGroupsOrLieInsideOne) {
  const Problem p = conv2d(Direction::fwd, DType::bf16, 2, 64, 64, 8, 8, 8, 3, 1, 1);  // Kg = 8
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  t.tile_n = 96;
  t.warps_n = 3;  // 32 columns per warp
  t.warps_m = 1;
  t.groups_per_block = 2;  // 48 columns per group: neither divides the other
  std::string why;
  EXPECT_FALSE(igemm::traits_ok(t, &why));
  EXPECT_NE(why.find("warp"), std::string::npos) << why;
  t.groups_per_block = 4;  // 24 columns per group, warps of 32: still misaligned
  EXPECT_FALSE(igemm::traits_ok(t, &why));
  t.warps_n = 4;  // 24 columns per warp = one group each
  EXPECT_TRUE(igemm::traits_ok(t, &why)) << why;
}

TEST(IgemmRules, TraitsShapeRules) {
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  std::string why;
  ASSERT_TRUE(igemm::traits_ok(t, &why)) << why;
  KernelTraits u = t;
  u.tile_m = 48;  // 24 rows per warp: not a multiple of 16
  EXPECT_FALSE(igemm::traits_ok(u, &why));
  u = t;
  u.tile_k = 8;  // below the bf16 k-step (16)
  EXPECT_FALSE(igemm::traits_ok(u, &why));
  u.dtype = DType::fp32;  // the tf32 k-step is 8
  u.vec = 4;
  EXPECT_TRUE(igemm::traits_ok(u, &why)) << why;
  u = t;
  u.stages = 6;
  EXPECT_FALSE(igemm::traits_ok(u, &why));
  u = t;
  u.split_k = 4;  // split mode none
  EXPECT_FALSE(igemm::traits_ok(u, &why));
  u.split_mode = SplitKMode::serial;
  EXPECT_TRUE(igemm::traits_ok(u, &why)) << why;
  u.split_k = 1;  // a split mode without a split
  EXPECT_FALSE(igemm::traits_ok(u, &why));
  u = t;
  u.tile_m = u.tile_n = 256;
  u.tile_k = 64;
  u.stages = 5;  // 5 * (256 + 256) * 64 * 2 B = 320 KiB
  EXPECT_FALSE(igemm::traits_ok(u, &why));
  EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
  EXPECT_EQ(igemm::smem_bytes(u), size_t(5) * 512 * 64 * 2);
  // 3 warps (96 threads) cannot share 64 K slots (tile_k 64, vec 1).
  u = t;
  u.warps_m = 3;
  u.warps_n = 1;
  u.tile_m = 48;
  u.tile_k = 64;
  u.vec = 1;
  EXPECT_FALSE(igemm::traits_ok(u, &why));
  u.vec = 2;  // 32 slots: 96 threads cover them three times
  EXPECT_TRUE(igemm::traits_ok(u, &why)) << why;
}

TEST(IgemmRules, InstanceMustMatchTheProblem) {
  const Problem p = conv2d(Direction::fwd, DType::bf16, 2, 64, 64, 1, 8, 8, 3, 1, 1);
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  EXPECT_TRUE(accepts(t, p));
  t.direction = Direction::bwd_data;
  EXPECT_FALSE(accepts(t, p));
  t = traits(Direction::fwd, DType::fp16, 2);
  EXPECT_FALSE(accepts(t, p));
  t = traits(Direction::fwd, DType::bf16, 3);
  EXPECT_FALSE(accepts(t, p));
  t = traits(Direction::fwd, DType::bf16, 2);
  t.family = Family::direct;
  EXPECT_FALSE(accepts(t, p));
}

TEST(IgemmRules, WorkspaceIsExactlyTheSplitSlicesOfTheOutput) {
  // Output elements: fwd y = N*Ho*Wo*K, bwd_data dx = N*H*W*C, bwd_weight dw = K*F*Cg.
  const Problem f = conv2d(Direction::fwd, DType::bf16, 2, 64, 32, 4, 10, 12, 3, 2, 1);  // out 5 x 6
  const Problem d = conv2d(Direction::bwd_data, DType::bf16, 2, 64, 32, 4, 10, 12, 3, 2, 1);
  const Problem w = conv2d(Direction::bwd_weight, DType::bf16, 2, 64, 32, 4, 10, 12, 3, 2, 1);
  ASSERT_EQ(f.out(1), 5);
  ASSERT_EQ(f.out(2), 6);
  const size_t ey = 2 * 5 * 6 * 32, ex = 2 * 10 * 12 * 64, ew = 32 * 9 * 16;
  for (auto [p, e] : {std::pair{f, ey}, std::pair{d, ex}, std::pair{w, ew}}) {
    KernelTraits t = traits(p.direction, p.dtype, 2);
    EXPECT_EQ(igemm_family().workspace_bytes(t, p), 0u);
    // Parallel: split_k slices, rounded up to 256 bytes, then the fixup's
    // three 8-byte words per output tile (the one-launch path of tiles whose
    // slices total at most 16 KB, kernels/fixup.hpp slices_fixup; the
    // reduce kernel beyond).
    t.split_mode = SplitKMode::parallel;
    t.split_k = 5;
    Result<igemm::LaunchPlan> pplan = igemm::make_plan(t, p);
    ASSERT_TRUE(pplan.ok()) << pplan.status().to_string();
    const size_t slices = (5 * e * sizeof(float) + 255) / 256 * 256;
    const size_t ptiles = pplan->grid / t.split_k;
    EXPECT_EQ(igemm_family().workspace_bytes(t, p), slices + ptiles * 24);
    EXPECT_EQ(pplan->fixup_offset, slices);
    const bool small = 5 * t.tile_m * t.tile_n * 4 <= 16 * 1024;
    EXPECT_EQ(pplan->params.fixup, small ? 1 : 0);
    EXPECT_EQ(pplan->reduce, !small) << "5 slices of a " << t.tile_m << "x" << t.tile_n << " tile";
    // Serial: one slice, rounded up to 256 bytes, then three 8-byte words
    // per output tile for the one-launch fixup (kernels/fixup.hpp): no memset
    // and no reduce launch.
    t.split_mode = SplitKMode::serial;
    Result<igemm::LaunchPlan> plan = igemm::make_plan(t, p);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    const int64_t out_tiles = plan->grid / t.split_k;
    const size_t slice = (e * sizeof(float) + 255) / 256 * 256;
    EXPECT_EQ(igemm_family().workspace_bytes(t, p), slice + size_t(out_tiles) * 24);
    EXPECT_EQ(plan->workspace, slice + size_t(out_tiles) * 24);
    EXPECT_EQ(plan->fixup_offset, slice);
    EXPECT_EQ(plan->params.fixup, 1);
    EXPECT_FALSE(plan->zero_workspace);
    EXPECT_FALSE(plan->reduce);
    EXPECT_EQ(size_t(plan->params.out_elems), e);
  }
}

TEST(IgemmRules, EntryPointsAndSourceFollowTheSplitMode) {
  KernelTraits t = traits(Direction::bwd_weight, DType::fp16, 3);
  EXPECT_EQ(igemm_family().entry_points(t), (std::vector<std::string>{"gconv_main"}));
  std::string src = igemm_family().instance_source(t);
  EXPECT_NE(src.find("#include \"igemm/igemm.cuh\""), std::string::npos);
  EXPECT_NE(src.find("IgemmConfig<2, 1, 3, 64, 64, 32, 2, 2, 3, 0, 8, 1>"), std::string::npos) << src;
  EXPECT_NE(src.find("__launch_bounds__(128, Cfg::kMinBlocks) gconv_main"), std::string::npos) << src;
  EXPECT_EQ(src.find("gconv_reduce"), std::string::npos);
  t.split_mode = SplitKMode::parallel;
  t.split_k = 4;
  EXPECT_EQ(igemm_family().entry_points(t), (std::vector<std::string>{"gconv_main", "gconv_reduce"}));
  src = igemm_family().instance_source(t);
  EXPECT_NE(src.find("IgemmConfig<2, 1, 3, 64, 64, 32, 2, 2, 3, 1, 8, 1>"), std::string::npos) << src;
  EXPECT_NE(src.find("gconv_reduce"), std::string::npos);
}

TEST(IgemmPlan, FwdGridAndKCounter) {
  // Cg = 3, 3x3 filter, tile_k 32 = 10 taps + 2 channels = (3, 1) taps in (y, x) radix + 2.
  const Problem p = conv2d(Direction::fwd, DType::bf16, 2, 3, 40, 1, 15, 14, 3, 1, 1);
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  t.vec = 1;
  t.tile_n = 32;
  Result<igemm::LaunchPlan> plan = igemm::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& q = plan->params;
  EXPECT_EQ(q.gemm_m, 2 * 15 * 14);
  EXPECT_EQ(q.gemm_n, 40);
  EXPECT_EQ(q.gemm_k, 27);
  EXPECT_EQ(q.m_tiles, (2 * 15 * 14 + 63) / 64);
  EXPECT_EQ(q.n_tiles, 2);
  EXPECT_EQ(q.phases, 1);
  EXPECT_EQ(plan->grid, unsigned(q.m_tiles * q.n_tiles));
  EXPECT_EQ(q.kc_radix[2], 3);
  EXPECT_EQ(q.kc_radix[3], 3);
  EXPECT_EQ(q.kc_inc[1], 3);
  EXPECT_EQ(q.kc_inc[2], 1);
  EXPECT_EQ(q.kc_inc[3], 2);
  EXPECT_EQ(plan->threads, 128);
  EXPECT_EQ(plan->smem, size_t(3) * (64 + 32) * 32 * 2);
  EXPECT_FALSE(plan->reduce);
  EXPECT_EQ(plan->workspace, 0u);
}

TEST(IgemmPlan, BwdDataGridCoversEveryStridePhase) {
  // Stride 2x3: 6 phases; the largest has ceil(9/2) * ceil(8/3) = 5 * 3 positions per image.
  Problem p = conv2d(Direction::bwd_data, DType::bf16, 3, 16, 32, 2, 9, 8, 3, 2, 1);
  p.stride = {1, 2, 3};
  KernelTraits t = traits(Direction::bwd_data, DType::bf16, 2);
  t.tile_m = 32;
  t.tile_n = 16;
  t.warps_n = 1;
  t.groups_per_block = 2;
  std::string why;
  ASSERT_TRUE(accepts(t, p, &why)) << why;
  Result<igemm::LaunchPlan> plan = igemm::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& q = plan->params;
  EXPECT_EQ(q.phases, 6);
  EXPECT_EQ(q.m_tiles, (3 * 5 * 3 + 31) / 32);
  EXPECT_EQ(q.g_blocks, 1);
  EXPECT_EQ(q.n_tiles, 1);
  EXPECT_EQ(plan->grid, unsigned(6 * q.m_tiles));
}

// The block order's divisions by multiply and shift (fast_div) against
// integer division: every divisor shape (1, powers of two, odd, the largest
// int) with the dividends around each multiple and at the top of the range;
// then a plan's whole grid decomposed both ways.
TEST(IgemmPlan, FastDivisionOfTheBlockOrderIsExact) {
  std::vector<int> divisors = {1, 2, 3, 5, 6, 7, 31, 32, 33, 100, 127, 1000, 4095, 4096, 65537, 1 << 30,
                               (1 << 30) + 1, 2147483647};
  for (int d = 1; d < 300; ++d) divisors.push_back(d);
  uint64_t seed = 12345;
  const auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((seed >> 33) & 0x7FFFFFFF);
  };
  for (int d : divisors) {
    igemm::IgemmParams q{};
    q.n_tiles = d;
    q.g_blocks = q.phases = q.m_tiles = 1;
    igemm::set_fast_div(q);
    std::vector<int64_t> ns = {0, 1, 2147483647, 2147483646};
    for (int64_t k : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{1000}, 2147483647 / int64_t{d}}) {
      for (int64_t e = -1; e <= 1; ++e) {
        const int64_t n = k * d + e;
        if (n >= 0 && n <= 2147483647) ns.push_back(n);
      }
    }
    for (int i = 0; i < 200; ++i) ns.push_back(next());
    for (int64_t n : ns) {
      ASSERT_EQ(igemm::fast_div(static_cast<int>(n), q.div_mul[0], q.div_shift[0]), n / d)
          << n << " / " << d << " (mul " << q.div_mul[0] << ", shift " << q.div_shift[0] << ")";
    }
  }
  // A bwd_data plan with several phases, groups and M tiles: each block's
  // (nt, gb, phase, mt, split) by the plan's multipliers equals the division.
  Problem p = conv2d(Direction::bwd_data, DType::bf16, 3, 64, 96, 4, 23, 19, 3, 2, 1);
  p.stride = {1, 2, 3};
  KernelTraits t = traits(Direction::bwd_data, DType::bf16, 2);
  t.tile_m = 32;
  t.tile_n = 16;
  t.warps_n = 1;
  std::string why;
  ASSERT_TRUE(accepts(t, p, &why)) << why;
  Result<igemm::LaunchPlan> plan = igemm::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& q = plan->params;
  ASSERT_GT(q.phases, 1);
  ASSERT_GT(q.g_blocks, 1);
  ASSERT_GT(q.m_tiles, 1);
  const int sizes[4] = {q.n_tiles, q.g_blocks, q.phases, q.m_tiles};
  for (int bid = 0; bid < static_cast<int>(plan->grid); ++bid) {
    int fast = bid, slow = bid;
    for (int i = 0; i < 4; ++i) {
      const int qf = igemm::fast_div(fast, q.div_mul[i], q.div_shift[i]);
      ASSERT_EQ(fast - qf * sizes[i], slow % sizes[i]) << "block " << bid << ", divisor " << i;
      fast = qf;
      slow /= sizes[i];
    }
    ASSERT_EQ(fast, slow) << "block " << bid;
  }
}

TEST(IgemmPlan, BwdWeightCountsBatchAndOutputPositions) {
  const Problem p = conv2d(Direction::bwd_weight, DType::bf16, 4, 32, 64, 1, 10, 9, 3, 1, 1);  // out 10 x 9
  KernelTraits t = traits(Direction::bwd_weight, DType::bf16, 2);
  t.split_mode = SplitKMode::parallel;
  t.split_k = 3;
  Result<igemm::LaunchPlan> plan = igemm::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& q = plan->params;
  EXPECT_EQ(q.gemm_m, 64);
  EXPECT_EQ(q.gemm_n, 9 * 32);
  EXPECT_EQ(q.gemm_k, 4 * 90);
  // Digits (n, oh, ow) in slots 1..3; 32 = 3 rows of 9 + 5.
  EXPECT_EQ(q.kc_radix[2], 10);
  EXPECT_EQ(q.kc_radix[3], 9);
  EXPECT_EQ(q.kc_inc[1], 0);
  EXPECT_EQ(q.kc_inc[2], 3);
  EXPECT_EQ(q.kc_inc[3], 5);
  EXPECT_EQ(plan->grid, unsigned(1 * 5 * 3));  // m tiles x n tiles x splits
}

TEST(IgemmFamily, FamilyOfDispatchesOnTheTraits) {
  KernelTraits t = traits(Direction::fwd, DType::bf16, 2);
  EXPECT_EQ(&family_of(t), &igemm_family());
  EXPECT_EQ(family_of(t).family(), Family::igemm);
}

}  // namespace
}  // namespace gconv
