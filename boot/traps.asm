; SPDX-License-Identifier: GPL-2.0-only
; Exception entry stubs. Each pushes a dummy error code where the CPU does
; not push one, then its vector, saves the general registers (pusha) and
; calls trap_dispatch(struct trap_frame *) in kernel/traps.c. The C side may
; change frame->eip (an exception fixup) before we iret.

extern trap_dispatch
global trap_stubs

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
	mov	eax, esp
	push	eax
	call	trap_dispatch
	add	esp, 4
	popa
	add	esp, 8			; vector and error code
	iret

; vectors 8, 10-14, 17, 21 push an error code
STUB_NOERR 0
STUB_NOERR 1
STUB_NOERR 2
STUB_NOERR 3
STUB_NOERR 4
STUB_NOERR 5
STUB_NOERR 6
STUB_NOERR 7
STUB_ERR   8
STUB_NOERR 9
STUB_ERR   10
STUB_ERR   11
STUB_ERR   12
STUB_ERR   13
STUB_ERR   14
STUB_NOERR 15
STUB_NOERR 16
STUB_ERR   17
STUB_NOERR 18
STUB_NOERR 19
STUB_NOERR 20
STUB_ERR   21
%assign i 22
%rep 10
STUB_NOERR i
%assign i i+1
%endrep

section .rodata
align 4
trap_stubs:
%assign i 0
%rep 32
	dd	stub_ %+ i
%assign i i+1
%endrep

section .note.GNU-stack noalloc noexec nowrite progbits
