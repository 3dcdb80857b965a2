/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memview: a picture of memory, one character per page (WeensyOS's
 * memory viewer, grown). The kernel side (kernel/shell/memview.c) fills an array of
 * cells from real data: the allocator's bitmap, every process's page
 * tables walked, the frames' reference counts. The pure side
 * (kernel/shell/memview_draw.c, host-tested) turns cells into characters, colours
 * and lines, and writes the legend.
 */
#ifndef RONX_MEMVIEW_H
#define RONX_MEMVIEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* what one physical page is */
enum {
	MV_FREE,		/* '.' the allocator's, free */
	MV_NOT_RAM,		/* '#' firmware, BIOS, ISA hole: never handed out */
	MV_KERNEL,		/* 'K' the kernel image (_text to _end) */
	MV_BOOT,		/* 'B' the boot loader's modules (initrd) and information */
	MV_PGTABLE,		/* 'P' a page table: the kernel's or a process's (PDPT, PD, PT) */
	MV_KALLOC,		/* '=' other kernel pages: stacks, mm structs, modules, buffers */
	MV_ZERO,		/* '0' the one zero page */
	MV_SHARED,		/* 'S' a user frame mapped by more than one PTE (COW or read-only) */
	/* what one virtual page of a process is */
	MV_V_ABSENT,		/* '.' inside an area, no frame yet (first touch will bring it) */
	MV_V_TEXT,		/* 'T' */
	MV_V_RODATA,		/* 'R' */
	MV_V_DATA,		/* 'D' data and bss */
	MV_V_HEAP,		/* 'H' */
	MV_V_MMAP,		/* 'M' */
	MV_V_STACK,		/* 'S' */
	MV_V_COW,		/* 'C' read-only since fork, the frame shared with another PTE */
	MV_V_ZERO,		/* '0' on the zero page */
	MV_V_SHARED,		/* lower case of the area's letter: a shared read-only frame */
	MV_NR_CLASSES,
	MV_PID = 0x4000,	/* MV_PID + pid: a frame that process alone maps */
};

/* a virtual cell for a shared read-only page of area kind k (text: 't') */
#define MV_V_SHARED_OF(k)	(MV_V_SHARED | ((uint16_t)(k) << 8))

char memview_char(uint16_t cell);
/* ANSI SGR code for the cell's colour (the VGA console maps it to an attribute) */
int memview_sgr(uint16_t cell);
/* "ADDRESS CHARS": one line of n cells, with ANSI colours if ansi; its length */
size_t memview_line(char *buf, size_t size, uint32_t addr, const uint16_t *cells, size_t n,
		    bool ansi);
/* the legend of the physical (virt false) or virtual picture, one line */
size_t memview_legend(char *buf, size_t size, bool virt, bool ansi);
/* how many rows of width cells reach the last page that is not free (the rest is cut) */
size_t memview_rows_used(const uint16_t *cells, size_t n, size_t width);
#endif
