// SPDX-License-Identifier: GPL-2.0-only
/* kernel/vsprintf.c against the host's own printf. */
#include <string.h>
#include <stdio.h>
#include "check.h"

#define vsnprintf ronx_vsnprintf
#define snprintf ronx_snprintf
#include "../../kernel/vsprintf.c"
#undef vsnprintf
#undef snprintf

#define SAME(...) do {							\
	char a[128], b[128];						\
	int na = ronx_snprintf(a, sizeof(a), __VA_ARGS__);		\
	int nb = snprintf(b, sizeof(b), __VA_ARGS__);			\
	if (strcmp(a, b) || na != nb)					\
		printf("# got '%s' (%d), libc '%s' (%d)\n", a, na, b, nb); \
	CHECK(!strcmp(a, b) && na == nb);				\
} while (0)

TEST(integers)
{
	SAME("%d %i %u", -42, 7, 4000000000u);
	SAME("%5d|%-5d|%05d", 42, 42, 42);
	SAME("%x %X %#x %08x", 0xbeefu, 0xbeefu, 0x10u, 0xc0100000u);
	SAME("%lx %lu %llu %llx", 0xc0000000ul, 123ul, 1ull << 40, 0x8000000000000000ull);
	SAME("%+d % d %o", 5, 5, 8);
	SAME("%d", 0);
	SAME("%.0d|", 0);
}

TEST(strings_and_chars)
{
	SAME("%s|%10s|%-10s|%.3s", "abc", "abc", "abc", "abcdef");
	SAME("%c%c%%", 'o', 'k');
	SAME("%*d|%-*s|", 6, 42, 4, "x");
	SAME("%9llu%c ", 640ull, 'K');
}

TEST(truncation_counts_all)
{
	char small[5];
	CHECK_EQ(ronx_snprintf(small, sizeof(small), "%s", "abcdefgh"), 8);
	CHECK(!strcmp(small, "abcd"));
	CHECK_EQ(ronx_snprintf(NULL, 0, "%d", 12345), 5);
}

/* %pE has no libc twin: the escaped text itself. */
#define ESCAPED(want, ...) do {						\
	char a[128];							\
	int na = ronx_snprintf(a, sizeof(a), __VA_ARGS__);		\
	if (strcmp(a, want) || na != (int)strlen(want))			\
		printf("# got '%s' (%d), want '%s'\n", a, na, want);	\
	CHECK(!strcmp(a, want) && na == (int)strlen(want));		\
} while (0)

TEST(escaped_strings)
{
	/* issue 20: a name that forges a prompt line and clears the screen */
	ESCAPED("\\nronx> \\e[2Jpwn[3]", "%pE[%d]", "\nronx> \033[2Jpwn", 3);
	ESCAPED("hello", "%pE", "hello");
	ESCAPED("\\r\\t\\v\\f\\a", "%pE", "\r\t\v\f\a");
	ESCAPED("\\001\\037\\177\\200\\377", "%pE", "\001\037\177\200\377");
	ESCAPED("a\\b ~", "%pE", "a\\b ~");		/* printable: as it is, as Linux's */
	ESCAPED("(null)", "%pE", (char *)NULL);
	/* a width pads what is printed */
	ESCAPED("   \\e|", "%5pE|", "\033");
	ESCAPED("\\e   |", "%-5pE|", "\033");
	ESCAPED("x\\e|", "%-2pE|", "x\033");	/* wider than the width: no padding */
	/* %p alone is still a pointer: hex digits, then the E */
	ESCAPED(sizeof(void *) == 8 ? "000000000000abcd E" : "0000abcd E", "%p E", (void *)0xabcd);
}

TEST(escaped_output_has_no_control_bytes)
{
	char name[2] = { 0, 0 }, out[8];

	for (int c = 1; c < 256; c++) {
		name[0] = (char)c;
		ronx_snprintf(out, sizeof(out), "%pE", name);
		for (char *p = out; *p; p++)
			CHECK((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
	}
}

int main(void)
{
	RUN(integers);
	RUN(strings_and_chars);
	RUN(truncation_counts_all);
	RUN(escaped_strings);
	RUN(escaped_output_has_no_control_bytes);
	return check_done();
}
