/* The installed C API from C: prints a problem's FLOPs.  consumer_c [SPEC] */
#include <stdio.h>

#include "gconv/gconv.h"

int main(int argc, char** argv) {
  const char* spec = argc > 1 ? argv[1] : "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1";
  gconv_problem_t* p = NULL;
  int st = gconv_problem_create_from_spec(spec, &p);
  if (st == GCONV_OK) st = gconv_problem_validate(p);
  if (st != GCONV_OK) {
    fprintf(stderr, "consumer_c: %s: %s\n", gconv_status_name(st), gconv_last_error());
    gconv_problem_destroy(p);
    return 1;
  }
  printf("flops %.0f\nversion %s\n", gconv_problem_flops(p), gconv_version());
  gconv_problem_destroy(p);
  return 0;
}
