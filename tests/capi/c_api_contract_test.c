/* The contract of every gconv.h function against bad input: NULL for each
 * pointer argument, enums and sizes out of range, malformed strings, calls
 * that need a GPU on a machine without one, and host allocations that fail
 * (every entry point turns std::bad_alloc into GCONV_ERR_OUT_OF_MEMORY, never
 * an abort). Each check asserts the exact documented status, that *out is
 * left untouched on failure (convention 3), that the message names the
 * problem (convention 2), and that nothing reaches stdout (convention 1).
 * Runs without a GPU (label host); with one, the no-device checks are
 * skipped. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, mkstemp */

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "capi_check.h"
#include "gconv/gconv.h"

/* Grouped, padded, small enough for the reference. */
static const char* kSpec = "fwd_fp32_n2c8k8g2_h5w5_y3x3_s1_p1";
/* Syntax fine, rules broken: C = 7 is not a multiple of G = 2. */
static const char* kInvalidSpec = "fwd_fp32_n1c7k8g2_h8w8";

static int have_gpu(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

/* Handles that no call may write on failure. */
#define SENTINEL(type) ((type*)(uintptr_t)0x10)

/* ---- host allocations that fail ------------------------------------------
 * malloc is replaced for the whole process (glibc resolves the C++ runtime's
 * operator new to it): with a budget of k, the first k allocations succeed
 * and every later one fails until the budget is lifted. Not under a
 * sanitizer, which owns malloc. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CAPI_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CAPI_SANITIZED 1
#endif
#if defined(__GLIBC__) && !defined(CAPI_SANITIZED)
#define CAPI_FAULT_INJECTION 1
extern void* __libc_malloc(size_t size);
static volatile long g_alloc_budget = -1; /* -1: no limit */
static volatile long g_alloc_refused = 0;

void* malloc(size_t size) {
  if (g_alloc_budget >= 0) {
    if (g_alloc_budget == 0) {
      ++g_alloc_refused;
      return NULL;
    }
    --g_alloc_budget;
  }
  return __libc_malloc(size);
}
#endif

/* ---- stdout must stay empty ------------------------------------------------ */

static int g_saved_stdout = -1;
static int g_capture_fd = -1;
static char g_capture_path[] = "/tmp/gconv_c_api_contract_stdout_XXXXXX";

static void capture_stdout(void) {
  fflush(stdout);
  g_capture_fd = mkstemp(g_capture_path);
  CHECK(g_capture_fd >= 0);
  if (g_capture_fd < 0) return;
  g_saved_stdout = dup(STDOUT_FILENO);
  CHECK(g_saved_stdout >= 0 && dup2(g_capture_fd, STDOUT_FILENO) == STDOUT_FILENO);
}

static void check_stdout_empty(void) {
  if (g_capture_fd < 0) return;
  fflush(stdout);
  const off_t size = lseek(g_capture_fd, 0, SEEK_END);
  dup2(g_saved_stdout, STDOUT_FILENO);
  close(g_saved_stdout);
  if (size != 0) {
    char text[512] = {0};
    lseek(g_capture_fd, 0, SEEK_SET);
    const ssize_t got = read(g_capture_fd, text, sizeof text - 1);
    fprintf(stderr, "the library wrote %ld bytes to stdout: \"%s\"\n", (long)size, got > 0 ? text : "");
  }
  CHECK(size == 0);
  close(g_capture_fd);
  unlink(g_capture_path);
}

/* ---- library ------------------------------------------------------------- */

static void test_library(void) {
  /* "0.1.0": digits and two dots, a static string. */
  const char* v = gconv_version();
  int dots = 0, digits = 0;
  for (const char* c = v; *c != '\0'; ++c) {
    dots += *c == '.';
    digits += *c >= '0' && *c <= '9';
  }
  CHECK(dots == 2 && digits >= 3 && digits + dots == (int)strlen(v));
  CHECK(gconv_version() == v);

  static const char* const kNames[] = {"ok",          "invalid_argument", "invalid_problem", "not_supported",
                                       "parse_error", "io_error",         "cuda_error",      "compile_error",
                                       "out_of_memory", "internal",       "not_found",       "no_device"};
  for (int s = GCONV_OK; s <= GCONV_ERR_NO_DEVICE; ++s) CHECK(strcmp(gconv_status_name(s), kNames[s]) == 0);
  const int out_of_range[] = {-1, GCONV_ERR_NO_DEVICE + 1, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; ++i)
    CHECK(strcmp(gconv_status_name(out_of_range[i]), "unknown") == 0);

  CHECK(gconv_dtype_bytes(GCONV_BF16) == 2 && gconv_dtype_bytes(GCONV_FP16) == 2 && gconv_dtype_bytes(GCONV_FP32) == 4);
  CHECK(gconv_dtype_bytes(-1) == 0 && gconv_dtype_bytes(3) == 0 && gconv_dtype_bytes(INT_MIN) == 0);

  /* The last error: set by a failure, "" after a success (convention 2). */
  CHECK_STATUS(gconv_problem_validate(NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, NULL, 0, 1), GCONV_OK);
  CHECK(strcmp(gconv_last_error(), "") == 0);
}

/* ---- problems ------------------------------------------------------------ */

static void test_problem_create_from_spec(void) {
  gconv_problem_t* p = SENTINEL(gconv_problem_t);
  CHECK_STATUS(gconv_problem_create_from_spec(NULL, &p), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("spec is NULL");
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_problem_create_from_spec("", &p), GCONV_ERR_PARSE);
  CHECK_ERROR_MENTIONS("empty spec");
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_bf16_n1c8q8_h8w8", &p), GCONV_ERR_PARSE);
  CHECK_ERROR_MENTIONS("unknown key 'q'");
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_n1c99999999999999999999k8_h8w8", &p), GCONV_ERR_PARSE);
  CHECK_ERROR_MENTIONS("overflows int64");
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_n1k8_h8w8", &p), GCONV_ERR_PARSE);
  CHECK_ERROR_MENTIONS("missing input channels c");
  CHECK(p == SENTINEL(gconv_problem_t));

  /* Syntax only: a stride of 0 is created, and validation names it. */
  p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_n1c8k8_h8w8_s0", &p), GCONV_OK);
  CHECK_STATUS(gconv_problem_validate(p), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("stride_h (0)");
  gconv_problem_destroy(p);
}

static void test_problem_create(void) {
  const int64_t in[3] = {1, 8, 8};
  gconv_problem_t* p = SENTINEL(gconv_problem_t);
  CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, GCONV_FWD, GCONV_BF16, NULL),
               GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, NULL, NULL, NULL, NULL, NULL, NULL, GCONV_FWD, GCONV_BF16, &p),
               GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("in is NULL");
  const int bad_ndims[] = {0, 4, -1, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof bad_ndims / sizeof bad_ndims[0]; ++i) {
    CHECK_STATUS(gconv_problem_create(bad_ndims[i], 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, GCONV_FWD,
                                      GCONV_BF16, &p),
                 GCONV_ERR_INVALID_ARGUMENT);
    CHECK_ERROR_MENTIONS("ndim");
  }
  const int bad_enums[] = {-1, 3, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof bad_enums / sizeof bad_enums[0]; ++i) {
    CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, bad_enums[i], GCONV_BF16, &p),
                 GCONV_ERR_INVALID_ARGUMENT);
    CHECK_ERROR_MENTIONS("direction");
    CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, GCONV_FWD, bad_enums[i], &p),
                 GCONV_ERR_INVALID_ARGUMENT);
    CHECK_ERROR_MENTIONS("dtype");
  }
  CHECK(p == SENTINEL(gconv_problem_t));

  /* The optional arrays, NULL: filter/stride/dilation 1, padding 0. */
  p = NULL;
  CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, GCONV_BWD_WEIGHT, GCONV_FP16, &p),
               GCONV_OK);
  CHECK(strcmp(gconv_problem_spec(p), "bwd_weight_fp16_n1c8k8g1_h8w8_y1x1_s1_p0_dil1") == 0);
  CHECK_STATUS(gconv_problem_validate(p), GCONV_OK);
  CHECK(strcmp(gconv_last_error(), "") == 0);
  gconv_problem_destroy(p);
}

/* Sizes no problem may have: created (only ndim, direction and dtype are
 * checked), refused by validate with the field named, and every getter
 * answers without undefined behaviour (convention 6). */
static void test_problem_bad_sizes(void) {
  const int64_t extremes[] = {0, -1, INT64_MIN, INT64_MAX};
  for (size_t e = 0; e < sizeof extremes / sizeof extremes[0]; ++e) {
    const int64_t v = extremes[e];
    const int64_t in[3] = {v, v, v}, f[3] = {v, v, v}, s[3] = {v, v, v}, d[3] = {v, v, v};
    for (int ndim = 1; ndim <= 3; ++ndim) {
      gconv_problem_t* p = NULL;
      CHECK_STATUS(gconv_problem_create(ndim, v, v, v, v, in, f, s, in, in, d, GCONV_FWD, GCONV_FP32, &p), GCONV_OK);
      if (p == NULL) continue;
      CHECK_STATUS(gconv_problem_validate(p), GCONV_ERR_INVALID_PROBLEM);
      if (v < 1) CHECK_ERROR_MENTIONS("N ("); /* the first rule broken */
      if (v == INT64_MAX) CHECK_ERROR_MENTIONS(ndim == 3 ? "exceeds 2^31" : "is unused");
      CHECK(strlen(gconv_problem_spec(p)) > 0);
      CHECK(!isnan(gconv_problem_flops(p)));
      CHECK(gconv_problem_ndim(p) == ndim && gconv_problem_direction(p) == GCONV_FWD &&
            gconv_problem_dtype(p) == GCONV_FP32);
      for (int slot = 0; slot < 3; ++slot) (void)gconv_problem_output_size(p, slot);
      CHECK(gconv_problem_output_size(p, -1) == 0 && gconv_problem_output_size(p, 3) == 0 &&
            gconv_problem_output_size(p, INT_MIN) == 0);
      int64_t x = -7, w = -7, y = -7;
      const int st = gconv_problem_tensor_elements(p, &x, &w, &y);
      if (st == GCONV_OK) {
        CHECK(strcmp(gconv_last_error(), "") == 0);
      } else {
        CHECK_STATUS(st, GCONV_ERR_INVALID_PROBLEM);
        CHECK_ERROR_MENTIONS("overflows 64 bits");
        CHECK(x == -7 && w == -7 && y == -7);
      }
      gconv_problem_destroy(p);
    }
  }
  /* INT64_MAX everywhere overflows every count. */
  const int64_t m = INT64_MAX;
  const int64_t in[3] = {m, m, m};
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create(3, m, m, m, 1, in, NULL, NULL, NULL, NULL, NULL, GCONV_FWD, GCONV_FP32, &p),
               GCONV_OK);
  int64_t x = -7;
  CHECK_STATUS(gconv_problem_tensor_elements(p, &x, NULL, NULL), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("x's element count overflows");
  CHECK(x == -7);
  CHECK(gconv_problem_output_size(p, 2) == m); /* (m - 1) / 1 + 1 fits */
  gconv_problem_destroy(p);
}

static void test_problem_null(void) {
  CHECK_STATUS(gconv_problem_validate(NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK(strcmp(gconv_problem_spec(NULL), "") == 0);
  CHECK(gconv_problem_flops(NULL) == 0.0);
  CHECK(gconv_problem_ndim(NULL) == 0);
  CHECK(gconv_problem_direction(NULL) == -1);
  CHECK(gconv_problem_dtype(NULL) == -1);
  CHECK(gconv_problem_output_size(NULL, 0) == 0 && gconv_problem_output_size(NULL, 2) == 0);
  int64_t x = -7, w = -7, y = -7;
  CHECK_STATUS(gconv_problem_tensor_elements(NULL, &x, &w, &y), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK(x == -7 && w == -7 && y == -7);
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  CHECK_STATUS(gconv_problem_tensor_elements(p, NULL, NULL, NULL), GCONV_OK); /* all three may be NULL */
  CHECK_STATUS(gconv_problem_tensor_elements(p, &x, &w, &y), GCONV_OK);
  CHECK(x == 2 * 5 * 5 * 8 && w == 8 * 3 * 3 * 4 && y == 2 * 5 * 5 * 8);
  gconv_problem_destroy(p);
  gconv_problem_destroy(NULL);
}

/* ---- registry ------------------------------------------------------------ */

static gconv_registry_t* make_registry(const char* filter) {
  gconv_registry_options_t options;
  memset(&options, 0, sizeof options);
  options.tuning_cache_path = "off"; /* no tuning-cache hit answers a measuring policy */
  options.kernel_filter = filter;
  gconv_registry_t* reg = NULL;
  CHECK_STATUS(gconv_registry_create(&options, &reg), GCONV_OK);
  return reg;
}

static void test_registry_create(void) {
  CHECK_STATUS(gconv_registry_create(NULL, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  gconv_registry_t* r = SENTINEL(gconv_registry_t);
  gconv_registry_options_t options;
  memset(&options, 0, sizeof options);
  options.tuning_cache_path = "off";
  options.kernel_filter = "tile_m >";
  CHECK_STATUS(gconv_registry_create(&options, &r), GCONV_ERR_PARSE);
  CHECK_ERROR_MENTIONS("filter");
  options.kernel_filter = NULL;
  options.arch = "gpu";
  CHECK_STATUS(gconv_registry_create(&options, &r), GCONV_ERR_NOT_SUPPORTED);
  CHECK_ERROR_MENTIONS("arch 'gpu'");
  CHECK(r == SENTINEL(gconv_registry_t));

  /* options NULL: all defaults; "" reads as NULL. */
  r = NULL;
  CHECK_STATUS(gconv_registry_create(NULL, &r), GCONV_OK);
  gconv_registry_destroy(r);
  memset(&options, 0, sizeof options);
  options.arch = "";
  options.kernel_filter = "";
  options.tuning_cache_path = "off";
  options.model_dir = "off";
  r = NULL;
  CHECK_STATUS(gconv_registry_create(&options, &r), GCONV_OK);
  CHECK(gconv_registry_kernel_count(r, GCONV_FWD, GCONV_BF16) > 0);
  gconv_registry_destroy(r);
  gconv_registry_destroy(NULL);

  CHECK(gconv_registry_kernel_count(NULL, GCONV_FWD, GCONV_BF16) == 0);
}

static void test_kernel_count(gconv_registry_t* reg) {
  CHECK(gconv_registry_kernel_count(reg, GCONV_FWD, GCONV_FP32) > 0);
  const int bad[] = {-1, 3, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    CHECK(gconv_registry_kernel_count(reg, bad[i], GCONV_FP32) == 0);
    CHECK(gconv_registry_kernel_count(reg, GCONV_FWD, bad[i]) == 0);
  }
}

static const char* const kBadPolicies[] = {"", "fastest", "Heuristic", "heuristic ", "topk", "topk:",
                                           "topk:0", "topk:-1", "topk:abc", "topk:100001", "topk:2x"};
enum { kBadPolicyCount = sizeof kBadPolicies / sizeof kBadPolicies[0] };

static void test_select(gconv_registry_t* reg, const gconv_problem_t* p, const gconv_problem_t* invalid) {
  gconv_solution_t* s = SENTINEL(gconv_solution_t);
  CHECK_STATUS(gconv_select(NULL, p, "analytic", &s), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK_STATUS(gconv_select(reg, NULL, "analytic", &s), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_select(reg, p, "analytic", NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  for (int i = 0; i < kBadPolicyCount; ++i) {
    CHECK_STATUS(gconv_select(reg, p, kBadPolicies[i], &s), GCONV_ERR_PARSE);
    CHECK_ERROR_MENTIONS("policy");
  }
  CHECK_STATUS(gconv_select(reg, invalid, "analytic", &s), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  if (!have_gpu()) {
    CHECK_STATUS(gconv_select(reg, p, "exhaustive", &s), GCONV_ERR_NO_DEVICE);
    CHECK_ERROR_MENTIONS("needs a GPU");
    CHECK_STATUS(gconv_select(reg, p, "topk:2", &s), GCONV_ERR_NO_DEVICE);
    CHECK_ERROR_MENTIONS("needs a GPU");
  }
  CHECK(s == SENTINEL(gconv_solution_t));

  /* NULL policy is heuristic. */
  gconv_solution_t *by_null = NULL, *by_name = NULL;
  CHECK_STATUS(gconv_select(reg, p, NULL, &by_null), GCONV_OK);
  CHECK_STATUS(gconv_select(reg, p, "heuristic", &by_name), GCONV_OK);
  CHECK(by_null != NULL && by_name != NULL &&
        strcmp(gconv_solution_kernel_name(by_null), gconv_solution_kernel_name(by_name)) == 0);
  CHECK(gconv_solution_measured_ms(by_null) == -1);
  gconv_solution_destroy(by_null);
  gconv_solution_destroy(by_name);

  CHECK(strcmp(gconv_solution_kernel_name(NULL), "") == 0);
  CHECK(gconv_solution_workspace_bytes(NULL) == 0);
  CHECK(gconv_solution_predicted_ms(NULL) == -1);
  CHECK(gconv_solution_measured_ms(NULL) == -1);
  CHECK(strcmp(gconv_solution_reason(NULL), "") == 0);
  gconv_solution_destroy(NULL);
}

static void test_rank(gconv_registry_t* reg, const gconv_problem_t* p, const gconv_problem_t* invalid) {
  gconv_solution_t* out[4] = {NULL, NULL, NULL, NULL};
  size_t count = 99;
  CHECK_STATUS(gconv_rank(NULL, p, "analytic", 4, out, &count), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK_STATUS(gconv_rank(reg, NULL, "analytic", 4, out, &count), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_rank(reg, p, "analytic", 4, out, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("count is NULL");
  CHECK_STATUS(gconv_rank(reg, p, "analytic", 4, NULL, &count), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  for (int i = 0; i < kBadPolicyCount; ++i) {
    CHECK_STATUS(gconv_rank(reg, p, kBadPolicies[i], 4, out, &count), GCONV_ERR_PARSE);
    CHECK_ERROR_MENTIONS("policy");
  }
  CHECK_STATUS(gconv_rank(reg, invalid, "analytic", 4, out, &count), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  CHECK(count == 99 && out[0] == NULL);

  /* limit 0 needs no array. */
  CHECK_STATUS(gconv_rank(reg, p, "analytic", 0, NULL, &count), GCONV_OK);
  CHECK(count == 0);
  /* The measuring policies rank by the estimate: no GPU needed, nothing measured. */
  const char* policies[] = {NULL, "heuristic", "analytic", "exhaustive", "topk:3"};
  for (size_t k = 0; k < sizeof policies / sizeof policies[0]; ++k) {
    count = 99;
    CHECK_STATUS(gconv_rank(reg, p, policies[k], 3, out, &count), GCONV_OK);
    CHECK(count >= 1 && count <= 3);
    CHECK(out[3] == NULL); /* at most limit */
    for (size_t i = 0; i < count && i < 3; ++i) {
      CHECK(out[i] != NULL && strlen(gconv_solution_kernel_name(out[i])) > 0);
      CHECK(gconv_solution_measured_ms(out[i]) == -1);
      gconv_solution_destroy(out[i]);
      out[i] = NULL;
    }
  }
}

/* A pool filter that matches nothing: only the fallback runs p. */
static void test_fallback_only(const gconv_problem_t* p) {
  gconv_registry_t* none = make_registry("tile_m > 1000000 && family == igemm");
  if (none == NULL) return;
  CHECK(gconv_registry_kernel_count(none, GCONV_FWD, GCONV_FP32) == 0);
  gconv_solution_t* out[3] = {NULL, NULL, NULL};
  size_t count = 0;
  CHECK_STATUS(gconv_rank(none, p, "analytic", 3, out, &count), GCONV_OK);
  CHECK(count == 1 && out[0] != NULL && strncmp(gconv_solution_kernel_name(out[0]), "naive_", 6) == 0);
  CHECK(out[1] == NULL);
  gconv_solution_destroy(out[0]);
  int supported = -1;
  CHECK_STATUS(gconv_is_supported(none, p, &supported), GCONV_OK);
  CHECK(supported == 0);
  gconv_registry_destroy(none);
}

static void test_is_supported(gconv_registry_t* reg, const gconv_problem_t* p, const gconv_problem_t* invalid) {
  int out = -7;
  CHECK_STATUS(gconv_is_supported(NULL, p, &out), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK_STATUS(gconv_is_supported(reg, NULL, &out), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_is_supported(reg, p, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_is_supported(reg, invalid, &out), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  CHECK(out == -7);
  CHECK_STATUS(gconv_is_supported(reg, p, &out), GCONV_OK);
  CHECK(out == 1);
}

static void test_workspace_bytes(gconv_registry_t* reg, const gconv_problem_t* p, const gconv_problem_t* invalid) {
  size_t out = 12345;
  CHECK_STATUS(gconv_workspace_bytes(NULL, p, "analytic", &out), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK_STATUS(gconv_workspace_bytes(reg, NULL, "analytic", &out), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_workspace_bytes(reg, p, "analytic", NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_workspace_bytes(reg, p, "fastest", &out), GCONV_ERR_PARSE);
  CHECK_ERROR_MENTIONS("policy 'fastest'");
  CHECK_STATUS(gconv_workspace_bytes(reg, invalid, "analytic", &out), GCONV_ERR_INVALID_PROBLEM);
  if (!have_gpu()) CHECK_STATUS(gconv_workspace_bytes(reg, p, "exhaustive", &out), GCONV_ERR_NO_DEVICE);
  CHECK(out == 12345);
  gconv_solution_t* s = NULL;
  CHECK_STATUS(gconv_select(reg, p, "analytic", &s), GCONV_OK);
  CHECK_STATUS(gconv_workspace_bytes(reg, p, "analytic", &out), GCONV_OK);
  CHECK(out == gconv_solution_workspace_bytes(s));
  gconv_solution_destroy(s);
}

/* Host buffers, 16-byte aligned: never dereferenced without a GPU (every
 * call below fails before a launch). */
_Alignas(16) static float g_a[64], g_b[64], g_out[64];

static void test_run(gconv_registry_t* reg, const gconv_problem_t* p, const gconv_problem_t* invalid) {
  gconv_solution_t* s = NULL;
  CHECK_STATUS(gconv_select(reg, p, "analytic", &s), GCONV_OK);
  if (s == NULL) return;
  CHECK_STATUS(gconv_run(NULL, s, p, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK_STATUS(gconv_run(reg, NULL, p, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("solution is NULL");
  CHECK_STATUS(gconv_run(reg, s, NULL, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_run(reg, s, p, NULL, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("a is NULL");
  CHECK_STATUS(gconv_run(reg, s, p, g_a, NULL, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("b is NULL");
  CHECK_STATUS(gconv_run(reg, s, p, g_a, g_b, NULL, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_run(reg, s, invalid, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  CHECK_STATUS(gconv_run(reg, s, p, (const char*)g_a + 4, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("aligned");

  CHECK_STATUS(gconv_run_problem(NULL, p, NULL, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK_STATUS(gconv_run_problem(reg, NULL, NULL, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_run_problem(reg, p, NULL, NULL, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("a is NULL");
  CHECK_STATUS(gconv_run_problem(reg, p, NULL, g_a, NULL, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("b is NULL");
  CHECK_STATUS(gconv_run_problem(reg, p, NULL, g_a, g_b, NULL, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_run_problem(reg, p, "fastest", g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_PARSE);
  CHECK_ERROR_MENTIONS("policy 'fastest'");
  CHECK_STATUS(gconv_run_problem(reg, invalid, NULL, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_PROBLEM);

  if (!have_gpu()) {
    /* Convention 11; workspace NULL is allowed. */
    CHECK_STATUS(gconv_run(reg, s, p, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_NO_DEVICE);
    CHECK_ERROR_MENTIONS("GPU");
    CHECK_STATUS(gconv_run_problem(reg, p, NULL, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_NO_DEVICE);
    CHECK_ERROR_MENTIONS("GPU");
    CHECK_STATUS(gconv_run_problem(reg, p, "analytic", g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_NO_DEVICE);
    CHECK_STATUS(gconv_run_problem(reg, p, "exhaustive", g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_NO_DEVICE);
    CHECK_ERROR_MENTIONS("needs a GPU");
  }
  gconv_solution_destroy(s);
}

static void test_plan(gconv_registry_t* reg, const gconv_problem_t* p, const gconv_problem_t* invalid) {
  gconv_plan_t* plan = SENTINEL(gconv_plan_t);
  CHECK_STATUS(gconv_plan_create(NULL, p, NULL, &plan), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK_STATUS(gconv_plan_create(reg, NULL, NULL, &plan), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_plan_create(reg, p, NULL, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_plan_create(reg, invalid, NULL, &plan), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  if (!have_gpu()) {
    CHECK_STATUS(gconv_plan_create(reg, p, NULL, &plan), GCONV_ERR_NO_DEVICE);
    CHECK_ERROR_MENTIONS("cudaGetDeviceCount");
  }
  CHECK(plan == SENTINEL(gconv_plan_t));

  CHECK(gconv_plan_workspace_bytes(NULL) == 0);
  CHECK(strcmp(gconv_plan_kernel_name(NULL), "") == 0);
  CHECK(strcmp(gconv_plan_spec(NULL), "") == 0);
  CHECK(gconv_plan_device(NULL) == -1);
  /* plan is checked first, whatever else is passed. */
  CHECK_STATUS(gconv_plan_run(NULL, g_a, g_b, g_out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("plan is NULL");
  CHECK_STATUS(gconv_plan_run(NULL, NULL, NULL, NULL, NULL, SIZE_MAX, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("plan is NULL");
  gconv_plan_destroy(NULL);
}

/* ---- host helpers ---------------------------------------------------------- */

static void test_reference(const gconv_problem_t* p, const gconv_problem_t* invalid) {
  int64_t nx = 0, nw = 0, ny = 0;
  CHECK_STATUS(gconv_problem_tensor_elements(p, &nx, &nw, &ny), GCONV_OK);
  float *x = calloc((size_t)nx, sizeof(float)), *w = calloc((size_t)nw, sizeof(float));
  float* y = malloc((size_t)ny * sizeof(float));
  CHECK(x != NULL && w != NULL && y != NULL);
  if (x == NULL || w == NULL || y == NULL) return;
  for (int64_t i = 0; i < ny; ++i) y[i] = 42.0f;
  CHECK_STATUS(gconv_reference(NULL, x, w, y, 0), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");
  CHECK_STATUS(gconv_reference(p, NULL, w, y, 0), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("operand a is null");
  CHECK_STATUS(gconv_reference(p, x, NULL, y, 0), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("operand b is null");
  CHECK_STATUS(gconv_reference(p, x, w, NULL, 0), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("output is null");
  CHECK_STATUS(gconv_reference(p, x, w, y, -1), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("threads (-1)");
  CHECK_STATUS(gconv_reference(p, x, w, y, INT_MIN), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_reference(invalid, x, w, y, 0), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  int untouched = 1;
  for (int64_t i = 0; i < ny; ++i) untouched &= y[i] == 42.0f;
  CHECK(untouched); /* nothing written on failure */
  /* Zero operands give a zero output, every element overwritten. */
  CHECK_STATUS(gconv_reference(p, x, w, y, 0), GCONV_OK);
  int zero = 1;
  for (int64_t i = 0; i < ny; ++i) zero &= y[i] == 0.0f;
  CHECK(zero);
  free(x);
  free(w);
  free(y);
}

static void test_fill_and_load(void) {
  float buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = 42.0f;
  CHECK_STATUS(gconv_fill_random(-1, buf, 8, 1), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("dtype (-1)");
  CHECK_STATUS(gconv_fill_random(3, buf, 8, 1), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("dtype (3)");
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, buf, -1, 1), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("n (-1)");
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, buf, INT64_MIN, 1), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, NULL, 1, 1), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("buf is NULL");
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, NULL, 0, 1), GCONV_OK);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, buf, 0, 1), GCONV_OK);
  int untouched = 1;
  for (int i = 0; i < 8; ++i) untouched &= buf[i] == 42.0f;
  CHECK(untouched);
  /* Element i depends only on (seed, i): a prefix of a longer fill. */
  float longer[8];
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, buf, 5, 9), GCONV_OK);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, longer, 8, 9), GCONV_OK);
  for (int i = 0; i < 5; ++i) CHECK(buf[i] == longer[i] && buf[i] != 0.0f && fabsf(buf[i]) <= 1.0f);

  /* load_element: exact; 0 for NULL, i < 0 and a dtype out of range. */
  const uint16_t halves[2] = {0x3F80, 0x3C00}; /* bf16 1.0, fp16 1.0 */
  const float f[1] = {-0.375f};
  CHECK(gconv_load_element(GCONV_BF16, halves, 0) == 1.0);
  CHECK(gconv_load_element(GCONV_FP16, halves, 1) == 1.0);
  CHECK(gconv_load_element(GCONV_FP32, f, 0) == -0.375);
  CHECK(gconv_load_element(GCONV_FP32, NULL, 0) == 0.0);
  CHECK(gconv_load_element(GCONV_FP32, f, -1) == 0.0);
  CHECK(gconv_load_element(GCONV_FP32, f, INT64_MIN) == 0.0);
  CHECK(gconv_load_element(-1, f, 0) == 0.0 && gconv_load_element(3, f, 0) == 0.0);
}

/* ---- out of host memory ------------------------------------------------- */

#ifdef CAPI_FAULT_INJECTION
/* One call under test: runs it (with allocations failing after `budget`)
 * and returns its status; undo() releases what a success made. */
typedef struct {
  const char* what;
  int final_status; /* what the call returns when memory suffices */
  int (*call)(void* ctx);
  void (*undo)(void* ctx);
  int (*untouched)(void* ctx); /* convention 3, checked after a failure */
  void* ctx;
} AllocCase;

/* Runs c with the first k allocations allowed, k = 0, 1, 2, ... until the
 * call gets through: each earlier run must fail with exactly
 * GCONV_ERR_OUT_OF_MEMORY, a message saying so and *out untouched (and must
 * not abort: before the fix, building that message threw again out of a
 * noexcept function). */
static void sweep_allocations(const AllocCase* c, long max_budget) {
  long k = 0;
  for (; k <= max_budget; ++k) {
    g_alloc_refused = 0;
    g_alloc_budget = k;
    const int status = c->call(c->ctx);
    g_alloc_budget = -1;
    if (status == c->final_status && g_alloc_refused == 0) break;
    if (status == c->final_status) {
      /* A caller-side catch may have absorbed a refusal (e.g. a cache that
       * is optional): still the documented result. */
      if (c->undo != NULL) c->undo(c->ctx);
      continue;
    }
    if (status != GCONV_ERR_OUT_OF_MEMORY) {
      fprintf(stderr, "%s with %ld allocations: %s (%d), want out_of_memory or %s: %s\n", c->what, k,
              gconv_status_name(status), status, gconv_status_name(c->final_status), gconv_last_error());
      ++g_failures;
      return;
    }
    if (strstr(gconv_last_error(), "out of host memory") == NULL) {
      fprintf(stderr, "%s with %ld allocations: message \"%s\" does not name the lack of memory\n", c->what, k,
              gconv_last_error());
      ++g_failures;
    }
    if (c->untouched != NULL && !c->untouched(c->ctx)) {
      fprintf(stderr, "%s with %ld allocations: *out written on failure\n", c->what, k);
      ++g_failures;
    }
  }
  if (c->undo != NULL) c->undo(c->ctx);
  if (k > max_budget) {
    fprintf(stderr, "%s: still failing with %ld allocations\n", c->what, max_budget);
    ++g_failures;
  }
}

typedef struct {
  gconv_registry_t* reg;
  const gconv_problem_t* p;
  const gconv_problem_t* invalid;
  gconv_problem_t* problem;
  gconv_solution_t* solution;
  gconv_solution_t* ranked[3];
  size_t count;
  int flag;
  size_t bytes;
  float* x;
  float* w;
  float* y;
} OomCtx;

static int untouched_problem(void* v) { return ((OomCtx*)v)->problem == SENTINEL(gconv_problem_t); }
static void undo_problem(void* v) {
  OomCtx* c = v;
  if (c->problem != SENTINEL(gconv_problem_t)) gconv_problem_destroy(c->problem);
  c->problem = SENTINEL(gconv_problem_t);
}
static int call_from_spec(void* v) {
  OomCtx* c = v;
  c->problem = SENTINEL(gconv_problem_t);
  return gconv_problem_create_from_spec(kSpec, &c->problem);
}
static int call_bad_spec(void* v) {
  OomCtx* c = v;
  c->problem = SENTINEL(gconv_problem_t);
  return gconv_problem_create_from_spec("fwd_n1c8k8_h8w8_q3", &c->problem);
}
static int call_create(void* v) {
  OomCtx* c = v;
  const int64_t in[3] = {1, 9, 7}, f[3] = {1, 3, 3};
  c->problem = SENTINEL(gconv_problem_t);
  return gconv_problem_create(2, 2, 24, 16, 4, in, f, NULL, NULL, NULL, NULL, GCONV_BWD_DATA, GCONV_BF16, &c->problem);
}
static int call_validate(void* v) { return gconv_problem_validate(((OomCtx*)v)->invalid); }
static int call_elements(void* v) {
  int64_t x = 0;
  return gconv_problem_tensor_elements(((OomCtx*)v)->p, &x, NULL, NULL);
}
static int untouched_solution(void* v) { return ((OomCtx*)v)->solution == SENTINEL(gconv_solution_t); }
static void undo_solution(void* v) {
  OomCtx* c = v;
  if (c->solution != SENTINEL(gconv_solution_t)) gconv_solution_destroy(c->solution);
  c->solution = SENTINEL(gconv_solution_t);
}
static int call_select(void* v) {
  OomCtx* c = v;
  c->solution = SENTINEL(gconv_solution_t);
  return gconv_select(c->reg, c->p, "analytic", &c->solution);
}
static int untouched_rank(void* v) {
  OomCtx* c = v;
  return c->count == 99 && c->ranked[0] == NULL;
}
static void undo_rank(void* v) {
  OomCtx* c = v;
  for (size_t i = 0; i < 3; ++i) {
    gconv_solution_destroy(c->ranked[i]);
    c->ranked[i] = NULL;
  }
  c->count = 99;
}
static int call_rank(void* v) {
  OomCtx* c = v;
  c->count = 99;
  return gconv_rank(c->reg, c->p, "exhaustive", 3, c->ranked, &c->count);
}
static int untouched_flag(void* v) { return ((OomCtx*)v)->flag == -7; }
static int call_is_supported(void* v) {
  OomCtx* c = v;
  c->flag = -7;
  return gconv_is_supported(c->reg, c->p, &c->flag);
}
static int untouched_bytes(void* v) { return ((OomCtx*)v)->bytes == 12345; }
static int call_workspace(void* v) {
  OomCtx* c = v;
  c->bytes = 12345;
  return gconv_workspace_bytes(c->reg, c->p, "analytic", &c->bytes);
}
static int call_run(void* v) {
  OomCtx* c = v;
  return gconv_run_problem(c->reg, c->p, "analytic", g_a, g_b, g_out, NULL, 0, NULL);
}
static int call_plan(void* v) {
  OomCtx* c = v;
  gconv_plan_t* plan = NULL;
  return gconv_plan_create(c->reg, c->p, NULL, &plan);
}
static int call_reference(void* v) {
  OomCtx* c = v;
  return gconv_reference(c->p, c->x, c->w, c->y, 1); /* one thread: the sweep's budget is not thread-safe */
}
static void test_out_of_memory(gconv_registry_t* reg, const gconv_problem_t* p, const gconv_problem_t* invalid) {
  int64_t nx = 0, nw = 0, ny = 0;
  CHECK_STATUS(gconv_problem_tensor_elements(p, &nx, &nw, &ny), GCONV_OK);
  OomCtx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.reg = reg;
  ctx.p = p;
  ctx.invalid = invalid;
  ctx.problem = SENTINEL(gconv_problem_t);
  ctx.solution = SENTINEL(gconv_solution_t);
  ctx.count = 99;
  ctx.x = calloc((size_t)nx, sizeof(float));
  ctx.w = calloc((size_t)nw, sizeof(float));
  ctx.y = calloc((size_t)ny, sizeof(float));
  /* Not swept: gconv_registry_create and a registry's first use of a pool
   * parse JSON configs with nlohmann::json, whose destructor allocates and
   * terminates on bad_alloc (a limitation outside the C API). So the pools
   * this registry selects from are loaded before the sweep. */
  CHECK(gconv_registry_kernel_count(reg, GCONV_FWD, GCONV_FP32) > 0);
  const int no_gpu = !have_gpu();
  /* The replacement malloc is the one the library's operator new calls:
   * with no allocation allowed, a problem cannot be made. */
  gconv_problem_t* q = SENTINEL(gconv_problem_t);
  g_alloc_refused = 0;
  g_alloc_budget = 0;
  const int first = gconv_problem_create_from_spec(kSpec, &q);
  g_alloc_budget = -1;
  CHECK_STATUS(first, GCONV_ERR_OUT_OF_MEMORY);
  CHECK(g_alloc_refused > 0 && q == SENTINEL(gconv_problem_t));
  CHECK_ERROR_MENTIONS("out of host memory");
  const AllocCase cases[] = {
      {"gconv_problem_create_from_spec", GCONV_OK, call_from_spec, undo_problem, untouched_problem, &ctx},
      {"gconv_problem_create_from_spec (malformed)", GCONV_ERR_PARSE, call_bad_spec, undo_problem, untouched_problem,
       &ctx},
      {"gconv_problem_create", GCONV_OK, call_create, undo_problem, untouched_problem, &ctx},
      {"gconv_problem_validate", GCONV_ERR_INVALID_PROBLEM, call_validate, NULL, NULL, &ctx},
      {"gconv_problem_tensor_elements", GCONV_OK, call_elements, NULL, NULL, &ctx},
      {"gconv_select", GCONV_OK, call_select, undo_solution, untouched_solution, &ctx},
      {"gconv_rank", GCONV_OK, call_rank, undo_rank, untouched_rank, &ctx},
      {"gconv_is_supported", GCONV_OK, call_is_supported, NULL, untouched_flag, &ctx},
      {"gconv_workspace_bytes", GCONV_OK, call_workspace, NULL, untouched_bytes, &ctx},
      {"gconv_reference", GCONV_OK, call_reference, NULL, NULL, &ctx},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) sweep_allocations(&cases[i], 20000);
  if (no_gpu) {
    const AllocCase gpu_cases[] = {
        {"gconv_run_problem", GCONV_ERR_NO_DEVICE, call_run, NULL, NULL, &ctx},
        {"gconv_plan_create", GCONV_ERR_NO_DEVICE, call_plan, NULL, NULL, &ctx},
    };
    for (size_t i = 0; i < sizeof gpu_cases / sizeof gpu_cases[0]; ++i) sweep_allocations(&gpu_cases[i], 20000);
  }
  free(ctx.x);
  free(ctx.w);
  free(ctx.y);
}
#endif

int main(void) {
  capture_stdout();
  test_library();
  test_problem_create_from_spec();
  test_problem_create();
  test_problem_bad_sizes();
  test_problem_null();
  test_registry_create();
  gconv_registry_t* reg = make_registry(NULL);
  gconv_problem_t *p = NULL, *invalid = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  CHECK_STATUS(gconv_problem_create_from_spec(kInvalidSpec, &invalid), GCONV_OK);
  if (reg != NULL && p != NULL && invalid != NULL) {
    test_kernel_count(reg);
    test_select(reg, p, invalid);
    test_rank(reg, p, invalid);
    test_fallback_only(p);
    test_is_supported(reg, p, invalid);
    test_workspace_bytes(reg, p, invalid);
    test_run(reg, p, invalid);
    test_plan(reg, p, invalid);
    test_reference(p, invalid);
#ifdef CAPI_FAULT_INJECTION
    test_out_of_memory(reg, p, invalid);
#else
    fprintf(stderr, "c_api_contract_test: no fault injection in this build, bad_alloc not checked\n");
#endif
  }
  test_fill_and_load();
  gconv_problem_destroy(p);
  gconv_problem_destroy(invalid);
  gconv_registry_destroy(reg);
  check_stdout_empty();
  return capi_exit_code("c_api_contract_test");
}
