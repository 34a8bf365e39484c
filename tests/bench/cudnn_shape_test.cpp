// The pure descriptor math of the cuDNN provider: channels-last strides,
// the 1D -> 2D mapping, 3D, groups, asymmetric padding -> not_supported, and
// the algorithm names against cuDNN's enums.
#include <gtest/gtest.h>

#include <cudnn.h>

#include <map>

#include "bench/cudnn_provider.hpp"

namespace gconv::bench {
namespace {

TEST(CudnnShape, ChannelsLastStrides) {
  // Logical N, C, spatial...; memory N, spatial..., C.
  EXPECT_EQ(channels_last_strides({2, 3, 5}), (std::vector<int64_t>{15, 1, 3}));
  EXPECT_EQ(channels_last_strides({2, 3, 4, 5}), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(channels_last_strides({2, 3, 4, 5, 6}), (std::vector<int64_t>{360, 1, 90, 18, 3}));
}

// Our strides for each named dim equal Problem's own channels-last TensorDesc.
// (y's spatial dims are named Do, Ho, Wo.)
void expect_matches_desc(const TensorDesc& d, const std::vector<int>& dims, const std::vector<int>& strides,
                         const char* c_name, const char* suffix = "") {
  const int spatial = int(dims.size()) - 2;
  std::map<std::string, size_t> pos = {{"N", 0}, {c_name, 1}};
  const char* names[3] = {"D", "H", "W"};
  for (int i = 0; i < spatial; ++i) pos[std::string(names[3 - spatial + i]) + suffix] = size_t(2 + i);
  for (size_t i = 0; i < d.dims.size(); ++i) {
    ASSERT_TRUE(pos.count(d.dims[i])) << d.dims[i];
    const size_t j = pos[d.dims[i]];
    EXPECT_EQ(dims[j], d.shape[i]) << d.dims[i];
    EXPECT_EQ(strides[j], d.strides[i]) << d.dims[i];
  }
}

TEST(CudnnShape, TwoD) {
  Problem p;
  p.ndim = 2;
  p.n = 4, p.c = 64, p.k = 32, p.g = 2;
  p.in = {1, 14, 15};
  p.filter = {1, 3, 5};
  p.stride = {1, 2, 1};
  p.pad_lo = p.pad_hi = {0, 1, 2};
  p.dilation = {1, 1, 2};
  ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
  auto s = cudnn_shape(p);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->spatial, 2);
  EXPECT_EQ(s->x_dims, (std::vector<int>{4, 64, 14, 15}));
  EXPECT_EQ(s->x_strides, (std::vector<int>{14 * 15 * 64, 1, 15 * 64, 64}));
  EXPECT_EQ(s->y_dims, (std::vector<int>{4, 32, int(p.out(1)), int(p.out(2))}));
  EXPECT_EQ(s->w_dims, (std::vector<int>{32, 32, 3, 5}));  // K, C/G, Y, X
  EXPECT_EQ(s->pad, (std::vector<int>{1, 2}));
  EXPECT_EQ(s->stride, (std::vector<int>{2, 1}));
  EXPECT_EQ(s->dilation, (std::vector<int>{1, 2}));
  EXPECT_EQ(s->groups, 2);
  expect_matches_desc(p.x_desc(), s->x_dims, s->x_strides, "C");
  expect_matches_desc(p.y_desc(), s->y_dims, s->y_strides, "K", "o");
}

TEST(CudnnShape, OneDRunsAsTwoDWithHeightOne) {
  Problem p;
  p.ndim = 1;
  p.n = 3, p.c = 8, p.k = 8, p.g = 8;  // depthwise
  p.in = {1, 1, 101};
  p.filter = {1, 1, 7};
  p.stride = {1, 1, 3};
  p.pad_lo = p.pad_hi = {0, 0, 3};
  p.dilation = {1, 1, 2};
  ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
  auto s = cudnn_shape(p);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->spatial, 2);
  EXPECT_EQ(s->x_dims, (std::vector<int>{3, 8, 1, 101}));
  EXPECT_EQ(s->y_dims, (std::vector<int>{3, 8, 1, int(p.out(2))}));
  EXPECT_EQ(s->w_dims, (std::vector<int>{8, 1, 1, 7}));
  // The H dimension is the identity: size 1, no pad, stride 1, dilation 1.
  EXPECT_EQ(s->pad, (std::vector<int>{0, 3}));
  EXPECT_EQ(s->stride, (std::vector<int>{1, 3}));
  EXPECT_EQ(s->dilation, (std::vector<int>{1, 2}));
  EXPECT_EQ(s->groups, 8);
  expect_matches_desc(p.x_desc(), s->x_dims, s->x_strides, "C");
  expect_matches_desc(p.y_desc(), s->y_dims, s->y_strides, "K", "o");
}

TEST(CudnnShape, ThreeD) {
  Problem p;
  p.ndim = 3;
  p.n = 2, p.c = 16, p.k = 24, p.g = 1;
  p.in = {5, 6, 7};
  p.filter = {3, 3, 3};
  p.pad_lo = p.pad_hi = {1, 1, 1};
  ASSERT_TRUE(p.validate().ok());
  auto s = cudnn_shape(p);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->spatial, 3);
  EXPECT_EQ(s->x_dims, (std::vector<int>{2, 16, 5, 6, 7}));
  EXPECT_EQ(s->x_strides, (std::vector<int>{5 * 6 * 7 * 16, 1, 6 * 7 * 16, 7 * 16, 16}));
  EXPECT_EQ(s->y_dims, (std::vector<int>{2, 24, 5, 6, 7}));
  EXPECT_EQ(s->w_dims, (std::vector<int>{24, 16, 3, 3, 3}));
  EXPECT_EQ(s->pad.size(), 3u);
  expect_matches_desc(p.x_desc(), s->x_dims, s->x_strides, "C");
}

TEST(CudnnShape, AsymmetricPaddingIsUnsupported) {
  Problem p;
  p.ndim = 2;
  p.n = 1, p.c = 4, p.k = 4;
  p.in = {1, 8, 8};
  p.filter = {1, 2, 2};
  p.pad_lo = {0, 0, 0};
  p.pad_hi = {0, 0, 1};
  ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
  auto s = cudnn_shape(p);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::not_supported);
  EXPECT_NE(s.status().message().find("W has pad_lo 0 != pad_hi 1"), std::string::npos) << s.status().message();
}

TEST(CudnnShape, AlgoNamesFollowCudnnEnums) {
  EXPECT_EQ(cudnn_algo_name(Direction::fwd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM), "implicit_precomp_gemm");
  EXPECT_EQ(cudnn_algo_name(Direction::fwd, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED), "winograd_nonfused");
  EXPECT_EQ(cudnn_algo_name(Direction::fwd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT), "algo8");
  EXPECT_EQ(cudnn_algo_name(Direction::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1), "algo_1");
  EXPECT_EQ(cudnn_algo_name(Direction::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED),
            "winograd_nonfused");
  EXPECT_EQ(cudnn_algo_name(Direction::bwd_weight, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3), "algo_3");
  EXPECT_EQ(cudnn_algo_name(Direction::bwd_weight, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING), "fft_tiling");
  EXPECT_EQ(cudnn_algo_name(Direction::bwd_weight, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT), "algo7");
}

}  // namespace
}  // namespace gconv::bench
