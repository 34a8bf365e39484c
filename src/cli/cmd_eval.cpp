// gconv eval: a trained selector against the measured oracle of each problem
// of sweep CSVs (heuristic/metrics.hpp), beside the analytic policy on the
// same problems. --per-problem and --rows write CSVs; --plots draws them
// (scripts/plot_eval.py: predicted vs measured, efficiency histogram,
// efficiency vs problem size).
#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/plan.hpp"
#include "bench/sweep.hpp"
#include "cli/commands.hpp"
#include "heuristic/candidates.hpp"
#include "heuristic/model.hpp"
#include "heuristic/train.hpp"
#include "report/run_script.hpp"

namespace gconv::cli {
namespace {

struct EvalFlags {
  std::string model, compare, data, per_problem, rows, plots, json, stale_kernels, fresh;
  int candidates = 0;
  bool strict = false;
};

[[noreturn]] void fail(const std::string& m) {
  std::fprintf(stderr, "gconv eval: %s\n", m.c_str());
  throw CLI::RuntimeError(1);
}

}  // namespace

void register_eval_command(CLI::App& app) {
  auto f = std::make_shared<EvalFlags>();
  auto* cmd = app.add_subcommand("eval", "Evaluate a selector model against the measured oracle of sweep CSVs");
  cmd->add_option("--model", f->model,
                  "model folder (gconv train --out), or a folder of models (as select takes: the one trained on "
                  "the data's GPU)")
      ->required();
  cmd->add_option("--compare", f->compare,
                  "a second model (folder or folder of models): both on the same data side by side, with their "
                  "agreement and the per-slice deltas (second - first)");
  cmd->add_option("--data", f->data, "sweep CSV files (comma list), e.g. a validation_holdout sweep")->required();
  cmd->add_option("--per-problem", f->per_problem, "write one CSV row per problem (pick, oracle, efficiency)");
  cmd->add_option("--rows", f->rows, "write one CSV row per measured kernel (predicted and measured ms)");
  cmd->add_option("--plots", f->plots, "folder for PNG plots (needs python3-matplotlib)");
  cmd->add_option("--json", f->json, "write the metrics as JSON to this file");
  cmd->add_option("--candidates", f->candidates,
                  "score only each problem's K best kernels by the analytic estimate plus the analytic best of "
                  "each kernel class, as the registry does with RegistryOptions::model_candidates (32); default 0 = all");
  cmd->add_flag("--strict", f->strict, "a sweep row of an invalid problem is an error (default: skipped and counted)");
  add_stale_rows_options(cmd, &f->stale_kernels, &f->fresh);
  cmd->callback([f] {
    heuristic::LoadStats stats;
    const std::vector<std::string> files = bench::split_list(f->data);
    auto stale = heuristic::make_stale_rows(f->stale_kernels, bench::split_list(f->fresh), files);
    if (!stale.ok()) fail(stale.status().to_string());
    auto d = heuristic::load_sweeps(files, &stats, 2, f->strict, &*stale);
    if (!d.ok()) fail(d.status().to_string());
    std::string model_dir;
    auto sel = heuristic::load_model_for_data(f->model, d->gpu, &model_dir);
    if (!sel.ok()) fail("--model: " + sel.status().to_string());
    const heuristic::Selector& s = **sel;
    const heuristic::GpuProps& g = s.manifest().gpu;
    if (d->gpu != g.name)
      std::fprintf(stderr, "gconv eval: warning: data measured on %s, model trained on %s\n", d->gpu.c_str(),
                   g.name.c_str());
    const DeviceInfo dev = heuristic::device_info_for(g);
    const std::vector<float> analytic = heuristic::analytic_scores(*d, dev);
    // Only the registry's subset is scored (heuristic/candidates.hpp), as
    // selection scores it: a cascade's prefilter ranks the same kernels.
    const std::vector<bool> scored = heuristic::model_candidate_rows(*d, analytic, f->candidates);
    const std::vector<float> scores = heuristic::score_rows(s, *d, scored, g, dev);
    const auto picks = heuristic::evaluate_scores(*d, scores);
    const auto model_slices = heuristic::summarize_slices(*d, picks);
    const auto an_slices = heuristic::summarize_slices(*d, heuristic::evaluate_scores(*d, analytic));
    std::printf("data: %s\nmodel %s (objective %s, trained on %s)\n%s", stats.summary().c_str(), model_dir.c_str(),
                s.manifest().objective.c_str(), g.name.c_str(), heuristic::format_slices(model_slices).c_str());
    std::printf("\nanalytic policy on the same problems\n%s", heuristic::format_slices(an_slices).c_str());
    // The subset's ceiling: only with --candidates (else every row is scored).
    const heuristic::CandidateCoverage cov =
        f->candidates > 0 ? heuristic::candidate_coverage(*d, scored) : heuristic::CandidateCoverage{};
    if (f->candidates > 0)
      std::printf("\ncandidates (analytic top %d + the first of each class): %.1f a problem; the oracle kernel is "
                  "outside them in %.1f%% of the problems; their best reaches %.4f of the oracle on average "
                  "(min %.4f)\n",
                  f->candidates, cov.mean_candidates, 100.0 * cov.oracle_outside, cov.mean_ceiling, cov.min_ceiling);

    // --compare: the second model on the same rows and candidates.
    std::vector<std::pair<std::string, heuristic::Summary>> cmp_slices;
    heuristic::Agreement agreement;
    std::string cmp_dir;
    if (!f->compare.empty()) {
      auto other = heuristic::load_model_for_data(f->compare, d->gpu, &cmp_dir);
      if (!other.ok()) fail("--compare: " + other.status().to_string());
      const heuristic::Selector& s2 = **other;
      if (!(s2.manifest().gpu == g))
        std::fprintf(stderr, "gconv eval: warning: %s was trained on %s, %s on %s\n", cmp_dir.c_str(),
                     s2.manifest().gpu.name.c_str(), model_dir.c_str(), g.name.c_str());
      const auto picks2 = heuristic::evaluate_scores(*d, heuristic::score_rows(s2, *d, scored, g, dev));
      cmp_slices = heuristic::summarize_slices(*d, picks2);
      agreement = heuristic::compare_picks(picks, picks2);
      std::printf("\nmodel comparison on the same problems and candidates\n%s%s",
                  heuristic::format_comparison(model_slices, cmp_slices, model_dir, cmp_dir).c_str(),
                  heuristic::format_agreement(agreement, "a", "b").c_str());
    }

    if (!f->json.empty()) {
      nlohmann::ordered_json j;
      auto put = [](const auto& sl) {
        nlohmann::ordered_json o = nlohmann::ordered_json::object();
        for (const auto& [name, x] : sl)
          o[name] = {{"problems", x.problems}, {"mean", x.mean}, {"median", x.median}, {"p10", x.p10},
                     {"min", x.min},           {"top1", x.top1}, {"top5", x.top5}};
        return o;
      };
      j["model"] = model_dir;
      j["data"] = f->data;
      j["model_slices"] = put(model_slices);
      j["analytic_slices"] = put(an_slices);
      if (f->candidates > 0)
        j["candidates"] = {{"top_k", f->candidates},
                           {"mean_candidates", cov.mean_candidates},
                           {"oracle_outside", cov.oracle_outside},
                           {"mean_ceiling", cov.mean_ceiling},
                           {"min_ceiling", cov.min_ceiling}};
      if (!f->compare.empty()) {
        j["compare"] = {{"model", cmp_dir},
                        {"slices", put(cmp_slices)},
                        {"agreement",
                         {{"problems", agreement.problems},
                          {"same_kernel", agreement.same_kernel},
                          {"tied", agreement.tied},
                          {"model_faster", agreement.a_faster},
                          {"compare_faster", agreement.b_faster}}}};
      }
      std::ofstream jf(f->json);
      jf << j.dump(2) << "\n";
      if (!jf) fail(f->json + ": cannot write");
    }
    const std::string per_problem = !f->per_problem.empty() ? f->per_problem
                                    : !f->plots.empty()     ? f->plots + "/per_problem.csv"
                                                            : "";
    const std::string rows = !f->rows.empty() ? f->rows : !f->plots.empty() ? f->plots + "/rows.csv" : "";
    if (!f->plots.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(f->plots, ec);
      if (ec) fail(f->plots + ": " + ec.message());
    }
    if (!per_problem.empty()) {
      std::ofstream o(per_problem);
      o << "spec,direction,kind,ndim,gflop,oracle_ms,picked_kernel,picked_ms,efficiency,top1\n";
      for (const auto& p : picks) {
        const Problem& pr = d->problems[p.group];
        o << bench::csv_field(d->specs[p.group]) << "," << to_string(pr.direction) << "," << heuristic::kind_of(pr) << "," << pr.ndim
          << "," << pr.flops() / 1e9 << "," << d->best_ms(p.group) << "," << d->kernel_names[p.picked_row] << ","
          << d->time_ms[p.picked_row] << "," << p.efficiency << "," << int(p.top1) << "\n";
      }
      if (!o) fail(per_problem + ": cannot write");
    }
    if (!rows.empty()) {
      std::ofstream o(rows);
      o << "spec,kernel,measured_ms,predicted_ms,score,analytic_score\n";
      for (size_t gi = 0; gi < d->groups(); ++gi)
        for (size_t r = d->begin[gi]; r < d->begin[gi + 1]; ++r)
          o << bench::csv_field(d->specs[gi]) << "," << d->kernel_names[r] << "," << d->time_ms[r] << "," << (scored[r] ? s.predicted_ms(scores[r]) : -1.0)
            << "," << scores[r] << "," << analytic[r] << "\n";
      if (!o) fail(rows + ": cannot write");
    }
    if (!f->plots.empty()) {
      const std::string script = report::source_script("plot_eval.py");
      const int rc = script.empty() ? -1
                                    : report::run_python_script(script, {"--per-problem", per_problem, "--rows", rows,
                                                                         "--out", f->plots});
      if (rc != 0)
        std::fprintf(stderr, "gconv eval: plots skipped (%s); the CSVs are written\n",
                     script.empty()                ? "scripts/plot_eval.py not found"
                     : rc == report::kNoMatplotlib ? "python3 has no matplotlib"
                                                   : "the plotting script failed");
    }
  });
}

}  // namespace gconv::cli
