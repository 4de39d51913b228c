// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What ADD attached, one file per attachment (STATE_DIR/CONTAINERID-IFNAME):
 *
 *   HOST                  the host veth's name (all an older plugin wrote)
 *   ifindex=N             its ifindex, so a name reused later is not taken
 *   network=NAME          the network it belongs to: GC is per network
 *   directions=egress ingress
 *   netns_cookie=N        the host veth's namespace (with ifindex: the
 *                         attachment as `sojourn export` knows it)
 *   pod_namespace=NS      the Kubernetes pod, from CNI_ARGS, when given:
 *   pod_name=NAME         export's labels pod_namespace and pod_name
 *
 * DEL and GC remove only what a record names, and only while the device of
 * that name is still the one ADD saw: an attachment made by hand, by the
 * daemon or for another network is never touched.  Pins whose device is
 * gone are `sojourn gc`'s to remove.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "cni.h"

#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"

static void state_path(char *buf, size_t len, const char *id, const char *ifname)
{
	snprintf(buf, len, "%s/%s-%s", STATE_DIR, id, ifname);
}

/* Written whole under a temporary name, then renamed: never half a record */
void state_save(const char *id, const char *ifname, const struct state *st)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	mkdir("/run/sojourn", 0755);
	mkdir(STATE_DIR, 0755);
	state_path(path, sizeof(path), id, ifname);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		die(ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
	fprintf(f, "%s\nifindex=%d\nnetwork=%s\ndirections=%s%s%s\nnetns_cookie=%llu\n",
		st->host, st->ifindex, st->network, st->egress ? "egress" : "",
		st->egress && st->ingress ? " " : "", st->ingress ? "ingress" : "",
		st->netns_cookie);
	if (st->pod_name[0])
		fprintf(f, "pod_namespace=%s\npod_name=%s\n", st->pod_namespace, st->pod_name);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		die(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	}
}

/* a field of a record, cut to its size as the writer would never need */
static void copy_field(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int load_path(const char *path, struct state *st)
{
	char line[512];
	FILE *f = fopen(path, "re");

	memset(st, 0, sizeof(*st));
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		copy_field(st->host, sizeof(st->host), line);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "ifindex=", 8))
			st->ifindex = atoi(line + 8);
		else if (!strncmp(line, "network=", 8))
			copy_field(st->network, sizeof(st->network), line + 8);
		else if (!strncmp(line, "directions=", 11)) {
			st->egress = strstr(line + 11, "egress");
			st->ingress = strstr(line + 11, "ingress");
		} else if (!strncmp(line, "netns_cookie=", 13)) {
			st->netns_cookie = strtoull(line + 13, NULL, 10);
		} else if (!strncmp(line, "pod_namespace=", 14)) {
			copy_field(st->pod_namespace, sizeof(st->pod_namespace), line + 14);
		} else if (!strncmp(line, "pod_name=", 9)) {
			copy_field(st->pod_name, sizeof(st->pod_name), line + 9);
		}
	}
	fclose(f);
	return 0;
}

int state_load(const char *id, const char *ifname, struct state *st)
{
	char path[PATH_MAX];

	state_path(path, sizeof(path), id, ifname);
	return load_path(path, st);
}

void state_drop(const char *id, const char *ifname)
{
	char path[PATH_MAX];

	state_path(path, sizeof(path), id, ifname);
	unlink(path);
}

/* Takes off what a record names.  0 done (or nothing of ours is left),
 * 1 the device is gone (its pins are sweep_dead_pins'), -1 error in err. */
int undo(const struct conf *c, const struct state *st, bool must, char *err, size_t len)
{
	const char *dirs[2] = { st->egress ? "egress" : NULL, st->ingress ? "ingress" : NULL };
	char out[512], lines[128] = "";
	int idx = st->host[0] ? (int)if_nametoindex(st->host) : 0;

	if (!st->ifindex || !st->host[0])
		return 0;
	if (!idx)
		return 1;
	if (idx != st->ifindex)
		return 0;	/* the name is another device's now */
	for (int i = 0; i < 2; i++)
		if (dirs[i])
			snprintf(lines + strlen(lines), sizeof(lines) - strlen(lines),
				 "detach %s %s\n", st->host, dirs[i]);
	/* one sojourn for both directions (its -batch) */
	if (lines[0] && sojourn_batch(c, out, sizeof(out), lines) && must) {
		snprintf(err, len, "detach %s: %s", st->host, oneline(out));
		return -1;
	}
	return 0;
}

void sweep_dead_pins(const struct conf *c, char *err, size_t len)
{
	const char *args[] = { "gc", NULL };
	char out[4096];

	err[0] = '\0';
	if (sojourn(c, out, sizeof(out), args))
		snprintf(err, len, "sojourn gc: %s", oneline(out));
}

/* valid-attachments as "CONTAINERID-IFNAME", the names of their records */
static char **valid_names(const struct conf *c, size_t *n)
{
	struct json_object *valid, *e, *id, *ifn;
	char **names;

	if (!json_object_object_get_ex(c->root, "cni.dev/valid-attachments", &valid) ||
	    !json_object_is_type(valid, json_type_array))
		die(ERR_CONFIG, "GC needs cni.dev/valid-attachments, an array");
	*n = json_object_array_length(valid);
	names = calloc(*n + 1, sizeof(*names));
	if (!names)
		die(ERR_IO, "out of memory");
	for (size_t i = 0; i < *n; i++) {
		e = json_object_array_get_idx(valid, i);
		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "containerID", &id) ||
		    !json_object_object_get_ex(e, "ifname", &ifn) ||
		    !json_object_is_type(id, json_type_string) ||
		    !json_object_is_type(ifn, json_type_string))
			die(ERR_CONFIG, "cni.dev/valid-attachments[%zu] needs containerID and ifname strings", i);
		if (asprintf(&names[i], "%s-%s", json_object_get_string(id),
			     json_object_get_string(ifn)) < 0)
			die(ERR_IO, "out of memory");
	}
	return names;
}

/* GC: the network's attachments not in valid-attachments go.  Goes on past
 * errors, as the spec asks, and reports them all at the end. */
void cmd_gc(const struct conf *c)
{
	char errors[4096] = "", err[1024], path[PATH_MAX];
	size_t nvalid, i;
	char **valid = valid_names(c, &nvalid);
	bool gone = false;
	int nerr = 0, r;
	struct dirent *de;
	struct state st;
	DIR *d = opendir(STATE_DIR);

	if (!d && errno != ENOENT)
		die(ERR_IO, "cannot read %s: %s", STATE_DIR, strerror(errno));
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || (len > 4 && !strcmp(de->d_name + len - 4, ".tmp")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", STATE_DIR, de->d_name);
		/* a record of an older plugin has no network: not ours to judge */
		if (load_path(path, &st) || !st.ifindex || strcmp(st.network, c->name))
			continue;
		for (i = 0; i < nvalid && strcmp(valid[i], de->d_name); i++)
			;
		if (i < nvalid)
			continue;
		r = undo(c, &st, true, err, sizeof(err));
		if (r < 0) {
			nerr++;
			snprintf(errors + strlen(errors), sizeof(errors) - strlen(errors),
				 "%s%s", errors[0] ? "; " : "", err);
			continue;	/* kept, for the next GC */
		}
		gone |= r == 1;
		unlink(path);
	}
	if (d)
		closedir(d);
	if (gone) {
		sweep_dead_pins(c, err, sizeof(err));
		if (err[0]) {
			nerr++;
			snprintf(errors + strlen(errors), sizeof(errors) - strlen(errors),
				 "%s%s", errors[0] ? "; " : "", err);
		}
	}
	for (i = 0; i < nvalid; i++)
		free(valid[i]);
	free(valid);
	if (nerr)
		fail(ERR_SOJOURN, errors, "GC: %d attachment(s) of %s not removed", nerr, c->name);
}

/* STATUS: can an ADD succeed?  Each check cheap, each a real cause of a
 * failed ADD; the first one failing is the reason given. */
void cmd_status(const struct conf *c)
{
	const char *args[] = { "show", "-j", NULL };
	struct utsname u;
	int major = 0, minor = 0;
	char out[1 << 16], path[PATH_MAX], err[PATH_MAX + 256];
	const char *list = out, *eol;

	/* what ADD would do first: a node without bpffs gets one */
	if (bpffs_ensure(err, sizeof(err)))
		die(ERR_UNAVAILABLE, "%s", err);
	if (access(BTF_VMLINUX, R_OK))
		die(ERR_UNAVAILABLE, "kernel has no BTF (%s): sojourn needs CONFIG_DEBUG_INFO_BTF",
		    BTF_VMLINUX);
	/* rate mode's bpf_skb_set_tstamp and __sk_buff->tstamp_type: 5.18 */
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2 ||
	    major < 5 || (major == 5 && minor < 18))
		die(ERR_UNAVAILABLE, "kernel %s is older than 5.18, which rate mode needs",
		    u.release);
	mkdir("/run/sojourn", 0755);
	mkdir(STATE_DIR, 0755);
	if (access(STATE_DIR, W_OK))
		die(ERR_UNAVAILABLE, "cannot write %s: %s", STATE_DIR, strerror(errno));
	if (sojourn_find(c, path, sizeof(path), err, sizeof(err)))
		die(ERR_UNAVAILABLE, "%s", err);
	/* sojourn's own checks: privileges, bpffs, its pins readable.  Its
	 * list may be longer than out: only its start is looked at. */
	if (sojourn(c, out, sizeof(out), args))
		die(ERR_UNAVAILABLE, "%s show failed: %s", path, oneline(out));
	/* an attachment another version of sojourn made is skipped with a
	 * line on stderr (which comes here too) ahead of the list: no reason
	 * this one cannot work */
	while (!strncmp(list, "sojourn: skipped ", 17) && (eol = strchr(list, '\n')))
		list = eol + 1;
	if (list[strspn(list, " \n")] != '[')
		die(ERR_UNAVAILABLE, "%s show -j printed no JSON list: %.200s", path,
		    oneline(out));
}
