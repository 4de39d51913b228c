// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What each device should have: the first rule of sojourn.conf that
 * matches it, and the attach, replace or detach that makes it so, with a
 * retry that backs off when an attach fails.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "daemon.h"

static const struct sj_rule *rule_for(const struct daemon *dm,
				      const struct dev *d, int *idx)
{
	const struct ns *n = ns_of(dm, d->cookie);
	int i;

	if (dm->only_iface[0] && (n != &dm->ns[0] || strcmp(d->name, dm->only_iface)))
		return NULL;
	for (i = 0; n && i < dm->cfg.nrules; i++)
		if (sj_rule_matches(&dm->cfg.rules[i], d->name, d->kind, n->name)) {
			*idx = i;
			return &dm->cfg.rules[i];
		}
	return NULL;
}

static void attach_dir(struct daemon *dm, struct dev *d,
		       const struct sj_rule *r, int dir, const char *where)
{
	unsigned int bit = 1u << dir;
	struct sj_args a;
	char text[160];

	sj_rule_args(r, dir, true, &a);
	args_text(&a, text, sizeof(text));
	if (run(dm, d, "attach", &a)) {
		int wait = d->failures < 6 ? 1 << d->failures : SJ_RETRY_MAX_S;

		d->failures++;
		d->retry_at = time(NULL) + wait;
		logd(dm, LOG_ERR, d, "attach %s failed, retry in %d s", sj_dir_name(dir), wait);
		return;
	}
	d->ours |= bit;
	d->failures = 0;
	dm->state_dirty = true;
	snprintf(d->applied[dir], sizeof(d->applied[dir]), "%s", text);
	logd(dm, LOG_INFO, d, "attached %s: %s (%s)", sj_dir_name(dir), text, where);
}

void detach_dir(struct daemon *dm, struct dev *d, int dir, const char *why)
{
	struct sj_args a = { .n = 0 };

	if (dir == SJ_DIR_INGRESS)
		a.v[a.n++] = "ingress";
	a.v[a.n] = NULL;
	if (run(dm, d, "detach", &a) == 0) {
		d->ours &= ~(1u << dir);
		d->applied[dir][0] = '\0';
		dm->state_dirty = true;
		logd(dm, LOG_INFO, d, "detached %s (%s)", sj_dir_name(dir), why);
	}
}

static void reconcile(struct daemon *dm, struct dev *d)
{
	char where[SJ_PATH_MAX + 32];
	const struct sj_rule *r;
	int idx = -1, dir;

	d->dirty = false;
	r = rule_for(dm, d, &idx);
	if (r)
		snprintf(where, sizeof(where), "rule at %s:%d", dm->cfg.path, r->line);
	for (dir = 0; dir < 2; dir++)
		if (pinned(d->cookie, d->ifindex, dir) && !(d->ours & (1u << dir)) &&
		    !adoptable(dm, d, dir))
			d->manual |= 1u << dir;
	for (dir = 0; dir < 2; dir++) {
		unsigned int bit = 1u << dir;
		bool want = r && (r->dirs & bit), pin = pinned(d->cookie, d->ifindex, dir);

		if (pin && !(d->ours & bit) && adoptable(dm, d, dir)) {
			d->ours |= bit;
			dm->state_dirty = true;
			logd(dm, LOG_INFO, d, "adopted %s attachment", sj_dir_name(dir));
		}
		if (!pin && (d->ours & bit)) {
			logd(dm, LOG_NOTICE, d, "%s attachment removed by someone else",
			     sj_dir_name(dir));
			d->ours &= ~bit;
			d->applied[dir][0] = '\0';
			dm->state_dirty = true;
		}
		if (pin && !(d->ours & bit)) {
			if (want && !(d->told & bit))
				logd(dm, LOG_NOTICE, d, "%s attached by hand: left alone",
				     sj_dir_name(dir));
			d->told |= bit;
			continue;
		}
		d->manual &= ~bit;
		d->told &= ~bit;
		if (!want) {
			if (pin)
				detach_dir(dm, d, dir, r ? "rule does not ask for this direction" :
					   "no rule matches any more");
			continue;
		}
		if (!pin) {
			/* a device an operator attached by hand is theirs,
			 * every direction of it */
			if (d->manual)
				continue;
			if (d->up && time(NULL) >= d->retry_at)
				attach_dir(dm, d, r, dir, where);
			continue;
		}
		/* replace: in place where it can, detached and attached
		 * again where the mode, hook or table size changed */
		{
			struct sj_args a;
			char text[160];

			sj_rule_args(r, dir, true, &a);
			args_text(&a, text, sizeof(text));
			if (!strcmp(text, d->applied[dir]))
				continue;
			if (run(dm, d, "replace", &a) == 0) {
				snprintf(d->applied[dir], sizeof(d->applied[dir]), "%s", text);
				logd(dm, LOG_INFO, d, "replaced %s (%s)", text, where);
			}
		}
	}
}

void reconcile_dirty(struct daemon *dm)
{
	time_t now = time(NULL);
	int i;

	for (i = 0; i < dm->ndevs; i++)
		if (dm->devs[i].dirty || (dm->devs[i].retry_at && now >= dm->devs[i].retry_at))
			reconcile(dm, &dm->devs[i]);
	if (dm->state_dirty)
		state_write(dm);
}
