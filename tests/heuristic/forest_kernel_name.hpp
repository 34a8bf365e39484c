// The name of a forest evaluation kernel, for the forest tests' failure
// messages.
#pragma once

#include "heuristic/forest_eval.hpp"

namespace gconv::heuristic::testing {

inline const char* kernel_name(detail::Kernel k) {
  switch (k) {
    case detail::Kernel::automatic: return "automatic";
    case detail::Kernel::traverse: return "traverse";
    case detail::Kernel::sets: return "sets";
    case detail::Kernel::sets_portable: return "sets_portable";
    case detail::Kernel::traverse_portable: return "traverse_portable";
  }
  return "?";
}

}  // namespace gconv::heuristic::testing
