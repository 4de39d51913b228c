// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the node must give the plugin, found or made here: the sojourn
 * command, the BPF filesystem, and who the pod is (for export's labels).
 *
 * A node set up by the DaemonSet has only what its install step copied into
 * the CNI bin directory, so the command is looked for where the runtime
 * looks for plugins (CNI_PATH), then beside the plugin itself, then where
 * the Debian package puts it.  A "sojourn" key in the network configuration
 * overrides the search.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "cni.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define BPFFS		"/sys/fs/bpf"
#define PACKAGE_SOJOURN	"/usr/sbin/sojourn"

static bool runnable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* dir/sojourn into path if it is there to run; dir "" is no directory */
static bool try_dir(const char *dir, size_t dlen, char *path, size_t len)
{
	if (!dlen)
		return false;
	snprintf(path, len, "%.*s%ssojourn", (int)dlen, dir,
		 dir[dlen - 1] == '/' ? "" : "/");
	return runnable(path);
}

int sojourn_find(const struct conf *c, char *path, size_t len, char *err, size_t errlen)
{
	const char *cni_path = getenv("CNI_PATH"), *p, *end;
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (c->sojourn) {	/* the configuration's word, as given */
		snprintf(path, len, "%s", c->sojourn);
		if (runnable(path))
			return 0;
		snprintf(err, errlen, "cannot run %s (the configuration's \"sojourn\"): %s",
			 path, strerror(errno ? errno : ENOENT));
		return -1;
	}
	/* the spec's list of directories, colon-separated, in order */
	for (p = cni_path ? cni_path : ""; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (try_dir(p, end - p, path, len))
			return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	slash = strrchr(self, '/');
	if (slash && try_dir(self, slash - self, path, len))
		return 0;
	snprintf(path, len, "%s", PACKAGE_SOJOURN);
	if (runnable(path))
		return 0;
	snprintf(err, errlen,
		 "cannot find sojourn in CNI_PATH (%s), beside the plugin (%.*s) or at %s; set \"sojourn\" in the network configuration",
		 cni_path && *cni_path ? cni_path : "unset", slash ? (int)(slash - self) : 1,
		 slash ? self : "?", PACKAGE_SOJOURN);
	return -1;
}

const char *sojourn_path(const struct conf *c)
{
	static char path[PATH_MAX];
	char err[PATH_MAX + 256];

	if (!path[0] && sojourn_find(c, path, sizeof(path), err, sizeof(err))) {
		path[0] = '\0';
		die(ERR_SOJOURN, "%s", err);
	}
	return path;
}

static bool is_bpffs(void)
{
	struct statfs sf;

	return !statfs(BPFFS, &sf) && sf.f_type == BPF_FS_MAGIC;
}

/* A node without systemd (or with it told not to) may boot without bpffs
 * at /sys/fs/bpf, where sojourn keeps its pins.  Mounted here, under a lock
 * so that two ADDs at once do not stack two of them: a second bpffs over
 * the first would hide every pin made before it. */
int bpffs_ensure(char *err, size_t len)
{
	int fd, ret = 0;

	if (is_bpffs())
		return 0;
	mkdir("/run/sojourn", 0755);
	fd = open("/run/sojourn/bpffs.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		snprintf(err, len, "cannot lock /run/sojourn/bpffs.lock: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!is_bpffs() && mount("bpf", BPFFS, "bpf", 0, "mode=0700")) {
		snprintf(err, len, "no BPF filesystem at %s, and mounting one failed: %s",
			 BPFFS, strerror(errno));
		ret = -1;
	}
	close(fd);
	return ret;
}

/* The namespace ADD runs in, where the host veth is: with its ifindex, the
 * attachment's identity in export (struct sj_meta's netns_cookie) */
unsigned long long netns_cookie(void)
{
	unsigned long long cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
			cookie = 0;
		close(fd);
	}
	return cookie;
}

/* A label value Prometheus takes (valid UTF-8) that our line-based record
 * can hold (no control characters), of at most max bytes */
static bool label_ok(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	while (*p) {
		int more = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 :
			   (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;

		if (more < 0 || (more == 0 && (*p < 0x20 || *p == 0x7f)) ||
		    (more == 1 && *p < 0xc2))	/* overlong */
			return false;
		for (p++; more > 0; more--, p++)
			if ((*p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

/* CNI_ARGS, "K1=V1;K2=V2", as Kubernetes runtimes pass the pod:
 * K8S_POD_NAMESPACE and K8S_POD_NAME.  Both or neither are kept; a value
 * that cannot be a label is left out with a line on stderr, never failing
 * the pod. */
void pod_of_args(struct state *st)
{
	const char *args = getenv("CNI_ARGS"), *p, *end, *eq;
	char ns[sizeof(st->pod_namespace) + 1] = "", name[sizeof(st->pod_name) + 1] = "";

	for (p = args ? args : ""; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ';');
		eq = memchr(p, '=', end - p);
		if (!eq)
			continue;
		if (eq - p == 17 && !strncmp(p, "K8S_POD_NAMESPACE", 17))
			snprintf(ns, sizeof(ns), "%.*s", (int)(end - eq - 1), eq + 1);
		else if (eq - p == 12 && !strncmp(p, "K8S_POD_NAME", 12))
			snprintf(name, sizeof(name), "%.*s", (int)(end - eq - 1), eq + 1);
	}
	if (!ns[0] && !name[0])
		return;
	if (!label_ok(ns, sizeof(st->pod_namespace) - 1) ||
	    !label_ok(name, sizeof(st->pod_name) - 1)) {
		fprintf(stderr, "sojourn-cni: CNI_ARGS' K8S_POD_NAMESPACE and K8S_POD_NAME are not both UTF-8 text of at most %zu and %zu bytes: no pod labels\n",
			sizeof(st->pod_namespace) - 1, sizeof(st->pod_name) - 1);
		return;
	}
	snprintf(st->pod_namespace, sizeof(st->pod_namespace), "%s", ns);
	snprintf(st->pod_name, sizeof(st->pod_name), "%s", name);
}
