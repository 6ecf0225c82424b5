int dso_fn(int);
int main(int argc, char **argv)
{
	(void)argv;
	return dso_fn(argc) == 12345;
}
