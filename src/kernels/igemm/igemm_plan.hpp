// Host side of the igemm family without the CUDA runtime: the rules an
// instance enforces (can_implement), its workspace, its source text, and the
// launch plan (kernel parameters, grid, shared memory) for one problem.
// igemm_family.cpp wraps these into the KernelFamily contract and launches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "core/int_math.hpp"
#include "gconv/status.hpp"
#include "kernels/igemm/params.cuh"
#include "kernels/traits.hpp"

namespace gconv::igemm {

// Largest dynamic shared memory per block on sm_90 (227 KB, opt-in).
inline constexpr size_t kMaxSmemBytes = 232448;
inline constexpr int kReduceThreads = 256;

// Rules on the traits alone: the instance compiles, its warps, loaders and
// pipeline fit together, its shared memory fits. On false, *why names the rule.
bool traits_ok(const KernelTraits& t, std::string* why);

// traits_ok, plus: the instance's direction, dtype and ndim are the problem's,
// the channel counts its vector width needs, the per-group GEMM N fits a
// group's columns when groups_per_block > 1, and the index range fits int32.
bool can_implement(const KernelTraits& t, const Problem& p, std::string* why);

// The problem's half of can_implement, for callers that test many kernels
// against one problem (the registry's ranking): check_problem validates and
// measures the problem once, so that can_implement(t, facts) costs only the
// rules that depend on the kernel, and builds no string when why is null.
// can_implement(t, p, why) is can_implement(t, check_problem(p), why): one
// predicate either way. The facts point at p, which must outlive them.
struct ProblemFacts {
  const Problem* problem = nullptr;
  bool valid = false;      // p.validate().ok(); the other fields are set only when true
  bool coords_ok = false;  // spatial sizes, pads, dilated filters below 2^29
  bool index_ok = false;   // padded index ranges below 2^31
  int64_t cg = 0, kg = 0;
  int64_t group_n = 0;          // per-group GEMM N
  int64_t m_rows = 0;           // GEMM M the grid tiles (bwd_data: its largest stride phase)
  int64_t phases = 1;           // bwd_data stride phases, else 1
  int64_t output_elements = 0;  // y, dx or dw
};
ProblemFacts check_problem(const Problem& p);
bool can_implement(const KernelTraits& t, const ProblemFacts& f, std::string* why);
// The rules of can_implement after traits_ok: can_implement(t, f, why) is
// traits_ok(t, why) && problem_ok(t, f, why). For callers that know traits_ok
// of a kernel already (the registry, once per pool kernel).
bool problem_ok(const KernelTraits& t, const ProblemFacts& f, std::string* why);
size_t workspace_bytes(const KernelTraits& t, const ProblemFacts& f);

// Dynamic shared memory of gconv_main (all pipeline stages).
size_t smem_bytes(const KernelTraits& t);

// The tiled GEMM of one group block from its per-group extents: a packed
// kernel's groups widen M (bwd_weight) or K (fwd / bwd_data) by
// groups_per_block, and its N tiles cover all the block's columns; other
// kernels give each group tile_n / groups_per_block columns. One definition
// for the launch plan, the analytic estimate and the selector's features.
// Inline: ranking calls them per pool kernel.
inline int64_t block_rows(const KernelTraits& t, Direction d, int64_t m_rows) {
  return t.packed && d == Direction::bwd_weight ? m_rows * t.groups_per_block : m_rows;
}
inline int64_t block_k(const KernelTraits& t, Direction d, int64_t k_len) {
  return t.packed && d != Direction::bwd_weight ? k_len * t.groups_per_block : k_len;
}
inline int64_t n_tiles_of(const KernelTraits& t, int64_t group_n) {
  if (t.packed) return ceil_div(group_n * t.groups_per_block, t.tile_n);
  return ceil_div(group_n, t.tile_n / t.groups_per_block);
}

// fp32 split-K workspace: split_k output-sized slices (parallel), one slice
// (serial), then the one-launch fixup's words; 0 without split-K. "Output"
// is y, dx or dw by direction.
size_t workspace_bytes(const KernelTraits& t, const Problem& p);

// NVRTC source of the instance and its entry points: gconv_main, plus
// gconv_reduce with split-K.
std::string instance_source(const KernelTraits& t);
std::vector<std::string> entry_points(const KernelTraits& t);

struct LaunchPlan {
  IgemmParams params{};  // a, b, dst, ws are left null for the caller
  unsigned grid = 0;     // 1D grid of gconv_main
  unsigned cluster = 1;  // gconv_main launched in clusters of this many blocks (wgmma multicast)
  int threads = 0;
  size_t smem = 0;
  bool reduce = false;  // gconv_reduce runs after gconv_main
  unsigned reduce_grid = 0;
  size_t workspace = 0;         // bytes of workspace the launch needs
  bool zero_workspace = false;  // serial split-K without fixup accumulates into zeros
  size_t fixup_offset = 0;      // split-K: bytes from the workspace to its fixup words
};


// IgemmParams::div_mul / div_shift from n_tiles, g_blocks, phases and
// m_tiles (fast_div, params.cuh): shift = 31 + ceil(log2 d), mul =
// ceil(2^shift / d). grid_plan (and so make_plan) calls it.
void set_fast_div(IgemmParams& q);

// Requires can_implement(t, p); returns internal_error otherwise.
Result<LaunchPlan> make_plan(const KernelTraits& t, const Problem& p);

// The family-independent part of make_plan: kernel parameters, grid, reduce
// and workspace of the implicit GEMM that traits `t` tile (tile_m, tile_n,
// tile_k, split, groups_per_block); threads and smem are left 0. For kernel
// families that share IgemmParams and the block order (wgmma); requires that
// problem_ok(t, check_problem(p)) holds.
LaunchPlan grid_plan(const KernelTraits& t, const Problem& p);

}  // namespace gconv::igemm
