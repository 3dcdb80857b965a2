; SPDX-License-Identifier: GPL-2.0-only
; A call site in kernel text for the SMP text-patching self-test
; (kernel/selftest/smp_test.c): patch_site_call() runs one 5-byte "call rel32"
; (E8 xx xx xx xx) at patch_site, which the test rewrites, through
; text_poke(), to call patch_target_b instead of patch_target_a and back,
; thousands of times, while another CPU calls it in a loop.

global patch_site_call, patch_site, patch_target_a, patch_target_b

section .text
align 16
; int patch_site_call(void): 1 through patch_target_a, 2 through patch_target_b
patch_site_call:
patch_site:
	call	patch_target_a
	ret

align 16
patch_target_a:
	mov	eax, 1
	ret

align 16
patch_target_b:
	mov	eax, 2
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
