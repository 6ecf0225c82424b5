/* tests/lines/inl.h -- a static inline function: at -O2 it exists only
 * inlined into main, and must still be listed here, at line 5, as ran. */
#include <stdlib.h>

static inline int twice(int x)
{
	int y = x * 2;

	if (y > 1000)
		abort();
	return y;
}
