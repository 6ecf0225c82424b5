/* Instrumented code for the install test. */
int install_target(int x)
{
	int s = 0;

	for (int i = 0; i < x; i++)
		s += (i & 1) ? i : -i;
	return s;
}
