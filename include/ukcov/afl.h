/*
 * <ukcov/afl.h> -- libukcov under AFL++ (docs/DESIGN.md, "AFL++").
 *
 * A program linked with libukcov needs none of this: under afl-fuzz
 * its constructor starts the fork server.  The libFuzzer-style driver
 * that `ukcov-cc -fsanitize=fuzzer` links (lib/afl_driver.c) uses it
 * to start the server itself, after LLVMFuzzerInitialize, and to read
 * test cases from shared memory.
 */
#ifndef UKCOV_AFL_H_4404
#define UKCOV_AFL_H_4404

#include <stddef.h>
#include <stdint.h>

#include <ukcov/kcov.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ukcov_afl_start: offer afl-fuzz shared-memory test cases. */
#define UKCOV_AFL_SHM_INPUT 1

/* Do not start the fork server in the constructor: the program calls
 * ukcov_afl_start.  Only effective before libukcov's constructors run
 * (from a .preinit_array function). */
UKCOV_API void ukcov_afl_defer(void);
/* Start the fork server now; returns in the child that runs inputs.
 * Does nothing outside AFL++ or when already started. */
UKCOV_API void ukcov_afl_start(int flags);
/* 1 when __AFL_SHM_ID gave this process an edge map. */
UKCOV_API int ukcov_afl_active(void);
/* The current shared-memory test case: 1 and (data, len), or 0. */
UKCOV_API int ukcov_afl_input(const uint8_t **data, size_t *len);
/* AFL++'s __AFL_LOOP(max): true once per input of a persistent child. */
UKCOV_API int __afl_persistent_loop(unsigned int max);

#ifdef __cplusplus
}
#endif

#endif /* UKCOV_AFL_H_4404 */
