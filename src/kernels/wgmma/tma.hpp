// Tensor maps of the wgmma family's TMA producer (traits.tma): the forward
// activations through the tensor memory accelerator's im2col mode, the
// weights through its tiled mode. The maps are encoded on the host for each
// launch (they hold the tensor addresses) through the driver entry points
// that cudaGetDriverEntryPointByVersion returns, so the library does not
// link libcuda. The arguments are computed without a driver (tma_args) so
// that CI checks them.
#pragma once

#include <cstdint>
#include <string>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/tensor_map.hpp"
#include "kernels/traits.hpp"

namespace gconv::wgmma {

using ::gconv::TensorMap;  // kernels/tensor_map.hpp
using ::gconv::TmaArgs;

// Whether traits t (t.tma) can load problem p through tensor maps. The
// channels an im2col load reads are one filter tap's, inside one group: fwd
// needs C/G a multiple of block_k, bwd_data K/G a multiple of 64 (strided:
// every strided input extent a multiple of its stride, so that all phases
// have the same positions per slot and share one map, bwd_data_corners),
// bwd_weight C/G a multiple of 64. Pointwise problems loaded flat (flat_ok, flat_enabled) have
// one tap: bwd_weight takes any C/G, and with one group fwd any C and
// bwd_data any K (the boxes past the channels come back as zeros; several
// groups would read the next group's channels into A against B's zeros, and
// 0 * inf is NaN); bwd_data any stride. Padding and dilated filter extents must lie inside the
// im2col ranges of the tensor rank (1D: 16-bit corners and offsets; 2D:
// corners [-128, 127], offsets [0, 255]; 3D: corners [-16, 15], offsets
// [0, 31]). On false, *why says why.
bool tma_ok(const KernelTraits& t, const Problem& p, std::string* why);

// Taps padded to whole channel blocks (IgemmParams::tap_k): fwd C/G or
// bwd_data K/G off block_k but a multiple of the MMA's K (16; tf32 8), with
// one block a stage (tile_k == block_k). The K walk then gives every tap
// that count rounded up to the block, so that a block never spans two taps
// (an im2col load is one tap's), and the consumers skip the MMAs of the K
// steps past the channels: the padding costs ring stages and the bytes the
// boxes load past the channels (the next group's, or the map's zeros), not
// tensor-core work. E.g. r2plus1d's C/G = 144 and 288 (3 x 1 x 1 fwd, 1 x 3
// x 3 bwd_data), whose TMA kernels needed a padded copy (staged.hpp) before.
// Returns that count, or 0 where the taps are whole blocks (or not
// padded: bwd_weight, staged instances, one group's flat loads).
int64_t tap_k(const KernelTraits& t, const Problem& p);

// bwd_data's dy im2col map over the stride phases (igemm/geometry.cuh
// PhaseGeom): phase ph of slot d holds the input positions ph + s * j, j <
// J = in / s, and the taps f = f0 + t * fs, whose dy coordinates are j + q0 -
// t * dq. Flipped (t' = T - 1 - t) they are j + lower_ph + t' * dq with
// lower_ph = q0 - (T - 1) * dq. One map serves every phase: its lower corner
// is the smallest lower_ph of the phases with taps, its upper corner leaves J
// filter bases a slot, and a phase's own shift lower_ph - lower joins its
// im2col offsets (max_offset: the largest offset any load uses). ok is
// false where J differs between phases (in % s != 0) or no phase has a tap.
struct PhaseCorners {
  bool ok = false;
  int64_t lower[3] = {0, 0, 0}, upper[3] = {0, 0, 0}, max_offset[3] = {0, 0, 0};
};
PhaseCorners bwd_data_corners(const Problem& p);

// The maps of the GEMM operands A and B (igemm/operands.cuh). Require tma_ok.
//   fwd:        A = x through im2col (filter bases of the output pixels),
//               B = w as a (F*C/G, K) matrix
//   bwd_data:   A = dy through im2col (taps flipped, bwd_data_corners;
//               stride 1: filter bases i + pad - dil * (F - 1) of the dx
//               positions), B = w as (C/G, F, K)
//   bwd_weight: A = dy as a (K, N*out) matrix, B = x through im2col with
//               block_k pixels and 64 channels a load
// flat (requires flat_ok): the im2col operand as a tiled (channels, N * pixels)
// matrix instead (the kernels' IgemmParams::tma_flat).
TmaArgs a_args(const KernelTraits& t, const Problem& p, bool flat = false);
TmaArgs b_args(const KernelTraits& t, const Problem& p, bool flat = false);
// fwd's B for a multicast launch (wgmma_family.cpp multicast_ok): b_args with
// a box of half the tile's rows, each block of a pair loading its half for both.
TmaArgs b_multicast_args(const KernelTraits& t, const Problem& p);
// Whether the operand the im2col loads read (fwd x, bwd_data dy, bwd_weight
// x) is a plain matrix of N * pixels rows of channels whose rows are the
// GEMM's rows (fwd, bwd_data) or K indices (bwd_weight): a pointwise problem,
// every filter extent 1, stride 1 and no padding. bwd_data may be strided:
// its phase 0 (the one with the tap) has dy's rows in order, the other
// phases no K tiles. It then loads through the
// tiled mode, which moves bytes faster than im2col mode: on an H100 the same
// GEMM (M = N = 1024, K = 6272) ran 1.7-2.3x slower as bwd_weight, whose
// stages carry 2-4 im2col boxes, than as fwd, which carries one
// (notes/device-runs.md, fifteenth session).
bool flat_ok(const Problem& p);
// GCONV_WGMMA_TMA_FLAT=0 (read once) keeps im2col loads for pointwise
// problems too, for A/B measurements; the problems that only a flat load can
// serve (tma_ok) then have no TMA kernel.
bool flat_enabled();
// Whether a TMA producer loads p flat: flat_ok and flat_enabled. tma_ok and
// the launch both ask this, so that what one accepts the other loads.
bool loads_flat(const Problem& p);

// bwd_weight's MN-major operands as one 3D box per stage instead of one 2D
// box per 64 channels: (64 channels, pixels, channel blocks of 64) with the
// blocks 128 bytes apart, a box of 64 x block_k x tile/64 lands as the
// tile's [block][row][128 bytes] layout. A (dy) when tile_m > 64 divides
// K/G; B (x, pointwise problems only, flat) when tile_n > 64 divides C/G: a
// tile reaching past the group would load whole blocks of zeros or of the
// next group (C/G = 64 under a 128-wide tile: 0.81-0.97 of the 2D boxes).
// blocks_args: the 3D map of `channels` (dy: K, x: C) with a box of `blocks`
// 64-channel blocks. The launch falls back to the 2D boxes if the driver
// refuses such a map.
bool dy_blocks_ok(const KernelTraits& t, const Problem& p);
bool x_blocks_ok(const KernelTraits& t, const Problem& p, bool flat);
TmaArgs blocks_args(const KernelTraits& t, const Problem& p, int64_t channels, int blocks);
// bwd_data's B (w as (c, tap, k)) likewise: one 4D box of 64 c x 1 tap x
// block_k k x tile_n / 64 channel blocks when tile_n > 64 divides C/G.
bool w_blocks_ok(const KernelTraits& t, const Problem& p);
TmaArgs w_blocks_args(const KernelTraits& t, const Problem& p);

// Whether the output of problem p can leave traits t's kernel through a
// tensor map (wgmma.cuh store_tma): a kernel with a staging area of its own
// whose tile rows are whole 128-byte boxes (tma_store), output rows an
// affine map of the GEMM rows (not bwd_data's strided phases), a multiple of
// 16 bytes long, and groups that start on 16-byte boundaries within a row.
// On false, *why says why (the kernel then stores from the staging area
// itself).
bool out_map_ok(const KernelTraits& t, const Problem& p, std::string* why = nullptr);

// The output as a 2D tiled map (rows of K, C or C/G * filter elements; a box
// of 128 bytes x the rows of one consumer warpgroup). Requires out_map_ok.
TmaArgs out_args(const KernelTraits& t, const Problem& p);

// Encodes args for the tensor at `base` (16-byte aligned) with 128-byte
// swizzle (the layout the kernels' K-major tiles and wgmma read). Errors
// name the driver call and its result.
Status encode_tensor_map(const TmaArgs& args, DType dtype, const void* base, TensorMap* out);

}  // namespace gconv::wgmma
