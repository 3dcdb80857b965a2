// SPDX-License-Identifier: GPL-2.0-only
/* The C string functions, freestanding. gcc may emit calls to memcpy/memset. */
#include <ronx/string.h>
#include <stdint.h>
#include <ronx/export.h>

/*
 * memset and memcpy with rep stos/movs: four bytes a step, then the tail
 * (Linux i386's memset and memcpy do the same). A byte loop cost a page
 * fault's zeroing of a new frame and a copy-on-write's copy about 20k
 * cycles each under TCG (docs/bench.md). Every entry to the kernel has
 * cleared the direction flag (boot/traps.asm).
 */
void *memset(void *s, int c, size_t n)
{
	uint32_t v = (unsigned char)c * 0x01010101u;
	size_t words = n / 4;
	void *d = s;

	__asm__ volatile("rep stosl\n\tmov %3, %%ecx\n\trep stosb"
			 : "+D"(d), "+c"(words) : "a"(v), "r"((unsigned int)(n % 4)) : "memory");
	return s;
}

/* Forward, four bytes a step: memmove() relies on that when dst is below src. */
void *memcpy(void *dst, const void *src, size_t n)
{
	size_t words = n / 4;
	void *d = dst;

	__asm__ volatile("rep movsl\n\tmov %3, %%ecx\n\trep movsb"
			 : "+D"(d), "+S"(src), "+c"(words) : "r"((unsigned int)(n % 4)) : "memory");
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, (size_t)-1);
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c ? 0 : (char *)s;
}

char *strrchr(const char *s, int c)
{
	const char *last = 0;

	do {
		if (*s == (char)c)
			last = s;
	} while (*s++);
	return (char *)last;
}

/* gcc may emit calls to these in modules too */
EXPORT_SYMBOL(memset);
EXPORT_SYMBOL(memcpy);
EXPORT_SYMBOL(memmove);
EXPORT_SYMBOL(memcmp);
EXPORT_SYMBOL(strlen);
EXPORT_SYMBOL(strcmp);
