/* Plans (gconv.h convention 12): gconv_plan_create's checks and errors, the
 * NULL contract of the getters and of gconv_plan_run, and, on a machine with
 * a GPU, a plan's results against gconv_reference and gconv_plan_run's
 * argument checks. The host part runs everywhere (label host). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "capi_check.h"
#include "gconv/gconv.h"

/* Grouped, strided, padded, odd sizes: what a framework's op hands over. */
static const char* kSpec = "fwd_fp32_n2c24k16g4_h9w7_y3x3_s2_p1";

static int have_gpu(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

static gconv_registry_t* make_registry(void) {
  gconv_registry_options_t options;
  memset(&options, 0, sizeof options);
  options.tuning_cache_path = "off";
  gconv_registry_t* reg = NULL;
  CHECK_STATUS(gconv_registry_create(&options, &reg), GCONV_OK);
  return reg;
}

static void test_null_contract(void) {
  gconv_plan_t* const sentinel = (gconv_plan_t*)(uintptr_t)0x10;
  gconv_plan_t* plan = sentinel;
  CHECK_STATUS(gconv_plan_create(NULL, NULL, NULL, &plan), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("registry is NULL");
  CHECK(plan == sentinel); /* convention 3 */
  CHECK(gconv_plan_workspace_bytes(NULL) == 0);
  CHECK(strcmp(gconv_plan_kernel_name(NULL), "") == 0);
  CHECK(strcmp(gconv_plan_spec(NULL), "") == 0);
  CHECK(gconv_plan_device(NULL) == -1);
  static float a[4], b[4], out[4];
  CHECK_STATUS(gconv_plan_run(NULL, a, b, out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("plan is NULL");
  gconv_plan_destroy(NULL);
}

/* What gconv_plan_create checks before it needs a GPU. */
static void test_create_checks(gconv_registry_t* reg) {
  gconv_problem_t* p = NULL;
  gconv_solution_t* s = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  CHECK_STATUS(gconv_select(reg, p, "heuristic", &s), GCONV_OK);
  if (p == NULL || s == NULL) return;
  gconv_plan_t* plan = NULL;
  CHECK_STATUS(gconv_plan_create(reg, p, s, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is NULL");
  CHECK_STATUS(gconv_plan_create(reg, NULL, s, &plan), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("problem is NULL");

  /* The problem is validated (C not divisible by G). */
  gconv_problem_t* bad = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_fp32_n1c7k8g2_h8w8", &bad), GCONV_OK);
  CHECK_STATUS(gconv_plan_create(reg, bad, s, &plan), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  CHECK(plan == NULL);
  gconv_problem_destroy(bad);

  /* A solution for another problem: its kernel's can_implement refuses the
   * other direction, and the message names the kernel. */
  gconv_problem_t* other = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("bwd_data_fp32_n2c24k16g4_h9w7_y3x3_s2_p1", &other), GCONV_OK);
  CHECK_STATUS(gconv_plan_create(reg, other, s, &plan), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS(gconv_solution_kernel_name(s));
  CHECK_ERROR_MENTIONS("cannot run");
  CHECK(plan == NULL);
  gconv_problem_destroy(other);

  if (!have_gpu()) {
    CHECK_STATUS(gconv_plan_create(reg, p, s, &plan), GCONV_ERR_NO_DEVICE);
    CHECK(strlen(gconv_last_error()) > 0);
    CHECK(plan == NULL);
    CHECK_STATUS(gconv_plan_create(reg, p, NULL, &plan), GCONV_ERR_NO_DEVICE); /* NULL = heuristic */
    CHECK(plan == NULL);
  }
  gconv_solution_destroy(s);
  gconv_problem_destroy(p);
}

/* fp32 runs the tensor cores in TF32 (10-bit mantissa): each output within
 * 2^-9 of the sum of |products| (the reference on |x| and |w|). */
static void test_plan_runs_like_the_reference(gconv_registry_t* reg) {
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  if (p == NULL) return;
  int64_t nx = 0, nw = 0, ny = 0;
  CHECK_STATUS(gconv_problem_tensor_elements(p, &nx, &nw, &ny), GCONV_OK);
  gconv_plan_t* plan = NULL;
  CHECK_STATUS(gconv_plan_create(reg, p, NULL, &plan), GCONV_OK);
  if (plan == NULL) {
    gconv_problem_destroy(p);
    return;
  }
  gconv_solution_t* s = NULL;
  CHECK_STATUS(gconv_select(reg, p, "heuristic", &s), GCONV_OK);
  CHECK(strcmp(gconv_plan_kernel_name(plan), gconv_solution_kernel_name(s)) == 0);
  CHECK(gconv_plan_workspace_bytes(plan) == gconv_solution_workspace_bytes(s));
  CHECK(strcmp(gconv_plan_spec(plan), gconv_problem_spec(p)) == 0);
  int dev = -1;
  CHECK(cudaGetDevice(&dev) == cudaSuccess && gconv_plan_device(plan) == dev);
  gconv_solution_destroy(s);
  gconv_problem_destroy(p); /* the plan keeps its own copy */

  float* hx = malloc(sizeof(float) * (size_t)nx);
  float* hw = malloc(sizeof(float) * (size_t)nw);
  float* hy = malloc(sizeof(float) * (size_t)ny);
  float* want = malloc(sizeof(float) * (size_t)ny);
  float* bound = malloc(sizeof(float) * (size_t)ny);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, hx, nx, 11), GCONV_OK);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, hw, nw, 12), GCONV_OK);
  gconv_problem_t* q = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &q), GCONV_OK);
  CHECK_STATUS(gconv_reference(q, hx, hw, want, 0), GCONV_OK);
  for (int64_t i = 0; i < nx; ++i) hx[i] = fabsf(hx[i]);
  for (int64_t i = 0; i < nw; ++i) hw[i] = fabsf(hw[i]);
  CHECK_STATUS(gconv_reference(q, hx, hw, bound, 0), GCONV_OK);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, hx, nx, 11), GCONV_OK);
  CHECK_STATUS(gconv_fill_random(GCONV_FP32, hw, nw, 12), GCONV_OK);
  gconv_problem_destroy(q);

  void *dx = NULL, *dw = NULL, *dy = NULL, *ws = NULL;
  const size_t ws_bytes = gconv_plan_workspace_bytes(plan);
  CHECK(cudaMalloc(&dx, sizeof(float) * (size_t)nx) == cudaSuccess);
  CHECK(cudaMalloc(&dw, sizeof(float) * (size_t)nw) == cudaSuccess);
  CHECK(cudaMalloc(&dy, sizeof(float) * (size_t)ny + 16) == cudaSuccess);
  if (ws_bytes > 0) CHECK(cudaMalloc(&ws, ws_bytes) == cudaSuccess);
  CHECK(cudaMemcpy(dx, hx, sizeof(float) * (size_t)nx, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(cudaMemcpy(dw, hw, sizeof(float) * (size_t)nw, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(cudaMemset(dy, 0xff, sizeof(float) * (size_t)ny) == cudaSuccess); /* NaN until written */

  /* Argument checks, before anything is launched. */
  CHECK_STATUS(gconv_plan_run(plan, NULL, dw, dy, ws, ws_bytes, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("a is NULL");
  CHECK_STATUS(gconv_plan_run(plan, dx, dw, (char*)dy + 4, ws, ws_bytes, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("out is not 16-byte aligned");
  if (ws_bytes > 0) {
    CHECK_STATUS(gconv_plan_run(plan, dx, dw, dy, ws, ws_bytes - 1, NULL), GCONV_ERR_INVALID_ARGUMENT);
    CHECK_ERROR_MENTIONS("too small");
  }

  cudaStream_t stream = NULL;
  CHECK(cudaStreamCreate(&stream) == cudaSuccess);
  for (int rep = 0; rep < 3; ++rep) /* a plan runs any number of times */
    CHECK_STATUS(gconv_plan_run(plan, dx, dw, dy, ws, ws_bytes, stream), GCONV_OK);
  CHECK(strcmp(gconv_last_error(), "") == 0);
  CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(cudaMemcpy(hy, dy, sizeof(float) * (size_t)ny, cudaMemcpyDeviceToHost) == cudaSuccess);
  int bad = 0;
  for (int64_t i = 0; i < ny; ++i)
    if (!(fabsf(hy[i] - want[i]) <= bound[i] / 512.0f + 1e-6f)) ++bad;
  CHECK(bad == 0);

  cudaStreamDestroy(stream);
  cudaFree(dx);
  cudaFree(dw);
  cudaFree(dy);
  cudaFree(ws);
  free(hx);
  free(hw);
  free(hy);
  free(want);
  free(bound);
  gconv_plan_destroy(plan);
}

int main(void) {
  test_null_contract();
  gconv_registry_t* reg = make_registry();
  if (reg != NULL) {
    test_create_checks(reg);
    if (have_gpu())
      test_plan_runs_like_the_reference(reg);
    else
      fprintf(stderr, "c_api_plan_test: no GPU, the plan's results are not checked\n");
  }
  gconv_registry_destroy(reg);
  return capi_exit_code("c_api_plan_test");
}
