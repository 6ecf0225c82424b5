#include <stdio.h>
static inline int inl_clamp(int x)
{
	if (x > 100) {
		puts("big");
		return 100;
	}
	return x < 0 ? 0 : x;
}
