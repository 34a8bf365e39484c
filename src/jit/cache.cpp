#include "jit/cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

namespace gconv::jit {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'G', 'C', 'O', 'N', 'V', 'C', 'B', '\0'};
constexpr size_t kHeaderSize = 48;

void put_le(unsigned char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t checksum(const std::vector<char>& payload) { return hash_bytes(payload.data(), payload.size()).lo; }

// A name no other writer (thread or process) uses at the same moment.
std::string temp_name(const Digest& key) {
  static std::atomic<uint64_t> counter{0};
  size_t tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return key.hex() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(tid) + "." +
         std::to_string(counter.fetch_add(1));
}

}  // namespace

Digest cache_key(const std::string& source, const PreparedOptions& prepared, NvrtcVersion nvrtc) {
  Hasher h;
  h.add_part("gconv-cubin-key");
  h.add_u64(kCacheFormatVersion);
  h.add_part(source);
  h.add_u64(prepared.headers ? prepared.headers->digest.hi : 0);
  h.add_u64(prepared.headers ? prepared.headers->digest.lo : 0);
  h.add_u64(prepared.nvrtc_args.size());
  for (const auto& a : prepared.nvrtc_args) h.add_part(a);
  h.add_u64(static_cast<uint64_t>(nvrtc.major));
  h.add_u64(static_cast<uint64_t>(nvrtc.minor));
  h.add_part(prepared.arch);
  return h.finish();
}

Result<fs::path> default_cache_dir(const EnvLookup& env) {
  const char* v = env("GCONV_CACHE_DIR");
  if (v != nullptr && *v != '\0') return fs::path(v);
  v = env("XDG_CACHE_HOME");
  if (v != nullptr && *v != '\0') return fs::path(v) / "gconv";
  v = env("HOME");
  if (v != nullptr && *v != '\0') return fs::path(v) / ".cache" / "gconv";
  return io_error("no kernel cache directory: set GCONV_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

bool cache_enabled_by_env(const EnvLookup& env) {
  const char* v = env("GCONV_CACHE");
  if (v == nullptr) return true;
  std::string s(v);
  return !(s == "off" || s == "0" || s == "false" || s == "no");
}

CubinCache::CubinCache(fs::path dir, bool enabled) : dir_(std::move(dir)), enabled_(enabled) {}

CubinCache CubinCache::from_env(const EnvLookup& env) {
  auto dir = default_cache_dir(env);
  if (!dir.ok()) return CubinCache({}, false);
  return CubinCache(*dir, cache_enabled_by_env(env));
}

fs::path CubinCache::entry_path(const Digest& key) const { return dir_ / (key.hex() + ".cubin"); }

CubinCache::LoadResult CubinCache::load(const Digest& key) const {
  LoadResult out;
  if (!enabled_) return out;
  fs::path path = entry_path(key);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    // A directory or FIFO where an entry belongs: reading it would throw
    // (directory) or block (FIFO). Not touched; the kernel is compiled, and
    // storing it fails with a message naming the path.
    out.corrupt = true;
    out.warning = "kernel cache entry " + path.string() + " is not a regular file; ignored";
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;  // a plain miss
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();

  const char* problem = nullptr;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kHeaderSize) {
    problem = "truncated header";
  } else if (std::memcmp(p, kMagic, sizeof kMagic) != 0) {
    problem = "bad magic";
  } else if (get_le(p + 8, 4) != kCacheFormatVersion) {
    problem = "unknown format version";
  } else if (get_le(p + 16, 8) != key.hi || get_le(p + 24, 8) != key.lo) {
    problem = "key mismatch";
  } else if (get_le(p + 32, 8) != bytes.size() - kHeaderSize) {
    problem = "payload length mismatch";
  } else {
    std::vector<char> payload(bytes.begin() + kHeaderSize, bytes.end());
    if (checksum(payload) != get_le(p + 40, 8)) {
      problem = "checksum mismatch";
    } else {
      out.payload = std::move(payload);
      return out;
    }
  }
  // Never load it; remove it so the rebuilt entry replaces it. A concurrent
  // writer may already have renamed a good entry over it: then we delete a
  // good entry, which costs one recompile, never a wrong load.
  fs::remove(path, ec);
  out.corrupt = true;
  out.warning = "kernel cache entry " + path.string() + " was corrupt (" + problem + "); deleted, rebuilding";
  return out;
}

Status CubinCache::store(const Digest& key, const std::vector<char>& payload) const {
  if (!enabled_) return Status::Ok();
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return io_error("cannot create kernel cache directory " + dir_.string() + ": " + ec.message());

  unsigned char header[kHeaderSize] = {};
  std::memcpy(header, kMagic, sizeof kMagic);
  put_le(header + 8, kCacheFormatVersion, 4);
  put_le(header + 16, key.hi, 8);
  put_le(header + 24, key.lo, 8);
  put_le(header + 32, payload.size(), 8);
  put_le(header + 40, checksum(payload), 8);

  fs::path tmp = dir_ / temp_name(key);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return io_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  bool ok = std::fwrite(header, 1, kHeaderSize, f) == kHeaderSize &&
            std::fwrite(payload.data(), 1, payload.size(), f) == payload.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    fs::remove(tmp, ec);
    return io_error("cannot write " + tmp.string() + " (disk full?)");
  }
  fs::path dst = entry_path(key);
  if (std::rename(tmp.c_str(), dst.c_str()) != 0) {
    int err = errno;
    fs::remove(tmp, ec);
    return io_error("cannot rename " + tmp.string() + " to " + dst.string() + ": " + std::strerror(err));
  }
  return Status::Ok();
}

}  // namespace gconv::jit
