/* gconv C API: grouped convolution on NVIDIA GPUs, callable from C and any
 * language with a C FFI. A thin layer over the C++ API (gconv/registry.hpp,
 * gconv/problem.hpp); the meaning of every value is the C++ one.
 *
 * Conventions
 *  1. Status: every function that can fail returns an int, GCONV_OK (0) or
 *     one of the gconv_status_t codes (the values of gconv::StatusCode). The
 *     C API never aborts, never prints to stdout and lets no exception out.
 *  2. Errors: gconv_last_error() returns the message of the most recent
 *     status-returning call made BY THE CALLING THREAD ("" after a success).
 *     The message names the field or the call that failed, in one line. The
 *     pointer stays valid until that thread's next gconv call.
 *  3. Outputs: results are written through the last argument(s) (`out`)
 *     only on success; on failure *out is left untouched.
 *  4. Handles: gconv_registry_t, gconv_problem_t, gconv_solution_t and
 *     gconv_plan_t are opaque. Each is created by a gconv_*_create /
 *     gconv_select call, owned by the caller, and released with the matching
 *     gconv_*_destroy, which accepts NULL. A solution does not refer to the
 *     registry that made it, but it must be run with a registry for the
 *     same arch and pool.
 *  5. Strings returned by a handle's getter (kernel name, spec, reason) are
 *     owned by that handle and valid until it is destroyed. gconv_version()
 *     and gconv_status_name() return static strings.
 *  6. Getters (gconv_problem_flops, gconv_solution_kernel_name, ...) cannot
 *     fail: given NULL they return 0, -1 or "" as documented, and given a
 *     problem that does not validate (any sizes, even ones whose products
 *     overflow 64 bits) they return a value without undefined behaviour.
 *  7. Threads: a registry may be used from many threads at once (kernels are
 *     compiled once per process, on first use). Problems and solutions are
 *     immutable after creation and may be shared read-only between threads.
 *  8. Sizes and dimensions are int64_t; byte counts are size_t. Spatial
 *     arrays have 3 slots, outermost first and right-aligned, as in
 *     gconv/problem.hpp: slot 2 is W (or X), a 2D problem has slot 0 == 1,
 *     a 1D problem slots 0 and 1 == 1.
 *  9. Tensors are channels-last and densely packed: x (N,[D,][H,]W,C),
 *     w (K,[Z,][Y,]X,C/G), y (N,[Do,][Ho,]Wo,K). bf16 and fp16 elements are
 *     16-bit patterns (uint16_t), fp32 are float.
 * 10. Operands of gconv_run and gconv_reference per direction:
 *        GCONV_FWD         a = x,  b = w   -> out = y
 *        GCONV_BWD_DATA    a = dy, b = w   -> out = dx
 *        GCONV_BWD_WEIGHT  a = x,  b = dy  -> out = dw
 *     gconv_run takes device pointers (non-NULL, 16-byte aligned, on the
 *     current device) and a cudaStream_t passed as void* (NULL = the legacy
 *     default stream); it is asynchronous with respect to the host.
 * 11. Without a GPU, registries still create and select with the "analytic"
 *     or "heuristic" policy; gconv_run, gconv_plan_create and the measuring
 *     policies return GCONV_ERR_NO_DEVICE.
 * 12. Plans (gconv_plan_t) are the per-call fast path for a problem run many
 *     times (a framework's op): gconv_plan_create does once what gconv_run
 *     does on every call (validation, kernel lookup and load, the kernel's
 *     can_implement, the workspace size); gconv_plan_run only checks its
 *     arguments' values and launches.
 */
#ifndef GCONV_GCONV_H_
#define GCONV_GCONV_H_

#include <stddef.h>
#include <stdint.h>

/* Exported even when the library hides its other symbols. */
#if defined(__GNUC__)
#define GCONV_C_EXPORT __attribute__((visibility("default")))
#else
#define GCONV_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GCONV_OK = 0,
  GCONV_ERR_INVALID_ARGUMENT = 1, /* a bad value from the caller (NULL, out of range) */
  GCONV_ERR_INVALID_PROBLEM = 2,  /* a problem that fails validation */
  GCONV_ERR_NOT_SUPPORTED = 3,
  GCONV_ERR_PARSE = 4,            /* malformed spec or policy string */
  GCONV_ERR_IO = 5,
  GCONV_ERR_CUDA = 6,             /* a CUDA runtime call failed */
  GCONV_ERR_COMPILE = 7,          /* NVRTC failed */
  GCONV_ERR_OUT_OF_MEMORY = 8,
  GCONV_ERR_INTERNAL = 9,         /* a bug in gconv */
  GCONV_ERR_NOT_FOUND = 10,
  GCONV_ERR_NO_DEVICE = 11        /* no CUDA device is present */
} gconv_status_t;

typedef enum { GCONV_FWD = 0, GCONV_BWD_DATA = 1, GCONV_BWD_WEIGHT = 2 } gconv_direction_t;
typedef enum { GCONV_BF16 = 0, GCONV_FP16 = 1, GCONV_FP32 = 2 } gconv_dtype_t;

typedef struct gconv_registry_t gconv_registry_t;
typedef struct gconv_problem_t gconv_problem_t;
typedef struct gconv_solution_t gconv_solution_t;
typedef struct gconv_plan_t gconv_plan_t;

/* ---- library ---------------------------------------------------------- */

GCONV_C_EXPORT const char* gconv_version(void);              /* "0.1.0" */
GCONV_C_EXPORT const char* gconv_last_error(void);           /* see convention 2 */
GCONV_C_EXPORT const char* gconv_status_name(int status);    /* "invalid_problem"; "unknown" */
GCONV_C_EXPORT int gconv_dtype_bytes(int dtype);             /* 2, 2, 4; 0 if out of range */

/* ---- problems --------------------------------------------------------- */

/* From a spec such as "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1" (grammar in
 * the README). Checks the syntax only (GCONV_ERR_PARSE); the problem's rules
 * are checked by gconv_problem_validate, gconv_select and gconv_run. */
GCONV_C_EXPORT int gconv_problem_create_from_spec(const char* spec, gconv_problem_t** out);

/* From fields. ndim is 1, 2 or 3; c and k are totals over the g groups.
 * in[3] is required; filter, stride and dilation may be NULL (all 1), as may
 * pad_lo and pad_hi (all 0). Checks only ndim, direction and dtype
 * (GCONV_ERR_INVALID_ARGUMENT), not the problem's rules. */
GCONV_C_EXPORT int gconv_problem_create(int ndim, int64_t n, int64_t c, int64_t k, int64_t g,
                                        const int64_t in[3], const int64_t filter[3],
                                        const int64_t stride[3], const int64_t pad_lo[3],
                                        const int64_t pad_hi[3], const int64_t dilation[3],
                                        int direction, int dtype, gconv_problem_t** out);

GCONV_C_EXPORT void gconv_problem_destroy(gconv_problem_t* p);

/* GCONV_OK, or GCONV_ERR_INVALID_PROBLEM with the rule that failed. */
GCONV_C_EXPORT int gconv_problem_validate(const gconv_problem_t* p);

/* Canonical spec; "" for NULL. A problem that validates parses back from it
 * to the same problem (one that does not may not: e.g. a negative size). */
GCONV_C_EXPORT const char* gconv_problem_spec(const gconv_problem_t* p);
/* 2 * N * K * out_volume * C/G * filter_volume; 0 for NULL. */
GCONV_C_EXPORT double gconv_problem_flops(const gconv_problem_t* p);
GCONV_C_EXPORT int gconv_problem_ndim(const gconv_problem_t* p);       /* 0 for NULL */
GCONV_C_EXPORT int gconv_problem_direction(const gconv_problem_t* p);  /* -1 for NULL */
GCONV_C_EXPORT int gconv_problem_dtype(const gconv_problem_t* p);      /* -1 for NULL */
/* Output size of spatial slot 0..2 (may be < 1 for a problem that does not
 * validate); 0 for NULL, a slot out of range, or a size that does not fit
 * int64. */
GCONV_C_EXPORT int64_t gconv_problem_output_size(const gconv_problem_t* p, int slot);
/* Element counts of x, w and y (any of x, w, y may be NULL): the products of
 * the sizes as given, even for a problem that does not validate.
 * GCONV_ERR_INVALID_PROBLEM when a count does not fit int64. */
GCONV_C_EXPORT int gconv_problem_tensor_elements(const gconv_problem_t* p, int64_t* x, int64_t* w,
                                                 int64_t* y);

/* ---- registry --------------------------------------------------------- */

/* Zero-initialize for defaults: `gconv_registry_options_t o = {0};`. */
typedef struct {
  const char* arch;               /* NULL / "" = the current device (sm_90a without a GPU) */
  const char* kernel_filter;      /* pool filter expression, NULL / "" = whole pool */
  const char* tuning_cache_path;  /* NULL / "" = default location; "off" disables */
  size_t workspace_limit;         /* most the registry allocates itself; 0 = 1 GiB */
  /* The heuristic policy's model folder: NULL / "" = $GCONV_MODELS_DIR or the
   * shipped models; "off" = none (the analytic estimate ranks). Added in
   * 0.1.0 after the first four: a caller built against the four-field struct
   * must be rebuilt (the library reads this field). */
  const char* model_dir;
} gconv_registry_options_t;

/* options may be NULL (all defaults). Errors include GCONV_ERR_PARSE for a
 * malformed kernel_filter and GCONV_ERR_NOT_SUPPORTED for an arch that names
 * no compute capability ("sm_90a" does). */
GCONV_C_EXPORT int gconv_registry_create(const gconv_registry_options_t* options,
                                         gconv_registry_t** out);
GCONV_C_EXPORT void gconv_registry_destroy(gconv_registry_t* r);
/* Pool kernels for (direction, dtype) after the filter; 0 for NULL or a value
 * out of range. */
GCONV_C_EXPORT size_t gconv_registry_kernel_count(const gconv_registry_t* r, int direction,
                                                  int dtype);

/* Chooses a kernel for p. policy: "heuristic" (also for NULL), "analytic",
 * "exhaustive" or "topk:K", 1 <= K <= 100000 (the last two time kernels on
 * the GPU). Errors: GCONV_ERR_PARSE for another policy,
 * GCONV_ERR_INVALID_PROBLEM, GCONV_ERR_NO_DEVICE (convention 11). */
GCONV_C_EXPORT int gconv_select(gconv_registry_t* r, const gconv_problem_t* p, const char* policy,
                                gconv_solution_t** out);

GCONV_C_EXPORT void gconv_solution_destroy(gconv_solution_t* s);
GCONV_C_EXPORT const char* gconv_solution_kernel_name(const gconv_solution_t* s);  /* "" for NULL */
GCONV_C_EXPORT size_t gconv_solution_workspace_bytes(const gconv_solution_t* s);   /* 0 for NULL */
GCONV_C_EXPORT double gconv_solution_predicted_ms(const gconv_solution_t* s);      /* -1 for NULL */
/* Measured by "exhaustive" / "topk"; -1 when not measured or NULL. */
GCONV_C_EXPORT double gconv_solution_measured_ms(const gconv_solution_t* s);
GCONV_C_EXPORT const char* gconv_solution_reason(const gconv_solution_t* s);       /* "" for NULL */

/* Candidates ranked by the policy's estimate, best first, never measured
 * (exhaustive and topk rank by the analytic estimate; the analytic order
 * breaks near-ties by the term the estimate's max() hides, so a predicted
 * time may exceed the next one's by up to 1%). Writes at most limit
 * solution handles to out[0..] and their number to *count; the caller
 * destroys each. A problem no pool kernel implements ranks one entry, the
 * fallback. */
GCONV_C_EXPORT int gconv_rank(gconv_registry_t* r, const gconv_problem_t* p, const char* policy,
                              size_t limit, gconv_solution_t** out, size_t* count);

/* *out = 1 when a pool kernel implements p, 0 when only the general
 * fallback kernel does (it still runs, slowly). GCONV_ERR_INVALID_PROBLEM
 * for a problem that fails validation (no kernel runs it). */
GCONV_C_EXPORT int gconv_is_supported(gconv_registry_t* r, const gconv_problem_t* p, int* out);

/* Workspace bytes that gconv_run_problem needs for p under policy (the
 * selected solution's), so a caller can allocate it from its own pool. */
GCONV_C_EXPORT int gconv_workspace_bytes(gconv_registry_t* r, const gconv_problem_t* p, const char* policy,
                                         size_t* out);

/* Runs s for p (operands per convention 10). workspace may be NULL when the
 * solution needs none or the registry may allocate it. stream is a
 * cudaStream_t. */
GCONV_C_EXPORT int gconv_run(gconv_registry_t* r, const gconv_solution_t* s, const gconv_problem_t* p,
                             const void* a, const void* b, void* out, void* workspace,
                             size_t workspace_bytes, void* stream);

/* Selects (policy as gconv_select; "heuristic" and "analytic" answers are
 * memoized per problem by the registry, so a repeated problem costs a hash
 * lookup) and runs, in one call. Measuring policies answer from the tuning
 * cache or measure on first use (synchronizing). */
GCONV_C_EXPORT int gconv_run_problem(gconv_registry_t* r, const gconv_problem_t* p, const char* policy,
                                     const void* a, const void* b, void* out, void* workspace,
                                     size_t workspace_bytes, void* stream);

/* ---- plans (convention 12) ---------------------------------------------- */

/* Binds p to the kernel of s (a solution for p from gconv_select or
 * gconv_rank; NULL = gconv_select(r, p, "heuristic")) and loads that kernel
 * (compiling it on first use, through the JIT cache) for the device current
 * now, which becomes the plan's device. Errors: GCONV_ERR_INVALID_PROBLEM;
 * GCONV_ERR_INVALID_ARGUMENT when s's kernel cannot run p (named, with the
 * rule); GCONV_ERR_NO_DEVICE without a GPU; GCONV_ERR_COMPILE. The plan
 * keeps its own copy of p and its kernel: r, p and s may be destroyed after.
 * A plan is immutable; many threads may run it at once, on any streams. */
GCONV_C_EXPORT int gconv_plan_create(gconv_registry_t* r, const gconv_problem_t* p, const gconv_solution_t* s,
                                     gconv_plan_t** out);
GCONV_C_EXPORT void gconv_plan_destroy(gconv_plan_t* plan);
/* Workspace bytes every gconv_plan_run of this plan needs; 0 for NULL. */
GCONV_C_EXPORT size_t gconv_plan_workspace_bytes(const gconv_plan_t* plan);
GCONV_C_EXPORT const char* gconv_plan_kernel_name(const gconv_plan_t* plan);  /* "" for NULL */
GCONV_C_EXPORT const char* gconv_plan_spec(const gconv_plan_t* plan);         /* "" for NULL */
GCONV_C_EXPORT int gconv_plan_device(const gconv_plan_t* plan);               /* -1 for NULL */

/* Runs the plan's problem on its device (operands per convention 10),
 * asynchronously on stream. No selection, no allocation, no lock, no
 * pointer-attribute query. It checks: plan, a, b and out non-NULL and
 * 16-byte aligned; when the plan needs a workspace, workspace non-NULL,
 * 16-byte aligned and workspace_bytes >= gconv_plan_workspace_bytes
 * (GCONV_ERR_INVALID_ARGUMENT, naming the argument). It does NOT check that
 * the pointers are device memory of the plan's device holding the plan's
 * dense tensors (gconv_run does): the caller guarantees it. When another
 * device is current, the plan's device is made current for the launch and
 * the caller's restored. */
GCONV_C_EXPORT int gconv_plan_run(const gconv_plan_t* plan, const void* a, const void* b, void* out,
                                  void* workspace, size_t workspace_bytes, void* stream);

/* ---- host helpers (for tests and examples) ---------------------------- */

/* CPU reference convolution on HOST buffers of p's dtype (operands per
 * convention 10), fp64 accumulation, each output rounded once. threads = 0
 * uses every core. Slow: meant for checking small problems. Errors:
 * GCONV_ERR_INVALID_PROBLEM; GCONV_ERR_INVALID_ARGUMENT for a NULL operand or
 * threads < 0; nothing is written then. */
GCONV_C_EXPORT int gconv_reference(const gconv_problem_t* p, const void* a, const void* b, void* out,
                                   int threads);
/* Fills n host elements of dtype with values in [-1, 1], never zero; element
 * i depends only on (seed, i). GCONV_ERR_INVALID_ARGUMENT for a dtype out of
 * range, n < 0, or buf NULL with n > 0 (n = 0 writes nothing). */
GCONV_C_EXPORT int gconv_fill_random(int dtype, void* buf, int64_t n, uint64_t seed);
/* Element i of a host buffer of dtype, as double (exact); 0 for NULL, i < 0
 * or a dtype out of range. */
GCONV_C_EXPORT double gconv_load_element(int dtype, const void* buf, int64_t i);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* GCONV_GCONV_H_ */
