// gconv train: the learned selector from sweep CSVs (heuristic/train.hpp).
// Prints the out-of-fold metrics of every objective tried and of the
// baselines, and writes the model folder.
#include <cstdio>
#include <memory>
#include <string>

#include "bench/plan.hpp"
#include "cli/commands.hpp"
#include "heuristic/train.hpp"
#include "problem/read_text.hpp"

namespace gconv::cli {
namespace {

struct TrainFlags {
  std::string data, out, gpu, objectives = "reg,rank:pairwise,rank:ndcg", objective, warm_start, revision,
      model_format = "json";
  int candidates = 0, prefilter_keep = 0;
  std::string prefilter, stale_kernels, fresh;
  int folds = 5, rounds = 200, depth = 7, threads = 0, seed = 0;
  double eta = 0.1, subsample = 0.8, colsample = 0.8, min_child_weight = 1;
  bool strict = false;
};

[[noreturn]] void fail(const std::string& m) {
  std::fprintf(stderr, "gconv train: %s\n", m.c_str());
  throw CLI::RuntimeError(1);
}

}  // namespace

void register_train_command(CLI::App& app) {
  auto f = std::make_shared<TrainFlags>();
  auto* cmd = app.add_subcommand(
      "train", "Train the kernel selector on sweep CSVs: GroupKFold-by-shape CV of each objective, then the model");
  cmd->add_option("--data", f->data, "sweep CSV files (comma list; .gz/.zst read)")->required();
  cmd->add_option("--out", f->out, "model folder to write (omit: cross-validate only)");
  cmd->add_option("--gpu", f->gpu, "GPU properties of the machine that measured the data (gconv device > gpu.json)")
      ->required();
  cmd->add_option("--objectives", f->objectives, "objectives to cross-validate: reg, reg_rel, rank:pairwise, rank:ndcg, or none (no cross-validation; needs --objective)");
  cmd->add_option("--objective", f->objective, "train this objective (default: the best out-of-fold mean efficiency)");
  cmd->add_option("--folds", f->folds, "cross-validation folds");
  cmd->add_option("--rounds", f->rounds, "boosting rounds");
  cmd->add_option("--max-depth", f->depth, "tree depth");
  cmd->add_option("--eta", f->eta, "learning rate");
  cmd->add_option("--subsample", f->subsample, "row subsample per tree");
  cmd->add_option("--colsample", f->colsample, "feature subsample per tree");
  cmd->add_option("--min-child-weight", f->min_child_weight, "XGBoost min_child_weight");
  cmd->add_option("--threads", f->threads, "threads (0 = all cores)");
  cmd->add_option("--seed", f->seed, "random seed");
  cmd->add_option("--warm-start", f->warm_start, "continue boosting from this model folder (same feature schema): its objective, its parameters "
                  "(unless given here) and a cascade's prefilter are kept");
  cmd->add_option("--model-format", f->model_format, "json (model.json) or ubj (model.ubj: smaller, loads faster)");
  cmd->add_option("--candidates", f->candidates,
                  "learn only from the rows the registry lets the model score: analytic top K + the best of each "
                  "kernel class (0 = every row)");
  cmd->add_option("--prefilter", f->prefilter,
                  "make a cascade: this (cheaper) model folder ranks the candidates first, the trained model scores "
                  "only its best --prefilter-keep per problem; the output holds a copy of it");
  cmd->add_option("--prefilter-keep", f->prefilter_keep, "candidates the prefilter passes on per problem");
  cmd->add_option("--revision", f->revision, "source revision recorded in the manifest (e.g. git describe)");
  cmd->add_flag("--strict", f->strict, "a sweep row of an invalid problem is an error (default: skipped and counted)");
  add_stale_rows_options(cmd, &f->stale_kernels, &f->fresh);
  cmd->callback([f, cmd] {
    auto gt = problem_io::read_text_file(f->gpu);
    if (!gt.ok()) fail(gt.status().to_string());
    auto g = heuristic::gpu_props_from_json(*gt);
    if (!g.ok()) fail(f->gpu + ": " + g.status().to_string());
    heuristic::TrainOptions o;
    o.data = bench::split_list(f->data);
    o.strict = f->strict;
    o.stale_kernels = f->stale_kernels;
    o.fresh = bench::split_list(f->fresh);
    o.out = f->out;
    o.gpu = *g;
    // 'none': no cross-validation, only the final model of --objective
    // (quick experiments; a shipped model keeps its out-of-fold metrics).
    o.objectives = f->objectives == "none" ? std::vector<std::string>{} : bench::split_list(f->objectives);
    o.objective = f->objective;
    if (o.objectives.empty() && o.objective.empty()) fail("--objectives none needs --objective");
    if (!o.objective.empty() && f->objectives != "none") {
      bool listed = false;
      for (const auto& x : o.objectives) listed |= x == o.objective;
      if (!listed) o.objectives.push_back(o.objective);
    }
    for (const auto& x : o.objectives)
      if (x != "reg" && x != "reg_rel" && x != "rank:pairwise" && x != "rank:ndcg")
        fail("unknown objective '" + x + "' (reg, reg_rel, rank:pairwise, rank:ndcg)");
    o.folds = f->folds;
    o.params.rounds = f->rounds;
    o.params.max_depth = f->depth;
    o.params.eta = f->eta;
    o.params.subsample = f->subsample;
    o.params.colsample = f->colsample;
    o.params.min_child_weight = f->min_child_weight;
    o.params.threads = f->threads;
    o.params.seed = f->seed;
    o.warm_start = f->warm_start;
    // Parameters given on the command line override a warm start's.
    for (auto [flag, field] : {std::pair{"--max-depth", "max_depth"}, {"--eta", "eta"}, {"--subsample", "subsample"},
                               {"--colsample", "colsample"}, {"--min-child-weight", "min_child_weight"},
                               {"--seed", "seed"}})
      if (cmd->count(flag) > 0) o.params_given.insert(field);
    o.source_revision = f->revision;
    o.model_format = f->model_format;
    o.candidates = f->candidates;
    o.prefilter = f->prefilter;
    o.prefilter_keep = f->prefilter_keep;
    auto r = heuristic::train_selector(o);
    if (!r.ok()) fail(r.status().to_string());
    std::printf("%s", r->text().c_str());
    if (!o.out.empty()) std::printf("\nmodel: %s (objective %s)\n", o.out.c_str(), r->chosen.c_str());
  });
}

}  // namespace gconv::cli
