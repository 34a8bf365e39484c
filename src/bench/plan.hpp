// The work list of a sweep: problems (a set, optionally re-run in several
// directions), kernels (the pools of the needed direction/dtype pairs, after a
// filter) and the items to measure, sharded deterministically.
//
// Item order is problem-major so that a worker re-uses its filled buffers.
// Sharding (--shard i/n) keeps the items whose key (kernel, spec) hashes
// (FNV-1a, stable across runs and machines) to i mod n, so shards of one sweep
// are disjoint, cover it, and stay balanced whatever the problem order.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

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
};

Result<Plan> build_plan(const PlanOptions& o);

struct Shard {
  int index = 0, count = 1;
};
// "i/n" with 0 <= i < n.
Result<Shard> parse_shard(const std::string& s);
uint64_t fnv1a(const std::string& s);
bool in_shard(const Shard& s, const std::string& kernel, const std::string& spec);

// Every (problem, kernel) pair whose kernel has the problem's direction,
// dtype and ndim; `applicable` (may be null) receives can_implement for each.
// With Plan::sample > 0, only the sampled applicable pairs (all `true`).
std::vector<WorkItem> candidate_items(const Plan& plan, std::vector<bool>* applicable);

// "a,b,c" -> {"a","b","c"} (empty parts dropped).
std::vector<std::string> split_list(const std::string& s);

}  // namespace gconv::bench
