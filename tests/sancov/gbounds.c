/*
 * tests/sancov/gbounds.c -- never instrumented; linked into each module
 * of the guard-numbering test.  The linker defines __start_/__stop_ of
 * a module's own __sancov_guards section; hidden, each module sees its
 * own.  (Instrumented code must not declare these itself: clang's own
 * declaration then resolves to 0.)
 */
#include <stdint.h>

extern uint32_t __start___sancov_guards[] __attribute__((weak, visibility("hidden")));
extern uint32_t __stop___sancov_guards[] __attribute__((weak, visibility("hidden")));

__attribute__((visibility("hidden"))) void gb_bounds(uint32_t **s, uint32_t **e)
{
	*s = __start___sancov_guards;
	*e = __stop___sancov_guards;
}
