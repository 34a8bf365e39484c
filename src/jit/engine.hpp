// JitEngine: kernel source -> loaded module, through the on-disk cache.
//
//   get_or_build = in-process module table -> disk cache -> NVRTC -> store -> load
//   build_only   = disk cache -> NVRTC -> store   (ahead of time, no GPU needed)
//
// Thread-safety: every method may be called from many threads at once. Threads
// asking for the same (source, options) wait for one build instead of
// compiling it each; different kernels build in parallel. Modules live as long
// as the engine's table (the process, for global()) or a caller's shared_ptr.
//
// Problems with the cache itself (a corrupt entry, an unwritable directory)
// never fail a build: they are returned in BuildInfo, counted in JitStats and
// logged once as warnings (core/log.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gconv/status.hpp"
#include "jit/cache.hpp"
#include "jit/compiler.hpp"
#include "jit/module.hpp"

namespace gconv::jit {

// What happened during one request.
struct BuildInfo {
  Digest key;
  bool memory_hit = false;     // module was already loaded in this process
  bool cache_hit = false;      // cubin came from the disk cache
  bool compiled = false;       // NVRTC ran
  bool cache_corrupt = false;  // a corrupt disk entry was found, deleted and rebuilt
  std::string warning;         // cache problem worth showing once (corrupt entry, failed store)
  double compile_ms = 0;
};

struct JitStats {
  uint64_t compiles = 0, cache_hits = 0, cache_misses = 0, corrupt_entries = 0;
  uint64_t store_failures = 0, loads = 0;
};

class JitEngine {
 public:
  // Cache location and on/off from the environment (see cache.hpp).
  JitEngine();
  explicit JitEngine(CubinCache cache);
  // The process-wide engine used by the library's dispatcher.
  static JitEngine& global();

  // Returns the module for `source` with `entries` resolved. `name` labels
  // diagnostics (e.g. the kernel name); empty: the first entry's name.
  Result<std::shared_ptr<LoadedModule>> get_or_build(const std::string& source, const std::vector<std::string>& entries,
                                                     const CompileOptions& options, const std::string& name = {},
                                                     BuildInfo* info = nullptr);
  // Compiles (or finds in the cache) without loading; options.arch must be
  // set when there is no GPU.
  Result<Cubin> build_only(const std::string& source, const std::string& name, const CompileOptions& options,
                           BuildInfo* info = nullptr);

  JitStats stats() const;
  const CubinCache& cache() const { return cache_; }

 private:
  struct BuildSlot {
    std::mutex mu;
  };
  struct ModuleSlot {
    std::mutex mu;
    std::shared_ptr<LoadedModule> module;
    std::shared_ptr<const Cubin> cubin;  // kept only until a load succeeds
  };

  Result<Cubin> fetch_or_compile(const std::string& source, const std::string& name, const PreparedOptions& prepared,
                                 const Digest& key, BuildInfo& info);
  std::shared_ptr<BuildSlot> build_slot(const Digest& key);
  std::shared_ptr<ModuleSlot> module_slot(const std::string& id);

  CubinCache cache_;
  std::mutex table_mu_;
  std::map<std::string, std::shared_ptr<BuildSlot>> builds_;
  std::map<std::string, std::shared_ptr<ModuleSlot>> modules_;
  std::atomic<uint64_t> compiles_{0}, hits_{0}, misses_{0}, corrupt_{0}, store_failures_{0}, loads_{0};
  std::atomic<bool> store_warned_{false};
};

}  // namespace gconv::jit
