// nlohmann's UBJSON reader recurses once per nesting level and builds every
// container it is told of: a model file nested thousands of levels deep
// overflows the stack, and a typed array announcing 2^60 nulls exhausts
// memory. Model files are checked with this linear, stack-free scan first.
#pragma once

#include <string>
#include <string_view>

#include "gconv/status.hpp"

namespace gconv::heuristic {

// parse_error naming `source` (and the byte offset) when the UBJSON value in
// `bytes` nests containers deeper than max_depth, announces more elements
// than the bytes left could hold, or is cut short. Ok for well-formed input
// within the bound (the parser still checks everything else).
Status check_ubjson_depth(std::string_view bytes, const std::string& source, int max_depth);

}  // namespace gconv::heuristic
