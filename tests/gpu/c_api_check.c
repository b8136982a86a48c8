/* The runtime header compiled as C99, and its NULL-argument behaviour seen from C. */
#include <stdio.h>
#include <string.h>

#include "deepgemm/runtime.h"

int dg_c_api_null_checks(void);

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "c_api_check.c: FAILED: %s (last error: %s)\n", what, dgmm_last_error());
    ++failures;
  }
}

int dg_c_api_null_checks(void) {
  dgmm_handle h = dgmm_load_kernel(NULL);
  dgmm_fence f = dgmm_sync(NULL);
  size_t bytes = 0;
  int bits = 0;
  unsigned long long device_ptr = 0;
  failures = 0;
  expect(h == NULL, "dgmm_load_kernel(NULL) returns NULL");
  expect(dgmm_last_error_code() == DGMM_ERROR_INVALID_ARGUMENT, "sync(NULL) is INVALID_ARGUMENT");
  expect(f == NULL, "dgmm_sync(NULL) returns NULL");
  expect(dgmm_load_kernel_from_memory(NULL, 0) == NULL, "load_kernel_from_memory(NULL, 0)");
  expect(dgmm_bind_input(h, "A", &bytes) == DGMM_ERROR_INVALID_ARGUMENT, "bind_input(NULL, ...)");
  expect(dgmm_bind_output(h, "C", &bytes) == DGMM_ERROR_INVALID_ARGUMENT, "bind_output(NULL, ...)");
  expect(dgmm_bind_device(h, "A", device_ptr) == DGMM_ERROR_INVALID_ARGUMENT, "bind_device(NULL, ...)");
  expect(dgmm_launch(h) == DGMM_ERROR_INVALID_ARGUMENT, "launch(NULL)");
  expect(dgmm_launch_kernel_only(h) == DGMM_ERROR_INVALID_ARGUMENT, "launch_kernel_only(NULL)");
  expect(dgmm_wait(f) == DGMM_ERROR_INVALID_ARGUMENT, "wait(NULL)");
  expect(strstr(dgmm_last_error(), "dgmm_wait: fence is NULL") != NULL, "wait(NULL) message");
  expect(dgmm_operand_info(h, "A", &bytes, &bits) == DGMM_ERROR_INVALID_ARGUMENT, "operand_info(NULL)");
  expect(strcmp(dgmm_kernel_description(h), "") == 0, "kernel_description(NULL) is empty");
  expect(dgmm_stream(h) == NULL, "cuda_stream(NULL) is NULL");
  expect(strcmp(dgmm_status_string(DGMM_ERROR_UNBOUND_OPERAND), "DGMM_ERROR_UNBOUND_OPERAND") == 0, "status_string");
  expect(strcmp(dgmm_status_string((dgmm_status)99), "DGMM_ERROR_UNKNOWN") == 0,
         "status_string of a value outside the enum");
  dgmm_unload_kernel(h);
  dgmm_free_host(NULL);
  return failures;
}
