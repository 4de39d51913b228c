// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The links of each watched namespace: a dump at the start (and whenever
 * events were lost), then RTM_NEWLINK and RTM_DELLINK as they come; a
 * device that goes takes its pins with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include "daemon.h"

struct dev *dev_find(struct daemon *dm, __u64 cookie, __u32 ifindex, bool create)
{
	struct dev *d;
	int i;

	for (i = 0; i < dm->ndevs; i++)
		if (dm->devs[i].cookie == cookie && dm->devs[i].ifindex == ifindex)
			return &dm->devs[i];
	if (!create)
		return NULL;
	if (dm->ndevs == dm->cap) {
		int cap = dm->cap ? dm->cap * 2 : 64;
		struct dev *n = realloc(dm->devs, cap * sizeof(*n));

		if (!n)
			return NULL;
		dm->devs = n;
		dm->cap = cap;
	}
	d = &dm->devs[dm->ndevs++];
	memset(d, 0, sizeof(*d));
	d->cookie = cookie;
	d->ifindex = ifindex;
	return d;
}

void dev_gone(struct daemon *dm, struct dev *d)
{
	int n = remove_pins(d->cookie, d->ifindex);

	if (n || d->ours)
		logd(dm, LOG_INFO, d, "gone: %d pin folder%s removed", n, n == 1 ? "" : "s");
	if (d->ours)
		dm->state_dirty = true;
	*d = dm->devs[--dm->ndevs];
}

struct link_msg_arg {
	struct daemon *dm;
	const struct ns *n;
};

static int link_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct link_msg_arg *arg = data;
	struct daemon *dm = arg->dm;
	const struct ns *n = arg->n;
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct sj_link li;
	struct dev *d;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return MNL_CB_OK;
	if (nlh->nlmsg_type == RTM_DELLINK) {
		d = dev_find(dm, n->cookie, ifm->ifi_index, false);
		if (d)
			dev_gone(dm, d);
		else
			remove_pins(n->cookie, ifm->ifi_index);
		return MNL_CB_OK;
	}
	sj_link_parse(nlh, &li);
	if (li.flags & IFF_LOOPBACK)
		return MNL_CB_OK;	/* nothing queues there */
	d = dev_find(dm, n->cookie, li.ifindex, true);
	if (!d)
		return MNL_CB_ERROR;
	if (!li.kind[0] && li.hardware)
		snprintf(li.kind, sizeof(li.kind), "physical");
	if (strcmp(d->name, li.name) || strcmp(d->kind, li.kind) ||
	    d->up != !!(li.flags & IFF_UP))
		d->dirty = true;
	snprintf(d->name, sizeof(d->name), "%s", li.name);
	snprintf(d->kind, sizeof(d->kind), "%s", li.kind);
	d->up = li.flags & IFF_UP;
	d->seen = true;
	return MNL_CB_OK;
}

int ns_read(struct daemon *dm, struct ns *n, bool wait_done)
{
	struct link_msg_arg arg = { dm, n };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	for (;;) {
		ret = mnl_socket_recvfrom(n->nl, buf, sizeof(buf));
		if (ret < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		ret = mnl_cb_run(buf, ret, 0, 0, link_msg, &arg);
		if (ret < 0)
			return -errno;
		if (wait_done && ret == MNL_CB_STOP)
			return 0;
	}
}

/* Every link of the namespace, afresh; links not listed are gone. */
int ns_scan(struct daemon *dm, struct ns *n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *rt;
	static unsigned int seq = 1;
	int i, ret, fl = fcntl(mnl_socket_get_fd(n->nl), F_GETFL);

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++seq;
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtgen_family = AF_UNSPEC;
	for (i = 0; i < dm->ndevs; i++)
		if (dm->devs[i].cookie == n->cookie)
			dm->devs[i].seen = false;
	if (mnl_socket_sendto(n->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	fcntl(mnl_socket_get_fd(n->nl), F_SETFL, fl & ~O_NONBLOCK);
	ret = ns_read(dm, n, true);
	fcntl(mnl_socket_get_fd(n->nl), F_SETFL, fl);
	if (ret)
		return ret;
	for (i = dm->ndevs - 1; i >= 0; i--) {
		if (dm->devs[i].cookie != n->cookie)
			continue;
		if (!dm->devs[i].seen)
			dev_gone(dm, &dm->devs[i]);
		else
			dm->devs[i].dirty = true;
	}
	return 0;
}
