// wgmma rules, shared memory, source text and launch plan. The device side
// of every number here is src/kernels/wgmma/config.cuh (WgmmaConfig); the
// grid and parameters are igemm's (igemm::grid_plan).
#include "kernels/wgmma/wgmma_plan.hpp"

#include <string>

#include "jit/env.hpp"
#include "kernels/wgmma/packed.hpp"
#include "kernels/wgmma/staged.hpp"
#include "kernels/wgmma/tma.hpp"

namespace gconv::wgmma {
namespace {

bool fail(std::string* why, const char* msg) {
  if (why) *why = msg;
  return false;
}
bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

int elem_bytes(DType t) { return t == DType::fp32 ? 4 : 2; }
size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }
bool pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

// The igemm loaders' slot map (loaders.cuh SlotMap): the K slots of a tile
// divide the producer's 128 threads or are a multiple of them.
bool slots_fit(int ks) { return ks <= kWarpgroup ? kWarpgroup % ks == 0 : ks % kWarpgroup == 0; }

int dir_id(Direction d) { return d == Direction::fwd ? 0 : d == Direction::bwd_data ? 1 : 2; }
int dtype_id(DType t) { return t == DType::bf16 ? 0 : t == DType::fp16 ? 1 : 2; }
// igemm::SplitId (igemm/params.cuh).
int split_id(SplitKMode m) {
  switch (m) {
    case SplitKMode::none: return 0;
    case SplitKMode::parallel: return 1;
    case SplitKMode::serial: return 2;
    case SplitKMode::cluster: return 3;
  }
  return 0;
}

// Split-K whose fp32 workspace a second kernel reduces or converts when the
// one-launch fixup is off (GCONV_SPLITK_FIXUP=0, A/B runs).
bool has_reduce(const KernelTraits& t) {
  return t.split_mode == SplitKMode::parallel || t.split_mode == SplitKMode::serial;
}

// Mirrors WgmmaConfig: a stage is kKBlocks K blocks of kBlockK (block_k),
// each an A and a B tile rounded up to 1024 bytes (kBlockBytes).
size_t stage_bytes(const KernelTraits& t) {
  const size_t eb = size_t(elem_bytes(t.dtype)), bk = size_t(block_k(t));
  return size_t(t.tile_k) / bk * (round_up(size_t(t.tile_m) * bk * eb, 1024) + round_up(size_t(t.tile_n) * bk * eb, 1024));
}
// The ring (the stages, without barriers) and the staged epilogue tile (rows
// padded by 16 bytes, then one int per row).
size_t ring_bytes(const KernelTraits& t) { return size_t(t.stages) * stage_bytes(t); }
size_t staged_fp32_bytes(const KernelTraits& t) { return size_t(t.tile_m) * (size_t(t.tile_n) * 4 + 16 + 4); }

}  // namespace

namespace {

// Mirrors WgmmaConfig: A and B tiles each rounded up to 1024 bytes, the full
// and empty mbarriers (8 bytes each per stage), serial and parallel split-K's
// two fixup words (kEpiOffset); the output tile staged with rows padded by 16 bytes and
// one int a row (kStagedBytes).
size_t ring_and_words(const KernelTraits& t) {
  const size_t fix = t.split_mode == SplitKMode::serial || t.split_mode == SplitKMode::parallel ? 16 : 0;
  return size_t(t.stages) * (stage_bytes(t) + 16) + fix;
}
// WgmmaConfig::kOutBytes: staged outputs are fp32 for split-K and fp32, else
// the dtype.
size_t out_bytes(const KernelTraits& t) {
  return t.split_mode != SplitKMode::none || t.dtype == DType::fp32 ? 4 : 2;
}
size_t staged_bytes(const KernelTraits& t, int cols) {
  return size_t(t.tile_m) * (size_t(cols) * out_bytes(t) + 16) + size_t(t.tile_m) * 4;
}
bool staging_fits(const KernelTraits& t, int cols) {
  return cols <= t.tile_n && t.tile_n % cols == 0 &&
         ring_and_words(t) + staged_bytes(t, cols) + 1024 <= igemm::kMaxSmemBytes;
}

}  // namespace

int epilogue_columns(const KernelTraits& t) {
  for (const int cols : {t.tile_n, 128, 64})
    if (staging_fits(t, cols)) return cols;
  return 0;
}

int epilogue_min_outputs() {
  static const int v = [] {
    const auto n = jit::process_env_int("GCONV_WGMMA_EPI_MIN", 1, 1 << 20);
    return n ? int(*n) : kEpilogueMinOutputs;
  }();
  return v;
}

bool epilogue_separate(const KernelTraits& t) {
  return t.split_mode == SplitKMode::none && t.tile_m * t.tile_n >= epilogue_min_outputs() &&
         epilogue_columns(t) > 0;
}

bool tma_store(const KernelTraits& t) {
  // WgmmaConfig::kStoreCols; a packed kernel's rows are not an affine map of dw's.
  return epilogue_separate(t) && t.tile_n % int(128 / out_bytes(t)) == 0 && !t.packed;
}

size_t smem_bytes(const KernelTraits& t) {
  // + 1024 bytes of slack to align the ring to the swizzle period.
  return ring_and_words(t) + (epilogue_separate(t) ? staged_bytes(t, epilogue_columns(t)) : 0) + 1024;
}

bool traits_ok(const KernelTraits& t, std::string* why) {
  if (t.family != Family::wgmma) return fail(why, "not a wgmma kernel");
  if (t.ndim < 1 || t.ndim > 3) return fail(why, "ndim must be 1, 2 or 3");
  if (t.warps_m != 1 && t.warps_m != 2) return fail(why, "consumer warpgroups (warps_m) must be 1 or 2");
  if (t.warps_n != 1) return fail(why, "warps_n must be 1 for wgmma kernels");
  if (t.packed) {
    // Packed weight gradients (packed.hpp): the group block's channels in
    // one GEMM, the diagonal blocks stored in dw's layout.
    if (t.direction != Direction::bwd_weight) return fail(why, "packed: bwd_weight only");
    if (t.groups_per_block != 2 && t.groups_per_block != 4 && t.groups_per_block != 8)
      return fail(why, "packed: groups_per_block must be 2, 4 or 8");
    if (t.split_mode == SplitKMode::parallel)
      return fail(why, "packed: no parallel split-K (its slices and reduce kernel use the unpacked layout)");
    if (t.realign) return fail(why, "packed: not with staged operands (realign)");
    if (!t.tma) return fail(why, "packed: TMA producer only (its boxes read the group blocks' channels)");
  } else if (t.groups_per_block != 1) {
    return fail(why, "groups_per_block must be 1 for wgmma kernels that are not packed");
  }
  const int wg_m = t.tile_m / t.warps_m;
  if (t.tile_m % t.warps_m != 0 || (wg_m != 64 && wg_m != 128))
    return fail(why, "tile_m / warps_m (rows per consumer warpgroup) must be 64 or 128");
  if (t.tile_n != 32 && t.tile_n != 64 && t.tile_n != 96 && t.tile_n != 128 && t.tile_n != 144 &&
      t.tile_n != 192 && t.tile_n != 256)
    return fail(why, "tile_n must be 32, 64, 96, 128, 144, 192 or 256 (the wgmma N of one instruction, or two "
                     "of 128 for 256 with GCONV_WGMMA_INSTR_N=128)");
  // MN-major B tiles are whole 64-column blocks of 128 bytes (or one
  // narrower block): 192 is three blocks, 96 and 144 are not whole blocks.
  if (!pow2(t.tile_n) && t.tile_n % 64 != 0 && t.direction != Direction::fwd)
    return fail(why, "tile_n " + std::to_string(t.tile_n) + " is for fwd only: bwd_data and bwd_weight read B "
                     "MN-major in 64-column blocks of 128 bytes (tile_n 32, 64, 128, 192 or 256)");
  if (wg_m * t.tile_n > 128 * 128)
    return fail(why, "accumulators: (tile_m / warps_m) * tile_n / 128 exceeds 128 registers per consumer thread");
  if (t.dtype == DType::fp32 && t.direction != Direction::fwd)
    return fail(why, "fp32 (tf32) wgmma reads K-major operands only: fwd only");
  const int eb = elem_bytes(t.dtype), kstep = t.dtype == DType::fp32 ? 8 : 16;
  if (t.tile_k % kstep != 0) return fail(why, "tile_k must be a multiple of the MMA's K (16; 8 for tf32)");
  const int row_bytes = t.tile_k * eb;
  if (t.tma && row_bytes == 256) {
    if (eb != 2) return fail(why, "tile_k 128 (two 64-wide K blocks a stage) is for 16-bit TMA kernels");
  } else if (row_bytes != 32 && row_bytes != 64 && row_bytes != 128) {
    return fail(why, "tile_k * element bytes must be 32, 64 or 128 (a swizzle width), or 256 for a 16-bit TMA kernel");
  }
  if (t.stages < 2 || t.stages > 8) return fail(why, "stages must be 2..8");
  if (!pow2(t.vec) || t.vec * eb > 16) return fail(why, "vec must be a power of two of at most 16 bytes");
  if (t.split_k < 1 || t.split_k > 1024) return fail(why, "split_k must be 1..1024");
  if ((t.split_mode == SplitKMode::none) != (t.split_k == 1))
    return fail(why, "split_k > 1 needs a split mode (parallel, serial or cluster), and a split mode needs split_k > 1");
  if (t.split_mode == SplitKMode::cluster) {
    // The splits of a tile are one cluster (at most 8 blocks, the portable
    // size) that each own tile_m / split_k rows of the sum.
    if (!pow2(t.split_k) || t.split_k > 8) return fail(why, "cluster split-K: split_k must be 2, 4 or 8");
    if (staged_fp32_bytes(t) > ring_bytes(t))
      return fail(why, "cluster split-K: the fp32 partial tile (" + std::to_string(staged_fp32_bytes(t)) +
                           " B) must fit the ring (" + std::to_string(ring_bytes(t)) + " B)");
  }
  // K slots of the producer's loaders: K-major tiles tile_k / vec, MN-major tile_k.
  const int kmajor = t.tile_k / t.vec;
  const int ka = t.direction == Direction::bwd_weight ? t.tile_k : kmajor;
  const int kb = t.direction == Direction::fwd ? kmajor : t.tile_k;
  if (kmajor < 1 || !slots_fit(ka) || !slots_fit(kb))
    return fail(why, "the producer's K slots (tile_k / vec for K-major tiles, tile_k for MN-major) must divide "
                     "128 threads or be a multiple of them");
  // A wgmma kernel realigns only by staged copies (staged.hpp): a
  // realigning cp.async producer (igemm's loaders, chunks shifted in the
  // producer's registers) measured slower than the kernels already there on
  // all but 2 of 53 public problems (H100, twenty-ninth session).
  if (t.realign && (!t.tma || t.vec * eb != 16 || eb != 2))
    return fail(why, "realign (staged copies): TMA kernels of 16-bit types, vec 8");
  if (t.tma && row_bytes != 128 && row_bytes != 256)
    return fail(why, "tma: the TMA producer needs 128-byte K rows (tile_k 64 or 128 for 16-bit types, 32 for fp32)");
  if (t.tma && t.direction != Direction::fwd && (t.tile_n % 64 != 0 || t.tile_m % 64 != 0))
    return fail(why, "tma: bwd_data / bwd_weight TMA loads whole 64-element blocks: tile_m and tile_n multiples of 64");
  if (smem_bytes(t) > igemm::kMaxSmemBytes)
    return fail(why, "shared memory " + std::to_string(smem_bytes(t)) + " B exceeds " +
                         std::to_string(igemm::kMaxSmemBytes) + " B");
  return true;
}

bool can_implement(const KernelTraits& t, const igemm::ProblemFacts& f, std::string* why) {
  return traits_ok(t, why) && wgmma::problem_ok(t, f, why);
}

bool problem_ok(const KernelTraits& t, const igemm::ProblemFacts& f, std::string* why) {
  if (staged(t)) return f.valid && staged_ok(t, *f.problem, why);
  if (packed(t)) return f.valid && packed_ok(t, *f.problem, why);
  return igemm::problem_ok(t, f, why) && (!t.tma || tma_ok(t, *f.problem, why));
}

bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) {
  return wgmma::can_implement(t, igemm::check_problem(p), why);
}

int instr_n_max() {
  static const int v = [] {
    const auto n = jit::process_env_int("GCONV_WGMMA_INSTR_N", 128, 256);
    return n && *n < 256 ? 128 : 256;
  }();
  return v;
}

// A staged instance: the copies first, then the TMA kernel's own workspace.
size_t workspace_bytes(const KernelTraits& t, const Problem& p) {
  if (staged(t)) return staged_copies(p).bytes + igemm::workspace_bytes(staged_base(t), plan_problem(p));
  // Packed: the unpacked kernel's on the group blocks' problem (its serial
  // slice is gpb times dw; the diagonal blocks use their own part of it).
  if (packed(t)) return packed_workspace_bytes(t, p);
  return igemm::workspace_bytes(t, p);
}
size_t workspace_bytes(const KernelTraits& t, const igemm::ProblemFacts& f) {
  if (staged(t) || packed(t)) return workspace_bytes(t, *f.problem);
  return igemm::workspace_bytes(t, f);
}

int tma_issuers() {
  static const int v = jit::process_env_on("GCONV_WGMMA_TMA_ISSUERS2") ? 2 : 1;
  return v;
}

int trace_blocks() {
  static const int v = [] {
    const auto n = jit::process_env_int("GCONV_WGMMA_TRACE", 1, 1024);
    return n ? static_cast<int>(*n) : 0;
  }();
  return v;
}

std::string instance_source(const KernelTraits& t) {
  const int threads = kWarpgroup * (t.warps_m + 1);
  std::string s;
  // GCONV_WGMMA_TRACE=N (N > 0, read once): the kernels print the SM-clock
  // times of their phases for blocks 0 .. N-1 (wgmma/trace.cuh),
  // for latency studies of small layers. These defines make other cache
  // entries.
  if (trace_blocks() > 0) s += "#define GCONV_WGMMA_TRACE " + std::to_string(trace_blocks()) + "\n";
  // GCONV_WGMMA_NOLOAD=1 with GCONV_WGMMA_TRACE (read once): the TMA
  // producers arm each stage without loading it, so the phase clocks show
  // the consumers' own pace (the outputs are garbage: a latency study only).
  static const bool noload = jit::process_env_int("GCONV_WGMMA_NOLOAD", 0, 1).value_or(0) == 1;
  if (noload && trace_blocks() > 0 && t.tma) s += "#define GCONV_WGMMA_NOLOAD 1\n";
  // GCONV_WGMMA_TRACE_LIGHT=1 with GCONV_WGMMA_TRACE (read once): only the
  // phase marks outside the mainloop (first issue, first full, consumed,
  // stored, end), so that a stage's pace is (consumed - first full) over the
  // stages without the per-stage marks' own cost.
  static const bool light = jit::process_env_int("GCONV_WGMMA_TRACE_LIGHT", 0, 1).value_or(0) == 1;
  if (light && trace_blocks() > 0) s += "#define GCONV_WGMMA_TRACE_LIGHT 1\n";
  // GCONV_WGMMA_TAPWALK=0 (read once): the fwd and bwd_weight TMA producers
  // divide their K coordinates per stage again (wgmma/produce.cuh TapWalk),
  // for A/B runs (bwd_data's PhaseTapWalk always steps).
  static const bool tap_walk = jit::process_env_on("GCONV_WGMMA_TAPWALK");
  if (!tap_walk && t.tma) s += "#define GCONV_WGMMA_STAGE_DIVIDE 1\n";
  // GCONV_WGMMA_CLUSTER_AHEAD=0 (read once): cluster split-K's reduction with
  // the earlier serial loads (wgmma/epilogue.cuh reduce_cluster), A/B runs.
  static const bool cluster_ahead = jit::process_env_on("GCONV_WGMMA_CLUSTER_AHEAD");
  if (!cluster_ahead && t.split_mode == SplitKMode::cluster) s += "#define GCONV_WGMMA_CLUSTER_SERIAL 1\n";
  // GCONV_WGMMA_CLUSTER_BATCH=0 (read once): the one-vector-at-a-time
  // reduction instead of the batched one (reduce_cluster_batched), A/B runs.
  static const bool cluster_batch = jit::process_env_on("GCONV_WGMMA_CLUSTER_BATCH");
  if (!cluster_batch && t.split_mode == SplitKMode::cluster) s += "#define GCONV_WGMMA_CLUSTER_NOBATCH 1\n";
  s += "#include \"wgmma/wgmma.cuh\"\n";
  s += "typedef gconv::wg::WgmmaConfig<" + std::to_string(dir_id(t.direction)) + ", " +
       std::to_string(dtype_id(t.dtype)) + ", " + std::to_string(t.ndim) + ", " + std::to_string(t.tile_m) + ", " +
       std::to_string(t.tile_n) + ", " + std::to_string(t.tile_k) + ", " + std::to_string(t.warps_m) + ", " +
       std::to_string(t.stages) + ", " + std::to_string(split_id(t.split_mode)) + ", " + std::to_string(t.vec) +
       (t.tma ? ", true" : ", false") + ", " + std::to_string(epilogue_min_outputs()) + ", " +
       std::to_string(instr_n_max()) + ", " + std::to_string(tma_issuers()) +
       (t.packed ? ", " + std::to_string(t.groups_per_block) : std::string()) + "> Cfg;\n";
  // The launch's dynamic shared memory is the host's mirror of the config.
  s += "static_assert(Cfg::kSmemBytes == " + std::to_string(smem_bytes(t)) +
       ", \"wgmma_plan.cpp smem_bytes mirrors WgmmaConfig::kSmemBytes\");\n";
  // Cluster split-K: the attribute forms the clusters on a plain launch of
  // split_k consecutive blocks per tile (grid = tiles * split_k).
  const std::string cluster = t.split_mode == SplitKMode::cluster
                                  ? "__cluster_dims__(" + std::to_string(t.split_k) + ", 1, 1) "
                                  : std::string();
  s += "extern \"C\" __global__ void " + cluster + "__launch_bounds__(" + std::to_string(threads) +
       ", Cfg::kMinBlocks) gconv_main(const __grid_constant__ gconv::igemm::IgemmParams p";
  // A TMA producer takes the tensor maps of A and B by value (wgmma/tma.hpp),
  // a kernel that can store through TMA (tma_store) the output's (used when
  // p.out_map is set).
  const std::string map = ", const __grid_constant__ gconv::wg::TensorMap ";
  const bool out = tma_store(t);
  s += (t.tma ? map + "ta" + map + "tb" : std::string()) + (out ? map + "tc" : std::string()) + ") { ";
  s += std::string("gconv::wg::wgmma_main<Cfg>(p") + (t.tma ? ", &ta, &tb" : out ? ", nullptr, nullptr" : "") +
       (out ? ", &tc" : "") + "); }\n";
  if (trace_blocks() > 0) s += "extern \"C\" __global__ void gconv_trace_dump() { gconv::wg::trace::dump(); }\n";
  if (staged(t)) {
    s += "#include \"wgmma/stage_rows.cuh\"\n";
    s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kStageThreads) +
         ") gconv_pad(const unsigned short* src, uint4* dst, unsigned rows, unsigned k, unsigned kp) { "
         "gconv::wg::stage_rows(src, dst, rows, k, kp); }\n";
  }
  if (has_reduce(t)) {
    s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(igemm::kReduceThreads) +
         ") gconv_reduce(const __grid_constant__ gconv::igemm::IgemmParams p) { gconv::igemm::igemm_reduce<Cfg>(p); "
         "}\n";
  }
  return s;
}

size_t pad_entry(const KernelTraits& t) { return has_reduce(t) ? 2 : 1; }

std::vector<std::string> entry_points(const KernelTraits& t) {
  std::vector<std::string> e = {"gconv_main"};
  if (has_reduce(t)) e.push_back("gconv_reduce");
  if (staged(t)) e.push_back("gconv_pad");  // at pad_entry(t)
  if (trace_blocks() > 0) e.push_back("gconv_trace_dump");  // last
  return e;
}

Result<igemm::LaunchPlan> make_plan(const KernelTraits& t, const Problem& p) {
  std::string why;
  if (!can_implement(t, p, &why)) return internal_error("wgmma make_plan: instance cannot run problem: " + why);
  igemm::LaunchPlan plan = staged(t)   ? igemm::grid_plan(staged_base(t), plan_problem(p))
                           : packed(t) ? igemm::grid_plan(packed_base(t), packed_problem(t, p))
                                       : igemm::grid_plan(t, p);
  if (packed(t)) {
    // Planned on packed_problem (grid, GEMM extents, workspace); the kernel
    // reads the tensors' own channels (C, K; the maps are the problem's)
    // at gpb * C/G a block, taps of pk_tw columns where padded, and stores
    // the diagonal blocks of the problem's own C/G x K/G (epilogue.cuh
    // PackedOut).
    igemm::IgemmParams& q = plan.params;
    const int64_t cgp = t.groups_per_block * p.c_per_group(), tw = packed_tap_width(t, p);
    q.C = int(p.c);
    q.K = int(p.k);
    q.Cg = int(cgp);
    q.pk_tw = tw == cgp ? 0 : int(tw);
    q.pk_cg = int(p.c_per_group());
    q.pk_kg = int(p.k_per_group());
  }
  if (const int64_t tk = tap_k(t, p)) {
    // The K walk of padded taps (bwd_data's kernel recomputes K per phase
    // from tap_k; a staged instance reads padded copies: tap_k is 0).
    plan.params.tap_k = int(tk);
    if (p.direction == Direction::fwd) plan.params.gemm_k = int(p.filter_volume() * tk);
  }
  plan.threads = kWarpgroup * (t.warps_m + 1);
  plan.smem = smem_bytes(t);
  return plan;
}

}  // namespace gconv::wgmma
