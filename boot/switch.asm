; SPDX-License-Identifier: GPL-2.0-only
; swtch(struct context **old, struct context *new): the context switch
; (xv6's swtch, Linux's __switch_to_asm). Saves the callee-saved registers
; on the current stack, stores that stack pointer in *old, loads new as
; the stack pointer and pops the registers saved there: the ret returns
; into whatever called swtch() on that stack, or, for a task that never
; ran, into the start address put there (struct context's eip). The
; caller-saved ones (eax, ecx, edx) are the C caller's business.

global swtch

section .text
swtch:
	mov	eax, [esp + 4]
	mov	edx, [esp + 8]
	push	ebp
	push	ebx
	push	esi
	push	edi
	mov	[eax], esp
	mov	esp, edx
	pop	edi
	pop	esi
	pop	ebx
	pop	ebp
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
