// ArchRules: the limits and allowed trait values of one GPU architecture, as
// read from configs/arch/<arch>.json (the single source of truth: no limit is
// written in C++). is_legal() is THE legality predicate of a KernelTraits:
// pool expansion and the registry both call it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"

namespace gconv {

struct MmaShape {
  int m = 0, n = 0, k = 0;
};

struct ArchRules {
  std::string arch;    // "sm90"
  std::string source;  // the file it was read from (for messages)

  // limits
  int64_t smem_per_block_bytes = 0;
  int regs_per_thread_max = 0;
  int regs_per_sm = 0;
  int max_threads_per_block = 0;
  int sm_count_hint = 0;
  int max_vector_bytes = 0;

  std::array<MmaShape, 3> mma{};  // indexed by DType

  struct Igemm {
    std::vector<int> tile_m, tile_n;
    std::array<std::vector<int>, 3> tile_k;  // indexed by DType
    std::vector<std::pair<int, int>> warp_layouts;  // (warps_m, warps_n)
    int stages_min = 0, stages_max = 0;
    int split_k_max = 0;
    std::vector<int> groups_per_block;
    int reg_overhead = 0;
    int fragment_k_steps = 0;  // mma k-steps of fragments held at once
    int load_chunk_regs = 0;   // registers per global->shared copy a thread issues per stage
  } igemm;

  // wgmma: warps_m counts consumer warpgroups (configs/arch: "wgmma").
  struct Wgmma {
    std::vector<int> tile_m, tile_n;
    std::array<std::vector<int>, 3> tile_k;  // indexed by DType
    std::vector<int> consumer_warpgroups;
    std::vector<int> rows_per_consumer;  // tile_m / warps_m
    std::array<std::vector<Direction>, 3> directions;  // indexed by DType
    int stages_min = 0, stages_max = 0;
    int split_k_max = 0;
    // Cluster split-K: the splits of a tile form one thread-block cluster,
    // so split_k is at most the cluster size the arch schedules (8 portable).
    int cluster_split_max = 0;
    std::vector<int> groups_per_block;
    int accumulators_max = 0;  // fp32 accumulators per consumer thread
    int consumer_overhead = 0;
    int producer_regs = 0;
  } wgmma;

  struct Direct {
    std::vector<int> block_h, block_w, per_thread;
    int reg_overhead = 0;
    // Register-window kernels: legal filter widths and W strides (empty:
    // the arch has none).
    std::vector<int> window_filter_w, window_stride_w;
  } direct;

  // tinyc (optional section; empty warps: the arch has no tinyc kernels).
  struct Tinyc {
    std::vector<int> warps;  // warps per block
    int regs = 0;            // registers per thread (estimate)
  } tinyc;

  // pw (optional section; empty warps: the arch has no pw kernels).
  struct Pw {
    std::vector<int> warps;  // warps per block
  } pw;

  const MmaShape& mma_for(DType t) const { return mma[static_cast<int>(t)]; }
  const std::vector<int>& tile_k_for(DType t) const { return igemm.tile_k[static_cast<int>(t)]; }
};

// Reads rules from JSON text; `source` names it in messages. Unknown keys,
// missing keys and wrong types are parse_errors naming the file and key.
Result<ArchRules> parse_arch_rules(std::string_view json_text, std::string_view source);
Result<ArchRules> load_arch_rules(const std::string& path);

// The configs folder: $GCONV_CONFIG_DIR if set, else the installed one
// (<prefix>/share/gconv/configs beside <prefix>/lib/libgconv.so), else
// <source tree>/configs.
std::string config_dir();
// config_dir()/arch/<arch>.json.
Result<ArchRules> load_default_arch_rules(std::string_view arch = "sm90");

// Whether `t` is a legal instance under `rules`. On false, *why (if given)
// says which rule failed, as "<rule>: <detail>", e.g.
// "smem: 276480 bytes > smem_per_block_bytes 232448". A legal traits is also
// canonical: the fields of the other family hold their KernelTraits defaults,
// so kernel_name is one-to-one on legal traits.
bool is_legal(const ArchRules& rules, const KernelTraits& t, std::string* why = nullptr);

// Dynamic shared memory of an igemm or wgmma instance: the kernel's own size
// (igemm::smem_bytes, src/kernels/igemm/igemm_plan.hpp, or wgmma::smem_bytes,
// src/kernels/wgmma/wgmma_plan.hpp; the arch file's <family>.smem.description
// says what it holds), checked here against limits.smem_per_block_bytes. 0
// for direct kernels, whose shared memory depends on the problem and is
// checked by their can_implement.
int64_t smem_bytes(const ArchRules& rules, const KernelTraits& t);
// Registers per thread, the arch file's estimate (igemm/direct/wgmma
// .registers); for wgmma, a consumer thread's (the most any thread needs).
int register_estimate(const ArchRules& rules, const KernelTraits& t);
// Registers of one block: threads() x register_estimate, except for wgmma,
// whose producer warpgroup hands registers to the consumers (setmaxnreg):
// 128 x (producer + warps_m x register_estimate). 0 for malformed traits.
int64_t block_register_estimate(const ArchRules& rules, const KernelTraits& t);

}  // namespace gconv
