; SPDX-License-Identifier: GPL-2.0-only
; The one entry path for every vector: CPU exceptions, the 8259's IRQs,
; int $0x80 and the rest of the 256. Each stub pushes a dummy error code
; where the CPU does not push one, then its vector; trap_common saves the
; general registers and ds/es/fs/gs, loads the kernel's segments (%fs is
; the per-CPU segment: this_cpu()), and calls
; trap_dispatch(struct trap_frame *) in kernel/cpu/traps.c, or for
; int $0x80 do_int80_syscall() in kernel/syscall.c. The C side may
; change the frame (an exception fixup, a system call's result) before
; ret_from_trap puts it back and irets, to ring 0 or to ring 3. Without
; PTI, int $0x80 has a way of its own, in and out (entry_INT80_32).
;
; All of it is in .entry.text, the PTI trampoline (mm/pti.c, ronx/pti.h):
; the only kernel code the user set maps. With PTI on, TSS.esp0 is this
; CPU's entry stack (in its cpu_entry_area), so an entry from ring 3
; arrives on it under the user set's CR3: pti_enter flips CR3 to the
; kernel set before anything outside the entry area is touched, then
; moves the frame onto the task's kernel stack (cpu_entry_area.sp0).
; On the way back to ring 3 the frame goes onto the entry stack and CR3
; flips back to the user set as the last thing before the segment pops
; and iret, which read only the entry stack and the GDT. With PTI every
; exit to ring 3 (system call, signal, fault, a new task's first return,
; exec) leaves through ret_from_trap. The CR3 switches themselves are in
; boot/pti_entry.inc. Every access here names ss: ring 3 may
; leave any data selector (even null) in ds/es.

extern trap_dispatch, do_int80_syscall, smap_enabled, pti_active
global trap_stubs, ret_from_trap, pti_exit_window, entry_INT80_32, int80_exit

KERNEL_DS	equ 0x10
USER_DS		equ 0x23	; ronx/segment.h
PERCPU_SEL	equ 0x30
PAGE_SIZE	equ 4096
PTI_USER_BIT	equ 0x800	; ronx/pti.h PTI_USER_PGD_OFFSET
CEA_BASE	equ 0xffc00000	; ronx/memlayout.h CPU_ENTRY_AREA_BASE: the entry
CEA_END		equ 0xffe00000	; stacks are used there (mm/cpu_entry_area.c)
CPU_CEA		equ 12		; offsetof(struct cpu, cea), checked in mm/pti.c
CEA_SP0		equ 0		; offsetof(struct cpu_entry_area, sp0)
; struct trap_frame: gs..ds, pusha, vector, error, iret frame. %assign, not
; equ: a count the preprocessor knows, so that COPY_WORDS FRAME_WORDS works
; (nasm -M, the Makefile's dependency pass, cannot read an equ in a %rep)
%assign FRAME_WORDS 19
ENTRY_RESERVE	equ 64		; room for what pti_enter copies to the kernel stack's top
; The entry stack's worst case, in bytes (ronx/pti.h ENTRY_STACK_WORST,
; checked there against the room the page leaves): the exit frame (19
; words; an entry from ring 3 puts fewer there), then each entry
; from ring 0 nested on it: at most 17 words (7 on the way in, the frame
; copied back on the way out). Interrupts are off on the entry stack, so
; only an NMI, a #DB and a fault of the pops/iret can nest: 3 levels.
ENTRY_STACK_WORST equ 4 * (FRAME_WORDS + 3 * 17)

X86_EFLAGS_VM	equ 1 << 17
IA32_SYSCALL_VECTOR equ 0x80

; copies %1 words from [ss:esp] up to [ss:ecx] up (eax is scratch): %1 is
; a number or FRAME_WORDS
%macro COPY_WORDS 1
%assign i 0
%rep %1
	mov	eax, [ss:esp + 4 * i]
	mov	[ss:ecx + 4 * i], eax
%assign i i+1
%endrep
%endmacro

; the general registers and data segments, then the kernel's segments.
; Under TCG a segment load (the GDT read and its checks) is the costliest
; step of a short system call, so only the loads that matter are made:
; ds and es (both) only if either is not USER_DS (flat, like KERNEL_DS:
; ring 0 may use it, as Linux's kernel runs on __USER_DS); gs never (the kernel
; does not use it: its stack protector's guard is a global); fs always,
; the per-CPU segment (this_cpu()).
%macro SAVE_ALL 0
	pusha
	push	ds
	push	es
	push	fs
	push	gs
	mov	ax, ds
	shl	eax, 16
	mov	ax, es
	xor	eax, USER_DS << 16 | USER_DS	; 0: both USER_DS (the common case)
	movzx	ecx, byte [ss:smap_enabled]
	or	ecx, eax		; and no SMAP: nothing more to do, one test
	jz	%%done
	test	eax, eax
	jz	%%segs_flat
	mov	ax, KERNEL_DS
	mov	ds, ax
	mov	es, ax
%%segs_flat:
	; ring 3 may have set EFLAGS.AC (popf): with SMAP on that would open
	; user memory to the whole kernel, so clear it on every entry, as Linux
	cmp	byte [smap_enabled], 0
	je	%%done
	clac
%%done:
	mov	ax, PERCPU_SEL
	mov	fs, ax
	cld
%endmacro

; pops %1 from the frame only if the register holds another selector: an
; equal one holds the same descriptor (the GDT's user entries are the
; same on every CPU and never change); eax is scratch (popa follows)
%macro POP_SEG 1
	mov	ax, %1
	cmp	ax, [esp]
	je	%%same
	pop	%1
	jmp	%%done
%%same:
	add	esp, 4
%%done:
%endmacro

; the frame back (it reads only the stack it is on and the GDT), and iret
%macro RESTORE_ALL_IRET 0
	movzx	eax, word [esp]		; gs, es and ds as they came in (the
	mov	ecx, gs			; common case): only fs to load, one test
	xor	eax, ecx
	movzx	ecx, word [esp + 8]
	mov	edx, es
	xor	ecx, edx
	or	eax, ecx
	movzx	ecx, word [esp + 12]
	mov	edx, ds
	xor	ecx, edx
	or	eax, ecx
	jnz	%%each
	mov	fs, [esp + 4]
	add	esp, 16
	popa
	add	esp, 8			; vector and error code
	iret
%%each:
	POP_SEG	gs
	POP_SEG	fs
	POP_SEG	es
	POP_SEG	ds
	popa
	add	esp, 8
	iret
%endmacro

%include "boot/pti_entry.inc"

%macro STUB_NOERR 1
stub_%1:
	push	dword 0
	push	dword %1
	jmp	entry_common
%endmacro
%macro STUB_ERR 1
stub_%1:
	push	dword %1
	jmp	entry_common
%endmacro

; Page-aligned and padded to a page end, so that the user set maps the
; trampoline and nothing else (and linker.ld needs no alignment of its own)
section .entry.text progbits alloc exec nowrite align=4096
global __entry_text_start, __entry_text_end
__entry_text_start:
; esp -> vector, error code, eip, cs, eflags[, esp, ss]
entry_common:
	test	dword [ss:esp + 12], 3
	jnz	.from_user		; ring 3 (the common case first: one test)
	test	dword [ss:esp + 16], X86_EFLAGS_VM
	jnz	.from_user		; vm86 (TCG lets ring 3 iret into it): any cs
	; from ring 0: CR3 and stack are the kernel's, except on an entry
	; stack (an NMI, a #DB or a fault in pti_enter or in ret_from_trap's
	; last instructions). Only there: the early boot PDPT is not
	; page-aligned, its bit 11 is an address bit.
	cmp	byte [ss:pti_active], 0
	je	trap_common
	cmp	esp, CEA_BASE
	jb	trap_common
	cmp	esp, CEA_END
	jae	trap_common
	; On an entry stack: the kernel set for the handler if it was the user
	; set (the exit window, or pti_enter before its switch), and the
	; handler on the task's kernel stack, not here (the entry stack has
	; no guard: only this file's code runs on it, so its depth is known,
	; ENTRY_STACK_WORST). The task's kernel stack is empty while its CPU
	; is on the entry stack, except for the words pti_enter may be
	; copying to its top: hence ENTRY_RESERVE. Above the frame there go
	; the interrupted esp and CR3's bit 11, for the way back
	; (.back_to_entry_stack), which restores both, as Linux's entry_32.S
	; does around an NMI: without it, a task interrupted in the exit
	; window went on in ring 3 on the whole kernel set.
	push	eax
	push	ecx
	SWITCH_TO_KERNEL_CR3 eax, ecx	; ecx: the set to go back on
	mov	eax, esp
	and	eax, ~(PAGE_SIZE - 1)	; this CPU's cpu_entry_area
	mov	eax, [ss:eax + CEA_SP0]
	sub	eax, ENTRY_RESERVE
	mov	[ss:eax - 4], ecx	; CR3's bit 11
	lea	ecx, [esp + 4 * 7]
	mov	[ss:eax - 8], ecx	; the interrupted esp, above its eflags
	sub	eax, 8 + 4 * 7
	; ecx, eax, vector, error, eip, cs, eflags: 7 words
	mov	ecx, eax
	COPY_WORDS 7
	mov	esp, ecx		; the task's kernel stack
	pop	ecx
	pop	eax
	SAVE_ALL
	push	esp			; struct trap_frame *
	call	trap_dispatch
	add	esp, 4
.back_to_entry_stack:
	; the frame (gs..eflags: 17 words) back below the interrupted esp,
	; then the CR3 it had, then the pops and iret there
	mov	edi, [esp + 4 * 17]
	mov	edx, [esp + 4 * 18]
	sub	edi, 4 * 17
	mov	esi, esp
	mov	ecx, 17
	rep movsd
	lea	esp, [edi - 4 * 17]
	RESTORE_CR3 edx, eax		; the user set, if the window ran on it
	RESTORE_ALL_IRET
.from_user:
	cmp	byte [ss:pti_active], 0
	je	trap_common
pti_enter:				; from ring 3 on the entry stack, user set
	PTI_ENTER_FROM_USER
trap_common:
	SAVE_ALL
	push	esp			; struct trap_frame *
	cmp	dword [esp + 4 + 4 * 12], IA32_SYSCALL_VECTOR	; the frame's vector
	je	.syscall
	call	trap_dispatch
	add	esp, 4
	jmp	ret_from_trap
.syscall:				; int $0x80 with PTI (an interrupt gate):
	test	dword [esp + 4 + 4 * 15], 3	; from ring 3, the call runs
	jz	.syscall_call		; with interrupts on, as without PTI
	sti
.syscall_call:
	call	do_int80_syscall
	add	esp, 4
ret_from_trap:				; also where a new task first runs
	test	dword [esp + 4 * 15], 3	; the frame's cs
	jz	restore_all
	cmp	byte [pti_active], 0
	je	restore_all
	PTI_EXIT_TO_USER
	; the exit window: ring 0 on the entry stack under the user set, its
	; own copy of the pops and iret (so that a breakpoint on it stops
	; exits to ring 3 only: the PTI_EXIT_WINDOW crash type)
pti_exit_window:
	RESTORE_ALL_IRET

; int $0x80 without PTI (syscall_gate_init() points its trap gate here),
; as Linux's entry_INT80_32: no test of where it came from or of PTI,
; straight to do_int80_syscall() and back out through the pops and iret,
; which is all ret_from_trap does without PTI. Under TCG each test ends a
; block, and getpid's round trip is measured against Linux's (issue 31).
entry_INT80_32:
	push	dword 0
	push	dword IA32_SYSCALL_VECTOR
	SAVE_ALL
	push	esp			; struct trap_frame *
	call	do_int80_syscall
	add	esp, 4
	; its own copy of the pops and iret, as the exit window's: a breakpoint
	; here stops these calls' returns only (labs/watch.py's syscalls())
int80_exit:
	RESTORE_ALL_IRET
restore_all:				; to ring 0, or to ring 3 without PTI
	RESTORE_ALL_IRET

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

	align 4096, db 0xcc
__entry_text_end:

section .rodata
align 4
trap_stubs:
%assign i 0
%rep 256
	dd	stub_ %+ i
%assign i i+1
%endrep

section .note.GNU-stack noalloc noexec nowrite progbits
