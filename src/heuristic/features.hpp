// Features of the learned kernel selector: one fixed-length float vector per
// (problem, kernel) pair, the input row of the XGBoost model.
//
// The layout (order and meaning of every entry) is feature_table(); each row
// names the feature, gives its formula and says why a kernel's speed depends
// on it (docs/features.md is the same table with the conventions). A model
// stores feature_schema_id() and the GpuProps it was trained on in its
// manifest, so that a model is never fed vectors of another layout.
//
// Conventions: sizes and counts enter as log2(1 + x); fractions in [0, 1];
// flags 0/1; a feature that does not apply to a kernel's family is 0. Every
// entry is finite for any valid problem and any kernel of its pools.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"
#include "perf/analytic.hpp"
#include "perf/device_info.hpp"

namespace gconv::heuristic {

// GPU properties the features use, directly or through the analytic model;
// stored in a model's manifest so that a model knows which GPU it was trained
// for, and so that training (offline, often without a GPU) computes the same
// vectors as selection on that GPU: build the DeviceInfo of both with
// device_info_for(props, rules).
struct GpuProps {
  std::string name = "none";    // "NVIDIA H200" / "none" (no GPU: config estimates)
  std::string arch = "sm_90a";  // DeviceInfo::arch; its rules_arch names the arch rules
  int sm_count = 0;
  double clock_mhz = 0;
  int64_t l2_bytes = 0;
  int64_t smem_per_sm_bytes = 0;
  int regs_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  double hbm_gbps = 0;
  double l2_gbps = 0;
  double smem_bytes_per_clk = 0;
  double mma_tflops[3] = {0, 0, 0};        // by DType index (bf16, fp16, fp32)
  double cuda_core_tflops[3] = {0, 0, 0};  // by DType index
  double launch_us = 0;
  double wave_latency_us = 0;

  bool operator==(const GpuProps&) const = default;
};

GpuProps gpu_props_of(const DeviceInfo& d);
// A DeviceInfo whose every field that compute_features or analytic_ms reads
// comes from g, with the given arch rules (null: register estimates are 0).
// has_gpu is false and device -1: it describes, it does not open, a GPU.
DeviceInfo device_info_for(const GpuProps& g, std::shared_ptr<const ArchRules> rules);
// The same with the default arch rules (configs/arch; null when unreadable).
DeviceInfo device_info_for(const GpuProps& g);

// JSON object text (nlohmann): the keys are the field names; the per-dtype
// rates are objects keyed by dtype name ("mma_tflops": {"bf16": 450, ...}).
std::string to_json(const GpuProps& g);
// Inverse of to_json. parse_error naming the key on a missing or mistyped
// key ("GpuProps: missing key 'mma_tflops.fp16'") or on malformed JSON.
// Unknown keys are ignored (a newer writer may add fields).
Result<GpuProps> gpu_props_from_json(const std::string& text);

struct FeatureInfo {
  std::string name;     // snake_case, unique; prefix p_ problem, k_ kernel, x_ interaction, a_ analytic model
  std::string formula;  // how the value is computed, in the terms of problem.hpp / traits.hpp
  std::string why;      // what about kernel speed it captures
};

// Fixed order: entry i describes out[i] of compute_features.
const std::vector<FeatureInfo>& feature_table();
int num_features();

// "v1-" + 16 hex digits of a 64-bit FNV-1a hash over every feature's name
// and formula, in order: it changes when the layout changes (a feature is
// added, removed, renamed, moved) or a formula is rewritten.
std::string feature_schema_id();
// The same id for any table (exposed for tests and tools).
std::string feature_schema_id_of(const std::vector<FeatureInfo>& table);

// Fills out[0 .. num_features()) for kernel t on problem p, which t must
// implement (family_of(t).can_implement(t, p)); otherwise the values are
// meaningless but still finite. g supplies the GPU sizes of the features,
// d the analytic model (analytic_ms) and the arch rules (register estimate);
// d must agree with g (d = device_info_for(g, rules), or gpu_props_of(d) == g)
// or the vectors depend on more than the manifest records.
// Pure and thread-safe. Cost: a few hundred ns; it allocates nothing (the
// direct family is planned through plan_direct(t, DirectProblem, plan)).
void compute_features(const Problem& p, const KernelTraits& t, const GpuProps& g, const DeviceInfo& d, float* out);

// The rows of n kernels on one problem: row i, out[i * num_features() ..),
// is bit-identical to compute_features(p, *kernels[i], g, d, row); the
// problem's part (its features, sizes and analytic terms) is computed once.
// Same contract otherwise. Selection scores a whole candidate list this way.
void compute_features(const Problem& p, const KernelTraits* const* kernels, size_t n, const GpuProps& g,
                      const DeviceInfo& d, float* out);

// The terms of a kernel's features that need no problem, on device d: a
// caller that scores the same kernels again and again (the registry, per
// pool kernel) computes them once. Rows through them are bit-identical.
struct KernelFeatureTerms {
  AnalyticKernel analytic;  // analytic_kernel(t, d)
  int regs = 0;             // register_estimate (0 without arch rules)
  double smem = 0;          // igemm, wgmma: shared memory bytes (others: planned per problem)
};
KernelFeatureTerms kernel_feature_terms(const KernelTraits& t, const DeviceInfo& d);
// compute_features of n kernels with terms[i] = kernel_feature_terms(*kernels[i], d).
void compute_features(const Problem& p, const KernelTraits* const* kernels, const KernelFeatureTerms* const* terms,
                      size_t n, const GpuProps& g, const DeviceInfo& d, float* out);

}  // namespace gconv::heuristic
