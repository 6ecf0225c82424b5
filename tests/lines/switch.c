/* tests/lines/switch.c -- 73-lines.sh runs it as `switch x`: a switch
 * through a jump table enters case 2 only, at its coverage call, right
 * after the code of case 1 falling through. */
int pick(int k)
{
	int r = 0;

	switch (k) {
	case 0:
		r += 1;
		/* fall through */
	case 1:
		r += 2;
		/* fall through */
	case 2:
		r += 4;
		break;
	case 3:
		r += 8;
		break;
	case 4:
		r += 16;
		break;
	}
	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	return pick(argc) == 99;
}
