/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* host.c: the host's one loaded object, and each attachment's place in it */
#ifndef SOJOURN_HOST_H
#define SOJOURN_HOST_H

#include <bpf/libbpf.h>
#include "sojourn.h"

/* bpffs takes no "." in a name: "host", beside the attachments' folders
 * (<cookie>-<ifindex>-<direction>), which the walks skip it among */
#define SJ_HOST_DIR SJ_PIN_ROOT "/host"
#define SJ_HOST_NAME "host"

/* A program's load-time constants (bpf/maps.bpf.h) */
struct sj_prog_want {
	__u64 netns_cookie;
	__u32 link_layer;	/* enum sj_link_layer */
	__u32 mode;		/* enum sj_mode */
	__u32 dir;		/* enum sj_dir */
};

/* What an attachment got: its place, and its own counters' maps (the
 * caller pins them in its folder, then closes them) */
struct sj_host_att {
	struct sj_att att;
	int stats_fd, hist_fd;
};

struct sj_host_maps {
	int attachments, settings, queues, stats_of, hist_of, flows;
};

/* before an object is loaded: every map of it is the host's (made now if
 * there is no host yet) */
int sj_host_reuse(struct bpf_object *obj);
/* the tc program with these constants, loaded once: an fd to close */
int sj_host_prog(const struct sj_prog_want *w);
/* the dequeue tracepoint's program, on for the host */
int sj_host_dequeue(void);
int sj_settings_put(int fd, __u32 id, const struct sj_settings *set);
int sj_host_add(const struct sj_att_key *key, __u32 mode, __u32 num_txq,
		const struct sj_settings *set, struct sj_host_att *out);
/* the attachment of meta leaves the host's maps (its folder is gone);
 * with no attachment left, the host goes too.  Idempotent. */
void sj_host_remove(const struct sj_meta *meta);
/* one of the host's pinned maps by name: an fd to close, or -1 */
int sj_host_map(const char *name);
/* -EPROTO, and which map in why, for a host another version made */
/* entries no attachment folder speaks for (a command killed between the
 * folder and the host's maps) released, and the host with the last one;
 * pins.c's sweep runs it whenever a command takes the lock, with swept
 * (pins.c's, for the stale "tmp-" folders: true when it removed one)
 * called on each "tmp-" name of the same listing */
void sj_host_reconcile(bool (*swept)(const char *name));
int sj_host_maps_open(struct sj_host_maps *m, char *why, size_t len);
void sj_host_maps_close(struct sj_host_maps *m);
int sj_host_flows_drop(int flows_fd, __u32 id);

#endif
