/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * errmsg.h - one-line loader error messages into a caller's buffer.
 */
#ifndef RONX_ERRMSG_H
#define RONX_ERRMSG_H
#include <stddef.h>

/* Where a loader step writes its one-line complaint. */
struct errmsg {
	char *buf;
	size_t size;
};

/*
 * Format into e->buf (always NUL-terminated, truncated to fit) and return
 * -1, so a check can say `return errf(e, "...", ...);`. Conversions:
 * %s string, %u unsigned decimal, %x unsigned hex with a 0x prefix.
 * Numbers are passed as unsigned int.
 */
int errf(struct errmsg *e, const char *fmt, ...);

#endif
