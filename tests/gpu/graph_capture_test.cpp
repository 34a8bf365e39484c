// Launches per convolution, counted as the nodes of a CUDA graph captured
// around Registry::run, and the captured graph replayed against the eager
// run. Capture also proves run() neither synchronizes nor allocates when
// given a workspace (either would end the capture with an error). One case
// per launch shape of the families:
//   1 node : implicit GEMM without split-K, tinyc, wgmma cluster split-K (the
//            splits add in distributed shared memory), serial split-K of
//            igemm and wgmma and the direct tile bwd_weight with atomics
//            (the splits meet in the workspace, zeroed and converted inside
//            the launch: kernels/common/fixup.cuh), deterministic direct
//            tile bwd_weight while a region's slices are small (at most
//            16 KB: each split's slice, added in split order by the region's
//            last split; one split stores dw), direct tile fwd /
//            bwd_data, direct register-window kernels (all three
//            directions), naive, packed igemm (bwd_weight's serial split-K
//            converting only the diagonal blocks), realigned igemm, tinyc
//            bwd_weight (its slabs' atomics meet in the workspace the same
//            way), strided bwd_data on the wgmma TMA producers, pw;
//            parallel split-K while a tile's slices are small (16 KB: its
//            last split sums them in split order);
//   2 nodes: parallel split-K of wide tiles or many splits (main + reduce:
//            one block summing all the slices of its tile would serialize
//            them; kernels/fixup.hpp slices_fixup), deterministic direct
//            bwd_weight with large regions the same way (main + finish),
//            staged dy on the wgmma TMA kernels (_tma_ra: gconv_pad copies dy
//            to padded rows, which no tensor map could read in place, then
//            the TMA kernel);
//   3 nodes: staged fwd (the copies of x and of w, then the TMA kernel).
// This test pins today's counts. The workspace starts poisoned and the graph
// is replayed twice: the one-launch kernels must neither need zeros nor
// leave state that a replay would trip over.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "check/compare.hpp"
#include "gconv/numeric.hpp"
#include "gconv/registry.hpp"
#include "gpu_harness.hpp"

namespace gconv {
namespace {

using gputest::DeviceBuffer;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

struct Case {
  std::string spec;    // the problem
  std::string kernel;  // regex on the kernel name: the first ranked match runs
  size_t nodes;        // expected graph nodes = launches + memsets
};

class GraphCapture : public ::testing::TestWithParam<Case> {};

TEST_P(GraphCapture, NodesPerRunAndReplayMatchesEagerRun) {
  const Case& c = GetParam();
  auto parsed = Problem::parse_spec(c.spec);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  const Problem p = *parsed;
  RegistryOptions opt;
  opt.tuning_cache_path = "off";
  opt.model_dir = "off";
  auto reg = Registry::create(opt);
  ASSERT_TRUE(reg.ok()) << reg.status().to_string();
  auto ranked = (*reg)->rank(p, Policy::analytic(), 100000);
  ASSERT_TRUE(ranked.ok()) << ranked.status().to_string();
  const Solution* sol = nullptr;
  for (const Solution& s : *ranked)
    if (std::regex_search(s.kernel, std::regex(c.kernel))) {
      sol = &s;
      break;
    }
  ASSERT_NE(sol, nullptr) << "no kernel matching " << c.kernel << " implements " << c.spec;
  SCOPED_TRACE(sol->kernel);

  const bool wgrad = p.direction == Direction::bwd_weight;
  const bool bwd = p.direction == Direction::bwd_data;
  const int64_t na = (bwd ? p.y_desc() : p.x_desc()).elements();
  const int64_t nb = (wgrad ? p.y_desc() : p.w_desc()).elements();
  const int64_t nout = (wgrad ? p.w_desc() : bwd ? p.x_desc() : p.y_desc()).elements();
  const size_t eb = dtype_bytes(p.dtype);
  std::vector<unsigned char> ha(na * eb), hb(nb * eb), eager(nout * eb), replay(nout * eb);
  fill_random(p.dtype, ha.data(), na, 11);
  fill_random(p.dtype, hb.data(), nb, 12);
  DeviceBuffer a(ha.size()), b(hb.size()), out(eager.size()), ws(std::max<size_t>(sol->workspace_bytes, 16));
  CUDA_OK(cudaMemcpy(a.ptr, ha.data(), ha.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(b.ptr, hb.data(), hb.size(), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Eager first: it also compiles and loads the kernel outside the capture.
  CUDA_OK(cudaMemset(out.ptr, 0xff, eager.size()));
  CUDA_OK(cudaMemset(ws.ptr, 0xa5, ws.bytes));
  Status st = (*reg)->run(*sol, p, a.ptr, b.ptr, out.ptr, ws.ptr, ws.bytes, stream);
  ASSERT_TRUE(st.ok()) << st.to_string();
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaMemcpy(eager.data(), out.ptr, eager.size(), cudaMemcpyDeviceToHost));

  cudaGraph_t graph = nullptr;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  st = (*reg)->run(*sol, p, a.ptr, b.ptr, out.ptr, ws.ptr, ws.bytes, stream);
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_EQ(end, cudaSuccess) << cudaGetErrorString(end);
  size_t nodes = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, c.nodes);

  cudaGraphExec_t exec = nullptr;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaMemset(out.ptr, 0xff, replay.size()));  // poisoned: NaN patterns
  for (int i = 0; i < 2; ++i) CUDA_OK(cudaGraphLaunch(exec, stream));  // replays must not accumulate
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaMemcpy(replay.data(), out.ptr, replay.size(), cudaMemcpyDeviceToHost));
  const CompareResult cmp = compare_outputs(p.dtype, replay.data(), eager.data(), nout, tolerance_for(p));
  EXPECT_TRUE(cmp.ok) << cmp.summary();
  // Parallel split-K sums its slices in split order, in the launch or in the
  // reduce kernel: the same bits whichever split finishes last.
  if (std::regex_search(sol->kernel, std::regex(R"(_sk[0-9]+p_)")))
    EXPECT_EQ(replay, eager) << "parallel split-K is deterministic";
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  CUDA_OK(cudaStreamDestroy(stream));
}

const char* kDw3 = "n4c64k64g64_h17w19_y3x3_p1";
const char* kDense = "n4c64k64_h17w19_y3x3_p1";

std::string spec(const char* dir, const char* body) { return std::string(dir) + "_bf16_" + body; }

INSTANTIATE_TEST_SUITE_P(
    Launches, GraphCapture,
    ::testing::Values(Case{spec("fwd", kDw3), R"(_w3s1$)", 1}, Case{spec("bwd_data", kDw3), R"(_w3s1$)", 1},
                      Case{spec("bwd_weight", kDw3), R"(_w3s1$)", 1},
                      Case{spec("fwd", kDw3), R"(^direct_.*_v8$)", 1},
                      // deterministic direct: one launch where a region's last split sums at most
                      // 16 KB of slices (a grouped entry, C/G = 4: 24 splits of small regions) and
                      // with one split (one 8x16 tile: dw stored directly, no workspace); main +
                      // finish beyond (kernels/fixup.hpp slices_fixup)
                      Case{"bwd_weight_bf16_n4c64k64g16_h17w19_y3x3_p1", R"(^direct_.*_t8x16_r2_v2_det$)", 1},
                      Case{"bwd_weight_bf16_n1c64k64g64_h8w16_y3x3_p1", R"(^direct_bwd_weight_bf16_2d_t8x16_r4_v8_det$)", 1},
                      Case{spec("bwd_weight", kDw3), R"(^direct_.*_v8_det$)", 2},
                      Case{"bwd_weight_fp32_n4c64k64g64_h17w19_y3x3_p1", R"(^direct_.*_v4_det$)", 2},
                      Case{"bwd_weight_bf16_n2c48k48g48_d24h8w8_z5y5x5_p2", R"(^direct_bwd_weight_bf16_3d_t4x16_r2_v8_det$)", 2},
                      Case{spec("bwd_weight", kDw3), R"(^direct_.*_v8$)", 1},
                      Case{"bwd_weight_bf16_n4c64k64g16_h17w19_y3x3_p1", R"(^direct_.*_v[0-9]+$)", 1},
                      Case{"bwd_weight_fp32_n4c64k64g64_h17w19_y3x3_p1", R"(^direct_.*_v4$)", 1},
                      Case{spec("fwd", kDense), R"(^igemm_.*_sk1_)", 1},
                      Case{spec("fwd", kDense), R"(^wgmma_.*_sk1_)", 1},
                      // Parallel split-K: one launch while a tile's slices total at most
                      // 16 KB (kernels/fixup.hpp slices_fixup), else main + reduce.
                      Case{spec("fwd", kDense), R"(^igemm_.*_m32n64k[0-9]+_.*_sk2p_)", 1},
                      Case{"bwd_data_bf16_n2c64k64_h9w11_y3x3_s2_p1", R"(^igemm_.*_m32n64k[0-9]+_.*_sk2p_)", 1},
                      Case{spec("bwd_weight", kDense), R"(^wgmma_.*_m64n32k64_.*_sk2p_v8$)", 1},
                      Case{spec("bwd_weight", kDense), R"(^igemm_.*_m64n64k[0-9]+_.*_sk4p_)", 2},
                      Case{"bwd_weight_bf16_n8c128k128_h28w28_y3x3_p1", R"(^igemm_.*_m128n128k[0-9]+_.*_sk8p_)", 2},
                      Case{spec("bwd_weight", kDense), R"(^wgmma_.*_m64n64k64_.*_sk16p_v8_tma$)", 2},
                      Case{spec("bwd_data", kDense), R"(^wgmma_.*_m128n128k64_.*_sk2p_v8$)", 2},
                      Case{"bwd_data_bf16_n2c64k64_h9w11_y3x3_s2_p1", R"(^wgmma_.*_sk4p_v8$)", 2},
                      Case{spec("bwd_weight", kDense), R"(^wgmma_.*_sk[0-9]+s_)", 1},
                      Case{spec("bwd_weight", kDense), R"(^wgmma_.*_sk[0-9]+s_.*_tma$)", 1},
                      Case{spec("bwd_weight", kDense), R"(^igemm_.*_sk[0-9]+s_)", 1},
                      Case{spec("fwd", kDense), R"(^igemm_.*_sk[0-9]+s_)", 1},
                      Case{spec("bwd_weight", kDense), R"(^wgmma_.*_sk[0-9]+c_)", 1},
                      Case{spec("fwd", kDense), R"(^wgmma_.*_sk[0-9]+c_)", 1},
                      Case{spec("bwd_data", kDense), R"(^wgmma_.*_sk[0-9]+c_)", 1},
                      Case{"bwd_data_bf16_n2c3k64_h30w70_y7x7_s2_p3", R"(^tinyc_)", 1},
                      // pw: pointwise streaming GEMM, fwd and bwd_data (rows off 16 bytes)
                      Case{"fwd_bf16_n2c24k58_h30w70", R"(^pw_fwd_)", 1},
                      Case{"bwd_data_bf16_n2c58k24_h30w70", R"(^pw_bwd_data_)", 1},
                      // Packed igemm kernels (several small groups as one block-diagonal GEMM):
                      // bwd_weight's serial split-K converts only the diagonal blocks, in the launch.
                      Case{"fwd_bf16_n4c128k128g32_h17w19_y3x3_p1", R"(_pk$)", 1},
                      Case{"bwd_data_bf16_n4c128k128g32_h17w19_y3x3_s2_p1", R"(_pk$)", 1},
                      Case{"bwd_weight_bf16_n4c128k128g32_h17w19_y3x3_p1", R"(_sk[0-9]+s_.*_pk$)", 1},
                      // realigned igemm (odd channel counts): fwd, serial split-K bwd_data and bwd_weight
                      Case{"fwd_bf16_n2c45k64_d3h6w7_z3y1x1_p1,0,0", R"(_ra$)", 1},
                      Case{"bwd_data_bf16_n2c64k45_h9w11_y3x3_s2_p1", R"(_sk[0-9]+s_.*_ra$)", 1},
                      Case{"bwd_weight_bf16_n2c64k45_h9w11_y3x3_p1", R"(_sk[0-9]+s_.*_ra$)", 1},
                      // tinyc bwd_weight: the slabs' atomics into an accumulator zeroed and converted
                      // inside the launch; strided bwd_data through the TMA producers (phases)
                      Case{"bwd_weight_bf16_n4c128k128g32_h17w19_y3x3_p1", R"(^tinyc_bwd_weight_)", 1},
                      Case{"bwd_data_bf16_n4c64k128_h18w20_y3x3_s2_p1", R"(^wgmma_.*_tma$)", 1},
                      // staged dy: the copy, then the TMA kernel (serial split-K in the launch)
                      Case{"bwd_weight_bf16_n2c64k230_h9w11_y3x3_p1", R"(_sk[0-9]+s_.*_tma_ra$)", 2},
                      Case{"bwd_data_bf16_n2c64k230_h10w12_y3x3_s2_p1", R"(_tma_ra$)", 2},
                      // staged fwd: the copies of x and of w, then the TMA kernel
                      Case{"fwd_bf16_n2c230k64_h9w11_y3x3_p1", R"(_tma_ra$)", 3}),
    [](const ::testing::TestParamInfo<Case>& i) { return "case" + std::to_string(i.index); });

}  // namespace
}  // namespace gconv
