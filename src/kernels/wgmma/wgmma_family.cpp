// The wgmma KernelFamily: warp-specialized implicit GEMM on Hopper's
// warpgroup MMA (device code in wgmma/*.cuh, rules and plan in
// wgmma_plan.cpp; parameters, workspace and launch shared with igemm).
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <span>

#include "core/log.hpp"
#include "jit/env.hpp"
#include "jit/module.hpp"
#include "kernels/family.hpp"
#include "kernels/igemm/launch.hpp"
#include "kernels/wgmma/launch_memo.hpp"
#include "kernels/wgmma/packed.hpp"
#include "kernels/wgmma/staged.hpp"
#include "kernels/wgmma/tma.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv {
namespace {

// GCONV_WGMMA_PERSISTENT: unset, the persistent grid (at most the blocks the
// device holds at once) for tiles of at most kPersistentMaxTileOutputs; 0,
// one block per output tile everywhere (the grid before the persistent
// scheduler), for A/B measurements; N > 0, at most N blocks for every
// kernel, so that the GPU tests walk several tiles per block on small
// problems too.
// Read once; anything else is ignored (unset).
int persistent_setting() {
  static const int v = [] {
    const auto n = jit::process_env_int("GCONV_WGMMA_PERSISTENT", 0, 1L << 30);
    return n ? int(*n) : -1;
  }();
  return v;
}

// GCONV_WGMMA_TMA_STORE=0: no output map, so kernels with a staging area of
// their own store from it with their threads (as before the TMA stores).
bool tma_store_enabled() {
  static const bool v = jit::process_env_on("GCONV_WGMMA_TMA_STORE");
  return v;
}

// bwd TMA producers load a tile's 64-channel blocks of an operand in one box
// (wgmma/tma.hpp blocks_args, w_blocks_args); GCONV_WGMMA_TMA_BLOCKS=0 keeps
// one box per block.
bool tma_blocks_enabled() {
  static const bool v = jit::process_env_on("GCONV_WGMMA_TMA_BLOCKS");
  return v;
}

// GCONV_WGMMA_MULTICAST=1 turns multicast launches on (read once; off by
// default: measured 0.757 per pair against the same kernels without, 468
// public fwd pairs, H100, seventeenth session, while the producers still
// divided per stage; both blocks of a pair wait for the slower one's stages).
bool multicast_enabled() {
  static const bool v = jit::process_env_int("GCONV_WGMMA_MULTICAST", 0, 1).value_or(0) == 1;
  return v;
}

// Whether a launch of t on the plan's problem forms clusters of two blocks
// on adjacent M tiles that share B through TMA multicast (wgmma.cuh
// tile_at_pair, wgmma/produce.cuh produce_tma): fwd TMA kernels without
// split, at least two M tiles. Each block then issues A and half of B per
// stage. (Built when small tiles looked load-bound; the eighteenth session
// found their pace set by the consumers' MMAs instead, docs/wgmma.md.)
bool multicast_ok(const KernelTraits& t, const igemm::LaunchPlan& plan) {
  return multicast_enabled() && t.tma && t.direction == Direction::fwd && t.split_mode == SplitKMode::none &&
         plan.params.m_tiles >= 2 && plan.params.phases == 1 && t.tile_n % 16 == 0;
}

// Tiles of at most this many outputs run on the persistent grid by default.
// A persistent block stores all but its last tile straight from the
// accumulators (the ring already holds the next tile's stages), two 4-byte
// stores per instruction instead of the staged 16-byte rows: for larger
// tiles that costs more than the overlap gains. Measured with one tile per
// block vs persistent, same run, one H100 (2026-11-25,
// notes/device-runs.md): on 102 training problems, tiles <= 128x64 1.010,
// larger 0.931; the rule was read off those and reported on the public set.
// Kernels with a staging area of their own (wgmma::epilogue_separate: unsplit
// tiles of at least 128 x 128) keep 16-byte stores there and run persistent.
constexpr int kPersistentMaxTileOutputs = 128 * 64;

// The persistent grid (wgmma.cuh walks the output tiles in strides of the
// grid). Cluster split-K keeps one tile per block (its splits are one
// cluster).
Status cap_grid(const KernelTraits& t, const LoadedKernel& k, igemm::LaunchPlan& plan) {
  const int setting = persistent_setting();
  if (t.split_mode == SplitKMode::cluster || setting == 0 || k.entries.empty()) return Status::Ok();
  if (setting < 0 && t.tile_m * t.tile_n > kPersistentMaxTileOutputs && !wgmma::epilogue_separate(t))
    return Status::Ok();
  unsigned cap = 0;
  if (setting > 0) {
    cap = unsigned(setting);
  } else {
    Result<int> resident = jit::resident_blocks(k.entries[0], unsigned(plan.threads), plan.smem);
    if (!resident.ok()) return resident.status();
    cap = unsigned(*resident);
  }
  if (plan.grid > cap) plan.grid = cap;
  // Whole clusters (a multicast launch's pairs).
  plan.grid -= plan.grid % plan.cluster;
  if (plan.grid < plan.cluster) plan.grid = plan.cluster;
  return Status::Ok();
}

// GCONV_WGMMA_LAUNCH_MEMO=1 (read once; off by default until timed on a
// GPU): each thread keeps the plan and the encoded tensor maps of its last
// kLaunchMemoEntries (kernel, problem, operand and output addresses), so a
// repeated call skips make_plan and the driver's map encoding
// (wgmma/launch_memo.hpp).
bool launch_memo_enabled() {
  static const bool v = jit::process_env_int("GCONV_WGMMA_LAUNCH_MEMO", 0, 1).value_or(0) == 1;
  return v;
}
constexpr size_t kLaunchMemoEntries = 1024;

// What a launch computes before launching (WgmmaFamily::prepare).
struct Prepared {
  igemm::LaunchPlan plan;
  wgmma::TensorMap ta{}, tb{}, tc{};
};

// The memo's key: everything prepare() reads. The kernel's entry point
// names the loaded module; the traits guard against another module loaded
// later at the same address.
struct MemoKey {
  const void* fn;
  KernelTraits traits;
  Problem problem;
  const void* a;
  const void* b;
  const void* out;
  bool operator==(const MemoKey&) const = default;
  size_t hash() const {
    return wgmma::hash_words({reinterpret_cast<uintptr_t>(fn), reinterpret_cast<uintptr_t>(a),
                              reinterpret_cast<uintptr_t>(b), reinterpret_cast<uintptr_t>(out)});
  }
};

class WgmmaFamily final : public KernelFamily {
 public:
  Family family() const override { return Family::wgmma; }

  bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) const override {
    return wgmma::can_implement(t, p, why);
  }

  size_t workspace_bytes(const KernelTraits& t, const Problem& p) const override {
    return wgmma::workspace_bytes(t, p);
  }

  std::string instance_source(const KernelTraits& t) const override { return wgmma::instance_source(t); }

  std::vector<std::string> entry_points(const KernelTraits& t) const override { return wgmma::entry_points(t); }

  // The host work of a launch before the launch itself: the plan (grid,
  // multicast, persistent cap) and the tensor maps of the operands' and the
  // output's addresses (a few microseconds each, through the driver).
  static Status prepare(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args,
                        Prepared& out) {
    Result<igemm::LaunchPlan> plan = wgmma::make_plan(t, p);
    if (!plan.ok()) return plan.status();
    const bool mcast = multicast_ok(t, *plan);
    if (mcast) {
      // One cluster of two blocks per pair of M tiles (a last odd tile pairs
      // with a ghost).
      const igemm::IgemmParams& q = plan->params;
      plan->params.mcast = 2;
      plan->cluster = 2;
      plan->grid = 2u * unsigned(q.n_tiles * q.g_blocks * q.phases * ((q.m_tiles + 1) / 2) * q.splits);
    } else {
      plan->params.mcast = 1;
    }
    GCONV_RETURN_IF_ERROR(cap_grid(t, k, *plan));
    // The maps hold the tensor addresses (GCONV_WGMMA_LAUNCH_MEMO keeps
    // them per address).
    wgmma::TensorMap& ta = out.ta;
    wgmma::TensorMap& tb = out.tb;
    wgmma::TensorMap& tc = out.tc;
    tc = wgmma::TensorMap{};
    if (t.tma) {
      if (!args.a || !args.b) return invalid_argument("wgmma launch: null tensor pointer");
      if (reinterpret_cast<uintptr_t>(args.a) % 16 != 0 || reinterpret_cast<uintptr_t>(args.b) % 16 != 0)
        return invalid_argument("wgmma launch: tensor-map operands must be 16-byte aligned");
      // ConvArgs: fwd a = x, b = w; bwd_data a = dy, b = w; bwd_weight a = x,
      // b = dy, while the GEMM's A is dy and B is x there.
      const bool swap = p.direction == Direction::bwd_weight;
      const bool flat = wgmma::loads_flat(p);
      const void* a_ptr = swap ? args.b : args.a;
      const void* b_ptr = swap ? args.a : args.b;
      plan->params.tma_flat = flat ? 1 : 0;
      plan->params.tma_blocks = 0;
      if (p.direction == Direction::bwd_data && !flat) {
        // dy's map corner shared by the stride phases (produce_tma_bwd_data).
        const wgmma::PhaseCorners pc = wgmma::bwd_data_corners(p);
        for (int d = 0; d < 3; ++d) plan->params.tma_lower[d] = int(pc.lower[d]);
      }
      // One box of several 64-channel blocks (bwd_weight dy and pointwise x,
      // bwd_data w); false, after one warning per process, if the driver
      // refuses the map (its strides are not ordered).
      const auto blocks = [&](const wgmma::TmaArgs& a, const void* ptr, wgmma::TensorMap* map) {
        const Status s = wgmma::encode_tensor_map(a, p.dtype, ptr, map);
        if (!s.ok()) {
          static std::once_flag once;
          std::call_once(once, [&] {
            log_warn("wgmma: TMA boxes of several channel blocks refused (" + s.message() +
                     "); one box per 64 channels instead");
          });
        }
        return s.ok();
      };
      // A packed instance (packed.hpp) loads one box per 64-channel block: its
      // group blocks need not align with the multi-block maps' blocks.
      const bool on = tma_blocks_enabled() && !wgmma::packed(t);
      // A staged instance reads its padded copies (launch): A's map (dy, or
      // fwd's x) has rows of the padded count; so has fwd's B (w); the bwd
      // directions' B (x, or w with its K rows: the padded channels read
      // zeros) is the problem's own.
      const bool st = wgmma::staged(t);
      const Problem pa = st ? wgmma::padded_problem(p) : p;
      const Problem pb = st && p.direction == Direction::fwd ? pa : p;
      if (on && wgmma::dy_blocks_ok(t, pa) && blocks(wgmma::blocks_args(t, pa, pa.k, t.tile_m / 64), a_ptr, &ta))
        plan->params.tma_blocks |= 1;
      else
        GCONV_RETURN_IF_ERROR(wgmma::encode_tensor_map(wgmma::a_args(t, pa, flat), p.dtype, a_ptr, &ta));
      if (on && wgmma::x_blocks_ok(t, pb, flat) && blocks(wgmma::blocks_args(t, pb, pb.c, t.tile_n / 64), b_ptr, &tb))
        plan->params.tma_blocks |= 2;
      else if (on && wgmma::w_blocks_ok(t, pb) && blocks(wgmma::w_blocks_args(t, pb), b_ptr, &tb))
        plan->params.tma_blocks |= 2;
      else if (mcast)
        GCONV_RETURN_IF_ERROR(wgmma::encode_tensor_map(wgmma::b_multicast_args(t, pb), p.dtype, b_ptr, &tb));
      else
        GCONV_RETURN_IF_ERROR(wgmma::encode_tensor_map(wgmma::b_args(t, pb, flat), p.dtype, b_ptr, &tb));
    }
    if (wgmma::tma_store(t)) {
      // Zeros, with p.out_map unset, where the output cannot be written
      // through a map.
      if (tma_store_enabled() && args.out && reinterpret_cast<uintptr_t>(args.out) % 16 == 0 &&
          wgmma::out_map_ok(t, p)) {
        GCONV_RETURN_IF_ERROR(wgmma::encode_tensor_map(wgmma::out_args(t, p), p.dtype, args.out, &tc));
        plan->params.out_map = 1;
      }
    }
    out.plan = *plan;
    return Status::Ok();
  }

  // A staged instance (staged.hpp): gconv_pad copies the operands whose
  // rows no tensor map can read in place (dy; fwd's x and w) into the front
  // of the workspace with padded rows; the TMA kernel then runs on the
  // copies with the rest of the workspace.
  static Status stage_operands(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args,
                               CUstream_st* stream, ConvArgs& staged) {
    const wgmma::StagedCopies copies = wgmma::staged_copies(p);
    const size_t at = wgmma::pad_entry(t);
    if (at >= k.entries.size() || k.entries[at] == nullptr)
      return internal_error("wgmma launch: staged instance lacks gconv_pad");
    if (!args.a || !args.b || !args.out) return invalid_argument("wgmma launch: null tensor pointer");
    if (!args.workspace || args.workspace_bytes < copies.bytes)
      return invalid_argument("wgmma launch: staged operands need a workspace of at least " +
                              std::to_string(copies.bytes) + " bytes, got " +
                              std::to_string(args.workspace ? args.workspace_bytes : 0));
    if (reinterpret_cast<uintptr_t>(args.workspace) % 256 != 0)
      return invalid_argument("wgmma launch: staged operands need a 256-byte aligned workspace");
    staged = args;
    for (int i = 0; i < copies.n; ++i) {
      const wgmma::StagedCopy& c = copies.copy[i];
      const void* src = c.from_b ? args.b : args.a;
      if (reinterpret_cast<uintptr_t>(src) % 2 != 0)
        return invalid_argument("wgmma launch: staged operands must be 2-byte aligned");
      void* dst = static_cast<char*>(args.workspace) + c.offset;
      unsigned rows = unsigned(c.rows), kk = unsigned(c.k), kp = unsigned(c.kp);
      const uint64_t chunks = uint64_t(rows) * (kp / 8);
      // A grid-stride loop: 4,096 blocks of 256 threads fill any Hopper part.
      const unsigned blocks =
          unsigned(std::min<uint64_t>((chunks + wgmma::kStageThreads - 1) / wgmma::kStageThreads, 4096));
      void* kargs[] = {&src, &dst, &rows, &kk, &kp};
      GCONV_RETURN_IF_ERROR(
          jit::launch(k.entries[at], dim3(blocks), dim3(unsigned(wgmma::kStageThreads)), 0, stream, kargs));
      (c.from_b ? staged.b : staged.a) = dst;
    }
    staged.workspace = static_cast<char*>(args.workspace) + copies.bytes;
    staged.workspace_bytes = args.workspace_bytes - copies.bytes;
    if (staged.workspace_bytes == 0) staged.workspace = nullptr;
    return Status::Ok();
  }

  Status launch(const KernelTraits& t, const LoadedKernel& k, const Problem& p, const ConvArgs& args_in,
                CUstream_st* stream) const override {
    ConvArgs staged;
    if (wgmma::staged(t)) GCONV_RETURN_IF_ERROR(stage_operands(t, k, p, args_in, stream, staged));
    const ConvArgs& args = wgmma::staged(t) ? staged : args_in;
    Prepared* prep = nullptr;
    Prepared fresh;
    if (launch_memo_enabled() && !k.entries.empty()) {
      // The memo is per thread: no lock on the launch path.
      thread_local wgmma::LaunchMemo<MemoKey, Prepared> memo(kLaunchMemoEntries);
      const MemoKey key{k.entries[0], t, p, args.a, args.b, args.out};
      prep = memo.find(key);
      if (prep == nullptr) {
        GCONV_RETURN_IF_ERROR(prepare(t, k, p, args, fresh));
        prep = &memo.put(key, fresh);
      }
    } else {
      GCONV_RETURN_IF_ERROR(prepare(t, k, p, args, fresh));
      prep = &fresh;
    }
    // gconv_main's tensor maps after IgemmParams: A and B of a TMA
    // producer, then the output's.
    void* maps[3];
    size_t n = 0;
    if (t.tma) {
      maps[n++] = &prep->ta;
      maps[n++] = &prep->tb;
    }
    if (wgmma::tma_store(t)) maps[n++] = &prep->tc;
    GCONV_RETURN_IF_ERROR(
        igemm::launch_plan("wgmma", t, k, p, args, prep->plan, stream, std::span<void* const>(maps, n)));
    if (wgmma::trace_blocks() > 0) {
      // GCONV_WGMMA_TRACE: the traced blocks' clocks, printed by a kernel of
      // their own after gconv_main (wgmma/trace.cuh dump).
      if (k.entries.size() != wgmma::entry_points(t).size() || k.entries.back() == nullptr)
        return internal_error("wgmma launch: traced instance lacks gconv_trace_dump");
      GCONV_RETURN_IF_ERROR(jit::launch(k.entries.back(), dim3(1), dim3(1), 0, stream, nullptr));
    }
    return Status::Ok();
  }
};

}  // namespace

const KernelFamily& wgmma_family() {
  static const WgmmaFamily family;
  return family;
}

}  // namespace gconv
