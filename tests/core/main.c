/*
 * tests/core/main.c -- the core suite's test binary.
 *
 *   core-BIN [--prefix P] [--filter SUBSTRING]
 *
 * Built once per variant (tests/core/core.mk): gcc- or clang-
 * instrumented targets, with or without trace-cmp, linked with
 * -lukcov, with libukcov.a, or with nothing of ukcov (run under
 * LD_PRELOAD; compiled with -DCORE_PRELOAD).
 */
#include <stdio.h>
#include <string.h>

#include "kc.h"
#include "tests.h"

#ifdef CORE_PRELOAD
const int core_have_native = 0;
const int core_callbacks_in_exe = 0;
#else
const int core_have_native = 1;
const int core_callbacks_in_exe = 1;
#endif

int main(int argc, char **argv)
{
	const char *prefix = "", *filter = NULL;
	unsigned have = 0;
	int i;

	if (argc > 1 && strcmp(argv[1], "--exec-target") == 0)
		return exec_target_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--unique-exec-target") == 0)
		return unique_exec_target_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--nb-exec-target") == 0)
		return nbremote_exec_target_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--hostile-exec-target") == 0)
		return hostile_exec_target_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--registry-feeder") == 0)
		return registry_feeder_main(argc, argv);
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--prefix") == 0)
			prefix = argv[i + 1];
		else if (strcmp(argv[i], "--filter") == 0)
			filter = argv[i + 1];
	}
	register_errno_tests();
	register_iface_tests();
	register_format_tests();
	register_overflow_tests();
	register_thread_tests();
	register_close_tests();
	register_mmap_tests();
	register_fork_tests();
	register_exec_tests();
	register_signal_tests();
	register_fault_tests();
	register_unique_tests();
	register_remote_tests();
	register_nbremote_tests();
	register_registry_tests();
	register_owner_tests();
	register_hostile_tests();
	have |= target_has_cmp ? NEED_CMP : NEED_PCONLY;
	have |= core_have_native ? NEED_NATIVE : 0;
	return test_run_all(have, prefix, filter) ? 1 : 0;
}
