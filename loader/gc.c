// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * gc: remove the pin folders of attachments whose network namespace or
 * device is gone.  The kernel took the tc or XDP hook with the device, but
 * the pins keep the maps and the dequeue tracepoint program alive, and that
 * program still runs (and exits early) for every packet the host sends.
 *
 * A namespace is alive if we can reach it: a bind mount of it (/run/netns
 * and any other nsfs mount, from /proc/self/mountinfo) or a process in it
 * (/proc/PID/ns/net).  We enter each once and ask its cookie (folders are
 * named by cookie), and there whether the folder's device still exists.
 * A namespace kept alive only by an open descriptor is out of our sight:
 * a folder whose tcx link is still attached to a device is kept.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "common.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
#define SJ_LINK_TYPE_TCX 11	/* libbpf 1.1's headers predate it */

struct folder {
	char path[SJ_PATH_MAX];
	__u64 cookie;
	__u32 ifindex;
	bool ns_seen;
	bool dev_seen;
};

static struct {
	struct folder *f;
	int n, cap;
	struct stat *ns;	/* namespaces visited, by device and inode */
	int nns, nscap;
} G;

static int collect(const char *dir, void *arg)
{
	const char *base = strrchr(dir, '/');
	unsigned long long cookie;
	unsigned int ifindex;
	struct folder *f;

	(void)arg;
	if (!base || sscanf(base + 1, "%llu-%u-", &cookie, &ifindex) != 2)
		return 0;	/* not one of ours */
	if (G.n == G.cap) {
		G.cap = G.cap ? 2 * G.cap : 64;
		f = realloc(G.f, G.cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		G.f = f;
	}
	f = &G.f[G.n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", dir);
	f->cookie = cookie;
	f->ifindex = ifindex;
	return 0;
}

static bool seen_before(const struct stat *st)
{
	struct stat *ns;

	for (int i = 0; i < G.nns; i++)
		if (G.ns[i].st_dev == st->st_dev && G.ns[i].st_ino == st->st_ino)
			return true;
	if (G.nns == G.nscap) {
		G.nscap = G.nscap ? 2 * G.nscap : 64;
		ns = realloc(G.ns, G.nscap * sizeof(*ns));
		if (!ns)
			return true;	/* out of memory: look no further */
		G.ns = ns;
	}
	G.ns[G.nns++] = *st;
	return false;
}

/* Marks the folders of the namespace we are in */
static void mark_here(void)
{
	char name[IF_NAMESIZE];
	socklen_t len = sizeof(__u64);
	__u64 cookie;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len)) {
		close(fd);
		return;
	}
	close(fd);
	for (int i = 0; i < G.n; i++) {
		if (G.f[i].cookie != cookie)
			continue;
		G.f[i].ns_seen = true;
		/* only "no such device" counts as gone */
		G.f[i].dev_seen = if_indextoname(G.f[i].ifindex, name) ||
				  errno != ENXIO;
	}
}

static void visit(const char *path, int home)
{
	struct stat st;
	int fd;

	if (stat(path, &st) || seen_before(&st))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* EINVAL: a bind mount of another kind of namespace */
	if (setns(fd, CLONE_NEWNET) == 0) {
		mark_here();
		if (setns(home, CLONE_NEWNET)) {
			sj_err("cannot return to our network namespace: %s",
			       strerror(errno));
			exit(1);
		}
	}
	close(fd);
}

static void visit_mounts(int home)
{
	char line[4096], mnt[SJ_PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS] - FSTYPE SRC OPTS" */
	while (fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - nsfs ");

		if (dash && sscanf(line, "%*s %*s %*s %*s %255s", mnt) == 1)
			visit(mnt, home);	/* "\040" escapes aside */
	}
	fclose(f);
}

static void visit_processes(int home)
{
	char path[300];
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		visit(path, home);
	}
	closedir(d);
}

/* Our tcx link still on a device: its namespace lives, unseen by us */
static bool tcx_attached(const char *dir)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info), ifindex;
	char path[SJ_PATH_MAX];
	int fd;
	bool on = false;

	if (sj_pin_path(path, dir, "link_egress") || (fd = bpf_obj_get(path)) < 0)
		return false;
	/* tcx's {ifindex, attach_type} leads the union; 0 once detached */
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.type == SJ_LINK_TYPE_TCX) {
		memcpy(&ifindex, (char *)&info + offsetof(struct bpf_link_info, raw_tracepoint),
		       sizeof(ifindex));
		on = ifindex != 0;
	}
	close(fd);
	return on;
}

int cmd_gc(int argc, char **argv)
{
	bool dry = false;
	int home, err;

	if (argc == 1 && !strcmp(argv[0], "--dry-run"))
		dry = true;
	else if (argc)
		return sj_err("usage: sojourn gc [--dry-run]");
	if (sj_netns_name)
		return sj_err("gc looks at every network namespace: no -n");
	if (sj_check_all() || sj_pins_lock())
		return -1;
	err = sj_pins_foreach(collect, NULL);
	if (err < 0)
		return sj_err("cannot read %s: %s", SJ_PIN_ROOT, strerror(-err));
	if (!G.n)
		return 0;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		return sj_err("cannot open our network namespace: %s", strerror(errno));
	visit("/proc/self/ns/net", home);
	visit_mounts(home);
	visit_processes(home);
	close(home);

	for (int i = 0; i < G.n; i++) {
		struct folder *f = &G.f[i];
		const char *why;

		if (f->ns_seen && f->dev_seen)
			continue;
		if (!f->ns_seen && tcx_attached(f->path)) {
			sj_info("sojourn: kept %s: its namespace is out of sight, but its program is still on a device",
				f->path);
			continue;
		}
		why = f->ns_seen ? "device gone" : "namespace gone";
		if (!dry && (err = sj_pins_remove_dir(f->path))) {
			sj_err("cannot remove %s: %s", f->path, strerror(-err));
			continue;
		}
		printf("%s %s (%s)\n", dry ? "would remove" : "removed", f->path, why);
	}
	free(G.f);
	free(G.ns);
	return 0;
}
