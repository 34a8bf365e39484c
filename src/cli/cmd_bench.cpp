// gconv bench: time kernels x problems and write one CSV row per pair.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>

#include "bench/sweep.hpp"
#include "cli/commands.hpp"
#include "gconv/problem_file.hpp"
#include "gconv/problem_sets.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool/pool.hpp"

namespace gconv::cli {

void register_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time every applicable pool kernel on every problem of a file (CSV out)");
  struct Opts {
    std::string problems, out, filter, check = "first", directions;
    int warmup = 3, repeats = 10, jobs = 0;
    bool no_flush = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--problems", o->problems,
                  "problem set name (see problems/README.md) or file (CSV, JSONL or specs; direction and dtype per row)")
      ->required();
  cmd->add_option("--directions", o->directions,
                  "run every problem in these directions instead of its own: all, or a comma list");
  cmd->add_option("--out", o->out, "CSV output (default stdout)");
  cmd->add_option("--filter", o->filter, "kernel filter expression, e.g. 'family==igemm && stages>=3'");
  cmd->add_option("--check", o->check, "compare with the naive GPU kernel: none, first (each kernel's first problem), all");
  cmd->add_option("--warmup", o->warmup, "warm-up launches per measurement");
  cmd->add_option("--repeats", o->repeats, "timed launches per measurement (median reported)");
  cmd->add_option("--jobs", o->jobs, "parallel NVRTC compiles (0 = all cores)");
  cmd->add_flag("--no-flush", o->no_flush, "do not flush L2 between repetitions");
  cmd->callback([o] {
    auto fail = [](const std::string& m) {
      std::fprintf(stderr, "gconv bench: %s\n", m.c_str());
      throw CLI::RuntimeError(1);
    };
    auto path = resolve_problem_set(o->problems);
    if (!path.ok()) fail(path.status().to_string());
    auto problems = read_problem_file(*path);
    if (!problems.ok()) fail(problems.status().to_string());
    if (!o->directions.empty()) {
      std::vector<Direction> dirs;
      std::string list = o->directions == "all" ? "fwd,bwd_data,bwd_weight" : o->directions;
      for (size_t start = 0; start <= list.size();) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        auto d = parse_direction(list.substr(start, end - start));
        if (!d.ok()) fail(d.status().to_string());
        dirs.push_back(*d);
        start = end + 1;
      }
      std::vector<ProblemEntry> expanded;
      for (const auto& e : *problems)
        for (Direction d : dirs) {
          ProblemEntry x = e;
          x.problem.direction = d;
          expanded.push_back(x);
        }
      *problems = std::move(expanded);
    }
    auto rules = load_default_arch_rules();
    if (!rules.ok()) fail(rules.status().to_string());
    std::optional<Filter> filter;
    if (!o->filter.empty()) {
      auto f = Filter::parse(o->filter);
      if (!f.ok()) fail(f.status().to_string());
      filter = *f;
    }
    std::set<std::pair<Direction, DType>> needed;
    for (const auto& e : *problems) needed.insert({e.problem.direction, e.problem.dtype});
    std::vector<KernelTraits> kernels;
    for (auto [d, t] : needed) {
      auto pool = load_pool(*rules, d, t);
      if (!pool.ok()) fail(pool.status().to_string());
      for (const auto& k : *pool)
        if (!filter || filter->matches(*rules, k)) kernels.push_back(k);
    }
    bench::SweepOptions so;
    so.timing.warmup = o->warmup;
    so.timing.repeats = o->repeats;
    so.timing.flush_l2 = !o->no_flush;
    so.jobs = o->jobs;
    if (o->check == "none") so.check = bench::CheckMode::none;
    else if (o->check == "all") so.check = bench::CheckMode::all;
    else if (o->check != "first") fail("--check must be none, first or all");
    std::ofstream file;
    if (!o->out.empty()) {
      file.open(o->out);
      if (!file) fail("cannot write " + o->out);
    }
    std::ostream& os = o->out.empty() ? std::cout : file;
    const std::string gpu = bench::device_name();
    os << bench::sweep_csv_header() << "\n";
    size_t rows = 0, bad = 0;
    std::fprintf(stderr, "gconv bench: %zu problems x %zu kernels on %s\n", problems->size(), kernels.size(),
                 gpu.c_str());
    Status s = bench::run_sweep(*problems, kernels, so, [&](const bench::SweepRow& r) {
      os << bench::sweep_csv_row(r, gpu) << "\n";
      os.flush();
      ++rows;
      if (r.status != "ok") ++bad;
      if (rows % 1000 == 0) std::fprintf(stderr, "gconv bench: %zu rows, %zu not ok\n", rows, bad);
    });
    std::fprintf(stderr, "gconv bench: %zu rows, %zu not ok\n", rows, bad);
    if (!s.ok()) fail(s.to_string());
  });
}

}  // namespace gconv::cli
