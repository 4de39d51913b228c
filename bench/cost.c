// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the egress (tc) and ingress (XDP, rate mode) programs cost per
 * packet, each against its floor (parse and count only, bench/floor.bpf.c)
 * and egress also against the flow floor (that plus one flow entry),
 * as the flow table grows to 1M flows.  All run through BPF_PROG_TEST_RUN;
 * nothing is attached.  The figure is opts.duration, the kernel's own ns
 * per run over `repeat` runs.  The dequeue tracepoint cannot be test-run:
 * bench/live.sh measures it under real traffic.
 *
 * Prints a markdown table; SKIP (exit 0) without root or BPF.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/bpf_endian.h>

#include "sojourn.h"
#include "hist.h"
#include "sojourn.skel.h"
#include "sojourn_xdp.skel.h"
#include "../tests/prog/corpus.h"
#include "../tests/prog/testrun.h"

#define FLOOR_OBJ	"build/floor.bpf.o"
#define FLOWS_MAX	((1u << 20) + 65536)
#define NFRAMES		64	/* frames per measurement run */
#define REPEAT		2000	/* test_run repeat per frame */
#define ROUNDS		9	/* median over these */
#define COLD_RUNS	4096	/* repeat=1 runs, a different flow each */
#define CHUNK		65536	/* keys per batch update */
/* The one attachment each object serves here: id 1 on the device
 * BPF_PROG_TEST_RUN hands packets from (loopback, ifindex 1), netns
 * cookie 0 (the objects' default constant) */
#define BENCH_ATT	1

static const __u32 counts[] = { 1, 1000, 100000, 1000000 };
#define NCOUNTS		(sizeof(counts) / sizeof(counts[0]))

/* measured side by side: the floors, then the programs they are floors of */
enum { FLOOR_TC, FLOOR_FLOW, EGRESS, FLOOR_XDP, XDP, NPROGS };
static const char *const prog_name[NPROGS] = { "tc floor", "flow floor",
					       "egress", "XDP floor",
					       "XDP ingress" };
static int prog_fd[NPROGS], prog_ret[NPROGS] = { SJ_ACT_NEXT, SJ_ACT_NEXT,
						 SJ_ACT_NEXT, XDP_PASS,
						 XDP_PASS };
static int flows_fd, xflows_fd, fflows_fd, stats_fd, ncpu;

static struct sj_flow_key flow_key(__u32 i)
{
	struct sj_flow_key k = { .proto = IPPROTO_TCP, .family = 4 };

	k.saddr[0] = htonl(0x0a000000u | i);		/* 10.0.0.0/8 */
	k.daddr[0] = htonl(0xc6336407u);		/* 198.51.100.7 */
	k.sport = htons(1024 + i % 50000);
	k.dport = htons(80);
	k.att = BENCH_ATT;
	return k;
}

/* Ethernet, IPv4 (ECT(0)), TCP and 8 bytes of payload for flow i */
static void flow_frame(__u32 i, struct frame *f)
{
	struct sj_flow_key k = flow_key(i);

	fr_eth(f, ETH_P_IP);
	fr_ip4_addrs(f, 2, IPPROTO_TCP, 5, 0, k.saddr[0], k.daddr[0]);
	fr_tcp(f, ntohs(k.sport), ntohs(k.dport));
	fr_finish(f);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "cost: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* ns per packet, as the kernel measured it */
static __u32 run(int p, const struct frame *f, __u32 repeat)
{
	__u8 out[sizeof(f->b) + 64];
	struct sj_run r = { .out = out, .out_size = sizeof(out),
			    .repeat = repeat };

	if (sj_test_run(prog_fd[p], f->b, f->len, &r))
		die("test_run", r.err);
	if (r.retval != prog_ret[p]) {
		fprintf(stderr, "cost: %s verdict %d, want %d\n", prog_name[p],
			r.retval, prog_ret[p]);
		exit(1);
	}
	return r.duration;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Adds flows [from, to) to the table fd: sojourn's struct sj_flow values,
 * or the flow floor's last-seen times (vsz 8) */
static void populate(int fd, __u32 from, __u32 to, size_t vsz)
{
	static struct sj_flow_key keys[CHUNK];
	static struct sj_flow vals[CHUNK];
	__u64 *seen = (__u64 *)vals;
	struct timespec ts;
	__u64 now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	for (__u32 base = from; base < to; base += CHUNK) {
		__u32 n = to - base < CHUNK ? to - base : CHUNK;
		__u32 cnt = n;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);

		for (__u32 j = 0; j < n; j++) {
			keys[j] = flow_key(base + j);
			if (vsz == sizeof(*seen))
				seen[j] = now;
			else
				vals[j] = (struct sj_flow){ .first_seen_ns = now,
							    .last_seen_ns = now };
		}
		if (bpf_map_update_batch(fd, keys, vals, &cnt, &bo) == 0)
			continue;
		for (__u32 j = 0; j < n; j++)	/* no batch ops: one by one */
			if (bpf_map_update_elem(fd, &keys[j],
						(__u8 *)vals + j * vsz, 0))
				die("populate flows", errno);
	}
}

/* Flows among [0, n) not in the table fd (LRU evictions) */
static __u32 missing(int fd, __u32 n)
{
	struct sj_flow v;
	__u32 miss = 0;

	for (__u32 i = 0; i < n; i++) {
		struct sj_flow_key k = flow_key(i);

		if (bpf_map_lookup_elem(fd, &k, &v))
			miss++;
	}
	return miss;
}

static __u64 flows_created(void)
{
	struct sj_stats *v = calloc(ncpu, sizeof(*v));
	__u32 zero = 0;
	__u64 sum = 0;

	if (!v || bpf_map_lookup_elem(stats_fd, &zero, v))
		die("read stats", errno ? errno : ENOMEM);
	for (int c = 0; c < ncpu; c++)
		sum += v[c].flows_created;
	free(v);
	return sum;
}

static unsigned long long memlock(int fd)
{
	char path[64], line[256];
	unsigned long long m = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &m) == 1)
			break;
	fclose(f);
	return m;
}

/* the defaults; rate mode at the highest rate, so nothing queues */
static void write_settings(int fd)
{
	struct sj_settings s = {
		.codel = {
			.target = CODEL_MS(5),
			.interval = CODEL_MS(100),
			.ce_threshold = CODEL_DISABLED_THRESHOLD,
			.mtu = 1514,
			.ecn = 1,
		},
		.target_ns = 5000000,
		.interval_ns = 100000000,
		.rate_Bps = SJ_MAX_RATE_BYTES_PER_S,
		.burst_bytes = SJ_DEFAULT_BURST_BYTES,
		.horizon_ns = SJ_DEFAULT_HORIZON_US * 1000ULL,
	};
	__u32 id = BENCH_ATT;

	/* a value with a bpf_spin_lock: BPF_F_LOCK where the kernel takes it */
	if (bpf_map_update_elem(fd, &id, &s, BPF_F_LOCK) &&
	    bpf_map_update_elem(fd, &id, &s, 0))
		die("write settings", errno);
}

/* The attachment as loader/host.c registers one: its own counters and
 * histogram, and the entry the programs find it by; the stats map's fd */
static int register_att(struct bpf_object *obj, __u32 dir, __u32 mode)
{
	struct sj_att_key k = { .netns_cookie = 0, .ifindex = 1, .dir = dir };
	struct sj_att a = { .id = BENCH_ATT, .num_txq = 1, .mode = mode };
	int st = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "stats", 4,
				sizeof(struct sj_stats), 1, NULL);
	int hist = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "hist", 4,
				  sizeof(struct sj_dev_hist), 1, NULL);
	__u32 id = BENCH_ATT;

	if (st < 0 || hist < 0 ||
	    bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "stats_of"), &id, &st, 0) ||
	    bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "hist_of"), &id, &hist, 0) ||
	    bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "attachments"), &k, &a, 0))
		die("register the attachment", errno);
	return st;
}

struct result {
	double warm[NPROGS];	/* median of rounds, ns/pkt */
	double cold[NPROGS];	/* repeat=1: median of runs */
};

static void measure(__u32 n, struct result *r)
{
	/* the cold runs' frames are built one at a time, each before its
	 * runs: a struct frame has room for a jumbo frame, and 4096 of them
	 * would be 38 MB */
	static struct frame frames[NFRAMES], cold;
	static __u32 cold_flow[COLD_RUNS];
	static double c[NPROGS][COLD_RUNS];
	double w[NPROGS][ROUNDS];

	for (int i = 0; i < NFRAMES; i++)
		flow_frame(n == 1 ? 0 : (__u32)random() % n, &frames[i]);
	for (int i = 0; i < COLD_RUNS; i++)
		cold_flow[i] = n == 1 ? 0 : (__u32)random() % n;

	/* warm up the programs and the frames' flow entries */
	for (int i = 0; i < NFRAMES; i++)
		for (int p = 0; p < NPROGS; p++)
			run(p, &frames[i], 10);
	for (int round = 0; round < ROUNDS; round++) {
		double sum[NPROGS] = { 0 };

		/* interleaved, the order rotating per frame */
		for (int i = 0; i < NFRAMES; i++)
			for (int k = 0; k < NPROGS; k++) {
				int p = (k + i + round) % NPROGS;

				sum[p] += run(p, &frames[i], REPEAT);
			}
		for (int p = 0; p < NPROGS; p++)
			w[p][round] = sum[p] / NFRAMES;
	}
	for (int p = 0; p < NPROGS; p++)
		r->warm[p] = median(w[p], ROUNDS);

	for (int i = 0; i < COLD_RUNS; i++) {
		flow_frame(cold_flow[i], &cold);
		for (int k = 0; k < NPROGS; k++) {
			int p = (k + i) % NPROGS;

			c[p][i] = run(p, &cold, 1);
		}
	}
	for (int p = 0; p < NPROGS; p++)
		r->cold[p] = median(c[p], COLD_RUNS);
}

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* One markdown table: each program against its floor; base: 1k-flow row */
static void print_table(const struct result *res, int cold, int decimals,
			size_t base)
{
	printf("| flows | tc floor | flow floor | egress | egress/floor "
	       "| egress/flow floor | egress vs 1k | XDP floor | XDP ingress "
	       "| XDP/floor | XDP vs 1k |\n");
	printf("|------:|---------:|-----------:|-------:|-------------:"
	       "|------------------:|-------------:|----------:|------------:"
	       "|----------:|----------:|\n");
	for (size_t c = 0; c < NCOUNTS; c++) {
		const double *v = cold ? res[c].cold : res[c].warm;
		const double *b = cold ? res[base].cold : res[base].warm;

		printf("| %u | %.*f | %.*f | %.*f | %.2f | %.2f | %.2f | %.*f "
		       "| %.*f | %.2f | %.2f |\n", counts[c],
		       decimals, v[FLOOR_TC], decimals, v[FLOOR_FLOW],
		       decimals, v[EGRESS], v[EGRESS] / v[FLOOR_TC],
		       v[EGRESS] / v[FLOOR_FLOW], v[EGRESS] / b[EGRESS],
		       decimals, v[FLOOR_XDP], decimals, v[XDP],
		       v[XDP] / v[FLOOR_XDP], v[XDP] / b[XDP]);
	}
}

static void load_floor(struct bpf_object **obj)
{
	struct bpf_program *p;
	struct bpf_map *m;
	int err;

	*obj = bpf_object__open_file(FLOOR_OBJ, NULL);
	if (!*obj)
		die("open " FLOOR_OBJ, errno);
	m = bpf_object__find_map_by_name(*obj, "floor_flows");
	if (!m || (err = bpf_map__set_max_entries(m, FLOWS_MAX)))
		die("floor_flows max_entries", m ? err : ENOENT);
	/* the tracepoint floor belongs to bench/live.sh */
	p = bpf_object__find_program_by_name(*obj, "floor_dequeue");
	if (p)
		bpf_program__set_autoload(p, false);
	if ((err = bpf_object__load(*obj)))
		die("load " FLOOR_OBJ, err);
	p = bpf_object__find_program_by_name(*obj, "floor_parse");
	if (!p)
		die("floor_parse", ENOENT);
	prog_fd[FLOOR_TC] = bpf_program__fd(p);
	p = bpf_object__find_program_by_name(*obj, "floor_flow");
	if (!p)
		die("floor_flow", ENOENT);
	prog_fd[FLOOR_FLOW] = bpf_program__fd(p);
	fflows_fd = bpf_map__fd(m);
	p = bpf_object__find_program_by_name(*obj, "floor_xdp");
	if (!p)
		die("floor_xdp", ENOENT);
	prog_fd[FLOOR_XDP] = bpf_program__fd(p);
}

int main(void)
{
	struct result res[NCOUNTS];
	struct sojourn_bpf *skel;
	struct sojourn_xdp *xskel;
	struct bpf_object *fobj;
	unsigned long long mem = 0;
	__u32 have = 0, miss[NCOUNTS], xmiss[NCOUNTS];
	__u64 created0;
	cpu_set_t cpus;
	int err, base = -1;
	size_t last = NCOUNTS - 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: needs root for BPF_PROG_TEST_RUN\n");
		return 0;
	}
	libbpf_set_print(quiet_print);
	srandom(1);
	/* one CPU: the per-CPU counters and caches stay put */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);

	skel = sojourn_bpf__open();
	xskel = sojourn_xdp__open();
	if (!skel || !xskel) {
		printf("SKIP: cannot open the BPF objects: %s\n", strerror(errno));
		return 0;
	}
	/* the dequeue tracepoint is not test-run; XDP serves ingress */
	bpf_program__set_autoload(skel->progs.sojourn_dequeue, false);
	xskel->rodata->cfg_direction = SJ_DIR_INGRESS;
	xskel->rodata->cfg_mode = SJ_MODE_RATE;
	if ((err = bpf_map__set_max_entries(skel->maps.flows, FLOWS_MAX)) ||
	    (err = bpf_map__set_max_entries(xskel->maps.flows, FLOWS_MAX)))
		die("set flows max_entries", err);
	err = sojourn_bpf__load(skel);
	if (!err)
		err = sojourn_xdp__load(xskel);
	if (err) {
		printf("SKIP: cannot load sojourn: %s\n", strerror(-err));
		return 0;
	}
	load_floor(&fobj);

	prog_fd[EGRESS] = bpf_program__fd(skel->progs.sojourn_egress);
	prog_fd[XDP] = bpf_program__fd(xskel->progs.sojourn_xdp);
	flows_fd = bpf_map__fd(skel->maps.flows);
	xflows_fd = bpf_map__fd(xskel->maps.flows);
	stats_fd = register_att(skel->obj, SJ_DIR_EGRESS, SJ_MODE_QUEUE);
	register_att(xskel->obj, SJ_DIR_INGRESS, SJ_MODE_RATE);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		die("libbpf_num_possible_cpus", ncpu);
	write_settings(bpf_map__fd(skel->maps.settings));
	write_settings(bpf_map__fd(xskel->maps.settings));

	created0 = flows_created();
	for (size_t c = 0; c < NCOUNTS; c++) {
		populate(flows_fd, have, counts[c], sizeof(struct sj_flow));
		populate(xflows_fd, have, counts[c], sizeof(struct sj_flow));
		populate(fflows_fd, have, counts[c], sizeof(__u64));
		have = counts[c];
		miss[c] = missing(flows_fd, have);
		xmiss[c] = missing(xflows_fd, have);
		measure(counts[c], &res[c]);
		if (counts[c] == 1000)
			base = c;
		if (counts[c] == 1000000)
			mem = memlock(flows_fd);
		fprintf(stderr, "  %u flows done\n", counts[c]);
	}

	printf("\nCost per packet, BPF_PROG_TEST_RUN opts.duration (kernel ns), "
	       "%d frames x repeat %d, median of %d rounds, IPv4/TCP, "
	       "flows map max_entries %u; XDP ingress in rate mode at %llu "
	       "bytes/s (nothing queues)\n\n", NFRAMES, REPEAT, ROUNDS,
	       FLOWS_MAX, (unsigned long long)SJ_MAX_RATE_BYTES_PER_S);
	print_table(res, 0, 1, base);
	printf("\nrepeat=1, a different random flow per run, median of %d "
	       "runs (entries mostly cold in cache; includes the kernel's "
	       "timer read):\n\n", COLD_RUNS);
	print_table(res, 1, 0, base);

	printf("\nflows map memory at 1M flows (fdinfo memlock; a host has one "
	       "such table, of %u entries): %llu bytes (%.1f MiB)\n",
	       SJ_FLOWS_HOST, mem, mem / 1048576.0);
	printf("flows missing from the tables after populating (egress, XDP):");
	for (size_t c = 0; c < NCOUNTS; c++)
		printf(" %u/%u@%u", miss[c], xmiss[c], counts[c]);
	printf("\nflows created by egress during measurement: %llu "
	       "(0: every packet hit a populated entry)\n",
	       (unsigned long long)(flows_created() - created0));

	printf("\ntargets (warm): egress <= 1.3x floor: %s (%.2f at 1, %.2f "
	       "at 1M); 1M-flow cost within 1.2x of 1k-flow cost: %s (%.2f)\n",
	       res[last].warm[EGRESS] <= 1.3 * res[last].warm[FLOOR_TC] &&
	       res[0].warm[EGRESS] <= 1.3 * res[0].warm[FLOOR_TC] ?
	       "met" : "NOT met",
	       res[0].warm[EGRESS] / res[0].warm[FLOOR_TC],
	       res[last].warm[EGRESS] / res[last].warm[FLOOR_TC],
	       res[last].warm[EGRESS] <= 1.2 * res[base].warm[EGRESS] ?
	       "met" : "NOT met",
	       res[last].warm[EGRESS] / res[base].warm[EGRESS]);

	printf("egress over the flow floor (parse, clock, one LRU hash entry "
	       "per flow): %.2fx at 1, %.2fx at 1M; the flow floor alone is "
	       "%.2fx the tc floor\n",
	       res[0].warm[EGRESS] / res[0].warm[FLOOR_FLOW],
	       res[last].warm[EGRESS] / res[last].warm[FLOOR_FLOW],
	       res[0].warm[FLOOR_FLOW] / res[0].warm[FLOOR_TC]);

	bpf_object__close(fobj);
	sojourn_xdp__destroy(xskel);
	sojourn_bpf__destroy(skel);
	return 0;
}
