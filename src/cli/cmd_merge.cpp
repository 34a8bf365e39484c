// gconv merge: combine sweep CSVs (the shards of one sweep) into one file,
// reporting duplicates and, given the sweep's problem set, gaps.
#include <cstdio>

#include "bench/merge.hpp"
#include "bench/plan.hpp"
#include "cli/commands.hpp"

namespace gconv::cli {

void register_merge_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "merge",
      "Combine sweep CSV files (e.g. shards): exact duplicate rows are dropped; same key (kernel, spec, provider)\n"
      "with other results and, with --problems, keys missing from the union are reported on stderr.");
  struct Opts {
    std::string out;
    std::vector<std::string> inputs;
    std::string problems, directions, filter;
    int sample = 0;
    bool strict = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("out", o->out, "merged CSV to write")->required();
  cmd->add_option("inputs", o->inputs, "sweep CSV files (.gz/.zst read too)")->required();
  cmd->add_option("--problems", o->problems, "the sweep's problem set: report gconv rows missing from the union");
  cmd->add_option("--directions", o->directions, "as given to gconv bench");
  cmd->add_option("--filter", o->filter, "as given to gconv bench");
  cmd->add_option("--sample", o->sample, "as given to gconv bench");
  cmd->add_flag("--strict", o->strict,
                "exit 1 when there are conflicting duplicates or gaps, and refuse rows of invalid problems (default: "
                "left out and counted)");
  cmd->callback([o] {
    auto fail = [](const std::string& m) {
      std::fprintf(stderr, "gconv merge: %s\n", m.c_str());
      throw CLI::RuntimeError(1);
    };
    std::vector<bench::SweepTable> tables;
    size_t in_rows = 0;
    for (const auto& path : o->inputs) {
      auto t = bench::read_sweep_csv(path);
      if (!t.ok()) fail(t.status().to_string());
      in_rows += t->rows.size();
      tables.push_back(std::move(*t));
    }
    std::set<bench::RowKey> expected;
    if (!o->problems.empty()) {
      auto plan = bench::build_plan({o->problems, o->directions, o->filter, o->sample});
      if (!plan.ok()) fail(plan.status().to_string());
      std::vector<bool> applicable;
      const auto items = bench::candidate_items(*plan, &applicable);
      for (size_t i = 0; i < items.size(); ++i)
        if (applicable[i])
          expected.insert({plan->kernel_names[size_t(items[i].kernel)], plan->specs[size_t(items[i].problem)], "gconv"});
    }
    auto m = bench::merge_sweeps(tables, o->problems.empty() ? nullptr : &expected, o->strict);
    if (!m.ok()) fail(m.status().to_string());
    if (m->invalid.count > 0) std::fprintf(stderr, "gconv merge: %s\n", m->invalid.summary().c_str());
    if (Status s = bench::write_sweep_csv(o->out, m->table); !s.ok()) fail(s.to_string());
    std::fprintf(stderr, "gconv merge: %zu files, %zu rows in, %zu rows out, %zu exact duplicates dropped, %zu conflicting duplicates",
                 tables.size(), in_rows, m->table.rows.size(), m->exact_duplicates, m->conflicts.size());
    if (!o->problems.empty()) std::fprintf(stderr, ", %zu gaps of %zu expected", m->gaps.size(), expected.size());
    std::fprintf(stderr, "\n");
    const size_t show = 10;
    for (size_t i = 0; i < m->conflicts.size() && i < show; ++i)
      std::fprintf(stderr, "gconv merge: duplicate with other results (first kept): %s %s %s\n",
                   std::get<0>(m->conflicts[i]).c_str(), std::get<1>(m->conflicts[i]).c_str(),
                   std::get<2>(m->conflicts[i]).c_str());
    for (size_t i = 0; i < m->gaps.size() && i < show; ++i)
      std::fprintf(stderr, "gconv merge: missing: %s %s\n", std::get<0>(m->gaps[i]).c_str(),
                   std::get<1>(m->gaps[i]).c_str());
    if (m->gaps.size() > show || m->conflicts.size() > show) std::fprintf(stderr, "gconv merge: (first %zu of each listed)\n", show);
    if (o->strict && (!m->conflicts.empty() || !m->gaps.empty())) throw CLI::RuntimeError(1);
  });
}

}  // namespace gconv::cli
