// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One folder per attachment: SJ_PIN_ROOT/<netns cookie>-<ifindex>-<direction>.
 * The cookie keeps two namespaces' "eth0" apart and, unlike an inode
 * number, is never reused.  attach builds a folder under a "tmp-" name and
 * renames it into place, so a folder with the final name is always whole;
 * removal renames it back to a "tmp-" name first, for the same reason.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "common.h"
#include "host.h"

void sj_pins_for(struct sj_pins *p, __u64 cookie, __u32 ifindex,
		 enum sj_dir dir)
{
	snprintf(p->dir, sizeof(p->dir), "%s/%llu-%u-%s", SJ_PIN_ROOT,
		 (unsigned long long)cookie, ifindex,
		 sj_dir_name(dir));
}

int sj_pin_path(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, SJ_PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= SJ_PATH_MAX ? -1 : 0;
}

bool sj_pins_exist(const struct sj_pins *p)
{
	struct stat st;

	return stat(p->dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * fn(path, name, arg) for each entry of dir but the dot ones, until fn
 * returns other than 0: that, or 0; an entry whose path would not fit
 * SJ_PATH_MAX is passed over.  -errno where dir cannot be listed (0 where
 * it does not exist).
 */
static int for_each_entry(const char *dir,
			  int (*fn)(const char *path, const char *name, void *arg),
			  void *arg)
{
	char path[SJ_PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d)))
		if (de->d_name[0] != '.' && !sj_pin_path(path, dir, de->d_name))
			ret = fn(path, de->d_name, arg);
	closedir(d);
	return ret;
}

/* a pin, for remove_contents: a failure is kept in *arg, the rest go on */
static int unlink_entry(const char *path, const char *name, void *arg)
{
	int *err = arg;

	(void)name;
	if (unlink(path))
		*err = -errno;
	return 0;
}

static int remove_contents(const char *dir)
{
	int err = 0, ret = for_each_entry(dir, unlink_entry, &err);

	if (ret)
		return ret;
	if (rmdir(dir) && errno != ENOENT)
		err = -errno;
	return err;
}

/*
 * A finished folder is first renamed to "tmp-PID-<name>", then emptied: a
 * detach killed half-way leaves a tmp- folder the next command sweeps,
 * never a final one that is no longer whole.
 */
int sj_pins_retire(const char *dir, char *tmp, size_t len)
{
	const char *base = strrchr(dir, '/');
	size_t root = strlen(SJ_PIN_ROOT);

	if (!base || (size_t)(base - dir) != root ||
	    strncmp(dir, SJ_PIN_ROOT, root) || !strncmp(base + 1, "tmp-", 4)) {
		snprintf(tmp, len, "%s", dir);	/* not ours to rename */
		return 0;
	}
	if (snprintf(tmp, len, "%s/tmp-%d-%s", SJ_PIN_ROOT, getpid(),
		     base + 1) >= (int)len)
		return -ENAMETOOLONG;
	if (rename(dir, tmp))
		return -errno;
	return 0;
}

/* An attachment's folder goes, and then its state in the host's maps
 * (host.c; with the last attachment, the host itself): killed between
 * the two, the next attach finds the entry no folder speaks for. */
static int remove_attachment(const char *path)
{
	struct sj_meta meta;
	bool ours = sj_meta_read(path, &meta) == 0;
	int err = remove_contents(path);

	if (ours)
		sj_host_remove(&meta);
	return err;
}

int sj_pins_remove_dir(const char *dir)
{
	char tmp[SJ_PATH_MAX];
	int err = sj_pins_retire(dir, tmp, sizeof(tmp));

	if (err)
		return err == -ENOENT ? 0 : err;
	return remove_attachment(tmp);
}

/*
 * A "tmp-PID-..." folder whose PID is gone was left by a killed attach or
 * detach.  Its pinned tcx link goes with the folder; a clsact filter or an
 * XDP program must be taken off by hand, and so must an HTB class of
 * sparse_class auto, which only works from the device's namespace:
 * elsewhere the folder waits for a command run there.
 */
static bool remove_stale_tmp(const char *name)
{
	char path[SJ_PATH_MAX], prog[SJ_PATH_MAX];
	struct sj_meta meta;
	__u64 here;
	int pid, fd;

	if (sscanf(name, "tmp-%d-", &pid) != 1 || pid == getpid())
		return false;
	if (kill(pid, 0) == 0 || errno != ESRCH)
		return false;
	if (sj_pin_path(path, SJ_PIN_ROOT, name))
		return false;
	if (sj_meta_read(path, &meta) == 0 &&
	    (meta.hook == SJ_HOOK_CLSACT || meta.hook == SJ_HOOK_XDP ||
	     meta.sparse_class_made)) {
		if (sj_netns_cookie(&here) || here != meta.netns_cookie)
			return false;
		if (meta.hook == SJ_HOOK_XDP) {
			if (sj_xdp_detach(&meta))
				return false;
		} else if (!sj_pin_path(prog, path, "prog_egress") &&
			   (fd = bpf_obj_get(prog)) >= 0) {
			/* only while the filter there is still ours */
			int err = sj_hook_detach_clsact(&meta, fd);

			close(fd);
			if (err)
				return false;
		}
		sj_sparse_class_remove(&meta);
	}
	remove_attachment(path);
	return true;
}

/* the stale tmp- folders, then the host's orphan entries: one listing of
 * the pin folder for both (host.c) */
static void sweep_stale_tmp(void)
{
	sj_host_reconcile(remove_stale_tmp);
}

/* Held until the process exits: attach, change and detach of any device
 * take turns, so two of them never see each other's half-built folder. */
int sj_pins_lock(void)
{
	static int fd = -1;
	struct stat st;

	if (fd >= 0)
		return 0;
	if (mkdir(SJ_PIN_ROOT, 0700) && errno != EEXIST)
		return sj_err("cannot create %s: %s", SJ_PIN_ROOT, strerror(errno));
	fd = open(SJ_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX))
		return sj_err("cannot lock %s: %s", SJ_PIN_ROOT, strerror(errno));
	/* whoever may write there could plant or swap folders we trust */
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		fd = -1;
		return sj_err("%s is writable by others or not ours (mode %03o, uid %u): chown root and chmod go-w it",
			      SJ_PIN_ROOT, (unsigned int)(st.st_mode & 0777),
			      (unsigned int)st.st_uid);
	}
	/* what a killed attach or detach left may still hold a program on a
	 * device: take it off before anyone attaches a second copy */
	sweep_stale_tmp();
	return 0;
}

struct foreach_arg {
	int (*fn)(const char *dir, void *arg);
	void *arg;
};

/* an entry of the pin folder, for sj_pins_foreach: an attachment's folder
 * goes to the caller's fn, a stale tmp- one is swept, the host's skipped */
static int attachment_entry(const char *path, const char *name, void *arg)
{
	const struct foreach_arg *a = arg;

	if (!strncmp(name, "tmp-", 4)) {
		remove_stale_tmp(name);
		return 0;
	}
	if (!strcmp(name, SJ_HOST_NAME))
		return 0;
	return a->fn(path, a->arg);
}

int sj_pins_foreach(int (*fn)(const char *dir, void *arg), void *arg)
{
	struct foreach_arg a = { .fn = fn, .arg = arg };

	return for_each_entry(SJ_PIN_ROOT, attachment_entry, &a);
}

/*
 * The maps the command reads, as this build lays them out.  The kernel
 * copies a map's value_size bytes (per CPU, for a per-CPU map) into
 * whatever buffer it is given, so a map pinned by another version of
 * sojourn whose struct grew would be written past our buffer: every pinned
 * map is opened here and checked first.  The maps only the BPF side
 * reads (txq_of_hash, flow_slots) are the other version's own business.
 */
static const struct pin_layout {
	const char *name;
	__u32 type, key_size, value_size;
} pin_layouts[] = {
	{ "meta", BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(struct sj_meta) },
	{ "settings", BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(struct sj_settings) },
	{ "queues", BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(struct sj_queue) },
	{ "stats", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32), sizeof(struct sj_stats) },
	{ "hist", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32), sizeof(struct sj_dev_hist) },
	{ "flows", BPF_MAP_TYPE_LRU_HASH, sizeof(struct sj_flow_key), sizeof(struct sj_flow) },
	/* the host's own (host.c) */
	{ "attachments", BPF_MAP_TYPE_HASH, sizeof(struct sj_att_key), sizeof(struct sj_att) },
	{ "stats_of", BPF_MAP_TYPE_ARRAY_OF_MAPS, sizeof(__u32), sizeof(__u32) },
	{ "hist_of", BPF_MAP_TYPE_ARRAY_OF_MAPS, sizeof(__u32), sizeof(__u32) },
};

static const struct pin_layout *layout_of(const char *name)
{
	for (size_t i = 0; i < sizeof(pin_layouts) / sizeof(pin_layouts[0]); i++)
		if (!strcmp(pin_layouts[i].name, name))
			return &pin_layouts[i];
	return NULL;
}

/* 0 when fd is a map laid out as this build's `name`; else -EPROTO with
 * what differs in why */
static int layout_check(int fd, const struct pin_layout *l, char *why,
			size_t len)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len)) {
		snprintf(why, len, "%s: not a map (%s)", l->name, strerror(errno));
		return -EPROTO;
	}
	if (info.type != l->type)
		snprintf(why, len, "%s: map type %u, expected %u", l->name,
			 info.type, l->type);
	else if (info.key_size != l->key_size)
		snprintf(why, len, "%s: key %u bytes, expected %u", l->name,
			 info.key_size, l->key_size);
	else if (info.value_size != l->value_size)
		snprintf(why, len, "%s: value %u bytes%s, expected %u", l->name,
			 info.value_size,
			 l->type == BPF_MAP_TYPE_PERCPU_ARRAY ? " per CPU" : "",
			 l->value_size);
	else
		return 0;
	return -EPROTO;
}

int sj_map_layout_check(int fd, const char *name, __u32 type, __u32 key_size,
			__u32 value_size, char *why, size_t len)
{
	struct pin_layout l = { name, type, key_size, value_size };

	return layout_check(fd, &l, why, len);
}

int sj_pin_open_map(const char *dir, const char *name, char *why, size_t len)
{
	const struct pin_layout *l = layout_of(name);
	char path[SJ_PATH_MAX], buf[128];
	int fd, err;

	if (!why) {
		why = buf;
		len = sizeof(buf);
	}
	if (sj_pin_path(path, dir, name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = bpf_obj_get(path);
	if (fd < 0 || !l)
		return fd;
	err = layout_check(fd, l, why, len);
	if (err) {
		close(fd);
		errno = -err;
		return -1;
	}
	return fd;
}

int sj_pins_layout(const char *dir, char *why, size_t len)
{
	int fd;

	for (size_t i = 0; i < sizeof(pin_layouts) / sizeof(pin_layouts[0]); i++) {
		fd = sj_pin_open_map(dir, pin_layouts[i].name, why, len);
		if (fd >= 0)
			close(fd);
		else if (errno == EPROTO)
			return -EPROTO;
		/* a map this mode does not have is no mismatch */
	}
	return 0;
}

void sj_pins_foreign(const char *dir, const char *why, bool skipped)
{
	/* one line, whichever command: where, what differs, what to do */
	if (skipped)
		sj_err("skipped %s: made by another version of sojourn (%s); 'sojourn detach' of either version takes it off",
		       dir, why);
	else
		sj_err("%s was made by another version of sojourn (%s): 'sojourn detach' of either version takes it off, 'sojourn replace' attaches it anew",
		       dir, why);
}

int sj_meta_read(const char *dir, struct sj_meta *meta)
{
	__u32 zero = 0;
	int fd, err;

	memset(meta, 0, sizeof(*meta));
	fd = sj_pin_open_map(dir, "meta", NULL, 0);
	if (fd < 0)
		return -errno;
	err = bpf_map_lookup_elem(fd, &zero, meta);
	close(fd);
	return err ? -errno : 0;
}

int sj_meta_write(const char *dir, const struct sj_meta *meta)
{
	__u32 zero = 0;
	int fd, err;

	fd = sj_pin_open_map(dir, "meta", NULL, 0);
	if (fd < 0)
		return -errno;
	err = bpf_map_update_elem(fd, &zero, meta, 0);
	close(fd);
	return err ? -errno : 0;
}

struct find_arg {
	const char *name;
	__u64 cookie;
	enum sj_dir dir;
	struct sj_pins *pins;
};

static int match_name(const char *dir, void *arg)
{
	struct find_arg *f = arg;
	struct sj_meta meta;

	if (sj_meta_read(dir, &meta) || meta.netns_cookie != f->cookie ||
	    meta.direction != f->dir || strncmp(meta.ifname, f->name, sizeof(meta.ifname)))
		return 0;
	snprintf(f->pins->dir, sizeof(f->pins->dir), "%s", dir);
	return 1;
}

int sj_pins_find(const char *dev, __u64 cookie, enum sj_dir dir,
		 struct sj_pins *pins)
{
	struct find_arg f = { .name = dev, .cookie = cookie, .dir = dir,
			      .pins = pins };
	struct sj_link link;

	if (sj_link_lookup(dev, &link) == 0) {
		sj_pins_for(pins, cookie, link.ifindex, dir);
		return sj_pins_exist(pins) ? 0 : -ENOENT;
	}
	return sj_pins_foreach(match_name, &f) > 0 ? 0 : -ENODEV;
}
