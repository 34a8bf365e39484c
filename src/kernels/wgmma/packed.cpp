// Packed wgmma weight gradients: the rules and the problem the kernel is
// planned on (packed.hpp). The epilogue's diagonal blocks:
// wgmma/epilogue.cuh PackedOut; the plan's fields: wgmma_plan.cpp make_plan.
#include "kernels/wgmma/packed.hpp"

#include <array>

#include "core/int_math.hpp"
#include "kernels/fixup.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/wgmma/tma.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv::wgmma {
namespace {

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

}  // namespace

bool packed(const KernelTraits& t) { return t.family == Family::wgmma && t.packed; }

int64_t packed_tap_width(const KernelTraits& t, const Problem& p) {
  const int64_t cgp = t.groups_per_block * p.c_per_group();
  return cgp % 64 == 0 || loads_flat(p) ? cgp : ceil_div(cgp, int64_t{64}) * 64;
}

Problem packed_problem(const KernelTraits& t, const Problem& p) {
  Problem q = p;
  q.g = ceil_div(p.g, int64_t{t.groups_per_block});
  q.c = q.g * packed_tap_width(t, p);
  q.k = q.g * t.groups_per_block * p.k_per_group();
  return q;
}

KernelTraits packed_base(const KernelTraits& t) {
  KernelTraits b = t;
  b.packed = false;
  b.groups_per_block = 1;
  return b;
}

namespace {

// The group blocks' problem and its facts for the last few (problem, gpb)
// pairs of this thread: a selection tests every packed kernel of a pool (54
// a pool and ndim, three values of gpb) against one problem, and measuring
// the planned problem for each of them added ~40% to a grouped weight
// gradient's selection (`gconv select --bench`, thirty-fourth session).
struct PackedFacts {
  bool valid = false;
  Problem p;
  int gpb = 0;
  Problem q;               // packed_problem(t, p)
  igemm::ProblemFacts f;   // check_problem(q); points at q
};

const PackedFacts& packed_facts(const KernelTraits& t, const Problem& p) {
  constexpr int kEntries = 4;
  thread_local std::array<PackedFacts, kEntries> memo;
  thread_local int next = 0;
  for (const PackedFacts& e : memo)
    if (e.valid && e.gpb == t.groups_per_block && e.p == p) return e;
  PackedFacts& e = memo[size_t(next)];
  next = (next + 1) % kEntries;
  e.valid = true;
  e.p = p;
  e.gpb = t.groups_per_block;
  e.q = packed_problem(t, p);
  e.f = igemm::check_problem(e.q);
  return e;
}

}  // namespace

size_t packed_workspace_bytes(const KernelTraits& t, const Problem& p) {
  return igemm::workspace_bytes(packed_base(t), packed_facts(t, p).f);
}

bool packed_ok(const KernelTraits& t, const Problem& p, std::string* why) {
  const int gpb = t.groups_per_block;
  if (p.direction != Direction::bwd_weight) return fail(why, "packed wgmma kernels are bwd_weight only");
  const int64_t cg = p.c_per_group(), kg = p.k_per_group();
  if (cg % 8 != 0)
    return why ? fail(why, "packed: C/G (" + std::to_string(cg) +
                               ") is not a multiple of 8: the epilogue's vectors must lie in one group's channels")
               : false;
  if (p.k % 8 != 0) return fail(why, "packed: K must be a multiple of 8 (16-byte rows of dy)");
  if (kg * gpb > t.tile_m)
    return why ? fail(why, "packed: groups_per_block x K/G (" + std::to_string(gpb) + " x " + std::to_string(kg) +
                               ") exceeds tile_m (" + std::to_string(t.tile_m) + ")")
               : false;
  if (2 * p.g <= gpb)
    return why ? fail(why, "packed: groups_per_block (" + std::to_string(gpb) + ") leaves more than half of the "
                               "block's groups empty (G = " + std::to_string(p.g) + ")")
               : false;
  if (t.split_mode == SplitKMode::serial && !splitk_fixup_enabled())
    return fail(why, "packed: serial split-K converts its diagonal blocks inside the launch only "
                     "(GCONV_SPLITK_FIXUP=0 is set)");
  const PackedFacts& e = packed_facts(t, p);
  const KernelTraits b = packed_base(t);
  return igemm::problem_ok(b, e.f, why) && tma_ok(b, e.q, why);
}

}  // namespace gconv::wgmma
