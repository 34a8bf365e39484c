// A tiny stderr logger for library internals. The library never prints to
// stdout; warnings that a caller must be able to act on are also returned as
// values (flags or Status), so logging is only a convenience for humans.
//
// The level comes from GCONV_LOG=quiet|warn|info (default warn), read once;
// set_log_level() overrides it (tests, the CLI's --verbose). Thread-safe: a
// message is written with one fwrite so lines from threads do not interleave.
#pragma once

#include <string_view>

namespace gconv {

enum class LogLevel : int { quiet = 0, warn = 1, info = 2 };

LogLevel log_level();
void set_log_level(LogLevel level);
// Parses "quiet" / "warn" / "info"; anything else yields `fallback`.
LogLevel parse_log_level(const char* text, LogLevel fallback);

// Writes "gconv [warn]: <message>\n" to stderr when `level` is enabled.
void log_message(LogLevel level, std::string_view message);
inline void log_warn(std::string_view m) { log_message(LogLevel::warn, m); }
inline void log_info(std::string_view m) { log_message(LogLevel::info, m); }

}  // namespace gconv
