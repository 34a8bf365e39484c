// Helpers shared by the libFuzzer targets of this folder (scripts/dev fuzz).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "core/log.hpp"

namespace gconv::fuzz {

inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A property every input must keep failed: abort so that libFuzzer saves
// the input as a crash (a returned Status would be silently dropped).
[[noreturn]] inline void violated(const std::string& what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what.c_str());
  std::abort();
}

// A per-process file under /tmp for the readers that only take a path
// (compressed files, sweeps); the suffix picks the reader's format.
inline std::string write_temp(const std::string& suffix, const std::string& bytes) {
  const std::string path = "/tmp/gconv_fuzz_" + std::to_string(::getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

// Warnings of rejected inputs would flood the fuzzer's output.
inline void quiet_logs() { set_log_level(LogLevel::quiet); }

}  // namespace gconv::fuzz
