#include "core/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gconv {
namespace {

// -1 = not read from the environment yet.
std::atomic<int> g_level{-1};

}  // namespace

LogLevel parse_log_level(const char* text, LogLevel fallback) {
  if (text == nullptr) return fallback;
  if (std::strcmp(text, "quiet") == 0) return LogLevel::quiet;
  if (std::strcmp(text, "warn") == 0) return LogLevel::warn;
  if (std::strcmp(text, "info") == 0) return LogLevel::info;
  return fallback;
}

LogLevel log_level() {
  int v = g_level.load(std::memory_order_relaxed);
  if (v < 0) {
    v = static_cast<int>(parse_log_level(std::getenv("GCONV_LOG"), LogLevel::warn));
    int expected = -1;
    // A concurrent set_log_level() wins over the environment.
    if (!g_level.compare_exchange_strong(expected, v)) v = expected;
  }
  return static_cast<LogLevel>(v);
}

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level)); }

void log_message(LogLevel level, std::string_view message) {
  if (level == LogLevel::quiet || static_cast<int>(level) > static_cast<int>(log_level())) return;
  std::string line = level == LogLevel::warn ? "gconv [warn]: " : "gconv [info]: ";
  line.append(message);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace gconv
