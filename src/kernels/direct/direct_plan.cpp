// Planning of direct-family launches (contract in direct_plan.hpp). Every size
// here mirrors an index computation of the device code in src/kernels/direct
// (named beside each), so a change there needs the same change here.
#include "kernels/direct/direct_plan.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/int_math.hpp"
#include "jit/env.hpp"
#include "kernels/fixup.hpp"

namespace gconv {
namespace {

int64_t round_down(int64_t a, int64_t m) { return a / m * m; }
int64_t round_up(int64_t a, int64_t m) { return ceil_div(a, m) * m; }
int64_t align16(int64_t bytes) { return round_up(bytes, 16); }

// common.cuh source_span: [lo, hi) read by destination channels [o_lo, o_hi).
void source_span(int64_t o_lo, int64_t o_hi, int64_t og, int64_t sg, int64_t src_total, int vec, int64_t* lo,
                 int64_t* hi) {
  *lo = round_down(o_lo / og * sg, vec);
  *hi = std::min(src_total, round_up(((o_hi - 1) / og + 1) * sg, vec));
}

// The span of slab i repeats (shifted by a multiple of vec) every `period`
// slabs, and a truncated last slab is never wider than a full one, so the
// first min(slabs, period) slabs give the exact maximum.
int64_t slab_period(int64_t slab, int64_t unit) { return unit / std::gcd(slab, unit); }

Status unsupported(const std::string& why) { return not_supported("direct: " + why); }

// GCONV_DIRECT_GROUPED=0 runs the general entry where a grouped one exists,
// for A/B measurements; read once, anything else is ignored.
bool grouped_entries_enabled() {
  static const bool on = [] {
    const char* s = jit::process_env("GCONV_DIRECT_GROUPED");
    return !(s != nullptr && std::string(s) == "0");
  }();
  return on;
}

// G of the grouped entry a tile kernel runs on p (DirectPlan::grouped).
int grouped_width(const KernelTraits& t, const Problem& p, int64_t cg, int64_t kg) {
  if (t.win_fx > 0 || cg != kg || !grouped_entries_enabled()) return 0;
  // gather.cuh's grouped entries compile the shared stride phase only.
  if (p.direction == Direction::bwd_data && (t.block_w / t.per_thread) % p.stride[2] != 0) return 0;
  for (int g : kDirectGroupedWidths)
    if (cg == g) return g;
  return 0;
}

// GCONV_DIRECT_WGRAD_BLOCKS=N (64..65536) replaces kWgradTargetBlocks and
// kWgradTargetBlocksOneLaunch, for A/B measurements of the bwd_weight split;
// read once, anything else is ignored. The deterministic summation order then
// follows N too.
int64_t wgrad_target_blocks(bool one_launch) {
  static const std::optional<long long> v = jit::process_env_int("GCONV_DIRECT_WGRAD_BLOCKS", 64, 65536);
  if (v) return *v;
  return one_launch ? kWgradTargetBlocksOneLaunch : kWgradTargetBlocks;
}

// Source rows a row-stream step of `rows` destination rows reads at row
// stride sy (window_wgrad's x rows, window_stream's source rows).
int64_t source_rows(const Problem& p, int64_t rows, int64_t sy) {
  return (rows - 1) * sy + (p.filter[1] - 1) * p.dilation[1] + 1;
}

// Whether row-stream tiles of a C-channel tensor (a slab of slabw channels,
// `pitch` pixels a row) can be TMA boxes: 16-byte tensor rows and slabs, box
// sides of at most 256 (the rows a box holds are checked per step size).
bool tma_rows_ok(const Problem& p, int64_t slabw, int64_t pitch) {
  const int64_t eb = dtype_bytes(p.dtype);
  return (p.c * eb) % 16 == 0 && (slabw * eb) % 16 == 0 && pitch <= 256 && slabw <= 256;
}

// Staged rows (or columns) of a source tile for `tile` destination
// positions: gather.cuh / wgrad.cuh tile origins.
int64_t fwd_tile_extent(int64_t tile, int64_t stride, int64_t filter, int64_t dil) {
  return (tile - 1) * stride + (filter - 1) * dil + 1;
}
int64_t bwd_tile_extent(int64_t tile, int64_t stride, int64_t filter, int64_t dil) {
  return ((tile - 1) + (filter - 1) * dil) / stride + 1;
}

}  // namespace

int direct_max_span(int64_t dst_total, int64_t src_total, int slab, int og, int sg, int vec) {
  const int64_t slabs = ceil_div(dst_total, slab);
  const int64_t n = std::min(slabs, slab_period(slab, int64_t{og} * vec));
  int64_t widest = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t lo, hi;
    source_span(i * slab, std::min(i * slab + slab, dst_total), og, sg, src_total, vec, &lo, &hi);
    widest = std::max(widest, hi - lo);
  }
  return static_cast<int>(widest);
}

double window_wgrad_l2_bytes(const Problem& p, const DirectPlan& plan) {
  const direct::DirectParams& q = plan.params;
  const double xr = double(source_rows(p, q.wg_rows, p.stride[1]));
  const double pixels = xr * q.wg_xw + double(q.wg_rows) * q.wg_dyw;  // one step's staged pixels
  const double steps = double(q.wg_steps) * q.slabs * p.filter[0];
  const double slices = q.fixup ? double(plan.fixup_offset) : 0.0;
  return steps * pixels * double(q.wg_slabw) * dtype_bytes(p.dtype) + 2.0 * slices;
}

namespace {

// A channels-last tensor of `planes` (N * D) planes of h x w pixels of c
// channels as a 4D tiled map (C, W, H, planes), with a box of (slab, pitch
// pixels, rows, 1) at one plane; coordinates outside come back as zeros
// (padding, channels past C, the pitch columns, rows past the plane).
TmaArgs rows_map(const Problem& p, uint64_t c, uint64_t w, uint64_t h, uint64_t planes, const DirectPlan& plan,
                 int pitch, int64_t rows) {
  const uint64_t eb = dtype_bytes(p.dtype);
  return tiled_map({c, w, h, planes}, {c * eb, w * c * eb, h * w * c * eb},
                   {uint32_t(plan.params.wg_slabw), uint32_t(pitch), uint32_t(rows), 1});
}

}  // namespace

// window_wgrad.cuh's maps: x as (C, W, H, N * D) with a box of (slab, x
// pitch, x rows of a step, 1), dy as (C, OW, OH, N * OD) with a box of
// (slab, dy pitch, rows of a step, 1).
TmaArgs window_wgrad_x_map(const Problem& p, const DirectPlan& plan) {
  return rows_map(p, p.c, p.in[2], p.in[1], uint64_t(p.n * p.in[0]), plan, plan.params.wg_xp,
                  source_rows(p, plan.params.wg_rows, p.stride[1]));
}
TmaArgs window_wgrad_dy_map(const Problem& p, const DirectPlan& plan) {
  const direct::DirectParams& q = plan.params;
  return rows_map(p, p.k, q.out_size[2], q.out_size[1], uint64_t(p.n) * uint64_t(q.out_size[0]), plan, q.wg_dyp,
                  q.wg_rows);
}

int64_t window_stream_floats(const KernelTraits& t) {
  return (int64_t{t.win_fx} * t.win_fx + t.per_thread) * t.vec;
}

bool window_stream_compiled(const KernelTraits& t) {
  return t.win_fx > 0 && t.direction != Direction::bwd_weight && window_stream_floats(t) <= kWindowStreamFloats;
}

// window_stream.cuh's source (x, or dy for bwd_data, read at stride 1).
TmaArgs window_stream_src_map(const Problem& p, const DirectPlan& plan) {
  if (p.direction != Direction::bwd_data) return window_wgrad_x_map(p, plan);
  const direct::DirectParams& q = plan.params;
  return rows_map(p, p.c, q.out_size[2], q.out_size[1], uint64_t(p.n) * uint64_t(q.out_size[0]), plan, q.wg_xp,
                  source_rows(p, q.wg_rows, 1));
}

double window_l2_bytes(const KernelTraits& t, const Problem& p, const DirectPlan& plan, double out_elements) {
  if (p.direction == Direction::bwd_weight) return window_wgrad_l2_bytes(p, plan);
  const direct::DirectParams& q = plan.params;
  const int eb = dtype_bytes(p.dtype);
  if (q.wg_stream) {  // the row stream: every step's source box once, halo rows included
    const double rows = double(source_rows(p, q.wg_rows, p.direction == Direction::bwd_data ? 1 : p.stride[1]));
    return double(q.wg_steps) * q.slabs * rows * q.wg_xp * q.wg_slabw * eb + out_elements * eb;
  }
  const double rows = double(p.filter[0]) * p.filter[1];
  const double win = double((t.per_thread - 1) * t.win_sx + t.win_fx);
  return double(q.items) * std::max(1, q.rows_per_item) * rows * win * double(p.c) * eb + out_elements * eb;
}

DirectProblem direct_problem(const Problem& p) {
  DirectProblem dp;
  dp.problem = &p;
  dp.valid = p.validate().ok();
  if (dp.valid)  // out() divides by the stride, which only a valid problem has positive
    for (int i = 0; i < 3; ++i) dp.out[i] = p.out(i);
  return dp;
}

namespace {

// The problem's sizes as every direct kernel reads them (DirectParams'
// first block); the planners add their own fields.
void fill_problem(const Problem& p, const DirectProblem& dp, direct::DirectParams* q) {
  q->n = static_cast<int>(p.n);
  q->c = static_cast<int>(p.c);
  q->k = static_cast<int>(p.k);
  q->g = static_cast<int>(p.g);
  q->cg = static_cast<int>(p.c_per_group());
  q->kg = static_cast<int>(p.k_per_group());
  q->depthwise = q->cg == 1 && q->kg == 1;
  for (int i = 0; i < 3; ++i) {
    q->in[i] = static_cast<int>(p.in[i]);
    q->out_size[i] = static_cast<int>(dp.out[i]);
    q->filt[i] = static_cast<int>(p.filter[i]);
    q->stride[i] = static_cast<int>(p.stride[i]);
    q->pad[i] = static_cast<int>(p.pad_lo[i]);
    q->dil[i] = static_cast<int>(p.dilation[i]);
  }
}

// Channel vectors per block for `cvecs` vectors in all: at most `cap`, and
// spread evenly over the slabs so that the last slab is not mostly idle.
int even_lanes(int64_t cvecs, int64_t cap) {
  const int64_t slabs = ceil_div(cvecs, std::max<int64_t>(1, cap));
  return static_cast<int>(ceil_div(cvecs, slabs));
}

// GCONV_DIRECT_WINDOW_ROWS=N (1, 2, 4 or 8) fixes window_wgrad's dy rows per
// step, for A/B measurements; read once, anything else is ignored.
std::optional<long long> window_rows_override() {
  static const std::optional<long long> v = [] {
    std::optional<long long> r = jit::process_env_int("GCONV_DIRECT_WINDOW_ROWS", 1, 8);
    return r && (*r & (*r - 1)) == 0 ? r : std::nullopt;
  }();
  return v;
}

// Bytes of channels window_wgrad stages per pixel (a slab): 32 measured best
// with TMA loads on the public set's 30 depthwise bwd_weight problems (H100,
// cuDNN / best window kernel 0.900; 64 bytes 0.849, 128 bytes 0.747), narrow
// slabs making more regions and smaller stages (notes/device-runs.md,
// twenty-first session). GCONV_DIRECT_WINDOW_PIXEL_BYTES=N (16..128, a power
// of two) replaces it for A/B measurements; read once, anything else is ignored.
constexpr int64_t kWindowWgradPixelBytes = 32;
int64_t window_pixel_bytes() {
  static const int64_t v = [] {
    std::optional<long long> r = jit::process_env_int("GCONV_DIRECT_WINDOW_PIXEL_BYTES", 16, 128);
    return r && (*r & (*r - 1)) == 0 ? *r : kWindowWgradPixelBytes;
  }();
  return v;
}

// Channel vectors a row-stream block stages per pixel (window_wgrad,
// window_stream): a slab of at most window_pixel_bytes() (lanes * vec * eb),
// lanes a power of two (so they divide the block); fewer lanes where the
// last slab would idle more than 1/8 of them.
int64_t window_slab_lanes(int64_t cvecs, int64_t vec, int64_t eb) {
  int64_t lanes = std::min<int64_t>(32, std::max<int64_t>(1, window_pixel_bytes() / (vec * eb)));
  while (lanes > 1 && (ceil_div(cvecs, lanes) * lanes - cvecs) * 8 > cvecs) lanes /= 2;
  return lanes;
}

// GCONV_DIRECT_WINDOW_BLOCKS=N (64..65536) replaces kWindowWgradBlocks, for
// A/B measurements; read once, anything else is ignored.
int64_t window_wgrad_target_blocks() {
  static const std::optional<long long> v = jit::process_env_int("GCONV_DIRECT_WINDOW_BLOCKS", 64, 65536);
  return v ? *v : kWindowWgradBlocks;
}

// GCONV_DIRECT_WINDOW_SMEM_KB=N (16..227) replaces the 110 KB that leave room
// for two window_wgrad blocks an SM, for A/B measurements; read once.
int64_t window_wgrad_smem_budget() {
  static const std::optional<long long> v = jit::process_env_int("GCONV_DIRECT_WINDOW_SMEM_KB", 16, 227);
  return (v ? *v : 110) << 10;
}

// GCONV_DIRECT_WINDOW_PROBE=1 (no multiplies) or 2 (no loads): timing probes
// of window_wgrad's two halves, whose results are wrong; read once.
int window_wgrad_probe() {
  static const int v = [] {
    std::optional<long long> r = jit::process_env_int("GCONV_DIRECT_WINDOW_PROBE", 1, 2);
    return r ? static_cast<int>(*r) : 0;
  }();
  return v;
}

// GCONV_DIRECT_WINDOW_TMA=0 keeps window_wgrad on cp.async copies, for A/B
// measurements; read once.
bool window_wgrad_tma_enabled() {
  static const bool v = jit::process_env_on("GCONV_DIRECT_WINDOW_TMA");
  return v;
}

// window_wgrad.cuh's launch (after plan_window's rules): grid (blocks per
// region, slabs, FZ), two stages of staged tiles, the slices and region words
// in the workspace when a region has several blocks.
template <class Reject>
bool plan_window_wgrad(const KernelTraits& t, const DirectProblem& dp, const Reject& reject, DirectPlan* out_plan) {
  const Problem& p = *dp.problem;
  const int64_t eb = dtype_bytes(p.dtype);
  const int64_t vec = t.vec, R = t.per_thread, FX = t.win_fx, SX = t.win_sx;
  const int64_t FY = p.filter[1], FZ = p.filter[0];
  if (FY > FX)
    return reject([&] { return fmt::format("filter height {} exceeds the window's {} rows of sums", FY, FX); });
  // acc[FX][FX][vec] and the R dy vectors stay in registers.
  if (window_stream_floats(t) > kWindowStreamFloats)
    return reject([&] {
      return fmt::format("{} fp32 sums and {} dy values a thread exceed the register budget", FX * FX * vec, R * vec);
    });
  const int64_t threads = t.threads();
  const int64_t cvecs = p.c / vec;
  const int64_t lanes = window_slab_lanes(cvecs, vec, eb);
  if (threads % lanes != 0)
    return reject([&] { return fmt::format("threads ({}) not a multiple of {} lanes", threads, lanes); });
  const int64_t slabs = ceil_div(cvecs, lanes), slabw = lanes * vec, slots = threads / lanes;
  const int64_t OD = dp.out[0], OH = dp.out[1], OW = dp.out[2];
  const int64_t strips = ceil_div(OW, R);
  const int64_t dyw = strips * R, dyp = dyw | 1;
  const int64_t xw = (dyw - 1) * SX + FX, xp = xw | 1;
  auto x_rows = [&](int64_t rows) { return source_rows(p, rows, p.stride[1]); };
  // TMA where the tensor maps can express the boxes: rows of 16-byte
  // multiples, box sides of at most 256 (the rows the box holds are checked
  // with the step's rows below).
  const bool tma_maps = window_wgrad_tma_enabled() && tma_rows_ok(p, slabw, xp) && dyp <= 256;
  auto uses_tma = [&](int64_t rows) { return tma_maps && x_rows(rows) <= 256; };
  // TMA boxes land 128-byte aligned; cp.async copies need 16.
  auto align = [&](int64_t rows, int64_t bytes) { return uses_tma(rows) ? round_up(bytes, 128) : align16(bytes); };
  auto stage_bytes = [&](int64_t rows, int64_t* xbytes) {
    *xbytes = align(rows, x_rows(rows) * xp * slabw * eb);
    return *xbytes + align(rows, rows * dyp * slabw * eb);
  };
  const int64_t part_bytes = slots * FX * slabw * 4;
  // The most rows a step (at most the plane's, rounded up to a power of two)
  // whose two stages leave room for two blocks an SM (the budget); else for one.
  int64_t rows = 0, xbytes = 0, stage = 0;
  for (int64_t budget : {window_wgrad_smem_budget(), static_cast<int64_t>(kMaxSmemBytes)}) {
    for (int64_t cand : {8, 4, 2, 1}) {
      if (cand > 1 && cand / 2 >= OH) continue;
      if (const auto forced = window_rows_override(); forced && *forced != cand) continue;
      int64_t xb;
      const int64_t st = stage_bytes(cand, &xb);
      if (std::max(2 * st, part_bytes) <= budget) {
        rows = cand, xbytes = xb, stage = st;
        break;
      }
    }
    if (rows > 0) break;
  }
  if (rows == 0)
    return reject([&] { return fmt::format("two stages of one dy row ({} pixels wide) exceed shared memory", dyw); });
  const bool tma = uses_tma(rows);
  // TMA: more stages where the budget that fit two holds them.
  int64_t stages = 2;
  if (tma) {
    const int64_t budget = std::max(window_wgrad_smem_budget(), 2 * stage);
    stages = std::clamp<int64_t>(budget / stage, 2, direct::kWgradMaxStages);
  }
  const int64_t plane_steps = ceil_div(OH, rows);
  const int64_t steps = p.n * OD * plane_steps;
  if (steps > INT32_MAX || (FZ > 1 && FZ > 65535) || slabs > 65535)
    return reject(
        [&] { return fmt::format("{} steps, {} slabs or {} z taps exceed the launch limits", steps, slabs, FZ); });
  // About kWindowWgradBlocks blocks in all (a fixed figure, not the device's:
  // plans, and so the summation order, depend on the problem only), and at
  // least two steps a block.
  const int64_t regions = slabs * FZ;
  const int64_t per_region =
      std::clamp<int64_t>(ceil_div(window_wgrad_target_blocks(), regions), 1, std::max<int64_t>(1, steps / 2));

  DirectPlan& plan = *out_plan;
  plan = DirectPlan{};
  direct::DirectParams& q = plan.params;
  fill_problem(p, dp, &q);
  q.strips = static_cast<int>(strips);
  q.dw_elements = static_cast<int>(p.k * p.filter_volume());
  q.lanes = static_cast<int>(lanes);
  q.slabs = static_cast<int>(slabs);
  q.wg_rows = static_cast<int>(rows);
  q.wg_plane_steps = static_cast<int>(plane_steps);
  q.wg_steps = static_cast<int>(steps);
  q.wg_blocks = static_cast<int>(per_region);
  q.wg_slabw = static_cast<int>(slabw);
  q.wg_dyw = static_cast<int>(dyw);
  q.wg_xw = static_cast<int>(xw);
  q.wg_xp = static_cast<int>(xp);
  q.wg_dyp = static_cast<int>(dyp);
  q.wg_stage = static_cast<int>(stage);
  q.wg_xbytes = static_cast<int>(xbytes);
  q.items = static_cast<int>(steps);
  q.wg_probe = window_wgrad_probe();
  q.wg_tma = tma ? 1 : 0;
  q.wg_stages = static_cast<int>(stages);
  q.wg_tx_bytes = static_cast<int>((x_rows(rows) * xp + rows * dyp) * slabw * eb);
  plan.threads = static_cast<int>(threads);
  plan.blocks = per_region;
  plan.grid_y = slabs;
  plan.grid_z = FZ;
  plan.smem = static_cast<size_t>(std::max(stages * stage, part_bytes));
  plan.accum = WgradAccum::none;
  plan.finish_blocks = 0;
  if (per_region > 1) {
    const int64_t slice_elems = regions * per_region * FY * FX * slabw;
    q.fixup = 1;
    plan.fixup_offset = fixup_words_offset(slice_elems);
    plan.workspace = plan.fixup_offset + fixup_words_bytes(regions);
  }
  return true;
}

// window_stream.cuh's launch for a _tma window kernel (fwd / bwd_data, after
// plan_window's rules), or a rejection where the stream does not apply: 3D,
// strided bwd_data, a filter taller than the window, rows or boxes TMA
// cannot express, stages that do not fit.
template <class Reject>
bool plan_window_stream(const KernelTraits& t, const DirectProblem& dp, DirectPlan* out_plan, const Reject& reject) {
  const Problem& p = *dp.problem;
  const bool bwd = p.direction == Direction::bwd_data;
  if (p.ndim > 2 || !window_stream_compiled(t))
    return reject([&] { return std::string("the row-stream window kernel (_tma) is for 1D and 2D, within its registers"); });
  if (bwd && (p.stride[0] != 1 || p.stride[1] != 1 || p.stride[2] != 1))
    return reject([&] { return std::string("a row-stream bwd_data window kernel (_tma) needs stride 1"); });
  const int64_t eb = dtype_bytes(p.dtype);
  const int64_t vec = t.vec, R = t.per_thread, FX = t.win_fx, SX = t.win_sx, FY = p.filter[1];
  if (FY > FX)
    return reject([&] { return fmt::format("the row stream holds at most {0}x{0} taps; the filter is {1} tall", FX, FY); });
  const int64_t threads = t.threads();
  const int64_t cvecs = p.c / vec;
  const int64_t lanes = window_slab_lanes(cvecs, vec, eb);
  if (threads % lanes != 0)
    return reject([&] { return fmt::format("{} threads do not split into slabs of {} channel lanes", threads, lanes); });
  const int64_t slabs = ceil_div(cvecs, lanes), slabw = lanes * vec;
  int64_t dsz[3];  // the destination: y, or dx
  for (int i = 0; i < 3; ++i) dsz[i] = bwd ? p.in[i] : dp.out[i];
  const int64_t sy = bwd ? 1 : p.stride[1];
  const int64_t strips = ceil_div(dsz[2], R);
  const int64_t xw = (strips * R - 1) * SX + FX, xp = xw | 1;
  if (!tma_rows_ok(p, slabw, xp))
    return reject([&] {
      return fmt::format("a TMA box of {} channels x {} pixels cannot express these rows (C * dtype bytes must be a "
                         "multiple of 16, box sides at most 256)", slabw, xp);
    });
  auto x_rows = [&](int64_t rows) { return source_rows(p, rows, sy); };
  int64_t rows = 0, stage = 0;
  for (int64_t cand : {8, 4, 2, 1}) {
    if (cand > 1 && cand / 2 >= dsz[1]) continue;
    if (x_rows(cand) > 256) continue;
    const int64_t st = round_up(x_rows(cand) * xp * slabw * eb, 128);
    if (2 * st <= window_wgrad_smem_budget()) {
      rows = cand, stage = st;
      break;
    }
  }
  if (rows == 0)
    return reject([&] { return fmt::format("two stages of one source row ({} pixels) exceed shared memory", xp); });
  const int64_t stages = std::clamp<int64_t>(window_wgrad_smem_budget() / stage, 2, direct::kWgradMaxStages);
  const int64_t plane_steps = ceil_div(dsz[1], rows);
  const int64_t steps = p.n * dsz[0] * plane_steps;
  if (steps > INT32_MAX || slabs > 65535)
    return reject([&] { return fmt::format("{} steps x {} slabs exceed the launch limits", steps, slabs); });
  const int64_t per_slab = std::clamp<int64_t>(ceil_div(window_wgrad_target_blocks(), slabs), 1,
                                               std::max<int64_t>(1, steps / 2));

  DirectPlan& plan = *out_plan;
  plan = DirectPlan{};
  direct::DirectParams& q = plan.params;
  fill_problem(p, dp, &q);
  q.strips = static_cast<int>(strips);
  q.lanes = static_cast<int>(lanes);
  q.slabs = static_cast<int>(slabs);
  q.items = static_cast<int>(steps);
  q.wg_stream = 1;
  q.wg_tma = 1;
  q.wg_rows = static_cast<int>(rows);
  q.wg_plane_steps = static_cast<int>(plane_steps);
  q.wg_steps = static_cast<int>(steps);
  q.wg_blocks = static_cast<int>(per_slab);
  q.wg_slabw = static_cast<int>(slabw);
  q.wg_xw = static_cast<int>(xw);
  q.wg_xp = static_cast<int>(xp);
  q.wg_stage = static_cast<int>(stage);
  q.wg_xbytes = static_cast<int>(stage);
  q.wg_stages = static_cast<int>(stages);
  q.wg_tx_bytes = static_cast<int>(x_rows(rows) * xp * slabw * eb);
  plan.threads = static_cast<int>(threads);
  plan.blocks = per_slab;
  plan.grid_y = slabs;
  plan.smem = static_cast<size_t>(stages * stage);
  plan.workspace = 0;
  plan.accum = WgradAccum::none;
  plan.finish_blocks = 0;
  return true;
}

// The register-window rules and launch (window.cuh); the common rules up to
// vec have passed.
template <class Reject>
bool plan_window(const KernelTraits& t, const DirectProblem& dp, DirectPlan* out_plan, const Reject& reject) {
  const Problem& p = *dp.problem;
  if (p.c_per_group() != 1 || p.k_per_group() != 1)
    return reject([&] { return std::string("a register-window kernel is for depthwise problems (C/G = K/G = 1)"); });
  if (p.filter[2] != t.win_fx || p.stride[2] != t.win_sx || p.dilation[2] != 1)
    return reject([&] {
      return fmt::format("the window is compiled for filter width {}, W stride {}, W dilation 1; the problem has {}, {}, {}",
                         t.win_fx, t.win_sx, p.filter[2], p.stride[2], p.dilation[2]);
    });
  // bwd_data: W stride 1 runs the flipped filter over dy (every stride 1);
  // a W stride > 1 the phase-split window (any H and D strides).
  if (p.direction == Direction::bwd_data && t.win_sx == 1 && (p.stride[0] != 1 || p.stride[1] != 1))
    return reject([&] { return std::string("a register-window bwd_data kernel of W stride 1 needs stride 1 in every dimension"); });
  for (int i = 0; i < 3; ++i) {
    const int64_t extent = p.in[i] + p.pad_lo[i] + p.pad_hi[i] + (t.per_thread + 1) * p.stride[i] +
                           p.dilation[i] * p.filter[i] + dp.out[i];
    if (extent > (int64_t{1} << 30))
      return reject([&] { return std::string("spatial sizes, pads, strides or dilations too large for 32-bit arithmetic"); });
  }
  if (p.direction == Direction::bwd_weight) return plan_window_wgrad(t, dp, reject, out_plan);
  if (t.tma) return plan_window_stream(t, dp, out_plan, reject);
  const int64_t threads = t.threads();
  const int64_t vec = t.vec, R = t.per_thread;
  const int64_t cvecs = p.c / vec;
  const int64_t taps = p.filter_volume();
  // Rows of R outputs in the tensor the kernel walks: y or dx.
  int64_t walk[3];
  for (int i = 0; i < 3; ++i) walk[i] = p.direction == Direction::bwd_data ? p.in[i] : dp.out[i];
  // Strided bwd_data: strips of R pixels within each of the win_sx W phases.
  const bool phases = p.direction == Direction::bwd_data && t.win_sx > 1;
  const int64_t strips = phases ? t.win_sx * ceil_div(ceil_div(walk[2], t.win_sx), R) : ceil_div(walk[2], R);
  // Items of ry consecutive rows each.
  auto items_of = [&](int64_t ry) { return p.n * walk[0] * ceil_div(walk[1], ry) * strips; };
  if (items_of(1) > INT32_MAX)
    return reject([&] { return fmt::format("{} rows of outputs exceed 32-bit indexing", items_of(1)); });

  DirectPlan& plan = *out_plan;
  plan = DirectPlan{};
  direct::DirectParams& q = plan.params;
  fill_problem(p, dp, &q);  // depthwise: cg = kg = 1
  q.strips = static_cast<int>(strips);
  q.dw_elements = static_cast<int>(p.k * taps);
  const int64_t fbytes = 4;  // weights and sums are fp32 in shared memory
  // All of a slab's weights are staged: fewer lanes when a large 3D filter
  // would not fit.
  const int64_t fit = static_cast<int64_t>(kMaxSmemBytes) / (taps * vec * fbytes);
  if (fit < 1)
    return reject([&] { return fmt::format("the {}-tap filter of one channel vector does not fit shared memory", taps); });
  const int64_t lanes = even_lanes(cvecs, std::min<int64_t>({32, threads, fit}));
  const int64_t per_block = threads / lanes;
  const int64_t smem = taps * lanes * vec * fbytes;
  const int64_t grid_y = ceil_div(cvecs, lanes);
  // The most rows per item that still leaves 4 blocks per SM of a 132-SM
  // Hopper (a fixed figure: plans depend on the problem only).
  int64_t ry = 1;
  for (int64_t cand : {8, 4, 2})
    if (ceil_div(items_of(cand), per_block) * grid_y >= 4 * 132) {
      ry = cand;
      break;
    }
  const int64_t blocks_x = ceil_div(items_of(ry), per_block);
  if (blocks_x > INT32_MAX || grid_y > 65535)
    return reject([&] { return fmt::format("grid {} x {} exceeds the launch limits", blocks_x, grid_y); });
  q.items = static_cast<int>(items_of(ry));
  q.rows_per_item = static_cast<int>(ry);
  q.lanes = static_cast<int>(lanes);
  q.items_per_block = static_cast<int>(per_block);
  q.slabs = static_cast<int>(grid_y);
  plan.threads = static_cast<int>(lanes * per_block);
  plan.blocks = blocks_x;
  plan.grid_y = grid_y;
  plan.smem = static_cast<size_t>(smem);
  plan.workspace = 0;
  plan.accum = WgradAccum::none;
  plan.finish_blocks = 0;
  return true;
}

// plan_direct's rules in order. A rule that fails returns false, and sets
// *st (the message built only then) when st is not null: ranking plans every
// direct kernel of the pool and wants no string per rejection.
bool plan_rules(const KernelTraits& t, const DirectProblem& dp, DirectPlan* out_plan, Status* st) {
  const Problem& p = *dp.problem;
  const auto reject = [st](const auto& message) {
    if (st) *st = unsupported(message());
    return false;
  };
  if (t.family != Family::direct) return reject([] { return std::string("traits are not of the direct family"); });
  if (t.direction != p.direction)
    return reject([&] {
      return fmt::format("traits are for {}, the problem is {}", to_string(t.direction), to_string(p.direction));
    });
  if (t.dtype != p.dtype)
    return reject(
        [&] { return fmt::format("traits are for {}, the problem is {}", to_string(t.dtype), to_string(p.dtype)); });
  if (t.ndim != p.ndim)
    return reject([&] { return fmt::format("traits are {}D, the problem is {}D", t.ndim, p.ndim); });
  if (!dp.valid) {
    if (st) *st = p.validate();
    return false;
  }

  const int64_t cg = p.c_per_group(), kg = p.k_per_group();
  if (cg > kMaxGroupChannels || kg > kMaxGroupChannels)
    return reject([&] {
      return fmt::format("C/G ({}) and K/G ({}) must be at most {} (depthwise and near-depthwise only)", cg, kg,
                         kMaxGroupChannels);
    });
  const int esize = dtype_bytes(p.dtype);
  const int vec = t.vec;
  if ((vec != 1 && vec != 2 && vec != 4 && vec != 8) || vec * esize > 16)
    return reject([&] {
      return fmt::format("vec ({}) must be 1, 2, 4 or 8 with at most 16 bytes of {}", vec, to_string(p.dtype));
    });
  if (p.c % vec != 0 || p.k % vec != 0)
    return reject([&] { return fmt::format("C ({}) and K ({}) must be divisible by vec ({})", p.c, p.k, vec); });
  if (t.block_h < 1 || t.block_w < 1 || t.per_thread < 1 || t.block_w % t.per_thread != 0)
    return reject([&] {
      return fmt::format("tile {}x{} with per_thread {}: block_w must be a positive multiple of per_thread", t.block_h,
                         t.block_w, t.per_thread);
    });
  if (t.win_fx > 0) return plan_window(t, dp, out_plan, reject);
  const int bh = p.ndim == 1 ? 1 : t.block_h;  // 1D tiles have one row
  const int bw = t.block_w, per_thread = t.per_thread;
  const int pix = bh * (bw / per_thread);
  const int threads = t.threads();
  if (threads < 1 || threads > 1024 || threads % pix != 0)
    return reject([&] {
      return fmt::format("threads ({}) must be in [1, 1024] and a multiple of the {} pixel threads", threads, pix);
    });
  const int slab = threads / pix * vec;

  // Tile origins are computed in 32-bit ints (o*s - pad + f*dil and the like).
  for (int i = 0; i < 3; ++i) {
    const int64_t extent = p.in[i] + p.pad_lo[i] + p.pad_hi[i] + (std::max(bh, bw) + 1) * p.stride[i] +
                           p.dilation[i] * p.filter[i] + dp.out[i];
    if (extent > (int64_t{1} << 30))
      return reject([&] {
        return std::string("spatial sizes, pads, strides or dilations too large for 32-bit tile arithmetic");
      });
  }

  DirectPlan& plan = *out_plan;
  plan = DirectPlan{};
  plan.threads = threads;
  plan.grouped = grouped_width(t, p, cg, kg);
  direct::DirectParams& q = plan.params;
  fill_problem(p, dp, &q);
  for (int i = 0; i < 3; ++i) {
    const int64_t step = p.stride[i] / std::gcd(p.stride[i], p.dilation[i]);
    q.tap_step[i] = static_cast<int>(step);
    q.tap_delta[i] = static_cast<int>(p.dilation[i] * step / p.stride[i]);
  }
  const int64_t f_yx = p.filter[1] * p.filter[2];

  if (p.direction != Direction::bwd_weight) {
    // gather.cuh: fwd writes y (K, output dims) from x; bwd_data writes dx (C,
    // input dims) from dy.
    const bool bwd = p.direction == Direction::bwd_data;
    const int64_t dst_total = bwd ? p.c : p.k, src_total = bwd ? p.k : p.c;
    const int64_t og = bwd ? cg : kg, sg = bwd ? kg : cg;
    int64_t dsz[3];
    for (int i = 0; i < 3; ++i) dsz[i] = bwd ? p.in[i] : dp.out[i];
    const int64_t slabs = ceil_div(dst_total, slab);
    q.slabs = static_cast<int>(slabs);
    q.tiles[0] = static_cast<int>(dsz[0]);
    q.tiles[1] = static_cast<int>(ceil_div(dsz[1], bh));
    q.tiles[2] = static_cast<int>(ceil_div(dsz[2], bw));
    auto extent = bwd ? bwd_tile_extent : fwd_tile_extent;
    const int64_t rows = extent(bh, p.stride[1], p.filter[1], p.dilation[1]);
    const int64_t cols = extent(bw, p.stride[2], p.filter[2], p.dilation[2]);
    q.tile_rows = static_cast<int>(rows);
    q.tile_cols = static_cast<int>(cols);
    q.src_cstride = direct_max_span(dst_total, src_total, slab, static_cast<int>(og), static_cast<int>(sg), vec);
    const int64_t smem = align16(rows * cols * q.src_cstride * esize) + f_yx * slab * sg * 4;
    if (smem > static_cast<int64_t>(kMaxSmemBytes))
      return reject([&] {
        return fmt::format("needs {} bytes of shared memory (source tile {}x{}x{} + weights), over {}", smem, rows,
                           cols, q.src_cstride, kMaxSmemBytes);
      });
    plan.smem = static_cast<size_t>(smem);
    plan.blocks = slabs * q.tiles[1] * q.tiles[2] * dsz[0] * p.n;
  } else {
    // wgrad.cuh: slabs of (k, c) pairs; passes of taps; splits of items.
    const int64_t pairs = p.k * cg;
    const int64_t slabs = ceil_div(pairs, slab);
    const int64_t taps_per_pass = std::min<int64_t>(f_yx, int64_t{pix} * per_thread);
    const int64_t tap_slots = ceil_div(taps_per_pass, per_thread);
    const int64_t pos_groups = pix / tap_slots;
    const int64_t chunks = ceil_div(f_yx, taps_per_pass);
    const int64_t passes = p.filter[0] * chunks;
    q.slabs = static_cast<int>(slabs);
    q.taps_per_pass = static_cast<int>(taps_per_pass);
    q.tap_slots = static_cast<int>(tap_slots);
    q.pos_groups = static_cast<int>(pos_groups);
    q.chunks = static_cast<int>(chunks);
    q.passes = static_cast<int>(passes);
    q.tiles[0] = static_cast<int>(dp.out[0]);
    q.tiles[1] = static_cast<int>(ceil_div(dp.out[1], bh));
    q.tiles[2] = static_cast<int>(ceil_div(dp.out[2], bw));
    const int64_t items = p.n * dp.out[0] * q.tiles[1] * q.tiles[2];
    q.items = static_cast<int>(items);
    const int64_t rows = fwd_tile_extent(bh, p.stride[1], p.filter[1], p.dilation[1]);
    const int64_t cols = fwd_tile_extent(bw, p.stride[2], p.filter[2], p.dilation[2]);
    q.tile_rows = static_cast<int>(rows);
    q.tile_cols = static_cast<int>(cols);
    // dy channels: pair e reads channel e / Cg. x channels: (k / Kg) * Cg + c,
    // which repeats every Cg*Kg*vec pairs.
    q.dy_cstride = direct_max_span(pairs, p.k, slab, static_cast<int>(cg), 1, vec);
    int64_t x_span = 0;
    const int64_t n_x = std::min(slabs, slab_period(slab, cg * kg * vec));
    for (int64_t i = 0; i < n_x; ++i) {
      const int64_t e_end = std::min(i * slab + slab, pairs);
      int64_t lo, hi;
      source_span(i * slab / cg, (e_end - 1) / cg + 1, kg, cg, p.c, vec, &lo, &hi);
      x_span = std::max(x_span, hi - lo);
    }
    q.src_cstride = static_cast<int>(x_span);
    const int64_t tiles_bytes = align16(rows * cols * x_span * esize) + int64_t{bh} * bw * q.dy_cstride * esize;
    const int64_t red_bytes = pos_groups * tap_slots * per_thread * slab * 4;
    const int64_t smem = std::max(tiles_bytes, red_bytes);
    if (smem > static_cast<int64_t>(kMaxSmemBytes))
      return reject([&] {
        return fmt::format("needs {} bytes of shared memory (x tile {}x{}x{} + dy tile + reduction), over {}", smem,
                           rows, cols, x_span, kMaxSmemBytes);
      });
    plan.smem = static_cast<size_t>(smem);

    const int64_t dw = p.k * p.filter_volume() * cg;
    q.dw_elements = static_cast<int>(dw);
    const bool one_launch = !t.deterministic && splitk_fixup_enabled();
    int64_t splits = std::clamp<int64_t>(ceil_div(wgrad_target_blocks(one_launch), slabs * passes), 1, items);
    if (t.deterministic) {
      // The split count (and so the summation order) is the same with and
      // without the one-launch fixup: both give the same bits.
      splits = std::max<int64_t>(1, std::min(splits, kWgradMaxPartialBytes / (dw * 4)));
      plan.accum = WgradAccum::partials;
      plan.workspace = static_cast<size_t>(splits * dw * 4);
      q.acc_splits = static_cast<int>(splits);
      // One launch while a region's last split sums few bytes (kernels/fixup.hpp
      // slices_fixup): with many splits of few regions one block would read
      // megabytes where the finish kernel spreads them over the GPU.
      const int64_t regions = slabs * passes;
      if (splitk_fixup_enabled() && (splits == 1 || slices_fixup(splits * ceil_div(dw, regions) * 4))) {
        // wgrad.cuh: the slices, then the words of each (slab, pass) region;
        // a lone split stores dw and needs neither.
        q.fixup = 1;
        if (splits > 1) {
          plan.fixup_offset = fixup_words_offset(splits * dw);
          plan.workspace = plan.fixup_offset + fixup_words_bytes(regions);
        } else {
          plan.workspace = 0;
        }
      }
    } else {
      plan.accum = p.dtype == DType::fp32 ? WgradAccum::atomic_out : WgradAccum::atomic_workspace;
      plan.workspace = p.dtype == DType::fp32 ? 0 : static_cast<size_t>(dw * 4);
      q.acc_splits = 1;
      if (splitk_fixup_enabled()) {
        q.fixup = 1;
        plan.fixup_offset = fixup_words_offset(p.dtype == DType::fp32 ? 0 : dw);
        plan.workspace = plan.fixup_offset + fixup_words_bytes(slabs * passes);
      }
    }
    q.splits = static_cast<int>(splits);
    plan.blocks = slabs * passes * splits;
    plan.finish_blocks = plan.accum == WgradAccum::atomic_out || q.fixup
                             ? 0
                             : std::min<int64_t>(ceil_div(dw, 256), 8192);
  }
  if (plan.blocks > INT32_MAX)
    return reject([&] { return fmt::format("grid of {} blocks exceeds gridDim.x", plan.blocks); });
  return true;
}

}  // namespace

bool plan_direct(const KernelTraits& t, const DirectProblem& dp, DirectPlan* out) {
  return plan_rules(t, dp, out, nullptr);
}

Result<DirectPlan> plan_direct(const KernelTraits& t, const Problem& p) {
  DirectPlan out;
  Status st;
  if (!plan_rules(t, direct_problem(p), &out, &st)) return st;
  return out;
}

}  // namespace gconv
