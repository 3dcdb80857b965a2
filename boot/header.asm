; SPDX-License-Identifier: GPL-2.0-only
; Boot headers. GRUB reads the multiboot2 one (grub.cfg says "multiboot2");
; QEMU's -kernel only understands multiboot1, so the fast test boots use that.
; Both loaders load the ELF segments at their physical addresses and jump to
; the ELF entry point translated from virtual to physical through the segment
; that holds it (GRUB and QEMU both do this), i.e. to _start at 1 MiB + x.

section .multiboot progbits alloc noexec nowrite align=8
align 8
mb2_header:
	dd 0xE85250D6			; multiboot2 magic
	dd 0				; architecture: i386 protected mode
	dd mb2_header_end - mb2_header
	dd -(0xE85250D6 + 0 + (mb2_header_end - mb2_header))
	; end tag
	dw 0, 0
	dd 8
mb2_header_end:

align 4
mb1_header:
MB1_FLAGS equ (1 << 0) | (1 << 1)	; page-align modules, give a memory map
	dd 0x1BADB002
	dd MB1_FLAGS
	dd -(0x1BADB002 + MB1_FLAGS)

section .note.GNU-stack noalloc noexec nowrite progbits
