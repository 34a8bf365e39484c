// DeviceInfo: what the analytic policy knows about the GPU it ranks kernels
// for. Read once, at Registry::create(): the CUDA runtime's device attributes
// when a GPU is present, else the estimates of configs/device/<arch>.json
// (that file documents every field and how the measured device rescales it).
// The throughput numbers are ESTIMATES used only to rank candidates, never to
// decide legality (that is configs/arch/<arch>.json and can_implement).
#pragma once

#include <array>
#include <memory>
#include <string>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "pool/arch_rules.hpp"

namespace gconv {

struct DeviceInfo {
  bool has_gpu = false;
  int device = -1;              // CUDA ordinal, -1 without a GPU
  std::string name = "none";    // cudaDeviceProp::name, "none" without a GPU
  std::string arch = "sm_90a";  // NVRTC arch of the JIT ("sm_90a")
  std::string rules_arch = "sm90";  // configs/arch/<rules_arch>.json
  int cc_major = 9, cc_minor = 0;

  int sm_count = 0;
  double clock_mhz = 0;
  int64_t l2_bytes = 0;
  int64_t smem_per_sm_bytes = 0;
  int regs_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;

  double hbm_gbps = 0;           // sustained DRAM bandwidth
  double l2_gbps = 0;            // sustained L2 -> SM bandwidth
  double smem_bytes_per_clk = 0;  // per SM
  std::array<double, 3> mma_tflops{};        // by DType, whole device
  std::array<double, 3> cuda_core_tflops{};  // by DType, whole device
  double launch_us = 0;
  double wave_latency_us = 0;
  double naive_efficiency = 0;

  // Legality rules of the arch (register estimate, shared memory of a tile);
  // null when the device has no rules file (then no pool kernel applies).
  std::shared_ptr<const ArchRules> rules;

  double mma_tflops_for(DType t) const { return mma_tflops[static_cast<int>(t)]; }
  double cuda_core_tflops_for(DType t) const { return cuda_core_tflops[static_cast<int>(t)]; }
};

// Parses a configs/device/<arch>.json text into `info` (the estimates only;
// `source` names the file in messages). parse_error on a missing or
// mistyped key.
Status parse_device_estimates(const std::string& json_text, const std::string& source, DeviceInfo* info);

// The figures the analytic estimate and the features divide by or scale
// with (SM count, clock, sizes, bandwidths, rates, overheads) are in range;
// else invalid_argument "<source>: <field> is out of range". A zero SM count
// crashed every estimate, a negative bandwidth misled every pick. Device
// configs and the GPU figures of model manifests both pass through it.
Status check_device_figures(const DeviceInfo& d, const std::string& source);

// "sm_90a" / "sm_90" / "sm90" / "90" -> "sm90" (the configs file stem), or
// not_supported for text that names no compute capability.
Result<std::string> rules_arch_of(const std::string& arch);

// The device: `arch` "" means the current CUDA device (or sm_90a when there
// is none); a non-empty arch without a GPU selects that arch's files. Reads
// config_dir()/device/<rules_arch>.json and config_dir()/arch/<rules_arch>.json
// (a missing arch rules file leaves `rules` null and logs one warning).
Result<DeviceInfo> query_device(const std::string& arch);

}  // namespace gconv
