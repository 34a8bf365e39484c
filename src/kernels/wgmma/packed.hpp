// Packed wgmma weight gradients (traits packed, groups_per_block = gpb of 2,
// 4 or 8; name suffix _pk<gpb>; docs/packed.md "wgmma"): grouped layers with
// few channels per group, whose own GEMM (M = K/G rows, N = C/G * taps
// columns) fills a fraction of a 64-row wgmma tile and whose channel runs
// (32 bytes at C/G = 16) are too narrow for TMA's 64-channel boxes. The
// kernel runs the problem of G / gpb groups of gpb * C/G and gpb * K/G
// channels instead: the same tensors, read in whole 64-channel boxes, one
// block-diagonal GEMM per group block (gpb times the groups' MMA work, which
// is not what paces these layers), and its epilogue stores only the
// diagonal blocks, into dw's own layout (wgmma/epilogue.cuh PackedOut). One
// launch; unsplit, serial (one fp32 slice in dw's layout, converted inside
// the launch) or cluster split-K.
#pragma once

#include <string>

#include "gconv/problem.hpp"
#include "kernels/traits.hpp"

namespace gconv::wgmma {

bool packed(const KernelTraits& t);

// The problem the packed kernel runs: G / gpb groups (C and K unchanged).
// Requires packed_ok.
Problem packed_problem(const KernelTraits& t, const Problem& p);

// The unpacked kernel that runs it (packed off, one group per block): the
// plan, the tensor maps and the workspace are its on packed_problem.
KernelTraits packed_base(const KernelTraits& t);

// The packed rules: bwd_weight, G a multiple of gpb, C/G a multiple of 8
// (the epilogue's vectors stay in one group's run), the block's gpb * K/G
// rows within one M tile, serial split-K only with the one-launch fixup;
// then the base kernel's rules on packed_problem. On false, *why names the
// rule.
bool packed_ok(const KernelTraits& t, const Problem& p, std::string* why);

}  // namespace gconv::wgmma
