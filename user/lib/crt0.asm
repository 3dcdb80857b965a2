; SPDX-License-Identifier: GPL-2.0-only
; A user program's first instructions, and the one place that enters the
; kernel (int 0x80, Linux's i386 system-call ABI).
;
; At _start the kernel has left the initial stack as Linux's i386 ELF ABI
; lays it out (fs/binfmt_elf.c, create_elf_tables()):
;
;	esp ->	argc
;		argv[0] ... argv[argc - 1], NULL
;		envp[0] ... NULL
;		auxv pairs ..., AT_NULL
;
; No register but esp carries anything (Linux zeroes them; we do not rely
; on it), so everything is read from the stack.

global _start
global syscall6
global raw_vfork_execve
global __restore_rt
global __restore
extern main
extern exit

section .text.start
_start:
	xor	ebp, ebp		; the outermost frame, for backtraces
	mov	eax, [esp]		; argc
	lea	ecx, [esp + 4]		; argv
	lea	edx, [ecx + eax * 4 + 4] ; envp: after argv's NULL
	and	esp, -16		; the i386 ABI's alignment at a call
	sub	esp, 4
	push	edx
	push	ecx
	push	eax
	call	main			; main(argc, argv, envp)
	mov	[esp], eax
	call	exit			; exit(main's return value)
	ud2				; exit does not return

section .text
; long syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
; Arguments go in ebx, ecx, edx, esi, edi, ebp; the result is eax, which
; is -errno (-4095..-1) on error. ebx, esi, edi and ebp are callee-saved
; in the C ABI, so they are restored.
syscall6:
	push	ebp
	push	edi
	push	esi
	push	ebx
	mov	eax, [esp + 20]
	mov	ebx, [esp + 24]
	mov	ecx, [esp + 28]
	mov	edx, [esp + 32]
	mov	esi, [esp + 36]
	mov	edi, [esp + 40]
	mov	ebp, [esp + 44]
	int	0x80
	pop	ebx
	pop	esi
	pop	edi
	pop	ebp
	ret

; long raw_vfork_execve(const char *path, char *const argv[], char *const envp[])
; Linux only (the spawn benchmark). A vfork child runs on its parent's
; stack until it execs, so it must not call, return or push: the execve
; arguments are in registers before vfork (the kernel keeps them), and the
; child goes straight to execve, or to _exit(127) if that fails.
raw_vfork_execve:
	push	ebx
	mov	ebx, [esp + 8]		; path
	mov	ecx, [esp + 12]		; argv
	mov	edx, [esp + 16]		; envp
	mov	eax, 190		; vfork
	int	0x80
	test	eax, eax
	jnz	.parent			; the child's pid, or -errno
	mov	eax, 11			; execve(path, argv, envp)
	int	0x80
	mov	ebx, 127
	mov	eax, 1			; _exit(127): execve failed
	int	0x80
.parent:
	pop	ebx
	ret

; no executable stack (the linker script also says so with PT_GNU_STACK)
section .note.GNU-stack noalloc noexec nowrite progbits

; A signal handler's return address (sigaction's SA_RESTORER): esp is then
; just above the frame's return-address slot, where rt_sigreturn finds it.
section .text
__restore_rt:
	mov	eax, 173		; __NR_rt_sigreturn
	int	0x80

; The old frame's restorer (a handler without SA_SIGINFO), as glibc's
; __restore: pop the signal number, then sigreturn finds the frame 8
; bytes below esp.
__restore:
	pop	eax
	mov	eax, 119		; __NR_sigreturn
	int	0x80
