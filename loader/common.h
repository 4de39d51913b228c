/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every command shares: errors, the device it acts on, its pins. */
#ifndef SJ_COMMON_H
#define SJ_COMMON_H

#include <stdbool.h>
#include <stdlib.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include "sojourn.h"
#include "link.h"

#define SJ_PATH_MAX 256

/* One line to stderr, prefixed "sojourn: "; returns -1 for `return sj_err()` */
int sj_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sj_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -batch: the line being run, which sj_err names (0: none) */
extern int sj_batch_line;

/* env.c: refuse early, with a reason, what would fail half-way */
int sj_check_privileges(void);
int sj_check_bpffs(void);
int sj_check_btf(void);
int sj_check_all(void);

/* netns.c */
int sj_netns_enter(const char *name);	/* NULL or "": stay */
int sj_netns_cookie(__u64 *cookie);

/* nl.c: rtnetlink queries in the current network namespace; a link's
 * facts are read by link.c (link.h), which the CNI plugin shares */
int sj_link_get(const char *name, struct sj_link *link);	/* says why */
/* kind of the root qdisc ("noqueue", "htb", "mq", ...) */
int sj_root_qdisc_kind(__u32 ifindex, char *kind, size_t len);
/* the qdiscs of a device's egress side: root first as the kernel lists
 * it, then the children at any depth (sj_qdisc_tree_get says why it fails) */
struct sj_qdisc {
	char kind[16];
	__u32 handle;
	__u32 parent;		/* TC_H_ROOT for the root */
};
struct sj_qdisc_tree {
	size_t n, cap;
	struct sj_qdisc *q;
};
int sj_qdisc_tree_get(__u32 ifindex, struct sj_qdisc_tree *tree);
void sj_qdisc_tree_free(struct sj_qdisc_tree *tree);
/* a clsact qdisc is already there */
bool sj_has_clsact(__u32 ifindex);
/* number of tc filters under parent (e.g. clsact egress) */
int sj_count_filters(__u32 ifindex, __u32 parent);

/* the tc filters under parent, chain 0, in the order the kernel dumps
 * them (nl.c); returns how many, or -errno */
struct sj_tc_filter {
	__u32 prio;
	__u32 handle;
	__u32 prog_id;		/* bpf filters; 0 otherwise */
	char kind[16];		/* "bpf", "u32", "flower", ... */
};
int sj_list_filters(__u32 ifindex, __u32 parent, struct sj_tc_filter *f, int max);
/* the device's rx and tx packet counters (IFLA_STATS64) */
int sj_link_packets(__u32 ifindex, __u64 *rx, __u64 *tx);

/* a direction's one name: pins, show, export, the daemon's log */
/* An array of n elements of size bytes with room for one more: v itself
 * while it has room (*cap), else v grown to twice *cap (first when empty);
 * NULL, with v and *cap as they were, when memory runs out */
static inline void *sj_grow(void *v, size_t *cap, size_t n, size_t size,
			    size_t first)
{
	size_t want = *cap ? 2 * *cap : first;

	if (n < *cap)
		return v;
	v = realloc(v, want * size);
	if (v)
		*cap = want;
	return v;
}

static inline const char *sj_dir_name(enum sj_dir dir)
{
	return dir == SJ_DIR_INGRESS ? "ingress" : "egress";
}

/* pins.c: one folder per attachment under SJ_PIN_ROOT */
struct sj_pins {
	char dir[SJ_PATH_MAX];
};
void sj_pins_for(struct sj_pins *p, __u64 cookie, __u32 ifindex,
		 enum sj_dir dir);
int sj_pin_path(char *buf, const char *dir, const char *name);
bool sj_pins_exist(const struct sj_pins *p);
int sj_pins_lock(void);		/* serialises attach/change/detach */
int sj_pins_remove_dir(const char *dir);
/* renames a finished folder to "tmp-PID-<name>" (into tmp) so that what
 * follows, if killed, leaves a folder the next command sweeps */
int sj_pins_retire(const char *dir, char *tmp, size_t len);
/* calls fn for every attachment folder; stops when fn returns non-zero */
int sj_pins_foreach(int (*fn)(const char *dir, void *arg), void *arg);
/* A pinned map of the folder, open, if it has this build's layout (pins.c
 * checks type, key and value size of the maps the command reads against
 * include/sojourn.h); -1 with errno EPROTO, and what differs in why (may
 * be NULL), when another version of sojourn made it */
int sj_pin_open_map(const char *dir, const char *name, char *why, size_t len);
/* 0 when map fd has this type, key and value size; -EPROTO, with what
 * differs in why, when not (the one check sj_pin_open_map makes) */
int sj_map_layout_check(int fd, const char *name, __u32 type, __u32 key_size,
			__u32 value_size, char *why, size_t len);
/* every map the command reads in the folder has this build's layout;
 * -EPROTO, with what differs in why, when one does not */
int sj_pins_layout(const char *dir, char *why, size_t len);
/* the one line about a folder of another layout: an error, or (skipped)
 * what a command that walks all attachments says before going on */
void sj_pins_foreign(const char *dir, const char *why, bool skipped);
/* -EPROTO when the meta is of another layout */
int sj_meta_read(const char *dir, struct sj_meta *meta);
int sj_meta_write(const char *dir, const struct sj_meta *meta);
/* the folder of DEV in the namespace with this cookie, by ifindex or, for
 * a device that is gone, by the name it had */
int sj_pins_find(const char *dev, __u64 cookie, enum sj_dir dir,
		 struct sj_pins *pins);

/* hook.c: our tc program onto the device (meta->direction), and off again;
 * hook 0 is tcx where the kernel has it, clsact otherwise */
int sj_hook_attach(int prog_fd, __u32 ifindex, enum sj_hook hook,
		   struct sj_meta *meta, int meta_fd, int *link_fd);
int sj_hook_detach_clsact(const struct sj_meta *meta, int prog_fd);
__u32 sj_prog_id(int prog_fd);	/* 0 when the kernel will not say */

/* xdp.c: our XDP program through libxdp's dispatcher, and off again */
struct sojourn_xdp;
int sj_xdp_attach(struct sojourn_xdp *skel, __u32 ifindex, struct sj_meta *meta);
int sj_xdp_detach(const struct sj_meta *meta);


/* ahead.c: programs that run before ours on its tc hook, and how many
 * packets skipped us */
#define SJ_AHEAD_MAX 16
struct sj_ahead_prog {
	__u32 hook;		/* SJ_HOOK_TCX or SJ_HOOK_CLSACT */
	__u32 prio;		/* clsact: the filter's priority */
	__u32 id;		/* the BPF program's id; 0: not a BPF filter */
	char kind[16];
};
struct sj_ahead {
	bool known;		/* the hook could be read (device reachable) */
	int n;			/* programs ahead; the first SJ_AHEAD_MAX in p */
	struct sj_ahead_prog p[SJ_AHEAD_MAX];
	bool dev_known;
	__u64 dev_packets;	/* the device's counter for our direction */
};
struct sj_skipped {
	bool known;		/* the mode has a way to tell */
	bool noted;		/* enough packets and a large enough share */
	__u64 skipped, of;
	unsigned int percent;
};
/* in the attachment's netns (the current one, or meta->netns by name) */
int sj_ahead_find(const struct sj_meta *meta, struct sj_ahead *a);
void sj_ahead_list(const struct sj_ahead *a, char *buf, size_t len);
void sj_ahead_note(const struct sj_meta *meta);		/* attach's warning */
void sj_ahead_baseline(struct sj_meta *meta);		/* at attach */
void sj_ahead_skipped(const struct sj_meta *meta, const struct sj_ahead *a,
		      const struct sj_stats *st, struct sj_skipped *s);
/* show's lines and JSON fields for both */
void sj_ahead_show(const struct sj_meta *meta, const struct sj_ahead *a);
void sj_ahead_show_skipped(const struct sj_meta *meta, const struct sj_ahead *a,
			   const struct sj_stats *st);

/* attach.c: what attach, change and replace act on, DEV [ingress|egress]
 * at the start of their words; resolved, the device, its namespace and the
 * folder of its attachment; found, what is attached there */
struct sj_target {
	const char *dev;
	enum sj_dir dir;
	int words;		/* of argv: DEV, and the direction if given */
	struct sj_link link;
	__u64 cookie;
	struct sj_pins pins;
	struct sj_meta meta;	/* SJ_FOUND */
	char why[128];		/* SJ_FOUND_FOREIGN: what differs */
};
enum sj_found {
	SJ_FOUND_NONE,		/* no folder: not attached */
	SJ_FOUND_FOREIGN,	/* made by another version of sojourn */
	SJ_FOUND_NO_META,	/* a folder whose meta cannot be read */
	SJ_FOUND,		/* ours, its meta read */
};
struct sj_tune;
/* attach's and replace's request, checked before anything is touched:
 * the target's words, then the options over the defaults, parsed and
 * checked (tune.h); -1 said */
int sj_attach_request(struct sj_target *t, struct sj_tune *tune,
		      const char *verb, int argc, char **argv);
/* checks, netns, device, its folder: what every command starts with */
int sj_target_resolve(struct sj_target *t);
/* what is attached at the resolved target, the pins lock taken: an enum
 * sj_found, or -1 said */
int sj_target_find(struct sj_target *t);
/* attach with the request checked and the target resolved; replace's way
 * in, without resolving twice */
int sj_attach_resolved(const struct sj_tune *tune, const struct sj_target *t);
/* attach.c: an attachment's settings map, open (the fd) with its value
 * read; and tune written over that value (change and replace), with the
 * HTB class of sparse_class auto added or removed to match */
struct sj_tune;
int sj_settings_open(const struct sj_pins *pins, struct sj_settings *set);
int sj_settings_write(const struct sj_link *link, const struct sj_pins *pins,
		      int fd, const struct sj_tune *tune, struct sj_settings *set);
/* detach.c: removes the HTB class sparse_class auto added, if this is
 * still the namespace it was added in; a failure is one line, not fatal */
void sj_sparse_class_remove(const struct sj_meta *meta);
/* attach.c: the request goes in at XDP (ingress of a device with no
 * virtual kind, or asked for), else at tc */
bool sj_wants_xdp(const struct sj_tune *tune, const struct sj_link *link);
/* detach.c: takes the attachment pinned in folder `final` off its device */
int sj_detach_dir(const char *final);

/* commands */
int cmd_attach(int argc, char **argv);
int cmd_change(int argc, char **argv);
int cmd_replace(int argc, char **argv);
int cmd_gc(int argc, char **argv);	/* gc.c: pins of gone namespaces/devices */
int cmd_detach(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_daemon(int argc, char **argv);

/* the -n option, shared by every command */
extern const char *sj_netns_name;

#endif
