// Enqueues a LaunchPlan of the IgemmParams kernels (igemm and wgmma share
// the parameter, the workspace scheme and the reduce kernel): checks the
// tensor pointers, alignment and workspace, zeroes the workspace for serial
// split-K without the in-kernel fixup (GCONV_SPLITK_FIXUP=0), launches
// gconv_main and, when the plan has one, gconv_reduce (parallel split-K).
#pragma once

#include <span>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/family.hpp"
#include "kernels/igemm/igemm_plan.hpp"

namespace gconv::igemm {

// `who` names the family in messages ("igemm", "wgmma"). `extra` are
// gconv_main's parameters after the IgemmParams (wgmma's tensor maps, at
// most 3).
Status launch_plan(const char* who, const KernelTraits& t, const LoadedKernel& k, const Problem& p,
                   const ConvArgs& args, const LaunchPlan& plan, CUstream_st* stream,
                   std::span<void* const> extra = {});

}  // namespace gconv::igemm
