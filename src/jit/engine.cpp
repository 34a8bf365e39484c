#include "jit/engine.hpp"

#include "core/log.hpp"

namespace gconv::jit {

JitEngine::JitEngine() : cache_(CubinCache::from_env()) {}

JitEngine::JitEngine(CubinCache cache) : cache_(std::move(cache)) {}

JitEngine& JitEngine::global() {
  // Leaked on purpose: modules must not be unloaded after the CUDA runtime
  // has started tearing down at exit.
  static JitEngine* engine = new JitEngine();
  return *engine;
}

JitStats JitEngine::stats() const {
  JitStats s;
  s.compiles = compiles_.load();
  s.cache_hits = hits_.load();
  s.cache_misses = misses_.load();
  s.corrupt_entries = corrupt_.load();
  s.store_failures = store_failures_.load();
  s.loads = loads_.load();
  return s;
}

std::shared_ptr<JitEngine::BuildSlot> JitEngine::build_slot(const Digest& key) {
  std::lock_guard<std::mutex> lk(table_mu_);
  auto& slot = builds_[key.hex()];
  if (!slot) slot = std::make_shared<BuildSlot>();
  return slot;
}

std::shared_ptr<JitEngine::ModuleSlot> JitEngine::module_slot(const std::string& id) {
  std::lock_guard<std::mutex> lk(table_mu_);
  auto& slot = modules_[id];
  if (!slot) slot = std::make_shared<ModuleSlot>();
  return slot;
}

Result<Cubin> JitEngine::fetch_or_compile(const std::string& source, const std::string& name,
                                          const PreparedOptions& prepared, const Digest& key, BuildInfo& info) {
  // One builder per key: a thread that waited here finds the entry the first
  // one stored (when the cache is enabled).
  auto slot = build_slot(key);
  std::lock_guard<std::mutex> lk(slot->mu);

  CubinCache::LoadResult hit = cache_.load(key);
  if (hit.payload) {
    ++hits_;
    info.cache_hit = true;
    Cubin c;
    c.image = std::move(*hit.payload);
    c.arch = prepared.arch;
    return c;
  }
  if (cache_.enabled()) ++misses_;
  if (hit.corrupt) {
    ++corrupt_;
    info.cache_corrupt = true;
    info.warning = hit.warning;
    log_warn(hit.warning);
  }

  ++compiles_;
  auto cubin = compile(source, name, prepared);
  if (!cubin.ok()) return cubin;
  info.compiled = true;
  info.compile_ms = cubin->compile_ms;

  Status s = cache_.store(key, cubin->image);
  if (!s.ok()) {
    ++store_failures_;
    if (info.warning.empty()) info.warning = "kernel cache not written: " + s.message();
    // One line per engine, not one per kernel of a 1000-kernel build.
    if (!store_warned_.exchange(true)) log_warn("kernel cache not written (further failures not shown): " + s.message());
  }
  return cubin;
}

Result<Cubin> JitEngine::build_only(const std::string& source, const std::string& name, const CompileOptions& options,
                                    BuildInfo* info) {
  BuildInfo local;
  BuildInfo& bi = info ? *info : local;
  bi = {};
  auto prepared = prepare(options);
  if (!prepared.ok()) return prepared.status();
  bi.key = cache_key(source, *prepared);
  return fetch_or_compile(source, name, *prepared, bi.key, bi);
}

Result<std::shared_ptr<LoadedModule>> JitEngine::get_or_build(const std::string& source,
                                                              const std::vector<std::string>& entries,
                                                              const CompileOptions& options, const std::string& name,
                                                              BuildInfo* info) {
  BuildInfo local;
  BuildInfo& bi = info ? *info : local;
  bi = {};
  if (entries.empty()) return invalid_argument("get_or_build: no entry points given");
  auto prepared = prepare(options);
  if (!prepared.ok()) return prepared.status();
  bi.key = cache_key(source, *prepared);

  std::string id = bi.key.hex();
  for (const auto& e : entries) id += "|" + e;
  auto slot = module_slot(id);
  std::lock_guard<std::mutex> lk(slot->mu);
  if (slot->module) {
    bi.memory_hit = true;
    return slot->module;
  }
  if (!slot->cubin) {
    auto cubin = fetch_or_compile(source, name.empty() ? entries.front() + ".cu" : name, *prepared, bi.key, bi);
    if (!cubin.ok()) return cubin.status();
    // Kept so that a failed load (no device yet, out of memory) is retried
    // without compiling again.
    slot->cubin = std::make_shared<const Cubin>(std::move(cubin).value());
  }
  auto module = LoadedModule::load(slot->cubin->image, entries);
  if (!module.ok()) return module.status();
  ++loads_;
  slot->module = *module;
  slot->cubin.reset();
  return slot->module;
}

}  // namespace gconv::jit
