// Host planning of one direct-family launch: the one place that decides
// whether a (traits, problem) pair is implementable, and if so the kernel
// parameters, grid, shared memory and workspace. can_implement,
// workspace_bytes and launch all call plan_direct, so they cannot disagree.
//
// Rules (not_supported names the first one that fails):
//   - traits.family is direct and direction / dtype / ndim equal the problem's;
//     the problem validates;
//   - C/G and K/G are at most kMaxGroupChannels (depthwise and near-depthwise);
//   - vec is 1, 2, 4 or 8 and vec * dtype bytes <= 16; C and K divisible by vec;
//   - block_w divisible by per_thread; threads() a multiple of the pixel threads
//     (block_h * block_w / per_thread, block_h taken as 1 for 1D), <= 1024;
//   - the dynamic shared memory (source tile + fp32 weights, or for
//     bwd_weight the x and dy tiles and the reduction buffer) <= kMaxSmemBytes;
//   - coordinates fit 32-bit arithmetic with margin, and the grid fits gridDim.x.
// traits.deterministic matters for bwd_weight only (fwd and bwd_data are
// deterministic anyway); it is accepted and ignored for the other directions.
//
// Register-window kernels (traits.win_fx > 0, window.cuh) need in addition:
// depthwise (C/G = K/G = 1), filter width == win_fx, W stride == win_sx, W
// dilation 1, and for bwd_data with win_sx 1 every stride 1. They launch one kernel
// (gconv_win) in every direction, with no workspace for fwd and bwd_data;
// bwd_weight (window_wgrad.cuh) needs filter height <= win_fx and the
// registers of win_fx^2 * vec sums, and takes fp32 slices plus region words
// when a region (slab, z tap) has several blocks.
//
// Workspace (bwd_weight only, fp32): deterministic -> splits * dw elements;
// atomics with bf16/fp16 -> dw elements; atomics with fp32 -> none (dw itself
// accumulates). With the one-launch fixup (kernels/fixup.hpp, on unless
// GCONV_SPLITK_FIXUP=0) the tile kernels add, at fixup_offset (the above
// rounded up to 256 bytes), kFixupWords 8-byte words per (slab, pass)
// region; a deterministic plan of one split then needs no workspace (it
// stores dw). Nothing needs zeroing then; without the fixup launch() zeroes
// what the atomics need, and partials need no zeroing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/direct/params.cuh"
#include "kernels/tensor_map.hpp"
#include "kernels/traits.hpp"

namespace gconv {

inline constexpr int kMaxGroupChannels = 8;
// Group widths with a grouped entry of their own (gconv_g<G>).
inline constexpr int kDirectGroupedWidths[] = {2, 4, 8};
// Hopper's largest dynamic shared memory per block (227 KB).
inline constexpr size_t kMaxSmemBytes = 232448;
// bwd_weight: splits of the reduction aim at about this many blocks (a fixed
// number, not the device's, so that the workspace and the deterministic
// summation order depend on the problem only) ...
inline constexpr int64_t kWgradTargetBlocks = 1024;
// ... and the deterministic partials stay below this size.
inline constexpr int64_t kWgradMaxPartialBytes = int64_t{256} << 20;
// With atomics in one launch (kernels/fixup.hpp) every block waits for its
// atomics before it counts, so fewer, longer blocks pay: same run, one H200,
// every non-deterministic direct tile kernel, target 512 / 1024: each of 45
// depthwise training problems' best 1.018 (256: 1.022, 2048: 0.979, repeat
// 1.001); reported on the public set's 40 grouped and depthwise bwd_weight
// problems: 1.050 (notes/device-runs.md, twelfth session).
inline constexpr int64_t kWgradTargetBlocksOneLaunch = 512;

// window_wgrad (register-window bwd_weight): blocks a launch aims at, over
// all its regions (slab, z tap).
inline constexpr int64_t kWindowWgradBlocks = 2 * 132;

// How bwd_weight accumulates (fwd and bwd_data: none).
enum class WgradAccum {
  none,
  // With the one-launch fixup (params.fixup, kernels/fixup.hpp) the block of a
  // (slab, pass) region that starts first zeroes it (partials: its count)
  // and the one that counts last converts it (partials: adds the region's
  // slices in split order): no memset, no finish kernel. Without it:
  atomic_out,        // fp32: atomicAdd straight into dw (zeroed first); no finish kernel
  atomic_workspace,  // bf16/fp16: atomicAdd into a zeroed fp32 workspace, then finish converts
  partials,          // deterministic: per-split partials, finish sums them in split order
};

struct DirectPlan {
  direct::DirectParams params{};  // operand pointers are left null
  int threads = 0;
  int64_t blocks = 0;  // gridDim.x of gconv_main (or gconv_win)
  int64_t grid_y = 1, grid_z = 1;  // gconv_win: channel slabs, and (bwd_weight) filter rows
  size_t smem = 0;     // dynamic shared memory of gconv_main, bytes
  size_t workspace = 0;
  WgradAccum accum = WgradAccum::none;
  int64_t finish_blocks = 0;  // gconv_finish grid (256 threads), 0 = not launched
  size_t fixup_offset = 0;    // params.fixup: bytes from the workspace to the region words
  // Tile kernels: G of the grouped entry the launch runs (gconv_g<G>, Cg = Kg
  // = G in kDirectGroupedWidths; bwd_data only where block_w / per_thread is
  // a multiple of the W stride), 0 for the general or depthwise entry.
  int grouped = 0;
  // Every block of the main launch (gconv_win's grid is 3D).
  int64_t total_blocks() const { return blocks * grid_y * grid_z; }
  // Kernel launches run() makes: the main kernel, plus a memset and a finish
  // kernel where the one-launch fixup is off.
  int launches() const {
    if (params.fixup) return 1;
    const bool atomic = accum == WgradAccum::atomic_out || accum == WgradAccum::atomic_workspace;
    return 1 + (atomic ? 1 : 0) + (finish_blocks > 0 ? 1 : 0);
  }
};

Result<DirectPlan> plan_direct(const KernelTraits& t, const Problem& p);

// The problem's part of planning, measured once by callers that plan many
// kernels on one problem (ranking, features). It points at p, which must
// outlive it.
struct DirectProblem {
  const Problem* problem = nullptr;
  bool valid = false;          // p.validate().ok()
  int64_t out[3] = {0, 0, 0};  // p.out(i), when valid
};
DirectProblem direct_problem(const Problem& p);
// The rules of plan_direct that read the problem alone (valid, C/G and K/G
// at most kMaxGroupChannels): where false, no direct kernel plans it, so a
// caller ranking a pool skips the family without planning each kernel.
inline bool direct_problem_ok(const DirectProblem& dp) {
  return dp.valid && dp.problem->c_per_group() <= kMaxGroupChannels &&
         dp.problem->k_per_group() <= kMaxGroupChannels;
}
// plan_direct(t, *dp.problem) without its message: true and *plan filled
// exactly where plan_direct returns a plan (the same rules, in one function).
bool plan_direct(const KernelTraits& t, const DirectProblem& dp, DirectPlan* plan);

// Bytes a window_wgrad plan (register-window bwd_weight) moves from L2 to the
// SMs: every step's x tile (halo rows included) and dy tile over the padded
// slabs, and the workspace slices written and read once.
double window_wgrad_l2_bytes(const Problem& p, const DirectPlan& plan);

// The fp32 values a row-stream thread keeps in registers (window_wgrad.cuh's
// sums, window_stream.cuh's weights: win_fx^2 taps of vec channels, plus R
// dy or output vectors), and the most that do not spill.
int64_t window_stream_floats(const KernelTraits& t);
inline constexpr int64_t kWindowStreamFloats = 160;
// Whether traits t can be a row-stream kernel (window_stream.cuh, the _tma
// window kernels): fwd / bwd_data window kernels within that budget.
bool window_stream_compiled(const KernelTraits& t);
// The source map of a window_stream plan (params.wg_stream): x, or dy for
// bwd_data, as (C, W, H, N * D) with a box of (slab, pitch, rows read, 1).
TmaArgs window_stream_src_map(const Problem& p, const DirectPlan& plan);

// Bytes a register-window plan moves from L2 to the SMs, as the analytic
// estimate and the selector's features count them: window_wgrad's staged
// tiles (above); the row stream's source boxes (one per step and slab);
// window_gather's WIN source pixels per item and filter row (read through
// L1/L2); plus the output's out_elements.
double window_l2_bytes(const KernelTraits& t, const Problem& p, const DirectPlan& plan, double out_elements);

// The tensor maps of a window_wgrad plan with params.wg_tma (x, dy).
TmaArgs window_wgrad_x_map(const Problem& p, const DirectPlan& plan);
TmaArgs window_wgrad_dy_map(const Problem& p, const DirectPlan& plan);

// Widest contiguous source-channel span (multiple of vec) that one slab of
// `slab` destination channels reads, when destination channel o reads the sg
// source channels of group o / og (exact maximum over all slabs).
int direct_max_span(int64_t dst_total, int64_t src_total, int slab, int og, int sg, int vec);

}  // namespace gconv
