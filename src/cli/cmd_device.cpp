// gconv device: what gconv knows about the GPU (or, without one, the
// estimates it would rank kernels with), as JSON. The learned selector's
// training reads this file for the GPU that measured a sweep, so a sweep run
// saves `gconv device > gpu.json` next to its CSV.
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "registry/device_info.hpp"

namespace gconv::cli {

void register_device_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("device", "Print the GPU's properties (or the arch's estimates without a GPU) as JSON");
  auto arch = std::make_shared<std::string>();
  cmd->add_option("--arch", *arch, "arch without a GPU (default sm_90a)");
  cmd->callback([arch] {
    auto d = query_device(*arch);
    if (!d.ok()) {
      std::fprintf(stderr, "gconv device: %s\n", d.status().to_string().c_str());
      throw CLI::RuntimeError(1);
    }
    nlohmann::ordered_json j;
    j["name"] = d->name;
    j["has_gpu"] = d->has_gpu;
    j["arch"] = d->arch;
    j["cc"] = std::to_string(d->cc_major) + "." + std::to_string(d->cc_minor);
    j["sm_count"] = d->sm_count;
    j["clock_mhz"] = d->clock_mhz;
    j["l2_bytes"] = d->l2_bytes;
    j["smem_per_sm_bytes"] = d->smem_per_sm_bytes;
    j["regs_per_sm"] = d->regs_per_sm;
    j["max_threads_per_sm"] = d->max_threads_per_sm;
    j["max_blocks_per_sm"] = d->max_blocks_per_sm;
    j["hbm_gbps"] = d->hbm_gbps;
    j["l2_gbps"] = d->l2_gbps;
    j["mma_tflops"] = d->mma_tflops;
    j["cuda_core_tflops"] = d->cuda_core_tflops;
    std::printf("%s\n", j.dump(2).c_str());
  });
}

}  // namespace gconv::cli
