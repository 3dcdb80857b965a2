// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VGA text console at 0xb8000 (reached through the direct map). Like
 * Linux's console it reads a few of the ANSI escapes a serial terminal
 * understands: ESC[...m sets the colour (SGR 0, 30-37, 40-47, 90-97),
 * ESC[2J clears the screen, ESC[H goes home; so one text (memview's
 * colour picture) serves both screens. Anything else after ESC[ is dropped.
 */
#include <stdint.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/console.h>
#include <ronx/printk.h>

#define COLS	80
#define ROWS	25
#define ATTR	0x0700		/* light grey on black */

static uint16_t *const vga = (uint16_t *)(PAGE_OFFSET + 0xB8000);
static int row, col;
static uint16_t attr = ATTR;	/* what the next character is drawn in */

/* An escape being read: 1 after ESC, 2 inside ESC[; its numbers. */
static int esc, nparam, param[4];

/* ANSI's colour order (black red green yellow blue magenta cyan white) in VGA's */
static const uint8_t ansi_vga[8] = { 0, 4, 2, 6, 1, 5, 3, 7 };

void vga_init(void)
{
	for (int i = 0; i < COLS * ROWS; i++)
		vga[i] = ATTR | ' ';
	row = col = 0;
}

static void scroll(void)
{
	memmove(vga, vga + COLS, (ROWS - 1) * COLS * 2);
	for (int i = 0; i < COLS; i++)
		vga[(ROWS - 1) * COLS + i] = ATTR | ' ';
	row = ROWS - 1;
}

static void sgr(int p)
{
	if (p == 0)
		attr = ATTR;
	else if (p >= 30 && p <= 37)
		attr = (uint16_t)((attr & 0xf000) | ansi_vga[p - 30] << 8);
	else if (p >= 90 && p <= 97)
		attr = (uint16_t)((attr & 0xf000) | (ansi_vga[p - 90] | 8) << 8);
	else if (p >= 40 && p <= 47)
		attr = (uint16_t)((attr & 0x0f00) | ansi_vga[p - 40] << 12);
}

/* One byte of an escape sequence. */
static void escape(char c)
{
	if (esc == 1) {
		esc = c == '[' ? 2 : 0;
		nparam = param[0] = 0;
	} else if (c >= '0' && c <= '9') {
		param[nparam] = param[nparam] * 10 + (c - '0');
	} else if (c == ';') {
		if (nparam < 3)
			param[++nparam] = 0;
	} else {
		esc = 0;
		if (c == 'm')
			for (int i = 0; i <= nparam; i++)
				sgr(param[i]);
		else if (c == 'J' && param[0] == 2)
			vga_init();
		else if (c == 'H')
			row = col = 0;
	}
}

void vga_putc(char c)
{
	if (esc) {
		escape(c);
		return;
	}
	if (c == '\033') {
		esc = 1;
	} else if (c == '\n') {
		col = 0;
		row++;
	} else if (c == '\b') {
		if (col)
			col--;
	} else if (c != '\r') {
		vga[row * COLS + col] = attr | (uint8_t)c;
		if (++col == COLS) {
			col = 0;
			row++;
		}
	}
	if (row == ROWS)
		scroll();
}

void console_write(const char *s, size_t n)
{
	unsigned long flags = console_lock_irqsave();

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
		vga_putc(s[i]);
	}
	console_unlock_irqrestore(flags);
}
