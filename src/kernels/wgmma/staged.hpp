// Staged operands (wgmma TMA kernels with realign, name suffix _tma_ra;
// docs/realign.md "wgmma"): one group whose channel runs no tensor map can
// describe in place (rows off 16 bytes: r2plus1d's 230, 460, 921; or, for
// bwd_data, off the 64-channel blocks of its K walk) is first copied by
// gconv_pad (stage_rows.cuh) into the workspace with padded rows, zeros past
// the count, and the TMA kernel (the same traits without realign) reads the
// copies. bwd_data and bwd_weight copy dy (K padded); fwd copies x and w (C
// padded: the padded channels meet zeros on both sides).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gconv/problem.hpp"
#include "kernels/traits.hpp"

namespace gconv::wgmma {

bool staged(const KernelTraits& t);

// The count a staged problem pads (bwd: K, fwd: C) rounded up to what the
// TMA kernel needs: 8 (16-byte rows: bwd_weight's dy) or 64 (whole channel
// blocks per tap: bwd_data's dy, fwd's x and w).
int64_t padded_count(const Problem& p);
// p with that count padded: the problem of the copies.
Problem padded_problem(const Problem& p);
// The problem the TMA kernel is planned on: the padded one, except
// bwd_weight's (M = K: dw has K rows; the padded channels are only read).
Problem plan_problem(const Problem& p);
// The TMA kernel behind a staged instance (realign off).
KernelTraits staged_base(const KernelTraits& t);

// One copy gconv_pad makes: `rows` rows of `k` elements of ConvArgs' a (or
// b) into rows of `kp` at `offset` bytes into the workspace.
struct StagedCopy {
  bool from_b = false;
  int64_t rows = 0, k = 0, kp = 0;
  size_t offset = 0, bytes = 0;  // bytes rounded up to 256 (the next copy stays aligned)
};
struct StagedCopies {
  int n = 0;
  StagedCopy copy[2];
  size_t bytes = 0;  // all copies: the front of the workspace
};
StagedCopies staged_copies(const Problem& p);

// Whether a staged instance takes p (the rules, then the TMA kernel's on the
// padded problem); on false, *why names the rule.
bool staged_ok(const KernelTraits& t, const Problem& p, std::string* why);

}  // namespace gconv::wgmma
