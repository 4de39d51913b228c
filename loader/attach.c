// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * attach: load, pin, hook, all or nothing.  Everything is built in a
 * "tmp-PID-..." folder and renamed into place as the last step; on any
 * error before that the folder is removed and our fds closed, which takes
 * the links (and so the programs) off the device again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "tune.h"
#include "sojourn.skel.h"

struct attach_ctx {
	struct sojourn_bpf *skel;
	struct bpf_link *dequeue_link;
	int egress_link_fd;
	bool clsact_attached;
	struct sj_meta meta;
	char tmp[SJ_PATH_MAX];
};

/* Every map of the object, by its name, then the programs and links. */
static int pin_all(struct attach_ctx *c)
{
	struct {
		const char *name;
		int fd;
	} objs[] = {
		{ "prog_egress", bpf_program__fd(c->skel->progs.sojourn_egress) },
		{ "prog_dequeue", bpf_program__fd(c->skel->progs.sojourn_dequeue) },
		{ "link_dequeue", bpf_link__fd(c->dequeue_link) },
		{ "link_egress", c->egress_link_fd },
	};
	char path[SJ_PATH_MAX];
	struct bpf_map *map;
	size_t i;

	bpf_object__for_each_map(map, c->skel->obj) {
		if (bpf_map__is_internal(map))
			continue;	/* .rodata, .bss: not state anyone reads */
		if (sj_pin_path(path, c->tmp, bpf_map__name(map)) ||
		    bpf_obj_pin(bpf_map__fd(map), path))
			return sj_err("cannot pin %s: %s", path, strerror(errno));
	}
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		if (objs[i].fd < 0)
			continue;	/* clsact has no egress link */
		if (sj_pin_path(path, c->tmp, objs[i].name) ||
		    bpf_obj_pin(objs[i].fd, path))
			return sj_err("cannot pin %s: %s", path, strerror(errno));
	}
	return 0;
}

/* One CoDel state per queue the device really has: under an mq root each
 * transmit queue has its own qdisc; any other root is one queue for all. */
static __u32 managed_queues(const struct sj_link *link, const char *root_kind)
{
	if (strcmp(root_kind, "mq"))
		return 1;
	return link->num_tx_queues < SJ_MAX_TXQ ? link->num_tx_queues : SJ_MAX_TXQ;
}

static int load(struct attach_ctx *c, const struct sj_link *link,
		__u64 cookie, const struct sj_settings *set, __u32 nq)
{
	__u32 zero = 0;
	int err;

	c->skel = sojourn_bpf__open();
	if (!c->skel)
		return sj_err("cannot open BPF object: %s", strerror(errno));
	c->skel->rodata->cfg_ifindex = link->ifindex;
	c->skel->rodata->cfg_netns_cookie = cookie;
	c->skel->rodata->cfg_num_txq = nq;
	bpf_map__set_max_entries(c->skel->maps.queues, nq);
	err = sojourn_bpf__load(c->skel);
	if (err)
		return sj_err("cannot load BPF programs: %s (see libbpf messages above)",
			      strerror(-err));
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.settings), &zero, set, 0))
		return sj_err("cannot write settings: %s", strerror(errno));
	c->meta.num_txq = nq;
	return 0;
}

static void undo(struct attach_ctx *c)
{
	if (c->clsact_attached)
		sj_hook_detach_clsact(&c->meta, -1);
	if (c->tmp[0])
		sj_pins_remove_dir(c->tmp);
	if (c->egress_link_fd >= 0)
		close(c->egress_link_fd);
	bpf_link__destroy(c->dequeue_link);
	sojourn_bpf__destroy(c->skel);
}

static int do_attach(struct attach_ctx *c, const struct sj_link *link,
		     __u64 cookie, const struct sj_tune *tune,
		     const struct sj_pins *pins, const char *root_kind)
{
	struct sj_settings set;
	__u32 zero = 0;

	sj_tune_to_settings(tune, link->mtu + link->hard_header_len, &set);
	if (load(c, link, cookie, &set, managed_queues(link, root_kind)))
		return -1;

	c->meta.netns_cookie = cookie;
	c->meta.ifindex = link->ifindex;
	c->meta.attached_at = time(NULL);
	snprintf(c->meta.ifname, sizeof(c->meta.ifname), "%s", link->name);
	snprintf(c->meta.netns, sizeof(c->meta.netns), "%s",
		 sj_netns_name ? sj_netns_name : "");

	snprintf(c->tmp, sizeof(c->tmp), "%s/tmp-%d-%llu-%u", SJ_PIN_ROOT,
		 getpid(), (unsigned long long)cookie, link->ifindex);
	if (mkdir(c->tmp, 0700)) {
		c->tmp[0] = '\0';
		return sj_err("cannot create pin folder: %s", strerror(errno));
	}

	c->dequeue_link = bpf_program__attach_trace(c->skel->progs.sojourn_dequeue);
	if (!c->dequeue_link)
		return sj_err("cannot attach to tracepoint net_dev_start_xmit: %s",
			      strerror(errno));
	if (sj_hook_attach(bpf_program__fd(c->skel->progs.sojourn_egress),
			   link->ifindex, tune->hook, &c->meta, &c->egress_link_fd))
		return -1;
	c->clsact_attached = c->meta.hook == SJ_HOOK_CLSACT;

	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.meta), &zero, &c->meta, 0))
		return sj_err("cannot write meta: %s", strerror(errno));
	if (pin_all(c))
		return -1;
	if (rename(c->tmp, pins->dir))
		return sj_err("cannot move pins into %s: %s", pins->dir,
			      strerror(errno));
	c->tmp[0] = '\0';
	c->clsact_attached = false;	/* the folder owns it now */
	return 0;
}

/* Shared by attach, change, detach: checks, netns, device, its folder. */
int sj_resolve(const char *dev, struct sj_link *link, __u64 *cookie,
	       struct sj_pins *pins)
{
	if (sj_check_all() || sj_netns_enter(sj_netns_name) ||
	    sj_netns_cookie(cookie) || sj_link_get(dev, link))
		return -1;
	sj_pins_for(pins, *cookie, link->ifindex);
	return 0;
}

int cmd_attach(int argc, char **argv)
{
	struct attach_ctx c = { .egress_link_fd = -1 };
	struct sj_tune tune;
	struct sj_link link;
	struct sj_pins pins;
	char kind[32];
	__u64 cookie;
	int err;

	if (argc < 1)
		return sj_err("attach needs a device: sojourn attach DEV [options]");
	sj_tune_defaults(&tune);
	if (sj_tune_parse(&tune, argc - 1, argv + 1, true) || sj_tune_check(&tune))
		return -1;
	if (sj_resolve(argv[0], &link, &cookie, &pins))
		return -1;
	if (sj_root_qdisc_kind(link.ifindex, kind, sizeof(kind)))
		return -1;
	if (!strcmp(kind, "noqueue"))
		return sj_err("%s has no queue (qdisc noqueue): nothing to manage in real-queue mode; give it a qdisc (tc qdisc add dev %s root pfifo) or use rate mode",
			      link.name, link.name);
	if (sj_pins_lock())
		return -1;
	if (sj_pins_exist(&pins))
		return sj_err("%s is already attached; use 'sojourn change %s ...' to retune",
			      link.name, link.name);

	err = do_attach(&c, &link, cookie, &tune, &pins, kind);
	undo(&c);	/* after success only fds remain: the pins hold the rest */
	return err;
}

int cmd_change(int argc, char **argv)
{
	struct sj_settings set;
	struct sj_tune tune;
	struct sj_link link;
	struct sj_pins pins;
	char path[SJ_PATH_MAX];
	__u32 zero = 0;
	__u64 cookie;
	int fd, err;

	if (argc < 1)
		return sj_err("change needs a device: sojourn change DEV [options]");
	if (sj_resolve(argv[0], &link, &cookie, &pins) || sj_pins_lock())
		return -1;
	if (!sj_pins_exist(&pins))
		return sj_err("%s is not attached; use 'sojourn attach %s ...'",
			      link.name, link.name);
	if (sj_pin_path(path, pins.dir, "settings") || (fd = bpf_obj_get(path)) < 0)
		return sj_err("cannot open %s: %s", path, strerror(errno));
	err = bpf_map_lookup_elem_flags(fd, &zero, &set, BPF_F_LOCK);
	if (!err) {
		sj_tune_from_settings(&tune, &set);
		if (sj_tune_parse(&tune, argc - 1, argv + 1, false) ||
		    sj_tune_check(&tune)) {
			close(fd);
			return -1;
		}
		sj_tune_to_settings(&tune, set.codel.mtu, &set);
		err = bpf_map_update_elem(fd, &zero, &set, BPF_F_LOCK);
	}
	close(fd);
	if (err)
		return sj_err("cannot update settings of %s: %s", link.name,
			      strerror(errno));
	return 0;
}
