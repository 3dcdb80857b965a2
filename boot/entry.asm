; SPDX-License-Identifier: GPL-2.0-only
; The first instructions: we run at the physical load address with paging
; off, but the code is linked at PAGE_OFFSET + 1 MiB, so every absolute
; address is taken minus PAGE_OFFSET until paging is on.
;
; Early page tables: one page directory of 2 MiB pages mapping the first
; 64 MiB twice, at 0 (identity, so the instruction after "mov cr0" still
; exists) and at PAGE_OFFSET. Once we run in the higher half the identity
; entry is dropped. mm/init.c replaces all of this with the real tables.
;
; KASLR: kaslr_relocate() (kernel/kaslr.c) may copy the image elsewhere and
; return how far it moved (0: it did not). Then we jump into the copy, whose
; absolute addresses it has already adjusted; the copy builds its own early
; tables (the old image becomes free RAM) and goes on to start_kernel.

PAGE_OFFSET	equ 0xC0000000
EARLY_MAP_MB	equ 64
EFER		equ 0xC0000080

extern start_kernel, check_cpu, kaslr_relocate
extern __bss_start, _end
global _start, early_pdpt, boot_stack_top, nx_supported

section .text.entry progbits alloc exec nowrite align=16
_start:
	cli
	cld
	mov	esi, eax			; multiboot magic
	mov	edx, ebx			; multiboot info (physical)

	; loaders zero .bss, but nothing says they must: do it ourselves
	mov	edi, __bss_start - PAGE_OFFSET
	mov	ecx, _end - PAGE_OFFSET
	sub	ecx, edi
	xor	eax, eax
	rep stosb

	mov	[boot_magic - PAGE_OFFSET], esi
	mov	[boot_info - PAGE_OFFSET], edx
	mov	esp, boot_stack_top - PAGE_OFFSET
	call	check_cpu			; refuses, in words, a CPU without PAE


	; page directory: EARLY_MAP_MB of 2 MiB pages, present + writable + PSE;
	; 0xC0000000 higher half, and 0x00000000 identity if %2 (paging off:
	; %1 is PAGE_OFFSET). PDPT entries carry only the present bit.
%macro EARLY_TABLES 2
	mov	edi, early_pd - %1
	mov	eax, 0x83
	mov	ecx, EARLY_MAP_MB / 2
%%fill_pd:
	mov	[edi], eax
	mov	dword [edi + 4], 0
	add	eax, 0x200000
	add	edi, 8
	loop	%%fill_pd
	mov	eax, early_pd - PAGE_OFFSET
	or	eax, 1
%if %2
	mov	[early_pdpt - %1], eax
%endif
	mov	[early_pdpt - %1 + 3 * 8], eax
%endmacro
	EARLY_TABLES PAGE_OFFSET, 1

	mov	eax, cr4
	or	eax, (1 << 5) | (1 << 7)		; PAE, PGE
	mov	cr4, eax
	mov	eax, early_pdpt - PAGE_OFFSET
	mov	cr3, eax

	; NX only if CPUID 0x80000001 EDX bit 20 says so; setting EFER.NXE
	; on a CPU without it would fault, and bit 63 in a PTE would be reserved
	mov	eax, 0x80000000
	cpuid
	cmp	eax, 0x80000001
	jb	.no_nx
	mov	eax, 0x80000001
	cpuid
	test	edx, 1 << 20
	jz	.no_nx
	mov	ecx, EFER
	rdmsr
	or	eax, 1 << 11
	wrmsr
	mov	byte [nx_supported - PAGE_OFFSET], 1
.no_nx:
	; paging on, and WP so that ring 0 too faults on read-only pages.
	; CD and NW cleared: a firmware may hand over with the caches off
	; (Bochs's BIOS does), and nothing after us turns them back on.
	mov	eax, cr0
	and	eax, ~((1 << 30) | (1 << 29))
	or	eax, (1 << 31) | (1 << 16)
	mov	cr0, eax

	mov	eax, .higher_half
	jmp	eax
.higher_half:
	mov	esp, boot_stack_top
	; drop the identity map; PAE caches PDPTEs, so reload CR3
	mov	dword [early_pdpt], 0
	mov	eax, cr3
	mov	cr3, eax

	; KASLR: move the image? (eax = delta, 0 if not). esi, edi, ebx survive
	; the call and carry what the copy's zeroed .bss must learn again.
	mov	esi, [boot_magic]
	mov	edi, [boot_info]
	movzx	ebx, byte [nx_supported]
	push	edi
	push	esi
	call	kaslr_relocate
	add	esp, 8
	test	eax, eax
	jz	.boot
	add	eax, .relocated
	jmp	eax
.relocated:
	; this is the copy: every absolute address below is the copy's own
	mov	esp, boot_stack_top
	mov	[boot_magic], esi
	mov	[boot_info], edi
	mov	[nx_supported], bl
	EARLY_TABLES 0, 0
	mov	eax, early_pdpt - PAGE_OFFSET
	mov	cr3, eax
.boot:
	push	dword [boot_info]
	push	dword [boot_magic]
	xor	ebp, ebp			; ends stack walks
	call	start_kernel
.hang:
	cli
	hlt
	jmp	.hang

section .bss
align 32
early_pdpt:	resq 4
align 4
boot_magic:	resd 1
boot_info:	resd 1
nx_supported:	resb 1

section .bss..page_aligned nobits alloc noexec write align=4096
align 4096
early_pd:	resb 4096
boot_stack:	resb 16384
boot_stack_top:

section .note.GNU-stack noalloc noexec nowrite progbits
