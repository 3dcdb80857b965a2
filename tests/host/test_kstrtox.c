// SPDX-License-Identifier: GPL-2.0-only
/* kernel/kstrtox.c: shell numbers at the edges of their range. */
#include <stdbool.h>
#include "check.h"
#include "../../kernel/kstrtox.c"

static int parse(const char *s, unsigned int min, unsigned int max, unsigned int *v)
{
	*v = 0xdeadbeef;
	return kstrtouint_range(s, min, max, v);
}

TEST(edges_of_the_range)
{
	unsigned int v;

	CHECK_EQ(parse("0", 0, 127, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(parse("127", 0, 127, &v), 0);
	CHECK_EQ(v, 127);
	CHECK_EQ(parse("128", 0, 127, &v), -ERANGE);
	CHECK_EQ(v, 0xdeadbeef);	/* untouched on error */
	/* issue 10: the old check ran before the last digit was added */
	CHECK_EQ(parse("999", 0, 127, &v), -ERANGE);
	CHECK_EQ(parse("1000", 0, 127, &v), -ERANGE);
	CHECK_EQ(parse("5", 10, 20, &v), -ERANGE);	/* below min */
	CHECK_EQ(parse("007", 0, 127, &v), 0);		/* leading zeros are decimal */
	CHECK_EQ(v, 7);
}

TEST(thirty_two_bits)
{
	unsigned int v;

	CHECK_EQ(parse("4294967295", 0, ~0u, &v), 0);
	CHECK_EQ(v, 4294967295u);
	CHECK_EQ(parse("4294967296", 0, ~0u, &v), -ERANGE);	/* wraps to 0 */
	CHECK_EQ(parse("4294967424", 0, 127, &v), -ERANGE);	/* wraps to 128 */
	CHECK_EQ(parse("4294967297", 0, 127, &v), -ERANGE);	/* wraps to 1 */
	CHECK_EQ(parse("99999999999999999999999", 0, ~0u, &v), -ERANGE);
	CHECK_EQ(v, 0xdeadbeef);
}

TEST(not_numbers)
{
	unsigned int v;

	CHECK_EQ(parse("", 0, 127, &v), -EINVAL);
	CHECK_EQ(kstrtouint_range(NULL, 0, 127, &v), -EINVAL);
	CHECK_EQ(parse("-1", 0, 127, &v), -EINVAL);
	CHECK_EQ(parse("+1", 0, 127, &v), -EINVAL);
	CHECK_EQ(parse("0x10", 0, 127, &v), -EINVAL);	/* no hex */
	CHECK_EQ(parse("12a", 0, 127, &v), -EINVAL);	/* trailing junk */
	CHECK_EQ(parse("1 2", 0, 127, &v), -EINVAL);
	CHECK_EQ(parse(" 1", 0, 127, &v), -EINVAL);
	CHECK_EQ(parse("nine", 0, 127, &v), -EINVAL);
	CHECK_EQ(parse("99999999999x", 0, 127, &v), -EINVAL);	/* junk wins over overflow */
	CHECK_EQ(v, 0xdeadbeef);
}

TEST(hex_for_addresses)
{
	unsigned int v = 0;

	CHECK_EQ(kstrtouint("0xc0100000", 16, &v), 0);
	CHECK_EQ(v, 0xc0100000u);
	CHECK_EQ(kstrtouint("C00A0000", 16, &v), 0);	/* 0x optional, either case */
	CHECK_EQ(v, 0xc00a0000u);
	CHECK_EQ(kstrtouint("0Xffffffff", 16, &v), 0);
	CHECK_EQ(v, 0xffffffffu);
	CHECK_EQ(kstrtouint("0x00000000ffffffff", 16, &v), 0);	/* leading zeros don't overflow */
	CHECK_EQ(kstrtouint("0x100000000", 16, &v), -ERANGE);
	CHECK_EQ(kstrtouint("0x1234567890", 16, &v), -ERANGE);
	CHECK_EQ(v, 0xffffffffu);	/* untouched on error */
	CHECK_EQ(kstrtouint("0x", 16, &v), -EINVAL);
	CHECK_EQ(kstrtouint("", 16, &v), -EINVAL);
	CHECK_EQ(kstrtouint("0x12g", 16, &v), -EINVAL);
	CHECK_EQ(kstrtouint("xyz", 16, &v), -EINVAL);
	CHECK_EQ(kstrtouint("0x0x1", 16, &v), -EINVAL);
	CHECK_EQ(kstrtouint("ff", 10, &v), -EINVAL);	/* base 10 takes no hex digit */
}

int main(void)
{
	RUN(edges_of_the_range);
	RUN(thirty_two_bits);
	RUN(not_numbers);
	RUN(hex_for_addresses);
	return check_done();
}
