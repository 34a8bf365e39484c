// Subcommands of the `gconv` tool. Each register_* adds one subcommand (with
// its --help) to the app; main.cpp calls them in the order they are listed.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace gconv::cli {

// --stale-kernels and --fresh of train and eval (heuristic/dataset.hpp StaleRows).
inline void add_stale_rows_options(CLI::App* cmd, std::string* stale_kernels, std::string* fresh) {
  cmd->add_option("--stale-kernels", *stale_kernels,
                  "kernel filter: these kernels changed after some sweeps measured them; their rows are read only "
                  "from the --fresh files");
  cmd->add_option("--fresh", *fresh, "comma list of --data files measured with the current kernels");
}

void register_problem_command(CLI::App& app);    // gconv problem
void register_summary_command(CLI::App& app);    // gconv summary
void register_reference_command(CLI::App& app);  // gconv reference
void register_kernels_command(CLI::App& app);    // gconv kernels
void register_build_command(CLI::App& app);      // gconv build
void register_bench_command(CLI::App& app);      // gconv bench
void register_select_command(CLI::App& app);     // gconv select
void register_run_command(CLI::App& app);        // gconv run
void register_merge_command(CLI::App& app);      // gconv merge
void register_report_command(CLI::App& app);     // gconv report
void register_device_command(CLI::App& app);     // gconv device
void register_train_command(CLI::App& app);      // gconv train
void register_eval_command(CLI::App& app);       // gconv eval
void register_model_command(CLI::App& app);      // gconv model

}  // namespace gconv::cli
