/* tests/inline/cxx.h -- functions every C++ unit including this emits
 * in a COMDAT group (an inline function, a template instance): the
 * linker keeps one unit's copy and discards the others' (57-inline). */
#include <vector>

inline int twice(int x)
{
	if (x > 2)
		return x * 2;
	return x + 1;
}

template <typename T> T sum(const std::vector<T> &v)
{
	T s = 0;

	for (auto x : v)
		s += x;
	return s;
}
