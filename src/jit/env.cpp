#include "jit/env.hpp"

#include <cstdlib>

namespace gconv::jit {

const char* process_env(const char* name) { return std::getenv(name); }

}  // namespace gconv::jit
