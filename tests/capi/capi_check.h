/* CHECK macros shared by the C API tests (plain C, no framework): each failed
 * check prints its line and counts; main returns capi_exit_code(). */
#ifndef GCONV_TESTS_CAPI_CHECK_H_
#define GCONV_TESTS_CAPI_CHECK_H_

#include <stdio.h>
#include <string.h>

#include "gconv/gconv.h"

static int g_failures = 0;  /* one per translation unit: each test is one file */

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                      \
    }                                                                    \
  } while (0)

/* Status equality, printing the last error when it differs. */
#define CHECK_STATUS(call, want)                                                               \
  do {                                                                                         \
    int got_ = (call);                                                                         \
    if (got_ != (want)) {                                                                      \
      fprintf(stderr, "%s:%d: %s returned %s (%d), want %s: %s\n", __FILE__, __LINE__, #call,  \
              gconv_status_name(got_), got_, gconv_status_name(want), gconv_last_error());     \
      ++g_failures;                                                                            \
    }                                                                                          \
  } while (0)

#define CHECK_ERROR_MENTIONS(text)                                                         \
  do {                                                                                     \
    if (strstr(gconv_last_error(), (text)) == NULL) {                                      \
      fprintf(stderr, "%s:%d: last error \"%s\" does not mention \"%s\"\n", __FILE__,      \
              __LINE__, gconv_last_error(), (text));                                       \
      ++g_failures;                                                                        \
    }                                                                                      \
  } while (0)

/* The exit code: the number of failures (capped), 0 when all pass. */
static int capi_exit_code(const char* test) {
  if (g_failures != 0) {
    fprintf(stderr, "%s: %d check(s) failed\n", test, g_failures);
    return g_failures > 100 ? 100 : g_failures;
  }
  printf("%s: all checks passed\n", test);
  return 0;
}

#endif /* GCONV_TESTS_CAPI_CHECK_H_ */
