#include <string>
namespace ns {
template <typename T> T tw(T x) { return x * 2; }
struct K {
	int m(int a) { return a + 1; }
};
std::string greet(const std::string &s) { return "hi " + s; }
}
int main(int argc, char **argv)
{
	ns::K k;
	long r = ns::tw<long>(argc) + k.m(argc);
	if (argc > 5)
		r += (long)ns::greet(argv[0]).size();
	return r == 12345;
}
