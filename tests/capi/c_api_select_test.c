/* The C API's selection calls that the Python package uses (gconv_rank,
 * gconv_is_supported, gconv_workspace_bytes, gconv_run_problem, the model
 * folder option), and the getters' promise (convention 6) on problems whose
 * sizes overflow 64-bit products. Runs without a GPU. */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "capi_check.h"
#include "gconv/gconv.h"

static const char* kSpec = "fwd_bf16_n2c64k128g4_h14w14_y3x3_s2_p1";

static int have_gpu(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

static gconv_registry_t* make_registry(const char* model_dir) {
  gconv_registry_options_t options;
  memset(&options, 0, sizeof options);
  options.tuning_cache_path = "off";
  options.model_dir = model_dir;
  gconv_registry_t* reg = NULL;
  CHECK_STATUS(gconv_registry_create(&options, &reg), GCONV_OK);
  return reg;
}

/* Sizes near INT64_MAX: every product overflows int64. The getters must
 * still answer (0 / finite or inf double) and the size query must report
 * the overflow instead of a wrapped count. */
static void test_overflowing_sizes(void) {
  const int64_t huge = INT64_MAX / 2;
  const int64_t in[3] = {huge, huge, huge};
  const int64_t filter[3] = {1, 1, 1};
  const int64_t dil[3] = {huge, huge, huge};
  const int64_t pad[3] = {huge, huge, huge};
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create(3, huge, huge, huge, 1, in, filter, NULL, pad, pad, dil, GCONV_FWD,
                                    GCONV_FP32, &p),
               GCONV_OK);
  if (p == NULL) return;
  /* (huge + 2*huge - 1) / 1 + 1 > INT64_MAX: not representable, so 0. */
  CHECK(gconv_problem_output_size(p, 2) == 0);
  CHECK(gconv_problem_flops(p) == 0.0); /* an output size of 0 makes no work */
  int64_t x = -7, w = -7, y = -7;
  CHECK_STATUS(gconv_problem_tensor_elements(p, &x, &w, &y), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("overflows 64 bits");
  CHECK(x == -7 && w == -7 && y == -7); /* convention 3: untouched on failure */
  CHECK_STATUS(gconv_problem_validate(p), GCONV_ERR_INVALID_PROBLEM);
  gconv_problem_destroy(p);

  /* A representable output whose flops exceed int64: a double, not a wrap. */
  const int64_t big[3] = {1, 1 << 30, 1 << 30};
  CHECK_STATUS(gconv_problem_create(2, 1 << 30, 1 << 20, 1 << 20, 1, big, NULL, NULL, NULL, NULL, NULL, GCONV_FWD,
                                    GCONV_BF16, &p),
               GCONV_OK);
  if (p == NULL) return;
  CHECK(gconv_problem_output_size(p, 1) == (1 << 30));
  /* 2 * N * K * out_volume * C = 2 * 2^30 * 2^20 * 2^60 * 2^20 = 2^131 */
  CHECK(gconv_problem_flops(p) == 2722258935367507707706996859454145691648.0);
  CHECK_STATUS(gconv_problem_tensor_elements(p, &x, NULL, NULL), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("x's element count");
  gconv_problem_destroy(p);
}

/* rank: best first, at most limit, the first equal to select's answer under
 * the same (non-measuring) policy; each handle owned by the caller. */
static void test_rank(gconv_registry_t* reg) {
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  gconv_solution_t* ranked[5] = {NULL, NULL, NULL, NULL, NULL};
  size_t count = 99;
  CHECK_STATUS(gconv_rank(reg, p, "analytic", 4, ranked, &count), GCONV_OK);
  CHECK(count >= 2 && count <= 4);
  CHECK(ranked[4] == NULL);
  gconv_solution_t* best = NULL;
  CHECK_STATUS(gconv_select(reg, p, "analytic", &best), GCONV_OK);
  CHECK(best != NULL && ranked[0] != NULL &&
        strcmp(gconv_solution_kernel_name(best), gconv_solution_kernel_name(ranked[0])) == 0);
  for (size_t i = 1; i < count; ++i) {
    CHECK(gconv_solution_predicted_ms(ranked[i - 1]) <= gconv_solution_predicted_ms(ranked[i]));
    CHECK(strcmp(gconv_solution_kernel_name(ranked[i - 1]), gconv_solution_kernel_name(ranked[i])) != 0);
  }
  for (size_t i = 0; i < count; ++i) gconv_solution_destroy(ranked[i]);
  gconv_solution_destroy(best);

  /* limit 0 needs no array; a bad policy and NULL count are errors. */
  count = 99;
  CHECK_STATUS(gconv_rank(reg, p, "analytic", 0, NULL, &count), GCONV_OK);
  CHECK(count == 0);
  CHECK_STATUS(gconv_rank(reg, p, "fastest", 4, ranked, &count), GCONV_ERR_PARSE);
  CHECK_STATUS(gconv_rank(reg, p, "analytic", 4, ranked, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("count is NULL");
  CHECK_STATUS(gconv_rank(reg, p, "analytic", 4, NULL, &count), GCONV_ERR_INVALID_ARGUMENT);
  gconv_problem_destroy(p);
}

/* is_supported: 1 for a pool problem; INVALID_PROBLEM for an invalid one. */
static void test_is_supported(gconv_registry_t* reg) {
  gconv_problem_t* p = NULL;
  int supported = -1;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  CHECK_STATUS(gconv_is_supported(reg, p, &supported), GCONV_OK);
  CHECK(supported == 1);
  gconv_problem_destroy(p);

  supported = -1;
  CHECK_STATUS(gconv_problem_create_from_spec("fwd_n1c7k8g2_h8w8", &p), GCONV_OK);
  CHECK_STATUS(gconv_is_supported(reg, p, &supported), GCONV_ERR_INVALID_PROBLEM);
  CHECK_ERROR_MENTIONS("C (7)");
  CHECK(supported == -1);
  CHECK_STATUS(gconv_is_supported(reg, p, NULL), GCONV_ERR_INVALID_ARGUMENT);
  gconv_problem_destroy(p);
}

/* workspace_bytes equals the selected solution's; run_problem selects and
 * runs, so without a GPU it reaches the device check (after argument checks). */
static void test_workspace_and_run_problem(gconv_registry_t* reg) {
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec("bwd_weight_bf16_n8c64k64g1_h28w28_y3x3_s1_p1", &p), GCONV_OK);
  gconv_solution_t* s = NULL;
  CHECK_STATUS(gconv_select(reg, p, "heuristic", &s), GCONV_OK);
  size_t bytes = 12345;
  CHECK_STATUS(gconv_workspace_bytes(reg, p, "heuristic", &bytes), GCONV_OK);
  CHECK(bytes == gconv_solution_workspace_bytes(s));
  CHECK_STATUS(gconv_workspace_bytes(reg, p, "fastest", &bytes), GCONV_ERR_PARSE);
  gconv_solution_destroy(s);

  static uint16_t a[16], b[16], out[16];
  CHECK_STATUS(gconv_run_problem(reg, p, NULL, a, NULL, out, NULL, 0, NULL), GCONV_ERR_INVALID_ARGUMENT);
  CHECK_ERROR_MENTIONS("b is NULL");
  if (!have_gpu()) {
    CHECK_STATUS(gconv_run_problem(reg, p, "analytic", a, b, out, NULL, 0, NULL), GCONV_ERR_NO_DEVICE);
  }
  gconv_problem_destroy(p);
}

/* model_dir "off": the heuristic policy ranks by the analytic estimate, so
 * its choice is the analytic one; a folder with no model behaves the same. */
static void test_model_dir(void) {
  gconv_registry_t* off = make_registry("off");
  if (off == NULL) return;
  gconv_problem_t* p = NULL;
  CHECK_STATUS(gconv_problem_create_from_spec(kSpec, &p), GCONV_OK);
  gconv_solution_t *h = NULL, *a = NULL;
  CHECK_STATUS(gconv_select(off, p, "heuristic", &h), GCONV_OK);
  CHECK_STATUS(gconv_select(off, p, "analytic", &a), GCONV_OK);
  CHECK(h != NULL && a != NULL && strcmp(gconv_solution_kernel_name(h), gconv_solution_kernel_name(a)) == 0);
  gconv_solution_destroy(h);
  gconv_solution_destroy(a);
  gconv_problem_destroy(p);
  gconv_registry_destroy(off);
}

int main(void) {
  test_overflowing_sizes();
  gconv_registry_t* reg = make_registry(NULL);
  if (reg != NULL) {
    test_rank(reg);
    test_is_supported(reg);
    test_workspace_and_run_problem(reg);
  }
  gconv_registry_destroy(reg);
  test_model_dir();
  return capi_exit_code("c_api_select_test");
}
