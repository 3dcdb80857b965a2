// SPDX-License-Identifier: GPL-2.0-only
/* The VGA text console at 0xb8000 (reached through the direct map). */
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

void vga_putc(char c)
{
	vga_putc_attr(c, ATTR >> 8);
}

/* One character in a colour of its own (memview's picture): attr is bg << 4 | fg. */
void vga_putc_attr(char c, unsigned char attr)
{
	if (c == '\n') {
		col = 0;
		row++;
	} else if (c == '\b') {
		if (col)
			col--;
	} else if (c != '\r') {
		vga[row * COLS + col] = (uint16_t)(attr << 8) | (uint8_t)c;
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
