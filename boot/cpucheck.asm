; SPDX-License-Identifier: GPL-2.0-only
; Refuse, in words, a CPU ronx cannot run on. This runs before paging is
; on (entry.asm calls it first), because turning on CR4.PAE or CR4.PGE on
; a CPU without them is a #GP with no IDT yet: a triple fault, and QEMU
; just exits. Here we can still print one line on COM1 and the VGA text
; screen, end QEMU through isa-debug-exit (the test runner's device; on a
; plain machine the write goes nowhere) and halt with interrupts off.
;
; Needed: CPUID (a 486 may lack it: EFLAGS.ID must be writable), PAE (the
; whole point), PGE (entry.asm and the TLB flush set CR4.PGE) and CMOV
; (the kernel is built for i686) and an x87 FPU (each process's registers
; are saved at every switch, kernel/cpu/fpu.c: ronx has no FPU emulator, as a
; 486SX would need). NX is optional: see entry.asm.

PAGE_OFFSET	equ 0xC0000000
COM1		equ 0x3F8
VGA_TEXT	equ 0xB8000
EXIT_PORT	equ 0xf4
REFUSED		equ 3			; QEMU exits with status (3 << 1) | 1 = 7
EFLAGS_ID	equ 1 << 21
CPUID1_FPU	equ 1 << 0
CPUID1_PAE	equ 1 << 6
CPUID1_PGE	equ 1 << 13
CPUID1_CMOV	equ 1 << 15

global check_cpu, boot_refuse

section .init.text progbits alloc exec nowrite align=16
; Returns if the CPU will do; otherwise refuses. Paging off, flat segments.
check_cpu:
	pushfd
	pop	eax
	mov	ecx, eax
	xor	eax, EFLAGS_ID
	push	eax
	popfd
	pushfd
	pop	eax
	push	ecx
	popfd				; put the old EFLAGS back
	xor	eax, ecx
	mov	esi, msg_no_cpuid - PAGE_OFFSET
	test	eax, EFLAGS_ID
	jz	boot_refuse

	mov	eax, 1
	cpuid
	mov	esi, msg_no_pae - PAGE_OFFSET
	test	edx, CPUID1_PAE
	jz	boot_refuse
	mov	esi, msg_no_pge - PAGE_OFFSET
	test	edx, CPUID1_PGE
	jz	boot_refuse
	mov	esi, msg_no_cmov - PAGE_OFFSET
	test	edx, CPUID1_CMOV
	jz	boot_refuse
	mov	esi, msg_no_fpu - PAGE_OFFSET
	test	edx, CPUID1_FPU
	jz	boot_refuse
	ret

; esi: physical address of a NUL-terminated line. Never returns.
boot_refuse:
	mov	dx, COM1 + 1
	xor	al, al
	out	dx, al			; no UART interrupts
	mov	dx, COM1 + 3
	mov	al, 0x80
	out	dx, al			; DLAB: set the divisor
	mov	dx, COM1
	mov	al, 1
	out	dx, al			; 115200 baud
	mov	dx, COM1 + 1
	xor	al, al
	out	dx, al
	mov	dx, COM1 + 3
	mov	al, 3
	out	dx, al			; 8N1
	mov	edi, VGA_TEXT
.next:
	lodsb
	test	al, al
	jz	.done
	mov	ah, 0x4f		; white on red: a refusal
	mov	[edi], ax
	add	edi, 2
	mov	ah, al
	mov	dx, COM1 + 5
.wait:
	in	al, dx
	test	al, 0x20		; transmitter empty
	jz	.wait
	mov	dx, COM1
	mov	al, ah
	out	dx, al
	jmp	.next
.done:
	mov	al, REFUSED
	out	EXIT_PORT, al
.halt:
	cli
	hlt
	jmp	.halt

section .init.data progbits alloc noexec write align=4
msg_no_cpuid:	db "ronx: cannot boot: this CPU has no CPUID, so no PAE; ronx needs a CPU with PAE (Pentium Pro or later)", 13, 10, 0
msg_no_pae:	db "ronx: cannot boot: this CPU has no PAE (CPUID 1 EDX bit 6); ronx needs a CPU with PAE (Pentium Pro or later)", 13, 10, 0
msg_no_pge:	db "ronx: cannot boot: this CPU has no global pages (CPUID 1 EDX bit 13 PGE); ronx needs PAE and PGE (Pentium Pro or later)", 13, 10, 0
msg_no_cmov:	db "ronx: cannot boot: this CPU has no CMOV (CPUID 1 EDX bit 15); ronx is built for i686 (Pentium Pro or later)", 13, 10, 0
msg_no_fpu:	db "ronx: cannot boot: this CPU has no x87 FPU (CPUID 1 EDX bit 0); ronx saves each process's FPU registers and has no FPU emulator", 13, 10, 0

section .note.GNU-stack noalloc noexec nowrite progbits
