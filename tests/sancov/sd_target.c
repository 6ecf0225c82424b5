/*
 * tests/sancov/sd_target.c -- instrumented with clang stack-depth:
 * non-leaf functions lower __sancov_lowest_stack to their frame
 * address.  sd_deep(n) recurses n levels and returns the frame address
 * of the deepest level.
 */
#include <stdint.h>

uintptr_t sd_deep(int n);

uintptr_t sd_deep(int n)
{
	volatile char pad[128];

	pad[0] = (char)n;
	if (n == 0)
		return (uintptr_t)__builtin_frame_address(0) + pad[0];
	return sd_deep(n - 1);
}
