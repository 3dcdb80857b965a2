; SPDX-License-Identifier: GPL-2.0-only
; The one entry path for every vector: CPU exceptions, the 8259's IRQs,
; int $0x80 and the rest of the 256. Each stub pushes a dummy error code
; where the CPU does not push one, then its vector; trap_common saves the
; general registers and ds/es/fs/gs, loads the kernel's segments (%fs is
; the per-CPU segment: this_cpu()), and calls
; trap_dispatch(struct trap_frame *) in kernel/traps.c. The C side may
; change the frame (an exception fixup, a system call's result) before
; ret_from_trap puts it back and irets, to ring 0 or to ring 3.

extern trap_dispatch, smap_enabled
global trap_stubs, ret_from_trap

KERNEL_DS	equ 0x10
PERCPU_SEL	equ 0x30

%macro STUB_NOERR 1
stub_%1:
	push	dword 0
	push	dword %1
	jmp	trap_common
%endmacro
%macro STUB_ERR 1
stub_%1:
	push	dword %1
	jmp	trap_common
%endmacro

section .text
trap_common:
	pusha
	push	ds
	push	es
	push	fs
	push	gs
	mov	ax, KERNEL_DS
	mov	ds, ax
	mov	es, ax
	mov	gs, ax
	mov	ax, PERCPU_SEL
	mov	fs, ax
	cld
	; ring 3 may have set EFLAGS.AC (popf): with SMAP on that would open
	; user memory to the whole kernel, so clear it on every entry, as Linux
	cmp	byte [smap_enabled], 0
	je	.ac_clear
	clac
.ac_clear:
	push	esp			; struct trap_frame *
	call	trap_dispatch
	add	esp, 4
ret_from_trap:				; also where a new task first runs
	pop	gs
	pop	fs
	pop	es
	pop	ds
	popa
	add	esp, 8			; vector and error code
	iret

; vectors 8, 10-14, 17, 21 push an error code
%assign i 0
%rep 256
%if i == 8 || (i >= 10 && i <= 14) || i == 17 || i == 21
STUB_ERR i
%else
STUB_NOERR i
%endif
%assign i i+1
%endrep

section .rodata
align 4
trap_stubs:
%assign i 0
%rep 256
	dd	stub_ %+ i
%assign i i+1
%endrep

section .note.GNU-stack noalloc noexec nowrite progbits
