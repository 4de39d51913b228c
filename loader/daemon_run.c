// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's hands and voice: it attaches, retunes and detaches by
 * running this same binary (`sojourn [-n NS] attach DEV ...`), whose
 * stderr comes back as its log lines, and it logs to the journal with
 * priorities or to stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "daemon.h"

void logd(const struct daemon *dm, int prio, const struct dev *d,
	  const char *fmt, ...)
{
	const struct ns *n = NULL;
	char line[512];
	va_list ap;
	int i, len;

	for (i = 0; d && i < dm->nns; i++)
		if (dm->ns[i].cookie == d->cookie)
			n = &dm->ns[i];
	if (dm->journal)
		len = snprintf(line, sizeof(line), "<%d>", prio);
	else
		len = snprintf(line, sizeof(line), "sojourn: ");
	if (d)
		len += snprintf(line + len, sizeof(line) - len, "%s%s%s: ",
				n && n->name[0] ? n->name : "",
				n && n->name[0] ? "/" : "", d->name);
	va_start(ap, fmt);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

/* `sojourn [-n NS] VERB DEV ARGS...`; its stderr comes back as our log
 * lines, with the device named. */
int run(const struct daemon *dm, const struct dev *d, const char *verb,
	const struct sj_args *a)
{
	const struct ns *n = ns_of(dm, d->cookie);
	char *argv[SJ_ARGS_MAX + 8], out[1024];
	int p[2], i = 0, k, status, len = 0;
	struct pollfd pfd;
	sigset_t none;
	pid_t pid;

	argv[i++] = (char *)dm->exe;
	if (n && n->name[0]) {
		argv[i++] = "-n";
		argv[i++] = (char *)n->name;
	}
	argv[i++] = (char *)verb;
	argv[i++] = (char *)d->name;
	for (k = 0; a && k < a->n; k++)
		argv[i++] = a->v[k];
	argv[i] = NULL;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(null, 0);
		dup2(null, 1);
		dup2(p[1], 2);
		execv(dm->exe, argv);
		_exit(127);
	}
	close(p[1]);
	/* its stderr ends when it exits (or the buffer is full); a child
	 * silent for the whole timeout is stuck */
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	for (;;) {
		int ready = poll(&pfd, 1, SJ_CHILD_TIMEOUT_MS);
		ssize_t r;

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			kill(pid, SIGKILL);
			logd(dm, LOG_ERR, d, "%s: no answer in %d s, killed", verb,
			     SJ_CHILD_TIMEOUT_MS / 1000);
			break;
		}
		r = read(p[0], out + len, sizeof(out) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += r;
		if (len == sizeof(out) - 1)
			break;
	}
	close(p[0]);
	out[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (char *s = out, *e; *s; s = e) {
		e = s + strcspn(s, "\n");
		if (*e)
			*e++ = '\0';
		if (!strncmp(s, "sojourn: ", 9))
			s += 9;
		if (*s)
			logd(dm, LOG_WARNING, d, "%s: %s", verb, s);
	}
	/* a child killed by a signal says nothing of its own */
	if (WIFSIGNALED(status))
		logd(dm, LOG_ERR, d, "%s: killed by signal %d (%s)", verb,
		     WTERMSIG(status), strsignal(WTERMSIG(status)));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

void args_text(const struct sj_args *a, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < a->n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "", a->v[i]);
}
