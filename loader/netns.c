// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Network namespaces by name, as `ip netns` keeps them under /run/netns.
 * We setns() into the namespace rather than re-exec through `ip netns exec`,
 * which would remount /sys and hide /sys/fs/bpf.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "common.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define SJ_NETNS_RUN_DIR "/run/netns"

int sj_netns_enter(const char *name)
{
	char path[SJ_PATH_MAX];
	int fd, err;

	if (!name || !*name)
		return 0;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return sj_err("bad network namespace name \"%s\"", name);
	snprintf(path, sizeof(path), "%s/%s", SJ_NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sj_err("cannot find network namespace \"%s\" (%s)", name,
			      strerror(errno));
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	if (err)
		return sj_err("cannot enter network namespace \"%s\": %s", name,
			      strerror(errno));
	return 0;
}

/* The cookie names a namespace for its whole life and is never reused,
 * unlike its inode number. */
int sj_netns_cookie(__u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return sj_err("socket: %s", strerror(errno));
	err = getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len);
	close(fd);
	if (err)
		return sj_err("kernel has no network namespace cookies (needs 5.14): %s",
			      strerror(errno));
	return 0;
}
