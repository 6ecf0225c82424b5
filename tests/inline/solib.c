/* tests/inline/solib.c -- a shared library linked by main.c. */
int solib_sum(int n);

int solib_sum(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i & 1 ? i : -i;
	return s;
}
