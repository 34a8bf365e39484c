/* The C API from C: derived values, error codes and messages, selection
 * without a GPU, the thread-local last error. A plain C program (no gtest):
 * every failed check prints its line; the exit code is the number of failures
 * (capped), 0 when all pass. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gconv/gconv.h"

#include "capi_check.h"

static const char* kSpec = "fwd_bf16_n2c64k128g4_h14w14_y3x3_s2_p1";

static void test_library(void) {
  CHECK(strchr(gconv_version(), '.') != NULL);
  CHECK(strcmp(gconv_status_name(GCONV_ERR_INVALID_PROBLEM), "invalid_problem") == 0);
  CHECK(strcmp(gconv_status_name(GCONV_ERR_NO_DEVICE), "no_device") == 0);
  CHECK(strcmp(gconv_status_name(99), "unknown") == 0);
  CHECK(gconv_dtype_bytes(GCONV_BF16) == 2 && gconv_dtype_bytes(GCONV_FP32) == 4 && gconv_dtype_bytes(5) == 0);
}

static void test_problem_from_spec(void) {
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  if (p == NULL) return;
  CHECK(strcmp(gconv_last_error(), "") == 0);
  CHECK_STATUS(gconv_problem_validate(p), GCONV_OK);
  CHECK(gconv_problem_ndim(p) == 2);
  CHECK(gconv_problem_direction(p) == GCONV_FWD);
  CHECK(gconv_problem_dtype(p) == GCONV_BF16);
  /* (14 + 1 + 1 - 3) / 2 + 1 = 7 */
  CHECK(gconv_problem_output_size(p, 0) == 1);
  CHECK(gconv_problem_output_size(p, 1) == 7);
  CHECK(gconv_problem_output_size(p, 2) == 7);
  CHECK(gconv_problem_output_size(p, 3) == 0);
  /* 2 * N * K * Ho*Wo * C/G * Y*X = 2 * 2 * 128 * 49 * 16 * 9 */
  CHECK(gconv_problem_flops(p) == 3612672.0);
  int64_t x = 0, w = 0, y = 0;
  CHECK_STATUS(gconv_problem_tensor_elements(p, &x, &w, &y), GCONV_OK);
  CHECK(x == 2 * 14 * 14 * 64);
  CHECK(w == 128 * 3 * 3 * 16);
  CHECK(y == 2 * 7 * 7 * 128);
  CHECK_STATUS(gconv_problem_tensor_elements(p, NULL, &w, NULL), GCONV_OK);

  /* The canonical spec parses back to the same problem. */
  gconv_problem_t* again = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(gconv_problem_spec(p), &again), GCONV_OK);
  CHECK(again != NULL && strcmp(gconv_problem_spec(again), gconv_problem_spec(p)) == 0);
  gconv_problem_destroy(again);
  gconv_problem_destroy(p);
}

static void test_problem_from_fields(void) {
  /* The spec's problem again, field by field (2D: slot 0 is neutral). */
  const int64_t in[3] = {1, 14, 14}, filter[3] = {1, 3, 3}, stride[3] = {1, 2, 2}, pad[3] = {0, 1, 1};
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create(2, 2, 64, 128, 4, in, filter, stride, pad, pad, NULL, GCONV_FWD, GCONV_BF16, &p),
               GCONV_OK);
  gconv_problem_t* s = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &s), GCONV_OK);
  CHECK(p != NULL && s != NULL && strcmp(gconv_problem_spec(p), gconv_problem_spec(s)) == 0);
  gconv_problem_destroy(s);
  gconv_problem_destroy(p);

  /* NULL optional arrays mean a 1x1 filter, stride 1, no padding. */
  const int64_t in1[3] = {1, 1, 100};
  p = NULL;
  CHECK_STATUS(gconv_problem_create(1, 3, 8, 8, 8, in1, NULL, NULL, NULL, NULL, NULL, GCONV_BWD_DATA, GCONV_FP16, &p),
               GCONV_OK);
  CHECK_STATUS(gconv_problem_validate(p), GCONV_OK);
  CHECK(gconv_problem_output_size(p, 2) == 100);
  CHECK(gconv_problem_direction(p) == GCONV_BWD_DATA && gconv_problem_dtype(p) == GCONV_FP16);
  CHECK(gconv_problem_flops(p) == 2.0 * 3 * 8 * 100 * 1 * 1);
  gconv_problem_destroy(p);
}

static void test_bad_problems(void) {
  /* C = 7 is not a multiple of G = 2: created (syntax is fine), fails validation. */
  const int64_t in[3] = {1, 8, 8}, filter[3] = {1, 3, 3};
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create(2, 1, 7, 8, 2, in, filter, NULL, NULL, NULL, NULL, GCONV_FWD, GCONV_BF16, &p),
               GCONV_OK);
  CHECK_STATUS(gconv_problem_validate(p), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  CHECK_ERROR_MENTIONS("G (2)");
  /* A success clears the thread's last error. */
  CHECK_STATUS(gconv_fill_random(GCONV_BF16, NULL, 0, 1), GCONV_OK);
  CHECK(strcmp(gconv_last_error(), "") == 0);

  /* Stride 0 and G = 0: created, invalid, and the getters still answer
   * (no division by zero): output size 0 (< 1), no FLOPs. */
  const int64_t zero_stride[3] = {1, 0, 1};
  gconv_problem_t* z = NULL;
  CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 0, in, filter, zero_stride, NULL, NULL, NULL, GCONV_FWD, GCONV_BF16, &z),
               GCONV_OK);
  CHECK_STATUS(gconv_problem_validate(z), GCONV_ERR_INVALID_PROBLEM);
  CHECK(gconv_problem_output_size(z, 1) == 0);
  CHECK(gconv_problem_flops(z) == 0.0);
  int64_t zx = -1, zw = -1, zy = -1;
  CHECK_STATUS(gconv_problem_tensor_elements(z, &zx, &zw, &zy), GCONV_OK);
  CHECK(zw == 0 && zy == 0);
  gconv_problem_destroy(z);

  /* A 3x3 filter on a 2x2 input without padding. */
  gconv_problem_t* q = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_n1c8k8_h2w2_y3x3", &q), GCONV_OK);
  CHECK_STATUS(gconv_problem_validate(q), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("filter");
  gconv_problem_destroy(q);

  /* Malformed spec: parse error, *out untouched. */
  q = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_n1c8k8_h", &q), GCONV_ERR_PARSE);
  CHECK(q == NULL);
  CHECK(strlen(gconv_last_error()) > 0);

  /* Encoding errors are invalid_argument and name the argument. */
  CHECK_STATUS(gconv_problem_create(4, 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, GCONV_FWD, GCONV_BF16, &q),
               GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("ndim");
  CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, 3, GCONV_BF16, &q),
               GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("direction");
  CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, in, NULL, NULL, NULL, NULL, NULL, GCONV_FWD, 9, &q),
               GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("dtype");
  CHECK(q == NULL);
  gconv_problem_destroy(p);
}

static void test_null_arguments(void) {
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(NULL, &p), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("spec");
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_problem_create(2, 1, 8, 8, 1, NULL, NULL, NULL, NULL, NULL, NULL, GCONV_FWD, GCONV_BF16, &p),
               GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("in");
  CHECK_STATUS(gconv_problem_validate(NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_problem_tensor_elements(NULL, NULL, NULL, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_registry_create(NULL, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_select(NULL, NULL, "analytic", NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_run(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry");
  CHECK_STATUS(gconv_reference(NULL, NULL, NULL, NULL, 0), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, NULL, 4, 1), GCONV_ERR_INVALID_ARGUMENT);

  /* Getters never fail. */
  CHECK(gconv_problem_flops(NULL) == 0.0);
  CHECK(strcmp(gconv_problem_spec(NULL), "") == 0);
  CHECK(gconv_problem_direction(NULL) == -1);
  CHECK(strcmp(gconv_solution_kernel_name(NULL), "") == 0);
  CHECK(gconv_solution_workspace_bytes(NULL) == 0);
  CHECK(gconv_solution_measured_ms(NULL) == -1);
  CHECK(gconv_registry_kernel_count(NULL, GCONV_FWD, GCONV_BF16) == 0);
  gconv_problem_destroy(NULL);
  gconv_solution_destroy(NULL);
  gconv_registry_destroy(NULL);
}

static int have_gpu(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

static void test_registry(void) {
  gconv_registry_options_t options;
  memset(&options, 0, sizeof options);
  options.tuning_cache_path = "off"; /* no files written by a test */
  gconv_registry_t* reg = NULL;
  CHECK_STATUS(gconv_registry_create(&options, &reg), GCONV_OK);
  if (reg == NULL) return;
  CHECK(gconv_registry_kernel_count(reg, GCONV_FWD, GCONV_BF16) > 0);
  CHECK(gconv_registry_kernel_count(reg, 7, GCONV_BF16) == 0);

  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  gconv_solution_t* sol = NULL;
  CHECK_STATUS(gconv_select(reg, p, "analytic", &sol), GCONV_OK);
  CHECK(sol != NULL && strlen(gconv_solution_kernel_name(sol)) > 0);
  CHECK(sol != NULL && strlen(gconv_solution_reason(sol)) > 0);
  CHECK(gconv_solution_measured_ms(sol) == -1); /* analytic does not measure */

  gconv_solution_t* other = NULL;
  CHECK_STATUS(gconv_select(reg, p, "fastest", &other), GCONV_ERR_PARSE);
  CHECK(other == NULL);

  /* select validates the problem. */
  gconv_problem_t* bad = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_n1c7k8g2_h8w8", &bad), GCONV_OK);
  CHECK_STATUS(gconv_select(reg, bad, "analytic", &other), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  CHECK(other == NULL);
  gconv_problem_destroy(bad);

  /* Running needs a GPU. The pointers are never dereferenced without one; on
   * a machine with a GPU they would be (they are host memory), so skip. */
  static uint16_t a[16], b[16], out[16];
  if (!have_gpu()) {
    CHECK_STATUS(gconv_run(reg, sol, p, a, b, out, NULL, 0, NULL), GCONV_ERR_NO_DEVICE);
    CHECK(strlen(gconv_last_error()) > 0);
  } else {
    fprintf(stderr, "c_api_test: a GPU is present, gconv_run's no_device case not checked\n");
  }
  CHECK_STATUS(gconv_run(reg, sol, p, NULL, b, out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("a is NULL");

  gconv_solution_destroy(sol);
  gconv_problem_destroy(p);
  gconv_registry_destroy(reg);
}

/* gconv_reference on a pointwise fp32 problem against the sum by hand:
 * y[n, i, k] = sum_c x[n, i, c] * w[k, c]. */
static void test_reference(void) {
  enum { N = 2, W = 5, C = 3, K = 4 };
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_fp32_n2c3k4_w5", &p), GCONV_OK);
  if (p == NULL) return;
  float x[N * W * C], w[K * C], y[N * W * K];
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, x, N * W * C, 1), GCONV_OK);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, w, K * C, 2), GCONV_OK);
  CHECK_STATUS(gconv_reference(p, x, w, y, 1), GCONV_OK);
  for (int n = 0; n < N; ++n)
    for (int i = 0; i < W; ++i)
      for (int k = 0; k < K; ++k) {
        double want = 0;
        for (int c = 0; c < C; ++c) want += (double)x[(n * W + i) * C + c] * (double)w[k * C + c];
        const double got = gconv_load_element(GCONV_FP32, y, (n * W + i) * K + k);
        CHECK(fabs(got - want) <= 1e-6 * fabs(want) + 1e-7);
      }
  CHECK(x[0] != 0.0f && fabsf(x[0]) <= 1.0f);
  gconv_problem_destroy(p);
}

/* The last error is per thread: another thread's success does not clear it. */
static void* succeed_in_thread(void* arg) {
  gconv_problem_t* p = NULL;
  *(int*)arg = gconv_problem_create_from_spec(kSpec, &p);
  gconv_problem_destroy(p);
  return NULL;
}

static void test_thread_local_error(void) {
  CHECK_STATUS(gconv_problem_validate(NULL), GCONV_ERR_INVALID_ARGUMENT);
  pthread_t t;
  int status = -1;
  CHECK(pthread_create(&t, NULL, succeed_in_thread, &status) == 0);
  pthread_join(t, NULL);
  CHECK(status == GCONV_OK);
  CHECK_ERROR_MENTIONS("problem is NULL");
}

int main(void) {
  test_library();
  test_problem_from_spec();
  test_problem_from_fields();
  test_bad_problems();
  test_null_arguments();
  test_registry();
  test_reference();
  test_thread_local_error();
  return capi_exit_code("c_api_test");
}
