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
#include "qdisc.h"
#include "tune.h"
#include "linktype.h"
#include "htbpath.h"
#include "host.h"
#include "sojourn_xdp.skel.h"

struct attach_ctx {
	struct sojourn_xdp *xskel;	/* under hook xdp: libxdp loads it */
	int prog_fd;			/* the host's tc program */
	int meta_fd;			/* this attachment's meta */
	int egress_link_fd;
	bool xdp_attached;
	bool clsact_attached;
	__u32 class_made;		/* an HTB class of ours, until pinned */
	struct sj_host_att host;
	struct sj_meta meta;
	__u32 link_layer;		/* enum sj_link_layer: where frames begin */
	char tmp[SJ_PATH_MAX];
};

static int pin_fd(const struct attach_ctx *c, const char *name, int fd)
{
	char path[SJ_PATH_MAX];

	if (sj_pin_path(path, c->tmp, name) ||
	    (bpf_obj_pin(fd, path) && errno != EEXIST))
		return sj_err("cannot pin %s: %s", path, strerror(errno));
	return 0;
}

/* The host's map by name, pinned in the folder too: show, change and the
 * rest read an attachment's state through its folder */
static int pin_host_map(const struct attach_ctx *c, const char *name)
{
	int fd = sj_host_map(name), err;

	if (fd < 0)
		return sj_err("cannot open %s/%s: %s", SJ_HOST_DIR, name, strerror(errno));
	err = pin_fd(c, name, fd);
	close(fd);
	return err;
}

/* The attachment's own maps and the host's it reads, then the links */
static int pin_all(struct attach_ctx *c)
{
	static const char *const shared[] = { "settings", "queues", "flows" };

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		if (pin_host_map(c, shared[i]))
			return -1;
	if (pin_fd(c, "stats", c->host.stats_fd) || pin_fd(c, "hist", c->host.hist_fd))
		return -1;
	if (c->xskel &&
	    pin_fd(c, "prog_xdp", bpf_program__fd(c->xskel->progs.sojourn_xdp)))
		return -1;
	/* the tc link keeps its old name for either direction */
	if (c->egress_link_fd >= 0 && pin_fd(c, "link_egress", c->egress_link_fd))
		return -1;
	return 0;
}

static int write_meta(const struct attach_ctx *c)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(c->meta_fd, &zero, &c->meta, 0))
		return sj_err("cannot write meta: %s", strerror(errno));
	return 0;
}

/* The folder and its meta come first: an attach killed from here on
 * leaves what the next command needs to undo it (pins.c's sweep), the
 * host's entry for it included (host.c). */
static int folder_early(struct attach_ctx *c, __u64 cookie,
			const struct sj_link *link, enum sj_dir dir)
{
	snprintf(c->tmp, sizeof(c->tmp), "%s/tmp-%d-%llu-%u-%s", SJ_PIN_ROOT,
		 getpid(), (unsigned long long)cookie, link->ifindex,
		 sj_dir_name(dir));
	if (mkdir(c->tmp, 0700)) {
		c->tmp[0] = '\0';
		return sj_err("cannot create pin folder: %s", strerror(errno));
	}
	c->meta_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "meta", sizeof(__u32),
				    sizeof(struct sj_meta), 1, NULL);
	if (c->meta_fd < 0)
		return sj_err("cannot create meta: %s", strerror(errno));
	return write_meta(c) || pin_fd(c, "meta", c->meta_fd);
}

/* One CoDel state per queue the device really has: under an mq root each
 * transmit queue has its own qdisc; any other root is one queue for all. */
static __u32 managed_queues(const struct sj_link *link, const char *root_kind)
{
	if (strcmp(root_kind, "mq"))
		return 1;
	return link->num_tx_queues < SJ_MAX_TXQ ? link->num_tx_queues : SJ_MAX_TXQ;
}

static int write_settings(struct attach_ctx *c, const struct sj_settings *set)
{
	int fd = sj_host_map("settings"), err = 0;

	if (fd < 0)
		return sj_err("cannot open %s/settings: %s", SJ_HOST_DIR, strerror(errno));
	if (sj_settings_put(fd, c->meta.att_id, set))
		err = sj_err("cannot write settings: %s", strerror(errno));
	close(fd);
	return err;
}

/* The host's state for this attachment, its place recorded in meta */
static int register_att(struct attach_ctx *c, const struct sj_tune *tune,
			__u32 nq, const struct sj_settings *set)
{
	struct sj_att_key k = { .netns_cookie = c->meta.netns_cookie,
				.ifindex = c->meta.ifindex,
				.dir = tune->dir };

	if (sj_host_add(&k, tune->mode, nq, set, &c->host))
		return -1;
	c->meta.att_id = c->host.att.id;
	c->meta.queue_base = c->host.att.queue_base;
	c->meta.num_txq = nq;
	return write_meta(c);
}

/* libxdp loads the object itself, as part of its dispatcher: it gets the
 * host's maps, and its program is this attachment's own */
static int open_xdp(struct attach_ctx *c, __u64 cookie)
{
	c->xskel = sojourn_xdp__open();
	if (!c->xskel)
		return sj_err("cannot open BPF object: %s", strerror(errno));
	c->xskel->rodata->cfg_netns_cookie = cookie;
	c->xskel->rodata->cfg_link_layer = c->link_layer;
	/* the key it finds its attachment by: XDP is rate mode at ingress */
	c->xskel->rodata->cfg_direction = SJ_DIR_INGRESS;
	c->xskel->rodata->cfg_mode = SJ_MODE_RATE;
	return sj_host_reuse(c->xskel->obj);
}

static void undo(struct attach_ctx *c)
{
	if (c->clsact_attached)
		sj_hook_detach_clsact(&c->meta, -1);
	if (c->xdp_attached)
		sj_xdp_detach(&c->meta);
	if (c->class_made)
		sj_htb_path_del(c->meta.ifindex, c->class_made);
	if (c->egress_link_fd >= 0)
		close(c->egress_link_fd);
	/* the folder's meta names the host's entry: both go */
	if (c->tmp[0])
		sj_pins_remove_dir(c->tmp);
	if (c->host.stats_fd >= 0)
		close(c->host.stats_fd);
	if (c->host.hist_fd >= 0)
		close(c->host.hist_fd);
	if (c->prog_fd >= 0)
		close(c->prog_fd);
	if (c->meta_fd >= 0)
		close(c->meta_fd);
	sojourn_xdp__destroy(c->xskel);
}

/* The clsact qdisc our other direction's attachment made is ours too: the
 * last of the two to leave removes it. */
static void inherit_clsact(struct sj_meta *meta)
{
	struct sj_pins other;
	struct sj_meta m;

	if (meta->hook != SJ_HOOK_CLSACT || meta->created_clsact)
		return;
	sj_pins_for(&other, meta->netns_cookie, meta->ifindex,
		    meta->direction == SJ_DIR_INGRESS ? SJ_DIR_EGRESS : SJ_DIR_INGRESS);
	if (sj_meta_read(other.dir, &m) == 0 && m.hook == SJ_HOOK_CLSACT &&
	    m.created_clsact)
		meta->created_clsact = 1;
}

/* XDP where the driver hands us frames before any skb exists (NICs); tc
 * where the skb is already built (veth and other virtual devices), since
 * XDP there first turns the skb back into a frame, which costs more. */
bool sj_wants_xdp(const struct sj_tune *tune, const struct sj_link *link)
{
	if (tune->dir != SJ_DIR_INGRESS)
		return false;
	if (tune->hook == SJ_HOOK_REQ_DEFAULT)
		return link->kind[0] == '\0';
	return tune->hook == SJ_HOOK_REQ_XDP;
}

static enum sj_hook tc_hook(const struct sj_tune *tune)
{
	if (tune->hook == SJ_HOOK_REQ_TCX)
		return SJ_HOOK_TCX;
	if (tune->hook == SJ_HOOK_REQ_CLSACT)
		return SJ_HOOK_CLSACT;
	return 0;	/* tcx, clsact where the kernel has no tcx */
}

/*
 * sparse_class auto's path ahead on this device, as the skb->priority that
 * takes it: the class *made earlier if there is one; pfifo_fast's band 0;
 * under an HTB root a class added beside the default one (its classid
 * also in *made).  Where there is none, one line that says so and what
 * would add one.
 */
static __u32 sparse_auto(const struct sj_link *link, __u64 interval_ns,
			 __u32 *made)
{
	char kind[32] = "", why[320];
	__u32 prio;

	if (*made)
		return *made;
	prio = sj_sparse_auto_priority(link->ifindex);
	if (prio)
		return prio;
	sj_root_qdisc_kind(link->ifindex, kind, sizeof(kind));
	if (!strcmp(kind, "htb")) {
		*made = sj_htb_path_add(link, interval_ns, why, sizeof(why));
		if (*made)
			return *made;
		sj_info("sojourn: note: %s: sparse_class auto: no class for sparse flows to go ahead in: %s; or name one with sparse_class CLASSID",
			link->name, why);
		return 0;
	}
	sj_info("sojourn: note: %s: sparse_class auto: root %s has no band ahead; sparse flows wait with the bulk; pfifo_fast has one (tc qdisc replace dev %s root pfifo_fast), or an HTB class can be named with sparse_class CLASSID",
		link->name, *kind ? kind : "qdisc", link->name);
	return 0;
}

/*
 * sparse_class auto under an HTB root adds a class (htbpath.c) once the
 * meta is pinned in the tmp folder, and records it there before anything
 * else: an attach killed from here on leaves a folder whose sweep removes
 * the class (pins.c), never a class no one knows of.
 */
static int sparse_class_early(struct attach_ctx *c, const struct sj_link *link,
			      const struct sj_tune *tune, struct sj_settings *set)
{
	if (tune->sparse != SJ_SPARSE_AUTO || tune->mode != SJ_MODE_QUEUE ||
	    set->sparse_priority)
		return 0;
	set->sparse_priority = sparse_auto(link, tune->interval_ns, &c->class_made);
	if (!c->class_made)
		return 0;
	c->meta.sparse_class_made = c->class_made;
	return write_meta(c) || write_settings(c, set);
}

static int do_attach(struct attach_ctx *c, const struct sj_link *link,
		     __u64 cookie, const struct sj_tune *tune,
		     const struct sj_pins *pins, const char *root_kind)
{
	bool xdp = sj_wants_xdp(tune, link);
	struct sj_prog_want want = { .netns_cookie = cookie,
				     .link_layer = c->link_layer,
				     .mode = tune->mode, .dir = tune->dir };
	struct sj_settings set;
	__u32 nq = !xdp && tune->mode != SJ_MODE_RATE ?
		   managed_queues(link, root_kind) : 1;

	sj_tune_to_settings(tune, link->mtu + link->hard_header_len, &set);
	c->meta.netns_cookie = cookie;
	c->meta.ifindex = link->ifindex;
	/* a band the tree has; a class to add waits for the folder (below) */
	if (tune->sparse == SJ_SPARSE_AUTO && tune->mode == SJ_MODE_QUEUE)
		set.sparse_priority = sj_sparse_auto_priority(link->ifindex);
	c->meta.direction = tune->dir;
	c->meta.mode = tune->mode;
	c->meta.attached_at = time(NULL);
	snprintf(c->meta.ifname, sizeof(c->meta.ifname), "%s", link->name);
	snprintf(c->meta.netns, sizeof(c->meta.netns), "%s",
		 sj_netns_name ? sj_netns_name : "");

	if (folder_early(c, cookie, link, tune->dir))
		return -1;
	/* the programs first (loaded once per host), then the state they
	 * find the device by: a program runs on no device until linked */
	if (xdp) {
		if (open_xdp(c, cookie))
			return -1;
	} else {
		c->prog_fd = sj_host_prog(&want);
		if (c->prog_fd < 0)
			return -1;
		/* rate mode measures nothing at the queue's exit */
		if (tune->mode != SJ_MODE_RATE && sj_host_dequeue())
			return -1;
	}
	if (register_att(c, tune, nq, &set))
		return -1;

	if (xdp) {
		if (sj_xdp_attach(c->xskel, link->ifindex, &c->meta))
			return -1;
		c->xdp_attached = true;
	} else {
		c->meta.prog_id = sj_prog_id(c->prog_fd);
		if (write_meta(c) || pin_fd(c, "prog_egress", c->prog_fd) ||
		    sparse_class_early(c, link, tune, &set))
			return -1;
		if (sj_hook_attach(c->prog_fd, link->ifindex, tc_hook(tune),
				   &c->meta, c->meta_fd, &c->egress_link_fd))
			return -1;
		c->clsact_attached = c->meta.hook == SJ_HOOK_CLSACT;
		inherit_clsact(&c->meta);
		sj_ahead_baseline(&c->meta);
	}

	if (write_meta(c) || pin_all(c))
		return -1;
	if (rename(c->tmp, pins->dir))
		return sj_err("cannot move pins into %s: %s", pins->dir,
			      strerror(errno));
	c->tmp[0] = '\0';
	c->clsact_attached = false;
	c->xdp_attached = false;
	c->class_made = 0;
	if (!xdp)
		sj_ahead_note(&c->meta);	/* attached, but maybe blind */
	return 0;
}

/* DEV [ingress|egress] at the start of VERB's words */
static int target_args(struct sj_target *t, const char *verb, int argc,
		       char **argv)
{
	if (argc < 1)
		return sj_err("%s needs a device: sojourn %s DEV [ingress|egress] [options]",
			      verb, verb);
	t->dev = argv[0];
	t->words = 1 + sj_dir_arg(argc - 1, argv + 1, &t->dir);
	return 0;
}

int sj_attach_request(struct sj_target *t, struct sj_tune *tune,
		      const char *verb, int argc, char **argv)
{
	if (target_args(t, verb, argc, argv))
		return -1;
	sj_tune_defaults(tune);
	tune->dir = t->dir;
	if (sj_tune_parse(tune, argc - t->words, argv + t->words, true))
		return -1;
	return sj_tune_check(tune);
}

/* Shared by attach, change and replace: checks, netns, device, folder. */
int sj_target_resolve(struct sj_target *t)
{
	if (sj_check_all() || sj_netns_enter(sj_netns_name) ||
	    sj_netns_cookie(&t->cookie) || sj_link_get(t->dev, &t->link))
		return -1;
	sj_pins_for(&t->pins, t->cookie, t->link.ifindex, t->dir);
	return 0;
}

/* change's and replace's: what is there, each with a way of its own to
 * meet another version's attachment or none at all */
int sj_target_find(struct sj_target *t)
{
	if (sj_pins_lock())
		return -1;
	if (!sj_pins_exist(&t->pins))
		return SJ_FOUND_NONE;
	if (sj_pins_layout(t->pins.dir, t->why, sizeof(t->why)) == -EPROTO)
		return SJ_FOUND_FOREIGN;
	if (sj_meta_read(t->pins.dir, &t->meta))
		return SJ_FOUND_NO_META;
	return SJ_FOUND;
}

/* attach, once the request is parsed and checked and the target resolved:
 * replace comes here with what it found, not through cmd_attach, which
 * would check, resolve and ask netlink all over again */
int sj_attach_resolved(const struct sj_tune *req, const struct sj_target *t)
{
	struct attach_ctx c = { .egress_link_fd = -1, .prog_fd = -1,
				.meta_fd = -1,
				.host = { .stats_fd = -1, .hist_fd = -1 } };
	struct sj_tune tune = *req;
	struct sj_link link = t->link;
	struct sj_pins pins = t->pins;
	char kind[32] = "";
	const char *dir;
	int err;

	if (sj_linktype_get(&link, sj_wants_xdp(&tune, &link), &c.link_layer))
		return -1;
	dir = sj_dir_name(tune.dir);
	/* no queue, or an AQM already there (real-queue mode), or a qdisc
	 * observe cannot measure through: refused before anything is made */
	if (tune.mode != SJ_MODE_RATE &&
	    sj_qdisc_check(&link, tune.mode, kind, sizeof(kind)))
		return -1;
	if (sj_pins_lock())
		return -1;
	if (sj_pins_exist(&pins))
		return sj_err("%s %s is already attached; use 'sojourn change %s%s ...' to retune",
			      link.name, dir, link.name,
			      tune.dir == SJ_DIR_INGRESS ? " ingress" : "");

	err = do_attach(&c, &link, t->cookie, &tune, &pins, kind);
	undo(&c);	/* after success only fds remain: the pins hold the rest */
	return err;
}

int cmd_attach(int argc, char **argv)
{
	struct sj_target t;
	struct sj_tune tune;

	if (sj_attach_request(&t, &tune, "attach", argc, argv) ||
	    sj_target_resolve(&t))
		return -1;
	return sj_attach_resolved(&tune, &t);
}

/*
 * Writes tune over the settings in fd (read under the lock, so fields no
 * option sets are kept), with sparse auto worked out for the device's root
 * as it is now.  Shared by change and replace.
 */
int sj_settings_write(const struct sj_link *link, const struct sj_pins *pins,
		      int fd, const struct sj_tune *tune, struct sj_settings *set)
{
	struct sj_meta meta;
	__u32 made;
	int err;

	if (sj_meta_read(pins->dir, &meta))
		return sj_err("cannot read what %s is attached as", link->name);
	made = meta.sparse_class_made;
	sj_tune_to_settings(tune, set->codel.mtu, set);
	if (tune->sparse == SJ_SPARSE_AUTO && meta.mode == SJ_MODE_QUEUE)
		set->sparse_priority = sparse_auto(link, tune->interval_ns, &made);
	if (sj_settings_put(fd, meta.att_id, set)) {
		err = errno;
		if (made != meta.sparse_class_made)
			sj_htb_path_del(link->ifindex, made);
		return sj_err("cannot update settings of %s: %s", link->name,
			      strerror(err));
	}
	/* no longer asked for: the class goes once nothing steers into it */
	if (made && tune->sparse != SJ_SPARSE_AUTO) {
		sj_sparse_class_remove(&meta);
		made = 0;
	}
	if (made != meta.sparse_class_made) {
		meta.sparse_class_made = made;
		if (sj_meta_write(pins->dir, &meta)) {
			err = errno;
			if (made)	/* unrecorded, it would outlive us */
				sj_htb_path_del(link->ifindex, made);
			return sj_err("cannot record class %x:%x in %s's meta: %s",
				      made >> 16, made & 0xffff, link->name,
				      strerror(err));
		}
	}
	return 0;
}

/* The settings map of an attachment, open, and its current value. */
int sj_settings_open(const struct sj_pins *pins, struct sj_settings *set)
{
	char path[SJ_PATH_MAX], why[128];
	struct sj_meta meta;
	int fd;

	if (sj_meta_read(pins->dir, &meta))
		return sj_err("cannot read the meta in %s", pins->dir);
	sj_pin_path(path, pins->dir, "settings");	/* for the message */
	fd = sj_pin_open_map(pins->dir, "settings", why, sizeof(why));
	if (fd < 0 && errno == EPROTO) {
		sj_pins_foreign(pins->dir, why, false);
		return -1;
	}
	if (fd < 0)
		return sj_err("cannot open %s: %s", path, strerror(errno));
	if (bpf_map_lookup_elem_flags(fd, &meta.att_id, set, BPF_F_LOCK)) {
		sj_err("cannot read %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* change's options (argv) over what is set in t's attachment */
static int change_settings(const struct sj_target *t, int argc, char **argv)
{
	struct sj_settings set;
	struct sj_tune tune;
	int fd, err;

	fd = sj_settings_open(&t->pins, &set);
	if (fd < 0)
		return -1;
	sj_tune_from_settings(&tune, &set, &t->meta);
	err = sj_tune_parse(&tune, argc, argv, false) || sj_tune_check(&tune) ||
	      sj_settings_write(&t->link, &t->pins, fd, &tune, &set);
	close(fd);
	return err ? -1 : 0;
}

int cmd_change(int argc, char **argv)
{
	struct sj_target t;

	if (target_args(&t, "change", argc, argv) || sj_target_resolve(&t))
		return -1;
	switch (sj_target_find(&t)) {
	case SJ_FOUND:
		return change_settings(&t, argc - t.words, argv + t.words);
	case SJ_FOUND_FOREIGN:
		/* another version's settings are not ours to rewrite */
		sj_pins_foreign(t.pins.dir, t.why, false);
		return -1;
	case SJ_FOUND_NONE:
	case SJ_FOUND_NO_META:
		return sj_err("%s %s is not attached; use 'sojourn attach %s%s ...'",
			      t.link.name, sj_dir_name(t.dir), t.link.name,
			      t.dir == SJ_DIR_INGRESS ? " ingress" : "");
	default:
		return -1;
	}
}
