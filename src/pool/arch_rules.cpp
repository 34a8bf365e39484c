#include "pool/arch_rules.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include <fmt/format.h>

#if defined(__unix__)
#include <dlfcn.h>
#endif

#include "kernels/direct/direct_plan.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/pw/pw_plan.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "pool/json_reader.hpp"
#include "problem/read_text.hpp"

namespace gconv {
namespace {

using pool_detail::json;
using pool_detail::JsonReader;

constexpr int kWarpSize = 32;  // CUDA programming model constant
constexpr int kWarpgroup = 4 * kWarpSize;  // the threads one wgmma runs on
constexpr DType kDTypes[] = {DType::bf16, DType::fp16, DType::fp32};

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string list_text(const std::vector<int>& v) {
  return fmt::format("{{{}}}", fmt::join(v, ","));
}

Status read_limits(const JsonReader& r, const json& v, ArchRules* a) {
  const std::string p = "limits";
  GCONV_RETURN_IF_ERROR(r.check_object(
      v, p,
      {"smem_per_block_bytes", "regs_per_thread_max", "regs_per_sm", "max_threads_per_block",
       "sm_count_hint", "max_vector_bytes"},
      {"smem_per_block_bytes", "regs_per_thread_max", "regs_per_sm", "max_threads_per_block",
       "sm_count_hint", "max_vector_bytes"}));
  GCONV_RETURN_IF_ERROR(r.read_int64(v["smem_per_block_bytes"], p + ".smem_per_block_bytes", &a->smem_per_block_bytes));
  GCONV_RETURN_IF_ERROR(r.read_int(v["regs_per_thread_max"], p + ".regs_per_thread_max", &a->regs_per_thread_max));
  GCONV_RETURN_IF_ERROR(r.read_int(v["regs_per_sm"], p + ".regs_per_sm", &a->regs_per_sm));
  GCONV_RETURN_IF_ERROR(r.read_int(v["max_threads_per_block"], p + ".max_threads_per_block", &a->max_threads_per_block));
  GCONV_RETURN_IF_ERROR(r.read_int(v["sm_count_hint"], p + ".sm_count_hint", &a->sm_count_hint));
  GCONV_RETURN_IF_ERROR(r.read_int(v["max_vector_bytes"], p + ".max_vector_bytes", &a->max_vector_bytes));
  return Status::Ok();
}

Status read_mma(const JsonReader& r, const json& v, ArchRules* a) {
  GCONV_RETURN_IF_ERROR(r.check_object(v, "mma", {"bf16", "fp16", "fp32"}, {"bf16", "fp16", "fp32"}));
  for (DType t : kDTypes) {
    std::string p = std::string("mma.") + to_string(t);
    const json& m = v[to_string(t)];
    GCONV_RETURN_IF_ERROR(r.check_object(m, p, {"m", "n", "k", "instruction"}, {"m", "n", "k"}));
    MmaShape& s = a->mma[static_cast<int>(t)];
    GCONV_RETURN_IF_ERROR(r.read_int(m["m"], p + ".m", &s.m));
    GCONV_RETURN_IF_ERROR(r.read_int(m["n"], p + ".n", &s.n));
    GCONV_RETURN_IF_ERROR(r.read_int(m["k"], p + ".k", &s.k));
    if (s.m <= 0 || s.n <= 0 || s.k <= 0) return r.error(p, "m, n and k must be positive");
  }
  return Status::Ok();
}

Status read_igemm(const JsonReader& r, const json& v, ArchRules* a) {
  const std::string p = "igemm";
  GCONV_RETURN_IF_ERROR(r.check_object(
      v, p,
      {"tile_m", "tile_n", "tile_k", "warp_layouts", "stages", "split_k_max", "groups_per_block", "smem", "registers"},
      {"tile_m", "tile_n", "tile_k", "warp_layouts", "stages", "split_k_max", "groups_per_block", "smem", "registers"}));
  ArchRules::Igemm& g = a->igemm;
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_m"], p + ".tile_m", &g.tile_m));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_n"], p + ".tile_n", &g.tile_n));
  GCONV_RETURN_IF_ERROR(r.check_object(v["tile_k"], p + ".tile_k", {"bf16", "fp16", "fp32"}, {"bf16", "fp16", "fp32"}));
  for (DType t : kDTypes) {
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_k"][to_string(t)], p + ".tile_k." + to_string(t),
                                          &g.tile_k[static_cast<int>(t)]));
  }
  GCONV_RETURN_IF_ERROR(r.read_pair_list(v["warp_layouts"], p + ".warp_layouts", &g.warp_layouts));
  GCONV_RETURN_IF_ERROR(r.check_object(v["stages"], p + ".stages", {"min", "max"}, {"min", "max"}));
  GCONV_RETURN_IF_ERROR(r.read_int(v["stages"]["min"], p + ".stages.min", &g.stages_min));
  GCONV_RETURN_IF_ERROR(r.read_int(v["stages"]["max"], p + ".stages.max", &g.stages_max));
  GCONV_RETURN_IF_ERROR(r.read_int(v["split_k_max"], p + ".split_k_max", &g.split_k_max));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["groups_per_block"], p + ".groups_per_block", &g.groups_per_block));
  GCONV_RETURN_IF_ERROR(r.check_object(v["smem"], p + ".smem", {}, {}));  // documentation only
  GCONV_RETURN_IF_ERROR(r.check_object(v["registers"], p + ".registers",
                                       {"overhead", "fragment_k_steps", "load_chunk_regs"},
                                       {"overhead", "fragment_k_steps", "load_chunk_regs"}));
  GCONV_RETURN_IF_ERROR(r.read_int(v["registers"]["overhead"], p + ".registers.overhead", &g.reg_overhead));
  GCONV_RETURN_IF_ERROR(r.read_int(v["registers"]["fragment_k_steps"], p + ".registers.fragment_k_steps",
                                   &g.fragment_k_steps));
  GCONV_RETURN_IF_ERROR(r.read_int(v["registers"]["load_chunk_regs"], p + ".registers.load_chunk_regs",
                                   &g.load_chunk_regs));
  return Status::Ok();
}

Status read_wgmma(const JsonReader& r, const json& v, ArchRules* a) {
  const std::string p = "wgmma";
  const std::initializer_list<const char*> keys = {"tile_m",      "tile_n",           "tile_k", "consumer_warpgroups",
                                                   "rows_per_consumer", "directions", "stages", "split_k_max",
                                                   "cluster_split_max", "groups_per_block", "smem", "registers"};
  GCONV_RETURN_IF_ERROR(r.check_object(v, p, keys, keys));
  ArchRules::Wgmma& g = a->wgmma;
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_m"], p + ".tile_m", &g.tile_m));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_n"], p + ".tile_n", &g.tile_n));
  GCONV_RETURN_IF_ERROR(r.check_object(v["tile_k"], p + ".tile_k", {"bf16", "fp16", "fp32"}, {"bf16", "fp16", "fp32"}));
  GCONV_RETURN_IF_ERROR(
      r.check_object(v["directions"], p + ".directions", {"bf16", "fp16", "fp32"}, {"bf16", "fp16", "fp32"}));
  for (DType t : kDTypes) {
    const int i = static_cast<int>(t);
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["tile_k"][to_string(t)], p + ".tile_k." + to_string(t), &g.tile_k[i]));
    const std::string dp = p + ".directions." + to_string(t);
    std::vector<std::string> names;
    GCONV_RETURN_IF_ERROR(r.read_string_list(v["directions"][to_string(t)], dp, &names));
    for (const std::string& n : names) {
      auto d = parse_direction(n);
      if (!d.ok()) return r.error(dp, d.status().message());
      g.directions[i].push_back(*d);
    }
  }
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["consumer_warpgroups"], p + ".consumer_warpgroups", &g.consumer_warpgroups));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["rows_per_consumer"], p + ".rows_per_consumer", &g.rows_per_consumer));
  GCONV_RETURN_IF_ERROR(r.check_object(v["stages"], p + ".stages", {"min", "max"}, {"min", "max"}));
  GCONV_RETURN_IF_ERROR(r.read_int(v["stages"]["min"], p + ".stages.min", &g.stages_min));
  GCONV_RETURN_IF_ERROR(r.read_int(v["stages"]["max"], p + ".stages.max", &g.stages_max));
  GCONV_RETURN_IF_ERROR(r.read_int(v["split_k_max"], p + ".split_k_max", &g.split_k_max));
  GCONV_RETURN_IF_ERROR(r.read_int(v["cluster_split_max"], p + ".cluster_split_max", &g.cluster_split_max));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["groups_per_block"], p + ".groups_per_block", &g.groups_per_block));
  GCONV_RETURN_IF_ERROR(r.check_object(v["smem"], p + ".smem", {}, {}));  // documentation only
  const json& regs = v["registers"];
  GCONV_RETURN_IF_ERROR(r.check_object(regs, p + ".registers", {"accumulators_max", "consumer_overhead", "producer"},
                                       {"accumulators_max", "consumer_overhead", "producer"}));
  GCONV_RETURN_IF_ERROR(r.read_int(regs["accumulators_max"], p + ".registers.accumulators_max", &g.accumulators_max));
  GCONV_RETURN_IF_ERROR(
      r.read_int(regs["consumer_overhead"], p + ".registers.consumer_overhead", &g.consumer_overhead));
  GCONV_RETURN_IF_ERROR(r.read_int(regs["producer"], p + ".registers.producer", &g.producer_regs));
  return Status::Ok();
}

Status read_direct(const JsonReader& r, const json& v, ArchRules* a) {
  const std::string p = "direct";
  GCONV_RETURN_IF_ERROR(r.check_object(v, p, {"block_h", "block_w", "per_thread", "registers", "window"},
                                       {"block_h", "block_w", "per_thread", "registers"}));
  ArchRules::Direct& d = a->direct;
  if (v.contains("window")) {
    GCONV_RETURN_IF_ERROR(r.check_object(v["window"], p + ".window", {"filter_w", "stride_w"}, {"filter_w", "stride_w"}));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["window"]["filter_w"], p + ".window.filter_w", &d.window_filter_w));
    GCONV_RETURN_IF_ERROR(r.read_int_list(v["window"]["stride_w"], p + ".window.stride_w", &d.window_stride_w));
  }
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["block_h"], p + ".block_h", &d.block_h));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["block_w"], p + ".block_w", &d.block_w));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["per_thread"], p + ".per_thread", &d.per_thread));
  GCONV_RETURN_IF_ERROR(r.check_object(v["registers"], p + ".registers", {"overhead"}, {"overhead"}));
  GCONV_RETURN_IF_ERROR(r.read_int(v["registers"]["overhead"], p + ".registers.overhead", &d.reg_overhead));
  return Status::Ok();
}

Status read_tinyc(const JsonReader& r, const json& v, ArchRules* a) {
  const std::string p = "tinyc";
  GCONV_RETURN_IF_ERROR(r.check_object(v, p, {"warps", "registers", "description"}, {"warps", "registers"}));
  GCONV_RETURN_IF_ERROR(r.read_int_list(v["warps"], p + ".warps", &a->tinyc.warps));
  GCONV_RETURN_IF_ERROR(r.check_object(v["registers"], p + ".registers", {"estimate", "description"}, {"estimate"}));
  return r.read_int(v["registers"]["estimate"], p + ".registers.estimate", &a->tinyc.regs);
}

Status read_pw(const JsonReader& r, const json& v, ArchRules* a) {
  const std::string p = "pw";
  GCONV_RETURN_IF_ERROR(r.check_object(v, p, {"warps", "description"}, {"warps"}));
  return r.read_int_list(v["warps"], p + ".warps", &a->pw.warps);
}

// Fields of the other family must hold their defaults (canonical form).
bool canonical(const KernelTraits& t, std::string* why) {
  const KernelTraits d;
  if (t.tma && t.family != Family::wgmma && !(t.family == Family::direct && t.win_fx > 0)) {
    *why = "canonical: only wgmma and register-window direct kernels have a tma producer";
    return false;
  }
  if ((t.win_fx != 0 || t.win_sx != 0) && t.family != Family::direct) {
    *why = "canonical: only direct kernels have a register window";
    return false;
  }
  if (t.packed && t.family != Family::igemm && !(t.family == Family::wgmma && t.direction == Direction::bwd_weight)) {
    *why = "canonical: only igemm kernels and wgmma bwd_weight kernels are packed";
    return false;
  }
  if (t.family == Family::wgmma && t.groups_per_block != 1 && !t.packed) {
    *why = "canonical: a wgmma kernel of several groups per block is packed";
    return false;
  }
  if (t.realign && !(t.family == Family::igemm && !t.packed && t.groups_per_block == 1 && !t.tma) &&
      !(t.family == Family::wgmma && t.tma)) {
    *why = "canonical: only igemm kernels of one group per block and wgmma TMA kernels (a staged copy of dy) realign";
    return false;
  }
  // tinyc::traits_ok and pw::traits_ok check their own canonical forms.
  if (t.family == Family::tinyc || t.family == Family::pw) return true;
  if (is_implicit_gemm(t.family)) {
    if (t.block_h != d.block_h || t.block_w != d.block_w || t.per_thread != d.per_thread || t.deterministic) {
      *why = fmt::format("canonical: a kernel of the {} family must leave block_h, block_w, per_thread, "
                         "deterministic at their defaults", to_string(t.family));
      return false;
    }
    return true;
  }
  if (t.tile_m != d.tile_m || t.tile_n != d.tile_n || t.tile_k != d.tile_k || t.warps_m != d.warps_m ||
      t.warps_n != d.warps_n || t.stages != d.stages || t.split_mode != d.split_mode ||
      t.split_k != d.split_k || t.groups_per_block != d.groups_per_block) {
    *why = "canonical: a direct kernel must leave the igemm fields (tile_*, warps_*, stages, split, groups_per_block) at their defaults";
    return false;
  }
  return true;
}

bool legal_vec(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  bool pow2 = t.vec > 0 && (t.vec & (t.vec - 1)) == 0;
  if (!pow2 || t.vec * dtype_bytes(t.dtype) > rules.max_vector_bytes) {
    *why = fmt::format("vec: {} {} elements is not a power of two of at most max_vector_bytes {}", t.vec,
                       to_string(t.dtype), rules.max_vector_bytes);
    return false;
  }
  return true;
}

bool legal_resources(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  int threads = t.threads();
  if (threads <= 0 || threads % kWarpSize != 0 || threads > rules.max_threads_per_block) {
    *why = fmt::format("threads: {} is not a positive multiple of {} up to max_threads_per_block {}", threads,
                       kWarpSize, rules.max_threads_per_block);
    return false;
  }
  int64_t smem = smem_bytes(rules, t);
  if (smem > rules.smem_per_block_bytes) {
    *why = fmt::format("smem: {} bytes > smem_per_block_bytes {}", smem, rules.smem_per_block_bytes);
    return false;
  }
  int regs = register_estimate(rules, t);
  if (regs > rules.regs_per_thread_max) {
    *why = fmt::format("registers: estimate {} per thread > regs_per_thread_max {}", regs, rules.regs_per_thread_max);
    return false;
  }
  const int64_t block_regs = block_register_estimate(rules, t);
  if (block_regs > rules.regs_per_sm) {
    *why = fmt::format("registers: {} threads need {} registers > regs_per_sm {}", threads, block_regs,
                       rules.regs_per_sm);
    return false;
  }
  return true;
}

// The rules the implicit-GEMM families share: pipeline depth, split-K
// factor and mode, vector width (a vector never straddles a row of a tile),
// groups per block.
bool legal_gemm_common(const ArchRules& rules, const KernelTraits& t, int stages_min, int stages_max, int split_k_max,
                       const std::vector<int>& groups_per_block, std::string* why) {
  if (t.stages < stages_min || t.stages > stages_max) {
    *why = fmt::format("stages: {} not in [{}, {}]", t.stages, stages_min, stages_max);
    return false;
  }
  bool split_ok = t.split_mode == SplitKMode::none ? t.split_k == 1 : (t.split_k >= 2 && t.split_k <= split_k_max);
  if (!split_ok) {
    *why = fmt::format("split: split_k {} with mode {} (none needs 1, a split mode needs 2..{})", t.split_k,
                       to_string(t.split_mode), split_k_max);
    return false;
  }
  if (!legal_vec(rules, t, why)) return false;
  if (t.tile_k % t.vec != 0 || t.tile_m % t.vec != 0 || t.tile_n % t.vec != 0) {
    *why = fmt::format("vec: {} does not divide the tile {}x{}x{}", t.vec, t.tile_m, t.tile_n, t.tile_k);
    return false;
  }
  if (!contains(groups_per_block, t.groups_per_block)) {
    *why = fmt::format("groups_per_block: {} not in {}", t.groups_per_block, list_text(groups_per_block));
    return false;
  }
  return true;
}

bool legal_igemm(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  const ArchRules::Igemm& g = rules.igemm;
  const MmaShape& mma = rules.mma_for(t.dtype);
  if (t.split_mode == SplitKMode::cluster) {
    *why = "split: cluster split-K is the wgmma family's (igemm: parallel or serial)";
    return false;
  }
  if (!contains(g.tile_m, t.tile_m)) {
    *why = fmt::format("tile: tile_m {} not in {}", t.tile_m, list_text(g.tile_m));
    return false;
  }
  if (!contains(g.tile_n, t.tile_n)) {
    *why = fmt::format("tile: tile_n {} not in {}", t.tile_n, list_text(g.tile_n));
    return false;
  }
  if (!contains(rules.tile_k_for(t.dtype), t.tile_k)) {
    *why = fmt::format("tile: tile_k {} not in {} for {}", t.tile_k, list_text(rules.tile_k_for(t.dtype)),
                       to_string(t.dtype));
    return false;
  }
  if (t.tile_k % mma.k != 0) {
    *why = fmt::format("mma: tile_k {} is not a multiple of the mma k-step {}", t.tile_k, mma.k);
    return false;
  }
  auto layout = std::make_pair(t.warps_m, t.warps_n);
  if (std::find(g.warp_layouts.begin(), g.warp_layouts.end(), layout) == g.warp_layouts.end()) {
    *why = fmt::format("warps: layout {}x{} is not an allowed warp layout", t.warps_m, t.warps_n);
    return false;
  }
  if (t.tile_m % t.warps_m != 0 || (t.tile_m / t.warps_m) % mma.m != 0) {
    *why = fmt::format("warps: warp tile m = {}/{} is not a multiple of the mma m {}", t.tile_m, t.warps_m, mma.m);
    return false;
  }
  if (t.tile_n % t.warps_n != 0 || (t.tile_n / t.warps_n) % mma.n != 0) {
    *why = fmt::format("warps: warp tile n = {}/{} is not a multiple of the mma n {}", t.tile_n, t.warps_n, mma.n);
    return false;
  }
  if (!legal_gemm_common(rules, t, g.stages_min, g.stages_max, g.split_k_max, g.groups_per_block, why)) return false;
  if (t.packed) {
    // One block-diagonal GEMM over the groups: no per-group columns, one A
    // tile (igemm/config.cuh).
    if (t.groups_per_block < 2) {
      *why = "packed: groups_per_block >= 2";
      return false;
    }
    return legal_resources(rules, t, why);
  }
  // Each group owns tile_n / groups_per_block whole mma columns, and a warp
  // either spans whole groups or lies inside one (igemm/config.cuh).
  const int group_n = t.tile_n / t.groups_per_block, warp_n = t.tile_n / t.warps_n;
  if (t.tile_n % t.groups_per_block != 0 || group_n % mma.n != 0) {
    *why = fmt::format("groups_per_block: tile_n {} / {} groups is not a multiple of the mma n {}", t.tile_n,
                       t.groups_per_block, mma.n);
    return false;
  }
  if (warp_n % group_n != 0 && group_n % warp_n != 0) {
    *why = fmt::format("groups_per_block: warp columns {} neither span whole groups of {} nor lie inside one", warp_n,
                       group_n);
    return false;
  }
  return legal_resources(rules, t, why);
}

// fp32 accumulators a consumer thread of a wgmma kernel holds.
int wgmma_accumulators(const KernelTraits& t) {
  return t.warps_m > 0 ? t.tile_m / t.warps_m * t.tile_n / kWarpgroup : 0;
}

// The arch file's wgmma lists and limits, then the kernel's own rules
// (wgmma::traits_ok) so that every legal kernel is one the family accepts.
bool legal_wgmma(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  const ArchRules::Wgmma& g = rules.wgmma;
  const int dt = static_cast<int>(t.dtype);
  if (!contains(g.tile_m, t.tile_m)) {
    *why = fmt::format("tile: tile_m {} not in {}", t.tile_m, list_text(g.tile_m));
    return false;
  }
  if (!contains(g.tile_n, t.tile_n)) {
    *why = fmt::format("tile: tile_n {} not in {}", t.tile_n, list_text(g.tile_n));
    return false;
  }
  if (!contains(g.tile_k[dt], t.tile_k)) {
    *why = fmt::format("tile: tile_k {} not in {} for {}", t.tile_k, list_text(g.tile_k[dt]), to_string(t.dtype));
    return false;
  }
  const std::vector<Direction>& dirs = g.directions[dt];
  if (std::find(dirs.begin(), dirs.end(), t.direction) == dirs.end()) {
    // fp32 runs tf32 wgmma, which reads only K-major operands: fwd alone.
    *why = fmt::format("dtype: wgmma has no {} kernels for {} (wgmma.directions)", to_string(t.direction),
                       to_string(t.dtype));
    return false;
  }
  if (!contains(g.consumer_warpgroups, t.warps_m) || t.warps_n != 1) {
    *why = fmt::format("warps: {} consumer warpgroups (warps_m) x warps_n {}: warps_m must be in {}, warps_n 1",
                       t.warps_m, t.warps_n, list_text(g.consumer_warpgroups));
    return false;
  }
  if (t.tile_m % t.warps_m != 0 || !contains(g.rows_per_consumer, t.tile_m / t.warps_m)) {
    *why = fmt::format("warps: tile_m {} / {} consumer warpgroups is not one of the rows per consumer {}", t.tile_m,
                       t.warps_m, list_text(g.rows_per_consumer));
    return false;
  }
  if (!legal_gemm_common(rules, t, g.stages_min, g.stages_max, g.split_k_max, g.groups_per_block, why)) return false;
  if (t.split_mode == SplitKMode::cluster && t.split_k > g.cluster_split_max) {
    *why = fmt::format("split: cluster split-K {} > cluster_split_max {} (the splits of a tile are one cluster)",
                       t.split_k, g.cluster_split_max);
    return false;
  }
  const int acc = wgmma_accumulators(t);
  if (acc > g.accumulators_max) {
    *why = fmt::format("accumulators: {} rows x {} columns per consumer warpgroup = {} fp32 per thread > {}",
                       t.tile_m / t.warps_m, t.tile_n, acc, g.accumulators_max);
    return false;
  }
  if (!legal_resources(rules, t, why)) return false;
  std::string rule;
  if (!wgmma::traits_ok(t, &rule)) {
    *why = "kernel: " + rule;
    return false;
  }
  return true;
}

bool legal_tinyc(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  if (!contains(rules.tinyc.warps, t.warps_m)) {
    *why = fmt::format("warps: {} not in the arch's tinyc warps {}", t.warps_m, list_text(rules.tinyc.warps));
    return false;
  }
  if (!legal_resources(rules, t, why)) return false;
  std::string rule;
  if (!tinyc::traits_ok(t, &rule)) {
    *why = "kernel: " + rule;
    return false;
  }
  return true;
}

bool legal_pw(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  if (!contains(rules.pw.warps, t.warps_m)) {
    *why = fmt::format("warps: {} not in the arch's pw warps {}", t.warps_m, list_text(rules.pw.warps));
    return false;
  }
  if (!legal_resources(rules, t, why)) return false;
  std::string rule;
  if (!pw::traits_ok(t, &rule)) {
    *why = "kernel: " + rule;
    return false;
  }
  return true;
}

bool legal_direct(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  const ArchRules::Direct& d = rules.direct;
  if (!contains(d.block_h, t.block_h) || !contains(d.block_w, t.block_w)) {
    *why = fmt::format("tile: {}x{} not in block_h {} x block_w {}", t.block_h, t.block_w, list_text(d.block_h),
                       list_text(d.block_w));
    return false;
  }
  if (!contains(d.per_thread, t.per_thread) || t.block_w % t.per_thread != 0) {
    *why = fmt::format("per_thread: {} not in {} or does not divide block_w {}", t.per_thread,
                       list_text(d.per_thread), t.block_w);
    return false;
  }
  if (t.ndim == 1 && t.block_h != 1) {
    *why = fmt::format("tile: a 1D kernel needs block_h 1, not {}", t.block_h);
    return false;
  }
  if (t.deterministic && t.direction != Direction::bwd_weight) {
    *why = "deterministic: only bwd_weight has a deterministic variant";
    return false;
  }
  if (t.win_fx != 0 || t.win_sx != 0) {
    if (!contains(d.window_filter_w, t.win_fx) || !contains(d.window_stride_w, t.win_sx)) {
      *why = fmt::format("window: {}s{} not in filter_w {} x stride_w {}", t.win_fx, t.win_sx,
                         list_text(d.window_filter_w), list_text(d.window_stride_w));
      return false;
    }
    if (t.deterministic) {
      *why = "window: a register-window kernel is deterministic without the _det variant";
      return false;
    }
    // The row stream (window_stream.cuh): fwd and stride-1 bwd_data, 1D/2D,
    // with every tap's weights in registers.
    if (t.tma) {
      if (t.direction == Direction::bwd_weight || t.ndim > 2 ||
          (t.direction == Direction::bwd_data && t.win_sx != 1)) {
        *why = "window tma: the row stream is for fwd and stride-1 bwd_data, 1D and 2D";
        return false;
      }
      if (!window_stream_compiled(t)) {
        *why = fmt::format("window tma: {} fp32 values a thread (every tap's weights and R outputs) exceed {}",
                           window_stream_floats(t), kWindowStreamFloats);
        return false;
      }
    }
  }
  if (!legal_vec(rules, t, why)) return false;
  return legal_resources(rules, t, why);
}

}  // namespace

Result<ArchRules> parse_arch_rules(std::string_view json_text, std::string_view source) {
  JsonReader r{std::string(source)};
  json v;
  GCONV_RETURN_IF_ERROR(r.parse(json_text, &v));
  GCONV_RETURN_IF_ERROR(r.check_object(v, "", {"arch", "limits", "mma", "igemm", "wgmma", "direct", "tinyc", "pw"},
                                       {"arch", "limits", "mma", "igemm", "wgmma", "direct"}));
  ArchRules a;
  a.source = std::string(source);
  GCONV_RETURN_IF_ERROR(r.read_string(v["arch"], "arch", &a.arch));
  GCONV_RETURN_IF_ERROR(read_limits(r, v["limits"], &a));
  GCONV_RETURN_IF_ERROR(read_mma(r, v["mma"], &a));
  GCONV_RETURN_IF_ERROR(read_igemm(r, v["igemm"], &a));
  GCONV_RETURN_IF_ERROR(read_wgmma(r, v["wgmma"], &a));
  GCONV_RETURN_IF_ERROR(read_direct(r, v["direct"], &a));
  if (v.contains("tinyc")) GCONV_RETURN_IF_ERROR(read_tinyc(r, v["tinyc"], &a));
  if (v.contains("pw")) GCONV_RETURN_IF_ERROR(read_pw(r, v["pw"], &a));
  return a;
}

Result<ArchRules> load_arch_rules(const std::string& path) {
  // read_text_file: regular files only (a FIFO here blocked start-up), size-capped.
  auto text = problem_io::read_text_file(path);
  if (!text.ok()) return io_error("cannot read arch rules: " + text.status().message());
  return parse_arch_rules(*text, path);
}

// An installed library (<prefix>/lib/libgconv.so) finds the configs that
// were installed beside it (<prefix>/share/gconv/configs): the path is taken
// from where the loader found this library, so the prefix may move.
// GCONV_CONFIG_DIR_FROM_LIB is that folder relative to the library's folder.
static std::string installed_config_dir() {
#if defined(GCONV_CONFIG_DIR_FROM_LIB) && defined(__unix__)
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&installed_config_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const std::filesystem::path dir =
      std::filesystem::path(info.dli_fname).parent_path() / GCONV_CONFIG_DIR_FROM_LIB;
  if (!std::filesystem::is_directory(dir / "arch", ec)) return {};
  return dir.lexically_normal().string();
#else
  return {};
#endif
}

std::string config_dir() {
  const char* env = std::getenv("GCONV_CONFIG_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  static const std::string installed = installed_config_dir();  // the library does not move
  if (!installed.empty()) return installed;
  return std::string(GCONV_SOURCE_DIR) + "/configs";
}

Result<ArchRules> load_default_arch_rules(std::string_view arch) {
  return load_arch_rules(fmt::format("{}/arch/{}.json", config_dir(), arch));
}

bool is_legal(const ArchRules& rules, const KernelTraits& t, std::string* why) {
  std::string local;
  std::string* w = why != nullptr ? why : &local;
  if (t.ndim < 1 || t.ndim > 3) {
    *w = fmt::format("ndim: {} is not 1, 2 or 3", t.ndim);
    return false;
  }
  if (!canonical(t, w)) return false;
  switch (t.family) {
    case Family::igemm: return legal_igemm(rules, t, w);
    case Family::wgmma: return legal_wgmma(rules, t, w);
    case Family::direct: return legal_direct(rules, t, w);
    case Family::tinyc: return legal_tinyc(rules, t, w);
    case Family::pw: return legal_pw(rules, t, w);
  }
  *w = "family: unknown";
  return false;
}

// The layout (and so the size) of a stage is the kernel's: one formula per
// family, igemm::smem_bytes or wgmma::smem_bytes, used by its launch plan
// and here.
int64_t smem_bytes(const ArchRules&, const KernelTraits& t) {
  switch (t.family) {
    case Family::igemm: return static_cast<int64_t>(igemm::smem_bytes(t));
    case Family::wgmma: return static_cast<int64_t>(wgmma::smem_bytes(t));
    case Family::direct:
    case Family::tinyc: return 0;  // depends on the problem (the halo): checked by can_implement
    case Family::pw: return static_cast<int64_t>(pw::smem_bytes(t));
  }
  return 0;
}

int register_estimate(const ArchRules& rules, const KernelTraits& t) {
  if (t.family == Family::igemm) {
    int threads = t.threads();
    if (threads <= 0 || t.warps_m <= 0 || t.warps_n <= 0 || t.vec <= 0) return 0;
    int accumulators = t.tile_m * t.tile_n / threads;
    int fragments = rules.igemm.fragment_k_steps * (t.tile_m / t.warps_m + t.tile_n / t.warps_n) *
                    rules.mma_for(t.dtype).k * dtype_bytes(t.dtype) / 128;
    int64_t chunk_elems = int64_t{t.vec} * threads;
    const int64_t a_tiles = t.packed ? 1 : t.groups_per_block;  // packed: one A tile for all groups
    int64_t copies = ((a_tiles * t.tile_m + t.tile_n) * t.tile_k + chunk_elems - 1) / chunk_elems;
    return accumulators + fragments + rules.igemm.load_chunk_regs * static_cast<int>(copies) + rules.igemm.reg_overhead;
  }
  if (t.family == Family::wgmma) {
    if (t.warps_m <= 0) return 0;
    return wgmma_accumulators(t) + rules.wgmma.consumer_overhead;
  }
  if (t.family == Family::tinyc) return rules.tinyc.regs;
  if (t.family == Family::pw) return pw::register_estimate(t);
  if (t.win_fx > 0 && t.direction == Direction::bwd_weight)  // window_wgrad.cuh: FX x FX x vec sums + R dy + one x
    return (t.win_fx * t.win_fx + t.per_thread + 1) * t.vec + rules.direct.reg_overhead;
  if (t.win_fx > 0 && t.tma)  // window_stream.cuh: FX x FX x vec weights + R x vec sums + one source vector
    return (t.win_fx * t.win_fx + t.per_thread + 1) * t.vec + rules.direct.reg_overhead;
  if (t.win_fx > 0)  // window.cuh: R x vec sums + FX x vec weights + one source vector
    return (t.per_thread + t.win_fx + 1) * t.vec + rules.direct.reg_overhead;
  return 2 * t.per_thread * t.vec + t.vec + rules.direct.reg_overhead;
}

int64_t block_register_estimate(const ArchRules& rules, const KernelTraits& t) {
  const int regs = register_estimate(rules, t);
  if (t.family == Family::wgmma) {
    if (t.warps_m <= 0) return 0;
    return int64_t{kWarpgroup} * (rules.wgmma.producer_regs + int64_t{t.warps_m} * regs);
  }
  return int64_t{regs} * std::max(0, t.threads());
}

}  // namespace gconv
