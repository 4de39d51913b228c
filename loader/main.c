// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sojourn: CoDel for any interface, as BPF programs.  The commands are a
 * table; each lives in its own file.  -n, -j and -s may stand anywhere, as
 * with tc.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "output.h"

const char *sj_netns_name;
extern bool sj_show_stats;

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "attach", cmd_attach,
	  "attach DEV [egress|ingress] [rate RATE [burst SIZE] [horizon TIME] [pace]\n"
	  "              [overhead BYTES] [mpu BYTES] [linklayer ethernet|atm|ptm]]\n"
	  "              [target TIME] [interval TIME] [ce_threshold TIME|off]\n"
	  "              [ecn|noecn] [fair|nofair] [quantum SIZE]\n"
	  "              [sparse_class CLASSID|auto|off] [flows N]\n"
	  "              [hook tc|tcx|clsact|xdp] [-n NETNS]\n"
	  "       sojourn attach DEV [egress] observe [flows N] [hook tc|tcx|clsact] [-n NETNS]" },
	{ "change", cmd_change,
	  "change DEV [egress|ingress] [rate RATE] [burst SIZE] [horizon TIME]\n"
	  "              [pace|nopace] [overhead BYTES] [mpu BYTES]\n"
	  "              [linklayer ethernet|atm|ptm] [target TIME] [interval TIME]\n"
	  "              [ce_threshold TIME|off] [ecn|noecn] [fair|nofair]\n"
	  "              [quantum SIZE] [sparse_class CLASSID|auto|off] [-n NETNS]" },
	{ "replace", cmd_replace,
	  "replace DEV [egress|ingress] ... (attach's options: attached as attach\n"
	  "              would make it, in place where mode, hook and flows allow)" },
	{ "detach", cmd_detach, "detach DEV [egress|ingress] [-n NETNS]" },
	{ "show", cmd_show, "show [DEV] [-s] [-j] [-n NETNS]" },
	{ "hist", cmd_hist,
	  "hist DEV [egress|ingress] [--flow all|[src ADDR] [dst ADDR] [sport PORT]\n"
	  "              [dport PORT] [proto PROTO]] [-j] [-n NETNS]" },
	{ "top", cmd_top,
	  "top [DEV] [-i SECONDS] [--sort delay|drops|marks|bytes] [--rows N]\n"
	  "              [--frames N] [-j] [-n NETNS]" },
	{ "export", cmd_export,
	  "export --listen ADDR:PORT [--allow-remote] | --textfile PATH [-i SECONDS]\n"
	  "              [--flows N] [-n NETNS]" },
	{ "gc", cmd_gc, "gc [--dry-run]" },
	{ "daemon", cmd_daemon,
	  "daemon [--config FILE] [--detach-on-exit] [--check]" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: sojourn COMMAND ...\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "       sojourn %s\n", commands[i].usage);
	fprintf(f, "TIME, RATE, SIZE as tc writes them: 5ms, 20mbit, 32kb.  -j: JSON, -s: statistics.\n");
}

/* libbpf's own warnings explain a failed load; its chatter does not help */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Takes the global options out of argv wherever they stand. */
static int global_options(int *argc, char **argv, bool *json)
{
	int i, n = 0;

	for (i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--netns")) {
			if (i + 1 >= *argc)
				return sj_err("-n needs a network namespace name");
			sj_netns_name = argv[++i];
		} else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			*json = true;
		} else if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--stats")) {
			sj_show_stats = true;
		} else {
			argv[n++] = argv[i];
		}
	}
	*argc = n;
	return 0;
}

int main(int argc, char **argv)
{
	bool json = false;
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	argc -= 1;
	argv += 1;
	if (global_options(&argc, argv, &json))
		return 1;
	out_init(json);
	libbpf_set_print(libbpf_print);
	for (i = 0; i < NCOMMANDS; i++)
		if (argc > 0 && !strcmp(argv[0], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1) ? 1 : 0;
	sj_err("unknown command \"%s\" (try sojourn help)", argc > 0 ? argv[0] : "");
	return 1;
}
