// Derived quantities (output sizes, GEMM shapes, FLOPs, bytes, tensor
// layouts) against numbers computed by hand, and FLOPs against the cuDNN
// benchmark file's own gflop column.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gconv/problem.hpp"
#include "gconv/problem_file.hpp"

namespace gconv {
namespace {

Problem with_direction(Problem p, Direction d) {
  p.direction = d;
  return p;
}

void expect_gemm(const GemmShape& g, int64_t m, int64_t n, int64_t k, int64_t batch) {
  EXPECT_EQ(g.m, m);
  EXPECT_EQ(g.n, n);
  EXPECT_EQ(g.k, k);
  EXPECT_EQ(g.batch, batch);
}

// ResNet-50 layer3 3x3 conv at N=32: 256 -> 256 channels on 14x14.
TEST(Derived, ResNet50Layer3Conv3x3) {
  Problem p = *Problem::parse_spec("n32c256k256_h14w14_y3x3_s1_p1");
  ASSERT_TRUE(p.validate().ok());
  EXPECT_EQ(p.out(1), 14);
  EXPECT_EQ(p.out(2), 14);
  EXPECT_EQ(p.out(0), 1);
  // 2 * N * K * Ho*Wo * C/G * Y*X = 2 * 32 * 256 * 196 * 256 * 9
  EXPECT_DOUBLE_EQ(p.flops(), 7398752256.0);
  // fwd: M = N*Ho*Wo = 6272, N = K = 256, K = C*9 = 2304.
  expect_gemm(with_direction(p, Direction::fwd).gemm(), 6272, 256, 2304, 1);
  // bwd_data: M = N*H*W = 6272, N = C = 256, K = K*9 = 2304.
  expect_gemm(with_direction(p, Direction::bwd_data).gemm(), 6272, 256, 2304, 1);
  // bwd_weight: M = K = 256, N = C*9 = 2304, K = N*Ho*Wo = 6272.
  expect_gemm(with_direction(p, Direction::bwd_weight).gemm(), 256, 2304, 6272, 1);
  // x 32*14*14*256 + w 256*3*3*256 + y 32*14*14*256 elements, 2 bytes each.
  EXPECT_EQ(p.min_bytes(), (1605632 + 589824 + 1605632) * 2);
  EXPECT_NEAR(p.arithmetic_intensity(), 7398752256.0 / 7602176.0, 1e-9);
  EXPECT_FALSE(p.is_depthwise());
  EXPECT_FALSE(p.is_pointwise());
  EXPECT_FALSE(p.is_grouped());
  // FLOPs are the same in every direction.
  for (Direction d : {Direction::bwd_data, Direction::bwd_weight})
    EXPECT_DOUBLE_EQ(with_direction(p, d).flops(), p.flops());
}

// ResNet-50 layer2.0.conv2 (stride 2): 128 -> 128 on 56x56 -> 28x28.
TEST(Derived, ResNet50StridedConv) {
  Problem p = *Problem::parse_spec("n32c128k128_h56w56_y3x3_s2_p1");
  ASSERT_TRUE(p.validate().ok());
  EXPECT_EQ(p.out(1), 28);
  EXPECT_EQ(p.out(2), 28);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 32 * 128 * 28 * 28 * 128 * 9);
  expect_gemm(with_direction(p, Direction::fwd).gemm(), 32 * 28 * 28, 128, 1152, 1);
  // bwd_data covers every input position (unphased total).
  expect_gemm(with_direction(p, Direction::bwd_data).gemm(), 32 * 56 * 56, 128, 1152, 1);
  expect_gemm(with_direction(p, Direction::bwd_weight).gemm(), 128, 1152, 32 * 28 * 28, 1);
  const TensorDesc y = p.y_desc();
  EXPECT_EQ(y.dims, (std::vector<std::string>{"N", "Ho", "Wo", "K"}));
  EXPECT_EQ(y.shape, (std::vector<int64_t>{32, 28, 28, 128}));
  EXPECT_EQ(y.strides, (std::vector<int64_t>{28 * 28 * 128, 28 * 128, 128, 1}));
}

// ResNeXt grouped conv and a MobileNetV2 depthwise conv: per-group GEMMs.
TEST(Derived, GroupedAndDepthwise) {
  Problem rx = *Problem::parse_spec("n32c128k128g32_h56w56_y3x3_p1");
  ASSERT_TRUE(rx.validate().ok());
  EXPECT_TRUE(rx.is_grouped());
  EXPECT_FALSE(rx.is_depthwise());
  expect_gemm(rx.gemm(), 32 * 56 * 56, 4, 36, 32);
  EXPECT_DOUBLE_EQ(rx.flops(), 2.0 * 32 * 128 * 56 * 56 * 4 * 9);
  const TensorDesc w = rx.w_desc();
  EXPECT_EQ(w.shape, (std::vector<int64_t>{128, 3, 3, 4}));
  EXPECT_EQ(w.strides, (std::vector<int64_t>{36, 12, 4, 1}));

  Problem dw = *Problem::parse_spec("n32c96k96g96_h112w112_y3x3_s2_p1");
  ASSERT_TRUE(dw.validate().ok());
  EXPECT_TRUE(dw.is_depthwise());
  EXPECT_FALSE(dw.is_grouped());
  EXPECT_EQ(dw.out(1), 56);
  expect_gemm(dw.gemm(), 32 * 56 * 56, 1, 9, 96);
  // A pointwise problem: 1x1, stride 1, no padding.
  EXPECT_TRUE(Problem::parse_spec("n32c64k256_h56w56")->is_pointwise());
  EXPECT_FALSE(Problem::parse_spec("n32c64k256_h56w56_s2")->is_pointwise());
}

// 3D (r3d_18 stem) and 1D (wav2vec2 first conv) shapes and layouts.
TEST(Derived, ThreeAndOneDimensional) {
  Problem p = *Problem::parse_spec("n4c3k64_d16h112w112_z3y7x7_s1,2,2_p1,3,3");
  ASSERT_TRUE(p.validate().ok());
  EXPECT_EQ(p.out(0), 16);
  EXPECT_EQ(p.out(1), 56);
  EXPECT_EQ(p.out(2), 56);
  expect_gemm(p.gemm(), 4 * 16 * 56 * 56, 64, 3 * 147, 1);
  const TensorDesc x = p.x_desc();
  EXPECT_EQ(x.dims, (std::vector<std::string>{"N", "D", "H", "W", "C"}));
  EXPECT_EQ(x.strides, (std::vector<int64_t>{16 * 112 * 112 * 3, 112 * 112 * 3, 112 * 3, 3, 1}));

  Problem a = *Problem::parse_spec("fp16_n8c1k512_w16000_x10_s5");
  ASSERT_TRUE(a.validate().ok());
  EXPECT_EQ(a.out(2), 3199);
  expect_gemm(a.gemm(), 8 * 3199, 512, 10, 1);
  EXPECT_EQ(a.min_bytes(), (8 * 16000 + 512 * 10 + 8 * 3199 * 512) * 2);
  EXPECT_EQ(a.y_desc().dims, (std::vector<std::string>{"N", "Wo", "K"}));
}

// Every row of the cuDNN file carries gflop = 2*N*K*out_volume*(C/G)*filter_volume/1e9.
TEST(Derived, FlopsMatchTheCudnnFilesGflopColumn) {
  const std::string path = std::string(GCONV_TEST_DATA_DIR) + "/cudnn_h200_public.jsonl";
  auto entries = read_problem_file(path);
  ASSERT_TRUE(entries.ok()) << entries.status().to_string();
  std::ifstream f(path);
  std::string line;
  size_t checked = 0, idx = 0;
  while (std::getline(f, line)) {
    auto o = nlohmann::json::parse(line);
    if (o.contains("about")) continue;
    ASSERT_LT(idx, entries->size());
    const double expect = o["gflop"].get<double>() * 1e9;
    EXPECT_NEAR((*entries)[idx].problem.flops(), expect, expect * 1e-12 + 1) << line;
    ++idx;
    ++checked;
  }
  EXPECT_EQ(checked, 585u);
}

}  // namespace
}  // namespace gconv
