// The pool's arch rules and the kernel families must agree: every kernel the
// pool expands to is one its family accepts (traits-level rules), and it can
// implement at least one problem of its direction/dtype/ndim. Otherwise the
// selector would rank kernels that can never run.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "kernels/family.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "pool/arch_rules.hpp"
#include "pool/pool.hpp"

namespace gconv {
namespace {

TEST(PoolFamilyAgreement, EveryIgemmPoolKernelPassesTheFamilyTraitRules) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  int checked = 0;
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
      auto pool = load_pool(*rules, d, t);
      ASSERT_TRUE(pool.ok()) << pool.status().to_string();
      for (const KernelTraits& k : *pool) {
        if (k.family != Family::igemm) continue;
        std::string why;
        EXPECT_TRUE(igemm::traits_ok(k, &why)) << kernel_name(k) << ": " << why;
        ++checked;
      }
    }
  EXPECT_GT(checked, 1000);
}

// A dense 64-channel problem fits every igemm kernel whose groups_per_block is
// 1; grouped ones need G with small per-group N. Direct kernels need a
// depthwise problem. One of these must fit each pool kernel.
TEST(PoolFamilyAgreement, EveryPoolKernelImplementsSomeProblem) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  const char* specs[] = {"n2c64k64_h9w9_y3x3_p1",      "n2c64k64g8_h9w9_y3x3_p1",  "n2c64k64g16_h9w9_y3x3_p1",
                         "n2c64k64g32_h9w9_y3x3_p1",   "n2c64k64g64_h9w9_y3x3_p1", "n2c128k128g64_h9w9_y1x1",
                         "n2c256k256g128_h9w9_y1x1",   "n2c64k64g64_h9w9_y1x1",    "n2c64k64g8_h9w9_y1x1",
                         "n2c64k64g4_h9w9_y1x1",       "n2c64k64g16_h9w9_y1x1",
                         // tinyc (bwd_data, C <= 8): a stride-2 stem
                         "n2c3k64_h32w64_y7x7_s2_p3",
                         // realigned igemm (an odd C/G for fwd, an odd K/G with C/G on the vector for bwd)
                         "n2c64k45_h9w9_y3x3_p1", "n2c45k64_h9w9_y3x3_p1",
                         // staged operands (wgmma _tma_ra: one group, bwd K or fwd C off 16-byte rows)
                         "n2c64k230_h9w9_y3x3_p1", "n2c230k64_h9w9_y3x3_p1"};
  // pw (pointwise, one group): a problem in every reduction bucket (tile_k
  // 32 / 64 / 128 / 256) times every output-channel bucket (tile_n), both
  // ways round (fwd reduces over C, bwd_data over K).
  std::vector<std::string> all(std::begin(specs), std::end(specs));
  for (int a : {24, 58, 116, 200})
    for (int b : {24, 58, 116, 200}) all.push_back("n2c" + std::to_string(a) + "k" + std::to_string(b) + "_h9w9");
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
      auto pool = load_pool(*rules, d, t);
      ASSERT_TRUE(pool.ok());
      for (const KernelTraits& k : *pool) {
        bool any = false;
        for (const std::string& s : all) {
          Problem p = *Problem::parse_spec(s);
          // Same shape in the kernel's ndim: move H/W sizes as needed.
          if (k.ndim == 1) {
            p.ndim = 1;
            p.in = {1, 1, 9};
            p.filter = {1, 1, p.filter[2]};
            p.pad_lo = {0, 0, p.pad_lo[2]};
            p.pad_hi = {0, 0, p.pad_hi[2]};
          } else if (k.ndim == 3) {
            p.ndim = 3;
            p.in = {4, 9, 9};
            p.filter = {p.filter[1], p.filter[1], p.filter[2]};
            p.pad_lo = {p.pad_lo[1], p.pad_lo[1], p.pad_lo[2]};
            p.pad_hi = p.pad_lo;
          }
          if (k.win_fx > 0) {  // register-window kernels: their own filter width and W stride
            p.filter[2] = k.win_fx;
            p.stride[2] = k.win_sx;
            p.pad_lo[2] = p.pad_hi[2] = k.win_fx / 2;
          }
          p.direction = d;
          p.dtype = t;
          if (family_of(k).can_implement(k, p, nullptr)) {
            any = true;
            break;
          }
        }
        EXPECT_TRUE(any) << kernel_name(k) << " implements none of the probe problems";
      }
    }
}

}  // namespace
}  // namespace gconv

namespace gconv {
namespace {

// Two pool kernels that compile to the same source must differ in a launch
// parameter (the split-K factor, which igemm passes at run time); otherwise
// the pool would carry duplicates the selector cannot tell apart.
TEST(PoolFamilyAgreement, KernelsSharingASourceDifferOnlyInSplitFactor) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok());
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
    auto pool = load_pool(*rules, d, DType::bf16);
    ASSERT_TRUE(pool.ok());
    std::map<std::string, std::vector<KernelTraits>> by_source;
    for (const KernelTraits& k : *pool) by_source[family_of(k).instance_source(k)].push_back(k);
    for (const auto& [src, ks] : by_source) {
      for (size_t i = 1; i < ks.size(); ++i) {
        KernelTraits a = ks[0], b = ks[i];
        EXPECT_NE(a.split_k, b.split_k) << kernel_name(a) << " and " << kernel_name(b) << " are the same kernel";
        a.split_k = b.split_k = 0;
        EXPECT_EQ(a, b) << kernel_name(ks[0]) << " and " << kernel_name(ks[i]) << " share a source";
      }
    }
    std::printf("%s bf16: %zu kernels, %zu distinct sources\n", to_string(d), pool->size(), by_source.size());
  }
}

}  // namespace
}  // namespace gconv
