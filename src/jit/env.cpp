#include "jit/env.hpp"

#include <cstdlib>

namespace gconv::jit {

const char* process_env(const char* name) { return std::getenv(name); }

std::optional<long long> process_env_int(const char* name, long long lo, long long hi) {
  const char* s = process_env(name);
  if (s == nullptr || *s == '\0') return std::nullopt;
  char* end = nullptr;
  const long long n = std::strtoll(s, &end, 10);
  if (*end != '\0' || n < lo || n > hi) return std::nullopt;
  return n;
}

bool process_env_on(const char* name) { return process_env_int(name, 0, 1).value_or(1) != 0; }

}  // namespace gconv::jit
