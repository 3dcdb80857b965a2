/* SPDX-License-Identifier: GPL-2.0-only */
/* Symbols the linker script (linker.ld) defines around the kernel's sections. */
#ifndef RONX_SECTIONS_H
#define RONX_SECTIONS_H

extern char _text[], _etext[];
extern char __start_rodata[], __end_rodata[];
extern char __start_ro_after_init[], __end_ro_after_init[];
extern char _sdata[], _edata[];
extern char __init_begin[], __init_end[];
extern char __bss_start[], __bss_stop[];
extern char _end[];
#endif
