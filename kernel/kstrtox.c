// SPDX-License-Identifier: GPL-2.0-only
/*
 * A shell argument as a number (Linux: kstrtouint(), with the range check
 * every caller needs anyway). Pure: host-tested at the edges.
 *
 * Decimal digits only, the whole string: no sign, no spaces, no hex, no
 * trailing junk. Overflow is caught before it happens, and the range is
 * checked on the complete number, never on a prefix of it.
 */
#include <stdbool.h>
#include <ronx/compiler.h>
#include <ronx/kstrtox.h>

#define UINT_MAX_ (~0u)

/* 0 and *res set; -EINVAL if s is not a number; -ERANGE if outside [min, max]. */
int kstrtouint_range(const char *s, unsigned int min, unsigned int max, unsigned int *res)
{
	unsigned int v = 0;
	bool overflow = false;

	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT_MAX_ - d) / 10)
			overflow = true;
		else
			v = v * 10 + d;
	}
	if (overflow || v < min || v > max)
		return -ERANGE;
	*res = v;
	return 0;
}
