// The output comparison used by every GPU check: it must catch unwritten
// (poisoned) elements and off-by-more-than-rounding values, and accept
// one-ulp rounding differences.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "check/compare.hpp"
#include "gconv/numeric.hpp"

namespace gconv {
namespace {

Problem small(DType t) {
  Problem p;
  p.n = 2;
  p.c = p.k = 16;
  p.in = {1, 8, 8};
  p.filter = {1, 3, 3};
  p.pad_lo = p.pad_hi = {0, 1, 1};
  p.dtype = t;
  return p;
}

TEST(Compare, IdenticalPasses) {
  std::vector<uint16_t> ref(1000);
  fill_random(DType::bf16, ref.data(), 1000, 7);
  CompareResult r = compare_outputs(DType::bf16, ref.data(), ref.data(), 1000, tolerance_for(small(DType::bf16)));
  EXPECT_TRUE(r.ok) << r.summary();
  EXPECT_EQ(r.rel_norm_err, 0.0);
}

TEST(Compare, PoisonedElementFails) {
  std::vector<uint16_t> ref(1000), out;
  fill_random(DType::bf16, ref.data(), 1000, 7);
  out = ref;
  std::memset(&out[123], kPoisonByte, sizeof(uint16_t));
  CompareResult r = compare_outputs(DType::bf16, out.data(), ref.data(), 1000, tolerance_for(small(DType::bf16)));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.nonfinite, 1);
  EXPECT_EQ(r.first_bad, 123);
}

TEST(Compare, OneUlpAcceptedTenPercentRejected) {
  for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
    const int64_t n = 512;
    std::vector<double> refd(n);
    fill_random_f64(refd.data(), n, 3, t);
    std::vector<float> ref(n), out(n);  // fp32 storage big enough for all three
    std::vector<unsigned char> rb(n * 4), ob(n * 4);
    store_buffer(t, refd.data(), n, rb.data());
    // out = ref nudged by 1/2 of the rtol: within tolerance
    Tolerance tol = tolerance_for(small(t));
    std::vector<double> od(refd);
    for (auto& v : od) v *= 1 + tol.rtol / 2;
    store_buffer(t, od.data(), n, ob.data());
    EXPECT_TRUE(compare_outputs(t, ob.data(), rb.data(), n, tol).ok) << to_string(t);
    od[17] = refd[17] * 1.1;  // one element 10% off
    store_buffer(t, od.data(), n, ob.data());
    CompareResult r = compare_outputs(t, ob.data(), rb.data(), n, tol);
    EXPECT_FALSE(r.ok) << to_string(t);
    EXPECT_EQ(r.first_bad, 17) << to_string(t);
  }
}

}  // namespace
}  // namespace gconv
