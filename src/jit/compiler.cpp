#include "jit/compiler.hpp"

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/cuda_check.hpp"

namespace gconv::jit {
namespace {

namespace fs = std::filesystem;

// "a/b/../c/./d.cuh" -> "a/c/d.cuh"; empty when it climbs above the root.
std::string normalize_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part == "..") {
      if (parts.empty()) return {};
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(std::move(part));
    }
    start = end + 1;
  }
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

std::string nvrtc_log(nvrtcProgram prog) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

Status nvrtc_status(nvrtcResult r, const char* call, const std::string& name) {
  return {StatusCode::compile_error, std::string(call) + " (" + name + "): " + nvrtcGetErrorString(r)};
}

// Destroys the program on every path out of compile().
struct ProgramGuard {
  nvrtcProgram prog = nullptr;
  ~ProgramGuard() {
    if (prog != nullptr) nvrtcDestroyProgram(&prog);
  }
};

}  // namespace

NvrtcVersion nvrtc_version() {
  static const NvrtcVersion v = [] {
    NvrtcVersion out;
    if (nvrtcVersion(&out.major, &out.minor) != NVRTC_SUCCESS) out = {};
    return out;
  }();
  return v;
}

bool is_real_arch(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return false;
  size_t i = 3, digits = 0;
  while (i < arch.size() && arch[i] >= '0' && arch[i] <= '9') ++i, ++digits;
  if (digits < 2) return false;
  if (i < arch.size() && (arch[i] == 'a' || arch[i] == 'f')) ++i;
  return i == arch.size();
}

Result<std::string> detect_device_arch() {
  auto explain = [](const Status& s) {
    return Status(s.code(), "cannot detect the target arch from the current device (" + s.message() +
                                "); pass an arch explicitly, e.g. sm_90a");
  };
  int dev = 0;
  Status s = cuda_status(cudaGetDevice(&dev), "cudaGetDevice");
  if (!s.ok()) return explain(s);
  int major = 0, minor = 0;
  s = cuda_status(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev),
                  "cudaDeviceGetAttribute(major)");
  if (s.ok())
    s = cuda_status(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev),
                    "cudaDeviceGetAttribute(minor)");
  if (!s.ok()) return explain(s);
  std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
  // Hopper's wgmma / setmaxnreg are only in the arch-specific sm_90a target.
  if (major == 9 && minor == 0) arch += 'a';
  return arch;
}

Result<std::string> find_cuda_include_dir(const EnvLookup& env) {
  static const char* kVars[] = {"CUDA_HOME", "CUDA_PATH"};
  std::string root, from;
  for (const char* var : kVars) {
    const char* v = env(var);
    if (v != nullptr && *v != '\0') {
      root = v;
      from = std::string("$") + var + "=" + v;
      break;
    }
  }
  if (root.empty()) {
    root = "/usr/local/cuda";
    from = root;
  }
  fs::path include = fs::path(root) / "include";
  std::error_code ec;
  if (!fs::is_regular_file(include / "cuda_runtime_api.h", ec)) {
    return io_error("CUDA headers not found: " + from + " has no include/cuda_runtime_api.h " +
                    "(the toolkit is looked up in $CUDA_HOME, then $CUDA_PATH, then /usr/local/cuda)");
  }
  return include.string();
}

HeaderMap resolve_includes(const HeaderMap& headers) {
  HeaderMap out;
  for (const auto& [name, text] : headers) {
    size_t slash = name.rfind('/');
    std::string dir = slash == std::string::npos ? std::string() : name.substr(0, slash + 1);
    std::string result;
    result.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string::npos) eol = text.size();
      std::string line = text.substr(pos, eol - pos);
      // Match: optional blanks, '#', optional blanks, include, blanks, "target".
      size_t i = line.find_first_not_of(" \t");
      if (i != std::string::npos && line[i] == '#') {
        size_t j = line.find_first_not_of(" \t", i + 1);
        if (j != std::string::npos && line.compare(j, 7, "include") == 0) {
          size_t q1 = line.find('"', j + 7);
          size_t q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
          if (q2 != std::string::npos) {
            std::string target = line.substr(q1 + 1, q2 - q1 - 1);
            if (headers.count(target) == 0) {
              std::string resolved = normalize_path(dir + target);
              if (!resolved.empty() && headers.count(resolved) != 0)
                line = line.substr(0, q1 + 1) + resolved + line.substr(q2);
            }
          }
        }
      }
      result += line;
      if (eol < text.size()) result += '\n';
      pos = eol + 1;
    }
    out.emplace(name, std::move(result));
  }
  return out;
}

namespace {

std::shared_ptr<const HeaderSet> make_header_set(const HeaderMap& headers) {
  auto set = std::make_shared<HeaderSet>();
  Hasher h;
  h.add_u64(headers.size());
  for (const auto& [name, text] : headers) {
    h.add_part(name);
    h.add_part(text);
  }
  set->digest = h.finish();
  for (auto& [name, text] : resolve_includes(headers)) {
    set->names.push_back(name);
    set->texts.push_back(std::move(text));
  }
  return set;
}

// GCONV_KERNEL_SOURCES=DIR (development: A/B runs of kernel code in one
// process, bench/device_call.sh abenv): the kernels compile against every .cuh
// under DIR (keyed by its path below DIR, as embedded) instead of the embedded
// headers; the header digest keeps their cache entries apart. Read once per
// directory.
Result<std::shared_ptr<const HeaderSet>> headers_from_dir(const std::string& dir) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const HeaderSet>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(dir); it != loaded.end()) return it->second;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return io_error("GCONV_KERNEL_SOURCES: '" + dir + "' is not a directory of kernel headers");
  HeaderMap headers;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".cuh") continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return io_error("GCONV_KERNEL_SOURCES: cannot read " + it->path().string());
    headers[fs::relative(it->path(), dir).generic_string()] = text.str();
  }
  if (ec) return io_error("GCONV_KERNEL_SOURCES: cannot list '" + dir + "': " + ec.message());
  if (headers.empty()) return io_error("GCONV_KERNEL_SOURCES: no .cuh file under '" + dir + "'");
  auto set = make_header_set(headers);
  loaded.emplace(dir, set);
  return std::shared_ptr<const HeaderSet>(set);
}

}  // namespace

std::shared_ptr<const HeaderSet> header_set(const HeaderMap* headers) {
  if (headers == nullptr) {
    static const std::shared_ptr<const HeaderSet> embedded = make_header_set(embedded_kernel_sources());
    return embedded;
  }
  return make_header_set(*headers);
}

Result<PreparedOptions> prepare(const CompileOptions& options, const EnvLookup& env) {
  PreparedOptions p;
  if (options.arch.empty()) {
    auto arch = detect_device_arch();
    if (!arch.ok()) return arch.status();
    p.arch = *arch;
  } else {
    p.arch = options.arch;
  }
  if (!is_real_arch(p.arch))
    return invalid_argument("arch '" + p.arch + "' is not a real SM target (expected e.g. sm_90a)");
  auto include = find_cuda_include_dir(env);
  if (!include.ok()) return include.status();
  p.nvrtc_args = {"--std=c++17", "-arch=" + p.arch, "-default-device", "-I" + *include};
  if (options.lineinfo) p.nvrtc_args.push_back("-lineinfo");
  p.nvrtc_args.insert(p.nvrtc_args.end(), options.extra.begin(), options.extra.end());
  const char* dir = options.headers == nullptr ? env("GCONV_KERNEL_SOURCES") : nullptr;
  if (dir != nullptr && *dir != '\0') {
    auto hs = headers_from_dir(dir);
    if (!hs.ok()) return hs.status();
    p.headers = *hs;
  } else {
    p.headers = header_set(options.headers);
  }
  return p;
}

Result<Cubin> compile(const std::string& source, const std::string& name, const PreparedOptions& prepared) {
  auto t0 = std::chrono::steady_clock::now();
  const HeaderSet& hs = *prepared.headers;
  std::vector<const char*> names, texts, args;
  for (size_t i = 0; i < hs.names.size(); ++i) {
    names.push_back(hs.names[i].c_str());
    texts.push_back(hs.texts[i].c_str());
  }
  for (const auto& a : prepared.nvrtc_args) args.push_back(a.c_str());

  ProgramGuard g;
  nvrtcResult r = nvrtcCreateProgram(&g.prog, source.c_str(), name.c_str(), static_cast<int>(names.size()),
                                     texts.data(), names.data());
  if (r != NVRTC_SUCCESS) return nvrtc_status(r, "nvrtcCreateProgram", name);
  r = nvrtcCompileProgram(g.prog, static_cast<int>(args.size()), args.data());
  std::string log = nvrtc_log(g.prog);
  if (r != NVRTC_SUCCESS) {
    return Status(StatusCode::compile_error,
                  "NVRTC failed to compile " + name + " for " + prepared.arch + " (" + nvrtcGetErrorString(r) +
                      "):\n" + log);
  }
  size_t size = 0;
  r = nvrtcGetCUBINSize(g.prog, &size);
  if (r != NVRTC_SUCCESS) return nvrtc_status(r, "nvrtcGetCUBINSize", name);
  if (size == 0) return internal_error("NVRTC produced no CUBIN for " + name + " (arch " + prepared.arch + ")");
  Cubin out;
  out.image.resize(size);
  r = nvrtcGetCUBIN(g.prog, out.image.data());
  if (r != NVRTC_SUCCESS) return nvrtc_status(r, "nvrtcGetCUBIN", name);
  // A CUBIN is an ELF image; anything else (PTX text) would be JIT-compiled by
  // the driver at load time, which is exactly what the cache exists to avoid.
  if (size < 4 || std::memcmp(out.image.data(), "\x7f" "ELF", 4) != 0)
    return internal_error("NVRTC output for " + name + " is not an ELF cubin");
  out.arch = prepared.arch;
  out.log = std::move(log);
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

Result<Cubin> compile(const std::string& source, const std::string& name, const CompileOptions& options) {
  auto prepared = prepare(options);
  if (!prepared.ok()) return prepared.status();
  return compile(source, name, *prepared);
}

}  // namespace gconv::jit
