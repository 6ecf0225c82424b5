#include "ukcov.h"
int cmd_cmp(struct options *o) { (void)o; return 1; }
int cmd_run(struct options *o) { (void)o; return 1; }
