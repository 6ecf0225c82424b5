/* tests/lines/cold.c -- a file of the program that never runs: it must
 * be in the report, at 0%. */
int cold_file(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * i;
	return s;
}
