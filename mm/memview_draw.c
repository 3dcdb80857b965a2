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

static const struct {
	char c;
	int sgr;		/* ANSI foreground (and background) */
	uint8_t vga;		/* VGA attribute: background << 4 | foreground */
	const char *name;
} classes[MV_NR_CLASSES] = {
	[MV_FREE] = { '.', 90, 0x08, "free" },
	[MV_NOT_RAM] = { '#', 37, 0x07, "firmware/reserved" },
	[MV_KERNEL] = { 'K', 94, 0x09, "kernel image" },
	[MV_BOOT] = { 'B', 36, 0x03, "boot modules (initrd)" },
	[MV_PGTABLE] = { 'P', 33, 0x0e, "page table" },
	[MV_KALLOC] = { '=', 34, 0x01, "kernel (stacks, mm, modules)" },
	[MV_ZERO] = { '0', 97, 0x0f, "zero page" },
	[MV_SHARED] = { 'S', 41, 0x4f, "shared by >1 PTE (COW, text)" },
	[MV_V_ABSENT] = { '.', 90, 0x08, "no frame yet" },
	[MV_V_TEXT] = { 'T', 94, 0x09, "text" },
	[MV_V_RODATA] = { 'R', 36, 0x03, "rodata" },
	[MV_V_DATA] = { 'D', 32, 0x02, "data/bss" },
	[MV_V_HEAP] = { 'H', 33, 0x0e, "heap" },
	[MV_V_MMAP] = { 'M', 35, 0x05, "mmap" },
	[MV_V_STACK] = { 'S', 91, 0x0c, "stack" },
	[MV_V_COW] = { 'C', 41, 0x4f, "COW-shared (a write copies)" },
	[MV_V_ZERO] = { '0', 97, 0x0f, "zero page" },
	[MV_V_SHARED] = { 't', 45, 0x5f, "shared read-only (lower case)" },
};

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
	return cls < MV_NR_CLASSES ? classes[cls].c : '?';
}

/* six colours in turn for the pids, none of them a class's background */
static const int pid_sgr[] = { 92, 93, 95, 96, 91, 32 };
static const uint8_t pid_vga[] = { 0x0a, 0x0e, 0x0d, 0x0b, 0x0c, 0x02 };

int memview_sgr(uint16_t cell)
{
	if (cell & MV_PID)
		return pid_sgr[(cell & (MV_PID - 1)) % 6];
	return (cell & 0xff) < MV_NR_CLASSES ? classes[cell & 0xff].sgr : 0;
}

uint8_t memview_vga_attr(uint16_t cell)
{
	if (cell & MV_PID)
		return pid_vga[(cell & (MV_PID - 1)) % 6];
	return (cell & 0xff) < MV_NR_CLASSES ? classes[cell & 0xff].vga : 0x07;
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

static void finish(struct out *o)
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
			     classes[c].name, ansi);
	if (!virt)
		puts_(&o, "1-9 a-z: the process with that pid alone");
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
