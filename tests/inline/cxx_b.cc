/* tests/inline/cxx_b.cc -- the other unit, with main. */
#include <cstdio>
#include "cxx.h"

int from_a(int x);

int main(int argc, char **argv)
{
	std::vector<int> v{argc, 5};

	(void)argv;
	std::printf("%d\n", from_a(argc) + twice(argc) + sum(v));
	return 0;
}
