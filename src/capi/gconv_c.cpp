// The C API (include/gconv/gconv.h) over the C++ API. Every entry point is
// noexcept: C callers cannot catch, so each status-returning function runs its
// body through guarded(), which turns a Status or any exception into a code
// plus the thread's last-error message.
#include "gconv/gconv.h"

#include <array>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>
#include <climits>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/cuda_check.hpp"
#include "gconv/numeric.hpp"
#include "gconv/problem.hpp"
#include "gconv/reference.hpp"
#include "gconv/registry.hpp"
#include "gconv/status.hpp"
#include "kernels/naive/naive.hpp"
#include "problem/fold.hpp"
#include "runtime/instance.hpp"

// Handles: the C structs named in gconv.h. Problems and solutions are
// immutable after creation (convention 7), so everything a getter returns is
// computed at creation and never lazily (a lazy cache would race).
struct gconv_problem_t {
  gconv::Problem problem;
  std::string spec;
};
struct gconv_solution_t {
  gconv::Solution solution;
};
struct gconv_registry_t {
  std::unique_ptr<gconv::Registry> registry;
};
// Everything gconv_plan_run needs, resolved at creation: the loaded kernel
// (its module is shared with the registry's through the JIT engine's
// in-process table), the problem it was checked against and the workspace.
struct gconv_plan_t {
  gconv::Problem problem;
  std::string spec;
  std::shared_ptr<const gconv::Instance> instance;
  size_t workspace_bytes = 0;
  int device = 0;
};

namespace {

using gconv::Status;
using gconv::StatusCode;

// The codes are the C++ ones, by value: checked here so they cannot drift.
static_assert(GCONV_OK == int(StatusCode::ok));
static_assert(GCONV_ERR_INVALID_ARGUMENT == int(StatusCode::invalid_argument));
static_assert(GCONV_ERR_INVALID_PROBLEM == int(StatusCode::invalid_problem));
static_assert(GCONV_ERR_NOT_SUPPORTED == int(StatusCode::not_supported));
static_assert(GCONV_ERR_PARSE == int(StatusCode::parse_error));
static_assert(GCONV_ERR_IO == int(StatusCode::io_error));
static_assert(GCONV_ERR_CUDA == int(StatusCode::cuda_error));
static_assert(GCONV_ERR_COMPILE == int(StatusCode::compile_error));
static_assert(GCONV_ERR_OUT_OF_MEMORY == int(StatusCode::out_of_memory));
static_assert(GCONV_ERR_INTERNAL == int(StatusCode::internal));
static_assert(GCONV_ERR_NOT_FOUND == int(StatusCode::not_found));
static_assert(GCONV_ERR_NO_DEVICE == int(StatusCode::no_device));
static_assert(GCONV_FWD == int(gconv::Direction::fwd) && GCONV_BWD_DATA == int(gconv::Direction::bwd_data) &&
              GCONV_BWD_WEIGHT == int(gconv::Direction::bwd_weight));
static_assert(GCONV_BF16 == int(gconv::DType::bf16) && GCONV_FP16 == int(gconv::DType::fp16) &&
              GCONV_FP32 == int(gconv::DType::fp32));

thread_local std::string t_last_error;
// Set when the message could not be stored (out of host memory): a static
// text, so that an error never reads as "" (convention 2).
thread_local const char* t_static_error = nullptr;

// Records `message` (+ `detail`) as the thread's last error and returns
// `code`. Must not throw: the exception paths below call it, and a bad_alloc
// out of a noexcept function is std::terminate. So nothing is allocated
// before the try, and a failed store falls back to `fallback`.
int record(StatusCode code, const char* message, const char* detail, const char* fallback) noexcept {
  try {
    t_last_error = message;
    if (detail != nullptr) t_last_error += detail;
    t_static_error = nullptr;
  } catch (...) {
    t_last_error.clear();
    t_static_error = fallback;
  }
  return static_cast<int>(code);
}

int finish(const Status& s) noexcept {
  return record(s.code(), s.message().c_str(), nullptr, "out of host memory (the error message was lost)");
}

template <class F>
int guarded(F&& body) noexcept {
  try {
    return finish(body());
  } catch (const std::bad_alloc&) {
    return record(StatusCode::out_of_memory, "out of host memory", nullptr, "out of host memory");
  } catch (const std::exception& e) {
    return record(StatusCode::internal, "unexpected exception: ", e.what(), "unexpected exception");
  } catch (...) {
    return record(StatusCode::internal, "unexpected exception", nullptr, "unexpected exception");
  }
}

Status null_argument(const char* name) { return gconv::invalid_argument(std::string(name) + " is NULL"); }

bool valid_direction(int d) { return d >= GCONV_FWD && d <= GCONV_BWD_WEIGHT; }
bool valid_dtype(int t) { return t >= GCONV_BF16 && t <= GCONV_FP32; }

void copy3(const int64_t* from, std::array<int64_t, 3>& to) {
  if (from != nullptr) to = {from[0], from[1], from[2]};
}

// Getters and size queries run on problems that never passed validate(), so
// any int64 may be there: the arithmetic below is done in __int128 or double,
// never as int64 products (signed overflow is undefined behaviour, and the
// header promises a value for any input).
int64_t checked_out(const gconv::Problem& q, int i) {
  using i128 = __int128;
  const i128 eff = i128(q.dilation[i]) * (i128(q.filter[i]) - 1) + 1;
  const i128 span = i128(q.in[i]) + q.pad_lo[i] + q.pad_hi[i] - eff;
  if (span < 0 || q.stride[i] < 1) return 0;
  const i128 o = span / q.stride[i] + 1;
  return o > INT64_MAX ? 0 : int64_t(o);
}

// a * b * c as int64; false when it does not fit.
bool product3(int64_t a, int64_t b, int64_t c, int64_t* out) {
  int64_t ab = 0;
  return !__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(ab, c, out);
}

// Element count of one tensor, dims[0] * volume[0..2] * dims[1]; false on overflow.
bool element_count(int64_t outer, const std::array<int64_t, 3>& vol, int64_t inner, int64_t* out) {
  int64_t v = 0, t = 0;
  return product3(vol[0], vol[1], vol[2], &v) && !__builtin_mul_overflow(outer, v, &t) &&
         !__builtin_mul_overflow(t, inner, out);
}

Status make_problem(const gconv::Problem& p, gconv_problem_t** out) {
  auto h = std::make_unique<gconv_problem_t>();
  h->problem = p;
  h->spec = p.to_spec();
  *out = h.release();
  return Status::Ok();
}

// NULL means the default policy, heuristic (gconv.h).
gconv::Result<gconv::Policy> parse_policy(const char* policy) {
  if (policy == nullptr) return gconv::Policy::heuristic();
  return gconv::Policy::parse(policy);
}

gconv::Result<gconv::Solution> select_solution(gconv_registry_t& r, const gconv_problem_t& p, const char* policy) {
  auto pol = parse_policy(policy);
  if (!pol.ok()) return pol.status();
  return r.registry->select(p.problem, *pol);
}

// The kernel a solution names, resolved as the registry's run resolves it
// (the fallback's traits come from the problem), and checked against p with
// the family's own can_implement.
struct ResolvedKernel {
  gconv::KernelTraits traits;
  const gconv::KernelFamily* family = nullptr;
};

gconv::Result<ResolvedKernel> resolve_kernel(const std::string& kernel, const gconv::Problem& p) {
  ResolvedKernel k;
  if (kernel.rfind("naive_", 0) == 0) {
    k.traits = gconv::naive_traits(p);
    k.family = &gconv::naive_family();
    const std::string name = gconv::naive_kernel_name(k.traits);
    if (name != kernel)
      return gconv::invalid_argument("solution kernel " + kernel + " is not for " + p.to_spec() +
                                     " (its fallback is " + name + ")");
  } else {
    auto t = gconv::parse_kernel_name(kernel);
    if (!t.ok()) return gconv::invalid_argument("solution kernel: " + t.status().message());
    k.traits = *t;
    k.family = &gconv::family_of(k.traits);
  }
  std::string why;
  if (!k.family->can_implement(k.traits, p, &why))
    return gconv::invalid_argument("solution kernel " + kernel + " cannot run " + p.to_spec() + ": " + why);
  return k;
}

bool misaligned(const void* ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15u) != 0; }

// gconv_plan_run's argument checks: comparisons only; a message is built
// only for a failure.
Status check_plan_arguments(const gconv_plan_t& plan, const void* a, const void* b, const void* out,
                            const void* workspace, size_t workspace_bytes) {
  const std::pair<const char*, const void*> operands[] = {{"a", a}, {"b", b}, {"out", out}};
  for (const auto& [name, ptr] : operands) {
    if (ptr == nullptr) return null_argument(name);
    if (misaligned(ptr)) return gconv::invalid_argument(std::string(name) + " is not 16-byte aligned");
  }
  if (plan.workspace_bytes == 0) return Status::Ok();
  if (workspace == nullptr)
    return gconv::invalid_argument("workspace is NULL; " + plan.instance->name + " needs " +
                                   std::to_string(plan.workspace_bytes) + " bytes for " + plan.spec);
  if (misaligned(workspace)) return gconv::invalid_argument("workspace is not 16-byte aligned");
  if (workspace_bytes < plan.workspace_bytes)
    return gconv::invalid_argument("workspace of " + std::to_string(workspace_bytes) + " bytes is too small: " +
                                   plan.instance->name + " needs " + std::to_string(plan.workspace_bytes) +
                                   " bytes for " + plan.spec);
  return Status::Ok();
}

Status launch_plan(const gconv_plan_t& plan, const void* a, const void* b, void* out, void* workspace,
                   size_t workspace_bytes, void* stream) {
  const gconv::Instance& inst = *plan.instance;
  return inst.family->launch(inst.traits, inst.kernel, plan.problem,
                             gconv::ConvArgs{a, b, out, workspace, workspace != nullptr ? workspace_bytes : 0},
                             static_cast<CUstream_st*>(stream));
}

}  // namespace

extern "C" {

const char* gconv_version(void) { return GCONV_VERSION; }

const char* gconv_last_error(void) { return t_static_error != nullptr ? t_static_error : t_last_error.c_str(); }

const char* gconv_status_name(int status) {
  if (status < GCONV_OK || status > GCONV_ERR_NO_DEVICE) return "unknown";
  return gconv::to_string(static_cast<StatusCode>(status));
}

int gconv_dtype_bytes(int dtype) {
  return valid_dtype(dtype) ? gconv::dtype_bytes(static_cast<gconv::DType>(dtype)) : 0;
}

// ---- problems -------------------------------------------------------------

int gconv_problem_create_from_spec(const char* spec, gconv_problem_t** out) {
  return guarded([&]() -> Status {
    if (spec == nullptr) return null_argument("spec");
    if (out == nullptr) return null_argument("out");
    auto parsed = gconv::Problem::parse_spec(spec);
    if (!parsed.ok()) return parsed.status();
    return make_problem(*parsed, out);
  });
}

int gconv_problem_create(int ndim, int64_t n, int64_t c, int64_t k, int64_t g, const int64_t in[3],
                         const int64_t filter[3], const int64_t stride[3], const int64_t pad_lo[3],
                         const int64_t pad_hi[3], const int64_t dilation[3], int direction, int dtype,
                         gconv_problem_t** out) {
  return guarded([&]() -> Status {
    if (out == nullptr) return null_argument("out");
    if (in == nullptr) return null_argument("in");
    if (ndim < 1 || ndim > 3) return gconv::invalid_argument("ndim (" + std::to_string(ndim) + ") is not 1, 2 or 3");
    if (!valid_direction(direction))
      return gconv::invalid_argument("direction (" + std::to_string(direction) + ") is not a gconv_direction_t");
    if (!valid_dtype(dtype)) return gconv::invalid_argument("dtype (" + std::to_string(dtype) + ") is not a gconv_dtype_t");
    gconv::Problem p;
    p.ndim = ndim;
    p.n = n;
    p.c = c;
    p.k = k;
    p.g = g;
    copy3(in, p.in);
    copy3(filter, p.filter);
    copy3(stride, p.stride);
    copy3(pad_lo, p.pad_lo);
    copy3(pad_hi, p.pad_hi);
    copy3(dilation, p.dilation);
    p.direction = static_cast<gconv::Direction>(direction);
    p.dtype = static_cast<gconv::DType>(dtype);
    return make_problem(p, out);
  });
}

void gconv_problem_destroy(gconv_problem_t* p) { delete p; }

int gconv_problem_validate(const gconv_problem_t* p) {
  return guarded([&]() -> Status {
    if (p == nullptr) return null_argument("problem");
    return p->problem.validate();
  });
}

const char* gconv_problem_spec(const gconv_problem_t* p) { return p != nullptr ? p->spec.c_str() : ""; }

double gconv_problem_flops(const gconv_problem_t* p) {
  if (p == nullptr) return 0.0;
  // Problem::flops() forms int64 volumes first; in double nothing overflows.
  const gconv::Problem& q = p->problem;
  double f = 2.0 * double(q.n) * double(q.k) * double(q.c_per_group());
  for (int i = 0; i < 3; ++i) f *= double(checked_out(q, i)) * double(q.filter[i]);
  return f;
}

int gconv_problem_ndim(const gconv_problem_t* p) { return p != nullptr ? p->problem.ndim : 0; }

int gconv_problem_direction(const gconv_problem_t* p) {
  return p != nullptr ? static_cast<int>(p->problem.direction) : -1;
}

int gconv_problem_dtype(const gconv_problem_t* p) { return p != nullptr ? static_cast<int>(p->problem.dtype) : -1; }

int64_t gconv_problem_output_size(const gconv_problem_t* p, int slot) {
  if (p == nullptr || slot < 0 || slot > 2) return 0;
  return checked_out(p->problem, slot);
}

int gconv_problem_tensor_elements(const gconv_problem_t* p, int64_t* x, int64_t* w, int64_t* y) {
  return guarded([&]() -> Status {
    if (p == nullptr) return null_argument("problem");
    // Element counts straight from the sizes (the descriptors would
    // allocate), all checked before any is written (convention 3).
    const gconv::Problem& q = p->problem;
    const std::array<int64_t, 3> out_sizes{checked_out(q, 0), checked_out(q, 1), checked_out(q, 2)};
    int64_t nx = 0, nw = 0, ny = 0;
    if (!element_count(q.n, q.in, q.c, &nx)) return gconv::invalid_problem("x's element count overflows 64 bits");
    if (!element_count(q.k, q.filter, q.c_per_group(), &nw))
      return gconv::invalid_problem("w's element count overflows 64 bits");
    if (!element_count(q.n, out_sizes, q.k, &ny)) return gconv::invalid_problem("y's element count overflows 64 bits");
    if (x != nullptr) *x = nx;
    if (w != nullptr) *w = nw;
    if (y != nullptr) *y = ny;
    return Status::Ok();
  });
}

// ---- registry ---------------------------------------------------------------

int gconv_registry_create(const gconv_registry_options_t* options, gconv_registry_t** out) {
  return guarded([&]() -> Status {
    if (out == nullptr) return null_argument("out");
    gconv::RegistryOptions o;
    if (options != nullptr) {
      if (options->arch != nullptr) o.arch = options->arch;
      if (options->kernel_filter != nullptr) o.kernel_filter = options->kernel_filter;
      if (options->tuning_cache_path != nullptr) o.tuning_cache_path = options->tuning_cache_path;
      if (options->workspace_limit != 0) o.workspace_limit = options->workspace_limit;
      if (options->model_dir != nullptr) o.model_dir = options->model_dir;
    }
    auto created = gconv::Registry::create(o);
    if (!created.ok()) return created.status();
    auto h = std::make_unique<gconv_registry_t>();
    h->registry = std::move(created).value();
    *out = h.release();
    return Status::Ok();
  });
}

void gconv_registry_destroy(gconv_registry_t* r) { delete r; }

size_t gconv_registry_kernel_count(const gconv_registry_t* r, int direction, int dtype) {
  if (r == nullptr || !valid_direction(direction) || !valid_dtype(dtype)) return 0;
  try {
    return r->registry->kernel_count(static_cast<gconv::Direction>(direction), static_cast<gconv::DType>(dtype));
  } catch (...) {
    return 0;
  }
}

int gconv_select(gconv_registry_t* r, const gconv_problem_t* p, const char* policy, gconv_solution_t** out) {
  return guarded([&]() -> Status {
    if (r == nullptr) return null_argument("registry");
    if (p == nullptr) return null_argument("problem");
    if (out == nullptr) return null_argument("out");
    auto chosen = select_solution(*r, *p, policy);
    if (!chosen.ok()) return chosen.status();
    auto h = std::make_unique<gconv_solution_t>();
    h->solution = std::move(chosen).value();
    *out = h.release();
    return Status::Ok();
  });
}

int gconv_rank(gconv_registry_t* r, const gconv_problem_t* p, const char* policy, size_t limit,
               gconv_solution_t** out, size_t* count) {
  return guarded([&]() -> Status {
    if (r == nullptr) return null_argument("registry");
    if (p == nullptr) return null_argument("problem");
    if (count == nullptr) return null_argument("count");
    if (out == nullptr && limit > 0) return null_argument("out");
    auto pol = parse_policy(policy);
    if (!pol.ok()) return pol.status();
    auto ranked = r->registry->rank(p->problem, *pol, limit);
    if (!ranked.ok()) return ranked.status();
    // Every handle is made before any is written, so a failure (bad_alloc)
    // leaves out[] untouched and leaks nothing (convention 3).
    std::vector<std::unique_ptr<gconv_solution_t>> handles;
    handles.reserve(ranked->size());
    for (auto& s : *ranked) {
      handles.push_back(std::make_unique<gconv_solution_t>());
      handles.back()->solution = std::move(s);
    }
    for (size_t i = 0; i < handles.size(); ++i) out[i] = handles[i].release();
    *count = handles.size();
    return Status::Ok();
  });
}

int gconv_is_supported(gconv_registry_t* r, const gconv_problem_t* p, int* out) {
  return guarded([&]() -> Status {
    if (r == nullptr) return null_argument("registry");
    if (p == nullptr) return null_argument("problem");
    if (out == nullptr) return null_argument("out");
    // The analytic ranking is the registry's candidate filter (the same
    // can_implement the run path uses) without a model; memoized like select.
    auto chosen = r->registry->select(p->problem, gconv::Policy::analytic());
    if (!chosen.ok()) return chosen.status();
    *out = chosen->kernel.rfind("naive_", 0) == 0 ? 0 : 1;
    return Status::Ok();
  });
}

int gconv_workspace_bytes(gconv_registry_t* r, const gconv_problem_t* p, const char* policy, size_t* out) {
  return guarded([&]() -> Status {
    if (r == nullptr) return null_argument("registry");
    if (p == nullptr) return null_argument("problem");
    if (out == nullptr) return null_argument("out");
    auto chosen = select_solution(*r, *p, policy);
    if (!chosen.ok()) return chosen.status();
    *out = chosen->workspace_bytes;
    return Status::Ok();
  });
}

void gconv_solution_destroy(gconv_solution_t* s) { delete s; }

const char* gconv_solution_kernel_name(const gconv_solution_t* s) {
  return s != nullptr ? s->solution.kernel.c_str() : "";
}

size_t gconv_solution_workspace_bytes(const gconv_solution_t* s) {
  return s != nullptr ? s->solution.workspace_bytes : 0;
}

double gconv_solution_predicted_ms(const gconv_solution_t* s) { return s != nullptr ? s->solution.predicted_ms : -1; }

double gconv_solution_measured_ms(const gconv_solution_t* s) { return s != nullptr ? s->solution.measured_ms : -1; }

const char* gconv_solution_reason(const gconv_solution_t* s) { return s != nullptr ? s->solution.reason.c_str() : ""; }

int gconv_run(gconv_registry_t* r, const gconv_solution_t* s, const gconv_problem_t* p, const void* a, const void* b,
              void* out, void* workspace, size_t workspace_bytes, void* stream) {
  return guarded([&]() -> Status {
    if (r == nullptr) return null_argument("registry");
    if (s == nullptr) return null_argument("solution");
    if (p == nullptr) return null_argument("problem");
    if (a == nullptr) return null_argument("a");
    if (b == nullptr) return null_argument("b");
    if (out == nullptr) return null_argument("out");
    return r->registry->run(s->solution, p->problem, a, b, out, workspace, workspace_bytes,
                            static_cast<CUstream_st*>(stream));
  });
}

int gconv_run_problem(gconv_registry_t* r, const gconv_problem_t* p, const char* policy, const void* a,
                      const void* b, void* out, void* workspace, size_t workspace_bytes, void* stream) {
  return guarded([&]() -> Status {
    if (r == nullptr) return null_argument("registry");
    if (p == nullptr) return null_argument("problem");
    if (a == nullptr) return null_argument("a");
    if (b == nullptr) return null_argument("b");
    if (out == nullptr) return null_argument("out");
    auto chosen = select_solution(*r, *p, policy);
    if (!chosen.ok()) return chosen.status();
    return r->registry->run(*chosen, p->problem, a, b, out, workspace, workspace_bytes,
                            static_cast<CUstream_st*>(stream));
  });
}

// ---- plans ------------------------------------------------------------------

int gconv_plan_create(gconv_registry_t* r, const gconv_problem_t* p, const gconv_solution_t* s,
                      gconv_plan_t** out) {
  return guarded([&]() -> Status {
    if (r == nullptr) return null_argument("registry");
    if (p == nullptr) return null_argument("problem");
    if (out == nullptr) return null_argument("out");
    GCONV_RETURN_IF_ERROR(p->problem.validate());
    std::string kernel;
    if (s != nullptr) {
      kernel = s->solution.kernel;
    } else {
      auto chosen = r->registry->select(p->problem, gconv::Policy::heuristic());
      if (!chosen.ok()) return chosen.status();
      kernel = chosen->kernel;
    }
    // The form gconv runs (problem/fold.hpp), as the registry selected for it.
    const gconv::Problem run = gconv::fold_patches(p->problem);
    // Host-only checks first, so a wrong solution is reported without a GPU.
    auto resolved = resolve_kernel(kernel, run);
    if (!resolved.ok()) return resolved.status();
    int devices = 0;
    const cudaError_t counted = cudaGetDeviceCount(&devices);
    if (counted != cudaSuccess) {
      cudaGetLastError();  // not sticky; leave no error for the caller's next CUDA check
      return gconv::cuda_status(counted, "cudaGetDeviceCount");
    }
    if (devices == 0) return Status(StatusCode::no_device, "gconv_plan_create needs a GPU; none was found");
    auto plan = std::make_unique<gconv_plan_t>();
    GCONV_CUDA_RETURN_IF_ERROR(cudaGetDevice(&plan->device));
    auto inst = gconv::load_instance(resolved->traits, *resolved->family, kernel);
    if (!inst.ok()) return inst.status();
    plan->problem = run;
    plan->spec = p->spec;
    plan->instance = std::move(inst).value();
    plan->workspace_bytes = resolved->family->workspace_bytes(resolved->traits, run);
    *out = plan.release();
    return Status::Ok();
  });
}

void gconv_plan_destroy(gconv_plan_t* plan) { delete plan; }

size_t gconv_plan_workspace_bytes(const gconv_plan_t* plan) { return plan != nullptr ? plan->workspace_bytes : 0; }

const char* gconv_plan_kernel_name(const gconv_plan_t* plan) {
  return plan != nullptr ? plan->instance->name.c_str() : "";
}

const char* gconv_plan_spec(const gconv_plan_t* plan) { return plan != nullptr ? plan->spec.c_str() : ""; }

int gconv_plan_device(const gconv_plan_t* plan) { return plan != nullptr ? plan->device : -1; }

int gconv_plan_run(const gconv_plan_t* plan, const void* a, const void* b, void* out, void* workspace,
                   size_t workspace_bytes, void* stream) {
  return guarded([&]() -> Status {
    if (plan == nullptr) return null_argument("plan");
    GCONV_RETURN_IF_ERROR(check_plan_arguments(*plan, a, b, out, workspace, workspace_bytes));
    int current = 0;
    GCONV_CUDA_RETURN_IF_ERROR(cudaGetDevice(&current));  // a thread-local read in the runtime
    if (current == plan->device) return launch_plan(*plan, a, b, out, workspace, workspace_bytes, stream);
    GCONV_CUDA_RETURN_IF_ERROR(cudaSetDevice(plan->device));
    Status launched = launch_plan(*plan, a, b, out, workspace, workspace_bytes, stream);
    Status restored = gconv::cuda_status(cudaSetDevice(current), "cudaSetDevice (restoring the caller's device)");
    return launched.ok() ? restored : launched;
  });
}

// ---- host helpers -------------------------------------------------------------

int gconv_reference(const gconv_problem_t* p, const void* a, const void* b, void* out, int threads) {
  return guarded([&]() -> Status {
    if (p == nullptr) return null_argument("problem");
    if (threads < 0) return gconv::invalid_argument("threads (" + std::to_string(threads) + ") is negative");
    return gconv::reference_conv(p->problem, a, b, out, threads);
  });
}

int gconv_fill_random(int dtype, void* buf, int64_t n, uint64_t seed) {
  return guarded([&]() -> Status {
    if (!valid_dtype(dtype)) return gconv::invalid_argument("dtype (" + std::to_string(dtype) + ") is not a gconv_dtype_t");
    if (n < 0) return gconv::invalid_argument("n (" + std::to_string(n) + ") is negative");
    if (buf == nullptr && n > 0) return null_argument("buf");
    gconv::fill_random(static_cast<gconv::DType>(dtype), buf, n, seed);
    return Status::Ok();
  });
}

double gconv_load_element(int dtype, const void* buf, int64_t i) {
  if (!valid_dtype(dtype) || buf == nullptr || i < 0) return 0;
  return gconv::load_element(static_cast<gconv::DType>(dtype), buf, i);
}

}  // extern "C"
