// Policy text form: "heuristic", "analytic", "exhaustive", "topk:K" (K >= 1).
#include <charconv>

#include "gconv/registry.hpp"

namespace gconv {

// The largest topk worth asking for: more is exhaustive in all but name.
static constexpr int kMaxTopK = 100000;

Result<Policy> Policy::parse(const std::string& text) {
  if (text == "heuristic") return Policy::heuristic();
  if (text == "analytic") return Policy::analytic();
  if (text == "exhaustive") return Policy::exhaustive();
  if (text.rfind("topk:", 0) == 0) {
    const std::string num = text.substr(5);
    int k = 0;
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), k);
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || k < 1 || k > kMaxTopK)
      return parse_error("policy '" + text + "': K of topk:K must be an integer from 1 to " +
                         std::to_string(kMaxTopK));
    return Policy::topk(k);
  }
  return parse_error("policy '" + text + "': expected heuristic, analytic, exhaustive or topk:K");
}

std::string Policy::to_string() const {
  switch (kind) {
    case Kind::heuristic: return "heuristic";
    case Kind::analytic: return "analytic";
    case Kind::exhaustive: return "exhaustive";
    case Kind::topk: return "topk:" + std::to_string(k);
  }
  return "?";
}

}  // namespace gconv
