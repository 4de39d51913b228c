/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where a device's frames begin, from its link type (ARPHRD_*): what the
 * programs' cfg_link_layer says (enum sj_link_layer, include/parse.h). */
#ifndef SJ_LINKTYPE_H
#define SJ_LINKTYPE_H

#include <linux/types.h>
#include "link.h"

/* enum sj_link_layer for a link type, or -1 for one sojourn cannot parse */
int sj_linktype_layer(unsigned int arphrd);
/* "ether", "none", "ppp", ...; NULL for a type without a name here */
const char *sj_linktype_name(unsigned int arphrd);

/* Sets *layer from the device's link type, as its lookup read it
 * (link.c); refuses in one line, naming the type, a device whose frames
 * sojourn cannot parse. */
int sj_linktype_get(const struct sj_link *link, __u32 *layer);

#endif
