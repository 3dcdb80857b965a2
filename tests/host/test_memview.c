// SPDX-License-Identifier: GPL-2.0-only
/* kernel/shell/memview_draw.c: memview's cells to characters, lines and the legend. */
#include <string.h>
#include "check.h"
#include "../../kernel/shell/memview_draw.c"

TEST(chars_of_classes_and_pids)
{
	CHECK_EQ(memview_char(MV_FREE), '.');
	CHECK_EQ(memview_char(MV_NOT_RAM), '#');
	CHECK_EQ(memview_char(MV_KERNEL), 'K');
	CHECK_EQ(memview_char(MV_PGTABLE), 'P');
	CHECK_EQ(memview_char(MV_ZERO), '0');
	CHECK_EQ(memview_char(MV_SHARED), 'S');
	CHECK_EQ(memview_char(MV_PID + 1), '1');
	CHECK_EQ(memview_char(MV_PID + 9), '9');
	CHECK_EQ(memview_char(MV_PID + 10), 'a');
	CHECK_EQ(memview_char(MV_PID + 35), 'z');
	CHECK_EQ(memview_char(MV_PID + 36), '@');
	CHECK_EQ(memview_char(MV_V_COW), 'C');
	CHECK_EQ(memview_char(MV_V_SHARED_OF(0)), 't');	/* text, shared */
	CHECK_EQ(memview_char(MV_V_SHARED_OF(1)), 'r');
	CHECK_EQ(memview_char(MV_V_SHARED_OF(9)), '?');
	CHECK_EQ(memview_char(MV_NR_CLASSES + 3), '?');
}

TEST(plain_line)
{
	uint16_t cells[] = { MV_KERNEL, MV_KERNEL, MV_PGTABLE, MV_PID + 2, MV_SHARED, MV_FREE };
	char buf[64];

	CHECK_EQ(memview_line(buf, sizeof(buf), 0x00100000, cells, 6, false), 15);
	CHECK(strcmp(buf, "00100000 KKP2S.") == 0);
}

TEST(ansi_line_changes_colour_only_between_runs)
{
	uint16_t cells[] = { MV_KERNEL, MV_KERNEL, MV_FREE };
	char buf[128];
	size_t n = memview_line(buf, sizeof(buf), 0, cells, 3, true);

	CHECK_EQ(n, strlen(buf));
	CHECK(strcmp(buf, "00000000 \033[0m\033[94mKK\033[0m\033[90m.\033[0m") == 0);
}

TEST(truncated_line_stays_terminated)
{
	uint16_t cells[8] = { 0 };
	char buf[6];

	CHECK_EQ(memview_line(buf, sizeof(buf), 0xabcdef01, cells, 8, false), 17);
	CHECK(strcmp(buf, "abcde") == 0);
	CHECK_EQ(memview_line(buf, 0, 0, cells, 8, false), 17);	/* size 0: nothing written */
}

TEST(legends_name_every_class)
{
	char buf[1024];

	memview_legend(buf, sizeof(buf), false, false);
	CHECK(strncmp(buf, "legend: . free  # firmware  K kernel image", 42) == 0);
	CHECK(strstr(buf, "P page table") && strstr(buf, "0 zero") && strstr(buf, "S shared"));
	CHECK(strstr(buf, "1-9 a-z: pid"));
	CHECK(!strstr(buf, "heap"));
	memview_legend(buf, sizeof(buf), true, false);
	CHECK(strstr(buf, "T text") && strstr(buf, "H heap") && strstr(buf, "S stack") &&
	      strstr(buf, "C COW") && strstr(buf, ". absent") && strstr(buf, "t shared RO"));
	CHECK(!strstr(buf, "kernel image"));
	CHECK(buf[strlen(buf) - 1] != ' ');
	memview_legend(buf, sizeof(buf), true, true);
	CHECK(strstr(buf, "\033[41mC\033[0m") == 0 && strstr(buf, "\033[97;41mC\033[0m"));
}

TEST(rows_used_cut_trailing_free)
{
	uint16_t cells[200] = { 0 };

	CHECK_EQ(memview_rows_used(cells, 200, 64), 0);
	cells[0] = MV_NOT_RAM;
	CHECK_EQ(memview_rows_used(cells, 200, 64), 1);
	cells[64] = MV_PID + 1;
	CHECK_EQ(memview_rows_used(cells, 200, 64), 2);
	cells[199] = MV_KALLOC;
	CHECK_EQ(memview_rows_used(cells, 200, 64), 4);
}

TEST(colours)
{
	CHECK_EQ(memview_sgr(MV_PID + 1), memview_sgr(MV_PID + 7));
	CHECK(memview_sgr(MV_PID + 1) != memview_sgr(MV_PID + 2));
	CHECK_EQ(memview_sgr(MV_SHARED), 41);		/* a background: white letters on red */
	CHECK_EQ(memview_sgr(MV_NR_CLASSES + 1), 0);
}

int main(void)
{
	RUN(chars_of_classes_and_pids);
	RUN(plain_line);
	RUN(ansi_line_changes_colour_only_between_runs);
	RUN(truncated_line_stays_terminated);
	RUN(legends_name_every_class);
	RUN(rows_used_cut_trailing_free);
	RUN(colours);
	return check_done();
}
