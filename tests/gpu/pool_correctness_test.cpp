// Every kernel of the bf16 pools, and samples of the fp16 and fp32 pools, on
// odd shapes, against the naive GPU kernel (itself checked against the CPU
// reference on each shape), with fresh random inputs per run and poisoned
// outputs. One test per (direction, ndim) so that a kernel that faults (and
// poisons the CUDA context) only takes its own test down: ctest runs each
// test in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <map>
#include <optional>
#include <random>

#include "gpu_harness.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool/pool.hpp"

namespace gconv::gputest {
namespace {

// The problems of specs in direction d and dtype t.
std::vector<Problem> problems_of(std::initializer_list<const char*> specs, Direction d, DType t) {
  std::vector<Problem> out;
  for (const char* s : specs) {
    Problem p = *Problem::parse_spec(s);
    p.direction = d;
    p.dtype = t;
    out.push_back(p);
  }
  return out;
}

// Shapes that let a kernel no odd shape fits (a wide vector, many groups per
// block) be checked at least once: channel counts divisible by 8.
std::vector<Problem> covering_problems(Direction d, DType t) {
  std::vector<Problem> out = problems_of({"n2c64k64_h9w9_y3x3_p1", "n2c64k64g8_h9w9_y3x3_p1", "n2c64k64g16_h9w9_y3x3_p1",
                        "n2c64k64g32_h9w9_y3x3_p1", "n2c64k64g64_h9w9_y3x3_p1", "n2c64k64_d4h6w6_z3y3x3_p1",
                        "n2c64k64g64_d4h6w6_z3y3x3_p1", "n2c64k64g16_d4h6w6_z3y3x3_p1", "n2c64k64_w40_x3_p1",
                        "n2c64k64g64_w40_x3_p1", "n2c64k64g16_w40_x3_p1", "n2c64k64g32_w40_x3_p1",
                        // pointwise grouped: bwd_weight kernels with several groups per block
                        "n2c64k64g8_h9w9", "n2c64k64g4_h9w9", "n2c64k64g16_h9w9", "n2c64k64g8_d3h5w5_z1",
                        "n2c64k64g4_d3h5w5_z1", "n2c64k64g16_d3h5w5_z1", "n2c64k64g8_w30", "n2c64k64g4_w30",
                        "n2c64k64g16_w30",
                        // tinyc (bwd_data, C <= 8): strides 2, 4, 1 and (2, 1), odd sizes, dilation,
                        // asymmetric padding, K of 64, 96, 16 and 24 (the last 16-channel step half empty)
                        "n2c3k64_h30w70_y7x7_s2_p3", "n2c3k96_h20w132_y4x4_s4", "n1c4k16_h17w40_y5x3_p2,1_dil2",
                        "n2c2k24_h19w37_y3x7_s2,1_p1,3", "n1c8k128_h9w33_y3x3_s2_p1",
                        // tinyc 3D and K % 8 != 0 (2-byte dy staging): a video stem (stride 1,2,2),
                        // depth stride 2 + dilation + asymmetric padding with two K chunks, K = 45
                        // (r2plus1d), 3D stride 1, K = 13 with N = 1, K = 77 (two chunks, the last
                        // of 13). The same list is kGpuProblems in tests/kernels/tinyc_test.cpp.
                        "n2c3k64_d5h30w70_z3y7x7_s1,2,2_p1,3,3", "n1c3k80_d9h20w40_z3y3x3_s2,2,2_p2:1,1,1_dil2,1,1",
                        "n2c3k45_d4h17w33_z1y7x7_s1,2,2_p0,3,3", "n1c4k24_d6h17w40_z3y3x3_p1",
                        "n1c3k13_h19w37_y7x7_s2_p3", "n2c3k77_h30w70_y7x7_s2_p3",
                        // tinyc bwd_weight's stem entry (one group, C <= 8, at most 9 taps): C = 3
                        // at stride 2 (x rows rounded to 8 pixels), C = 4 with dilation and
                        // asymmetric padding, K of 32 and 72 (the second slab's rows partial), C = 5
                        // (rows of 8-pixel units, an odd tile edge)
                        "n2c3k32_h40w48_y3x3_s2_p1", "n1c4k72_h20w18_y3x3_p1:0,2:1_dil2",
                        "n3c5k16_h13w24_y3x1_s1,2_p1,0"}, d, t);
  // Register-window depthwise kernels are compiled for one filter width and
  // W stride: every (width, stride) of the pools, 40 channels (vec 8, 4, 2)
  // and 18 (vec 2), odd sizes, asymmetric W padding, H dilation 2. For
  // bwd_weight also a larger size, whose regions take several blocks of
  // several steps (the slices added by the last block), the last step of a
  // plane partial.
  for (bool big : {false, true})
    for (int nd : {1, 2, 3})
      for (int64_t c : {40, 18})
        for (int64_t fx : {1, 3, 5, 7})
          for (int64_t sx : {1, 2}) {
            if (big && d != Direction::bwd_weight) continue;
            Problem p;
            p.direction = d;
            p.dtype = t;
            p.ndim = nd;
            p.n = big ? 5 : 2;
            p.c = p.k = p.g = c;
            p.in = {nd == 3 ? (big ? 6 : 4) : 1, nd == 1 ? 1 : (big ? 37 : 7), big && nd == 1 ? 301 : 27};
            p.filter = {nd == 3 ? 3 : 1, nd == 1 ? 1 : 3, fx};
            p.stride = {1, 1, sx};
            p.dilation = {1, nd == 1 ? 1 : 2, 1};
            p.pad_lo = {nd == 3 ? 1 : 0, nd == 1 ? 0 : 2, fx / 2};
            p.pad_hi = {nd == 3 ? 1 : 0, nd == 1 ? 0 : 2, fx - 1 - fx / 2};
            out.push_back(p);
          }
  return out;
}

// Packed igemm kernels (several small groups as one block-diagonal GEMM):
// C/G and K/G of 2..16, unequal, a last group block that is partly empty
// (G = 10, 6, 5), bwd_data stride phases, dilation, asymmetric padding, N = 1.
std::vector<Problem> packed_problems(Direction d, DType t) {
  return problems_of({"n2c40k40g10_h9w11_y3x3_p1", "n2c24k48g6_h10w9_y3x3_s2_p1", "n2c48k24g6_h11w10_y3x3_s2_p1,0",
                        "n1c64k64g8_h9w9_y3x3_p2_dil2", "n2c32k32g8_h7w9_y1x7_p0,3", "n2c20k20g5_h8w8_y3x3_p1",
                        "n2c16k16g8_h6w7_y3x3_p1", "n2c64k64g4_h5w6_y3x3_p1", "n2c32k32g8_d4h6w6_z3y3x3_p1",
                        "n1c40k80g10_d3h5w6_z3y3x3_s1,2,2_p1", "n2c16k16g8_d3h5w5_z3y3x3_p1", "n2c32k32g8_w40_x3_p1", "n2c80k80g20_w37_x5_s2_p2",
                        "n2c48k48g12_w33_x3_s3_p1_dil2",
                        // Packed wgmma bwd_weight (gpb * C/G whole 64-channel blocks, gpb * K/G <= 64
                        // rows): C/G 16, 32 and 8 with several group blocks, K/G != C/G, stride 2
                        // with asymmetric padding, dilation, 3D, 1D, grouped pointwise (loaded flat)
                        // and a reduction long enough for every split.
                        "n2c128k128g8_h9w11_y3x3_p1", "n2c128k64g4_h8w8_y3x3_s2_p1,0", "n1c64k64g8_h9w9_y3x3_p2_dil2",
                        "n2c128k128g4_h7w9_y3x3_p2_dil2", "n2c64k64g4_d4h5w6_z3y3x3_p1", "n2c128k64g8_w40_x5_s2_p2",
                        "n2c96k96g12_h7w7_y1x1", "n4c64k32g8_h24w24_y3x3_p1",
                        // ... with a last group block partly empty and taps padded to 64-channel boxes
                        // (RegNet's C/G = 8 at G = 13), C/G = 24, 3D, 1D, pointwise past C.
                        "n2c48k48g3_h9w9_y3x3_p1", "n2c104k104g13_h8w8_y3x3_s2_p1", "n1c48k48g6_d3h5w6_z3y3x3_p1",
                        "n2c72k72g9_w33_x3_s2_p1", "n2c96k96g4_h7w7_y3x3_p1", "n2c40k40g5_h7w7_y1x1"},
                     d, t);
}

// Realigned igemm kernels (an odd channel count read in 16-byte vectors from
// any offset: fwd C/G, bwd K/G with C/G a multiple of 8, bwd_weight also C/G
// with K/G a multiple of 8; the staged wgmma kernels, _tma_ra, one group's
// K off the vector, even counts too, or bwd_data's K off 64): r2plus1d's 921
// channels (several K tiles per tap, the last one partial), G = 2 (a group's
// channels start mid-vector), stride-2 phases, dilation, 3D with a
// depth-only filter, 1D, 1x1; each shape serves bwd (odd K) and its
// transpose serves fwd (odd C).
std::vector<Problem> realign_problems(Direction d, DType t) {
  std::vector<Problem> out =
      problems_of({"n2c16k9_h9w11_y3x3_p1", "n2c32k45_h7w9_y3x3_s2_p1", "n1c64k921_h5w6_y3x3_p1",
                   "n2c16k26g2_h8w8_y3x3_p1", "n2c16k21_h11w11_y3x3_p2_dil2", "n2c8k45_d4h6w6_z3y1x1_p1,0,0",
                   "n1c32k921_d2h3w3_z3y1x1_s2,1,1_p1,0,0", "n2c16k13_w40_x3_p1", "n1c16k921_w50_x3_p1",
                   "n2c24k231_d3h5w6_z1y3x3_s1,2,2_p0,1,1", "n2c32k71_w37_x5_s2_p2_dil2", "n1c16k301_h7w7_y1x1",
                   // Even counts off the vector (r2plus1d's 230 and 460; 58; G = 2 with K/G = 54, a
                   // group's run from mid-vector): the vec 2 / 4 and staged kernels.
                   "n2c16k230_d3h5w6_z1y3x3_s1,2,2_p0,1,1", "n2c32k460_h7w9_y3x3_p1", "n2c16k58_w40_x3_p1",
                   "n2c16k108g2_h8w8_y3x3_p1",
                   // Staged dy (wgmma _tma_ra: one group, C a multiple of 64 for the TMA kernels; bwd_data
                   // also K = 288, on the vector but off its 64-channel blocks; stride-2 phases).
                   "n2c64k230_d3h6w6_z1y3x3_s1,2,2_p0,1,1", "n2c128k460_h7w9_y3x3_p1", "n1c64k921_w50_x3_p1",
                   "n2c64k288_h6w8_y3x3_s2_p1"},
                  d, t);
  if (d == Direction::fwd)
    for (Problem& p : out) std::swap(p.c, p.k);  // odd C for fwd (G divides both)
  // bwd_weight also reads x along an odd C/G (K/G on the vector; columns per
  // tap rounded up to 8, config.cuh OddCgConfig): r2plus1d's 921 (several
  // N tiles per tap, tap boundaries mid-tile) and 45, G = 2 (C/G 45 from mid-
  // vector), K/G of 16 and 24 (a partial M tile), dilation, stride, 1x1, 5
  // taps of 25 (the padding adds an N tile), 1D / 2D / 3D.
  // bwd_data serves the same odd C/G (dx's channels, K/G on the vector)
  // with its narrow-B body (config.cuh NarrowBConfig: w in 2-byte pieces).
  if (d == Direction::bwd_weight || d == Direction::bwd_data) {
    const std::vector<Problem> odd_c =
        problems_of({"n2c45k64_d4h6w6_z3y1x1_p1,0,0", "n1c921k64_d2h3w3_z3y1x1_s2,1,1_p1,0,0", "n2c45k64_h9w11_y3x3_p1",
                     "n2c21k24_h11w11_y3x3_p2_dil2", "n2c90k48g2_h8w8_y3x3_p1", "n2c13k16_w40_x3_p1",
                     "n1c921k16_w50_x3_p1", "n2c231k24_d3h5w6_z1y3x3_s1,2,2_p0,1,1", "n2c71k32_w37_x5_s2_p2_dil2",
                     "n1c301k16_h7w7_y1x1", "n2c25k64_w40_x5_p2", "n2c45k64_d3h5w5_z3y3x3_p1"},
                    d, t);
    out.insert(out.end(), odd_c.begin(), odd_c.end());
    if (d == Direction::bwd_data) return out;
    // The run merge (one group, W dilation 1: a filter row's X taps as one
    // run of X x C elements, igemm_plan.cpp merges_run): the stems' C = 3 x
    // 7 at stride 2 (2D, 3D at stride 1,2,2, 1D), a longer reduction over
    // three N tiles, C = 5 x 5 and 7 x 3, C = 9 (merged above one vector),
    // C = 1 x 9; runs crossing the image's edges mid-vector: rows of 6
    // elements (both edges in one vector) and 9, asymmetric padding, W
    // stride 3, stride 1.
    const std::vector<Problem> merged =
        problems_of({"n2c3k16_h17w19_y7x7_s2_p3", "n2c3k64_d4h9w9_z3y7x7_s1,2,2_p1,3,3", "n2c3k8_w50_x7_s2_p3",
                     "n4c3k64_h56w56_y7x7_s2_p3", "n1c5k32_h11w13_y3x5_p1,2", "n2c7k16_h8w8_y3x3_p1",
                     "n2c9k16_h8w9_y3x3_p1", "n2c1k16_w40_x9_p4", "n1c3k8_h4w2_y3x7_p1,3", "n1c3k16_h5w3_y3x5_p1:0,2:1",
                     "n2c3k16_h9w12_y3x7_s1,3_p1,4:2", "n2c3k24_h15w15_y3x3_p1"},
                    d, t);
    out.insert(out.end(), merged.begin(), merged.end());
  }
  return out;
}

// wgmma fwd tiles of 96, 144 and 192 columns (docs/wgmma.md): K/G of 288,
// 192, 576, 960 and 144, so a group has several N tiles, whole and partial
// (288 = 3 x 96 = 2 x 144 = 192 + 96); G = 2 with whole 192-wide tiles (TMA
// stores of a group's tile) and with partial ones; 1D, 3D (1x3x3 and
// 3x3x3), a pointwise (flat TMA) load, C/G = 40 (cp.async only), stride 2,
// and M over several 256-row tiles. The bwd directions' 192-wide tiles
// take the same list (bwd_weight's N = C/G x taps: 576 = three tiles, G = 2
// with a tile a group), plus a reduction long enough (49 K tiles) that 22
// serial splits all carry work, and K = 230 (staged dy, _tma_ra) in 3D.
std::vector<Problem> wide_n_problems(Direction d, DType t) {
  return problems_of({"n2c64k288_h9w11_y3x3_p1", "n2c128k384g2_h7w9_y3x3_p1", "n1c64k576_d3h5w6_z1y3x3_p0,1,1",
                      "n2c64k960_w37_x3_p1", "n2c80k288g2_h9w9_y3x3_s2_p1", "n3c64k288_h9w11",
                      "n2c128k288g2_d3h6w5_z3y3x3_p1", "n2c64k192_h20w21_y3x3_p1", "n4c64k232_h28w28_y3x3_p1",
                      "n2c128k230_d2h14w14_z1y3x3_p0,1,1"},
                     d, t);
}

// wgmma TMA kernels with taps padded to whole channel blocks (wgmma/tma.hpp
// tap_k: fwd C/G, bwd_data K/G off 64 but on 16; tf32 off 32, on 8): a tap
// of 3 blocks whose last holds 1 K step (144), of 2 with 2 and 3 K steps
// (96 = 64 + 32, 80, 112 = 64 + 48), one partial block (48) in each of two
// groups (the boxes read the next group's channels, whose MMAs are
// skipped), strided bwd_data (phases), dilation 2, 1D and 3D, and C/G = 40
// (tf32: 32 + 8), and a grouped pointwise problem (flat loads, padded).
std::vector<Problem> tap_padded_problems(Direction d, DType t) {
  return problems_of({"n2c144k144_h9w11_y3x3_p1", "n2c96k80_h10w10_y3x3_s2_p1", "n2c96k96g2_h7w9_y3x3_p1",
                      "n1c144k144_d3h5w6_z3y1x1_p1,0,0", "n1c64k144_d3h5w6_z1y3x3_p0,1,1", "n2c48k48_w37_x3_p1",
                      "n2c208k112_h6w7_y3x3_p1_dil2", "n2c40k64_h9w9_y3x3_p1", "n3c112k208_h11w9_y1x3_p0,1",
                      "n2c160k96g2_h9w9_y1x1"},
                     d, t);
}

// pw (pointwise streaming GEMM; kd = the reduction: C for fwd, K for
// bwd_data; nn = the output channels): every reduction bucket (kd 24, 58,
// 116, 230) with nn = 200 (one N tile of 256, or N tiles of 128 / 64 / 32),
// in 1D, 2D and 3D; then the odd paths: kd off 8 (13, 129: 2-byte A
// fragments from rows packed back to back) and kd 40 / 72 (the last k-step
// half empty), nn off 8 (58, 116, 230, 17: the output as one contiguous
// range), row counts off the tile (63, 969), and M of 81,920 rows, where a
// block walks several tiles through its ring of stages.
std::vector<Problem> pw_problems(Direction d, DType t) {
  const struct {
    int kd, nn;
    const char* shape;
  } cases[] = {{24, 200, "n3_h17w19"}, {58, 200, "n2_h9w11"},    {116, 200, "n1_h7w9"},     {230, 200, "n2_h5w13"},
               {24, 200, "n3_w97"},    {58, 200, "n2_w61"},      {116, 200, "n1_w63"},      {230, 200, "n2_w65"},
               {24, 200, "n1_d3h5w7"}, {58, 200, "n2_d2h3w5"},   {116, 200, "n1_d2h6w6"},   {230, 200, "n1_d3h3w7"},
               {13, 58, "n4_h128w160"}, {40, 116, "n2_h31w33"},  {72, 230, "n1_h20w20"},    {256, 256, "n1_h8w8"},
               {3, 17, "n2_h9w9"},      {16, 9, "n2_h9w9"},     {129, 24, "n2_h11w13"},   {24, 58, "n2_d3h5w7"},     {58, 116, "n2_w301"},
               {64, 64, "n3_h17w19"},  {128, 128, "n2_h20w30"}};
  std::vector<Problem> out;
  for (const auto& c : cases) {
    const int cc = d == Direction::fwd ? c.kd : c.nn, kk = d == Direction::fwd ? c.nn : c.kd;
    const std::string shape = c.shape;
    const std::string spec = shape.substr(0, shape.find('_')) + "c" + std::to_string(cc) + "k" + std::to_string(kk) +
                             shape.substr(shape.find('_'));
    Problem p = *Problem::parse_spec(spec);
    p.direction = d;
    p.dtype = t;
    out.push_back(p);
  }
  return out;
}

struct Tally {
  int kernels = 0, runs = 0, failures = 0, uncovered = 0, build_failures = 0;
};

Tally check_pool(Direction d, DType t, int ndim, int sample) {
  Tally tally;
  auto rules = load_default_arch_rules();
  EXPECT_TRUE(rules.ok()) << rules.status().to_string();
  if (!rules.ok()) return tally;
  auto pool = load_pool(*rules, d, t);
  EXPECT_TRUE(pool.ok()) << pool.status().to_string();
  if (!pool.ok()) return tally;
  // GCONV_GPU_TEST_FAMILY=<name> checks only that family's kernels (a quick
  // run after a change to one family); the default is every family.
  const char* only = std::getenv("GCONV_GPU_TEST_FAMILY");
  // GCONV_GPU_TEST_FILTER=<expr> (the language of `gconv kernels --filter`)
  // narrows further, e.g. to the kernels a change touched.
  std::optional<Filter> filter;
  if (const char* f = std::getenv("GCONV_GPU_TEST_FILTER"); f && *f) {
    auto parsed = Filter::parse(f);
    EXPECT_TRUE(parsed.ok()) << parsed.status().to_string();
    if (!parsed.ok()) return tally;
    filter = std::move(*parsed);
  }
  std::vector<KernelTraits> kernels;
  for (const KernelTraits& k : *pool)
    if (k.ndim == ndim && (!only || !*only || std::string(to_string(k.family)) == only) &&
        (!filter || filter->matches(*rules, k)))
      kernels.push_back(k);
  if (sample > 0 && int(kernels.size()) > sample) {
    // A random sample that holds at least one kernel of each family (the
    // sanitizer runs must cover every family).
    std::mt19937_64 rng(std::random_device{}());
    std::shuffle(kernels.begin(), kernels.end(), rng);
    size_t front = 0;
    for (Family f : {Family::direct, Family::igemm, Family::wgmma}) {
      auto it = std::find_if(kernels.begin() + front, kernels.end(),
                             [f](const KernelTraits& k) { return k.family == f; });
      if (it != kernels.end()) std::iter_swap(kernels.begin() + front++, it);
    }
    // Both wgmma producers (cp.async gathers, TMA) when the pool has both.
    for (bool tma : {false, true}) {
      auto it = std::find_if(kernels.begin() + front, kernels.end(),
                             [tma](const KernelTraits& k) { return k.family == Family::wgmma && k.tma == tma; });
      if (it != kernels.end()) std::iter_swap(kernels.begin() + front++, it);
    }
    kernels.resize(std::max(size_t(sample), front));
  }
  tally.kernels = int(kernels.size());
  // Every pool has kernels; a family filter may leave none (wgmma has no
  // fp32 bwd_data / bwd_weight kernels): the caller reports that as a skip.
  if ((!only || !*only) && !filter) EXPECT_GT(tally.kernels, 0);
  if (tally.kernels == 0) return tally;

  // Compile everything first, in parallel (through the disk cache).
  std::vector<Status> built = prebuild(kernels, compile_jobs());
  std::vector<Problem> problems, cover;
  for (const Problem& p : odd_problems(d, t))
    if (p.ndim == ndim) problems.push_back(p);
  for (const Problem& p : covering_problems(d, t))
    if (p.ndim == ndim) cover.push_back(p);
  std::vector<Problem> packed, realign;
  for (const Problem& p : packed_problems(d, t))
    if (p.ndim == ndim) packed.push_back(p);
  for (const Problem& p : realign_problems(d, t))
    if (p.ndim == ndim) realign.push_back(p);
  std::vector<Problem> wide_n;
  for (const Problem& p : wide_n_problems(d, t))
    if (p.ndim == ndim) wide_n.push_back(p);
  std::vector<Problem> padded;
  for (const Problem& p : tap_padded_problems(d, t))
    if (p.ndim == ndim) padded.push_back(p);
  std::vector<Problem> pointwise;
  if (d != Direction::bwd_weight)
    for (const Problem& p : pw_problems(d, t))
      if (p.ndim == ndim) pointwise.push_back(p);

  Checker checker;
  std::random_device rd;
  uint64_t seed = (uint64_t(rd()) << 32) ^ rd();
  for (const Problem& p : problems) {
    RunCheck rc = checker.naive_matches_cpu(p, ++seed);
    EXPECT_TRUE(rc.ok()) << "naive kernel vs CPU reference on " << p.to_spec() << ": " << rc.describe();
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string name = kernel_name(kernels[i]);
    if (!built[i].ok()) {
      ++tally.build_failures;
      ADD_FAILURE() << name << ": build failed: " << built[i].to_string();
      continue;
    }
    auto inst = load_instance(kernels[i]);
    if (!inst.ok()) {
      ++tally.build_failures;
      ADD_FAILURE() << name << ": load failed: " << inst.status().to_string();
      continue;
    }
    int checked = 0;
    auto try_problem = [&](const Problem& p) {
      if (!(*inst)->family->can_implement(kernels[i], p, nullptr)) return;
      ++checked;
      ++tally.runs;
      RunCheck rc = checker.run(**inst, p, ++seed);
      if (!rc.ok()) {
        ++tally.failures;
        ADD_FAILURE() << name << " on " << p.to_spec() << ": " << rc.describe();
      }
    };
    for (const Problem& p : problems) try_problem(p);
    if (kernels[i].packed)
      for (const Problem& p : packed) try_problem(p);
    if (kernels[i].realign)
      for (const Problem& p : realign) try_problem(p);
    const int tn = kernels[i].tile_n;
    if (kernels[i].family == Family::wgmma && (tn == 96 || tn == 144 || tn == 192))
      for (const Problem& p : wide_n) try_problem(p);
    if (kernels[i].family == Family::pw)
      for (const Problem& p : pointwise) try_problem(p);
    if (kernels[i].family == Family::wgmma && kernels[i].tma)
      for (const Problem& p : padded) try_problem(p);
    // tinyc kernels take every covering problem too: the odd list's stem has
    // K = 16, one of the kernel's 64-channel chunks; so do the register-window
    // bwd_weight kernels, whose multi-block regions only the larger covering
    // sizes reach.
    if (checked == 0 || kernels[i].family == Family::tinyc ||
        (kernels[i].win_fx > 0 && kernels[i].direction == Direction::bwd_weight))
      for (const Problem& p : cover) try_problem(p);
    if (checked == 0) {
      ++tally.uncovered;
      ADD_FAILURE() << name << ": no test problem fits this kernel, so it was not checked";
    }
  }
  std::printf("TALLY %s %s %dd: kernels=%d runs=%d failures=%d build_failures=%d uncovered=%d\n", to_string(d),
              to_string(t), ndim, tally.kernels, tally.runs, tally.failures, tally.build_failures, tally.uncovered);
  return tally;
}

struct PoolCase {
  Direction d;
  DType t;
  int ndim;
  int sample;  // 0 = every kernel
};

class PoolCorrectness : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolCorrectness, EveryKernelMatchesReference) {
  const PoolCase& c = GetParam();
  int sample = c.sample;
  if (sample_limit() > 0) sample = sample ? std::min(sample, sample_limit()) : sample_limit();
  Tally t = check_pool(c.d, c.t, c.ndim, sample);
  if (t.kernels == 0 && !HasFailure()) GTEST_SKIP() << "no kernel of GCONV_GPU_TEST_FAMILY / _FILTER in this pool";
  EXPECT_EQ(t.failures, 0);
  EXPECT_EQ(t.build_failures, 0);
  EXPECT_EQ(t.uncovered, 0);
}

std::vector<PoolCase> cases() {
  std::vector<PoolCase> out;
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    for (int nd : {1, 2, 3}) {
      out.push_back({d, DType::bf16, nd, 0});
      out.push_back({d, DType::fp16, nd, 12});
      out.push_back({d, DType::fp32, nd, 12});
    }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Pools, PoolCorrectness, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<PoolCase>& i) {
                           return std::string(to_string(i.param.d)) + "_" + to_string(i.param.t) + "_" +
                                  std::to_string(i.param.ndim) + "d";
                         });

}  // namespace
}  // namespace gconv::gputest
