/*
 * tests/core/tests.h -- each t_*.c registers its tests.
 */
#ifndef CORE_TESTS_H
#define CORE_TESTS_H

/* A test only for binaries whose targets lack trace-cmp. */
#define NEED_PCONLY (1u << 2)

void register_errno_tests(void);
void register_iface_tests(void);
void register_format_tests(void);
void register_overflow_tests(void);
void register_thread_tests(void);
void register_close_tests(void);
void register_mmap_tests(void);
void register_fork_tests(void);
void register_exec_tests(void);
void register_signal_tests(void);
void register_fault_tests(void);
void register_unique_tests(void);
void register_remote_tests(void);
void register_nbremote_tests(void);
void register_owner_tests(void);
void register_hostile_tests(void);
void register_registry_tests(void);

/* t_exec.c: the image an exec test runs (argv[1] == "--exec-target"). */
int exec_target_main(int argc, char **argv);
/* t_unique.c: the image unique.exec runs ("--unique-exec-target"). */
int unique_exec_target_main(int argc, char **argv);
/* The new image of nbremote.exec_reregister (t_remote_netbsd.c). */
int nbremote_exec_target_main(int argc, char **argv);
/* The new image of hostile.exec_forged (t_hostile.c). */
int hostile_exec_target_main(int argc, char **argv);
/* t_registry.c: the feeder strace runs ("--registry-feeder H N"). */
int registry_feeder_main(int argc, char **argv);

#endif
