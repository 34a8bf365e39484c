// Environment lookups as an injectable function, so the code that reads
// CUDA_HOME, GCONV_CACHE_DIR, ... can be tested without touching the real
// process environment.
#pragma once

#include <functional>
#include <optional>

namespace gconv::jit {

// Returns the value of a variable, or nullptr when it is not set.
using EnvLookup = std::function<const char*(const char*)>;

// std::getenv. The library never calls setenv, so reads are thread-safe.
const char* process_env(const char* name);

// process_env(name) as a decimal integer in [lo, hi]; nullopt when the
// variable is unset, empty, not wholly an integer or out of range (the
// A/B knobs of the kernel families ignore such values).
std::optional<long long> process_env_int(const char* name, long long lo, long long hi);

// An on/off switch of the kernel families' A/B runs: NAME=0 turns it off;
// unset, 1, or any other value (ignored, as above) leaves it on.
bool process_env_on(const char* name);

}  // namespace gconv::jit
