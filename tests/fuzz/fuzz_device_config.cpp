// JSON configs read at start-up: configs/device/<arch>.json (GPU estimates)
// and configs/arch/<arch>.json (legality rules); the first input byte picks
// which. Properties: no crash or exception; device figures that parse and
// pass check_device_figures are usable by the estimates (positive SM count,
// clock and bandwidths).
#include "fuzz_util.hpp"
#include "perf/device_info.hpp"
#include "pool/arch_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  if (size == 0) return 0;
  const std::string text = fuzz::as_string(data + 1, size - 1);
  if (data[0] % 2) {
    (void)parse_arch_rules(text, "arch.json");
    return 0;
  }
  DeviceInfo info;
  if (!parse_device_estimates(text, "device.json", &info).ok()) return 0;
  if (!check_device_figures(info, "device.json").ok()) return 0;
  if (!(info.sm_count > 0 && info.clock_mhz > 0 && info.hbm_gbps > 0 && info.l2_gbps > 0))
    fuzz::violated("check_device_figures passed a figure the estimates divide by");
  return 0;
}
