// The tinyc family (tensor-core bwd_data for dx of at most 8 channels):
// names, rules, the halo geometry the kernel walks (mirrored here and
// checked against the definition of bwd_data), and NVRTC compiles for
// sm_90a without spills.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compile_test_util.hpp"
#include "kernels/family.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"
#include "kernels/traits.hpp"

namespace gconv {
namespace {

KernelTraits tinyc_kernel(int bh, int bw, int warps, DType dt = DType::bf16) {
  KernelTraits t;
  t.family = Family::tinyc;
  t.direction = Direction::bwd_data;
  t.dtype = dt;
  t.ndim = 2;
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
  const KernelTraits t = tinyc_kernel(16, 64, 8);
  const std::pair<const char*, const char*> refused[] = {
      {"bwd_data_bf16_n8c16k64g1_h56w56_y3x3_s1_p1_dil1", "C = 16"},
      {"bwd_data_bf16_n8c4k64g2_h56w56_y3x3_s1_p1_dil1", "one group"},
      {"bwd_data_bf16_n8c3k12g1_h56w56_y3x3_s1_p1_dil1", "multiple of 8"},
      {"bwd_data_bf16_n8c3k64g1_h56w56_y3x3_s3_p1_dil1", "stride"},
      {"fwd_bf16_n8c3k64g1_h56w56_y3x3_s1_p1_dil1", "direction"},
  };
  for (const auto& [spec, reason] : refused) {
    EXPECT_FALSE(tinyc::can_implement(t, problem(spec), &why)) << spec;
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

TEST(Tinyc, TheKernelsWalkVisitsEveryTapOfEveryPixelOnceInsideTheHalo) {
  check_walk(tinyc_kernel(16, 64, 8), problem("bwd_data_bf16_n1c3k64g1_h40w70_y7x7_s2_p3_dil1"));
  check_walk(tinyc_kernel(8, 128, 4), problem("bwd_data_bf16_n1c3k96g1_h20w130_y4x4_s4_p0_dil1"));
  check_walk(tinyc_kernel(16, 32, 4), problem("bwd_data_bf16_n1c3k32g1_h33w35_y3x3_s2_p1_dil1"));
  check_walk(tinyc_kernel(8, 64, 4), problem("bwd_data_bf16_n1c4k16g1_h17w40_y5x3_s1_p2,1_dil2"));
  check_walk(tinyc_kernel(16, 64, 4), problem("bwd_data_bf16_n1c2k8g1_h40w64_y3x7_s2,1_p0,5_dil1,2"));
}

TEST(Tinyc, CompilesForSm90aWithoutSpills) {
  const std::vector<KernelTraits> all = {tinyc_kernel(16, 64, 8), tinyc_kernel(8, 128, 4, DType::fp16),
                                         tinyc_kernel(4, 128, 4), tinyc_kernel(16, 32, 4)};
  std::vector<std::string> sources, names;
  for (const auto& t : all) {
    sources.push_back(family_of(t).instance_source(t));
    names.push_back(kernel_name(t));
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t i = 0; i < all.size(); ++i)
    testing::expect_built_without_spills(results[i], names[i], family_of(all[i]).entry_points(all[i]));
}

}  // namespace
}  // namespace gconv
