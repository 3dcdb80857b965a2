// SPDX-License-Identifier: GPL-2.0-only
/*
 * A shell argument as a number (Linux: kstrtouint()), and with the range
 * check every caller needs anyway. Pure: host-tested at the edges; the
 * shell's poweroff CODE and walk VA both come through here.
 *
 * Digits only, the whole string: no sign, no spaces, no trailing junk.
 * Base 16 allows a leading 0x or 0X; base 10 takes no hex. Overflow is
 * caught before it happens, and a range is checked on the complete
 * number, never on a prefix of it.
 */
#include <stdbool.h>
#include <ronx/compiler.h>
#include <ronx/kstrtox.h>

#define UINT_MAX_ (~0u)

static int digit_value(char c, unsigned int base)
{
	int d = c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

	return d >= 0 && (unsigned int)d < base ? d : -1;
}

/* 0 and *res set; -EINVAL if s is not a number in base 10 or 16; -ERANGE past 32 bits. */
int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned int v = 0;
	bool overflow = false;

	if (!s)
		return -EINVAL;
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -EINVAL;
	/* junk anywhere makes it not a number, even where the digits overflow first */
	for (const char *p = s; *p; p++)
		if (digit_value(*p, base) < 0)
			return -EINVAL;
	for (; *s; s++) {
		unsigned int d = (unsigned int)digit_value(*s, base);

		if (v > (UINT_MAX_ - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	if (overflow)
		return -ERANGE;
	*res = v;
	return 0;
}

/* A decimal number: 0 and *res set; -EINVAL if s is not one; -ERANGE if outside [min, max]. */
int kstrtouint_range(const char *s, unsigned int min, unsigned int max, unsigned int *res)
{
	unsigned int v;
	int ret = kstrtouint(s, 10, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*res = v;
	return 0;
}
