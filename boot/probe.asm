; SPDX-License-Identifier: GPL-2.0-only
; Probes that may fault. probe_read/probe_write touch one byte; if the access
; faults, the page-fault handler finds the faulting instruction in the
; exception table (__ex_table: pairs of fault address, fixup address) and
; resumes at the fixup, which returns -EFAULT. This is Linux's
; get_kernel_nofault() idea in thirty lines.
;
; setjmp/longjmp: the fault catcher (kernel/catch.c) uses them to get out of
; a fault whose instruction is not in the table, such as a call into an NX
; page, where the faulting EIP is the target itself.

EFAULT equ 14
global probe_read, probe_write, ronx_setjmp, ronx_longjmp

section .text
; int probe_read(const void *addr, unsigned char *val)
probe_read:
	mov	edx, [esp + 4]
.access:
	movzx	eax, byte [edx]
	mov	edx, [esp + 8]
	mov	[edx], al
	xor	eax, eax
	ret
.fixup:
	mov	eax, -EFAULT
	ret

; int probe_write(void *addr, unsigned char val)
probe_write:
	mov	edx, [esp + 4]
	mov	eax, [esp + 8]
.access:
	mov	[edx], al
	xor	eax, eax
	ret
.fixup:
	mov	eax, -EFAULT
	ret

; int ronx_setjmp(struct jmp_buf *jb): saves ebx, esi, edi, ebp, esp, eip
ronx_setjmp:
	mov	edx, [esp + 4]
	mov	[edx + 0], ebx
	mov	[edx + 4], esi
	mov	[edx + 8], edi
	mov	[edx + 12], ebp
	lea	ecx, [esp + 4]		; esp as it will be after our ret
	mov	[edx + 16], ecx
	mov	ecx, [esp]		; return address
	mov	[edx + 20], ecx
	xor	eax, eax
	ret

; void ronx_longjmp(struct jmp_buf *jb, int val): val must be non-zero
ronx_longjmp:
	mov	edx, [esp + 4]
	mov	eax, [esp + 8]
	mov	ebx, [edx + 0]
	mov	esi, [edx + 4]
	mov	edi, [edx + 8]
	mov	ebp, [edx + 12]
	mov	esp, [edx + 16]
	jmp	[edx + 20]

section __ex_table progbits alloc noexec nowrite align=4
	dd	probe_read.access, probe_read.fixup
	dd	probe_write.access, probe_write.fixup

section .note.GNU-stack noalloc noexec nowrite progbits
