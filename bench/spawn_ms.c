// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * spawn_ms MSFILE PROG [ARG...]: runs PROG as a container runtime runs a
 * CNI plugin and writes the milliseconds from its start to its exit into
 * MSFILE ("12.345\n").  PROG inherits the environment (the CNI_*
 * variables), stdin (the network configuration) and stdout (the result).
 * Exits with PROG's status, 128 + the signal that ended it, or 127 when it
 * could not be started (one line on stderr).
 *
 * Why not time it from the shell: bash starts a command with a full
 * fork(), copying its own page tables, before the exec, and on this VM
 * (~35 us a page fault) that is milliseconds no runtime pays.  containerd
 * and CRI-O start plugins through Go's os/exec, whose syscall.forkExec
 * (syscall/exec_linux.go) clones with CLONE_VFORK | CLONE_VM unless a user
 * namespace is asked for; glibc's posix_spawn does the same (strace here,
 * glibc 2.36: clone3 with CLONE_VM | CLONE_VFORK), so the clock counts what
 * a runtime's ADD costs: the exec, the plugin's work, and the sojourn it
 * starts in turn.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double start, end;
	pid_t pid;
	FILE *out;
	int err, status;

	if (argc < 3) {
		fprintf(stderr, "usage: spawn_ms MSFILE PROG [ARG...]\n");
		return 127;
	}
	start = now_ms();
	err = posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ);
	if (err) {
		fprintf(stderr, "spawn_ms: cannot start %s: %s\n", argv[2], strerror(err));
		return 127;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "spawn_ms: waitpid: %s\n", strerror(errno));
			return 127;
		}
	}
	end = now_ms();
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%.3f\n", end - start) < 0 || fclose(out)) {
		fprintf(stderr, "spawn_ms: cannot write %s\n", argv[1]);
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
