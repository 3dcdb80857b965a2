// SPDX-License-Identifier: GPL-2.0-only
/*
 * memview's pure half: cells to characters, colours, lines and the
 * legend (include/ronx/memview.h). No kernel state: tests/host/
 * test_memview.c runs it on the host.
 */
#include <ronx/memview.h>

#define ESC	"\033["

/* the VMA kinds' letters, as enum vma_kind orders them (mm_types.h) */
static const char kind_letter[] = "TRDDHMS";

/* each class's character, ANSI colour (41, 45: a background) and name, in enum order */
static const char class_char[MV_NR_CLASSES + 1] = ".#KBP=0S.TRDHMSC0t";
static const uint8_t class_sgr[MV_NR_CLASSES] = {
	90, 37, 94, 36, 33, 34, 97, 41, 90, 94, 36, 32, 33, 35, 91, 41, 97, 45,
};
static const char class_names[] = "free\0firmware\0kernel image\0initrd\0page table\0"
	"kernel\0zero\0shared\0absent\0text\0rodata\0data\0heap\0mmap\0"
	"stack\0COW\0zero\0shared RO";

static const char *class_name(unsigned cls)
{
	const char *p = class_names;

	while (cls--)
		while (*p++)
			;
	return p;
}

/* the pids' letters: 1-9, then a-z; '@' past 35 */
static char pid_char(unsigned pid)
{
	if (pid >= 1 && pid <= 9)
		return (char)('0' + pid);
	if (pid >= 10 && pid <= 35)
		return (char)('a' + pid - 10);
	return '@';
}

char memview_char(uint16_t cell)
{
	unsigned cls = cell & 0xff;

	if (cell & MV_PID)
		return pid_char(cell & (MV_PID - 1));
	if (cls == MV_V_SHARED) {
		unsigned k = cell >> 8;

		return k < sizeof(kind_letter) - 1 ? (char)(kind_letter[k] | 0x20) : '?';
	}
	return cls < MV_NR_CLASSES ? class_char[cls] : '?';
}

/* six colours in turn for the pids, none of them a class's background */
static const uint8_t pid_sgr[] = { 92, 93, 95, 96, 91, 32 };

int memview_sgr(uint16_t cell)
{
	if (cell & MV_PID)
		return pid_sgr[(cell & (MV_PID - 1)) % 6];
	return (cell & 0xff) < MV_NR_CLASSES ? class_sgr[cell & 0xff] : 0;
}

/* A bounded writer: what does not fit is dropped, the length counts all of it. */
struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void puts_(struct out *o, const char *s)
{
	while (*s)
		put(o, *s++);
}

static void put_num(struct out *o, unsigned v)
{
	char d[12];
	int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		put(o, d[--n]);
}

static void put_sgr(struct out *o, int sgr)
{
	puts_(o, ESC);
	if (sgr == 41 || sgr == 45) {	/* a background: white letters on it */
		puts_(o, "97;");
	}
	put_num(o, (unsigned)sgr);
	put(o, 'm');
}

static inline __attribute__((always_inline)) void finish(struct out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
}

size_t memview_line(char *buf, size_t size, uint32_t addr, const uint16_t *cells, size_t n,
		    bool ansi)
{
	struct out o = { buf, size, 0 };
	int cur = -1;

	for (int shift = 28; shift >= 0; shift -= 4)
		put(&o, "0123456789abcdef"[(addr >> shift) & 0xf]);
	put(&o, ' ');
	for (size_t i = 0; i < n; i++) {
		int sgr = memview_sgr(cells[i]);

		if (ansi && sgr != cur) {
			puts_(&o, ESC "0m");
			put_sgr(&o, sgr);
			cur = sgr;
		}
		put(&o, memview_char(cells[i]));
	}
	if (ansi)
		puts_(&o, ESC "0m");
	finish(&o);
	return o.len;
}

static void legend_entry(struct out *o, uint16_t cell, const char *name, bool ansi)
{
	if (ansi) {
		put_sgr(o, memview_sgr(cell));
		put(o, memview_char(cell));
		puts_(o, ESC "0m");
	} else {
		put(o, memview_char(cell));
	}
	put(o, ' ');
	puts_(o, name);
	puts_(o, "  ");
}

size_t memview_legend(char *buf, size_t size, bool virt, bool ansi)
{
	struct out o = { buf, size, 0 };
	unsigned first = virt ? MV_V_ABSENT : MV_FREE, last = virt ? MV_NR_CLASSES : MV_V_ABSENT;

	puts_(&o, "legend: ");
	for (unsigned c = first; c < last; c++)
		legend_entry(&o, (uint16_t)(c == MV_V_SHARED ? MV_V_SHARED_OF(0) : c),
			     class_name(c), ansi);
	if (!virt)
		puts_(&o, "1-9 a-z: pid");
	while (o.len && o.len <= o.size && o.buf[o.len - 1] == ' ')
		o.len--;
	finish(&o);
	return o.len;
}

size_t memview_rows_used(const uint16_t *cells, size_t n, size_t width)
{
	size_t last = 0;

	for (size_t i = 0; i < n; i++)
		if (cells[i] != MV_FREE)
			last = i + 1;
	return width ? (last + width - 1) / width : 0;
}
