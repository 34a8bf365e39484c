// The tuning cache: kernels chosen by measurement (policies exhaustive and
// topk), persisted in one JSON file so that another process does not measure
// the same problem again.
//
// File (format_version 1):
//   { "format": "gconv-tuning-cache", "format_version": 1,
//     "gpu": "NVIDIA H200", "gconv_version": "0.1.0", "pool_version": "<32 hex>",
//     "entries": { "<problem spec>[ | filter: <expr>]": {
//         "kernel": "...", "measured_ms": 0.123, "policy": "exhaustive",
//         "kernels_measured": 212, "tuning_seconds": 3.5 } } }
// An entry is valid for the GPU, gconv version and pool version of the file
// (pool version: hash of the pool config files and the arch rules, so a new
// pool invalidates measured winners). A file for another key ("stale"), or
// one that does not parse ("corrupt"), is ignored with ONE warning per
// TuningCache object and replaced by the next store.
//
// Writes: re-read the file, merge its valid entries with ours (ours win),
// write a temporary file beside it and rename(2) it over the file, so that a
// reader never sees a partial file. Two processes storing at the same moment
// may lose one of their new entries (the next measurement stores it again).
// Thread-safe (one mutex).
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "gconv/registry.hpp"
#include "gconv/status.hpp"

namespace gconv {

struct TuningKey {
  std::string gpu, gconv_version, pool_version;
};

struct TuningEntry {
  std::string kernel;
  double measured_ms = 0;
  std::string policy;  // Policy::to_string of the measurement
  int kernels_measured = 0;
  double tuning_seconds = 0;
};

// Parses the text of a tuning cache file made for `key` into *out. Not ok
// (parse_error, "<source>: ...", naming the field and what is wrong with it)
// for text that is not a valid cache, or invalid_argument "... is stale ..."
// for a cache of another key; *out is then left unchanged. Any text is safe:
// no exception leaves it (fuzzed by tests/fuzz/fuzz_tuning_cache.cpp).
Status parse_tuning_cache(const std::string& text, const std::string& source, const TuningKey& key,
                          std::map<std::string, TuningEntry>* out);

// The entry key of a problem under a kernel filter.
std::string tuning_entry_key(const std::string& spec, const std::string& filter);

// Whether an entry measured with `measured` answers a request for `wanted`:
// exhaustive answers everything, topk:K answers topk:K' with K' <= K.
bool tuning_policy_covers(const std::string& measured, const Policy& wanted);

// The file a RegistryOptions::tuning_cache_path names: "off" -> "" (disabled);
// "" -> $GCONV_TUNING_CACHE (whose "off" also disables) or else
// <JIT cache dir>/tuning.json, or "" when there is no cache directory.
std::string resolve_tuning_cache_path(const std::string& option);

// Hash (32 hex digits) of config_dir()/pools/*.json and config_dir()/arch/<rules_arch>.json.
std::string pool_version(const std::string& rules_arch);

class TuningCache {
 public:
  // An empty path disables the cache (lookups miss, stores do nothing).
  TuningCache(std::filesystem::path path, TuningKey key);

  std::optional<TuningEntry> lookup(const std::string& entry_key);
  // io_error when the file cannot be written (the caller carries on).
  Status store(const std::string& entry_key, const TuningEntry& entry);

  bool enabled() const { return !path_.empty(); }
  const std::filesystem::path& path() const { return path_; }
  // Warnings logged so far (0 or 1): for tests.
  int warnings() const;

 private:
  // Reads the file into `out`; ok when it is absent or valid, else why it is ignored.
  Status read_file(std::map<std::string, TuningEntry>* out) const;
  void load_locked();
  void warn_once(const std::string& why);

  std::filesystem::path path_;
  TuningKey key_;
  mutable std::mutex mu_;
  bool loaded_ = false;
  int warnings_ = 0;
  std::map<std::string, TuningEntry> entries_;
};

}  // namespace gconv
