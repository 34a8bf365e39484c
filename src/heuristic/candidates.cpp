#include "heuristic/candidates.hpp"

#include <bitset>

namespace gconv::heuristic {
namespace {

int vec_index(int vec) {
  switch (vec) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return 4;
  }
}

constexpr int kClasses = 1 + 3 * 2 * 5;  // direct + split mode x tile area x vector width

}  // namespace

int kernel_class(const KernelTraits& t) {
  if (t.family == Family::direct) return 0;
  const int split = t.split_mode == SplitKMode::none ? 0 : t.split_mode == SplitKMode::parallel ? 1 : 2;
  const int large = t.tile_m * t.tile_n >= 128 * 128 ? 1 : 0;
  return 1 + (split * 2 + large) * 5 + vec_index(t.vec);
}

void model_candidate_positions(const KernelTraits* const* analytic_order, size_t n, int top_k,
                               std::vector<uint32_t>& keep) {
  keep.clear();
  if (top_k <= 0 || n <= size_t(top_k)) {
    for (size_t i = 0; i < n; ++i) keep.push_back(uint32_t(i));
    return;
  }
  std::bitset<kClasses> seen;
  for (size_t i = 0; i < n; ++i) {
    const int c = kernel_class(*analytic_order[i]);
    if (i < size_t(top_k) || !seen[size_t(c)]) keep.push_back(uint32_t(i));
    seen[size_t(c)] = true;
  }
}

}  // namespace gconv::heuristic
