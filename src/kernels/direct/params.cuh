// DirectParams: the one kernel argument of every direct-family entry point.
//
// Plain data, compiled both by the host (src/kernels/direct/direct_plan.cpp
// fills it from a Problem) and by NVRTC, so it holds only ints and pointers
// and no device code. Spatial arrays use the Problem's 3 right-aligned slots
// (0 = D, 1 = H, 2 = W); unused slots are size 1, stride 1, dilation 1, pad 0,
// so the kernels always compute as 3D.
//
// Channel "slabs": a block owns kSlab = lanes * vec consecutive channels of
// what it writes (fwd: K of y, bwd_data: C of dx, bwd_weight: (k, c) pairs of
// dw). The source channels a slab reads form a contiguous span that the host
// bounds by *_cstride (shared-memory channel stride, elements).
#pragma once

namespace gconv::direct {

// Stages of window_wgrad's TMA pipeline at most (DirectParams::wg_stages).
inline constexpr int kWgradMaxStages = 4;

struct DirectParams {
  // Operands in ConvArgs order: fwd (x, w, y), bwd_data (dy, w, dx),
  // bwd_weight (x, dy, dw). `acc` is the fp32 accumulator of bwd_weight: the
  // workspace, or `out` itself for fp32 with atomics.
  const void* a;
  const void* b;
  void* out;
  float* acc;

  int n, c, k, g, cg, kg;
  int in[3], out_size[3], filt[3], stride[3], pad[3], dil[3];
  int depthwise;  // cg == 1 && kg == 1: the vectorized fast path

  // Grid decomposition (flattened into gridDim.x).
  int slabs;     // channel slabs
  int tiles[3];  // tiles of the spatial tensor a block writes (depth: 1 per slice)

  // Staged source tile: rows x cols pixels, channel stride in elements.
  int tile_rows, tile_cols, src_cstride;

  // bwd_data: per slot, taps valid for one position repeat every tap_step
  // taps, and the dy position then moves by -tap_delta.
  int tap_step[3], tap_delta[3];

  // bwd_weight: dy tile channel stride; taps per pass (of the Y*X plane),
  // tap slots and position groups per block, passes (= Z * chunks), chunks
  // per z-slice, splits of the (n, od, tile) items, items, and the splits
  // held in `acc` (1 with atomics, `splits` when deterministic).
  int dy_cstride;
  int taps_per_pass, tap_slots, pos_groups;
  int passes, chunks, splits, items, acc_splits;
  int dw_elements;  // K * filter volume * Cg

  // Register-window kernels (window.cuh), which also use `items` (rows of
  // R outputs: n * depth * height * strips of the tensor they walk): channel
  // vectors per block, strips of R outputs per row, items per block (fwd,
  // bwd_data) or per block and sweep (bwd_weight).
  int lanes, strips, items_per_block;
  // fwd / bwd_data: an item is rows_per_item consecutive rows of R outputs
  // (the rows a thread walks, so the source rows it reads again hit L1).
  int rows_per_item;

  // bwd_weight register-window kernel (window_wgrad.cuh): a step is wg_rows
  // consecutive dy rows of one (n, od) plane; wg_plane_steps steps a plane,
  // wg_steps = N * OD * wg_plane_steps a region (slab, z tap), split into
  // wg_blocks runs (gridDim.x); a slab is wg_slabw = lanes * vec channels.
  // Staged tiles: x wg_xw pixels wide at a pitch of wg_xp, dy wg_dyw =
  // strips * R wide at wg_dyp; a stage is wg_stage bytes, its x tile
  // wg_xbytes (16-aligned) of them.
  int wg_rows, wg_plane_steps, wg_steps, wg_blocks, wg_slabw;
  int wg_xw, wg_xp, wg_dyw, wg_dyp, wg_stage, wg_xbytes;
  int wg_probe;  // GCONV_DIRECT_WINDOW_PROBE: 0, or a timing probe (window_wgrad.cuh)
  // TMA loads (tensor maps of x and dy as (C, W, H, N * D) with boxes of
  // (slab, wg_xp, x rows, 1) and (slab, wg_dyp, wg_rows, 1)) in wg_stages
  // stages of wg_tx_bytes; else cp.async copies in two stages.
  int wg_tma, wg_stages, wg_tx_bytes;
  // fwd / bwd_data planned as window_stream.cuh's row stream (a _tma window
  // kernel; the wg_ fields above then describe its source tiles:
  // wg_xbytes = wg_stage, no dy tile), else window_gather.
  int wg_stream;

  // bwd_weight in one launch: wgrad.cuh's atomics (common/fixup.cuh) or
  // window_wgrad.cuh's slices added by a region's last block. fixup != 0
  // selects it (wgrad.cuh without it: the accumulator is zeroed before the
  // kernel and converted by gconv_finish); flags: three words per region
  // after the accumulator; epoch: unique per launch, never 0.
  unsigned long long* flags;
  unsigned long long epoch;
  int fixup;
};

}  // namespace gconv::direct
