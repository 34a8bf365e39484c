// gconv device: what gconv knows about the GPU (or, without one, the
// estimates it would rank kernels with), as JSON. The learned selector's
// training reads this file (`gconv train --gpu`) for the GPU that measured a
// sweep, so a sweep run saves `gconv device > gpu.json` next to its CSV.
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "heuristic/features.hpp"
#include "perf/device_info.hpp"

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
    // The learned selector's GpuProps (its JSON is what `gconv train --gpu`
    // reads), plus what identifies the device.
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(heuristic::to_json(heuristic::gpu_props_of(*d)));
    j["has_gpu"] = d->has_gpu;
    j["cc"] = std::to_string(d->cc_major) + "." + std::to_string(d->cc_minor);
    std::printf("%s\n", j.dump(2).c_str());
  });
}

}  // namespace gconv::cli
