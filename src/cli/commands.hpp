// Subcommands of the `gconv` tool. Each register_* adds one subcommand (with
// its --help) to the app; main.cpp calls them in the order they are listed.
#pragma once

#include <CLI/CLI.hpp>

namespace gconv::cli {

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
