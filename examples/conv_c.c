/* Forward convolution from C, through the C API (gconv/gconv.h).
 *
 *   conv_c [SPEC] [--dtype bf16|fp16|fp32] [--check] [--policy P] [--iters N]
 *
 * Without SPEC: a ResNet-50 conv2_x 3x3 layer, batch 8. The same steps as
 * conv_fwd.cpp: random x and w on the GPU, select, run, time, and with
 * --check compare y with the CPU reference (gconv_reference).
 * Exit code: 0 ok, 1 error or failed check, 2 bad command line, 77 no GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gconv/gconv.h"

#define SKIP 77

static const char* kDefaultSpec = "fwd_bf16_n8c64k64g1_h56w56_y3x3_s1_p1";

/* Prints the failed call with the library's message; the exit code for it. */
static int fail(const char* what, int status) {
  fprintf(stderr, "conv_c: %s: %s: %s\n", what, gconv_status_name(status), gconv_last_error());
  return status == GCONV_ERR_NO_DEVICE ? SKIP : 1;
}

static int cuda_fail(const char* what, cudaError_t e) {
  fprintf(stderr, "conv_c: %s: %s\n", what, cudaGetErrorString(e));
  return 1;
}

/* Per element |out - ref| <= rtol*|ref| + atol*rms(ref), no NaN; as in the
 * C++ examples, rtol is about one ulp of the output type. */
static int check_output(int dtype, const void* out, const void* ref, int64_t n) {
  const double rtol = dtype == GCONV_BF16 ? 1.0 / 128 : dtype == GCONV_FP16 ? 1.0 / 512 : 1.0 / 1024;
  const double atol = dtype == GCONV_BF16 ? 1.0 / 256 : dtype == GCONV_FP16 ? 1.0 / 1024 : 1.0 / 256;
  double ref_sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = gconv_load_element(dtype, ref, i);
    ref_sq += r * r;
  }
  const double rms = n > 0 ? sqrt(ref_sq / (double)n) : 0;
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double o = gconv_load_element(dtype, out, i), r = gconv_load_element(dtype, ref, i);
    if (!(fabs(o - r) <= rtol * fabs(r) + atol * rms)) ++bad; /* NaN compares false */
  }
  if (bad == 0) printf("check: ok (%lld elements)\n", (long long)n);
  else printf("check: FAILED: %lld of %lld elements out of tolerance\n", (long long)bad, (long long)n);
  return bad == 0;
}

int main(int argc, char** argv) {
  const char* spec = kDefaultSpec;
  const char* dtype_name = NULL;
  const char* policy = "heuristic";
  int check = 0, iters = 20;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--check") == 0) check = 1;
    else if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) dtype_name = argv[++i];
    else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) policy = argv[++i];
    else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) iters = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
    else if (argv[i][0] != '-') spec = argv[i];
    else {
      fprintf(stderr, "usage: conv_c [SPEC] [--dtype bf16|fp16|fp32] [--check] [--policy P] [--iters N]\n");
      return 2;
    }
  }

  /* The problem: the spec's fields, forced to fwd and to --dtype if given. */
  gconv_problem_t* parsed = NULL;
  int st = gconv_problem_create_from_spec(spec, &parsed);
  if (st != GCONV_OK) return fail("spec", st);
  int dtype = gconv_problem_dtype(parsed);
  if (dtype_name != NULL) {
    dtype = strcmp(dtype_name, "bf16") == 0 ? GCONV_BF16 : strcmp(dtype_name, "fp16") == 0 ? GCONV_FP16
            : strcmp(dtype_name, "fp32") == 0 ? GCONV_FP32 : -1;
  }
  /* Rebuild with the wanted direction and dtype: the spec string is the
   * simplest way to carry every field across. */
  char text[512];
  const char* body = strchr(gconv_problem_spec(parsed), 'n'); /* canonical: <dir>_<dtype>_n... */
  const char* names[] = {"bf16", "fp16", "fp32"};
  if (dtype < 0 || body == NULL) {
    fprintf(stderr, "conv_c: --dtype must be bf16, fp16 or fp32\n");
    gconv_problem_destroy(parsed);
    return 2;
  }
  snprintf(text, sizeof text, "fwd_%s_%s", names[dtype], body);
  gconv_problem_destroy(parsed);
  gconv_problem_t* p = NULL;
  st = gconv_problem_create_from_spec(text, &p);
  if (st == GCONV_OK) st = gconv_problem_validate(p);
  if (st != GCONV_OK) {
    gconv_problem_destroy(p);
    return fail("problem", st);
  }

  int devices = 0;
  cudaError_t ce = cudaGetDeviceCount(&devices);
  if (ce != cudaSuccess || devices == 0) {
    fprintf(stderr, "conv_c: no CUDA device available (%s); skipping\n",
            ce != cudaSuccess ? cudaGetErrorString(ce) : "0 devices");
    gconv_problem_destroy(p);
    return SKIP;
  }

  gconv_registry_t* reg = NULL;
  gconv_solution_t* sol = NULL;
  void *d_x = NULL, *d_w = NULL, *d_y = NULL, *d_ws = NULL;
  void *x = NULL, *w = NULL, *y = NULL, *ref = NULL;
  cudaEvent_t start = NULL, stop = NULL;
  int rc = 1;
  int64_t nx = 0, nw = 0, ny = 0;
  const size_t elem = (size_t)gconv_dtype_bytes(dtype);

  if ((st = gconv_registry_create(NULL, &reg)) != GCONV_OK) { rc = fail("gconv_registry_create", st); goto done; }
  if ((st = gconv_select(reg, p, policy, &sol)) != GCONV_OK) { rc = fail("gconv_select", st); goto done; }
  gconv_problem_tensor_elements(p, &nx, &nw, &ny);

  x = malloc(nx * elem), w = malloc(nw * elem), y = malloc(ny * elem), ref = malloc(ny * elem);
  if (!x || !w || !y || !ref) { fprintf(stderr, "conv_c: out of host memory\n"); goto done; }
  gconv_fill_random(dtype, x, nx, 1);
  gconv_fill_random(dtype, w, nw, 2);
  const size_t ws_bytes = gconv_solution_workspace_bytes(sol);
  if ((ce = cudaMalloc(&d_x, nx * elem)) != cudaSuccess || (ce = cudaMalloc(&d_w, nw * elem)) != cudaSuccess ||
      (ce = cudaMalloc(&d_y, ny * elem)) != cudaSuccess ||
      (ws_bytes > 0 && (ce = cudaMalloc(&d_ws, ws_bytes)) != cudaSuccess)) {
    rc = cuda_fail("cudaMalloc", ce);
    goto done;
  }
  cudaMemcpy(d_x, x, nx * elem, cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, w, nw * elem, cudaMemcpyHostToDevice);
  cudaMemset(d_y, 0xFF, ny * elem); /* NaN: an unwritten element fails the check */

  /* First run compiles the kernel (JIT, cached on disk), then time. */
  if ((st = gconv_run(reg, sol, p, d_x, d_w, d_y, d_ws, ws_bytes, NULL)) != GCONV_OK) { rc = fail("gconv_run", st); goto done; }
  if ((ce = cudaMemcpy(y, d_y, ny * elem, cudaMemcpyDeviceToHost)) != cudaSuccess) { rc = cuda_fail("kernel", ce); goto done; }
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, NULL);
  for (int i = 0; i < iters; ++i) {
    if ((st = gconv_run(reg, sol, p, d_x, d_w, d_y, d_ws, ws_bytes, NULL)) != GCONV_OK) { rc = fail("gconv_run", st); goto done; }
  }
  cudaEventRecord(stop, NULL);
  if ((ce = cudaEventSynchronize(stop)) != cudaSuccess) { rc = cuda_fail("timed runs", ce); goto done; }
  float total_ms = 0;
  cudaEventElapsedTime(&total_ms, start, stop);
  const double ms = total_ms / iters;
  printf("%s  kernel %s (%s)\n", gconv_problem_spec(p), gconv_solution_kernel_name(sol), gconv_solution_reason(sol));
  printf("time: %.4f ms  %.2f TFLOP/s\n", ms, gconv_problem_flops(p) / (ms * 1e9));

  rc = 0;
  if (check) {
    if ((st = gconv_reference(p, x, w, ref, 0)) != GCONV_OK) { rc = fail("gconv_reference", st); goto done; }
    rc = check_output(dtype, y, ref, ny) ? 0 : 1;
  }

done:
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  cudaFree(d_x), cudaFree(d_w), cudaFree(d_y), cudaFree(d_ws);
  free(x), free(w), free(y), free(ref);
  gconv_solution_destroy(sol);
  gconv_registry_destroy(reg);
  gconv_problem_destroy(p);
  return rc;
}
