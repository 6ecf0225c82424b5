/* tests/fuzz/mfork.c -- instrumented target that forks for inputs
 * starting with 'F' and lets the child return too, as a harness that
 * tests a daemon's fork might: only the executor's own process may go
 * on serving. */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pid_t pid;

	if (size < 1 || data[0] != 'F')
		return 0;
	pid = fork();
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return 0;
}
