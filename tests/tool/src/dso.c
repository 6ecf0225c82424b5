int dso_fn(int x)
{
	if (x > 2)
		return x * 3;
	return x;
}
int dso_unused(int x) { return x - 1; }
