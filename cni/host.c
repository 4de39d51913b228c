// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The host side of the pod's veth: what sojourn is attached to.
 *
 * The main plugin's result says which interfaces it made on the host
 * (prevResult.interfaces, the entries without a sandbox): its word comes
 * first.  The bridge plugin lists the bridge there too, hence only veths
 * count, and of several the one that is the pod interface's peer.  Without
 * such a list we ask the pod's interface for its peer (IFLA_LINK), but
 * that is an ifindex of the peer's namespace, which need not be ours: the
 * device found here by that number must also name the pod's interface as
 * its own peer, or it is somebody else's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cni.h"
#include "link.h"	/* the loader's: build/loader/link.o */

/* Enters the pod's namespace, asks about its interface, comes back.
 * Non-zero when the namespace or the interface is gone. */
static int pod_link(const char *netns, const char *ifname, struct sj_link *li)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), fd, err;

	if (self < 0)
		die(ERR_IO, "cannot open our namespace: %s", strerror(errno));
	fd = netns && *netns ? open(netns, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		close(self);
		return -1;
	}
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	if (err)
		die(ERR_IO, "cannot enter %s: %s", netns, strerror(errno));
	err = sj_link_lookup(ifname, li);
	if (setns(self, CLONE_NEWNET))
		die(ERR_IO, "cannot come back from %s: %s", netns, strerror(errno));
	close(self);
	return err;
}

static bool on_host(struct json_object *iface)
{
	struct json_object *v;

	return !json_object_object_get_ex(iface, "sandbox", &v) ||
	       json_object_is_type(v, json_type_null) ||
	       !*json_object_get_string(v);
}

/* Finds the host veth; 0 with its name and ifindex, -1 when the pod (its
 * namespace or interface) is gone and prevResult names no host veth. */
int host_veth(const struct conf *c, const char *netns, const char *ifname,
	      char *host, int *host_ifindex)
{
	struct json_object *ifaces = NULL, *name;
	struct sj_link pod = {}, li, found = {}, cand = {};
	bool pod_seen = !pod_link(netns, ifname, &pod);
	int ncand = 0;
	size_t i;

	if (c->prev)
		json_object_object_get_ex(c->prev, "interfaces", &ifaces);
	for (i = 0; json_object_is_type(ifaces, json_type_array) &&
		    i < json_object_array_length(ifaces); i++) {
		struct json_object *e = json_object_array_get_idx(ifaces, i);

		if (!json_object_is_type(e, json_type_object) || !on_host(e) ||
		    !json_object_object_get_ex(e, "name", &name) ||
		    sj_link_lookup(json_object_get_string(name), &li) ||
		    strcmp(li.kind, "veth"))
			continue;
		if (pod_seen && li.ifindex == pod.peer) {
			found = li;	/* the pod interface's peer: no doubt */
			break;
		}
		if (!ncand++)
			cand = li;
	}
	if (!found.ifindex && ncand > 1)
		die(ERR_NO_HOST, "prevResult names %d host veths, none the peer of %s in %s",
		    ncand, ifname, netns);
	if (!found.ifindex && ncand == 1)
		found = cand;
	if (!found.ifindex) {
		/* nothing in prevResult: the peer, if it is ours */
		if (!pod_seen)
			return -1;
		if (!pod.peer || pod.peer == pod.ifindex ||
		    !if_indextoname(pod.peer, host) || sj_link_lookup(host, &li) ||
		    strcmp(li.kind, "veth") || li.peer != pod.ifindex)
			die(ERR_NO_HOST, "%s in %s is not one end of a veth pair whose other end is here",
			    ifname, netns);
		found = li;
	}
	if (!if_indextoname(found.ifindex, host))
		die(ERR_NO_HOST, "host veth %d of %s is gone", found.ifindex, ifname);
	*host_ifindex = found.ifindex;
	return 0;
}
