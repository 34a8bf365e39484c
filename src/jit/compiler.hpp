// NVRTC front end: one instance source -> one CUBIN for a real SM arch.
//
// Kernel headers come from the library's embedded copy of src/kernels/**/*.cuh
// (gconv::embedded_kernel_sources()), handed to NVRTC by their path relative
// to src/kernels ("igemm/igemm.cuh"); a header may include another by that
// path ("common/tile.cuh") or relative to itself ("tile.cuh", "../common/x.cuh"),
// see resolve_includes. CUDA's own headers come from the toolkit found by
// find_cuda_include_dir.
//
// Options always passed: --std=c++17 -arch=<arch> -default-device, plus
// -lineinfo (CompileOptions::lineinfo) and CompileOptions::extra; never
// --use_fast_math (numerics must match the reference).
//
// Thread-safety: compile() may be called from many threads at once (NVRTC
// programs are independent).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gconv/status.hpp"
#include "jit/env.hpp"
#include "jit/hash.hpp"

namespace gconv {
// Defined by the generated kernel_sources.cpp (cmake/embed_kernels.cmake).
const std::map<std::string, std::string>& embedded_kernel_sources();
}  // namespace gconv

namespace gconv::jit {

using HeaderMap = std::map<std::string, std::string>;

struct CompileOptions {
  // Target, e.g. "sm_90a" (wgmma/TMA need the 'a' variant on Hopper). Empty:
  // the current device's arch (needs a GPU; without one, pass an arch).
  std::string arch;
  std::vector<std::string> extra;  // appended after the fixed options
  bool lineinfo = true;
  // Headers to compile against; nullptr = embedded_kernel_sources(). Must
  // outlive the call (tests use this to vary header text).
  const HeaderMap* headers = nullptr;
};

struct Cubin {
  std::vector<char> image;  // ELF cubin bytes
  std::string arch;         // "sm_90a"
  std::string log;          // NVRTC's log (warnings), possibly empty
  double compile_ms = 0;    // wall time of nvrtcCompileProgram + fetch; 0 if loaded from cache
};

struct NvrtcVersion {
  int major = 0, minor = 0;
};
NvrtcVersion nvrtc_version();

// True for "sm_<digits>" optionally followed by 'a' or 'f' (real targets
// only: a compute_XX target would yield PTX, not a CUBIN).
bool is_real_arch(const std::string& arch);

// The current device's arch: cudaGetDeviceProperties major/minor -> "sm_XY",
// with the 'a' suffix for 9.0 (Hopper). no_device when there is no GPU.
Result<std::string> detect_device_arch();

// <root>/include of the CUDA toolkit: the first of $CUDA_HOME, $CUDA_PATH,
// /usr/local/cuda that is set (the default always is). A set variable that
// does not point to a toolkit is an error (no silent fall-through to another
// toolkit). io_error names the three places.
Result<std::string> find_cuda_include_dir(const EnvLookup& env = process_env);

// Rewrites quoted includes inside `headers` that are relative to the
// including header ("x.cuh" in "igemm/a.cuh" -> "igemm/x.cuh") into their
// root-relative names, which is the only form NVRTC matches against the
// names handed to nvrtcCreateProgram. Includes that already name a header,
// or name none (system headers), are left as they are.
HeaderMap resolve_includes(const HeaderMap& headers);

// A header set ready for NVRTC, with its digest (part of the cache key).
struct HeaderSet {
  std::vector<std::string> names;
  std::vector<std::string> texts;  // after resolve_includes
  Digest digest;                   // over the original names and texts
};
// The embedded set is built once per process; others on every call.
std::shared_ptr<const HeaderSet> header_set(const HeaderMap* headers);

// Everything that determines the output of one compile except the source.
struct PreparedOptions {
  std::string arch;
  std::vector<std::string> nvrtc_args;
  std::shared_ptr<const HeaderSet> headers;
};
Result<PreparedOptions> prepare(const CompileOptions& options, const EnvLookup& env = process_env);

// Compiles `source` (named `name` in diagnostics, e.g. "igemm_fwd_....cu").
// compile_error carries NVRTC's log; the result is checked to be an ELF image.
Result<Cubin> compile(const std::string& source, const std::string& name, const PreparedOptions& prepared);
Result<Cubin> compile(const std::string& source, const std::string& name, const CompileOptions& options);

}  // namespace gconv::jit
