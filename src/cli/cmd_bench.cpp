// gconv bench: time kernels x problems and write one CSV row per pair
// (schema in src/bench/sweep.hpp). The parent process plans the work (problem
// set, pools, shard, resume) and hands items to `gconv bench-worker` child
// processes (src/bench/supervisor.hpp), so a faulting kernel costs one row.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <sstream>

#include "bench/cudnn_provider.hpp"
#include "bench/phases.hpp"
#include "bench/pick_summary.hpp"
#include "bench/plan.hpp"
#include "bench/progress.hpp"
#include "bench/supervisor.hpp"
#include "bench/sweep.hpp"
#include "cli/commands.hpp"
#include "gconv/registry.hpp"
#include "heuristic/train.hpp"
#include "perf/sweep_csv.hpp"
#include "runtime/instance.hpp"

namespace gconv::cli {
namespace {

// Options shared by the parent and its workers: both must build the same plan
// so that item indices mean the same thing.
struct CommonOpts {
  std::string problems, directions, filter, check = "first";
  int warmup = 3, repeats = 10;
  bool no_flush = false;
};

void add_common(CLI::App* cmd, CommonOpts& o) {
  cmd->add_option("--problems", o.problems,
                  "problem set name (see problems/README.md) or file (CSV, JSONL or specs; direction and dtype per row)")
      ->required();
  cmd->add_option("--directions", o.directions,
                  "run every problem in these directions instead of its own: all, or a comma list");
  cmd->add_option("--filter", o.filter, "kernel filter expression, e.g. 'family==igemm && stages>=3'");
  cmd->add_option("--check", o.check, "compare with the naive GPU kernel: none, first (each kernel's first problem), all");
  cmd->add_option("--warmup", o.warmup, "warm-up launches per measurement");
  cmd->add_option("--repeats", o.repeats, "timed launches per measurement (median reported)");
  cmd->add_flag("--no-flush", o.no_flush, "do not flush L2 between repetitions");
}

std::vector<std::string> common_args(const CommonOpts& o) {
  std::vector<std::string> a = {"--problems", o.problems, "--check", o.check, "--warmup", std::to_string(o.warmup),
                                "--repeats", std::to_string(o.repeats)};
  if (!o.directions.empty()) a.insert(a.end(), {"--directions", o.directions});
  if (!o.filter.empty()) a.insert(a.end(), {"--filter", o.filter});
  if (o.no_flush) a.push_back("--no-flush");
  return a;
}

[[noreturn]] void fail(const char* cmd, const std::string& m) {
  std::fprintf(stderr, "gconv %s: %s\n", cmd, m.c_str());
  throw CLI::RuntimeError(1);
}

bench::SweepOptions sweep_options(const CommonOpts& o, const char* cmd) {
  bench::SweepOptions so;
  so.timing.warmup = o.warmup;
  so.timing.repeats = o.repeats;
  so.timing.flush_l2 = !o.no_flush;
  if (o.check == "none") so.check = bench::CheckMode::none;
  else if (o.check == "all") so.check = bench::CheckMode::all;
  else if (o.check != "first") fail(cmd, "--check must be none, first or all");
  return so;
}

const std::vector<std::string> kProviders = {"gconv", "cudnn"};

int provider_index(const std::string& name) {
  for (size_t i = 0; i < kProviders.size(); ++i)
    if (kProviders[i] == name) return int(i);
  return -1;
}

// The hidden worker: reads "problem kernel provider" lines on stdin, answers
// each with CSV rows and "#end" (protocol in bench/supervisor.hpp).
void run_worker(const CommonOpts& o) {
  const bench::SweepOptions so = sweep_options(o, "bench-worker");
  auto plan = bench::build_plan({o.problems, o.directions, o.filter});
  if (!plan.ok()) fail("bench-worker", plan.status().to_string());
  auto worker = bench::SweepWorker::create(so);
  if (!worker.ok()) fail("bench-worker", worker.status().to_string());
  const std::string gpu = bench::device_name();
  // Test hook for the crash-isolation test: this kernel's item kills the worker.
  const char* fault_env = std::getenv("GCONV_TEST_FAULT_KERNEL");
  const std::string fault = fault_env ? fault_env : "";
  std::printf("#ready\n");
  std::fflush(stdout);
  // Phase accounting (bench/phases.hpp): a handful of clock reads an item.
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point& mark) {
    const auto now = clock::now();
    const double s = std::chrono::duration<double>(now - mark).count();
    mark = now;
    return s;
  };
  auto mark = clock::now();  // the end of the previous item's phases line (or #ready)
  std::string line;
  while (std::getline(std::cin, line)) {
    bench::ItemPhases ph;
    ph[bench::Phase::wait] = since(mark);  // the parent's work, the pipes, flushing our last answer
    std::istringstream in(line);
    int pi = -1, ki = -1, prov = 0;
    in >> pi >> ki >> prov;
    if (pi < 0 || size_t(pi) >= plan->problems.size() || (ki >= 0 && size_t(ki) >= plan->kernels.size()) ||
        prov < 0 || size_t(prov) >= kProviders.size())
      fail("bench-worker", "bad work item '" + line + "'");
    const ProblemEntry& e = plan->problems[size_t(pi)];
    Status sticky;
    if (ki >= 0) {
      if (!fault.empty() && plan->kernel_names[size_t(ki)] == fault) {
        const rlimit no_core{0, 0};  // a core dump of a CUDA process is large and slow
        setrlimit(RLIMIT_CORE, &no_core);
        std::raise(SIGSEGV);
      }
      bench::SweepRow row;
      mark = clock::now();
      sticky = (*worker)->run(plan->kernels[size_t(ki)], e, &row, &ph);
      mark = clock::now();
      std::printf("%s\n", bench::sweep_csv_row(row, gpu).c_str());
      ph[bench::Phase::output] += since(mark);
    } else if (kProviders[size_t(prov)] == "cudnn") {
      mark = clock::now();
      auto pb = (*worker)->buffers_for(e.problem);
      if (!pb.ok()) {
        sticky = pb.status();
      } else {
        bench::DeviceBuffers db{pb->a, pb->b, pb->out, nullptr, 0};
        sticky = bench::run_cudnn_rows(e.problem, db, so.timing, [&](const bench::SweepRow& r) {
          bench::SweepRow x = r;
          x.provider = "cudnn";
          x.source = e.source;
          x.problem = e.problem;
          std::printf("%s\n", bench::sweep_csv_row(x, gpu).c_str());
        });
      }
      if (!sticky.ok()) {  // no rows: one error row so the problem is not lost
        bench::SweepRow x;
        x.kernel = "cudnn";
        x.provider = "cudnn";
        x.spec = plan->specs[size_t(pi)];
        x.source = e.source;
        x.problem = e.problem;
        x.status = sticky.code() == StatusCode::not_supported ? "unsupported" : "launch_error";
        x.check = sticky.message().substr(0, 200);
        std::printf("%s\n", bench::sweep_csv_row(x, gpu).c_str());
        if (sticky.code() != StatusCode::cuda_error && sticky.code() != StatusCode::no_device) sticky = Status::Ok();
      }
      ph[bench::Phase::provider] += since(mark);
    }
    std::printf("%s\n", bench::encode_phases(ph).c_str());
    mark = clock::now();
    if (!sticky.ok()) std::printf("#retire\n");  // no further item may be sent to this process
    std::printf("#end\n");
    std::fflush(stdout);
    if (!sticky.ok()) {
      // The context is unusable: end this worker; the parent starts a new one.
      std::fprintf(stderr, "gconv bench-worker: %s; restarting\n", sticky.to_string().c_str());
      std::exit(3);
    }
  }
}

struct BenchOpts {
  CommonOpts c;
  std::string out, shard, devices, provider = "gconv", worker_cmd;
  int jobs = 0, sample = 0;
  std::string pairs, policy, model, phase_trace;
  double timeout_s = 10, progress_s = 30;
  bool write_unsupported = false;
};

// Per problem, the kernels `policy` would run: its pick (heuristic,
// analytic) or the K candidates it would measure (topk:K), as indices into
// plan.kernels. The registry ranks without a GPU; a pick outside the plan's
// pools (the fallback kernel) leaves the problem without gconv items.
Result<std::vector<std::vector<int>>> policy_picks(const bench::Plan& plan, const Policy& policy,
                                                   const std::string& filter, const std::string& model) {
  if (!model.empty() && model != "off")
    if (auto kind = heuristic::model_folder_kind(model); !kind.ok())
      return Status(kind.status().code(), "--model: " + kind.status().message());
  RegistryOptions ro;
  ro.kernel_filter = filter;
  ro.tuning_cache_path = "off";  // the policy's own choice, not an earlier measurement
  ro.model_dir = model;
  auto reg = Registry::create(ro);
  if (!reg.ok()) return reg.status();
  std::unordered_map<std::string, int> index;
  for (size_t k = 0; k < plan.kernel_names.size(); ++k) index.emplace(plan.kernel_names[k], int(k));
  std::vector<std::vector<int>> picks(plan.problems.size());
  size_t outside = 0;
  for (size_t pi = 0; pi < plan.problems.size(); ++pi) {
    const Problem& p = plan.problems[pi].problem;
    std::vector<std::string> names;
    if (policy.kind == Policy::Kind::topk) {
      auto r = (*reg)->rank(p, policy, size_t(policy.k));
      if (!r.ok()) return r.status();
      for (const auto& s : *r) names.push_back(s.kernel);
    } else {
      auto s = (*reg)->select(p, policy);
      if (!s.ok()) return s.status();
      names.push_back(s->kernel);
    }
    for (const auto& n : names) {
      auto it = index.find(n);
      if (it == index.end()) {
        ++outside;
        continue;
      }
      picks[pi].push_back(it->second);
    }
  }
  if (outside)
    std::fprintf(stderr, "gconv bench: --policy %s: %zu picks are not pool kernels (the fallback): not timed\n",
                 policy.to_string().c_str(), outside);
  return picks;
}

void run_bench(const BenchOpts& o) {
  const char* cmd = "bench";
  sweep_options(o.c, cmd);  // validates --check
  std::vector<int> providers;
  for (const auto& p : bench::split_list(o.provider)) {
    const int i = provider_index(p);
    if (i < 0) fail(cmd, "--provider: unknown provider '" + p + "' (gconv, cudnn)");
    providers.push_back(i);
  }
  if (providers.empty()) fail(cmd, "--provider: empty list");
  bench::Shard shard;
  if (!o.shard.empty()) {
    auto s = bench::parse_shard(o.shard);
    if (!s.ok()) fail(cmd, s.status().to_string());
    shard = *s;
  }
  if (!o.model.empty() && o.policy.empty()) fail(cmd, "--model is for --policy heuristic");
  if (!o.model.empty() && o.model != "off")  // before any file is touched
    if (auto kind = heuristic::model_folder_kind(o.model); !kind.ok()) fail(cmd, "--model: " + kind.status().message());
  auto plan_r = bench::build_plan({o.c.problems, o.c.directions, o.c.filter, o.sample, o.pairs});
  if (!plan_r.ok()) fail(cmd, plan_r.status().to_string());
  const bench::Plan& plan = *plan_r;
  if (plan.duplicates > 0)
    std::fprintf(stderr, "gconv bench: %zu repeated problems of %s are measured once\n", plan.duplicates,
                 o.c.problems.c_str());

  // Without a GPU every worker would fail to start: say why before any
  // file is touched (the test hook's workers need none).
  const std::string gpu = bench::device_name();
  if (gpu == "none" && o.worker_cmd.empty())
    fail(cmd, "no CUDA device: gconv bench times kernels on a GPU (nothing was written)");

  // Output (resume: keys already in the file are skipped).
  std::set<bench::RowKey> done;
  const std::string header = bench::sweep_csv_header();
  const bool to_file = !o.out.empty() && o.out != "-";
  if (to_file) {
    size_t torn = 0;
    Status s = bench::prepare_append(o.out, header, &done, &torn);
    if (!s.ok()) fail(cmd, s.to_string());
    if (torn) std::fprintf(stderr, "gconv bench: %s: removed a torn last line (%zu bytes)\n", o.out.c_str(), torn);
    if (!done.empty()) std::fprintf(stderr, "gconv bench: %s: resuming, %zu rows already there\n", o.out.c_str(), done.size());
  }
  bench::RowWriter writer;
  if (Status s = writer.open(to_file ? o.out : ""); !s.ok()) fail(cmd, s.to_string());
  if (!to_file) (void)writer.write_line(header);
  std::set<std::pair<std::string, std::string>> provider_done;  // (spec, provider) of non-gconv rows
  for (const auto& [k, spec, prov] : done)
    if (prov != "gconv") provider_done.insert({spec, prov});

  // Work list: each problem's provider items, then its gconv items.
  std::vector<bool> applicable;
  std::vector<bench::WorkItem> cands = bench::candidate_items(plan, &applicable);
  std::optional<Policy> policy;
  std::set<std::pair<std::string, std::string>> picked;  // (kernel, spec) the policy runs
  if (!o.policy.empty()) {
    auto pol = Policy::parse(o.policy);
    if (!pol.ok()) fail(cmd, "--policy: " + pol.status().to_string());
    if (pol->kind == Policy::Kind::exhaustive) fail(cmd, "--policy exhaustive: that is a plain gconv bench (every kernel)");
    policy = *pol;
    auto picks = policy_picks(plan, *policy, o.c.filter, o.model);
    if (!picks.ok()) fail(cmd, picks.status().to_string());
    bench::keep_picks(*picks, &cands, &applicable);
    for (size_t pi = 0; pi < picks->size(); ++pi)
      for (int k : (*picks)[pi]) picked.insert({plan.kernel_names[size_t(k)], plan.specs[pi]});
  }
  const bench::WorkList work = bench::order_work(
      plan, cands, applicable, kProviders, providers, shard,
      [&](const std::string& kernel, const std::string& spec, const std::string& prov) {
        return prov == "gconv" ? done.count({kernel, spec, prov}) > 0 : provider_done.count({spec, prov}) > 0;
      });
  const std::vector<bench::WorkItem>& items = work.items;
  const size_t skipped = work.skipped;
  size_t unsupported = 0;
  if (o.write_unsupported)
    for (const auto& it : work.unsupported) {
      ++unsupported;
      (void)writer.write_line(bench::sweep_csv_row(
          bench::make_row(plan.kernels[size_t(it.kernel)], plan.problems[size_t(it.problem)], "unsupported"), gpu));
    }
  std::fprintf(stderr, "gconv bench: %zu problems x %zu kernels, shard %d/%d: %zu items (%zu done before, %zu unsupported) on %s\n",
               plan.problems.size(), plan.kernels.size(), shard.index, shard.count, items.size(), skipped,
               unsupported, gpu.c_str());

  // Compile ahead (parallel, into the disk cache) so the per-item timeout
  // measures runs, not NVRTC. Failures show up as compile_error rows.
  if (o.worker_cmd.empty()) {
    std::set<int> used;
    for (const auto& it : items)
      if (it.kernel >= 0) used.insert(it.kernel);
    std::vector<KernelTraits> to_build;
    for (int k : used) to_build.push_back(plan.kernels[size_t(k)]);
    if (!to_build.empty()) prebuild(to_build, o.jobs);
  }

  // Workers: one slot per device (CUDA_VISIBLE_DEVICES), or one default slot.
  bench::SupervisorOptions so;
  so.timeout_s = o.timeout_s;
  std::vector<std::string> argv;
  if (!o.worker_cmd.empty()) {
    std::istringstream in(o.worker_cmd);
    for (std::string w; in >> w;) argv.push_back(w);
  } else {
    argv = {bench::self_executable(), "bench-worker"};
    for (auto& a : common_args(o.c)) argv.push_back(a);
  }
  const auto devices = bench::split_list(o.devices);
  if (devices.empty()) so.slots.push_back({argv, {}});
  for (const auto& d : devices) so.slots.push_back({argv, {{"CUDA_VISIBLE_DEVICES", d}}});

  const auto cols = bench::sweep_csv_columns();
  int status_col = -1, lat_col = -1, spec_col = -1, prov_col = -1;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i] == "status") status_col = int(i);
    if (cols[i] == "latency_ms") lat_col = int(i);
    if (cols[i] == "spec") spec_col = int(i);
    if (cols[i] == "provider") prov_col = int(i);
  }
  bench::PickTable picks(plan);
  if (policy && to_file && !done.empty()) {
    // A resumed run: the rows measured before count in the summary too (of
    // gconv, only the policy's picks: the file may hold a full sweep).
    auto before = bench::read_sweep_csv(o.out);
    if (!before.ok()) fail(cmd, before.status().to_string());
    for (size_t i = 0; i < before->rows.size(); ++i) {
      const std::string& prov = before->get(i, "provider");
      if (prov == "gconv" && !picked.count({before->get(i, "kernel"), before->get(i, "spec")})) continue;
      picks.add_row(before->get(i, "spec"), prov, before->get(i, "status"),
                    std::atof(before->get(i, "latency_ms").c_str()));
    }
  }
  size_t n_done = 0, failed = 0, rows = 0, ok_rows = 0;
  double timed_ms = 0;
  // Where the time went (bench/phases.hpp): the workers' per-item phases,
  // summed here; with --phase-trace also each item's line.
  bench::PhaseTotals phases;
  std::ofstream trace;
  if (!o.phase_trace.empty()) {
    trace.open(o.phase_trace, std::ios::trunc);
    if (!trace) fail(cmd, "--phase-trace: cannot write " + o.phase_trace);
    trace << bench::phase_trace_header() << "\n";
  }
  bench::Progress progress(items.size(), o.progress_s);
  Status io;
  auto encode = [&](size_t i) {
    const auto& it = items[i];
    return std::to_string(it.problem) + " " + std::to_string(it.kernel) + " " + std::to_string(it.provider);
  };
  bench::SupervisorStats sup_stats;
  Status s = bench::run_supervised(items.size(), encode, so, [&](size_t i, const bench::ItemResult& r) {
    const auto parent_t0 = std::chrono::steady_clock::now();
    const auto& it = items[i];
    if (bench::ItemPhases ph; !r.phases.empty() && bench::parse_phases(r.phases, &ph)) {
      phases.add(ph);
      if (trace.is_open())
        trace << bench::phase_trace_row(i, kProviders[size_t(it.provider)],
                                        it.kernel >= 0 ? plan.kernel_names[size_t(it.kernel)] : "",
                                        plan.specs[size_t(it.problem)], ph)
              << "\n";
    }
    std::vector<std::string> lines = r.lines;
    if (!r.failure.empty()) {
      bench::SweepRow row;
      if (it.kernel >= 0) {
        row = bench::make_row(plan.kernels[size_t(it.kernel)], plan.problems[size_t(it.problem)], r.failure, r.detail);
      } else {
        row.kernel = row.provider = kProviders[size_t(it.provider)];
        row.spec = plan.specs[size_t(it.problem)];
        row.source = plan.problems[size_t(it.problem)].source;
        row.problem = plan.problems[size_t(it.problem)].problem;
        row.status = r.failure;
        row.check = r.detail;
      }
      lines = {bench::sweep_csv_row(row, gpu)};
    }
    bool item_failed = false;
    for (const auto& line : lines) {
      Status w = writer.write_line(line);
      if (!w.ok() && io.ok()) io = w;
      ++rows;
      const auto f = bench::split_csv_line(line);
      if (f.size() != cols.size()) continue;
      picks.add_row(f[size_t(spec_col)], f[size_t(prov_col)], f[size_t(status_col)],
                    std::atof(f[size_t(lat_col)].c_str()));
      if (f[size_t(status_col)] == "ok") {
        ++ok_rows;
        timed_ms += std::atof(f[size_t(lat_col)].c_str()) * o.c.repeats;
      } else if (f[size_t(status_col)] != "unsupported") {
        item_failed = true;
      }
    }
    failed += item_failed;
    progress.update(++n_done, failed);
    phases.parent_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - parent_t0).count();
  }, &sup_stats);
  progress.finish(n_done, failed);
  const double wall = progress.elapsed_s();
  std::fprintf(stderr,
               "gconv bench: %zu rows (%zu ok), %.1f measurements/s, %.1f%% of wall time inside timed kernels\n",
               rows, ok_rows, wall > 0 ? double(ok_rows) / wall : 0.0, wall > 0 ? 100.0 * timed_ms / 1e3 / wall : 0.0);
  phases.workers_started = sup_stats.workers_started;
  phases.startup_s = sup_stats.startup_s;
  if (!items.empty()) std::fprintf(stderr, "gconv bench: %s\n", phases.summary(wall, so.slots.size()).c_str());
  if (trace.is_open()) {
    trace.close();
    if (!trace) std::fprintf(stderr, "gconv bench: --phase-trace %s: write failed\n", o.phase_trace.c_str());
  }
  if (policy) {
    std::string prov_names;
    for (int p : providers)
      if (kProviders[size_t(p)] != "gconv") prov_names += (prov_names.empty() ? "" : ",") + kProviders[size_t(p)];
    std::fputs(bench::format_pick_summary(bench::summarize_picks(picks.results()), policy->to_string(),
                                          prov_names.empty() ? "(no provider)" : prov_names)
                   .c_str(),
               stderr);
  }
  if (!s.ok()) fail(cmd, s.to_string());
  if (!io.ok()) fail(cmd, io.to_string());
}

}  // namespace

void register_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bench",
      "Time every applicable pool kernel on every problem of a set (CSV out; columns in src/bench/sweep.hpp).\n"
      "Items run in worker processes: a crash or hang becomes a 'crashed'/'timeout' row and the sweep goes on.\n"
      "With --out the file is appended to and resumed: rows already there (kernel, spec, provider) are skipped.");
  auto o = std::make_shared<BenchOpts>();
  add_common(cmd, o->c);
  cmd->add_option("--out", o->out, "CSV output, appended to and resumed (default stdout, no resume)");
  cmd->add_option("--shard", o->shard, "i/n: measure only slice i of n (by hash of kernel and problem); see gconv merge");
  cmd->add_option("--devices", o->devices, "comma list of GPU ids: one worker per GPU, items handed out dynamically");
  cmd->add_option("--provider", o->provider, "timing providers, comma list: gconv (default), cudnn, gconv,cudnn");
  cmd->add_option("--timeout-s", o->timeout_s, "per-item time limit in seconds; the worker is killed (row 'timeout')");
  cmd->add_flag("--write-unsupported", o->write_unsupported,
                "also write 'unsupported' rows for kernels that cannot implement a problem (off: smaller files)");
  cmd->add_option("--jobs", o->jobs, "parallel NVRTC compiles before the sweep (0 = all cores)");
  cmd->add_option("--pairs", o->pairs,
                  "CSV with columns kernel and spec (e.g. a sweep): measure only those pairs (and providers)");
  cmd->add_option("--sample", o->sample,
                  "kernels per problem: a deterministic uniform sample of the applicable ones (0 = all; for training sweeps)");
  cmd->add_option("--policy", o->policy,
                  "time only what a selection policy picks per problem (heuristic, analytic, topk:K: its K\n"
                  "candidates) beside the providers, and end with gconv pick / provider best per direction and network");
  cmd->add_option("--model", o->model, "a model folder, or a folder of models (the one for this GPU), for --policy heuristic (default "
                  "models/; 'off': none)");
  cmd->add_option("--progress-s", o->progress_s, "seconds between progress lines when stderr is not a terminal");
  cmd->add_option("--phase-trace", o->phase_trace,
                  "CSV of each item's host phases in microseconds (wait, lookup, fill, ...; README, Running a sweep)");
  cmd->add_option("--worker-cmd", o->worker_cmd, "test hook: worker command line (space-separated)")->group("");
  cmd->callback([o] { run_bench(*o); });

  // The worker side; not for direct use.
  auto* worker = app.add_subcommand("bench-worker", "internal: one gconv bench worker process");
  worker->group("");
  auto wo = std::make_shared<CommonOpts>();
  add_common(worker, *wo);
  worker->callback([wo] { run_worker(*wo); });
}

}  // namespace gconv::cli
