#include <stdlib.h>
int main(int argc, char **argv)
{
	unsigned n = (unsigned)atoi(argv[1]), hits = 0;

	for (unsigned i = 0; i < n; i++)
		if ((unsigned)argc == i)
			hits++;
	return hits > 1;
}
