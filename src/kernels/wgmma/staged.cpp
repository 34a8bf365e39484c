// Staged operands: the rules, the padded problem and the copies
// (staged.hpp). The launch: wgmma_family.cpp stage_operands.
#include "kernels/wgmma/staged.hpp"

#include "core/int_math.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv::wgmma {
namespace {

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

int64_t round_to(int64_t x, int64_t m) { return ceil_div(x, m) * m; }

}  // namespace

bool staged(const KernelTraits& t) { return t.family == Family::wgmma && t.tma && t.realign; }

int64_t padded_count(const Problem& p) {
  switch (p.direction) {
    case Direction::fwd: return round_to(p.c, 64);
    case Direction::bwd_data: return round_to(p.k, 64);
    case Direction::bwd_weight: return round_to(p.k, 8);
  }
  return 0;
}

Problem padded_problem(const Problem& p) {
  Problem q = p;
  (p.direction == Direction::fwd ? q.c : q.k) = padded_count(p);
  return q;
}

Problem plan_problem(const Problem& p) { return p.direction == Direction::bwd_weight ? p : padded_problem(p); }

KernelTraits staged_base(const KernelTraits& t) {
  KernelTraits b = t;
  b.realign = false;
  return b;
}

StagedCopies staged_copies(const Problem& p) {
  StagedCopies s;
  const size_t eb = size_t(dtype_bytes(p.dtype));
  const int64_t kp = padded_count(p);
  const auto add = [&](bool from_b, int64_t rows, int64_t k) {
    StagedCopy& c = s.copy[s.n++];
    c.from_b = from_b;
    c.rows = rows;
    c.k = k;
    c.kp = kp;
    c.offset = s.bytes;
    c.bytes = size_t(round_to(rows * kp * int64_t(eb), 256));
    s.bytes += c.bytes;
  };
  if (p.direction == Direction::fwd) {
    add(false, p.n * p.in_volume(), p.c);         // x: a pixel's C channels
    add(true, p.k * p.filter_volume(), p.c);       // w: a (k, tap)'s C channels
  } else {
    // ConvArgs: bwd_data a = dy, bwd_weight b = dy.
    add(p.direction == Direction::bwd_weight, p.n * p.out_volume(), p.k);
  }
  return s;
}

bool staged_ok(const KernelTraits& t, const Problem& p, std::string* why) {
  const char* what = p.direction == Direction::fwd ? "C" : "K";
  const int64_t count = p.direction == Direction::fwd ? p.c : p.k;
  if (p.g != 1)
    return fail(why, "staged (tma + realign): one group (a group's padded rows would shift the next group's channels)");
  if (p.dtype == DType::fp32) return fail(why, "staged (tma + realign): 16-bit types");
  if (count <= 64)
    return fail(why, std::string("staged (tma + realign): ") + what + " (" + std::to_string(count) +
                         ") of one block or less");
  // fwd: the copies of x and w pay where the GEMM re-reads x per tap
  // (r2plus1d's 3 x 1 x 1 layers on 230 and 921 channels: 1.05 -> 1.54 and
  // 0.89 -> 1.09 of cuDNN); on pointwise layers (C = 110, 116) the copy
  // moves as many bytes as the GEMM reads and ran 1.3-1.9x slower than the
  // cp.async kernels (H100, twenty-ninth session).
  if (p.direction == Direction::fwd && p.filter_volume() < 3)
    return fail(why, "staged (tma + realign): fwd staging pays only for filters of 3+ taps (x is re-read per tap)");
  if (count % 8 == 0) {
    if (p.direction != Direction::bwd_data)
      return fail(why, std::string("staged (tma + realign): ") + what + " (" + std::to_string(count) +
                           ") is a multiple of 8: the TMA kernels read the rows as they are");
    // bwd_data with dy's rows on 16 bytes but off 64: the copy pays where
    // the GEMM re-reads dy per tap and the padding adds little (r2plus1d's
    // K = 288 of 3 x 3 taps: 0.0525 against 0.0592 ms); pointwise layers
    // (K = 96 .. 672, 1 x 1) ran 1.4-3x slower than the cp.async kernels,
    // K = 144 (+33% MMA) 1.26x slower (H100, twenty-ninth session).
    if (p.k % 64 == 0)
      return fail(why, "staged (tma + realign): K (" + std::to_string(p.k) +
                           ") is a multiple of 64: the TMA kernels read dy as it is");
    if (p.filter_volume() < 3 || padded_count(p) * 8 > p.k * 9)
      return fail(why, "staged (tma + realign): K (" + std::to_string(p.k) +
                           ") is on the vector; staging it pays only for filters of 3+ taps padded by at most 1/8");
  }
  return wgmma::problem_ok(staged_base(t), igemm::check_problem(padded_problem(p)), why);
}

}  // namespace gconv::wgmma
