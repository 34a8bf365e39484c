// Environment lookups as an injectable function, so the code that reads
// CUDA_HOME, GCONV_CACHE_DIR, ... can be tested without touching the real
// process environment.
#pragma once

#include <functional>

namespace gconv::jit {

// Returns the value of a variable, or nullptr when it is not set.
using EnvLookup = std::function<const char*(const char*)>;

// std::getenv. The library never calls setenv, so reads are thread-safe.
const char* process_env(const char* name);

}  // namespace gconv::jit
