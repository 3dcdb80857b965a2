// SPDX-License-Identifier: GPL-2.0-only
/* include/ronx/stackprotector.h: the canary made from a random word and the TSC. */
#include <stdint.h>
#include "check.h"
#include <ronx/stackprotector.h>

TEST(never_zero)
{
	/* 0 is what __stack_chk_guard holds before boot sets it */
	CHECK(stack_canary_mix(0, 0) != 0);
	CHECK(stack_canary_mix(1, 0xffffffffu) != 0);		/* sums to 0 */
	CHECK(stack_canary_mix(0x80000000u, 0x180000000ull) != 0);
}

TEST(keeps_the_low_byte)
{
	/* Linux's 32-bit CANARY_MASK is 0xffffffff: no zero byte forced */
	CHECK_EQ(stack_canary_mix(0x12345678u, 0), 0x12345678u);
	CHECK_EQ(stack_canary_mix(0, 0xab), 0xab);
}

TEST(the_tsc_moves_a_weak_random)
{
	/* a source that always said 5 still gives a new canary each boot */
	CHECK(stack_canary_mix(5, 1000) != stack_canary_mix(5, 1001));
	CHECK(stack_canary_mix(5, 1000) != stack_canary_mix(6, 1000));
	CHECK_EQ(stack_canary_mix(5, 1000), 1005);
}

TEST(only_the_low_half_of_the_tsc)
{
	/* the canary is 32 bits: as in Linux's 32-bit sum, the high half drops out */
	CHECK_EQ(stack_canary_mix(1, (1ull << 32) | 2), 3);
}

int main(void)
{
	RUN(never_zero);
	RUN(keeps_the_low_byte);
	RUN(the_tsc_moves_a_weak_random);
	RUN(only_the_low_half_of_the_tsc);
	return check_done();
}
