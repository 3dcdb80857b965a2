// SPDX-License-Identifier: GPL-2.0-only
/*
 * printf and puts, unbuffered: each call is one write(1), so what a
 * program printed before a fault that kills it is on the console, in
 * order. The formatting is the kernel's own vsnprintf (kernel/vsprintf.c),
 * compiled a second time for ring 3.
 */
#include <ulib.h>

/* write() may take less than asked (a pipe, a signal): go on until done */
long write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	size_t done = 0;

	while (done < n) {
		long w = write(fd, p + done, n - done);

		if (w <= 0)
			return done ? (long)done : w;
		done += (size_t)w;
	}
	return (long)done;
}

int printf(const char *fmt, ...)
{
	char small[512], *buf = small;
	va_list ap, again;
	int n;

	va_start(ap, fmt);
	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (buf)
			vsnprintf(buf, (size_t)n + 1, fmt, again);
		else
			buf = small, n = sizeof(small) - 1;
	}
	va_end(again);
	va_end(ap);
	write_all(1, buf, (size_t)n);
	if (buf != small)
		free(buf);
	return n;
}

int puts(const char *s)
{
	printf("%s\n", s);
	return 0;
}

/* decimal, or hex after 0x: the shell's own parser (kernel/kstrtox.c) */
int parse_uint(const char *s, unsigned int *res)
{
	int kstrtouint(const char *s, unsigned int base, unsigned int *res);
	unsigned int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;

	return kstrtouint(s, base, res) ? -1 : 0;
}
