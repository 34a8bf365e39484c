// The tinyc family (tensor-core bwd_data for dx of at most 8 channels, 2D
// and 3D, any K): names, rules, the halo geometry and the depth taps the
// kernel walks (mirrored here and checked against the definition of
// bwd_data), plan numbers worked out by hand, and NVRTC compiles of every
// pool kernel for sm_90a without spills.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "compile_test_util.hpp"
#include "kernels/family.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"
#include "kernels/traits.hpp"
#include "pool/arch_rules.hpp"
#include "pool/pool.hpp"

namespace gconv {
namespace {

KernelTraits tinyc_kernel(int bh, int bw, int warps, DType dt = DType::bf16, int ndim = 2) {
  KernelTraits t;
  t.family = Family::tinyc;
  t.direction = Direction::bwd_data;
  t.dtype = dt;
  t.ndim = ndim;
  t.block_h = bh;
  t.block_w = bw;
  t.warps_m = warps;
  return t;
}

Problem problem(const std::string& spec) {
  auto p = Problem::parse_spec(spec);
  EXPECT_TRUE(p.ok()) << spec;
  return *p;
}

TEST(Tinyc, NameRoundTripsAndThreads) {
  const KernelTraits t = tinyc_kernel(16, 64, 8);
  EXPECT_EQ(kernel_name(t), "tinyc_bwd_data_bf16_2d_t16x64_w8");
  auto back = parse_kernel_name(kernel_name(t));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(*back == t);
  EXPECT_EQ(t.threads(), 256);
  std::string why;
  EXPECT_TRUE(tinyc::traits_ok(t, &why)) << why;
  // Task pairs a warp keeps in registers: 2 or 16 are refused.
  EXPECT_FALSE(tinyc::traits_ok(tinyc_kernel(8, 64, 8), &why));
  EXPECT_NE(why.find("task pairs per warp"), std::string::npos) << why;
  EXPECT_FALSE(tinyc::traits_ok(tinyc_kernel(32, 64, 4), &why));
  // 3D: the same grammar with 3d_.
  const KernelTraits t3 = tinyc_kernel(8, 128, 8, DType::fp16, 3);
  EXPECT_EQ(kernel_name(t3), "tinyc_bwd_data_fp16_3d_t8x128_w8");
  auto back3 = parse_kernel_name(kernel_name(t3));
  ASSERT_TRUE(back3.ok()) << back3.status().to_string();
  EXPECT_TRUE(*back3 == t3);
  EXPECT_TRUE(tinyc::traits_ok(t3, &why)) << why;
  EXPECT_FALSE(tinyc::traits_ok(tinyc_kernel(8, 128, 8, DType::bf16, 1), &why));
  EXPECT_NE(why.find("2D or 3D"), std::string::npos) << why;
  // vec stays at its default: the name cannot carry another.
  KernelTraits v4 = t3;
  v4.vec = 4;
  EXPECT_FALSE(tinyc::traits_ok(v4, &why));
  EXPECT_NE(why.find("vec"), std::string::npos) << why;
}

TEST(Tinyc, ImplementsStemsAndRefusesTheRestWithAReason) {
  std::string why;
  // ResNet / MobileNet / ShuffleNet / ConvNeXt stems.
  for (const char* spec : {"bwd_data_bf16_n32c3k64g1_h224w224_y7x7_s2_p3_dil1",
                           "bwd_data_bf16_n32c3k32g1_h224w224_y3x3_s2_p1_dil1",
                           "bwd_data_bf16_n32c3k24g1_h224w224_y3x3_s2_p1_dil1",
                           "bwd_data_bf16_n32c3k96g1_h224w224_y4x4_s4_p0_dil1"}) {
    const Problem p = problem(spec);
    const bool any = tinyc::can_implement(tinyc_kernel(16, 64, 8), p, &why) ||
                     tinyc::can_implement(tinyc_kernel(8, 128, 8), p, &why);
    EXPECT_TRUE(any) << spec << ": " << why;
  }
  // Any K: 12, 45 and 13 (not multiples of 8) as well as 64.
  for (const char* spec : {"bwd_data_bf16_n8c3k12g1_h56w56_y3x3_s1_p1_dil1", "bwd_data_fp16_n1c3k45g1_h56w64_y7x7_s2_p3_dil1",
                           "bwd_data_bf16_n1c3k13g1_h19w37_y7x7_s2_p3_dil1"})
    EXPECT_TRUE(tinyc::can_implement(tinyc_kernel(16, 64, 8, problem(spec).dtype), problem(spec), &why))
        << spec << ": " << why;
  // The video stems (r3d_18, r2plus1d_18 with K = 45), by the 3D kernels of
  // the pool's 8-warp group.
  for (const char* spec : {"bwd_data_bf16_n4c3k64g1_d16h112w112_z3y7x7_s1,2,2_p1,3,3_dil1",
                           "bwd_data_bf16_n4c3k45g1_d16h112w112_z1y7x7_s1,2,2_p0,3,3_dil1"})
    for (const KernelTraits& k3 : {tinyc_kernel(16, 64, 8, DType::bf16, 3), tinyc_kernel(8, 128, 8, DType::bf16, 3)})
      EXPECT_TRUE(tinyc::can_implement(k3, problem(spec), &why)) << kernel_name(k3) << " on " << spec << ": " << why;
  const KernelTraits t = tinyc_kernel(16, 64, 8);
  const KernelTraits t3 = tinyc_kernel(16, 64, 8, DType::bf16, 3);
  const std::tuple<const KernelTraits*, const char*, const char*> refused[] = {
      {&t, "bwd_data_bf16_n8c16k64g1_h56w56_y3x3_s1_p1_dil1", "C = 16"},
      {&t, "bwd_data_bf16_n8c4k64g2_h56w56_y3x3_s1_p1_dil1", "one group"},
      {&t, "bwd_data_bf16_n8c3k64g1_h56w56_y3x3_s3_p1_dil1", "stride"},
      {&t, "fwd_bf16_n8c3k64g1_h56w56_y3x3_s1_p1_dil1", "direction"},
      {&t, "bwd_data_fp32_n8c3k64g1_h56w56_y3x3_s1_p1_dil1", "dtype"},
      {&t, "bwd_data_bf16_n4c3k64g1_d16h112w112_z3y7x7_s1,2,2_p1,3,3_dil1", "ndim"},
      {&t3, "bwd_data_bf16_n32c3k64g1_h224w224_y7x7_s2_p3_dil1", "ndim"},
      {&t3, "bwd_data_bf16_n4c16k64g1_d16h112w112_z3y7x7_s1,2,2_p1,3,3_dil1", "C = 16"},
      {&t3, "bwd_data_bf16_n4c4k64g2_d8h56w56_z3y3x3_s1_p1_dil1", "one group"},
      {&t3, "bwd_data_bf16_n2c3k64g1_d8h57w57_z3y3x3_s1,3,3_p1_dil1", "stride"},
      {&t3, "bwd_weight_bf16_n4c3k64g1_d16h112w112_z3y7x7_s1,2,2_p1,3,3_dil1", "direction"},
  };
  for (const auto& [kernel, spec, reason] : refused) {
    EXPECT_FALSE(tinyc::can_implement(*kernel, problem(spec), &why)) << spec;
    EXPECT_NE(why.find(reason), std::string::npos) << spec << ": " << why;
  }
  EXPECT_EQ(family_of(t).workspace_bytes(t, problem("bwd_data_bf16_n32c3k64g1_h224w224_y7x7_s2_p3_dil1")), 0u);
  EXPECT_EQ(family_of(t).entry_points(t), std::vector<std::string>{"gconv_main"});
}

// The kernel's walk (tinyc.cuh), mirrored: every dx pixel of a tile is one
// lane row of one task of one item, and for each of its phase's taps reads
// the halo at (pixel row + qy, pixel col + qx). That must be the dy pixel
// the definition names, inside the halo, and every (pixel, valid tap) pair
// must be visited exactly once.
void check_walk(const KernelTraits& t, const Problem& p) {
  std::string why;
  ASSERT_TRUE(tinyc::can_implement(t, p, &why)) << why;
  const tinyc::Plan plan = tinyc::make_plan(t, p);
  const tinyc::TinycParams& q = plan.params;
  const int TH = t.block_h, TW = t.block_w, NW = t.warps_m;
  // One block per (image, dx depth slice, tile); the tiles cover H x W.
  EXPECT_EQ(plan.blocks, p.n * p.in[0] * q.tiles_h * q.tiles_w);
  EXPECT_GE(q.tiles_h * TH, q.h);
  EXPECT_LT((q.tiles_h - 1) * TH, q.h);
  EXPECT_GE(q.tiles_w * TW, q.w_);
  EXPECT_LT((q.tiles_w - 1) * TW, q.w_);
  const int tasks = TH * TW / 16, items = tasks / tinyc::kTpw, ipw = items / NW;
  const int pj = TW / q.sw, phase_tasks = (TH / q.sh) * pj / 16;
  for (int ty = 0; ty < q.tiles_h; ++ty)
    for (int tx = 0; tx < q.tiles_w; ++tx) {
      const int h0 = ty * TH, w0 = tx * TW, r0 = h0 / q.sh + q.q0y, c0 = w0 / q.sw + q.q0x;
      std::map<std::tuple<int, int, int>, int> visits;  // (h, w, tap) -> count
      for (int warp = 0; warp < NW; ++warp)
        for (int it = 0; it < ipw; ++it) {
          const int item = warp + NW * it;
          const int phase = item * tinyc::kTpw / phase_tasks;
          const int task0 = item * tinyc::kTpw - phase * phase_tasks;
          ASSERT_LT(phase, q.sh * q.sw);
          const int py = phase / q.sw, px = phase % q.sw;
          for (int tk = 0; tk < tinyc::kTpw; ++tk)
            for (int row = 0; row < 16; ++row) {
              const int pix = (task0 + tk) * 16 + row;
              const int pi = pix / pj, pc = pix % pj;
              const int h = h0 + py + q.sh * pi, w = w0 + px + q.sw * pc;
              for (int fy = 0; fy < q.fh; ++fy) {
                const int ay = py + q.ph - fy * q.dh;
                if (ay % q.sh != 0) continue;
                for (int fx = 0; fx < q.fw; ++fx) {
                  const int ax = px + q.pw - fx * q.dw;
                  if (ax % q.sw != 0) continue;
                  const int hr = pi + ay / q.sh - q.q0y, hc = pc + ax / q.sw - q.q0x;
                  ASSERT_GE(hr, 0);
                  ASSERT_LT(hr, q.halo_h);
                  ASSERT_GE(hc, 0);
                  ASSERT_LT(hc, q.halo_w);
                  // The definition: dy row (h + pad - fy * dil) / stride.
                  ASSERT_EQ((h + q.ph - fy * q.dh) % q.sh, 0);
                  ASSERT_EQ(r0 + hr, (h + q.ph - fy * q.dh) / q.sh);
                  ASSERT_EQ(c0 + hc, (w + q.pw - fx * q.dw) / q.sw);
                  ++visits[{h, w, fy * q.fw + fx}];
                }
              }
            }
        }
      // Every pixel of the tile and each of its valid taps exactly once.
      for (int h = h0; h < h0 + TH; ++h)
        for (int w = w0; w < w0 + TW; ++w)
          for (int fy = 0; fy < q.fh; ++fy)
            for (int fx = 0; fx < q.fw; ++fx) {
              const bool valid = (h + q.ph - fy * q.dh) % q.sh == 0 && (w + q.pw - fx * q.dw) % q.sw == 0;
              const auto v = visits.find({h, w, fy * q.fw + fx});
              ASSERT_EQ(v == visits.end() ? 0 : v->second, valid ? 1 : 0) << h << "," << w << " tap " << fy << "," << fx;
            }
    }
}

// The kernel's depth loop (tinyc.cuh), mirrored: dx slice z takes the depth
// taps fz whose dy slice zo = (z + pd - fz * dd) / sd is a whole number
// inside dy. Those must be exactly the (fz, zo) of the definition (dy slice
// zo, tap fz reads dx slice zo * sd - pd + fz * dd), and every (fz, zo)
// whose dx slice exists must be taken by that slice once.
void check_depth(const KernelTraits& t, const Problem& p) {
  const tinyc::TinycParams& q = tinyc::make_plan(t, p).params;
  ASSERT_EQ(q.d, p.in[0]);
  ASSERT_EQ(q.od, p.out(0));
  std::map<std::pair<int, int>, int> taken;  // (fz, zo) -> count
  for (int z = 0; z < q.d; ++z) {
    std::set<std::pair<int, int>> kernel, definition;
    for (int fz = 0; fz < q.fd; ++fz) {
      const int az = z + q.pd - fz * q.dd;
      if (az < 0 || az % q.sd != 0) continue;
      const int zo = az / q.sd;
      if (zo >= q.od) continue;
      kernel.insert({fz, zo});
      ++taken[{fz, zo}];
    }
    for (int zo = 0; zo < q.od; ++zo)
      for (int fz = 0; fz < q.fd; ++fz)
        if (zo * q.sd - q.pd + fz * q.dd == z) definition.insert({fz, zo});
    EXPECT_EQ(kernel, definition) << p.to_spec() << " dx slice " << z;
  }
  for (int zo = 0; zo < q.od; ++zo)
    for (int fz = 0; fz < q.fd; ++fz) {
      const int z = zo * q.sd - q.pd + fz * q.dd;
      const auto it = taken.find({fz, zo});
      EXPECT_EQ(it == taken.end() ? 0 : it->second, z >= 0 && z < q.d ? 1 : 0) << p.to_spec() << " " << fz << "," << zo;
    }
}

TEST(Tinyc, TheKernelsWalkVisitsEveryTapOfEveryPixelOnceInsideTheHalo) {
  check_walk(tinyc_kernel(16, 64, 8), problem("bwd_data_bf16_n1c3k64g1_h40w70_y7x7_s2_p3_dil1"));
  check_walk(tinyc_kernel(8, 128, 4), problem("bwd_data_bf16_n1c3k96g1_h20w130_y4x4_s4_p0_dil1"));
  check_walk(tinyc_kernel(16, 32, 4), problem("bwd_data_bf16_n1c3k32g1_h33w35_y3x3_s2_p1_dil1"));
  check_walk(tinyc_kernel(8, 64, 4), problem("bwd_data_bf16_n1c4k16g1_h17w40_y5x3_s1_p2,1_dil2"));
  check_walk(tinyc_kernel(16, 64, 4), problem("bwd_data_bf16_n1c2k8g1_h40w64_y3x7_s2,1_p0,5_dil1,2"));
  check_walk(tinyc_kernel(16, 64, 8), problem("bwd_data_bf16_n1c3k13g1_h19w37_y7x7_s2_p3_dil1"));
}

TEST(Tinyc, TheDepthLoopTakesEveryDepthTapOfEverySliceOnce) {
  // 2D: one slice, one tap.
  check_depth(tinyc_kernel(16, 64, 8), problem("bwd_data_bf16_n1c3k64g1_h40w70_y7x7_s2_p3_dil1"));
  // The video stems; depth stride 2 with dilation 2 and asymmetric padding
  // (dx slices no tap reaches: written as zeros); a depth stride of 3 past
  // the filter, which skips slices; padding wider than the filter.
  for (const char* spec : {"bwd_data_bf16_n2c3k64g1_d5h30w70_z3y7x7_s1,2,2_p1,3,3_dil1",
                           "bwd_data_bf16_n2c3k45g1_d4h17w33_z1y7x7_s1,2,2_p0,3,3_dil1",
                           "bwd_data_bf16_n1c3k16g1_d9h20w40_z3y3x3_s2,2,2_p2:1,1,1_dil2,1,1",
                           "bwd_data_bf16_n1c3k16g1_d10h16w32_z2y3x3_s3,1,1_p0_dil1",
                           "bwd_data_bf16_n1c3k16g1_d3h16w32_z3y3x3_s1_p3:1,1,1_dil1"}) {
    const KernelTraits t = tinyc_kernel(16, 64, 4, DType::bf16, 3);
    check_depth(t, problem(spec));
    check_walk(t, problem(spec));
  }
}

// Numbers worked out by hand for the r3d_18 and r2plus1d_18 stems (7x7 in
// H x W, stride 2, padding 3: dx row h0 + py + 2i reads dy row h0 / 2 + i +
// (py + 3 - fy) / 2 for the fy that make the numerator even: offsets 1, 0,
// -1 for phase 0 (fy = 1, 3, 5) and 2, 1, 0, -1 for phase 1 (fy = 0, 2, 4,
// 6), so the halo starts 1 before the tile / 2 and is 3 longer; the weights
// of one depth plane take 49 taps x 64 k x 16 bytes).
TEST(Tinyc, PlansTheVideoStems) {
  {
    const KernelTraits t = tinyc_kernel(16, 64, 8, DType::bf16, 3);
    const tinyc::Plan plan = tinyc::make_plan(t, problem("bwd_data_bf16_n4c3k64g1_d16h112w112_z3y7x7_s1,2,2_p1,3,3_dil1"));
    const tinyc::TinycParams& q = plan.params;
    EXPECT_EQ(std::tie(q.d, q.od, q.fd, q.sd, q.pd, q.dd), std::make_tuple(16, 16, 3, 1, 1, 1));
    EXPECT_EQ(std::tie(q.ho, q.wo, q.q0y, q.q0x, q.halo_h, q.halo_w), std::make_tuple(56, 56, -1, -1, 11, 35));
    EXPECT_EQ(std::tie(q.tiles_h, q.tiles_w, q.kchunks, q.kvec), std::make_tuple(7, 2, 1, 8));
    EXPECT_EQ(plan.smem, 11u * 35 * 144 + 49u * 64 * 16);  // 105,616 bytes
    EXPECT_EQ(plan.blocks, 4 * 16 * 7 * 2);
    EXPECT_EQ(plan.threads, 256);
  }
  {
    const KernelTraits t = tinyc_kernel(8, 128, 8, DType::bf16, 3);
    const tinyc::Plan plan = tinyc::make_plan(t, problem("bwd_data_bf16_n4c3k45g1_d16h112w112_z1y7x7_s1,2,2_p0,3,3_dil1"));
    const tinyc::TinycParams& q = plan.params;
    EXPECT_EQ(std::tie(q.d, q.od, q.fd, q.sd, q.pd, q.dd), std::make_tuple(16, 16, 1, 1, 0, 1));
    EXPECT_EQ(std::tie(q.q0y, q.q0x, q.halo_h, q.halo_w), std::make_tuple(-1, -1, 7, 67));
    // K = 45: one zero-padded chunk, staged with 2-byte loads.
    EXPECT_EQ(std::tie(q.tiles_h, q.tiles_w, q.kchunks, q.kvec, q.k), std::make_tuple(14, 1, 1, 1, 45));
    EXPECT_EQ(plan.smem, 7u * 67 * 144 + 49u * 64 * 16);  // 117,712 bytes
    EXPECT_EQ(plan.blocks, 4 * 16 * 14);
  }
}

TEST(Tinyc, CopiesDyInSixteenBytesOnlyWhenKAndTheAddressAllow) {
  EXPECT_EQ(tinyc::copy_channels(64, 16), 8);
  EXPECT_EQ(tinyc::copy_channels(24, 0x7f0000001000), 8);
  EXPECT_EQ(tinyc::copy_channels(64, 0x7f0000001008), 1);  // dy 8-byte aligned only
  EXPECT_EQ(tinyc::copy_channels(45, 16), 1);
  EXPECT_EQ(tinyc::copy_channels(12, 16), 1);
  EXPECT_EQ(tinyc::copy_channels(13, 16), 1);
}

// The tinyc problems that tests/gpu/pool_correctness_test.cpp runs every
// tinyc kernel on (covering_problems; kept equal by hand): each pool kernel
// must take a K that is not a multiple of 8 (the 2-byte staging) and, in
// 3D, a problem of its ndim; the kernel's walk and depth loop are checked
// on each here.
const char* const kGpuProblems[] = {
    "n2c3k64_d5h30w70_z3y7x7_s1,2,2_p1,3,3",            // 3D stem, stride (1, 2, 2)
    "n1c3k80_d9h20w40_z3y3x3_s2,2,2_p2:1,1,1_dil2,1,1",  // depth stride 2, dilation 2, two K chunks
    "n2c3k45_d4h17w33_z1y7x7_s1,2,2_p0,3,3",            // r2plus1d-like, K = 45
    "n1c4k24_d6h17w40_z3y3x3_p1",                       // 3D stride 1
    "n1c3k13_h19w37_y7x7_s2_p3",                        // K = 13, N = 1
    "n2c3k77_h30w70_y7x7_s2_p3",                        // K = 77: two chunks, the last of 13
};

TEST(Tinyc, EveryPoolKernelTakesAnOddKOfItsNdimOnTheGpuList) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  for (DType dt : {DType::bf16, DType::fp16}) {
    auto pool = load_pool(*rules, Direction::bwd_data, dt);
    ASSERT_TRUE(pool.ok()) << pool.status().to_string();
    for (const KernelTraits& k : *pool) {
      if (k.family != Family::tinyc) continue;
      bool odd_k = false;
      for (const char* shape : kGpuProblems) {
        Problem p = problem(shape);
        p.direction = Direction::bwd_data;
        p.dtype = dt;
        ASSERT_TRUE(p.validate().ok()) << shape;
        if (!tinyc::can_implement(k, p, nullptr)) continue;
        odd_k |= p.k % 8 != 0;
        check_walk(k, p);
        check_depth(k, p);
      }
      EXPECT_TRUE(odd_k) << kernel_name(k) << " takes no problem of the GPU list with K % 8 != 0";
    }
  }
}

// Every tinyc kernel of the bf16 and fp16 pools (2D and 3D).
TEST(Tinyc, EveryPoolKernelCompilesForSm90aWithoutSpills) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  std::vector<KernelTraits> all;
  std::set<int> ndims;
  for (DType dt : {DType::bf16, DType::fp16}) {
    auto pool = load_pool(*rules, Direction::bwd_data, dt);
    ASSERT_TRUE(pool.ok()) << pool.status().to_string();
    for (const KernelTraits& k : *pool)
      if (k.family == Family::tinyc) {
        all.push_back(k);
        ndims.insert(k.ndim);
      }
  }
  EXPECT_EQ(ndims, (std::set<int>{2, 3}));
  EXPECT_GE(all.size(), 16u);
  std::vector<std::string> sources, names;
  for (const auto& t : all) {
    sources.push_back(family_of(t).instance_source(t));
    names.push_back(kernel_name(t));
    EXPECT_NE(sources.back().find(fmt::format(", {}>(p)", t.ndim)), std::string::npos) << sources.back();
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t i = 0; i < all.size(); ++i)
    testing::expect_built_without_spills(results[i], names[i], family_of(all[i]).entry_points(all[i]));
}

}  // namespace
}  // namespace gconv
