/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where a device's frames begin, from its link type (ARPHRD_*): what the
 * programs' cfg_link_layer says (enum sj_link_layer, include/parse.h). */
#ifndef SJ_LINKTYPE_H
#define SJ_LINKTYPE_H

#include <stdbool.h>
#include <linux/types.h>
#include "link.h"

/* enum sj_link_layer for a link type, or -1 for one sojourn cannot parse */
int sj_linktype_layer(unsigned int arphrd);
/* "ether", "none", "ppp", ...; NULL for a type without a name here */
const char *sj_linktype_name(unsigned int arphrd);

/* Sets *layer from the device's link type, as its lookup read it
 * (link.c), for the tc programs or (xdp) the XDP one; refuses in one
 * line, naming why, a device whose frames that hook cannot parse. */
int sj_linktype_get(const struct sj_link *link, bool xdp, __u32 *layer);

#endif
