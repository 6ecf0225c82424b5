/* tests/inline/cxx_a.cc -- one of two units sharing cxx.h's copies. */
#include "cxx.h"

int from_a(int x)
{
	std::vector<int> v{x, 2, 3};

	return twice(x) + sum(v);
}
