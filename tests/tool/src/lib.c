int libfn(int x)
{
	if (x > 4)
		return x - 1;
	return x;
}
int lib_unused(void) { return 1; }
