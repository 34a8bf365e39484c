// gconv model: maintenance of model folders. `compact` writes the compact
// form of a trained model (model.gcf, mapped at load instead of parsed) and
// records it in the folder's manifest; models/README.md says when to run it.
#include <cstdio>

#include "cli/commands.hpp"
#include "heuristic/model.hpp"

namespace gconv::cli {

void register_model_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("model", "Maintain model folders (see models/README.md)");
  cmd->require_subcommand(1);
  auto* compact = cmd->add_subcommand(
      "compact",
      "Write DIR/model.gcf, the compact form of DIR's model (and of its prefilter's), and record its checksum\n"
      "in DIR/manifest.json. The registry then maps it instead of parsing model.ubj (cold start).\n"
      "Reproducible: the same model gives the same bytes. Run it after every gconv train.");
  auto dirs = std::make_shared<std::vector<std::string>>();
  compact->add_option("dir", *dirs, "model folders (gconv train outputs)")->required();
  compact->callback([dirs] {
    for (const auto& d : *dirs) {
      std::vector<std::string> written;
      Status s = heuristic::write_compact_model(d, &written);
      if (!s.ok()) {
        std::fprintf(stderr, "gconv model compact: %s\n", s.to_string().c_str());
        throw CLI::RuntimeError(1);
      }
      for (const auto& w : written) std::fprintf(stderr, "gconv model compact: wrote %s\n", w.c_str());
    }
  });
}

}  // namespace gconv::cli
