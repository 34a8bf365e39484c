// Packed wgmma weight gradients: the rules and the problem the kernel runs
// (packed.hpp). The epilogue's diagonal blocks: wgmma/epilogue.cuh PackedOut.
#include "kernels/wgmma/packed.hpp"

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

Problem packed_problem(const KernelTraits& t, const Problem& p) {
  Problem q = p;
  q.g = p.g / t.groups_per_block;
  return q;
}

KernelTraits packed_base(const KernelTraits& t) {
  KernelTraits b = t;
  b.packed = false;
  b.groups_per_block = 1;
  return b;
}

bool packed_ok(const KernelTraits& t, const Problem& p, std::string* why) {
  const int gpb = t.groups_per_block;
  if (p.direction != Direction::bwd_weight) return fail(why, "packed wgmma kernels are bwd_weight only");
  if (p.g % gpb != 0)
    return why ? fail(why, "packed: G (" + std::to_string(p.g) + ") is not a multiple of groups_per_block (" +
                               std::to_string(gpb) + ")")
               : false;
  const int64_t cg = p.c_per_group(), kg = p.k_per_group();
  if (cg % 8 != 0)
    return why ? fail(why, "packed: C/G (" + std::to_string(cg) +
                               ") is not a multiple of 8: the epilogue's vectors must lie in one group's channels")
               : false;
  if (kg * gpb > t.tile_m)
    return why ? fail(why, "packed: groups_per_block x K/G (" + std::to_string(gpb) + " x " + std::to_string(kg) +
                               ") exceeds tile_m (" + std::to_string(t.tile_m) + ")")
               : false;
  if (t.split_mode == SplitKMode::serial && !splitk_fixup_enabled())
    return fail(why, "packed: serial split-K converts its diagonal blocks inside the launch only "
                     "(GCONV_SPLITK_FIXUP=0 is set)");
  const Problem q = packed_problem(t, p);
  const KernelTraits b = packed_base(t);
  return igemm::problem_ok(b, igemm::check_problem(q), why) && tma_ok(b, q, why);
}

}  // namespace gconv::wgmma
