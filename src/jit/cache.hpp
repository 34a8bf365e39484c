// Persistent on-disk cache of CUBINs, shared by every process of a user.
//
// Key: a 128-bit digest of (source text, digest of every kernel header,
// NVRTC options, NVRTC version, arch), see cache_key. An entry is the file
// <dir>/<key hex>.cubin:
//
//   offset size  field
//   0      8     magic "GCONVCB\0"
//   8      4     format version (kCacheFormatVersion), little-endian
//   12     4     reserved (0)
//   16     16    key (hi, lo), little-endian
//   32     8     payload length
//   40     8     payload checksum (64 bits of hash_bytes(payload))
//   48     n     payload (the CUBIN)
//
// Corrupt entries (bad magic/version, key or length mismatch, bad checksum,
// truncation) are never returned: load() deletes the file and says so in
// LoadResult, so the caller rebuilds it and can warn once.
//
// Writes go to a unique temporary file in the same directory, then rename(2)
// over the entry: readers in other processes see the old entry, the new one,
// or none, never a partial file. The payload is not fsync'ed: after a crash
// a torn file fails its checksum and is rebuilt.
//
// Directory: $GCONV_CACHE_DIR, else $XDG_CACHE_HOME/gconv, else
// $HOME/.cache/gconv. GCONV_CACHE=off disables the cache (loads miss,
// stores do nothing). Thread-safe: the object is immutable after construction.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gconv/status.hpp"
#include "jit/compiler.hpp"
#include "jit/env.hpp"
#include "jit/hash.hpp"

namespace gconv::jit {

inline constexpr uint32_t kCacheFormatVersion = 1;

Digest cache_key(const std::string& source, const PreparedOptions& prepared, NvrtcVersion nvrtc = nvrtc_version());

// The cache directory from the environment (see above); io_error when none of
// the three variables is set.
Result<std::filesystem::path> default_cache_dir(const EnvLookup& env = process_env);
// False when GCONV_CACHE=off (also "0", "false", "no").
bool cache_enabled_by_env(const EnvLookup& env = process_env);

class CubinCache {
 public:
  // A cache rooted at `dir` (created on the first store). enabled=false gives
  // a cache that always misses.
  explicit CubinCache(std::filesystem::path dir, bool enabled = true);
  // From the environment; a disabled cache when no directory can be found.
  static CubinCache from_env(const EnvLookup& env = process_env);

  struct LoadResult {
    std::optional<std::vector<char>> payload;  // set on a hit
    bool corrupt = false;                      // an entry existed, was invalid, and was deleted
    std::string warning;                       // what was wrong with it, for the caller to report
  };
  LoadResult load(const Digest& key) const;
  // io_error when the directory or the file cannot be written; the caller
  // may carry on without the cache.
  Status store(const Digest& key, const std::vector<char>& payload) const;

  bool enabled() const { return enabled_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path entry_path(const Digest& key) const;

 private:
  std::filesystem::path dir_;
  bool enabled_;
};

}  // namespace gconv::jit
