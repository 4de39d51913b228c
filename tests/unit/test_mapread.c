// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loader/mapread.c on real maps (root): every entry of a hash map handed
 * over once, across several batches; an entry deleted as it is handed
 * over; a walk stopped early; a callback's error returned; and the key by
 * key walk, on a map type that has no batch lookups (a devmap hash:
 * dev_map_hash_ops has no map_lookup_batch, 6.1-6.18; the case checks it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "check.h"
#include "../../loader/mapread.h"

#define N 3000	/* more than one batch (1024) */

struct seen {
	int fd;
	unsigned char count[N];
	int total, stop_at, fail_at, delete_odd;
};

static int visit(const void *key, const void *val, void *ctx)
{
	__u32 k = *(const __u32 *)key, v = *(const __u32 *)val;
	struct seen *s = ctx;

	if (k < N)
		s->count[k]++;
	CHECK(s->delete_odd || v == k * 7 || v > N, "key %u holds %u", k, v);
	s->total++;
	if (s->delete_odd && (k & 1))
		CHECK(bpf_map_delete_elem(s->fd, &k) == 0, "delete %u: %s", k,
		      strerror(errno));
	if (s->fail_at && s->total == s->fail_at)
		return -EIO;
	if (s->stop_at && s->total == s->stop_at)
		return 1;
	return 0;
}

static int each_once(const struct seen *s, int n)
{
	int bad = 0;

	for (int k = 0; k < n; k++)
		bad += s->count[k] != 1;
	return bad;
}

static void hash_map(void)
{
	struct seen *s = calloc(1, sizeof(*s));
	__u32 k, v, left = 0;
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "mapread", 4, 4, N, NULL);
	CHECK(fd >= 0, "hash map: %s", strerror(errno));
	if (fd < 0 || !s)
		goto out;
	for (k = 0; k < N; k++) {
		v = k * 7;
		bpf_map_update_elem(fd, &k, &v, 0);
	}
	s->fd = fd;
	err = sj_map_each(fd, 4, 4, visit, s);
	CHECK(err == 0 && s->total == N && each_once(s, N) == 0,
	      "all: rc %d, %d handed over, %d not once, want 0, %d, 0",
	      err, s->total, each_once(s, N), N);
	check_case("every entry once, in batches");

	memset(s->count, 0, sizeof(s->count));
	s->total = 0;
	s->stop_at = 10;
	err = sj_map_each(fd, 4, 4, visit, s);
	CHECK(err == 0 && s->total == 10, "stop: rc %d after %d, want 0 after 10",
	      err, s->total);
	s->stop_at = 0;
	s->total = 0;
	s->fail_at = 5;
	err = sj_map_each(fd, 4, 4, visit, s);
	CHECK(err == -EIO && s->total == 5, "fail: rc %d after %d, want %d after 5",
	      err, s->total, -EIO);
	s->fail_at = 0;
	check_case("stopped, and failed, by the callback");

	memset(s->count, 0, sizeof(s->count));
	s->total = 0;
	s->delete_odd = 1;
	err = sj_map_each(fd, 4, 4, visit, s);
	for (k = 0; k < N; k++)
		left += bpf_map_lookup_elem(fd, &k, &v) == 0;
	CHECK(err == 0 && each_once(s, N) == 0 && left == N / 2,
	      "delete as handed over: rc %d, %d not once, %u left, want 0, 0, %d",
	      err, each_once(s, N), left, N / 2);
	check_case("each entry deleted as it is handed over");
out:
	if (fd >= 0)
		close(fd);
	free(s);
}

/* A devmap's values are ifindexes (lo's here): handed to visit as k * 7 */
static int visit_devmap(const void *key, const void *val, void *ctx)
{
	__u32 k = *(const __u32 *)key;

	CHECK(*(const __u32 *)val == 1, "devmap key %u holds ifindex %u, want 1",
	      k, *(const __u32 *)val);
	return visit(key, &(__u32){ k * 7 }, ctx);
}

static void key_by_key(void)
{
	struct seen *s = calloc(1, sizeof(*s));
	__u32 keys[8], vals[8], n = 8, tok, i, lo = 1, left = 0;
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_DEVMAP_HASH, "mapread", 4, 4, 64, NULL);
	CHECK(fd >= 0, "devmap hash: %s", strerror(errno));
	if (fd < 0 || !s)
		goto out;
	for (i = 0; i < 50; i++)
		CHECK(bpf_map_update_elem(fd, &i, &lo, 0) == 0, "devmap %u: %s", i,
		      strerror(errno));
	/* the premise: no batches here, or this case tests nothing new */
	err = bpf_map_lookup_batch(fd, NULL, &tok, keys, vals, &n, NULL);
	CHECK(err && (errno == 524 || errno == EINVAL || errno == EOPNOTSUPP),
	      "a devmap hash has batch lookups here (rc %d, errno %d): the key by key walk goes untested",
	      err, errno);
	s->fd = fd;
	err = sj_map_each(fd, 4, 4, visit_devmap, s);
	CHECK(err == 0 && s->total == 50 && each_once(s, 50) == 0,
	      "key by key: rc %d, %d of 50 handed over, %d not once", err,
	      s->total, each_once(s, 50));
	memset(s->count, 0, sizeof(s->count));
	s->total = 0;
	s->delete_odd = 1;
	err = sj_map_each(fd, 4, 4, visit_devmap, s);
	for (i = 0; i < 50; i++)
		left += bpf_map_lookup_elem(fd, &i, &n) == 0;
	CHECK(err == 0 && s->total == 50 && each_once(s, 50) == 0 && left == 25,
	      "key by key, deleting: rc %d, %d of 50 handed over, %d not once, %u left, want 25",
	      err, s->total, each_once(s, 50), left);
	check_case("key by key where there are no batches, deleting too");
out:
	if (fd >= 0)
		close(fd);
	free(s);
}

int main(void)
{
	if (geteuid()) {
		printf("SKIP: needs root (BPF maps)\n");
		return 77;
	}
	hash_map();
	key_by_key();
	return check_exit("test_mapread");
}
