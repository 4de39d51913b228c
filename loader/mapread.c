// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one walk over a hash map the loader makes (the host's attachments,
 * its flow table): in batches where the kernel has them, one system call
 * per batch of entries instead of two per entry (BPF_MAP_LOOKUP_BATCH, 5.6
 * on, for hash maps and LRU hash maps alike); key by key where it has not.
 * Before, three loops did this, each with its own idea of the errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>

#include "mapread.h"

#define BATCH_FIRST	1024
#define BATCH_MOST	(1U << 20)
#define ENOTSUPP_KERNEL	524	/* the kernel's ENOTSUPP, not in libc */

/* Key by key.  The next key is taken before fn sees this one: fn may
 * delete it, and a deleted key would lose our place in the map. */
static int each_by_key(int fd, size_t ksz, size_t vsz, sj_map_entry_fn fn,
		       void *ctx)
{
	void *cur = malloc(ksz), *next = malloc(ksz), *val = malloc(vsz), *t;
	int more, err = 0;

	if (!cur || !next || !val) {
		err = -ENOMEM;
		goto out;
	}
	more = bpf_map_get_next_key(fd, NULL, next) == 0;
	while (more && !err) {
		t = cur;
		cur = next;
		next = t;
		more = bpf_map_get_next_key(fd, cur, next) == 0;
		if (bpf_map_lookup_elem(fd, cur, val))
			continue;	/* gone since (an LRU map evicts) */
		err = fn(cur, val, ctx);
	}
out:
	free(cur);
	free(next);
	free(val);
	return err < 0 ? err : 0;
}

int sj_map_each(int fd, size_t ksz, size_t vsz, sj_map_entry_fn fn, void *ctx)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 batch = BATCH_FIRST, got, token, i;
	char *keys = NULL, *vals = NULL;
	void *in = NULL;
	int err = 0, rc, last, by_key = 0;

	for (;;) {
		if (!keys) {
			keys = calloc(batch, ksz);
			vals = calloc(batch, vsz);
			if (!keys || !vals) {
				err = -ENOMEM;
				break;
			}
		}
		got = batch;
		rc = bpf_map_lookup_batch(fd, in, &token, keys, vals, &got, &opts);
		err = rc ? -errno : 0;
		/* a bucket holds more entries than the batch: a bigger one */
		if (err == -ENOSPC && !got && batch < BATCH_MOST) {
			free(keys);
			free(vals);
			keys = vals = NULL;
			batch *= 2;
			continue;
		}
		last = err == -ENOENT;	/* this batch is the map's last */
		if (err && !last) {
			/* no batches for this map or kernel: key by key */
			if (!in && (err == -EINVAL || err == -EOPNOTSUPP ||
				    err == -ENOTSUPP_KERNEL))
				by_key = 1;
			break;
		}
		err = 0;
		for (i = 0; i < got && !err; i++)
			err = fn(keys + i * ksz, vals + i * vsz, ctx);
		if (last || err)
			break;
		in = &token;
	}
	free(keys);
	free(vals);
	if (by_key)
		return each_by_key(fd, ksz, vsz, fn, ctx);
	return err < 0 ? err : 0;
}
