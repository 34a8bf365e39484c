// The work list of a sweep: problems (a set, optionally re-run in several
// directions), kernels (the pools of the needed direction/dtype pairs, after a
// filter) and the items to measure, sharded deterministically.
//
// Item order is problem-major so that a worker re-uses its filled buffers,
// and a problem's provider items (cuDNN) come with it (order_work).
// Sharding (--shard i/n) keeps the items whose key (kernel, spec) hashes
// (FNV-1a, stable across runs and machines) to i mod n, so shards of one sweep
// are disjoint, cover it, and stay balanced whatever the problem order.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/fnv1a.hpp"  // fnv1a: the shard and sample hash
#include "gconv/problem_file.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"

namespace gconv::bench {

struct PlanOptions {
  std::string problems;    // set name or file
  std::string directions;  // "", "all" or a comma list
  std::string filter;      // kernel filter expression ("" = all)
  // Kernels per problem (0 = every applicable one): a deterministic, uniform
  // sample of the applicable kernels (those whose FNV-1a hash of
  // "kernel|spec|sample" is smallest), for training sweeps that want many
  // shapes more than every kernel of each. Sampled-out pairs are not items.
  int sample = 0;
  // A CSV with columns kernel and spec (a sweep file will do): only those
  // (kernel, problem) pairs are items ("" = every pair). Re-times a chosen
  // set, e.g. each problem's best kernels of an earlier sweep, in a new run.
  std::string pairs;
};

// One unit of work: kernel index -1 means a provider's own row set for the
// problem (e.g. cudnn), keyed by provider.
struct WorkItem {
  int problem = 0;
  int kernel = -1;
  int provider = 0;  // index into Plan::providers
};

struct Plan {
  std::vector<ProblemEntry> problems;
  std::vector<KernelTraits> kernels;
  std::vector<std::string> kernel_names;  // kernel_name(kernels[i])
  std::vector<std::string> specs;         // problems[i].problem.to_spec()
  int sample = 0;                         // PlanOptions::sample
  std::set<std::string> pairs;            // "kernel|spec" of PlanOptions::pairs; empty = all
  size_t duplicates = 0;                  // repeated problems of the file, planned once (the first)
};

Result<Plan> build_plan(const PlanOptions& o);

struct Shard {
  int index = 0, count = 1;
};
// "i/n" with 0 <= i < n.
Result<Shard> parse_shard(const std::string& s);
bool in_shard(const Shard& s, const std::string& kernel, const std::string& spec);

// Every (problem, kernel) pair whose kernel has the problem's direction,
// dtype and ndim; `applicable` (may be null) receives can_implement for each.
// With Plan::sample > 0, only the sampled applicable pairs (all `true`).
std::vector<WorkItem> candidate_items(const Plan& plan, std::vector<bool>* applicable);

// The ordered work list of a sweep. `providers` are indices into
// `provider_names`; "gconv" measures kernels (the pairs of `cands`, with
// `applicable` from candidate_items), any other name is a provider with one
// item per problem (kernel -1). Order: problem by problem, each problem's
// provider items first, then its gconv items in pool order, so that any
// prefix of a sweep (one stopped by a time limit) holds the providers' rows
// of every problem it has gconv rows of. Pairs outside `shard`, and those
// `done` says are in the output already (kernel or provider name, spec,
// provider), are left out (counted in `skipped`); gconv pairs the kernel
// cannot implement go to `unsupported` instead of `items`.
struct WorkList {
  std::vector<WorkItem> items;
  std::vector<WorkItem> unsupported;
  size_t skipped = 0;
};
using DoneFn = std::function<bool(const std::string& kernel, const std::string& spec, const std::string& provider)>;
WorkList order_work(const Plan& plan, const std::vector<WorkItem>& cands, const std::vector<bool>& applicable,
                    const std::vector<std::string>& provider_names, const std::vector<int>& providers,
                    const Shard& shard, const DoneFn& done);

// Keeps the gconv pairs of `cands` (and their `applicable` flags) whose
// kernel is one of picks[problem] (kernel indices into plan.kernels; an
// empty list keeps none of that problem's): a sweep of only what a
// selection policy would run (gconv bench --policy).
void keep_picks(const std::vector<std::vector<int>>& picks, std::vector<WorkItem>* cands,
                std::vector<bool>* applicable);

// "a,b,c" -> {"a","b","c"} (empty parts dropped).
std::vector<std::string> split_list(const std::string& s);

}  // namespace gconv::bench
