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
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include "cni.h"

struct link_info {
	int ifindex;
	int link;		/* IFLA_LINK: a veth's peer's ifindex */
	char kind[16];		/* IFLA_INFO_KIND: "veth", "bridge", ... */
};

static int info_attr(const struct nlattr *a, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND)
		snprintf(li->kind, sizeof(li->kind), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int link_attr(const struct nlattr *a, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_type(a) == IFLA_LINK)
		li->link = mnl_attr_get_u32(a);
	else if (mnl_attr_get_type(a) == IFLA_LINKINFO)
		mnl_attr_parse_nested(a, info_attr, li);
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct link_info *li = data;

	li->ifindex = ifm->ifi_index;
	mnl_attr_parse(nlh, sizeof(*ifm), link_attr, li);
	return MNL_CB_OK;
}

/* The device ifname of the namespace we are in; -1 if there is none */
static int link_query(const char *ifname, struct link_info *li)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	int ret = -1;

	memset(li, 0, sizeof(*li));
	if (!ifname || !*ifname || strlen(ifname) >= IF_NAMESIZE)
		goto out;
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto out;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 1;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto out;
	ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (ret > 0)
		ret = mnl_cb_run(buf, ret, 1, mnl_socket_get_portid(nl), link_cb, li);
	ret = ret < 0 || !li->ifindex ? -1 : 0;
out:
	if (nl)
		mnl_socket_close(nl);
	return ret;
}

/* Enters the pod's namespace, asks about its interface, comes back.
 * -1 when the namespace or the interface is gone. */
static int pod_link(const char *netns, const char *ifname, struct link_info *li)
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
	err = link_query(ifname, li);
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
	struct link_info pod = {}, li, found = {}, cand = {};
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
		    link_query(json_object_get_string(name), &li) ||
		    strcmp(li.kind, "veth"))
			continue;
		if (pod_seen && li.ifindex == pod.link) {
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
		if (!pod.link || pod.link == pod.ifindex ||
		    !if_indextoname(pod.link, host) || link_query(host, &li) ||
		    strcmp(li.kind, "veth") || li.link != pod.ifindex)
			die(ERR_NO_HOST, "%s in %s is not one end of a veth pair whose other end is here",
			    ifname, netns);
		found = li;
	}
	if (!if_indextoname(found.ifindex, host))
		die(ERR_NO_HOST, "host veth %d of %s is gone", found.ifindex, ifname);
	*host_ifindex = found.ifindex;
	return 0;
}
