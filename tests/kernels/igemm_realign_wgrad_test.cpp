// Realigned igemm bwd_weight with an odd C/G (x, the B operand, read in
// 16-byte vectors from any offset; config.cuh OddCgConfig), per tap or with
// the run merge (the X taps of a filter row as one run of X * C elements:
// igemm_plan.cpp merges_run, docs/realign.md): the rules that admit it and
// refuse the rest with a reason, the padded GEMM columns of the launch plan
// and workspace, the column map the epilogue and the split-K fixup write
// through (params.cuh OddCgCols), a host mirror of the loader's addressing
// and per-element validity against the im2col definition, and NVRTC
// compiles of the instances for sm_90a without spills. The GPU check
// against the reference is Pools/PoolCorrectness (tests/gpu, realign_problems).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "compile_test_util.hpp"
#include "kernels/family.hpp"
#include "kernels/fixup.hpp"
#include "kernels/igemm/igemm_plan.hpp"

namespace gconv {
namespace {

KernelTraits wgrad(DType t, int ndim, int tm, int tn, SplitKMode mode, int split) {
  KernelTraits k;
  k.family = Family::igemm;
  k.direction = Direction::bwd_weight;
  k.dtype = t;
  k.ndim = ndim;
  k.tile_m = tm;
  k.tile_n = tn;
  k.tile_k = 32;
  k.warps_m = 2;
  k.warps_n = 2;
  k.stages = 4;
  k.split_mode = mode;
  k.split_k = split;
  k.vec = t == DType::fp32 ? 4 : 8;
  k.groups_per_block = 1;
  k.realign = true;
  return k;
}

Problem spec(const char* s, DType t) {
  Problem p = *Problem::parse_spec(s);
  p.direction = Direction::bwd_weight;
  p.dtype = t;
  return p;
}

bool accepts(const KernelTraits& t, const Problem& p, std::string* why) {
  why->clear();
  return igemm_family().can_implement(t, p, why);
}

TEST(IgemmRealignWgrad, AdmitsOddCgAboveOneVectorWithKgOnTheVector) {
  std::string why;
  // r2plus1d's layers (C = 921 and 45, K on the vector), 1D / 2D / 3D, G = 2.
  for (const char* s : {"n4c921k512_d2h7w7_z3y1x1_p1,0,0", "n4c921k512_d4h7w7_z3y1x1_s2,1,1_p1,0,0",
                        "n2c45k64_d4h9w9_z3y1x1_p1,0,0", "n2c45k64_h9w9_y3x3_p1", "n2c21k24_w40_x3_p1",
                        "n2c90k48g2_h8w8_y3x3_p1"})
    for (DType t : {DType::bf16, DType::fp16}) {
      const Problem p = spec(s, t);
      EXPECT_TRUE(accepts(wgrad(t, p.ndim, 64, 128, SplitKMode::serial, 4), p, &why)) << s << ": " << why;
    }
  // fp32: 16-byte vectors are 4 elements, so C/G = 45 is off them too.
  const Problem f32 = spec("n2c45k64_h9w9_y3x3_p1", DType::fp32);
  EXPECT_TRUE(accepts(wgrad(DType::fp32, 2, 64, 64, SplitKMode::none, 1), f32, &why)) << why;
  // The odd K/G kernels' problems still fit (C/G on the vector).
  const Problem odd_k = spec("n2c64k45_h9w9_y3x3_p1", DType::bf16);
  EXPECT_TRUE(accepts(wgrad(DType::bf16, 2, 64, 128, SplitKMode::none, 1), odd_k, &why)) << why;
}

TEST(IgemmRealignWgrad, RefusesWhatItDoesNotServeWithAReason) {
  const KernelTraits t = wgrad(DType::bf16, 2, 64, 64, SplitKMode::serial, 8);
  std::string why;
  // One vector or less of odd channels per tap (the rounding would waste
  // the tile) where the run merge does not apply either: X x C of one vector
  // or less (C = 1 with X = 3, C = 3 with X = 1), two groups (C/G = 3: a
  // pixel's channels are not one group's), W dilation 2 (the taps' channels
  // are not contiguous).
  for (const char* s : {"n2c1k64_h9w9_y3x3_p1", "n2c3k64_h9w9_y3x1_p1,0", "n2c6k64g2_h9w9_y3x3_p1",
                        "n2c3k64_h9w9_y3x3_p2_dil2", "n2c7k64_w20_x1"}) {
    const Problem p = spec(s, DType::bf16);
    EXPECT_FALSE(accepts(wgrad(DType::bf16, p.ndim, 64, 64, SplitKMode::serial, 8), p, &why)) << s;
    EXPECT_NE(why.find("more than one vector"), std::string::npos) << s << ": " << why;
    EXPECT_NE(why.find("C/G"), std::string::npos) << s << ": " << why;
    EXPECT_NE(why.find("run merge"), std::string::npos) << s << ": " << why;
  }
  // Even C below the vector: neither geometry (the aligned vec 2 / 4 kernels).
  EXPECT_FALSE(accepts(t, spec("n2c6k64_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("odd C/G"), std::string::npos) << why;
  // Even C/G off the vector: the vec 2 / 4 kernels serve it.
  EXPECT_FALSE(accepts(t, spec("n2c46k64_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("odd C/G"), std::string::npos) << why;
  // Both counts off the vector: no body for that (igemm.cuh igemm_main).
  EXPECT_FALSE(accepts(t, spec("n2c45k23_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("both"), std::string::npos) << why;
  EXPECT_NE(why.find("K/G (23)"), std::string::npos) << why;
  // Both on the vector: the aligned kernels.
  EXPECT_FALSE(accepts(t, spec("n2c48k64_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("both are multiples of vec"), std::string::npos) << why;
  // An odd C/G with K/G even but off the vector.
  EXPECT_FALSE(accepts(t, spec("n2c45k46_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("both"), std::string::npos) << why;
  // Traits: one group per block, not packed, 16-byte vectors.
  KernelTraits bad = t;
  bad.groups_per_block = 2;
  EXPECT_FALSE(igemm::traits_ok(bad, &why));
  EXPECT_NE(why.find("one group per block"), std::string::npos) << why;
  bad.packed = true;
  EXPECT_FALSE(igemm::traits_ok(bad, &why));
  bad = t;
  bad.vec = 4;
  EXPECT_FALSE(igemm::traits_ok(bad, &why));
  EXPECT_NE(why.find("16-byte"), std::string::npos) << why;
  // Bwd_data takes an odd C/G with its own body (config.cuh NarrowBConfig:
  // w in 2-byte pieces, dx stored where it lands), not both counts off.
  KernelTraits bd = t;
  bd.direction = Direction::bwd_data;
  Problem p = spec("n2c45k64_h9w9_y3x3_p1", DType::bf16);
  p.direction = Direction::bwd_data;
  EXPECT_TRUE(accepts(bd, p, &why)) << why;
  p = spec("n2c45k23_h9w9_y3x3_p1", DType::bf16);
  p.direction = Direction::bwd_data;
  EXPECT_FALSE(accepts(bd, p, &why));
  EXPECT_NE(why.find("both"), std::string::npos) << why;
}

// The plan's GEMM columns: F taps x C/G rounded up to vec; grid and serial
// split-K workspace (fixup words per output tile) follow them, the output
// (dw, one fp32 slice) does not.
TEST(IgemmRealignWgrad, PlanPadsTheColumnsPerTap) {
  const Problem p = spec("n4c921k512_d2h7w7_z3y1x1_p1,0,0", DType::bf16);  // F = 3, C/G = 921 -> 928
  KernelTraits t = wgrad(DType::bf16, 3, 64, 128, SplitKMode::serial, 4);
  auto plan = igemm::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& q = plan->params;
  EXPECT_EQ(q.gemm_n, 3 * 928);
  EXPECT_EQ(q.gemm_m, 512);
  EXPECT_EQ(q.n_tiles, (3 * 928 + 127) / 128);  // 22 (unpadded 2763 would also give 22)
  EXPECT_EQ(q.m_tiles, 512 / 64);
  EXPECT_EQ(q.out_elems, 512 * 3 * 921);
  EXPECT_EQ(plan->grid, unsigned(q.n_tiles * q.m_tiles * 4));
  const int64_t tiles = int64_t(q.n_tiles) * q.m_tiles;
  EXPECT_EQ(plan->workspace, fixup_words_offset(q.out_elems) + fixup_words_bytes(tiles));
  EXPECT_EQ(igemm::workspace_bytes(t, p), plan->workspace);

  // Where the padding adds a tile: 5 taps x C/G 25 -> 5 x 32 = 160 columns,
  // three 64-wide tiles (the unpadded 125 would take two).
  const Problem p5 = spec("n2c25k64_w40_x5_p2", DType::bf16);
  t = wgrad(DType::bf16, 1, 64, 64, SplitKMode::parallel, 64);
  auto plan5 = igemm::make_plan(t, p5);
  ASSERT_TRUE(plan5.ok()) << plan5.status().to_string();
  EXPECT_EQ(plan5->params.gemm_n, 5 * 32);
  EXPECT_EQ(plan5->params.n_tiles, 3);
  EXPECT_EQ(plan5->grid, 3u * 1u * 64u);
  // Slices of dw, unpadded; then the fixup's words of the 3 output tiles.
  EXPECT_EQ(plan5->workspace, fixup_words_offset(int64_t{64} * 64 * 5 * 25) + fixup_words_bytes(3));
  EXPECT_TRUE(plan5->reduce) << "64 slices of a 64x64 tile (1 MB) are summed by the reduce kernel";

  // C/G on the vector (the odd K/G body): columns unchanged.
  const Problem odd_k = spec("n2c64k45_h9w9_y3x3_p1", DType::bf16);
  t = wgrad(DType::bf16, 2, 64, 128, SplitKMode::none, 1);
  auto plank = igemm::make_plan(t, odd_k);
  ASSERT_TRUE(plank.ok());
  EXPECT_EQ(plank->params.gemm_n, 9 * 64);
  // Not realigned: columns unchanged too.
  KernelTraits v1 = t;
  v1.realign = false;
  v1.vec = 1;
  auto plan1 = igemm::make_plan(v1, spec("n2c45k64_h9w9_y3x3_p1", DType::bf16));
  ASSERT_TRUE(plan1.ok());
  EXPECT_EQ(plan1->params.gemm_n, 9 * 45);
}

// The column map on odd shapes: the existing columns (j < the run: C/G per
// tap, X * C merged) land on every element of a filter row exactly once, at
// tap * run + j; a run of columns from a multiple of 4 (the fixup's vectors;
// the epilogue's 8- and 2-column runs start on multiples of 8 and 2) is
// contiguous up to its tap's end, and `avail` counts exactly its existing
// columns.
TEST(IgemmRealignWgrad, ColumnMapCoversEachFilterRowElementOnce) {
  struct Case {
    int cg, taps, vec;  // cg: the run
  };
  for (const Case c : {Case{45, 3, 8}, Case{921, 3, 8}, Case{9, 27, 8}, Case{21, 9, 8}, Case{13, 5, 4},
                       Case{45, 3, 4}, Case{17, 1, 8}, Case{21, 7, 8}, Case{21, 21, 8}, Case{25, 3, 8}, Case{21, 7, 4}}) {
    igemm::IgemmParams q{};
    q.xrun = c.cg;
    const int cpk = (c.cg + c.vec - 1) / c.vec * c.vec;
    q.gemm_n = c.taps * cpk;
    const igemm::OddCgCols cols(q, c.vec);
    std::set<int> seen;
    for (int nn = 0; nn < q.gemm_n + 16; ++nn) {
      int avail = 0;
      const int off = cols.map(nn, avail);
      const int tap = nn / cpk, ch = nn % cpk;
      const bool exists = nn < q.gemm_n && ch < c.cg;
      ASSERT_EQ(avail >= 1, exists) << c.cg << " " << nn;
      if (!exists) continue;
      EXPECT_EQ(off, tap * c.cg + ch);
      EXPECT_EQ(avail, c.cg - ch);
      EXPECT_TRUE(seen.insert(off).second) << "offset " << off << " twice";
      if (nn % 4 == 0) {
        // The run nn .. nn + 3: whole and contiguous when its last column exists.
        int last_avail = 0;
        const int last = cols.map(nn + 3, last_avail);
        if (last_avail >= 1) EXPECT_EQ(last, off + 3);
        EXPECT_EQ(last_avail >= 1, avail >= 4);
      }
    }
    EXPECT_EQ(seen.size(), size_t(c.cg) * c.taps);
    EXPECT_EQ(*seen.rbegin(), c.cg * c.taps - 1);
  }
}

// The run merge: one group, W dilation 1, odd C with X x C above one vector;
// always below one vector of channels (the per-tap geometry refuses those),
// above only where it saves a quarter of B's columns. The plan's columns are
// Z x Y taps x the run rounded up to vec, IgemmParams::xrun the run; grid and
// serial split-K fixup words follow the padded columns, dw (out_elems, the
// parallel slices) does not.
TEST(IgemmRealignWgrad, RunMergePlansZYTapsOfTheXTimesCRun) {
  struct Case {
    const char* spec;
    DType t;
    int xrun, gemm_n;
  };
  for (const Case& c : {
           Case{"n32c3k64_h224w224_y7x7_s2_p3", DType::bf16, 21, 7 * 24},            // ResNet-50's stem
           Case{"n4c3k64_d16h112w112_z3y7x7_s1,2,2_p1,3,3", DType::bf16, 21, 21 * 24},  // r3d_18's stem
           Case{"n2c3k8_w50_x7_s2_p3", DType::fp16, 21, 24},                           // 1D
           Case{"n1c5k32_h11w13_y3x5_p1,2", DType::bf16, 25, 3 * 32},
           Case{"n2c7k16_h8w8_y3x3_p1", DType::bf16, 21, 3 * 24},  // as many columns as per tap (3 x 8)
           Case{"n2c3k16_h8w8_y3x3_p1", DType::bf16, 9, 3 * 16},
           Case{"n2c9k16_h8w9_y3x3_p1", DType::bf16, 27, 3 * 32},     // 32 against 3 x 16 = 48: merged
           Case{"n2c1k16_w40_x9_p4", DType::bf16, 9, 16},             // C = 1, X = 9
           Case{"n2c3k16_h9w10_y3x5_p1,2", DType::fp32, 15, 3 * 16},  // vec 4: 15 -> 16
           // Per tap: C/G above one vector where merging saves less than a
           // quarter (C = 45: 136 against 144; 13: 40 against 48), G = 2, W
           // dilation 2, X = 1.
           Case{"n2c45k64_h9w11_y3x3_p1", DType::bf16, 45, 9 * 48},
           Case{"n2c13k16_w40_x3_p1", DType::bf16, 13, 3 * 16},
           Case{"n2c90k48g2_h8w8_y3x3_p1", DType::bf16, 45, 9 * 48},
           Case{"n2c21k24_h11w11_y3x3_p2_dil2", DType::bf16, 21, 9 * 24},
           Case{"n2c45k64_d4h6w6_z3y1x1_p1,0,0", DType::bf16, 45, 3 * 48},
           Case{"n2c45k64_h9w11_y3x3_p1", DType::fp32, 45, 9 * 48},
       }) {
    const Problem p = spec(c.spec, c.t);
    const KernelTraits t = wgrad(c.t, p.ndim, 64, 64, SplitKMode::serial, 16);
    std::string why;
    ASSERT_TRUE(accepts(t, p, &why)) << c.spec << ": " << why;
    auto plan = igemm::make_plan(t, p);
    ASSERT_TRUE(plan.ok()) << c.spec << ": " << plan.status().to_string();
    const igemm::IgemmParams& q = plan->params;
    EXPECT_EQ(q.xrun, c.xrun) << c.spec;
    EXPECT_EQ(q.gemm_n, c.gemm_n) << c.spec;
    EXPECT_EQ(q.Cg, p.c_per_group()) << c.spec;
    EXPECT_EQ(q.n_tiles, (c.gemm_n + 63) / 64) << c.spec;
    EXPECT_EQ(q.out_elems, p.k * p.filter_volume() * p.c_per_group()) << c.spec;
    EXPECT_EQ(q.g_blocks, p.g) << c.spec;
    EXPECT_EQ(plan->grid, unsigned(q.n_tiles * q.m_tiles * q.g_blocks * 16)) << c.spec;
    EXPECT_EQ(plan->workspace,
              fixup_words_offset(q.out_elems) + fixup_words_bytes(int64_t(q.n_tiles) * q.m_tiles * q.g_blocks))
        << c.spec;
    EXPECT_EQ(igemm::workspace_bytes(t, p), plan->workspace) << c.spec;
  }
  // Other kernels keep xrun = C/G (unused) and the real columns.
  KernelTraits v1 = wgrad(DType::bf16, 2, 64, 64, SplitKMode::none, 1);
  v1.realign = false;
  v1.vec = 1;
  auto plan1 = igemm::make_plan(v1, spec("n32c3k64_h224w224_y7x7_s2_p3", DType::bf16));
  ASSERT_TRUE(plan1.ok()) << plan1.status().to_string();
  EXPECT_EQ(plan1->params.xrun, 3);
  EXPECT_EQ(plan1->params.gemm_n, 147);
  // Parallel split-K: slices of dw, unpadded, then the fixup's words of the
  // 3 output tiles.
  const Problem stem = spec("n32c3k64_h224w224_y7x7_s2_p3", DType::bf16);
  auto planp = igemm::make_plan(wgrad(DType::bf16, 2, 64, 64, SplitKMode::parallel, 64), stem);
  ASSERT_TRUE(planp.ok());
  EXPECT_EQ(planp->grid, 3u * 64u);
  EXPECT_EQ(planp->workspace, fixup_words_offset(int64_t{64} * 64 * 147) + fixup_words_bytes(3));
}

// The stems' column maps: the plan's columns land on every dw element of a
// filter row (K x Z x Y x X x C) exactly once, the padded ones nowhere.
TEST(IgemmRealignWgrad, RunMergeColumnMapCoversTheStemsFilterRows) {
  for (const char* s : {"n32c3k64_h224w224_y7x7_s2_p3", "n4c3k64_d16h112w112_z3y7x7_s1,2,2_p1,3,3",
                        "n1c5k32_h11w13_y3x5_p1,2", "n2c1k16_w40_x9_p4"}) {
    const Problem p = spec(s, DType::bf16);
    auto plan = igemm::make_plan(wgrad(DType::bf16, p.ndim, 64, 64, SplitKMode::serial, 32), p);
    ASSERT_TRUE(plan.ok()) << s;
    const igemm::OddCgCols cols(plan->params, 8);
    std::set<int> seen;
    int padded = 0;
    for (int nn = 0; nn < plan->params.n_tiles * 64; ++nn) {
      int avail = 0;
      const int off = cols.map(nn, avail);
      if (avail < 1) {
        ++padded;
        continue;
      }
      EXPECT_TRUE(seen.insert(off).second) << s << ": offset " << off << " twice";
    }
    const int64_t row = p.filter_volume() * p.c;
    EXPECT_EQ(int64_t(seen.size()), row) << s;
    EXPECT_EQ(*seen.begin(), 0) << s;
    EXPECT_EQ(int64_t(*seen.rbegin()), row - 1) << s;
    EXPECT_EQ(int64_t(padded), plan->params.n_tiles * 64 - row) << s;
  }
}

// A host mirror of the odd C/G loader (loaders.cuh GatherMNMajor: init's
// column digits, load_into's addressing and per-pixel D / H test; realign.cuh
// load_row_raw and finish) on a tensor of distinct values: every B vector of
// the GEMM equals x at the tap and channel that the column map (OddCgCols)
// gives its columns in dw, zeros off the image; every byte it reads lies in
// the tensor; and the merged problems take both the two-chunk path and the
// edges' 2-byte path.
struct LoaderMirror {
  const igemm::IgemmParams& q;
  int vec, eb, kF;  // kF: the first spatial slot (3 - ndim)
  std::vector<uint16_t> x;  // the tensor as 2-byte halves (base 16-byte aligned at 0)
  int64_t fast = 0, slow = 0;

  LoaderMirror(const igemm::IgemmParams& q_, int vec_, int ndim) : q(q_), vec(vec_), eb(16 / vec_), kF(3 - ndim) {
    x.resize(size_t(q.batch) * q.in_vol * q.C * eb / 2);
    for (size_t i = 0; i < x.size(); ++i) x[i] = uint16_t(i % 65521 + 1);
  }
  uint16_t half(int64_t byte) const {
    EXPECT_TRUE(byte >= 0 && byte + 2 <= int64_t(x.size()) * 2) << "read at byte " << byte;
    return byte >= 0 && byte + 2 <= int64_t(x.size()) * 2 ? x[byte / 2] : 0;
  }
  // B[kk][nn0 .. nn0 + vec) as 8 halves, for group g.
  std::vector<uint16_t> load(int kk, int nn0, int g) {
    // init (nn0 < gemm_n)
    const int run = q.xrun, cpk = (run + vec - 1) / vec * vec, c = nn0 % cpk;
    int f = nn0 / cpk, lin = g * q.Cg + c;
    const int nbytes = std::min(run - c, vec) * eb;
    int ctc[3] = {0, 0, 0};
    for (int d = 2; d >= kF; --d) {
      const int radix = d == 2 && q.xrun != q.Cg ? 1 : q.filt[d];
      const int fd = f % radix;
      f /= radix;
      ctc[d] = fd * q.dil[d];
      lin += ctc[d] * q.in_inner[d] * q.C;
    }
    const int clin = lin;
    ctc[2] = ctc[2] * q.C + g * q.Cg + c;
    // load_into: the row's counter (KCounter::set) and coordinates
    int v4[4] = {0, 0, 0, 0}, r = kk;
    for (int d = 3; d > kF; --d) v4[d] = r % q.kc_radix[d], r /= q.kc_radix[d];
    v4[kF] = r;
    int pc[3] = {0, 0, 0};
    int rbase = v4[kF] * q.in_vol * q.C;
    for (int d = kF; d < 3; ++d) {
      pc[d] = v4[d + 1] * q.stride[d] - q.pad[d];
      rbase += pc[d] * q.in_inner[d] * q.C;
    }
    bool v = kk < q.gemm_k;
    for (int d = kF; d < 2; ++d) v &= unsigned(pc[d] + ctc[d]) < unsigned(q.in[d]);
    const int64_t addr = int64_t(v ? rbase + clin : 0) * eb;
    const int nb = v ? nbytes : 0, e = pc[2] * q.C + ctc[2], row = q.in[2] * q.C;
    // load_row_raw
    std::vector<uint16_t> raw(16, 0);
    int sh = int(addr & 15);
    const int fit = row >= vec ? row - vec + 1 : 0;
    const int64_t end = int64_t(x.size()) * 2;
    if (nb > 0 && unsigned(e) < unsigned(fit) && addr - sh + 32 <= end) {
      ++fast;
      for (int i = 0; i < 16; ++i) raw[i] = half(addr - sh + 2 * i);
    } else if (nb > 0) {
      ++slow;
      for (int i = 0; i < 8; ++i)
        if (2 * i < nb && unsigned(e + 2 * i / eb) < unsigned(row)) raw[i] = half(addr + 2 * i);
      sh = 0;
    }
    // finish: shifted by sh bytes, zeros past the column's nbytes
    std::vector<uint16_t> out(8, 0);
    for (int i = 0; i < 8; ++i) out[i] = 2 * i < nbytes ? raw[sh / 2 + i] : 0;
    return out;
  }
  // The same vector from the definition: x at the tap and channel of each
  // column's dw place (K x Z x Y x X x C/G), zeros off the image.
  std::vector<uint16_t> expect(int kk, int nn0, int g) const {
    int v4[4] = {0, 0, 0, 0}, r = kk;
    for (int d = 3; d > kF; --d) v4[d] = r % q.kc_radix[d], r /= q.kc_radix[d];
    v4[kF] = r;
    const igemm::OddCgCols cols(q, vec);
    std::vector<uint16_t> out(8, 0);
    for (int k = 0; k < vec; ++k) {
      int avail = 0;
      const int off = cols.map(nn0 + k, avail);
      if (avail < 1 || kk >= q.gemm_k) continue;
      const int c = off % q.Cg;
      int tap = off / q.Cg, pix = v4[kF];
      bool in = true;
      int f[3] = {0, 0, 0};
      for (int d = 2; d >= kF; --d) f[d] = tap % q.filt[d], tap /= q.filt[d];
      for (int d = kF; d < 3; ++d) {
        const int i = v4[d + 1] * q.stride[d] - q.pad[d] + f[d] * q.dil[d];
        in &= i >= 0 && i < q.in[d];
        pix = pix * q.in[d] + i;
      }
      if (!in) continue;
      const int64_t elem = int64_t(pix) * q.C + g * q.Cg + c;
      for (int h = 0; h < eb / 2; ++h) out[k * eb / 2 + h] = x[size_t(elem * eb / 2 + h)];
    }
    return out;
  }
};

TEST(IgemmRealignWgrad, LoaderMirrorReadsTheIm2colInsideTheTensor) {
  struct Case {
    const char* spec;
    DType t;
    bool merged;
  };
  for (const Case& c : {
           Case{"n2c3k16_h17w19_y7x7_s2_p3", DType::bf16, true},  // the 2D stem's geometry
           Case{"n2c3k64_d4h9w9_z3y7x7_s1,2,2_p1,3,3", DType::bf16, true},
           Case{"n2c3k8_w50_x7_s2_p3", DType::bf16, true},
           Case{"n1c5k32_h11w13_y3x5_p1,2", DType::bf16, true},
           Case{"n2c7k16_h8w8_y3x3_p1", DType::bf16, true},
           Case{"n1c3k8_h4w2_y3x7_p1,3", DType::bf16, true},  // a row of 6 elements: both edges in one vector
           Case{"n1c3k8_h5w3_y3x5_p1:0,2:1", DType::bf16, true},  // asymmetric padding, a row of 9
           Case{"n2c3k16_h9w12_y3x7_s1,3_p1,4:2", DType::bf16, true},
           Case{"n2c9k16_h8w9_y3x3_p1", DType::bf16, true},
           Case{"n2c1k16_w40_x9_p4", DType::bf16, true},
           Case{"n2c3k16_h9w10_y3x5_p1,2", DType::fp32, true},
           Case{"n2c45k64_h9w11_y3x3_p1", DType::bf16, false},
           Case{"n2c90k48g2_h8w8_y3x3_p1", DType::bf16, false},
           Case{"n2c21k24_h11w11_y3x3_p2_dil2", DType::bf16, false},
           Case{"n2c13k16_w40_x3_p1", DType::fp16, false},
           Case{"n2c45k16_d3h5w5_z3y3x3_p1", DType::fp32, false},
       }) {
    const Problem p = spec(c.spec, c.t);
    auto plan = igemm::make_plan(wgrad(c.t, p.ndim, 64, 64, SplitKMode::none, 1), p);
    ASSERT_TRUE(plan.ok()) << c.spec << ": " << plan.status().to_string();
    const igemm::IgemmParams& q = plan->params;
    EXPECT_EQ(q.xrun != q.Cg, c.merged) << c.spec;
    const int vec = c.t == DType::fp32 ? 4 : 8;
    LoaderMirror m(q, vec, p.ndim);
    int mismatches = 0;
    for (int g = 0; g < q.G; ++g)
      for (int kk = 0; kk < q.gemm_k; ++kk)
        for (int nn0 = 0; nn0 < q.gemm_n; nn0 += vec) {
          const std::vector<uint16_t> got = m.load(kk, nn0, g), want = m.expect(kk, nn0, g);
          if (got != want && ++mismatches <= 5) ADD_FAILURE() << c.spec << ": row " << kk << ", columns " << nn0 << "..";
        }
    EXPECT_EQ(mismatches, 0) << c.spec;
    // (Rows shorter than two vectors may hold no whole vector at a vector's offset.)
    if (q.in[2] * q.C >= 2 * vec) EXPECT_GT(m.fast, 0) << c.spec;
    // A merged run crosses the image's edges mid-vector: the 2-byte path.
    if (c.merged) EXPECT_GT(m.slow, 0) << c.spec;
  }
}

// The instances that take these problems (the pool's realign bwd_weight
// shapes: 64x128 / 128x64 / 64x64 / 32x64, serial, parallel and no split;
// 64x128 32s for the 3D stem's run merge), each with both bodies (odd K/G,
// odd C/G: per tap or merged, one body), compile for sm_90a without
// spilling.
TEST(IgemmRealignWgrad, InstancesCompileForSm90aWithoutSpills) {
  std::vector<KernelTraits> all = {
      wgrad(DType::bf16, 3, 64, 128, SplitKMode::serial, 4),   wgrad(DType::bf16, 1, 64, 64, SplitKMode::parallel, 64),
      wgrad(DType::fp16, 2, 32, 64, SplitKMode::serial, 32),   wgrad(DType::fp16, 3, 128, 64, SplitKMode::none, 1),
      wgrad(DType::bf16, 2, 64, 64, SplitKMode::serial, 32),   wgrad(DType::bf16, 3, 64, 128, SplitKMode::serial, 32),
      wgrad(DType::fp32, 2, 64, 64, SplitKMode::none, 1)};
  // fp32 as the pool has it: tile_k 16, 3 stages (tile_k 32 holds twice the
  // x vectors per thread, 16 x 16 bytes, and spills under the 168-register
  // cap of its 32x32 warp tile).
  all.back().tile_k = 16;
  all.back().stages = 3;
  std::vector<std::string> sources, names;
  for (const KernelTraits& t : all) {
    std::string why;
    ASSERT_TRUE(igemm::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
    sources.push_back(igemm_family().instance_source(t));
    names.push_back(kernel_name(t));
    EXPECT_EQ(names.back().substr(names.back().size() - 3), "_ra");
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t i = 0; i < all.size(); ++i)
    testing::expect_built_without_spills(results[i], names[i], igemm_family().entry_points(all[i]));
}

}  // namespace
}  // namespace gconv
