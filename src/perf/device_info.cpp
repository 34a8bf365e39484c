#include "perf/device_info.hpp"

#include <cuda_runtime_api.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/cuda_check.hpp"
#include "core/json_depth.hpp"
#include "core/log.hpp"
#include "problem/read_text.hpp"

namespace gconv {
namespace {

using nlohmann::json;

constexpr DType kDTypes[] = {DType::bf16, DType::fp16, DType::fp32};

// Reads a positive number at `path` (dot-separated keys) of `root`.
Status read_number(const json& root, const std::string& path, const std::string& source, double* out) {
  const json* v = &root;
  std::string key;
  std::istringstream parts(path);
  while (std::getline(parts, key, '.')) {
    if (!v->is_object() || !v->contains(key)) return parse_error(source + ": missing key '" + path + "'");
    v = &(*v)[key];
  }
  if (!v->is_number() || v->get<double>() <= 0)
    return parse_error(source + ": key '" + path + "' must be a positive number");
  *out = v->get<double>();
  return Status::Ok();
}

// read_text_file: regular files only (a FIFO here blocked start-up), size-capped.
Result<std::string> read_text(const std::string& path) {
  auto text = problem_io::read_text_file(path);
  if (!text.ok()) return io_error("cannot read device estimates: " + text.status().message());
  return text;
}

// Overwrites the estimates with what the CUDA runtime reports for `dev`, and
// rescales the rates by SMs x clock (see configs/device/sm90.json).
Status read_cuda_device(int dev, double ref_sms, double ref_clock_mhz, double hbm_efficiency, DeviceInfo* d) {
  cudaDeviceProp prop{};
  GCONV_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, dev));
  auto attr = [dev](cudaDeviceAttr a, int* v) {
    return cuda_status(cudaDeviceGetAttribute(v, a, dev), "cudaDeviceGetAttribute");
  };
  int sms = 0, clock_khz = 0, l2 = 0, smem = 0, regs = 0, threads = 0, blocks = 0, mem_khz = 0, bus_bits = 0;
  GCONV_RETURN_IF_ERROR(attr(cudaDevAttrMultiProcessorCount, &sms));
  GCONV_RETURN_IF_ERROR(attr(cudaDevAttrL2CacheSize, &l2));
  GCONV_RETURN_IF_ERROR(attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, &smem));
  GCONV_RETURN_IF_ERROR(attr(cudaDevAttrMaxRegistersPerMultiprocessor, &regs));
  GCONV_RETURN_IF_ERROR(attr(cudaDevAttrMaxThreadsPerMultiProcessor, &threads));
  GCONV_RETURN_IF_ERROR(attr(cudaDevAttrMaxBlocksPerMultiprocessor, &blocks));
  // Clock attributes may be unavailable on some platforms: keep the estimate.
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev) != cudaSuccess) clock_khz = 0;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess) mem_khz = 0;
  if (cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess) bus_bits = 0;
  cudaGetLastError();

  d->has_gpu = true;
  d->device = dev;
  d->name = prop.name;
  d->cc_major = prop.major;
  d->cc_minor = prop.minor;
  d->sm_count = sms;
  if (clock_khz > 0) d->clock_mhz = clock_khz / 1000.0;
  d->l2_bytes = l2;
  d->smem_per_sm_bytes = smem;
  d->regs_per_sm = regs;
  d->max_threads_per_sm = threads;
  d->max_blocks_per_sm = blocks;
  // DDR: two transfers per memory clock.
  if (mem_khz > 0 && bus_bits > 0) d->hbm_gbps = hbm_efficiency * 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  const double scale = (double(sms) * d->clock_mhz) / (ref_sms * ref_clock_mhz);
  for (DType t : kDTypes) {
    d->mma_tflops[static_cast<int>(t)] *= scale;
    d->cuda_core_tflops[static_cast<int>(t)] *= scale;
  }
  d->l2_gbps *= scale;
  return Status::Ok();
}

}  // namespace

Status parse_device_estimates(const std::string& text, const std::string& source, DeviceInfo* d) {
  GCONV_RETURN_IF_ERROR(check_json_depth(text, source));
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return parse_error(source + ": not a JSON object");
  double v = 0;
  auto num = [&](const char* path, double* out) { return read_number(root, path, source, out); };
  // Counts and sizes are stored as integers: a value past the integer's
  // range is refused here (converting it would be undefined behaviour).
  auto count = [&](const char* path, auto* out) -> Status {
    GCONV_RETURN_IF_ERROR(num(path, &v));
    using T = std::remove_pointer_t<decltype(out)>;
    if (!(v < double(std::numeric_limits<T>::max())))
      return parse_error(source + ": key '" + path + "' (" + std::to_string(v) + ") is out of range");
    *out = T(v);
    return Status::Ok();
  };
  GCONV_RETURN_IF_ERROR(count("sm_count", &d->sm_count));
  GCONV_RETURN_IF_ERROR(num("clock_mhz", &d->clock_mhz));
  GCONV_RETURN_IF_ERROR(count("l2_bytes", &d->l2_bytes));
  GCONV_RETURN_IF_ERROR(count("smem_per_sm_bytes", &d->smem_per_sm_bytes));
  GCONV_RETURN_IF_ERROR(count("regs_per_sm", &d->regs_per_sm));
  GCONV_RETURN_IF_ERROR(count("max_threads_per_sm", &d->max_threads_per_sm));
  GCONV_RETURN_IF_ERROR(count("max_blocks_per_sm", &d->max_blocks_per_sm));
  GCONV_RETURN_IF_ERROR(num("memory.hbm_gbps", &d->hbm_gbps));
  GCONV_RETURN_IF_ERROR(num("memory.l2_gbps", &d->l2_gbps));
  GCONV_RETURN_IF_ERROR(num("memory.smem_bytes_per_clk", &d->smem_bytes_per_clk));
  for (DType t : kDTypes) {
    GCONV_RETURN_IF_ERROR(num((std::string("rates_tflops.mma_sync.") + to_string(t)).c_str(),
                              &d->mma_tflops[static_cast<int>(t)]));
    GCONV_RETURN_IF_ERROR(num((std::string("rates_tflops.cuda_core.") + to_string(t)).c_str(),
                              &d->cuda_core_tflops[static_cast<int>(t)]));
  }
  GCONV_RETURN_IF_ERROR(num("overheads.launch_us", &d->launch_us));
  GCONV_RETURN_IF_ERROR(num("overheads.wave_latency_us", &d->wave_latency_us));
  GCONV_RETURN_IF_ERROR(num("overheads.naive_efficiency", &d->naive_efficiency));
  // Checked here so that query_device can rely on them.
  GCONV_RETURN_IF_ERROR(num("reference.sm_count", &v));
  if (!(v >= 1)) return invalid_argument(source + ": reference.sm_count must be at least 1");
  GCONV_RETURN_IF_ERROR(num("reference.clock_mhz", &v));
  if (!(v > 0)) return invalid_argument(source + ": reference.clock_mhz must be positive");
  GCONV_RETURN_IF_ERROR(num("memory.hbm_efficiency", &v));
  if (!(d->naive_efficiency <= 1)) return invalid_argument(source + ": naive_efficiency is out of range");
  return check_device_figures(*d, source);
}

Status check_device_figures(const DeviceInfo& d, const std::string& source) {
  const auto positive = [](double x) { return std::isfinite(x) && x > 0; };
  const auto non_negative = [](double x) { return std::isfinite(x) && x >= 0; };
  struct Check {
    const char* field;
    bool ok;
  };
  const Check checks[] = {
      {"sm_count", d.sm_count >= 1 && d.sm_count <= 100000},
      {"clock_mhz", positive(d.clock_mhz)},
      {"l2_bytes", d.l2_bytes > 0},
      {"smem_per_sm_bytes", d.smem_per_sm_bytes > 0},
      {"regs_per_sm", d.regs_per_sm > 0},
      {"max_threads_per_sm", d.max_threads_per_sm > 0},
      {"max_blocks_per_sm", d.max_blocks_per_sm > 0},
      {"hbm_gbps", positive(d.hbm_gbps)},
      {"l2_gbps", positive(d.l2_gbps)},
      {"smem_bytes_per_clk", positive(d.smem_bytes_per_clk)},
      {"launch_us", non_negative(d.launch_us)},
      {"wave_latency_us", non_negative(d.wave_latency_us)},
  };
  for (const Check& c : checks)
    if (!c.ok) return invalid_argument(source + ": " + c.field + " is out of range");
  for (DType t : kDTypes)
    if (!positive(d.mma_tflops[static_cast<int>(t)]) || !positive(d.cuda_core_tflops[static_cast<int>(t)]))
      return invalid_argument(source + ": the mma / cuda-core rate of " + std::string(to_string(t)) +
                              " is not a positive number");
  return Status::Ok();
}

Result<std::string> rules_arch_of(const std::string& arch) {
  std::string digits;
  size_t i = 0;
  if (arch.rfind("sm_", 0) == 0) i = 3;
  else if (arch.rfind("sm", 0) == 0) i = 2;
  for (; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i) digits += arch[i];
  const bool suffix_ok = i == arch.size() || (i + 1 == arch.size() && (arch[i] == 'a' || arch[i] == 'f'));
  if (digits.size() < 2 || !suffix_ok)
    return not_supported("arch '" + arch + "' names no compute capability (expected e.g. sm_90a)");
  return "sm" + digits;
}

Result<DeviceInfo> query_device(const std::string& arch) {
  DeviceInfo d;
  int dev = -1;
  int count = 0;
  const bool gpu = cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && cudaGetDevice(&dev) == cudaSuccess;
  cudaGetLastError();  // a failed probe must not leave a sticky error for the caller
  if (!arch.empty()) {
    d.arch = arch;
  } else if (gpu) {
    int major = 0, minor = 0;
    GCONV_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    GCONV_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    d.arch = "sm_" + std::to_string(major) + std::to_string(minor) + (major == 9 && minor == 0 ? "a" : "");
  }
  auto stem = rules_arch_of(d.arch);
  if (!stem.ok()) return stem.status();
  d.rules_arch = *stem;

  // Estimates: the arch's own file, else Hopper's (the only one shipped) so
  // that ranking still works on another GPU, with a warning.
  std::string path = config_dir() + "/device/" + d.rules_arch + ".json";
  if (!std::filesystem::exists(path)) {
    log_warn("no device estimates " + path + "; ranking with configs/device/sm90.json");
    path = config_dir() + "/device/sm90.json";
  }
  auto text = read_text(path);
  if (!text.ok()) return text.status();
  GCONV_RETURN_IF_ERROR(parse_device_estimates(*text, path, &d));

  if (gpu) {
    json root = json::parse(*text, nullptr, false);
    GCONV_RETURN_IF_ERROR(read_cuda_device(dev, root["reference"]["sm_count"].get<double>(),
                                           root["reference"]["clock_mhz"].get<double>(),
                                           root["memory"]["hbm_efficiency"].get<double>(), &d));
  }

  const std::string rules_path = config_dir() + "/arch/" + d.rules_arch + ".json";
  if (std::filesystem::exists(rules_path)) {
    auto rules = load_arch_rules(rules_path);
    if (!rules.ok()) return rules.status();
    d.rules = std::make_shared<const ArchRules>(std::move(rules).value());
  } else {
    log_warn("no arch rules " + rules_path + " for " + d.arch + ": every problem runs on the naive fallback kernel");
  }
  return d;
}

}  // namespace gconv
