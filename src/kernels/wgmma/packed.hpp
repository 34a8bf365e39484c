// Packed wgmma weight gradients (traits packed, groups_per_block = gpb of 2,
// 4 or 8; name suffix _pk<gpb>; docs/packed.md "wgmma"): grouped layers with
// few channels per group, whose own GEMM (M = K/G rows, N = C/G * taps
// columns) fills a fraction of a 64-row wgmma tile and whose channel runs
// (32 bytes at C/G = 16) are too narrow for TMA's 64-channel boxes. The
// kernel runs ceil(G / gpb) group blocks of gpb * C/G and gpb * K/G channels
// instead: the same tensors, read in whole 64-channel boxes (a block's
// channels per tap padded up to them where gpb * C/G is not a multiple of
// 64, the padding's columns never stored; a last block partly empty where
// gpb does not divide G), one block-diagonal GEMM per group block (gpb times
// the groups' MMA work, which is not what paces these layers), and its
// epilogue stores only the diagonal blocks, into dw's own layout
// (wgmma/epilogue.cuh PackedOut). One launch; unsplit, serial (one fp32
// slice, converted inside the launch) or cluster split-K. TMA producer only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gconv/problem.hpp"
#include "kernels/traits.hpp"

namespace gconv::wgmma {

bool packed(const KernelTraits& t);

// GEMM columns per filter tap: gpb * C/G, rounded up to 64 (one im2col box)
// unless it is a multiple of 64 or the problem loads x flat (pointwise).
int64_t packed_tap_width(const KernelTraits& t, const Problem& p);

// The problem the packed kernel is planned on: ceil(G / gpb) groups of
// packed_tap_width input and gpb * K/G output channels. Its grid, GEMM
// extents and workspace are the packed kernel's (make_plan then sets the
// tensors' own C and K, the block's gpb * C/G channels and the diagonal
// blocks' extents); its tensors are not the problem's (the tensor maps are
// the problem's own). Requires packed_ok.
Problem packed_problem(const KernelTraits& t, const Problem& p);

// The unpacked kernel that runs it (packed off, one group per block).
KernelTraits packed_base(const KernelTraits& t);

// workspace_bytes of the packed kernel: its base kernel's on packed_problem
// (the serial slice is up to gpb times dw; the diagonal blocks use their
// part of it).
size_t packed_workspace_bytes(const KernelTraits& t, const Problem& p);

// The packed rules: bwd_weight, C/G a multiple of 8 (the epilogue's vectors
// stay in one group's run), K of 8 (dy's rows whole 16 bytes), the block's
// gpb * K/G rows within one M tile, at most half of a block's groups empty,
// serial split-K only with the one-launch fixup; then the base kernel's
// rules on packed_problem. On false, *why names the rule.
bool packed_ok(const KernelTraits& t, const Problem& p, std::string* why);

}  // namespace gconv::wgmma
