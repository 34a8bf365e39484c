// gconv::Registry: select a kernel for a convolution and run it.
//
//   auto reg = gconv::Registry::create();            // pools for the current GPU
//   auto sol = reg->select(problem, gconv::Policy::analytic());
//   reg->run(*sol, problem, x, w, y, workspace, workspace_bytes, stream);
//
// Contract
// - Errors are Status values; nothing throws across this API, nothing is
//   printed to stdout (warnings go to stderr through GCONV_LOG).
// - Thread-safety: every method may be called from many threads at once, on
//   different streams. Kernels are compiled lazily on first use (through the
//   on-disk JIT cache) exactly once per process.
// - Arguments per direction (device pointers, channels-last, see problem.hpp):
//     fwd        (a = x,  b = w)  -> out = y
//     bwd_data   (a = dy, b = w)  -> out = dx
//     bwd_weight (a = x,  b = dy) -> out = dw
//   Pointers must be non-null, on the current device, and aligned to 16 bytes.
// - Every valid problem runs: when no pool kernel can implement it, the
//   general fallback kernel does (Solution::reason says so).
// - Without a GPU, create() still works for selection with the analytic or
//   heuristic policy (device properties then come from the arch rules file);
//   run() and the measuring policies return no_device (a tuning-cache hit
//   needs no measurement).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"

struct CUstream_st;

namespace gconv {

// How select() chooses.
struct Policy {
  enum class Kind { heuristic, analytic, exhaustive, topk };
  Kind kind = Kind::heuristic;
  int k = 4;  // for topk
  static Policy heuristic() { return {Kind::heuristic, 0}; }
  static Policy analytic() { return {Kind::analytic, 0}; }
  static Policy exhaustive() { return {Kind::exhaustive, 0}; }
  static Policy topk(int k) { return {Kind::topk, k}; }
  // "heuristic", "analytic", "exhaustive", "topk:K"
  static Result<Policy> parse(const std::string& text);
  std::string to_string() const;
};

// The kernel chosen for one problem.
struct Solution {
  std::string kernel;          // kernel name (naive_* for the fallback)
  double predicted_ms = 0;     // the model's or the analytic estimate
  double measured_ms = -1;     // measured by exhaustive/topk, -1 if not measured
  size_t workspace_bytes = 0;  // what run() needs for this problem
  std::string reason;          // why it was chosen, one line
  bool from_tuning_cache = false;
  int kernels_measured = 0;    // kernels timed to choose it (exhaustive/topk), 0 otherwise
  double tuning_seconds = 0;   // wall time of that measurement (compiles included), 0 otherwise
};

struct RegistryOptions {
  std::string arch;               // "" = current device (or sm_90a without a GPU)
  std::string kernel_filter;      // pool filter expression, "" = whole pool
  std::string tuning_cache_path;  // "" = $GCONV_TUNING_CACHE or <cache dir>/tuning.json; "off" disables
  // Most workspace the registry allocates itself; kernels needing more are
  // not candidates of select() / rank().
  size_t workspace_limit = size_t(1) << 30;
  // select() remembers its analytic / heuristic answer per (problem, policy)
  // in memory; false recomputes the ranking on every call (benchmarks).
  bool memoize = true;
  // The heuristic policy's learned model: a folder of models (the one for
  // this GPU, else for its arch, is chosen; see src/heuristic/model.hpp);
  // "" = $GCONV_MODELS_DIR or the models folder beside the configs; "off" =
  // none. Without a usable model (missing, corrupt, other feature schema)
  // the heuristic policy ranks by the analytic estimate, after one warning.
  std::string model_dir;
  // The model scores only the K best candidates by the analytic estimate
  // plus the analytic best of each kernel class (at most 31 classes; 0 =
  // all): the cost of a new selection is then bounded whatever the pool
  // size. On the H200 holdout, K = 32 (37 candidates on average) picks
  // within 0.001 of scoring all (`gconv eval --candidates`). A cascade
  // model (models/README.md) ranks these with its prefilter and scores only
  // the prefilter's best with its main model.
  int model_candidates = 32;
};

class Registry {
 public:
  static Result<std::unique_ptr<Registry>> create(const RegistryOptions& options = {});
  virtual ~Registry() = default;

  // Chooses a kernel for `p` (validated first). Exhaustive and topk first
  // look in the tuning cache (a hit needs no GPU); a measurement needs one
  // (no_device otherwise), runs one at a time per registry, synchronizes its
  // own stream, and stores the winner in the tuning cache.
  virtual Result<Solution> select(const Problem& p, const Policy& policy) = 0;
  // Candidates ranked by the policy's estimate, best first (at most `limit`).
  // Never measures: exhaustive and topk rank by the analytic estimate (its
  // order key adds 1% of the term the estimate's max() hides, so a predicted
  // time may exceed the next one's by up to that). With
  // no pool kernel, the one entry is the fallback.
  virtual Result<std::vector<Solution>> rank(const Problem& p, const Policy& policy, size_t limit) = 0;

  // Runs a selected solution. workspace may be null when the solution needs
  // none, or when the registry may allocate it (<= options.workspace_limit;
  // cudaMallocAsync / cudaFreeAsync on `stream`). Errors: invalid_problem;
  // invalid_argument for a null, misaligned, host or other-device pointer
  // (named) or a workspace smaller than needed (the size is in the message);
  // no_device without a GPU. Never synchronizes.
  virtual Status run(const Solution& s, const Problem& p, const void* a, const void* b, void* out,
                     void* workspace, size_t workspace_bytes, CUstream_st* stream) = 0;
  // select(p, heuristic) then run.
  virtual Status run(const Problem& p, const void* a, const void* b, void* out, void* workspace,
                     size_t workspace_bytes, CUstream_st* stream) = 0;

  // Number of pool kernels for (direction, dtype), after the filter.
  virtual size_t kernel_count(Direction d, DType t) const = 0;

  // The GPU the registry was created for ("none" without a GPU); it keys
  // the tuning cache.
  virtual const std::string& device_name() const = 0;
};

// gconv's version string ("0.1.0").
const char* version();

}  // namespace gconv
