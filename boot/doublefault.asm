; SPDX-License-Identifier: GPL-2.0-only
; The double-fault task's code (kernel/cpu/doublefault.c). The CPU arrives
; here by the task gate of vector 8, on this CPU's double-fault stack and
; the kernel's page tables, with the error code (always 0) pushed. The C
; side returns only when it has set the faulting task up to go on (its
; TSS, where the switch saved it, now resumes it elsewhere); the iret,
; with EFLAGS.NT set by the switch, then goes back to that task. The TSS
; keeps this task's eip at the jmp: the next double fault starts over.

extern doublefault_shim
global doublefault_entry, doublefault_resume

section .text
doublefault_entry:
	add	esp, 4			; the error code
	call	doublefault_shim
	iret				; a task switch back (NT)
doublefault_resume:			; where the TSS's eip points after one
	jmp	doublefault_entry

section .note.GNU-stack noalloc noexec nowrite progbits
