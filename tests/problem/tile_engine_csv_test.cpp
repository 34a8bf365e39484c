// Problem files in tile_engine's column layout (include/gconv/problem_file.hpp):
// its names map onto gconv's columns and give the same problems as gconv's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gconv/problem_file.hpp"

namespace gconv {
namespace {

using ::testing::HasSubstr;

Problem spec(const char* s) {
  auto p = Problem::parse_spec(s);
  EXPECT_TRUE(p.ok()) << s;
  return p.ok() ? *p : Problem{};
}

// Its sweep CSV (2D), with a failed launch row ("N/A") and extra columns.
TEST(TileEngineCsv, SweepColumns2d) {
  const std::string text =
      "kernel,problem_idx,N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,latency_ms,tflops,non_zero\n"
      "k_128x128,0,16,256,128,1,28,28,3,3,1,1,1,1,0.0412,85.1,1\n"
      "k_64x64,1,1,64,64,64,56,56,3,3,2,2,1,1,N/A,0,0\n"
      "k_64x64,2,8,96,192,4,17,33,1,7,1,1,0,3,0.1,1.0,1\n";
  auto r = parse_problem_text(text, "sweep_forward_2d.csv");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].problem, spec("fwd_bf16_n16c256k128g1_h28w28_y3x3_s1_p1_dil1"));
  EXPECT_EQ((*r)[1].problem, spec("fwd_bf16_n1c64k64g64_h56w56_y3x3_s2_p1_dil1"));
  EXPECT_EQ((*r)[2].problem, spec("fwd_bf16_n8c96k192g4_h17w33_y1x7_s1_p0,3_dil1"));
  EXPECT_EQ((*r)[2].line, 4);
}

// 3D with Di / Z / pad_d, dilation_* columns, and a sniffed (not .csv) name.
TEST(TileEngineCsv, ThreeDimensionalWithDilation) {
  const std::string text =
      "N,C,K,G,Di,Hi,Wi,Z,Y,X,stride_d,stride_h,stride_w,pad_d,pad_h,pad_w,dilation_d,dilation_h,dilation_w\n"
      "2,32,64,1,8,28,28,3,3,3,1,2,2,2,2,2,2,2,2\n";
  auto r = parse_problem_text(text, "bwd_3d_problems");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 1u);
  const Problem& p = (*r)[0].problem;
  EXPECT_EQ(p.ndim, 3);
  EXPECT_EQ(p, spec("fwd_bf16_n2c32k64g1_d8h28w28_z3y3x3_s1,2,2_p2_dil2"));
}

// A direction column (gconv's own) next to tile_engine's names.
TEST(TileEngineCsv, MixesWithGconvColumns) {
  auto r = parse_problem_text("direction,dtype,N,C,K,G,Hi,Wi,Y,X,pad_h,pad_w\nbwd_weight,fp16,4,8,8,1,9,9,3,3,1,1\n",
                              "x.csv");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ((*r)[0].problem, spec("bwd_weight_fp16_n4c8k8g1_h9w9_y3x3_s1_p1_dil1"));
}

// Two names for one column are refused, naming both (not one silently lost).
TEST(TileEngineCsv, TwoNamesForOneColumnAreAnError) {
  auto a = parse_problem_text("c,k,hi,h,w\n8,8,4,4,4\n", "a.csv");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::parse_error);
  EXPECT_THAT(a.status().message(), HasSubstr("'hi' and 'h' both give 'h'"));
  auto b = parse_problem_text("c,k,h,w,pad_h_lo,pad_h\n8,8,4,4,1,1\n", "b.csv");
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("'pad_h_lo' and 'pad_h' both give 'pad_h_lo'"));
  auto c = parse_problem_text("c,k,Hi,HI,w\n8,8,4,4,4\n", "c.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("duplicate column 'h'"));
}

// A missing size column is still named (by gconv's name).
TEST(TileEngineCsv, MissingSizeIsNamed) {
  auto r = parse_problem_text("N,C,K,G,Y,X\n1,8,8,1,3,3\n", "m.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("missing column 'h'"));
}

// Written by gconv and read back through the aliases: the same problems.
TEST(TileEngineCsv, SameProblemsAsGconvLayout) {
  const char* specs[] = {"fwd_bf16_n3c12k24g3_h10w7_y3x1_s2,1_p1,0_dil1,1",
                         "fwd_bf16_n1c5k10g5_h64w64_y5x5_s1_p4_dil2"};
  std::string tile = "N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,dilation_h,dilation_w\n";
  for (const char* s : specs) {
    const Problem p = spec(s);
    tile += std::to_string(p.n) + "," + std::to_string(p.c) + "," + std::to_string(p.k) + "," +
            std::to_string(p.g) + "," + std::to_string(p.in[1]) + "," + std::to_string(p.in[2]) + "," +
            std::to_string(p.filter[1]) + "," + std::to_string(p.filter[2]) + "," + std::to_string(p.stride[1]) +
            "," + std::to_string(p.stride[2]) + "," + std::to_string(p.pad_lo[1]) + "," +
            std::to_string(p.pad_lo[2]) + "," + std::to_string(p.dilation[1]) + "," +
            std::to_string(p.dilation[2]) + "\n";
  }
  auto r = parse_problem_text(tile, "t.csv");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ((*r)[i].problem.to_spec(), spec(specs[i]).to_spec());
}

}  // namespace
}  // namespace gconv
