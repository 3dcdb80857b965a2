; SPDX-License-Identifier: GPL-2.0-only
; The instructions that touch user memory (Linux: arch/x86/lib/usercopy_32.c,
; getuser.S, strncpy_from_user). Each access that may fault is listed in
; __ex_table with the place to resume, so a bad user pointer ends the copy
; early instead of oopsing (kernel/extable.c, Linux's fixup_exception()).
;
; SMAP: while CR4.SMAP is on, the kernel may touch a user page only with
; EFLAGS.AC set. stac sets it just before the access and clac clears it
; just after, so no other kernel code ever runs with user memory open.
; stac and clac do not exist without SMAP (#UD), hence the flag test.

extern smap_enabled
global __copy_user, __strncpy_from_user

EFAULT	equ 14

%macro STAC 0
	cmp	byte [smap_enabled], 0
	je	%%no
	stac
%%no:
%endmacro
%macro CLAC 0
	cmp	byte [smap_enabled], 0
	je	%%no
	clac
%%no:
%endmacro

section .text
; unsigned long __copy_user(void *to, const void *from, unsigned long n)
; returns the bytes not copied: rep movsb leaves them in ecx when it faults
__copy_user:
	push	edi
	push	esi
	mov	edi, [esp + 12]
	mov	esi, [esp + 16]
	mov	ecx, [esp + 20]
	STAC
.copy:
	rep movsb
.done:
	CLAC
	mov	eax, ecx
	pop	esi
	pop	edi
	ret

; long __strncpy_from_user(char *dst, const char *src, long count)
; the length copied before the NUL, count if none came, -EFAULT on a fault
__strncpy_from_user:
	push	edi
	push	esi
	mov	edi, [esp + 12]
	mov	esi, [esp + 16]
	mov	ecx, [esp + 20]
	xor	edx, edx
	STAC
.loop:
	cmp	edx, ecx
	jae	.out
.load:
	mov	al, [esi + edx]
	mov	[edi + edx], al
	test	al, al
	jz	.out
	inc	edx
	jmp	.loop
.out:
	CLAC
	mov	eax, edx
	pop	esi
	pop	edi
	ret
.fault:
	CLAC
	mov	eax, -EFAULT
	pop	esi
	pop	edi
	ret

section __ex_table progbits alloc noexec nowrite align=4
	dd	__copy_user.copy, __copy_user.done
	dd	__strncpy_from_user.load, __strncpy_from_user.fault

section .note.GNU-stack noalloc noexec nowrite progbits
