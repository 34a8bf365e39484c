// The Registry: lazily loaded pools per (direction, dtype), candidate ranking
// by the analytic model, measuring policies with the tuning cache, the naive
// fallback, and run() with its argument checks (contract in
// include/gconv/registry.hpp).
#include "gconv/registry.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/log.hpp"
#include "heuristic/candidates.hpp"
#include "heuristic/model.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/naive/naive.hpp"
#include "kernels/pw/pw_plan.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "perf/analytic.hpp"
#include "perf/device_info.hpp"
#include "pool/filter.hpp"
#include "pool/pool.hpp"
#include "problem/fold.hpp"
#include "registry/measure.hpp"
#include "registry/tuning_cache.hpp"
#include "registry/validate.hpp"
#include "runtime/instance.hpp"

namespace gconv {

const char* version() { return GCONV_VERSION; }

namespace {

// Memoized selections kept per registry; past this many distinct (problem,
// policy) pairs the table starts over (a network has far fewer layers).
constexpr size_t kMemoLimit = 1 << 16;

// A kernel's own rules, once per pool kernel: the family's traits_ok
// (direct kernels have no such rule).
bool kernel_traits_ok(const KernelTraits& t) {
  switch (t.family) {
    case Family::igemm: return igemm::traits_ok(t, nullptr);
    case Family::wgmma: return wgmma::traits_ok(t, nullptr);
    case Family::direct: return true;
    case Family::tinyc: return tinyc::traits_ok(t, nullptr);
    case Family::pw: return pw::traits_ok(t, nullptr);
  }
  return false;
}

// The problem's rules and the workspace limit for an implicit-GEMM kernel
// whose traits_ok holds: the family's can_implement without its traits_ok
// (problem_ok) and workspace_bytes, through the facts measured once per
// problem.
bool gemm_applies(const KernelTraits& t, const igemm::ProblemFacts& f, size_t workspace_limit) {
  if (t.family == Family::igemm) {
    if (!igemm::problem_ok(t, f, nullptr)) return false;
    return t.split_mode == SplitKMode::none || igemm::workspace_bytes(t, f) <= workspace_limit;
  }
  if (!wgmma::problem_ok(t, f, nullptr)) return false;
  return t.split_mode == SplitKMode::none || wgmma::workspace_bytes(t, f) <= workspace_limit;
}

// Implicit-GEMM kernels that differ only in fields their problem rules
// (igemm / wgmma problem_ok) and workspace_bytes never read, the pipeline
// depth and the warp grid, fit exactly the same problems: one fit class. A
// copy with those fields cleared, so that a field added later counts.
KernelTraits fit_class_traits(const KernelTraits& t) {
  KernelTraits c = t;
  c.stages = 0;
  c.warps_m = c.warps_n = 0;
  return c;
}

// Implicit-GEMM kernels whose estimate (gemm_ms) reads the same values get
// the same estimate on a problem of their dtype (the only problems they
// implement): one estimate class. gemm_ms reads stages only as "two or
// more", vec only through AnalyticKernel::vec_penalty (own dtype), and
// neither realign, tma, direction nor ndim; it reads these AnalyticKernel
// terms, compared by value.
struct EstimateClass {
  KernelTraits traits;
  AnalyticKernel ak;
};
EstimateClass estimate_class(const KernelTraits& t, const AnalyticKernel& ak) {
  EstimateClass e{t, ak};
  e.traits.stages = t.stages <= 2 ? 2 : 3;
  e.traits.vec = 0;
  e.traits.realign = e.traits.tma = false;
  e.traits.direction = Direction::fwd;
  e.traits.ndim = 0;
  e.ak.regs = 0;  // read by direct kernels only
  return e;
}
bool same_estimate_class(const EstimateClass& x, const EstimateClass& y) {
  const auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  return x.traits == y.traits && x.ak.blocks_per_sm == y.ak.blocks_per_sm && x.ak.dtype == y.ak.dtype &&
         same(x.ak.smem_elems_per_kstep, y.ak.smem_elems_per_kstep) && same(x.ak.vec_penalty, y.ak.vec_penalty) &&
         same(x.ak.flops_per_kstep, y.ak.flops_per_kstep) && same(x.ak.smem_sm, y.ak.smem_sm);
}

// Dense ids of the classes of `items` under `same` (first come, first
// numbered); pool load only (quadratic in the distinct classes).
template <class T, class Same>
std::vector<uint16_t> class_ids(const std::vector<T>& items, const Same& same, uint16_t* count) {
  std::vector<const T*> reps;
  std::vector<uint16_t> ids(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    size_t c = 0;
    while (c < reps.size() && !same(*reps[c], items[i])) ++c;
    if (c == reps.size()) reps.push_back(&items[i]);
    ids[i] = uint16_t(c);
  }
  *count = uint16_t(reps.size());
  return ids;
}

// A memo key from the problem's fields (cheaper than its spec text).
std::string memo_key(const Problem& p, const Policy& policy) {
  int64_t f[8 + 18] = {p.ndim, p.n, p.c, p.k, p.g, int64_t(p.direction), int64_t(p.dtype), int64_t(policy.kind)};
  for (int i = 0; i < 3; ++i) {
    f[8 + i] = p.in[i], f[11 + i] = p.filter[i], f[14 + i] = p.stride[i];
    f[17 + i] = p.pad_lo[i], f[20 + i] = p.pad_hi[i], f[23 + i] = p.dilation[i];
  }
  return std::string(reinterpret_cast<const char*>(f), sizeof f);
}

struct Candidate {
  const KernelTraits* traits;
  double ms;
  AnalyticBrief detail;  // what the estimate's summary says
  float score = 0;  // the learned model's (heuristic policy with a model), higher = better
  const heuristic::KernelFeatureTerms* features = nullptr;  // the pool's, with a learned model
};

// The learned model's order: higher scores first.
bool by_score(const Candidate& x, const Candidate& y) { return x.score > y.score; }

// The learned model of the heuristic policy and the GPU its features
// describe: this GPU when there is one, else the GPU the model was trained
// for (selection without a GPU predicts for that GPU).
struct LearnedModel {
  std::shared_ptr<const heuristic::Selector> selector;
  heuristic::GpuProps props;
  DeviceInfo feature_device;
};

LearnedModel load_learned_model(const RegistryOptions& o, const DeviceInfo& device) {
  LearnedModel m;
  if (o.model_dir == "off") return m;
  const heuristic::GpuProps current = heuristic::gpu_props_of(device);
  std::string warning;
  auto s = heuristic::find_model(o.model_dir.empty() ? heuristic::models_dir() : o.model_dir, current, &warning);
  if (!s.ok()) {
    log_warn("heuristic policy: " + s.status().message() + "; it uses the analytic estimate instead");
    return m;
  }
  // Without a GPU the model predicts for the GPU it was trained on: no warning.
  if (!warning.empty() && device.has_gpu) log_warn(warning);
  m.selector = *s;
  m.props = device.has_gpu ? current : (*s)->manifest().gpu;
  m.feature_device = heuristic::device_info_for(m.props, device.rules);
  return m;
}

class RegistryImpl final : public Registry {
 public:
  RegistryImpl(RegistryOptions options, DeviceInfo device, std::optional<Filter> filter, TuningKey key)
      : options_(std::move(options)),
        device_(std::move(device)),
        learned_(load_learned_model(options_, device_)),
        filter_(std::move(filter)),
        tuning_(resolve_tuning_cache_path(options_.tuning_cache_path), std::move(key)) {}

  Result<Solution> select(const Problem& p, const Policy& policy) override;
  Result<std::vector<Solution>> rank(const Problem& p, const Policy& policy, size_t limit) override;
  Status run(const Solution& s, const Problem& p, const void* a, const void* b, void* out, void* workspace,
             size_t workspace_bytes, CUstream_st* stream) override;
  Status run(const Problem& p, const void* a, const void* b, void* out, void* workspace, size_t workspace_bytes,
             CUstream_st* stream) override;
  size_t kernel_count(Direction d, DType t) const override;
  const std::string& device_name() const override { return device_.name; }

 private:
  struct Pool {
    std::mutex mu;
    bool loaded = false;
    Status status;
    std::array<std::vector<KernelTraits>, 4> by_ndim;  // index 1..3
    // Per kernel of by_ndim, the terms that need no problem, computed at load
    // so that ranking a problem pays only for the rest (selection latency).
    struct Terms {
      AnalyticKernel analytic;
      heuristic::KernelFeatureTerms features;  // on the learned model's feature device (with a model)
    };
    std::array<std::vector<Terms>, 4> terms;
    // What applicable() reads of every kernel, 8 bytes a kernel beside the
    // ~250 bytes of its traits and terms: the scan of a pool then streams a
    // few KiB instead of the whole pool (which the models' walks evict from
    // L2 between selections); traits and terms are read only for kernels
    // that implement the problem.
    struct Key {
      Family family = Family::igemm;
      bool traits_ok = true;  // the family's traits_ok (direct kernels: no such rule)
      uint8_t cls = 0;        // heuristic::kernel_class
      // Implicit-GEMM kernels: fit_class_traits and estimate_class ids (one
      // test and one estimate per class and problem; others: 0).
      uint16_t fit_class = 0, est_class = 0;
    };
    std::array<std::vector<Key>, 4> keys;
    std::array<uint16_t, 4> fit_classes{}, est_classes{};  // class counts per ndim
  };
  struct InstanceSlot {
    std::mutex mu;
    std::shared_ptr<const Instance> instance;
  };

  Result<const Pool*> pool(Direction d, DType t) const;
  // The pool kernels that implement p, unsorted: the candidates in pool
  // order, and per candidate its analytic order key (estimate, position in
  // `found`: ties keep pool order) and its kernel class.
  struct Applicable {
    std::vector<Candidate> found;
    std::vector<std::pair<double, uint32_t>> order;
    std::vector<uint8_t> cls;
    // Per fit / estimate class, its answer on the current problem: valid
    // where the class's stamp is `stamp` (bumped per call, no clearing).
    struct Estimate {
      double ms, order_key;
      AnalyticBrief brief;
    };
    uint32_t stamp = 0;
    std::vector<uint32_t> fit_stamp, est_stamp;
    std::vector<uint8_t> fits;
    std::vector<Estimate> estimates;
  };
  // The calling thread's Applicable, reused by its next call (no allocation
  // once grown: selection latency).
  static Applicable& scratch();
  Status applicable(const Problem& p, Applicable& a) const;
  // The applicable kernels in analytic order (best estimate first).
  Result<std::vector<Candidate>> ranked(const Problem& p) const;
  // The candidates the learned model scores (heuristic/candidates.hpp) with
  // their scores, in analytic order (the model's pick: the first best
  // score), found without sorting all of a (a.order is permuted). Needs a
  // model.
  void score_by_model(const Problem& p, Applicable& a, std::vector<Candidate>& out) const;
  // 1-based position of c (one of a's candidates) in the analytic order.
  static size_t analytic_rank(const Applicable& a, const Candidate& c);
  // Whether the heuristic policy ranks p by the learned model.
  bool uses_model(const Problem& p, const Policy& policy) const {
    return policy.kind == Policy::Kind::heuristic && learned_.selector && learned_.selector->covers(p.dtype);
  }
  // Whether topk:K takes its K candidates in the model's order (else the
  // analytic estimate's): the model's top K holds the fastest kernel far
  // more often than the estimate's (the estimate's top 8 missed it by up to
  // 1.7x on large weight gradients, H100, 2026-11-27).
  bool topk_by_model(const Problem& p, const Policy& policy) const {
    return policy.kind == Policy::Kind::topk && learned_.selector && learned_.selector->covers(p.dtype);
  }
  // a's model candidates, best score first (equal scores keep the analytic
  // order).
  void model_ranked(const Problem& p, Applicable& a, std::vector<Candidate>& out) const {
    score_by_model(p, a, out);
    std::stable_sort(out.begin(), out.end(), by_score);
  }
  // The Solution of a model-ranked candidate: the model's predicted time
  // (when it predicts one) and a reason naming the model and the candidate's
  // analytic rank among `applicable` kernels.
  Solution model_solution(const Candidate& c, const Problem& p, size_t analytic_rank, size_t applicable) const;
  Solution from_candidate(const Candidate& c, const Problem& p, std::string reason) const;
  Solution fallback(const Problem& p) const;
  Result<Solution> select_measured(const Problem& p, const Policy& policy, const std::vector<Candidate>& cands);
  std::optional<Solution> from_tuning_cache(const Problem& p, const Policy& policy,
                                            const std::vector<Candidate>& cands);
  Result<std::shared_ptr<const Instance>> instance(const std::string& name, const KernelTraits& t,
                                                   const KernelFamily& family);
  Result<std::shared_ptr<const Instance>> instance_for(const Solution& s, const Problem& p);

  const RegistryOptions options_;
  const DeviceInfo device_;
  const LearnedModel learned_;
  const std::optional<Filter> filter_;
  TuningCache tuning_;

  mutable std::mutex pools_mu_;
  mutable std::map<std::pair<int, int>, std::unique_ptr<Pool>> pools_;
  std::mutex instances_mu_;
  std::unordered_map<std::string, std::shared_ptr<InstanceSlot>> instances_;
  std::mutex memo_mu_;
  std::unordered_map<std::string, Solution> memo_;
  std::mutex measure_mu_;  // one measurement at a time: concurrent timings would disturb each other
};

Result<const RegistryImpl::Pool*> RegistryImpl::pool(Direction d, DType t) const {
  Pool* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(pools_mu_);
    auto& entry = pools_[{int(d), int(t)}];
    if (!entry) entry = std::make_unique<Pool>();
    slot = entry.get();
  }
  std::lock_guard<std::mutex> lock(slot->mu);
  if (!slot->loaded) {
    // Marked loaded only once filled: an exception part way (out of host
    // memory) leaves the slot empty and unloaded, so a later call loads it
    // again instead of ranking an empty pool (every pick the naive kernel).
    struct Unfinished {
      Pool* slot;
      ~Unfinished() {
        if (slot) {
          for (auto& v : slot->by_ndim) v.clear();
          for (auto& v : slot->terms) v.clear();
          for (auto& v : slot->keys) v.clear();
          slot->status = Status::Ok();
        }
      }
    } unfinished{slot};
    if (device_.rules) {
      auto kernels = load_pool(*device_.rules, d, t);
      if (!kernels.ok()) {
        slot->status = kernels.status();
      } else {
        for (const KernelTraits& k : *kernels)
          if ((!filter_ || filter_->matches(*device_.rules, k)) && k.ndim >= 1 && k.ndim <= 3)
            slot->by_ndim[k.ndim].push_back(k);
        for (int n = 1; n <= 3; ++n) {
          std::vector<KernelTraits> fit;
          std::vector<EstimateClass> est;
          std::vector<size_t> gemm;  // positions of the implicit-GEMM kernels
          for (const KernelTraits& k : slot->by_ndim[n]) {
            Pool::Terms& terms = slot->terms[n].emplace_back(Pool::Terms{
                analytic_kernel(k, device_), learned_.selector
                                                 ? heuristic::kernel_feature_terms(k, learned_.feature_device)
                                                 : heuristic::KernelFeatureTerms{}});
            slot->keys[n].push_back(
                Pool::Key{k.family, kernel_traits_ok(k), uint8_t(heuristic::kernel_class(k)), 0, 0});
            if (!is_implicit_gemm(k.family)) continue;
            gemm.push_back(slot->terms[n].size() - 1);
            fit.push_back(fit_class_traits(k));
            est.push_back(estimate_class(k, terms.analytic));
          }
          const auto fit_ids = class_ids(fit, std::equal_to<KernelTraits>(), &slot->fit_classes[n]);
          const auto est_ids = class_ids(est, same_estimate_class, &slot->est_classes[n]);
          for (size_t j = 0; j < gemm.size(); ++j) {
            slot->keys[n][gemm[j]].fit_class = fit_ids[j];
            slot->keys[n][gemm[j]].est_class = est_ids[j];
          }
        }
      }
    }
    slot->loaded = true;  // a pool file's error counts as loaded: its status is the answer from now on
    unfinished.slot = nullptr;
  }
  if (!slot->status.ok()) return slot->status;
  return static_cast<const Pool*>(slot);
}

size_t RegistryImpl::kernel_count(Direction d, DType t) const {
  auto p = pool(d, t);
  if (!p.ok()) return 0;
  size_t n = 0;
  for (const auto& v : (*p)->by_ndim) n += v.size();
  return n;
}

RegistryImpl::Applicable& RegistryImpl::scratch() {
  thread_local Applicable a;
  return a;
}

Status RegistryImpl::applicable(const Problem& p, Applicable& scratch_a) const {
  // Every caller passes scratch(), a thread_local: the compiler specializes
  // this function for it and then recomputes the thread-local address
  // (__tls_get_addr, a call) at each push_back below. Through an address it
  // cannot see into it uses a register.
  Applicable* ap_ptr = &scratch_a;
#if defined(__GNUC__) || defined(__clang__)
  asm("" : "+r"(ap_ptr));
#endif
  Applicable& a = *ap_ptr;
  a.found.clear();
  a.order.clear();
  a.cls.clear();
  auto pl = pool(p.direction, p.dtype);
  if (!pl.ok()) return pl.status();
  const std::vector<KernelTraits>& kernels = (*pl)->by_ndim[p.ndim];
  const std::vector<Pool::Terms>& terms = (*pl)->terms[p.ndim];
  // A new stamp invalidates every class's answer; stamps start at 0, so on
  // the wrap a clear.
  if (++a.stamp == 0) {
    std::fill(a.fit_stamp.begin(), a.fit_stamp.end(), 0);
    std::fill(a.est_stamp.begin(), a.est_stamp.end(), 0);
    a.stamp = 1;
  }
  if (a.fit_stamp.size() < (*pl)->fit_classes[p.ndim]) {
    a.fit_stamp.resize((*pl)->fit_classes[p.ndim], 0);
    a.fits.resize((*pl)->fit_classes[p.ndim]);
  }
  if (a.est_stamp.size() < (*pl)->est_classes[p.ndim]) {
    a.est_stamp.resize((*pl)->est_classes[p.ndim], 0);
    a.estimates.resize((*pl)->est_classes[p.ndim]);
  }
  // Selection latency: the problem's terms once (validation, sizes, the
  // analytic model's problem half), then per kernel only its own terms. The
  // calls are the families' can_implement and workspace_bytes split at that
  // seam (the same predicates, no message strings) and analytic_ms.
  const igemm::ProblemFacts facts = igemm::check_problem(p);
  const AnalyticProblem ap = analytic_problem(p, device_);
  // Where the problem alone rules out the direct family, its kernels are
  // not planned one by one.
  const bool direct_possible = direct_problem_ok(ap.direct);
  // Likewise pw: its problem rules (validation included) once, not per kernel.
  const bool pw_possible = pw::problem_ok(p, nullptr);
  a.found.reserve(kernels.size());
  a.order.reserve(kernels.size());
  a.cls.reserve(kernels.size());
  const Pool::Key* keys = (*pl)->keys[p.ndim].data();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Pool::Key key = keys[i];
    double ms = 0, order_key = 0;
    AnalyticBrief brief;
    if (is_implicit_gemm(key.family)) {
      if (!key.traits_ok) continue;
      const uint16_t fc = key.fit_class;
      if (a.fit_stamp[fc] != a.stamp) {
        a.fit_stamp[fc] = a.stamp;
        a.fits[fc] = gemm_applies(kernels[i], facts, options_.workspace_limit);
      }
      if (!a.fits[fc]) continue;
      // kernels[i] implements p, so p has its dtype: the estimate class holds.
      Applicable::Estimate& e = a.estimates[key.est_class];
      if (a.est_stamp[key.est_class] != a.stamp) {
        a.est_stamp[key.est_class] = a.stamp;
        AnalyticBreakdown b;
        e.ms = analytic_ms(kernels[i], terms[i].analytic, ap, device_, &b);
        e.order_key = b.order_key();
        e.brief = b.brief();
      }
      ms = e.ms, brief = e.brief, order_key = e.order_key;
    } else {
      const KernelTraits& t = kernels[i];
      AnalyticBreakdown b;
      // A kernel whose workspace the registry could not allocate is no
      // candidate, so that run() with a null workspace always works.
      if (key.family == Family::direct) {
        if (!direct_possible) continue;
        DirectPlan plan;
        if (!plan_direct(t, ap.direct, &plan) || plan.workspace > options_.workspace_limit) continue;
        ms = analytic_ms(t, terms[i].analytic, ap, device_, &b, &plan);
      } else if (key.family == Family::pw) {
        if (!pw_possible || !key.traits_ok || !pw::instance_ok(t, p, nullptr)) continue;
        ms = analytic_ms(t, terms[i].analytic, ap, device_, &b);
      } else {  // tinyc
        if (!key.traits_ok || !tinyc::can_implement(t, p, nullptr)) continue;
        ms = analytic_ms(t, terms[i].analytic, ap, device_, &b);
      }
      brief = b.brief(), order_key = b.order_key();
    }
    a.order.emplace_back(order_key, uint32_t(a.found.size()));
    a.cls.push_back(key.cls);
    // Written field by field into its slot: a local Candidate copied in by
    // push_back was built by 8-byte stores and read back by 16-byte loads
    // that those stores cannot forward to (Zen 4: three stalls a candidate,
    // half of this function's time).
    Candidate& c = a.found.emplace_back();
    c.traits = &kernels[i];
    c.ms = ms;
    c.detail.waves = brief.waves;
    c.detail.tile_efficiency = brief.tile_efficiency;
    c.detail.memory_bound = brief.memory_bound;
    c.score = 0;
    c.features = &terms[i].features;
  }
  return Status::Ok();
}

Result<std::vector<Candidate>> RegistryImpl::ranked(const Problem& p) const {
  Applicable& a = scratch();
  GCONV_RETURN_IF_ERROR(applicable(p, a));
  // Ties broken by pool position: the (deterministic) order a stable sort
  // keeps, without moving whole candidates or allocating a merge buffer.
  std::sort(a.order.begin(), a.order.end());
  std::vector<Candidate> out;
  out.reserve(a.order.size());
  for (const auto& [ms, i] : a.order) out.push_back(a.found[i]);
  return out;
}

void RegistryImpl::score_by_model(const Problem& p, Applicable& a, std::vector<Candidate>& out) const {
  // The model sees the analytic best K and the analytic best of each kernel
  // class (heuristic/candidates.hpp says why); only those are copied.
  thread_local std::vector<std::pair<double, uint32_t>> kept;
  thread_local std::vector<const KernelTraits*> ks;
  thread_local std::vector<const heuristic::KernelFeatureTerms*> fs;
  thread_local std::vector<float> scores, scratch;
  heuristic::model_candidates_unsorted(a.order, a.cls.data(), options_.model_candidates, kept);
  out.clear();
  ks.clear();
  fs.clear();
  for (const auto& [ms, i] : kept) {
    out.push_back(a.found[i]);
    ks.push_back(a.found[i].traits);
    fs.push_back(a.found[i].features);
  }
  scores.resize(out.size());
  learned_.selector->score(p, ks.data(), fs.data(), ks.size(), learned_.props, learned_.feature_device, scores.data(),
                           scratch);
  for (size_t i = 0; i < out.size(); ++i) out[i].score = scores[i];
}

size_t RegistryImpl::analytic_rank(const Applicable& a, const Candidate& c) {
  // The position of c's (order key, index) pair among a.order's (permuted,
  // but holding every pair): the order the candidates were chosen by.
  std::pair<double, uint32_t> mine{0, 0};
  for (const auto& o : a.order)
    if (a.found[o.second].traits == c.traits) mine = o;
  size_t rank = 1;
  for (const auto& o : a.order) rank += o < mine;
  return rank;
}

Solution RegistryImpl::model_solution(const Candidate& c, const Problem& p, size_t analytic_rank,
                                      size_t applicable) const {
  const double ms = learned_.selector->predicted_ms(c.score);
  // A kernel the cascade's prefilter left out of the main model's scoring
  // (only in rank() lists, never the pick) says so.
  const bool dropped = heuristic::Selector::dropped(c.score);
  Solution s = from_candidate(
      c, p,
      fmt::format("heuristic: model {} ({}) {}{}; analytic rank {} of {}", learned_.selector->dir(),
                  learned_.selector->manifest().objective, dropped ? "prefilter " : "",
                  ms > 0 ? fmt::format("predicts {:.4f} ms", ms)
                         : fmt::format("score {:.3f} (the time is the analytic estimate)",
                                       dropped ? c.score + heuristic::Selector::kDroppedOffset : c.score),
                  analytic_rank, applicable));
  if (ms > 0) s.predicted_ms = ms;
  return s;
}

Solution RegistryImpl::from_candidate(const Candidate& c, const Problem& p, std::string reason) const {
  Solution s;
  s.kernel = kernel_name(*c.traits);
  s.predicted_ms = c.ms;
  s.workspace_bytes = family_of(*c.traits).workspace_bytes(*c.traits, p);
  s.reason = std::move(reason);
  return s;
}

Solution RegistryImpl::fallback(const Problem& p) const {
  const KernelTraits t = naive_traits(p);
  Solution s;
  s.kernel = naive_kernel_name(t);
  s.predicted_ms = naive_ms(p, device_);
  s.workspace_bytes = naive_family().workspace_bytes(t, p);
  s.reason = "fallback: no pool kernel implements " + p.to_spec();
  if (filter_) s.reason += " under filter '" + filter_->text() + "'";
  if (!device_.rules) s.reason += " (no arch rules for " + device_.arch + ")";
  return s;
}

Result<Solution> RegistryImpl::select(const Problem& given, const Policy& policy) {
  const Problem p = fold_patches(given);  // the form gconv runs (problem/fold.hpp)
  const bool estimate_only = policy.kind == Policy::Kind::analytic || policy.kind == Policy::Kind::heuristic;
  std::string key;
  if (estimate_only && options_.memoize) {
    // Only valid problems enter the memo, so a hit needs no validation.
    key = memo_key(p, policy);
    std::lock_guard<std::mutex> lock(memo_mu_);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
  }
  GCONV_RETURN_IF_ERROR(p.validate());
  if (policy.kind == Policy::Kind::topk && policy.k < 1)
    return invalid_argument("policy topk:" + std::to_string(policy.k) + ": K must be at least 1");
  Solution s;
  if (uses_model(p, policy)) {
    Applicable& a = scratch();
    GCONV_RETURN_IF_ERROR(applicable(p, a));
    if (a.found.empty()) {
      s = fallback(p);
    } else {
      thread_local std::vector<Candidate> scored;
      score_by_model(p, a, scored);
      // The first best score: what rank()'s stable sort puts first.
      const Candidate& best = *std::min_element(scored.begin(), scored.end(), by_score);
      s = model_solution(best, p, analytic_rank(a, best), a.found.size());
    }
  } else if (topk_by_model(p, policy)) {
    Applicable& a = scratch();
    GCONV_RETURN_IF_ERROR(applicable(p, a));
    if (a.found.empty()) {
      s = fallback(p);
    } else {
      std::vector<Candidate> by_model;
      model_ranked(p, a, by_model);
      return select_measured(p, policy, by_model);
    }
  } else if (estimate_only) {
    Applicable& a = scratch();
    GCONV_RETURN_IF_ERROR(applicable(p, a));
    if (a.found.empty()) {
      s = fallback(p);
    } else {
      // The least (estimate, position) pair, which ranked()'s sort puts
      // first (pairs are distinct), without sorting the others: the sort
      // was a third of this policy's selection time.
      const Candidate& best = a.found[std::min_element(a.order.begin(), a.order.end())->second];
      const std::string why = fmt::format("{} ({} candidates)", best.detail.summary(), a.found.size());
      s = from_candidate(best, p,
                         policy.kind == Policy::Kind::analytic
                             ? "analytic: " + why
                             : (learned_.selector ? "heuristic: the learned model has no " +
                                                        std::string(to_string(p.dtype)) + " data, analytic estimate: "
                                                  : std::string("heuristic: no learned model, analytic estimate: ")) +
                                   why);
    }
  } else if (auto cands = ranked(p); !cands.ok()) {
    return cands.status();
  } else if (cands->empty()) {
    s = fallback(p);
  } else {
    return select_measured(p, policy, *cands);
  }
  if (!key.empty()) {
    std::lock_guard<std::mutex> lock(memo_mu_);
    if (memo_.size() >= kMemoLimit) memo_.clear();
    memo_.emplace(key, s);
  }
  return s;
}

std::optional<Solution> RegistryImpl::from_tuning_cache(const Problem& p, const Policy& policy,
                                                        const std::vector<Candidate>& cands) {
  const std::string key = tuning_entry_key(p.to_spec(), filter_ ? filter_->text() : "");
  auto e = tuning_.lookup(key);
  if (!e || !tuning_policy_covers(e->policy, policy)) return std::nullopt;
  auto traits = parse_kernel_name(e->kernel);
  for (const Candidate& c : cands) {
    if (!traits.ok() || !(*c.traits == *traits)) continue;
    Solution s = from_candidate(c, p,
                                fmt::format("tuning cache: fastest of {} kernels measured by {} ({:.4f} ms)",
                                            e->kernels_measured, e->policy, e->measured_ms));
    s.measured_ms = e->measured_ms;
    s.from_tuning_cache = true;
    s.kernels_measured = e->kernels_measured;
    s.tuning_seconds = e->tuning_seconds;
    return s;
  }
  log_info("tuning cache entry " + key + " names " + e->kernel + ", which is not a candidate now; measuring again");
  return std::nullopt;
}

Result<Solution> RegistryImpl::select_measured(const Problem& p, const Policy& policy,
                                               const std::vector<Candidate>& cands) {
  if (auto hit = from_tuning_cache(p, policy, cands)) return *hit;
  if (!device_.has_gpu)
    return Status(StatusCode::no_device, "policy " + policy.to_string() + " measures kernels and needs a GPU");
  std::lock_guard<std::mutex> lock(measure_mu_);
  // Another thread may have measured this problem while we waited.
  if (auto hit = from_tuning_cache(p, policy, cands)) return *hit;

  const size_t n = policy.kind == Policy::Kind::topk ? std::min(cands.size(), size_t(policy.k)) : cands.size();
  std::vector<KernelTraits> subset;
  for (size_t i = 0; i < n; ++i) subset.push_back(*cands[i].traits);
  auto m = measure_candidates(
      p, subset, [this](const KernelTraits& t) { return instance(kernel_name(t), t, family_of(t)); },
      options_.workspace_limit);
  if (!m.ok()) return m.status();

  const Candidate& best = cands[m->best];
  Solution s = from_candidate(best, p,
                              fmt::format("{}: fastest of {} kernels measured ({:.4f} ms; analytic rank {})",
                                          policy.to_string(), m->measured, m->best_ms, m->best + 1));
  s.measured_ms = m->best_ms;
  s.kernels_measured = m->measured;
  s.tuning_seconds = m->seconds;
  TuningEntry e{s.kernel, s.measured_ms, policy.to_string(), m->measured, m->seconds};
  Status st = tuning_.store(tuning_entry_key(p.to_spec(), filter_ ? filter_->text() : ""), e);
  if (!st.ok()) log_warn("tuning cache not written: " + st.to_string());
  return s;
}

Result<std::vector<Solution>> RegistryImpl::rank(const Problem& given, const Policy& policy, size_t limit) {
  const Problem p = fold_patches(given);
  GCONV_RETURN_IF_ERROR(p.validate());
  std::vector<Solution> out;
  if (uses_model(p, policy) || topk_by_model(p, policy)) {
    Applicable& a = scratch();
    GCONV_RETURN_IF_ERROR(applicable(p, a));
    if (a.found.empty()) {
      if (limit > 0) out.push_back(fallback(p));
      return out;
    }
    std::vector<Candidate> by_model;
    model_ranked(p, a, by_model);
    for (size_t i = 0; i < by_model.size() && out.size() < limit; ++i)
      out.push_back(model_solution(by_model[i], p, analytic_rank(a, by_model[i]), a.found.size()));
    return out;
  }
  auto cands = ranked(p);
  if (!cands.ok()) return cands.status();
  if (cands->empty()) {
    if (limit > 0) out.push_back(fallback(p));
    return out;
  }
  const std::string prefix = policy.kind == Policy::Kind::analytic ? "analytic: " : "analytic estimate: ";
  for (size_t i = 0; i < cands->size() && out.size() < limit; ++i)
    out.push_back(from_candidate((*cands)[i], p, prefix + (*cands)[i].detail.summary()));
  return out;
}

Result<std::shared_ptr<const Instance>> RegistryImpl::instance(const std::string& name, const KernelTraits& t,
                                                               const KernelFamily& family) {
  std::shared_ptr<InstanceSlot> slot;
  {
    std::lock_guard<std::mutex> lock(instances_mu_);
    auto& s = instances_[name];
    if (!s) s = std::make_shared<InstanceSlot>();
    slot = s;
  }
  // Per-kernel lock: threads wanting the same kernel wait for one build.
  std::lock_guard<std::mutex> lock(slot->mu);
  if (!slot->instance) {
    auto inst = load_instance(t, family, name);
    if (!inst.ok()) return inst.status();  // not cached: a later call retries
    slot->instance = std::move(inst).value();
  }
  return slot->instance;
}

Result<std::shared_ptr<const Instance>> RegistryImpl::instance_for(const Solution& s, const Problem& p) {
  if (s.kernel.rfind("naive_", 0) == 0) {
    const KernelTraits t = naive_traits(p);
    const std::string name = naive_kernel_name(t);
    if (name != s.kernel)
      return invalid_argument("solution kernel " + s.kernel + " is not for this problem (its fallback is " + name +
                              ")");
    return instance(name, t, naive_family());
  }
  auto t = parse_kernel_name(s.kernel);
  if (!t.ok()) return invalid_argument("solution kernel: " + t.status().message());
  return instance(s.kernel, *t, family_of(*t));
}

Status RegistryImpl::run(const Solution& s, const Problem& given, const void* a, const void* b, void* out,
                         void* workspace, size_t workspace_bytes, CUstream_st* stream) {
  const Problem p = fold_patches(given);  // as select() chose for it
  GCONV_RETURN_IF_ERROR(p.validate());
  GCONV_RETURN_IF_ERROR(check_pointers(p.direction, a, b, out, workspace));
  if (!device_.has_gpu) return Status(StatusCode::no_device, "run needs a GPU; none was found at create()");
  int dev = 0;
  GCONV_CUDA_RETURN_IF_ERROR(cudaGetDevice(&dev));
  const OperandNames names = operand_names(p.direction);
  GCONV_RETURN_IF_ERROR(check_device_pointer(a, fmt::format("a ({})", names.a), dev));
  GCONV_RETURN_IF_ERROR(check_device_pointer(b, fmt::format("b ({})", names.b), dev));
  GCONV_RETURN_IF_ERROR(check_device_pointer(out, fmt::format("out ({})", names.out), dev));
  if (workspace) GCONV_RETURN_IF_ERROR(check_device_pointer(workspace, "workspace", dev));

  auto inst = instance_for(s, p);
  if (!inst.ok()) return inst.status();
  std::string why;
  if (!(*inst)->family->can_implement((*inst)->traits, p, &why))
    return invalid_argument("solution kernel " + s.kernel + " cannot run " + p.to_spec() + ": " + why);
  const size_t needed = (*inst)->family->workspace_bytes((*inst)->traits, p);
  if (workspace != nullptr && workspace_bytes < needed)
    return invalid_argument(fmt::format("workspace of {} bytes is too small: {} needs {} bytes for {}",
                                        workspace_bytes, s.kernel, needed, p.to_spec()));
  if (needed == 0 || workspace != nullptr)
    return launch_instance(**inst, p, ConvArgs{a, b, out, workspace, workspace ? workspace_bytes : 0}, stream);

  if (needed > options_.workspace_limit)
    return invalid_argument(fmt::format("{} needs a workspace of {} bytes for {}, more than the registry's "
                                        "workspace_limit of {} bytes: pass a workspace",
                                        s.kernel, needed, p.to_spec(), options_.workspace_limit));
  void* ws = nullptr;
  GCONV_CUDA_RETURN_IF_ERROR(cudaMallocAsync(&ws, needed, stream));
  Status launched = launch_instance(**inst, p, ConvArgs{a, b, out, ws, needed}, stream);
  Status freed = cuda_status(cudaFreeAsync(ws, stream), "cudaFreeAsync(workspace)");
  return launched.ok() ? freed : launched;
}

Status RegistryImpl::run(const Problem& p, const void* a, const void* b, void* out, void* workspace,
                         size_t workspace_bytes, CUstream_st* stream) {
  auto s = select(p, Policy::heuristic());
  if (!s.ok()) return s.status();
  return run(*s, p, a, b, out, workspace, workspace_bytes, stream);
}

}  // namespace

Result<std::unique_ptr<Registry>> Registry::create(const RegistryOptions& options) {
  std::optional<Filter> filter;
  if (!options.kernel_filter.empty()) {
    auto f = Filter::parse(options.kernel_filter);
    if (!f.ok()) return f.status();
    filter = std::move(f).value();
  }
  auto device = query_device(options.arch);
  if (!device.ok()) return device.status();
  TuningKey key{device->name, GCONV_VERSION, pool_version(device->rules_arch)};
  return std::unique_ptr<Registry>(
      new RegistryImpl(options, std::move(device).value(), std::move(filter), std::move(key)));
}

}  // namespace gconv
