// igemm rules, workspace, source text and launch plan. The device side of
// every number here is in src/kernels/igemm/*.cuh; the two must agree on the
// shared-memory size, the block order and the K counter (see params.cuh).
#include "kernels/igemm/igemm_plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "core/int_math.hpp"
#include "kernels/fixup.hpp"

namespace gconv::igemm {
namespace {

constexpr int kWarp = 32;
// Spatial extents, pads, strides and dilated filters stay below this so that
// tap coordinates never reach the kernels' invalid-row sentinel (-2^30).
constexpr int64_t kCoordLimit = int64_t{1} << 29;
constexpr int64_t kIndexLimit = int64_t{1} << 31;
constexpr unsigned kMaxReduceBlocks = 4096;

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}
// Without a `why` (ranking many kernels) a failure builds no string.
bool fail(std::string* why, const char* msg) {
  if (why) *why = msg;
  return false;
}

int elem_bytes(DType t) { return t == DType::fp32 ? 4 : 2; }

// Product of positive factors, saturated at kIndexLimit (no overflow).
// (r * f > kIndexLimit is r > kIndexLimit / f for positive integers; the
// overflow builtin tests it without a division: this runs per kernel while
// selecting, and a fixed factor count lets it inline and unroll, which the
// initializer_list loop it replaces did not: ~6% of a ranking's
// instructions, callgrind.)
template <class... F>
inline int64_t saturated_product(F... factors) {
  const int64_t fs[] = {int64_t(factors)...};
  int64_t r = 1;
#pragma GCC unroll 4
  for (int64_t f : fs) {
    if (f <= 0) return 0;
    int64_t next;
    if (__builtin_mul_overflow(r, f, &next) || next > kIndexLimit) return kIndexLimit;
    r = next;
  }
  return std::min(r, kIndexLimit);
}

// K slots of the A and B loaders (see SlotMap in loaders.cuh): a K-major
// tile has tile_k / vec slots along K, an MN-major tile tile_k rows.
// Packed fwd / bwd_data B: pieces of at most 8 bytes (IgemmConfig::kVecB).
int vec_b(const KernelTraits& t) {
  return t.packed && t.direction != Direction::bwd_weight ? std::min(t.vec, 8 / elem_bytes(t.dtype)) : t.vec;
}

void k_slots(const KernelTraits& t, int* a, int* b) {
  const int kmajor = t.tile_k / t.vec;
  switch (t.direction) {
    case Direction::fwd: *a = kmajor; *b = t.tile_k / vec_b(t); break;
    case Direction::bwd_data: *a = kmajor; *b = t.tile_k; break;
    case Direction::bwd_weight: *a = t.tile_k; *b = t.tile_k; break;
  }
}

bool slots_fit(int ks, int threads) { return ks <= threads ? threads % ks == 0 : ks % threads == 0; }

// Per-group GEMM N: what one group's columns must hold.
int64_t group_n(const Problem& p) {
  switch (p.direction) {
    case Direction::fwd: return p.k_per_group();
    case Direction::bwd_data: return p.c_per_group();
    case Direction::bwd_weight: return p.filter_volume() * p.c_per_group();
  }
  return 0;
}

// The run merge of a realigned bwd_weight kernel on an odd C (docs/realign.md):
// with one group and W dilation 1, the X taps of a filter row read X * C
// contiguous elements of x, so B's columns can be (Z x Y taps, j) with j
// over X * C rounded up to vec instead of (taps, c) with c over C rounded
// up (params.cuh IgemmParams::xrun). It needs a whole vector in the run
// (X * C > vec). Below one vector of channels (the RGB stems' C = 3) it is
// the only realigned geometry (per tap, realign refuses C/G <= vec: the
// rounding wastes most of the tile); above, it takes over only where it
// saves a quarter of B's columns or more (C = 9 with X = 3: 32 against 48),
// as the per-tap vectors never cross the image's edges (load_row_raw's slow
// path) and serve those problems as measured (C = 45 or 13 with X = 3 keep
// them: 136 against 144, 40 against 48).
bool merges_run(const Problem& p, int vec) {
  if (p.direction != Direction::bwd_weight || p.g != 1 || p.dilation[2] != 1 || p.filter[2] < 2) return false;
  const int64_t c = p.c, run = p.filter[2] * c;
  if (c % 2 == 0 || run <= vec) return false;
  const int64_t merged = ceil_div(run, vec) * vec, per_tap = p.filter[2] * (ceil_div(c, vec) * vec);
  return c < vec || 4 * merged <= 3 * per_tap;
}

// x's run along B's column vectors for a realigned bwd_weight kernel on an
// odd C/G: C/G, or X * C where the run merges (IgemmParams::xrun); 0 where
// the kernel reads x on the vector or is not realigned.
int64_t realign_x_run(const KernelTraits& t, const Problem& p) {
  const int64_t cg = p.c_per_group();
  if (!t.realign || p.direction != Direction::bwd_weight || cg <= 0 || cg % t.vec == 0) return 0;
  return merges_run(p, t.vec) ? p.filter[2] * cg : cg;
}

// Per-group GEMM N as the kernel tiles it: a realigned bwd_weight kernel's
// columns run over (tap, j) with j over x's run rounded up to vec, so that a
// vector of x never spans two taps (config.cuh OddCgConfig; C/G on the
// vector leaves it unchanged).
int64_t tiled_group_n(const KernelTraits& t, const Problem& p, int64_t group_n) {
  const int64_t run = realign_x_run(t, p);
  if (run == 0) return group_n;
  return group_n / run * (ceil_div(run, t.vec) * t.vec);
}

int64_t output_elements(const Problem& p) {
  switch (p.direction) {
    case Direction::fwd: return p.n * p.out_volume() * p.k;
    case Direction::bwd_data: return p.n * p.in_volume() * p.c;
    case Direction::bwd_weight: return p.k * p.filter_volume() * p.c_per_group();
  }
  return 0;
}

// fp32 split-K workspace for an output of `out_elems` elements in
// `out_tiles` output tiles: parallel's split_k slices or serial's one slice,
// followed (at fixup_offset) by the fixup words of each output tile
// (fixup.cuh).
size_t split_workspace(const KernelTraits& t, int64_t out_elems, int64_t out_tiles) {
  switch (t.split_mode) {
    case SplitKMode::none: return 0;
    case SplitKMode::parallel:
      return fixup_words_offset(int64_t{t.split_k} * out_elems) + fixup_words_bytes(out_tiles);
    case SplitKMode::serial: return fixup_words_offset(out_elems) + fixup_words_bytes(out_tiles);
    case SplitKMode::cluster: return 0;  // partial tiles meet in shared memory
  }
  return 0;
}

// Grid dimensions that do not depend on split-K: m tiles, phases.
void grid_shape(const KernelTraits& t, const Problem& p, int64_t* m_tiles, int64_t* phases) {
  *phases = 1;
  switch (p.direction) {
    case Direction::fwd: *m_tiles = ceil_div(p.n * p.out_volume(), t.tile_m); break;
    case Direction::bwd_data: {
      // The largest phase (phase 0) has ceil(in / s) positions per dim.
      int64_t rows = p.n;
      for (int d = p.first_slot(); d < 3; ++d) {
        rows *= ceil_div(p.in[d], p.stride[d]);
        *phases *= p.stride[d];
      }
      *m_tiles = ceil_div(rows, t.tile_m);
      break;
    }
    case Direction::bwd_weight: *m_tiles = ceil_div(block_rows(t, p.direction, p.k_per_group()), t.tile_m); break;
  }
}

// Blocks of gconv_main: the grid_shape terms come from the facts (their
// m_rows and phases are grid_shape's rows before tiling).
// Output tiles (blocks of one split) and blocks of the grid.
int64_t out_tiles(const KernelTraits& t, const ProblemFacts& f) {
  const int64_t m_tiles = ceil_div(block_rows(t, f.problem->direction, f.m_rows), t.tile_m);
  const int64_t n_tiles = n_tiles_of(t, tiled_group_n(t, *f.problem, f.group_n));
  const int64_t g_blocks = ceil_div(f.problem->g, t.groups_per_block);
  return saturated_product(n_tiles, g_blocks, m_tiles, f.phases);
}
int64_t grid_blocks(const KernelTraits& t, const ProblemFacts& f) {
  return saturated_product(out_tiles(t, f), int64_t{t.split_k});
}

// tile_k in a mixed radix whose digits sit right-aligned in 4 slots
// (mirror of counter_increment in geometry.cuh).
void counter_increment(int digits, const int (&radix)[4], int tile_k, int (&inc)[4]) {
  int x = tile_k;
  for (int d = 3; d >= 0; --d) {
    if (d > 4 - digits) {
      inc[d] = x % radix[d];
      x /= radix[d];
    } else if (d == 4 - digits) {
      inc[d] = x;
    } else {
      inc[d] = 0;
    }
  }
}

int split_id(SplitKMode m) {
  switch (m) {
    case SplitKMode::none: return kSplitNone;
    case SplitKMode::parallel: return kSplitParallel;
    case SplitKMode::serial: return kSplitSerial;
    case SplitKMode::cluster: return kSplitCluster;
  }
  return kSplitNone;
}

int dir_id(Direction d) {
  switch (d) {
    case Direction::fwd: return kFwd;
    case Direction::bwd_data: return kBwdData;
    case Direction::bwd_weight: return kBwdWeight;
  }
  return kFwd;
}

int dtype_id(DType t) {
  switch (t) {
    case DType::bf16: return 0;
    case DType::fp16: return 1;
    case DType::fp32: return 2;
  }
  return 0;
}

}  // namespace

void set_fast_div(IgemmParams& q) {
  const int divisors[4] = {q.n_tiles, q.g_blocks, q.phases, q.m_tiles};
  for (int i = 0; i < 4; ++i) {
    const uint64_t d = static_cast<uint64_t>(std::max(divisors[i], 1));
    const int shift = 31 + static_cast<int>(std::bit_width(d - 1));
    q.div_shift[i] = shift;
    q.div_mul[i] = static_cast<unsigned>(((uint64_t{1} << shift) + d - 1) / d);
  }
}

size_t smem_bytes(const KernelTraits& t) {
  // Mirrors IgemmConfig: K-major tiles are rows x tile_k; MN-major tiles are
  // tile_k rows, padded by 8 elements for fp32 (tile_pad in config.cuh).
  const bool a_kmajor = t.direction != Direction::bwd_weight, b_kmajor = t.direction == Direction::fwd;
  const size_t pad = t.dtype == DType::fp32 ? 8 : 0;
  const size_t a = size_t(t.tile_k) * (t.tile_m + (a_kmajor ? 0 : pad));
  const size_t b = size_t(t.tile_k) * (t.tile_n + (b_kmajor ? 0 : pad));
  const size_t a_tiles = t.packed ? 1 : size_t(t.groups_per_block);  // packed: one A tile for all groups
  return size_t(t.stages) * (a_tiles * a + b) * elem_bytes(t.dtype);
}

bool traits_ok(const KernelTraits& t, std::string* why) {
  if (t.family != Family::igemm) return fail(why, "not an igemm kernel");
  if (t.ndim < 1 || t.ndim > 3) return fail(why, "ndim must be 1, 2 or 3");
  if (t.warps_m < 1 || t.warps_n < 1 || t.warps_m * t.warps_n > 16)
    return fail(why, "warps_m x warps_n must be 1..16 warps");
  const int threads = kWarp * t.warps_m * t.warps_n;
  if (t.tile_m < 16 || t.tile_m % (16 * t.warps_m) != 0)
    return fail(why, "tile_m must be a multiple of 16 * warps_m (warp tile M a multiple of 16)");
  if (t.tile_n < 8 || t.tile_n % (8 * t.warps_n) != 0)
    return fail(why, "tile_n must be a multiple of 8 * warps_n (warp tile N a multiple of 8)");
  const int kstep = t.dtype == DType::fp32 ? 8 : 16;
  if (t.tile_k < kstep || t.tile_k % kstep != 0)
    return fail(why, "tile_k must be a multiple of " + std::to_string(kstep) + " (the mma k-step)");
  if (t.stages < 2 || t.stages > 5) return fail(why, "stages must be 2..5");
  const int max_vec = t.dtype == DType::fp32 ? 4 : 8;
  if (t.vec < 1 || t.vec > max_vec || (t.vec & (t.vec - 1)) != 0)
    return fail(why, "vec must be a power of two up to " + std::to_string(max_vec) + " (16 bytes)");
  if (t.split_k < 1 || t.split_k > 1024) return fail(why, "split_k must be 1..1024");
  if ((t.split_mode == SplitKMode::none) != (t.split_k == 1))
    return fail(why, "split_k > 1 needs a split mode (parallel or serial), and a split mode needs split_k > 1");
  if (t.split_mode == SplitKMode::cluster) return fail(why, "cluster split-K is a wgmma kernel's (igemm: parallel or serial)");
  const int gpb = t.groups_per_block;
  if (gpb != 1 && gpb != 2 && gpb != 4 && gpb != 8) return fail(why, "groups_per_block must be 1, 2, 4 or 8");
  if (t.realign) {
    if (t.packed || gpb != 1) return fail(why, "realign runs one group per block, not packed");
    if (t.vec * elem_bytes(t.dtype) != 16) return fail(why, "realign reads 16-byte vectors (vec x element size)");
  }
  if (t.packed) {
    if (gpb < 2) return fail(why, "packed needs groups_per_block >= 2");
  } else {
    if (t.tile_n % gpb != 0 || (t.tile_n / gpb) % 8 != 0)
      return fail(why, "tile_n / groups_per_block must be a multiple of 8");
    const int warp_n = t.tile_n / t.warps_n, group_cols = t.tile_n / gpb;
    if (gpb > 1 && warp_n % group_cols != 0 && group_cols % warp_n != 0)
      return fail(why, "a warp's columns (tile_n / warps_n) must span whole groups or lie inside one");
  }
  int ka = 0, kb = 0;
  k_slots(t, &ka, &kb);
  if (!slots_fit(ka, threads) || !slots_fit(kb, threads))
    return fail(why, "the loaders' K slots (tile_k / vec for K-major tiles, tile_k for MN-major) must divide "
                     "the thread count or be a multiple of it");
  if (smem_bytes(t) > kMaxSmemBytes)
    return fail(why, "shared memory " + std::to_string(smem_bytes(t)) + " B exceeds " +
                         std::to_string(kMaxSmemBytes) + " B");
  return true;
}

ProblemFacts check_problem(const Problem& p) {
  ProblemFacts f;
  f.problem = &p;
  f.valid = p.validate().ok();
  if (!f.valid) return f;  // the terms below divide by strides and groups
  f.cg = p.c_per_group(), f.kg = p.k_per_group();
  f.group_n = group_n(p);
  f.output_elements = output_elements(p);
  switch (p.direction) {
    case Direction::fwd: f.m_rows = p.n * p.out_volume(); break;
    case Direction::bwd_data: {
      // The largest phase (phase 0) has ceil(in / s) positions per dim (grid_shape).
      int64_t rows = p.n;
      for (int d = p.first_slot(); d < 3; ++d) {
        rows *= ceil_div(p.in[d], p.stride[d]);
        f.phases *= p.stride[d];
      }
      f.m_rows = rows;
      break;
    }
    case Direction::bwd_weight: f.m_rows = p.k_per_group(); break;
  }
  // 32-bit index math: coordinates far from the sentinel, and every offset a
  // gather forms (padding and taps included) inside int32.
  f.coords_ok = true;
  int64_t x_ext = p.n * p.c, y_ext = p.n * p.k;
  for (int d = p.first_slot(); d < 3; ++d) {
    const int64_t span = p.dilation[d] * (p.filter[d] - 1), out = p.out(d);
    for (int64_t v : {p.in[d], out, span, p.pad_lo[d], p.pad_hi[d], p.stride[d] * out})
      if (v >= kCoordLimit) f.coords_ok = false;
    x_ext = saturated_product(x_ext, p.in[d] + p.pad_lo[d] + p.pad_hi[d] + span + p.stride[d]);
    y_ext = saturated_product(y_ext, out + (p.pad_lo[d] + span) / p.stride[d] + 2);
  }
  f.index_ok = x_ext < kIndexLimit && y_ext < kIndexLimit;
  return f;
}

bool can_implement(const KernelTraits& t, const ProblemFacts& f, std::string* why) {
  return traits_ok(t, why) && problem_ok(t, f, why);
}

bool problem_ok(const KernelTraits& t, const ProblemFacts& f, std::string* why) {
  const Problem& p = *f.problem;
  if (t.direction != p.direction) return fail(why, "direction differs from the problem's");
  if (t.dtype != p.dtype) return fail(why, "dtype differs from the problem's");
  if (t.ndim != p.ndim) return fail(why, "ndim differs from the problem's");
  if (!f.valid) return why ? fail(why, p.validate().message()) : false;

  const auto not_divisible = [&](int64_t n, const char* what) {
    return why ? fail(why, std::string(what) + " (" + std::to_string(n) + ") is not divisible by vec (" +
                               std::to_string(t.vec) + ")")
               : false;
  };
  // Vectors run along channels: fwd reads x and w along c; bwd_data reads dy
  // along k and w along c; bwd_weight reads dy along k and x along c.
  if (t.packed && p.direction != Direction::bwd_weight) {
    // Packed fwd / bwd_data: A gathers vectors across the block's groups
    // (every block's channel run a multiple of vec, the last block's too),
    // B loads pieces of vec_b within one group.
    const int64_t a_per_group = p.direction == Direction::fwd ? f.cg : f.kg;
    const int64_t last = p.g % t.groups_per_block;
    if ((t.groups_per_block * a_per_group) % t.vec != 0 || (last * a_per_group) % t.vec != 0)
      return why ? fail(why, "packed: the block's " + std::string(p.direction == Direction::fwd ? "C/G" : "K/G") +
                                 " channel runs are not multiples of vec (" + std::to_string(t.vec) + ")")
                 : false;
    if (f.cg % vec_b(t) != 0)
      return why ? fail(why, "packed: C/G (" + std::to_string(f.cg) + ") is not divisible by the weights' piece (" +
                                 std::to_string(vec_b(t)) + " elements)")
                 : false;
  } else if (t.realign) {
    // fwd reads x and w along C/G from any offset, bwd_data dy along an odd
    // K/G or w in 2-byte pieces along an odd C/G (config.cuh NarrowBConfig),
    // bwd_weight dy along an odd K/G or x along an odd C/G; in both bwd
    // directions the other count on the vector (one kernel body for each,
    // config.cuh OddCgConfig; a third for both odd cost the 32-row tiles a
    // block per SM, igemm.cuh). Only where the aligned kernels would copy
    // single elements (vec 1): an odd channel count (where 2 or 4 divide it,
    // their vec 2 / 4 kernels measured faster) of more than one vector
    // (below, the rounding up to vec wastes most of the tile: depthwise C/G
    // = 1), or bwd_weight's x merged over the filter's X taps into a run of
    // more than one vector (RGB stems: merges_run).
    const auto odd_run = [&](int64_t run, const char* what) {
      if (!why) return run % 2 != 0 && run > t.vec;  // ranking: no strings
      if (run % 2 == 0)
        return fail(why, std::string("realign serves an odd ") + what + " (" + std::to_string(run) +
                             " is even: the aligned kernels serve it)");
      if (run <= t.vec)
        return fail(why, std::string("realign serves ") + what + " of more than one vector (" +
                             std::to_string(run) + " <= vec " + std::to_string(t.vec) + ")");
      return true;
    };
    if (p.direction != Direction::fwd && f.kg % t.vec != 0 && f.cg % t.vec != 0)
      return why ? fail(why, "realign serves one count off the vector: K/G (" + std::to_string(f.kg) + ") and C/G (" +
                                 std::to_string(f.cg) + ") are both not multiples of vec (" +
                                 std::to_string(t.vec) + ")")
                 : false;
    if (p.direction == Direction::bwd_weight) {
      if (f.kg % t.vec == 0 && f.cg % t.vec == 0)
        return fail(why, "realign serves an odd K/G or C/G (both are multiples of vec: the aligned kernels serve it)");
      if (f.kg % t.vec != 0 && !odd_run(f.kg, "K/G")) return false;
      if (f.cg % t.vec != 0 && !merges_run(p, t.vec) && !odd_run(f.cg, "C/G")) {
        // C/G of one vector or less (odd_run's reason): the run merge did not apply either.
        if (why && f.cg <= t.vec && f.cg % 2 != 0)
          *why += "; nor does the run merge (one group, W dilation 1, X x C of more than one vector: G " +
                  std::to_string(p.g) + ", dil_w " + std::to_string(p.dilation[2]) + ", X x C " +
                  std::to_string(p.filter[2] * f.cg) + ")";
        return false;
      }
    } else if (p.direction == Direction::bwd_data && f.cg % t.vec != 0) {
      // dx's C/G off the vector: the narrow-B body (config.cuh NarrowBConfig:
      // w in 2-byte pieces, dy in vectors; K/G on the vector, above). Odd C/G
      // only, as for the other realigned geometries: on r2plus1d's 230 and
      // 460 the wgmma vec 2 / 4 kernels ran 1.25-1.5x faster (H100,
      // docs/realign.md); above one vector (C = 3 stems: tinyc).
      if (!odd_run(f.cg, "C/G")) return false;
    } else {
      if (!odd_run(p.direction == Direction::fwd ? f.cg : f.kg, p.direction == Direction::fwd ? "C/G" : "K/G"))
        return false;
    }
  } else {
    if (f.cg % t.vec != 0) return not_divisible(f.cg, "C/G");
    if (p.direction != Direction::fwd && f.kg % t.vec != 0) return not_divisible(f.kg, "K/G");
  }

  const int gpb = t.groups_per_block;
  if (gpb > 1 && 2 * p.g <= gpb)
    return fail(why, "groups_per_block leaves more than half of each block's groups empty");
  if (t.packed) {
    // The block's groups fill one tile along the side that holds their
    // output channels (fwd / bwd_data: N, the loaders assume one N tile;
    // bwd_weight: M), which keeps packing to small groups.
    const bool wgrad = p.direction == Direction::bwd_weight;
    const int64_t side = wgrad ? f.kg : f.group_n, tile = wgrad ? t.tile_m : t.tile_n;
    if (side * gpb > tile)
      return why ? fail(why, std::string("packed: groups_per_block x ") + (wgrad ? "K/G (" : "per-group GEMM N (") +
                                 std::to_string(gpb) + " x " + std::to_string(side) + ") exceeds " +
                                 (wgrad ? "tile_m (" : "tile_n (") + std::to_string(tile) + ")")
                 : false;
  } else if (gpb > 1) {
    const int64_t need = f.group_n, have = t.tile_n / gpb;
    if (need > have)
      return why ? fail(why, "per-group GEMM N (" + std::to_string(need) + ") exceeds tile_n / groups_per_block (" +
                                 std::to_string(have) + ")")
                 : false;
  }
  if (!f.coords_ok) return fail(why, "a spatial size, pad or dilated filter exceeds 2^29");
  if (!f.index_ok) return fail(why, "padded index range exceeds 2^31 (kernels index with int32)");
  if (grid_blocks(t, f) >= kIndexLimit) return fail(why, "grid exceeds 2^31 - 1 blocks");
  return true;
}

bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) {
  return can_implement(t, check_problem(p), why);
}

size_t workspace_bytes(const KernelTraits& t, const ProblemFacts& f) {
  return split_workspace(t, f.output_elements, out_tiles(t, f));
}

size_t workspace_bytes(const KernelTraits& t, const Problem& p) { return workspace_bytes(t, check_problem(p)); }

std::string instance_source(const KernelTraits& t) {
  const int threads = kWarp * t.warps_m * t.warps_n;
  std::string s;
  s += "#include \"igemm/igemm.cuh\"\n";
  s += "typedef gconv::igemm::IgemmConfig<" + std::to_string(dir_id(t.direction)) + ", " +
       std::to_string(dtype_id(t.dtype)) + ", " + std::to_string(t.ndim) + ", " + std::to_string(t.tile_m) + ", " +
       std::to_string(t.tile_n) + ", " + std::to_string(t.tile_k) + ", " + std::to_string(t.warps_m) + ", " +
       std::to_string(t.warps_n) + ", " + std::to_string(t.stages) + ", " + std::to_string(split_id(t.split_mode)) +
       ", " + std::to_string(t.vec) + ", " + std::to_string(t.groups_per_block) +
       (t.packed ? ", 1" : t.realign ? ", 0, 1" : "") + "> Cfg;\n";
  // The minimum-blocks hint is the config's (see kMinBlocks): without one
  // ptxas caps registers for occupancy on its own and spills bigger tiles.
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) +
       ", Cfg::kMinBlocks) gconv_main(const __grid_constant__ gconv::igemm::IgemmParams p) { gconv::igemm::igemm_main<Cfg>(p); }\n";
  if (t.split_mode == SplitKMode::parallel || t.split_mode == SplitKMode::serial) {
    s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kReduceThreads) +
         ") gconv_reduce(const __grid_constant__ gconv::igemm::IgemmParams p) { gconv::igemm::igemm_reduce<Cfg>(p); "
         "}\n";
  }
  return s;
}

std::vector<std::string> entry_points(const KernelTraits& t) {
  if (t.split_mode != SplitKMode::parallel && t.split_mode != SplitKMode::serial) return {"gconv_main"};
  return {"gconv_main", "gconv_reduce"};
}

Result<LaunchPlan> make_plan(const KernelTraits& t, const Problem& p) {
  std::string why;
  if (!can_implement(t, p, &why)) return internal_error("igemm make_plan: instance cannot run problem: " + why);
  LaunchPlan plan = grid_plan(t, p);
  plan.threads = kWarp * t.warps_m * t.warps_n;
  plan.smem = smem_bytes(t);
  return plan;
}

LaunchPlan grid_plan(const KernelTraits& t, const Problem& p) {
  LaunchPlan plan;
  IgemmParams& q = plan.params;
  const int nd = p.ndim, first = p.first_slot();
  const int64_t cg = p.c_per_group(), kg = p.k_per_group();

  q.batch = int(p.n);
  q.C = int(p.c);
  q.K = int(p.k);
  q.G = int(p.g);
  q.Cg = int(cg);
  q.Kg = int(kg);
  const int64_t xrun = realign_x_run(t, p);
  q.xrun = int(xrun > 0 ? xrun : cg);
  for (int d = 0; d < 3; ++d) {
    q.in[d] = int(p.in[d]);
    q.out[d] = int(p.out(d));
    q.filt[d] = int(p.filter[d]);
    q.stride[d] = int(p.stride[d]);
    q.pad[d] = int(p.pad_lo[d]);
    q.dil[d] = int(p.dilation[d]);
  }
  q.in_inner[2] = q.out_inner[2] = q.filt_inner[2] = 1;
  for (int d = 1; d >= 0; --d) {
    q.in_inner[d] = q.in_inner[d + 1] * q.in[d + 1];
    q.out_inner[d] = q.out_inner[d + 1] * q.out[d + 1];
    q.filt_inner[d] = q.filt_inner[d + 1] * q.filt[d + 1];
  }
  q.in_vol = int(p.in_volume());
  q.out_vol = int(p.out_volume());
  q.filt_vol = int(p.filter_volume());

  const int64_t F = p.filter_volume();
  switch (p.direction) {
    case Direction::fwd:
      q.gemm_m = int(p.n * p.out_volume());
      q.gemm_n = int(kg);
      q.gemm_k = int(F * cg);
      break;
    case Direction::bwd_data:
      q.gemm_m = int(p.n * p.in_volume());
      q.gemm_n = int(cg);
      q.gemm_k = int(F * kg);
      break;
    case Direction::bwd_weight:
      // Packed: the block's groups' columns; realigned odd C/G: x's run (C/G,
      // or X * C merged) rounded up to vec per tap (tiled_group_n).
      q.gemm_m = int(kg);
      q.gemm_n = int(tiled_group_n(t, p, F * cg) * (t.packed ? t.groups_per_block : 1));
      q.gemm_k = int(p.n * p.out_volume());
      break;
  }

  // K counter digits (slot 3 fastest): fwd (taps, c), bwd_weight (n, o...);
  // bwd_data builds its own per phase.
  for (int d = 0; d < 4; ++d) q.kc_radix[d] = 1, q.kc_inc[d] = 0;
  if (p.direction == Direction::fwd) {
    // Packed: the channel digit spans the block's groups (operands.cuh).
    // Realign: it runs over C/G rounded up to vec, so that a vector never
    // spans two taps (the rounding's columns are zeros in A and B).
    const int cpk = t.packed ? t.groups_per_block * q.Cg : t.realign ? (q.Cg + t.vec - 1) / t.vec * t.vec : q.Cg;
    q.gemm_k = int(F * cpk);
    for (int d = first; d < 3; ++d) q.kc_radix[d] = q.filt[d];
    q.kc_radix[3] = cpk;
    counter_increment(nd + 1, q.kc_radix, t.tile_k, q.kc_inc);
  } else if (p.direction == Direction::bwd_weight) {
    for (int d = first; d < 3; ++d) q.kc_radix[d + 1] = q.out[d];
    counter_increment(nd + 1, q.kc_radix, t.tile_k, q.kc_inc);
  }

  int64_t m_tiles = 0, phases = 0;
  grid_shape(t, p, &m_tiles, &phases);
  q.n_tiles = int(n_tiles_of(t, tiled_group_n(t, p, group_n(p))));
  q.g_blocks = int(ceil_div(p.g, t.groups_per_block));
  q.m_tiles = int(m_tiles);
  q.splits = t.split_k;
  q.phases = int(phases);
  q.out_elems = int(output_elements(p));
  set_fast_div(q);

  const ProblemFacts f = check_problem(p);
  plan.grid = unsigned(grid_blocks(t, f));
  // Serial split-K converts inside gconv_main (fixup.cuh) unless the
  // GCONV_SPLITK_FIXUP=0 A/B knob asks for the zeroed slice and the reduce
  // kernel; parallel split-K too while one block's sum of a tile's slices
  // stays small (kernels/fixup.hpp parallel_fixup).
  const bool serial = t.split_mode == SplitKMode::serial, parallel = t.split_mode == SplitKMode::parallel;
  q.fixup = (serial && splitk_fixup_enabled()) || (parallel && parallel_fixup(t.split_k, t.tile_m, t.tile_n)) ? 1 : 0;
  plan.reduce = (parallel || serial) && !q.fixup;
  const int64_t items = q.out_elems % 4 == 0 ? q.out_elems / 4 : q.out_elems;
  plan.reduce_grid = unsigned(std::clamp<int64_t>(ceil_div(items, kReduceThreads), 1, kMaxReduceBlocks));
  plan.workspace = workspace_bytes(t, f);
  plan.zero_workspace = serial && !q.fixup;
  plan.fixup_offset = serial     ? fixup_words_offset(q.out_elems)
                      : parallel ? fixup_words_offset(int64_t{t.split_k} * q.out_elems)
                                 : 0;
  return plan;
}

}  // namespace gconv::igemm
