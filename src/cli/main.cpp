// gconv: the command-line tool. Machine output (CSV/JSON) goes to stdout,
// progress and errors to stderr; a failed command exits non-zero.
#include <cstdio>
#include <exception>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gconv: grouped convolution on NVIDIA GPUs, with learned kernel selection"};
  app.require_subcommand(1);
  app.set_version_flag("--version", GCONV_VERSION_STRING);
  // Each command registers itself here (one line each).
  gconv::cli::register_problem_command(app);
  gconv::cli::register_summary_command(app);
  gconv::cli::register_reference_command(app);
  gconv::cli::register_kernels_command(app);
  gconv::cli::register_build_command(app);
  gconv::cli::register_bench_command(app);
  gconv::cli::register_select_command(app);
  gconv::cli::register_run_command(app);
  gconv::cli::register_merge_command(app);
  gconv::cli::register_report_command(app);
  gconv::cli::register_device_command(app);
  gconv::cli::register_train_command(app);
  gconv::cli::register_eval_command(app);
  gconv::cli::register_model_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gconv: %s\n", e.what());
    return 1;
  }
  return 0;
}
