// Choosing kernels out of the pools: one function for every place that turns
// (directions, dtypes, ndim, filter) into a kernel list (gconv build, gconv
// kernels, the sweep plan), so that they cannot drift apart.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"
#include "pool/arch_rules.hpp"
#include "pool/pool.hpp"

namespace gconv {

struct PoolSelection {
  std::vector<Direction> directions;
  std::vector<DType> dtypes;
  int ndim = 0;             // 0 = every ndim
  std::string filter;       // filter expression (pool/filter.hpp), "" = every kernel
  std::string configs_dir;  // "" = config_dir()
};

// "a,b,c" -> {"a","b","c"} (empty parts dropped).
std::vector<std::string> split_comma_list(const std::string& s);

// "all" -> the three directions; else a comma list of direction names.
Result<std::vector<Direction>> parse_directions(const std::string& text);
// "all" -> bf16, fp16, fp32; else a comma list of dtype names.
Result<std::vector<DType>> parse_dtypes(const std::string& text);

// A selection from command-line texts: directions and dtypes as above.
Result<PoolSelection> make_pool_selection(const std::string& directions, const std::string& dtypes, int ndim,
                                          const std::string& filter, const std::string& configs_dir);

// The kernels of the pools of every (direction, dtype) pair, in that order
// (directions outer), pool order within, restricted to ndim and the filter.
// on_pool, when set, sees each pool's expansion statistics.
Result<std::vector<KernelTraits>> select_pool(
    const ArchRules& rules, const PoolSelection& s,
    const std::function<void(Direction, DType, const ExpandStats&)>& on_pool = {});

}  // namespace gconv
