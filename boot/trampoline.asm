; SPDX-License-Identifier: GPL-2.0-only
; Where another CPU starts (Linux: arch/x86/realmode/rm/trampoline_32.S).
;
; A STARTUP IPI wakes a CPU in real mode at CS:IP = (page >> 4):0, so this
; code must sit on a page below 1 MiB. kernel/cpu/smpboot.c copies it there
; (it lives in .rodata and never runs where it is linked), fills in the
; header below, and maps the page at its own physical address, RO+X,
; for as long as CPUs start: the instruction after "mov cr0" (paging on)
; is fetched at that low address through the kernel's page tables.
;
; The CPU then gets exactly the boot CPU's CR4 (PAE, PGE, SMEP, SMAP),
; CR3 (the kernel's page tables), EFER (NXE) and CR0 (PG, WP), and jumps
; to start_secondary(struct cpu *) on its own stack in the higher half.
; Everything is addressed from EBX, the page's physical address.

KERNEL_CS	equ 0x08
KERNEL_DS	equ 0x10
MSR_EFER	equ 0xC0000080

global trampoline_start, trampoline_end, trampoline_header
global tr_gdt_desc, tr_far_ptr, tr_protected, tr_gdt

section .rodata.trampoline progbits alloc noexec nowrite align=16
bits 16
trampoline_start:
	cli
	cld
	mov	ax, cs
	mov	ds, ax
	movzx	ebx, ax
	shl	ebx, 4				; this page's physical address
	o32 lgdt [tr_gdt_desc - trampoline_start]
	mov	eax, cr0
	or	eax, 1				; protected mode, paging still off
	mov	cr0, eax
	o32 jmp far [tr_far_ptr - trampoline_start]

bits 32
tr_protected:
	mov	ax, KERNEL_DS
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	fs, ax
	mov	gs, ax
	mov	eax, [ebx + tr_cr4 - trampoline_start]
	mov	cr4, eax			; PAE before paging, as the boot CPU has it
	mov	eax, [ebx + tr_cr3 - trampoline_start]
	mov	cr3, eax
	mov	eax, [ebx + tr_efer - trampoline_start]
	test	eax, eax			; no EFER to write on a CPU without NX
	jz	.no_efer
	mov	edx, [ebx + tr_efer - trampoline_start + 4]
	mov	ecx, MSR_EFER
	wrmsr
.no_efer:
	mov	eax, [ebx + tr_cr0 - trampoline_start]
	mov	cr0, eax			; paging on: fetched next through the identity map
	mov	esp, [ebx + tr_stack - trampoline_start]
	push	dword [ebx + tr_cpu - trampoline_start]
	push	dword 0				; no return: start_secondary never comes back
	xor	ebp, ebp			; ends stack walks
	jmp	[ebx + tr_entry - trampoline_start]

; The header: written by the boot CPU, through the direct map, before each start.
align 8
trampoline_header:
tr_cr0:		dd 0
tr_cr3:		dd 0
tr_cr4:		dd 0
tr_efer:	dq 0
tr_stack:	dd 0				; top of the new CPU's stack (kernel address)
tr_cpu:		dd 0				; its struct cpu
tr_entry:	dd 0				; start_secondary
tr_far_ptr:	dd 0				; page + (tr_protected - trampoline_start)
		dw KERNEL_CS
align 8
tr_gdt:		dq 0
		dq 0x00cf9a000000ffff		; 0x08: flat 4 GiB code, 32-bit
		dq 0x00cf92000000ffff		; 0x10: flat 4 GiB data
tr_gdt_desc:	dw 3 * 8 - 1
		dd 0				; page + (tr_gdt - trampoline_start)
trampoline_end:

section .note.GNU-stack noalloc noexec nowrite progbits
