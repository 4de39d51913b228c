/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* sojourn-cni's parts: the CNI protocol (sojourn-cni.c), the pod's host
 * veth (host.c), the records of what ADD attached, GC and STATUS (state.c),
 * what the node gives it: the command, bpffs, the pod's name (node.c). */
#ifndef SOJOURN_CNI_H
#define SOJOURN_CNI_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#define STATE_DIR	"/run/sojourn/cni"
/* flow table entries per direction of a pod (config key "flows") */
#define CNI_FLOWS_DEFAULT	4096

/* CNI spec 1.1's error codes (0-99 reserved), then ours (100+) */
enum {
	ERR_VERSION	= 1,	/* incompatible CNI version */
	ERR_ENV		= 4,	/* invalid necessary environment variables */
	ERR_IO		= 5,	/* I/O failure */
	ERR_DECODE	= 6,	/* failed to decode content */
	ERR_CONFIG	= 7,	/* invalid network config */
	ERR_UNAVAILABLE	= 50,	/* STATUS: cannot service ADD */
	ERR_SOJOURN	= 100,	/* the sojourn command failed */
	ERR_CHECK	= 101,	/* CHECK: not as configured */
	ERR_NO_HOST	= 102,	/* no host veth to be found for the pod */
};

struct conf {
	struct json_object *root, *prev;
	const char *name;			/* the network's */
	unsigned long long in_rate, eg_rate;	/* bits/s; 0: none */
	const char *sojourn;			/* the config's "sojourn"; NULL: searched */
	const char *extra[8];			/* target/interval/ecn/flows, passed on */
	int nextra;
};

/* Prints the spec's error object on stdout, one line on stderr, exits 1.
 * details NULL: the spec's description of the code. */
void __attribute__((noreturn, format(printf, 3, 4)))
fail(int code, const char *details, const char *fmt, ...);
#define die(code, ...) fail(code, NULL, __VA_ARGS__)

/* host.c */
int host_veth(const struct conf *c, const char *netns, const char *ifname,
	      char *host, int *host_ifindex);

/* sojourn-cni.c: runs sojourn with args; what it printed, both streams, in out */
int sojourn(const struct conf *c, char *out, size_t len, const char **args);
int sojourn_batch(const struct conf *c, char *out, size_t len, const char *lines);
char *oneline(char *out);

/* state.c: what ADD attached, kept for DEL and GC */
struct state {
	char host[IF_NAMESIZE];
	int ifindex;			/* 0: a record of an older plugin */
	char network[256];
	bool egress, ingress;
	unsigned long long netns_cookie;	/* of the host veth's namespace; 0 unknown */
	/* the Kubernetes pod, from CNI_ARGS; "" when not given.  Read by
	 * `sojourn export` for its pod_namespace and pod_name labels. */
	char pod_namespace[64];			/* a DNS label: 63 bytes at most */
	char pod_name[254];			/* a DNS subdomain: 253 at most */
};
void state_save(const char *id, const char *ifname, const struct state *st);
int state_load(const char *id, const char *ifname, struct state *st);
void state_drop(const char *id, const char *ifname);
int undo(const struct conf *c, const struct state *st, bool must, char *err, size_t len);
void sweep_dead_pins(const struct conf *c, char *err, size_t len);
void cmd_gc(const struct conf *c);
void cmd_status(const struct conf *c);

/* node.c */
/* the command to run: the config's, else the first in CNI_PATH, beside the
 * plugin, /usr/sbin; -1 with where it looked in err */
int sojourn_find(const struct conf *c, char *path, size_t len, char *err, size_t errlen);
const char *sojourn_path(const struct conf *c);	/* sojourn_find or die */
int bpffs_ensure(char *err, size_t len);	/* mounts bpffs if none is there */
unsigned long long netns_cookie(void);
void pod_of_args(struct state *st);

#endif
