// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ackecho (bpf/ackecho.bpf.h) through BPF_PROG_TEST_RUN on the real-queue
 * tc program: a data packet that carries a signal as CE owes an echo to
 * its ACK stream, and the next ACK of that stream carries ECE with a TCP
 * checksum that still verifies, for IPv4 and IPv6 and under
 * CHECKSUM_COMPLETE.  Nothing is owed by data that is not classic ECN
 * (ECT(1), AE or ECE set: AccECN), nor with noackecho; an ACK that speaks
 * AccECN (AE or CWR) is left as it came and the echo declined; an ACK that
 * echoes already, or an echo older than the interval, changes nothing.
 * Exits 0 when all pass, 1 on a failure, 77 without root or BPF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sojourn.h"
#include "fair.h"
#include "sojourn.skel.h"
#include "runner.h"
#include "../lib/check.h"

#define ATT_ID		7
#define ECT0		2
#define ECT1		1
#define DATA_PORT	40600
#define SERVICE_PORT	80

static struct runner rn;
static int owed_fd;

/* A TCP segment from the data sender (FR_SRC) to its receiver, or back
 * (ack: addresses and ports swapped), with these flags and its checksum */
static __u32 tcp_sum(const struct frame *f)
{
	const __u8 *ip = f->b + f->l3;
	__u32 tlen = f->len - f->l4, sum = 0;
	__u8 ph[40] = {};

	if (f->family == 4) {
		memcpy(ph, ip + 12, 8);
		ph[9] = IPPROTO_TCP;
		fr_put16(ph + 10, tlen);
		sum = fr_csum_fold(ph, 12);
	} else {
		__u8 p6[40] = {};

		memcpy(p6, ip + 8, 32);
		fr_put16(p6 + 34, tlen);
		p6[39] = IPPROTO_TCP;
		sum = fr_csum_fold(p6, 40);
	}
	sum += fr_csum_fold(f->b + f->l4, tlen);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void segment(struct frame *f, int v6, __u8 ecn, int ack, __u16 flags)
{
	__u8 *ip, tmp[16];

	if (v6) {
		fr_eth(f, ETH_P_IPV6);
		fr_ip6(f, ecn, 0, IPPROTO_TCP);
	} else {
		fr_eth(f, ETH_P_IP);
		fr_ip4(f, ecn, IPPROTO_TCP, 5, 0);
	}
	fr_tcp(f, ack ? SERVICE_PORT : DATA_PORT, ack ? DATA_PORT : SERVICE_PORT);
	fr_finish(f);
	ip = f->b + f->l3;
	if (ack) {	/* the receiver's way back */
		__u32 a = v6 ? 8 : 12, n = v6 ? 16 : 4;

		memcpy(tmp, ip + a, n);
		memcpy(ip + a, ip + a + n, n);
		memcpy(ip + a + n, tmp, n);
		if (!v6)
			fr_ip4_csum(ip);
	}
	f->b[f->l4 + 12] = (f->b[f->l4 + 12] & 0xf0) | (flags >> 8 & 1);
	f->b[f->l4 + 13] = flags & 0xff;
	fr_put16(f->b + f->l4 + 16, 0);
	fr_put16(f->b + f->l4 + 16, ~tcp_sum(f) & 0xffff);
}

static struct sj_flow_key data_key(int v6)
{
	struct frame f;

	segment(&f, v6, ECT0, 0, SJ_TCP_FLAG_ACK);
	f.key.proto = IPPROTO_TCP;
	return f.key;
}

static int owed_count(void)
{
	struct sj_ack_key k, prev;
	int n = 0, first = 1;

	while (bpf_map_get_next_key(owed_fd, first ? NULL : &prev, &k) == 0) {
		prev = k;
		first = 0;
		n++;
	}
	return n;
}

static void owed_clear(void)
{
	struct sj_ack_key k;

	while (bpf_map_get_next_key(owed_fd, NULL, &k) == 0)
		if (bpf_map_delete_elem(owed_fd, &k))
			rn_die("delete an owed echo");
}

/* settings as rn_prepare writes them, with ack_echo */
static void echo_setting(__u32 on)
{
	struct sj_settings set;

	if ((errno = -rn_settings_read(&rn, &set, 0)))
		rn_die("read settings");
	set.ack_echo = on;
	if ((errno = -rn_settings_write(&rn, &set, 0)))
		rn_die("write settings");
}

/* The data packet f, its flow owing a signal; returns the CE marks */
static __u64 send_data(const struct frame *f, int v6, __u32 echo)
{
	struct sj_flow_key key = data_key(v6);
	struct rn_setup s = { .ecn = 1, .flow = &key, .pending = 1 };
	struct run_res r;

	rn_prepare(&rn, &s);
	echo_setting(echo);
	rn_run(&rn, f->b, f->len, &s, 0, &r);
	CHECK(!r.err && r.retval == rn.pass, "data: err %d verdict %d",
	      r.err, r.retval);
	return r.d.ecn_mark;
}

/* The ACK f, as it came back (out), the counters it moved (d) */
static int send_ack(const struct frame *f, __u32 flags, __u8 *out,
		    struct sj_stats *d)
{
	struct sj_run o = { .out = out, .out_size = FR_MAX, .flags = flags };
	struct sj_stats before, after;

	rn_stats(&rn, &before);
	o.err = sj_test_run(rn.prog, f->b, f->len, &o);
	rn_stats(&rn, &after);
	for (size_t i = 0; i < NSTAT; i++)
		((__u64 *)d)[i] = ((__u64 *)&after)[i] - ((__u64 *)&before)[i];
	CHECK(!o.err && o.retval == rn.pass && o.out_len == f->len,
	      "ack: err %d verdict %d len %u", o.err, o.retval, o.out_len);
	return o.err;
}

static void case_echo(const char *name, int v6, __u32 run_flags)
{
	struct frame data, ack, got;
	struct sj_stats d;

	owed_clear();
	segment(&data, v6, ECT0, 0, SJ_TCP_FLAG_ACK);
	segment(&ack, v6, 0, 1, SJ_TCP_FLAG_ACK);
	CHECK(send_data(&data, v6, 1) == 1, "the data was not CE-marked");
	CHECK(owed_count() == 1, "%d echoes owed after the signal, want 1",
	      owed_count());
	got = ack;
	if (!send_ack(&ack, run_flags, got.b, &d)) {
		CHECK(got.b[got.l4 + 13] == (SJ_TCP_FLAG_ACK | SJ_TCP_FLAG_ECE),
		      "ACK flags 0x%02x, want ACK|ECE", got.b[got.l4 + 13]);
		CHECK(tcp_sum(&got) == 0xffff, "TCP checksum broken by the echo");
		got.b[got.l4 + 13] = ack.b[ack.l4 + 13];
		memcpy(got.b + got.l4 + 16, ack.b + ack.l4 + 16, 2);
		CHECK(!memcmp(got.b, ack.b, ack.len),
		      "bytes other than the flags and checksum changed");
		CHECK(d.ack_echoes == 1, "ack_echoes %+lld, want +1",
		      (long long)d.ack_echoes);
	}
	CHECK(owed_count() == 0, "the echo is still owed after it was given");
	/* one signal, one echo */
	if (!send_ack(&ack, run_flags, got.b, &d))
		CHECK(!memcmp(got.b, ack.b, ack.len) && d.ack_echoes == 0,
		      "a second ACK carried the same signal");
	check_case(name);
}

/* data that owes nothing */
static void case_no_owe(const char *name, __u8 ecn, __u16 flags, __u32 echo)
{
	struct frame data;

	owed_clear();
	segment(&data, 0, ecn, 0, flags);
	send_data(&data, 0, echo);
	CHECK(owed_count() == 0, "%d echoes owed, want none", owed_count());
	check_case(name);
}

/* an owed echo and an ACK that must come back as it came */
static void case_ack_kept(const char *name, __u16 ack_flags, int declined,
			  __u64 age_ns)
{
	struct frame data, ack, got;
	struct sj_stats d;

	owed_clear();
	segment(&data, 0, ECT0, 0, SJ_TCP_FLAG_ACK);
	segment(&ack, 0, 0, 1, ack_flags);
	send_data(&data, 0, 1);
	if (age_ns) {
		struct sj_ack_key k;
		struct sj_ack_owed v;

		if (bpf_map_get_next_key(owed_fd, NULL, &k) ||
		    bpf_map_lookup_elem(owed_fd, &k, &v))
			rn_die("read the owed echo");
		v.until_ns = rn_mono_ns() - age_ns;
		if (bpf_map_update_elem(owed_fd, &k, &v, BPF_EXIST))
			rn_die("age the owed echo");
	}
	got = ack;
	if (!send_ack(&ack, 0, got.b, &d)) {
		CHECK(!memcmp(got.b, ack.b, ack.len), "the ACK was changed");
		CHECK(d.ack_echoes == 0, "ack_echoes %+lld, want 0",
		      (long long)d.ack_echoes);
		CHECK((int)d.ack_echo_declined == declined,
		      "ack_echo_declined %+lld, want %+d",
		      (long long)d.ack_echo_declined, declined);
	}
	check_case(name);
}

int main(void)
{
	struct sojourn_bpf *skel;
	struct frame f;
	struct sj_run probe = {};
	int err;

	rn_begin();
	skel = sojourn_bpf__open();
	if (!skel || (err = sojourn_bpf__load(skel)))
		rn_load_failed(skel ? err : -errno, "tc program");
	rn_init(&rn, "tc", skel->obj, skel->progs.sojourn_egress, 0, 0);
	rn_register(&rn, ATT_ID, SJ_MODE_QUEUE, SJ_DIR_EGRESS, 1);
	owed_fd = bpf_object__find_map_fd_by_name(skel->obj, "ack_owed");
	if (owed_fd < 0)
		rn_die("map ack_owed");

	case_echo("echo_ipv4", 0, 0);
	case_echo("echo_ipv6", 1, 0);
	/* older kernels refuse the flag: then it is not tested here */
	segment(&f, 0, 0, 1, SJ_TCP_FLAG_ACK);
	probe.flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE;
	if (sj_test_run(rn.prog, f.b, f.len, &probe) == -EINVAL) {
		printf("NOTE echo_*_csum_complete: test_run refuses "
		       "BPF_F_TEST_SKB_CHECKSUM_COMPLETE here; not tested\n");
	} else {
		case_echo("echo_ipv4_csum_complete", 0,
			  BPF_F_TEST_SKB_CHECKSUM_COMPLETE);
		case_echo("echo_ipv6_csum_complete", 1,
			  BPF_F_TEST_SKB_CHECKSUM_COMPLETE);
	}
	case_no_owe("no_echo_with_noackecho", ECT0, SJ_TCP_FLAG_ACK, 0);
	case_no_owe("no_echo_for_ect1", ECT1, SJ_TCP_FLAG_ACK, 1);
	case_no_owe("no_echo_for_accecn_data_ae", ECT0,
		    SJ_TCP_FLAG_ACK | SJ_TCP_FLAG_AE, 1);
	case_no_owe("no_echo_for_data_with_ece", ECT0,
		    SJ_TCP_FLAG_ACK | SJ_TCP_FLAG_ECE, 1);
	case_ack_kept("accecn_ack_ae_declined",
		      SJ_TCP_FLAG_ACK | SJ_TCP_FLAG_AE, 1, 0);
	case_ack_kept("accecn_ack_cwr_declined",
		      SJ_TCP_FLAG_ACK | SJ_TCP_FLAG_CWR, 1, 0);
	case_ack_kept("ack_echoing_already", SJ_TCP_FLAG_ACK | SJ_TCP_FLAG_ECE,
		      0, 0);
	case_ack_kept("echo_older_than_interval", SJ_TCP_FLAG_ACK, 0,
		      1000000ULL);

	rn_fini(&rn);
	sojourn_bpf__destroy(skel);
	return check_exit("test_ackecho");
}
