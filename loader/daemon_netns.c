// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The namespaces the daemon watches: its own, and the named ones under
 * /run/netns that a rule's Netns= matches, each with a netlink socket of
 * its own, opened as they appear and closed as they go.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include "daemon.h"

const struct ns *ns_of(const struct daemon *dm, __u64 cookie)
{
	int i;

	for (i = 0; i < dm->nns; i++)
		if (dm->ns[i].cookie == cookie)
			return &dm->ns[i];
	return NULL;
}

int ns_enter(const struct ns *n)
{
	char path[SJ_PATH_MAX];
	int fd, err;

	if (!n->name[0])
		return 0;
	snprintf(path, sizeof(path), "/run/netns/%s", n->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return err;
}

void ns_leave(const struct daemon *dm, const struct ns *n)
{
	if (n->name[0] && setns(dm->self_ns, CLONE_NEWNET))
		logd(dm, LOG_ERR, NULL, "cannot return to our namespace: %s", strerror(errno));
}

struct gc_arg {
	struct daemon *dm;
	struct ns *n;
	int removed;
};

/* Folders of this namespace whose device is gone (a daemon that was not
 * running when it went): checked again under the lock, since an attach
 * may just have made one for a device created after our scan. */
static int gc_one(const char *dir, void *arg)
{
	struct gc_arg *g = arg;
	struct daemon *dm = g->dm;
	unsigned long long cookie;
	char name[IF_NAMESIZE];
	unsigned int ifindex;
	const char *base = strrchr(dir, '/');
	int lock;

	if (!base || sscanf(base + 1, "%llu-%u-", &cookie, &ifindex) != 2 ||
	    cookie != g->n->cookie || dev_find(dm, cookie, ifindex, false))
		return 0;
	lock = pin_lock();
	if (!ns_enter(g->n)) {
		if (!if_indextoname(ifindex, name) && errno == ENXIO &&
		    sj_pins_remove_dir(dir) == 0)
			g->removed++;
		ns_leave(dm, g->n);
	}
	if (lock >= 0)
		close(lock);
	return 0;
}

static void ns_gc(struct daemon *dm, struct ns *n)
{
	struct gc_arg g = { .dm = dm, .n = n };

	sj_pins_foreach(gc_one, &g);
	if (g.removed)
		logd(dm, LOG_INFO, NULL, "removed %d pin folder%s of devices gone from %s",
		     g.removed, g.removed == 1 ? "" : "s",
		     n->name[0] ? n->name : "our namespace");
}

int ns_open(struct daemon *dm, const char *name, const struct stat *st)
{
	struct ns *n;
	int size = 4 << 20, err;

	if (dm->nns == SJ_NS_MAX)
		return sj_err("more than %d namespaces to watch", SJ_NS_MAX);
	n = &dm->ns[dm->nns];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	if (st) {
		n->st_dev = st->st_dev;
		n->st_ino = st->st_ino;
	}
	err = ns_enter(n);
	if (err)
		return sj_err("cannot enter namespace %s: %s", name, strerror(-err));
	n->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	err = n->nl ? sj_netns_cookie(&n->cookie) : -1;
	ns_leave(dm, n);
	if (!n->nl || err || mnl_socket_bind(n->nl, 1u << (RTNLGRP_LINK - 1),
					     MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		if (n->nl)
			mnl_socket_close(n->nl);
		return sj_err("cannot watch links%s%s: %s", name[0] ? " in " : "",
			      name, strerror(err));
	}
	/* a burst of pods must not overflow us while a child runs */
	setsockopt(mnl_socket_get_fd(n->nl), SOL_SOCKET, SO_RCVBUFFORCE,
		   &size, sizeof(size));
	n->listed = true;
	dm->nns++;
	if (name[0])
		logd(dm, LOG_INFO, NULL, "watching namespace %s", name);
	if (ns_scan(dm, n))
		logd(dm, LOG_WARNING, NULL, "cannot list links%s%s", name[0] ? " of " : "", name);
	ns_gc(dm, n);
	return 0;
}

/* The namespace lost its name: let go of it (our socket would keep it
 * alive) and of what we attached in it, which dies with it. */
static void ns_close(struct daemon *dm, int i)
{
	struct ns *n = &dm->ns[i];
	int k;

	for (k = dm->ndevs - 1; k >= 0; k--)
		if (dm->devs[k].cookie == n->cookie)
			dev_gone(dm, &dm->devs[k]);
	logd(dm, LOG_INFO, NULL, "namespace %s gone", n->name);
	mnl_socket_close(n->nl);
	dm->ns[i] = dm->ns[--dm->nns];
}

static bool netns_wanted(const struct daemon *dm, const char *name)
{
	int i;

	if (dm->only_iface[0])
		return false;	/* its interface is in our own namespace */
	for (i = 0; i < dm->cfg.nrules; i++)
		if (dm->cfg.rules[i].netns[0] && !fnmatch(dm->cfg.rules[i].netns, name, 0))
			return true;
	return false;
}

/* Named namespaces come and go with `ip netns add/del`; a look per tick. */
void netns_refresh(struct daemon *dm)
{
	char path[SJ_PATH_MAX + 16];
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int i;

	for (i = 1; i < dm->nns; i++)
		dm->ns[i].listed = false;
	dir = opendir("/run/netns");
	while (dir && (de = readdir(dir))) {
		struct ns *n = NULL;

		if (de->d_name[0] == '.' || !netns_wanted(dm, de->d_name))
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		if (stat(path, &st))
			continue;
		for (i = 1; i < dm->nns; i++)
			if (!strcmp(dm->ns[i].name, de->d_name))
				n = &dm->ns[i];
		if (n && n->st_dev == st.st_dev && n->st_ino == st.st_ino) {
			n->listed = true;
			continue;
		}
		if (!n)
			ns_open(dm, de->d_name, &st);
	}
	if (dir)
		closedir(dir);
	for (i = dm->nns - 1; i >= 1; i--)
		if (!dm->ns[i].listed)
			ns_close(dm, i);
}
