// tests/static/cxxthread.cc -- a static C++ program whose only thread
// comes from std::thread: libstdc++.a's pthread_create reference is
// met after libukcov.a in the link, so the wrapper must already be in
// (pkg-config's -u __wrap_pthread_create).  The thread calls
// thread_leaf_a once (tests/static/target.c, instrumented).
// Uninstrumented; prints "ok cxxthread".
#include <cstdio>
#include <thread>

extern "C" void thread_leaf_a(void);

int main()
{
	std::thread t(thread_leaf_a);

	t.join();
	std::puts("ok cxxthread");
	return 0;
}
