// Kernel pools: configs/pools/*.json list trait values per family, direction
// and dtype; expansion takes the cartesian product of each group's lists,
// drops what the pruning rules ("exclude") name and what the arch rules
// forbid (is_legal), and removes duplicates.
//
// A pool file (every object may also hold a "description" string):
//   { "family": "igemm" | "wgmma" | "direct",
//     "direction": "fwd" | "bwd_data" | "bwd_weight",
//     "ndims": [1, 2, 3],                      // default ndims of every group
//     "exclude": [ {"if": "<filter>", "why": "..."} ],   // for every dtype
//     "dtypes": {
//       "<dtype>": [ <group>, ... ]  |  <group>  |  {"same_as": "<dtype>"} } }
//   igemm group:  tile_m tile_n tile_k [ints], warps ["2x2",...], stages [ints],
//                 split ["1","8p","4s",...], vec [ints], groups_per_block [ints],
//                 packed [bools] (optional, default [false]: the groups of a
//                 block as one block-diagonal GEMM), realign [bools]
//                 (optional, default [false]: the odd channel count's operand
//                 read in realigned 16-byte vectors: docs/realign.md)
//   wgmma group:  tile_m tile_n tile_k [ints], consumers [ints] (consumer
//                 warpgroups: warps_m), stages [ints], split [...], vec [ints],
//                 tma [bools] (optional, default [false]: the producer gathers
//                 with cp.async), groups_per_block [ints] (optional, default
//                 [1]; above 1 the kernel is packed: wgmma/packed.hpp)
//                 (warps_n is 1)
//   direct group: tile ["8x16",...], per_thread [ints], vec [ints],
//                 deterministic [bools] (optional, default [false]),
//                 window ["3s1",...] (optional: register-window kernels),
//                 tma [bools] (optional, default [false]: window kernels'
//                 TMA row stream where the arch rules allow it)
//   either group: ndims [ints] (optional), exclude [rules] (optional)
// The filter language of "if" is the one of `gconv kernels --filter`
// (pool/filter.hpp). Expansion order is deterministic: files by name, then
// dtype groups in order, then ndim, then the lists in the order above.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"

namespace gconv {

struct ExcludeRule {
  Filter filter;
  std::string why;
};

struct PoolGroup {
  std::string where;  // key path in the file, e.g. "dtypes.bf16[1]"
  std::vector<int> ndims;
  std::vector<ExcludeRule> exclude;
  // igemm
  std::vector<int> tile_m, tile_n, tile_k, stages, vec, groups_per_block;
  std::vector<std::pair<int, int>> warps;
  std::vector<std::pair<SplitKMode, int>> split;
  std::vector<bool> packed;   // igemm, default [false]
  std::vector<bool> realign;  // igemm, default [false]
  // wgmma (tile_*, stages, split, vec above)
  std::vector<int> consumers;
  std::vector<bool> tma;  // default [false]
  // direct (vec above)
  std::vector<std::pair<int, int>> tiles;  // (block_h, block_w)
  std::vector<int> per_thread;
  std::vector<bool> deterministic;
  // direct register-window kernels: (filter width, W stride) pairs, written
  // "3s1" in the file; default [(0, 0)] = tile kernels.
  std::vector<std::pair<int, int>> windows;
  // tinyc: dx tiles (tiles above) x warps per block; vec is 8.
  // pw: tile_m x tile_n x tile_k x warps per block x stages (above).
  std::vector<int> warps_per_block;
};

struct PoolConfig {
  std::string source;  // file name, for messages
  Family family = Family::igemm;
  Direction direction = Direction::fwd;
  std::vector<ExcludeRule> exclude;  // file-wide
  std::vector<std::pair<DType, std::vector<PoolGroup>>> dtypes;
};

// Counts of one expansion: combinations = excluded + illegal + duplicates + kept.
struct ExpandStats {
  int64_t combinations = 0;
  int64_t excluded = 0;    // legal, but named by an "exclude" rule
  int64_t illegal = 0;     // rejected by is_legal
  int64_t duplicates = 0;  // equal to an earlier kernel
  int64_t kept = 0;
  std::map<std::string, int64_t> illegal_by_rule;  // "smem", "warps", ... (is_legal's rule tag)
  void add(const ExpandStats& o);
};

struct ExpandOptions {
  std::optional<DType> dtype;  // only this dtype
  std::optional<int> ndim;     // only this ndim
};

Result<PoolConfig> parse_pool_config(std::string_view json_text, std::string_view source);
Result<PoolConfig> load_pool_config(const std::string& path);

// The legal, distinct kernels of one pool file. Stats accumulate into *stats.
Result<std::vector<KernelTraits>> expand_pool(const ArchRules& rules, const PoolConfig& config,
                                              const ExpandOptions& options = {}, ExpandStats* stats = nullptr);

// Every pool file of <configs_dir>/pools for (direction, dtype), expanded and
// de-duplicated across files. An empty configs_dir means config_dir().
Result<std::vector<KernelTraits>> load_pool(const ArchRules& rules, Direction direction, DType dtype,
                                            const std::string& configs_dir = "",
                                            ExpandStats* stats = nullptr);

}  // namespace gconv
