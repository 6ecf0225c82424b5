/* tests/inline/dlib.c -- a shared library main.c opens with dlopen(). */
int dlib_twice(int x);

int dlib_twice(int x)
{
	if (x > 100)
		return x;
	return 2 * x;
}
