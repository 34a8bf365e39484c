// The cuDNN graph provider on the host: the backend shape of a problem (dims,
// channels-last strides against Problem's own TensorDescs, pre/post pads),
// engine names, config dedupe, the engine filter, pointer alignment, the
// failure rows, and, where libcudnn is installed, that cuDNN itself accepts
// and finalizes the tensor, convolution and operation descriptors of every
// direction (host-side: no device needed) and that a machine without a GPU
// gets a Status from the graph path.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cudnn.h>

#include <map>

#include "bench/cudnn_graph.hpp"
#include "bench/cudnn_graph_conv.hpp"

namespace gconv::bench {
namespace {

// Each named dim of `d` has the size and stride of the same dim in cuDNN's
// logical order (N/K first, C or C/G second, spatial after).
void expect_matches(const TensorDesc& d, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                    const std::vector<std::string>& logical_names) {
  std::map<std::string, size_t> pos;
  for (size_t i = 0; i < logical_names.size(); ++i) pos[logical_names[i]] = i;
  for (size_t i = 0; i < d.dims.size(); ++i) {
    ASSERT_TRUE(pos.count(d.dims[i])) << d.dims[i];
    const size_t j = pos[d.dims[i]];
    EXPECT_EQ(dims[j], d.shape[i]) << d.dims[i];
    EXPECT_EQ(strides[j], d.strides[i]) << d.dims[i];
  }
}

Problem grouped_asymmetric_2d() {
  Problem p;
  p.ndim = 2;
  p.n = 4, p.c = 64, p.k = 32, p.g = 4;
  p.in = {1, 14, 15};
  p.filter = {1, 3, 2};
  p.stride = {1, 2, 1};
  p.pad_lo = {0, 1, 0};
  p.pad_hi = {0, 1, 1};  // asymmetric in W: the legacy API cannot, the graph API can
  p.dilation = {1, 1, 2};
  return p;
}

TEST(CudnnGraphShape, TwoDGroupedWithAsymmetricPadding) {
  const Problem p = grouped_asymmetric_2d();
  ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
  const GraphShape s = cudnn_graph_shape(p);
  EXPECT_EQ(s.spatial, 2);
  EXPECT_EQ(s.x_dims, (std::vector<int64_t>{4, 64, 14, 15}));
  EXPECT_EQ(s.x_strides, (std::vector<int64_t>{14 * 15 * 64, 1, 15 * 64, 64}));
  EXPECT_EQ(s.w_dims, (std::vector<int64_t>{32, 16, 3, 2}));  // K, C/G, Y, X: groups = 64 / 16
  EXPECT_EQ(s.w_strides, (std::vector<int64_t>{3 * 2 * 16, 1, 2 * 16, 16}));
  EXPECT_EQ(s.y_dims, (std::vector<int64_t>{4, 32, p.out(1), p.out(2)}));
  EXPECT_EQ(s.pre_pad, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(s.post_pad, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(s.stride, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(s.dilation, (std::vector<int64_t>{1, 2}));
  expect_matches(p.x_desc(), s.x_dims, s.x_strides, {"N", "C", "H", "W"});
  expect_matches(p.w_desc(), s.w_dims, s.w_strides, {"K", "C/G", "Y", "X"});
  expect_matches(p.y_desc(), s.y_dims, s.y_strides, {"N", "K", "Ho", "Wo"});
}

TEST(CudnnGraphShape, OneDRunsAsTwoDWithHeightOne) {
  Problem p;
  p.ndim = 1;
  p.n = 3, p.c = 8, p.k = 8, p.g = 8;  // depthwise
  p.in = {1, 1, 101};
  p.filter = {1, 1, 7};
  p.stride = {1, 1, 3};
  p.pad_lo = {0, 0, 3};
  p.pad_hi = {0, 0, 2};
  ASSERT_TRUE(p.validate().ok()) << p.validate().to_string();
  const GraphShape s = cudnn_graph_shape(p);
  EXPECT_EQ(s.spatial, 2);
  EXPECT_EQ(s.x_dims, (std::vector<int64_t>{3, 8, 1, 101}));
  EXPECT_EQ(s.w_dims, (std::vector<int64_t>{8, 1, 1, 7}));
  EXPECT_EQ(s.y_dims, (std::vector<int64_t>{3, 8, 1, p.out(2)}));
  EXPECT_EQ(s.pre_pad, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(s.post_pad, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(s.stride, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(s.dilation, (std::vector<int64_t>{1, 1}));
  expect_matches(p.x_desc(), s.x_dims, s.x_strides, {"N", "C", "H", "W"});
  expect_matches(p.w_desc(), s.w_dims, s.w_strides, {"K", "C/G", "Y", "X"});
}

TEST(CudnnGraphShape, ThreeD) {
  Problem p;
  p.ndim = 3;
  p.n = 2, p.c = 16, p.k = 24, p.g = 2;
  p.in = {5, 6, 7};
  p.filter = {3, 3, 3};
  p.pad_lo = p.pad_hi = {1, 1, 1};
  ASSERT_TRUE(p.validate().ok());
  const GraphShape s = cudnn_graph_shape(p);
  EXPECT_EQ(s.spatial, 3);
  EXPECT_EQ(s.x_dims, (std::vector<int64_t>{2, 16, 5, 6, 7}));
  EXPECT_EQ(s.w_dims, (std::vector<int64_t>{24, 8, 3, 3, 3}));
  EXPECT_EQ(s.w_strides, (std::vector<int64_t>{27 * 8, 1, 9 * 8, 3 * 8, 8}));
  EXPECT_EQ(s.pre_pad.size(), 3u);
  expect_matches(p.x_desc(), s.x_dims, s.x_strides, {"N", "C", "D", "H", "W"});
  expect_matches(p.w_desc(), s.w_dims, s.w_strides, {"K", "C/G", "Z", "Y", "X"});
  expect_matches(p.y_desc(), s.y_dims, s.y_strides, {"N", "K", "Do", "Ho", "Wo"});
}

TEST(CudnnGraphNames, KnobNamesFollowCudnnEnums) {
  // Both ends and the middle of the table, so a shifted entry shows.
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_SWIZZLE), "swizzle");
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_TILE_SIZE), "tile");
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_STAGES), "stages");
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_SPECFILT), "specfilt");
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_BLOCK_SIZE), "block");
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_SPLIT_COLS), "splitcols");
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_TILE_M), "tilem");
  EXPECT_EQ(graph_knob_name(CUDNN_KNOB_TYPE_SWAP_AB), "swapab");
  EXPECT_EQ(graph_knob_name(-1), "k-1=");
  EXPECT_EQ(graph_knob_name(999), "k999=");
}

TEST(CudnnGraphNames, EngineNameIsOneToken) {
  GraphEngineInfo info;
  info.engine = 7;
  info.numerical_notes = {CUDNN_NUMERICAL_NOTE_TENSOR_CORE, CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC};
  info.behavior_notes = {CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION};
  info.knobs = {{CUDNN_KNOB_TYPE_TILE_SIZE, 3}, {CUDNN_KNOB_TYPE_STAGES, -1}};
  EXPECT_EQ(graph_engine_name(info), "eng7_tc_nd_rtc_tile3_stages-1");
  info.numerical_notes = {CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13, 99};
  info.behavior_notes = {CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY, 42};
  info.knobs = {{77, 5}};
  const std::string n = graph_engine_name(info);
  EXPECT_EQ(n, "eng7_w13x13_n99_cublaslt_b42_k77=5");
  for (char ch : {',', ':', ' ', '"', '\n'}) EXPECT_EQ(n.find(ch), std::string::npos) << ch;
  EXPECT_EQ(graph_engine_name(GraphEngineInfo{}), "eng-1");
}

TEST(CudnnGraphNames, DedupeByEngineAndKnobs) {
  GraphEngineInfo a;
  a.engine = 3;
  a.knobs = {{2, 1}, {14, 4}};
  GraphEngineInfo a_reordered = a;  // same choices, other order, other notes: same config
  a_reordered.knobs = {{14, 4}, {2, 1}};
  a_reordered.numerical_notes = {CUDNN_NUMERICAL_NOTE_TENSOR_CORE};
  GraphEngineInfo other_knob = a;
  other_knob.knobs = {{2, 2}, {14, 4}};
  GraphEngineInfo other_engine = a;
  other_engine.engine = 4;
  GraphEngineInfo unknown = a;  // knobs unreadable: never merged, even with itself
  unknown.knobs_known = false;
  EXPECT_EQ(graph_config_key(a, 0), "3|2=1|14=4");
  EXPECT_EQ(graph_config_key(a_reordered, 9), "3|2=1|14=4");
  EXPECT_EQ(graph_config_key(unknown, 5), "3|?5");
  const std::vector<size_t> keep = dedupe_graph_configs({a, other_knob, a_reordered, other_engine, unknown, unknown, a});
  EXPECT_EQ(keep, (std::vector<size_t>{0, 1, 3, 4, 5}));
  EXPECT_TRUE(dedupe_graph_configs({}).empty());
}

TEST(CudnnGraphNames, FilterDropsOnlyDownConvertingEngines) {
  GraphEngineInfo info;
  EXPECT_EQ(graph_engine_excluded(info), "");
  info.numerical_notes = {CUDNN_NUMERICAL_NOTE_TENSOR_CORE, CUDNN_NUMERICAL_NOTE_FFT,
                          CUDNN_NUMERICAL_NOTE_WINOGRAD, CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC,
                          CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION};
  EXPECT_EQ(graph_engine_excluded(info), "");
  info.numerical_notes.push_back(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
  EXPECT_NE(graph_engine_excluded(info).find("DOWN_CONVERT_INPUTS"), std::string::npos);
}

TEST(CudnnGraphNames, ByteAlignmentOfPointers) {
  EXPECT_EQ(graph_byte_alignment(nullptr), 16);
  EXPECT_EQ(graph_byte_alignment(reinterpret_cast<const void*>(uintptr_t(0x7f0000000000))), 16);  // cudaMalloc: 256
  EXPECT_EQ(graph_byte_alignment(reinterpret_cast<const void*>(uintptr_t(0x1010))), 16);
  EXPECT_EQ(graph_byte_alignment(reinterpret_cast<const void*>(uintptr_t(0x1008))), 8);
  EXPECT_EQ(graph_byte_alignment(reinterpret_cast<const void*>(uintptr_t(0x1002))), 2);
  EXPECT_EQ(graph_byte_alignment(reinterpret_cast<const void*>(uintptr_t(0x1001))), 1);
}

TEST(CudnnGraphRows, FailureGivesBothRows) {
  const Problem p = grouped_asymmetric_2d();
  auto rows = graph_failure_rows(p, not_supported("cuDNN graph heuristics failed: " + std::string(300, 'x')));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel, "cudnn_graph_heuristic");
  EXPECT_EQ(rows[1].kernel, "cudnn_graph_best");
  for (const SweepRow& r : rows) {
    EXPECT_EQ(r.status, "unsupported");
    EXPECT_EQ(r.provider, "cudnn");
    EXPECT_EQ(r.family, "cudnn");
    EXPECT_EQ(r.spec, p.to_spec());
    ASSERT_TRUE(r.problem.has_value());
    EXPECT_EQ(*r.problem, p);
    EXPECT_EQ(r.check.size(), 200u);
    EXPECT_EQ(r.check.rfind("cuDNN graph heuristics failed: x", 0), 0u) << r.check;
  }
  rows = graph_failure_rows(p, Status(StatusCode::cuda_error, "cudnnBackendExecute(eng1): CUDNN_STATUS_EXECUTION_FAILED"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, "launch_error");
  EXPECT_EQ(rows[1].check, "cudnnBackendExecute(eng1): CUDNN_STATUS_EXECUTION_FAILED");
}

TEST(CudnnGraphLoader, BackendFunctionsAreInTheApi) {
  const std::vector<std::string> names = cudnn_function_names();
  for (const char* f : {"cudnnBackendCreateDescriptor", "cudnnBackendDestroyDescriptor", "cudnnBackendSetAttribute",
                        "cudnnBackendGetAttribute", "cudnnBackendFinalize", "cudnnBackendExecute"})
    EXPECT_NE(std::find(names.begin(), names.end(), f), names.end()) << f;
}

bool have_gpu() {
  int n = 0;
  const bool yes = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return yes;
}

// cuDNN's own checks of the descriptors (types, counts, shape consistency:
// y's dims against x, w and the pads; groups from x's C over w's C) run at
// finalize, on the host: every direction, 1D/2D/3D, dense, grouped,
// depthwise, asymmetric padding.
TEST(CudnnGraphDescriptors, CudnnFinalizesEveryOperation) {
  auto api = cudnn_api();
  if (!api.ok()) GTEST_SKIP() << api.status().message();
  // The GPU test's problems (tests/gpu/cudnn_provider_test.cpp) and a few more.
  const char* specs[] = {
      "fwd_bf16_n32c64k64_h56w56_y3x3_s1_p1_dil1",
      "fwd_bf16_n32c256k512_h56w56_y1x1_s2_p0_dil1",
      "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1",
      "fwd_bf16_n32c192k192g192_h28w28_y3x3_s1_p1_dil1",  // depthwise
      "fwd_bf16_n32c576k160_h7w7_y1x1_s1_p0_dil1",
      "fwd_bf16_n16c128k128g32_h28w28_y3x3_s1_p1_dil1",
      "fwd_bf16_n2c64k64_d8h28w28_z3y3x3_s1_p1_dil1",
      "fwd_bf16_n2c64k64g64_d8h28w28_z3y3x3_s1_p1_dil1",
      "fwd_bf16_n4c32k32g32_w50_x5_s1_p2_dil2",           // 1D depthwise, dilated
      "fwd_fp32_n8c64k64_h28w28_y3x3_s1_p1_dil1",
      "fwd_fp16_n8c64k64g4_h28w28_y3x3_s2_p1_dil1",
      "fwd_bf16_n8c64k64_h28w28_y2x2_s1_p0:1_dil1",       // asymmetric padding
      "fwd_fp16_n8c256k256g32_h14w14_y3x3_s2_p1_dil1",
      "fwd_fp32_n2c16k32g2_d4h8w8_z3y3x3_s1_p1_dil1",     // 3D grouped
  };
  std::vector<Problem> problems;
  for (const char* spec : specs) {
    auto p = Problem::parse_spec(spec);
    ASSERT_TRUE(p.ok()) << spec << ": " << p.status().to_string();
    problems.push_back(*p);
  }
  problems.push_back(grouped_asymmetric_2d());
  // Fake, 256-byte aligned addresses: finalize never touches the data.
  const DeviceBuffers bufs{reinterpret_cast<const void*>(uintptr_t(1) << 20),
                           reinterpret_cast<const void*>(uintptr_t(2) << 20),
                           reinterpret_cast<void*>(uintptr_t(3) << 20), nullptr, 0};
  for (Problem p : problems) {
    for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
      p.direction = d;
      ASSERT_TRUE(p.validate().ok()) << p.to_spec() << ": " << p.validate().to_string();
      GraphConv conv(**api, p, bufs);
      Status s = conv.build_operation();
      EXPECT_TRUE(s.ok()) << p.to_spec() << ": " << s.to_string();
    }
  }
}

TEST(CudnnGraphDescriptors, InconsistentShapeIsRejectedWithTheStepNamed) {
  // A control for the test above: cuDNN does check, and the message names the
  // failing step. Alignment 1 on bf16 data is invalid (an element is 2 bytes).
  auto api = cudnn_api();
  if (!api.ok()) GTEST_SKIP() << api.status().message();
  auto p = Problem::parse_spec("fwd_bf16_n2c16k16_h8w8_y3x3_s1_p1_dil1");
  ASSERT_TRUE(p.ok());
  const DeviceBuffers bufs{reinterpret_cast<const void*>(uintptr_t(0x1001)), reinterpret_cast<const void*>(0x2000),
                           reinterpret_cast<void*>(0x3000), nullptr, 0};
  GraphConv conv(**api, *p, bufs);
  Status s = conv.build_operation();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tensor x"), std::string::npos) << s.message();
}

TEST(CudnnGraphDescriptors, NoGpuGivesCleanErrors) {
  auto api = cudnn_api();
  if (!api.ok()) GTEST_SKIP() << api.status().message();
  if (have_gpu()) GTEST_SKIP() << "a CUDA device is present";
  auto p = Problem::parse_spec("fwd_bf16_n2c16k16_h8w8_y3x3_s1_p1_dil1");
  ASSERT_TRUE(p.ok());
  Status once = run_cudnn_graph_once(*p, DeviceBuffers{nullptr, nullptr, nullptr, nullptr, 0}, nullptr);
  EXPECT_EQ(once.code(), StatusCode::no_device) << once.to_string();
  EXPECT_EQ(once.message().rfind("cudnnCreate: ", 0), 0u) << once.message();
}

}  // namespace
}  // namespace gconv::bench
