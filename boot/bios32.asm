; SPDX-License-Identifier: GPL-2.0-only
; A 32-bit far call into the BIOS (the BIOS32 service directory, the PCI
; BIOS), with the registers in and out of a struct bios32_regs
; (include/ronx/pcbios.h): eax, ebx, ecx, edx, esi, edi.
;
; int bios32_call(struct bios32_regs *regs, const struct bios32_far_ptr *entry)
; returns the carry flag the BIOS left (the PCI BIOS sets it on error).
;
; The BIOS returns with lret, so it must be reached by lcall: the target
; selector and offset are pushed and called through [esp]. The selector is
; the kernel's flat code segment and the offset the entry's direct-map
; address (PAGE_OFFSET + physical), as Linux does: SeaBIOS finds its own
; base from EIP (call/pop), so it does not need a segment based at 0.
;
; ebp is set up as a normal frame, so an oops inside the BIOS (pci=bios_nx)
; shows our C callers in its call trace.

global bios32_call

section .text
bios32_call:
	push	ebp
	mov	ebp, esp
	push	ebx
	push	esi
	push	edi
	mov	ecx, [ebp + 12]		; entry
	push	dword [ebp + 8]		; regs, found again after the call
	push	dword [ecx + 4]		; selector
	push	dword [ecx]		; offset
	mov	eax, [ebp + 8]
	mov	ebx, [eax + 4]
	mov	ecx, [eax + 8]
	mov	edx, [eax + 12]
	mov	esi, [eax + 16]
	mov	edi, [eax + 20]
	mov	eax, [eax + 0]
	call	far [esp]
	pushfd				; the carry flag, before anything changes it
	cld
	push	eax
	mov	eax, [esp + 16]		; eax, eflags, offset, selector, regs
	mov	[eax + 4], ebx
	mov	[eax + 8], ecx
	mov	[eax + 12], edx
	mov	[eax + 16], esi
	mov	[eax + 20], edi
	pop	dword [eax + 0]
	pop	eax			; eflags
	and	eax, 1			; CF
	add	esp, 12
	pop	edi
	pop	esi
	pop	ebx
	pop	ebp
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
