// nlohmann::json parses recursively: a document nested thousands of levels
// deep (a problem file line, a manifest, a tuning cache) would exhaust the
// stack. Every reader of untrusted JSON text checks its depth first.
#pragma once

#include <string>
#include <string_view>

#include "gconv/status.hpp"

namespace gconv {

// Real gconv documents nest a handful of levels (forest models: one level per
// tree depth, < 64).
inline constexpr int kMaxJsonDepth = 256;

// parse_error naming `source` when [ / { nest deeper than max_depth outside
// strings; the scan is linear and needs no stack.
inline Status check_json_depth(std::string_view text, const std::string& source, int max_depth = kMaxJsonDepth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return parse_error(source + ": JSON nested deeper than " + std::to_string(max_depth) + " levels");
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return Status::Ok();
}

}  // namespace gconv
