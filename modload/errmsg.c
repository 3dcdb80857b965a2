// SPDX-License-Identifier: GPL-2.0-only
/*
 * errmsg.c - a printf with three conversions, for loader errors.
 *
 * Uses the compiler's own varargs builtins so this file needs no header
 * beyond the freestanding ones.
 */
#include "errmsg.h"

static void put(struct errmsg *e, size_t *pos, char c)
{
	if (*pos + 1 < e->size)
		e->buf[(*pos)++] = c;
}

static void put_str(struct errmsg *e, size_t *pos, const char *s)
{
	if (!s)
		s = "(null)";
	while (*s)
		put(e, pos, *s++);
}

static void put_num(struct errmsg *e, size_t *pos, unsigned int v, unsigned int base)
{
	char digits[12];
	int n = 0;

	if (base == 16)
		put_str(e, pos, "0x");
	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		put(e, pos, digits[--n]);
}

int errf(struct errmsg *e, const char *fmt, ...)
{
	__builtin_va_list ap;
	size_t pos = 0;

	if (!e || !e->buf || !e->size)
		return -1;
	__builtin_va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%' || !fmt[1]) {
			put(e, &pos, *fmt);
			continue;
		}
		switch (*++fmt) {
		case 's':
			put_str(e, &pos, __builtin_va_arg(ap, const char *));
			break;
		case 'u':
			put_num(e, &pos, __builtin_va_arg(ap, unsigned int), 10);
			break;
		case 'x':
			put_num(e, &pos, __builtin_va_arg(ap, unsigned int), 16);
			break;
		default:
			put(e, &pos, *fmt);
		}
	}
	__builtin_va_end(ap);
	e->buf[pos] = '\0';
	return -1;
}
