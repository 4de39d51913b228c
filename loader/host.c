// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The host's one object (bpf/maps.bpf.h).  Its maps and programs are
 * pinned in SJ_HOST_DIR, made by the first attach and removed with the
 * last attachment; every attachment links a program loaded once to its
 * device and keeps its state in the shared maps under an id:
 *   - the maps are made once, by a load of the object with no program;
 *   - a program is loaded once per hook, mode, direction, link layer and
 *     network namespace (its load-time constants), pinned by that name, and
 *     every later load of the object reuses the pinned maps;
 *   - the dequeue tracepoint has one program and one link for the host.
 * Callers hold sj_pins_lock().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "host.h"
#include "mapread.h"
#include "obs.h"
#include "sojourn.skel.h"

/* bpf_object__for_each_map over an object whose every pinned map is
 * reused: the host's maps, or none when there is no host yet */
static int reuse_maps(struct bpf_object *obj, char *why, size_t len)
{
	char path[SJ_PATH_MAX];
	struct bpf_map *map;
	int fd, err;

	bpf_object__for_each_map(map, obj) {
		if (bpf_map__is_internal(map))
			continue;	/* .rodata: each load's own */
		if (sj_pin_path(path, SJ_HOST_DIR, bpf_map__name(map)))
			return -ENAMETOOLONG;
		fd = bpf_obj_get(path);
		if (fd < 0)
			return -errno;
		/* a host another version of sojourn made: never half-used */
		err = sj_map_layout_check(fd, bpf_map__name(map), bpf_map__type(map),
					  bpf_map__key_size(map),
					  bpf_map__value_size(map), why, len);
		if (!err)
			err = bpf_map__reuse_fd(map, fd);
		close(fd);
		if (err)
			return err;
	}
	return 0;
}

static int host_refused(const char *why)
{
	return sj_err("%s holds another version's map %s; detach what that version attached (sojourn detach, or remove %s once nothing is attached) first",
		      SJ_HOST_DIR, why, SJ_HOST_DIR);
}

/* The host's maps: made and pinned on first use, in a tmp- folder renamed
 * into place, so that a .host folder is always whole. */
static int host_create(void)
{
	char tmp[SJ_PATH_MAX], path[SJ_PATH_MAX];
	struct sojourn_bpf *skel;
	struct bpf_map *map;
	struct stat st;
	int err;

	if (stat(SJ_HOST_DIR, &st) == 0)
		return 0;
	skel = sojourn_bpf__open();
	if (!skel)
		return sj_err("cannot open BPF object: %s", strerror(errno));
	bpf_program__set_autoload(skel->progs.sojourn_egress, false);
	bpf_program__set_autoload(skel->progs.sojourn_dequeue, false);
	err = sojourn_bpf__load(skel);
	if (err) {
		sojourn_bpf__destroy(skel);
		return sj_err("cannot create the host's BPF maps: %s", strerror(-err));
	}
	snprintf(tmp, sizeof(tmp), "%s/tmp-%d-host", SJ_PIN_ROOT, getpid());
	if (mkdir(tmp, 0700)) {
		err = sj_err("cannot create %s: %s", tmp, strerror(errno));
		sojourn_bpf__destroy(skel);
		return err;
	}
	bpf_object__for_each_map(map, skel->obj) {
		if (bpf_map__is_internal(map))
			continue;
		if (sj_pin_path(path, tmp, bpf_map__name(map)) ||
		    bpf_obj_pin(bpf_map__fd(map), path)) {
			err = sj_err("cannot pin %s: %s", path, strerror(errno));
			goto out;
		}
	}
	if (rename(tmp, SJ_HOST_DIR))
		err = sj_err("cannot move %s into place: %s", tmp, strerror(errno));
out:
	if (err)
		sj_pins_remove_dir(tmp);
	sojourn_bpf__destroy(skel);
	return err;
}

int sj_host_reuse(struct bpf_object *obj)
{
	char why[128] = "";
	int err = host_create();

	if (err)
		return err;
	err = reuse_maps(obj, why, sizeof(why));
	if (err == -EPROTO)
		return host_refused(why);
	if (err)
		return sj_err("cannot reuse the host's maps in %s: %s", SJ_HOST_DIR,
			      strerror(-err));
	return 0;
}

/* A pinned program of the host, or load it: want's constants, and only
 * the program named */
static int host_prog(const char *pin, const struct sj_prog_want *w,
		     bool dequeue)
{
	char path[SJ_PATH_MAX];
	struct sojourn_bpf *skel;
	int fd, err;

	if (sj_pin_path(path, SJ_HOST_DIR, pin))
		return -1;
	fd = bpf_obj_get(path);
	if (fd >= 0)
		return fd;
	skel = sojourn_bpf__open();
	if (!skel)
		return sj_err("cannot open BPF object: %s", strerror(errno));
	skel->rodata->cfg_netns_cookie = w->netns_cookie;
	skel->rodata->cfg_link_layer = w->link_layer;
	skel->rodata->cfg_mode = w->mode;
	skel->rodata->cfg_direction = w->dir;
	bpf_program__set_autoload(skel->progs.sojourn_egress, !dequeue);
	bpf_program__set_autoload(skel->progs.sojourn_dequeue, dequeue);
	if (sj_host_reuse(skel->obj)) {
		sojourn_bpf__destroy(skel);
		return -1;
	}
	err = sojourn_bpf__load(skel);
	if (err) {
		sojourn_bpf__destroy(skel);
		return sj_err("cannot load BPF programs: %s (see libbpf messages above)",
			      strerror(-err));
	}
	fd = dup(bpf_program__fd(dequeue ? skel->progs.sojourn_dequeue :
				  skel->progs.sojourn_egress));
	if (fd < 0 || bpf_obj_pin(fd, path)) {
		err = sj_err("cannot pin %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = err;
	}
	sojourn_bpf__destroy(skel);
	return fd;
}

int sj_host_prog(const struct sj_prog_want *w)
{
	char pin[96];

	snprintf(pin, sizeof(pin), "prog-%s-%s-%u-%llx", sj_mode_name(w->mode),
		 sj_dir_name(w->dir), w->link_layer,
		 (unsigned long long)w->netns_cookie);
	return host_prog(pin, w, false);
}

int sj_host_dequeue(void)
{
	struct sj_prog_want w = { .mode = SJ_MODE_QUEUE };
	char path[SJ_PATH_MAX];
	int prog, link;

	if (sj_pin_path(path, SJ_HOST_DIR, "link_dequeue"))
		return -1;
	link = bpf_obj_get(path);
	if (link >= 0) {
		close(link);
		return 0;
	}
	prog = host_prog("prog_dequeue", &w, true);
	if (prog < 0)
		return -1;
	/* a tp_btf program's link, by the call every kernel since 5.5 has */
	link = bpf_raw_tracepoint_open(NULL, prog);
	close(prog);
	if (link < 0)
		return sj_err("cannot attach to tracepoint net_dev_start_xmit: %s",
			      strerror(errno));
	if (bpf_obj_pin(link, path)) {
		int err = errno;

		close(link);
		return sj_err("cannot pin %s: %s", path, strerror(err));
	}
	close(link);
	return 0;
}

int sj_host_map(const char *name)
{
	char path[SJ_PATH_MAX];

	if (sj_pin_path(path, SJ_HOST_DIR, name))
		return -1;
	return bpf_obj_get(path);
}

int sj_host_maps_open(struct sj_host_maps *m, char *why, size_t len)
{
	/* each checked as pins.c checks an attachment's maps: -EPROTO, and
	 * what differs in why, when another version of sojourn made it */
	const struct {
		int *fd;
		const char *name;
	} want[] = {
		{ &m->attachments, "attachments" }, { &m->settings, "settings" },
		{ &m->queues, "queues" }, { &m->stats_of, "stats_of" },
		{ &m->hist_of, "hist_of" }, { &m->flows, "flows" },
	};
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		*want[i].fd = -1;
	for (i = 0; !err && i < sizeof(want) / sizeof(want[0]); i++) {
		*want[i].fd = sj_pin_open_map(SJ_HOST_DIR, want[i].name, why, len);
		if (*want[i].fd < 0)
			err = errno ? -errno : -ENOENT;
	}
	if (err)
		sj_host_maps_close(m);
	return err;
}

void sj_host_maps_close(struct sj_host_maps *m)
{
	int *fds[] = { &m->attachments, &m->settings, &m->queues, &m->stats_of,
		       &m->hist_of, &m->flows };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

struct flows_drop {
	int fd;
	__u32 id;
	int n;
};

static int flow_drop_if_ours(const void *key, const void *val, void *ctx)
{
	const struct sj_flow_key *k = key;
	struct flows_drop *d = ctx;

	(void)val;
	if (k->att == d->id && bpf_map_delete_elem(d->fd, k) == 0)
		d->n++;
	return 0;
}

/* Every flow of attachment id leaves the host's table; how many did */
int sj_host_flows_drop(int flows_fd, __u32 id)
{
	struct flows_drop d = { .fd = flows_fd, .id = id };

	sj_map_each(flows_fd, sizeof(struct sj_flow_key), sizeof(struct sj_flow),
		    flow_drop_if_ours, &d);
	return d.n;
}

/* The attachments' folder names under SJ_PIN_ROOT, finished or being
 * built or taken down (tmp-PID-<cookie>-<ifindex>-<dir>, by the name
 * after the PID), sorted: read once per scan, not once per entry */
struct folder_names {
	char (*name)[64];
	size_t n;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* swept (may be NULL) is shown each "tmp-" name as it is read, and says
 * whether it removed that folder */
static int folders_read_sweep(struct folder_names *f, bool (*swept)(const char *),
			      bool *removed)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d = opendir(SJ_PIN_ROOT);
	const char *nm;
	void *p;
	int pid, off;

	f->name = NULL;
	f->n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		nm = de->d_name;
		if (swept && !strncmp(nm, "tmp-", 4) && swept(nm))
			*removed = true;
		if (sscanf(nm, "tmp-%d-%n", &pid, &off) == 1 && off > 0)
			nm += off;
		p = sj_grow(f->name, &cap, f->n, sizeof(*f->name), 256);
		if (!p) {
			/* a partial list would read as folders gone */
			free(f->name);
			f->name = NULL;
			f->n = 0;
			closedir(d);
			return -ENOMEM;
		}
		f->name = p;
		snprintf(f->name[f->n++], sizeof(f->name[0]), "%.63s", nm);
	}
	closedir(d);
	qsort(f->name, f->n, sizeof(*f->name), name_cmp);
	return 0;
}

static int folders_read(struct folder_names *f)
{
	return folders_read_sweep(f, NULL, NULL);
}

static bool att_has_folder(const struct folder_names *f, const struct sj_att_key *k)
{
	char name[64];

	snprintf(name, sizeof(name), "%llu-%u-%s",
		 (unsigned long long)k->netns_cookie, k->ifindex,
		 sj_dir_name(k->dir));
	return bsearch(name, f->name, f->n, sizeof(*f->name), name_cmp) != NULL;
}

static void att_release(const struct sj_host_maps *m, const struct sj_att_key *k,
			__u32 id)
{
	bpf_map_delete_elem(m->attachments, k);
	bpf_map_delete_elem(m->stats_of, &id);
	bpf_map_delete_elem(m->hist_of, &id);
	sj_host_flows_drop(m->flows, id);
}

/* Nothing under SJ_PIN_ROOT but the host's own folder (finished, or
 * being made or taken down: tmp-PID-host reads as "host") */
static bool folders_idle(const struct folder_names *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->name[i], ".") && strcmp(f->name[i], "..") &&
		    strcmp(f->name[i], SJ_HOST_NAME))
			return false;
	return true;
}

/*
 * Free ids and queue ranges: what the attachments hold (used, qused).  An
 * entry no folder in f speaks for (a command killed between the folder
 * and the host's maps) is released here, so nothing leaks for good; with
 * f unread (NULL names), nothing is released, since we cannot tell.
 */
struct att_scan {
	const struct sj_host_maps *m;
	const struct folder_names *f;
	unsigned char *used, *qused;
};

static int att_scan_one(const void *key, const void *val, void *ctx)
{
	const struct sj_att_key *k = key;
	const struct sj_att *a = val;
	struct att_scan *s = ctx;

	if (s->f->name && !att_has_folder(s->f, k)) {
		att_release(s->m, k, a->id);
		return 0;
	}
	if (a->id < SJ_ATT_MAX)
		s->used[a->id] = 1;
	for (__u32 q = a->queue_base; q < a->queue_base + a->num_txq &&
	     q < SJ_QUEUES_HOST; q++)
		s->qused[q] = 1;
	return 0;
}

/* 0, or -errno when the entries could not all be read: then the ids and
 * queues in use are not known */
static int att_scan(const struct sj_host_maps *m, const struct folder_names *f,
		    unsigned char *used, unsigned char *qused)
{
	struct att_scan s = { .m = m, .f = f, .used = used, .qused = qused };

	return sj_map_each(m->attachments, sizeof(struct sj_att_key),
			   sizeof(struct sj_att), att_scan_one, &s);
}

/*
 * Set once sj_host_reconcile has listed the folders and released every
 * entry none of them speaks for.  The lock it ran under is held until we
 * exit (sj_pins_lock), and entries are only made under it, so no other
 * command can leave an orphan entry after that: each later sj_host_add of
 * this process (a batch's second direction, replace's attach) need not
 * list the ~500 folders of a full node again (0.4-0.6 ms a listing there).
 * Our own failures take their entries along (undo, sj_pins_remove_dir).
 */
static bool reconciled;

int sj_host_add(const struct sj_att_key *key, __u32 mode, __u32 num_txq,
		const struct sj_settings *set, struct sj_host_att *out)
{
	static unsigned char used[SJ_ATT_MAX], qused[SJ_QUEUES_HOST];
	char why[128] = "";
	struct folder_names f;
	struct sj_host_maps m;
	struct sj_queue zq;
	struct sj_att old;
	__u32 id, base, run = 0, q;
	int err;

	out->stats_fd = out->hist_fd = -1;
	err = sj_host_maps_open(&m, why, sizeof(why));
	if (err == -EPROTO)
		return host_refused(why);
	if (err)
		return sj_err("cannot open the host's maps in %s: %s", SJ_HOST_DIR,
			      strerror(-err));
	memset(used, 0, sizeof(used));
	memset(qused, 0, sizeof(qused));
	/* our own key left by a killed attach: its folder is gone (the
	 * caller checked), so it is released like any other */
	if (bpf_map_lookup_elem(m.attachments, key, &old) == 0)
		att_release(&m, key, old.id);
	f = (struct folder_names){ 0 };	/* NULL names: nothing released */
	if (!reconciled)
		folders_read(&f);
	err = att_scan(&m, &f, used, qused);
	free(f.name);
	if (err) {
		sj_host_maps_close(&m);
		return sj_err("cannot read the host's attachments in %s: %s",
			      SJ_HOST_DIR, strerror(-err));
	}
	for (id = 1; id < SJ_ATT_MAX && used[id]; id++)
		;
	for (base = 0; base < SJ_QUEUES_HOST && run < num_txq; base++)
		run = qused[base] ? 0 : run + 1;
	if (id >= SJ_ATT_MAX || run < num_txq) {
		sj_host_maps_close(&m);
		return sj_err("this host has no room for another attachment (%u attachments, %u queue states at most)",
			      SJ_ATT_MAX - 1, SJ_QUEUES_HOST);
	}
	base -= num_txq;
	out->att = (struct sj_att){ .id = id, .num_txq = num_txq,
				    .queue_base = base, .mode = mode };
	/* a fresh start: an earlier holder of the id took its flows along
	 * (att_release), its queues are zeroed here */
	memset(&zq, 0, sizeof(zq));
	for (q = base; q < base + num_txq; q++)
		if (bpf_map_update_elem(m.queues, &q, &zq, 0))
			goto fail;
	if (sj_settings_put(m.settings, id, set))
		goto fail;
	out->stats_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "stats",
				       sizeof(__u32), sizeof(struct sj_stats), 1, NULL);
	out->hist_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "hist",
				      sizeof(__u32), sizeof(struct sj_dev_hist), 1, NULL);
	if (out->stats_fd < 0 || out->hist_fd < 0 ||
	    bpf_map_update_elem(m.stats_of, &id, &out->stats_fd, 0) ||
	    bpf_map_update_elem(m.hist_of, &id, &out->hist_fd, 0) ||
	    bpf_map_update_elem(m.attachments, key, &out->att, BPF_NOEXIST))
		goto fail;
	sj_host_maps_close(&m);
	return 0;
fail:
	err = errno;
	bpf_map_delete_elem(m.stats_of, &id);
	bpf_map_delete_elem(m.hist_of, &id);
	sj_host_maps_close(&m);
	if (out->stats_fd >= 0)
		close(out->stats_fd);
	if (out->hist_fd >= 0)
		close(out->hist_fd);
	out->stats_fd = out->hist_fd = -1;
	return sj_err("cannot register the attachment in %s: %s", SJ_HOST_DIR,
		      strerror(err));
}

/*
 * An attachment's settings written whole and stamped with the time
 * (sojourn.h: written_ns).  BPF_F_LOCK holds the value's lock across the
 * kernel's copy: the programs rely on it to keep a per-CPU copy of what
 * the law runs on without taking the lock per packet (maps.bpf.h:
 * sj_law_of).  Every write of settings goes through here.
 */
int sj_settings_put(int fd, __u32 id, const struct sj_settings *set)
{
	struct sj_settings v = *set;

	v.written_ns = obs_now_ns();
	return bpf_map_update_elem(fd, &id, &v, BPF_F_LOCK);
}

/* No attachment folder left, finished or tmp-, but the host's own */
static bool host_idle(void)
{
	struct folder_names f;
	bool idle = folders_read(&f) == 0 && folders_idle(&f);

	free(f.name);
	return idle;
}

void sj_host_reconcile(bool (*swept)(const char *name))
{
	static unsigned char used[SJ_ATT_MAX], qused[SJ_QUEUES_HOST];
	struct folder_names f;
	struct sj_host_maps m;
	bool removed = false;
	struct stat st;
	char why[128];

	/* one listing for the stale folders, the orphan entries and the
	 * idle host (~500 folders on a full node); read again only when a
	 * stale folder went while it was read */
	folders_read_sweep(&f, swept, &removed);
	if (removed) {
		free(f.name);
		folders_read(&f);
	}
	if (stat(SJ_HOST_DIR, &st)) {
		free(f.name);
		return;
	}
	if (sj_host_maps_open(&m, why, sizeof(why)) == 0) {
		reconciled = att_scan(&m, &f, used, qused) == 0 && f.name;
		sj_host_maps_close(&m);
	}
	if (f.name && folders_idle(&f))
		sj_pins_remove_dir(SJ_HOST_DIR);
	free(f.name);
}

void sj_host_remove(const struct sj_meta *meta)
{
	struct sj_att_key k = { .netns_cookie = meta->netns_cookie,
				.ifindex = meta->ifindex,
				.dir = meta->direction };
	struct sj_host_maps m;
	struct sj_att a;
	char why[128];

	/* another version's host: its entries are not ours to read */
	if (sj_host_maps_open(&m, why, sizeof(why)) == 0) {
		/* only while the entry is still this folder's: the id may
		 * belong to another attachment since */
		if (meta->att_id && bpf_map_lookup_elem(m.attachments, &k, &a) == 0 &&
		    a.id == meta->att_id)
			att_release(&m, &k, a.id);
		sj_host_maps_close(&m);
	}
	if (host_idle())
		sj_pins_remove_dir(SJ_HOST_DIR);
}
