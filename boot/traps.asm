; SPDX-License-Identifier: GPL-2.0-only
; The one entry path for every vector: CPU exceptions, the 8259's IRQs,
; int $0x80 and the rest of the 256. Each stub pushes a dummy error code
; where the CPU does not push one, then its vector; trap_common saves the
; general registers and ds/es/fs/gs, loads the kernel's segments (%fs is
; the per-CPU segment: this_cpu()), and calls
; trap_dispatch(struct trap_frame *) in kernel/traps.c. The C side may
; change the frame (an exception fixup, a system call's result) before
; ret_from_trap puts it back and irets, to ring 0 or to ring 3.
;
; All of it is in .entry.text, the PTI trampoline (mm/pti.c, ronx/pti.h):
; the only kernel code the user set maps. With PTI on, TSS.esp0 is this
; CPU's entry stack (in its cpu_entry_area), so an entry from ring 3
; arrives on it under the user set's CR3: pti_enter flips CR3 to the
; kernel set before anything outside the entry area is touched, then
; moves the frame onto the task's kernel stack (cpu_entry_area.sp0).
; On the way back to ring 3 the frame goes onto the entry stack and CR3
; flips back to the user set as the last thing before the segment pops
; and iret, which read only the entry stack and the GDT. Every exit to
; ring 3 (system call, signal, fault, a new task's first return, exec)
; leaves through ret_from_trap. Every access here names ss: ring 3 may
; leave any data selector (even null) in ds/es.

extern trap_dispatch, smap_enabled, pti_active, __entry_data_start, __entry_data_end
global trap_stubs, ret_from_trap, pti_exit_window

KERNEL_DS	equ 0x10
PERCPU_SEL	equ 0x30
PAGE_SIZE	equ 4096
PTI_USER_BIT	equ 0x800	; ronx/pti.h PTI_USER_PGD_OFFSET
CPU_CEA		equ 12		; offsetof(struct cpu, cea), checked in mm/pti.c
CEA_SP0		equ 0		; offsetof(struct cpu_entry_area, sp0)
FRAME_WORDS	equ 19		; struct trap_frame: gs..ds, pusha, vector, error, iret frame

X86_EFLAGS_VM	equ 1 << 17

; copies %1 words from the entry stack (esp) to the kernel stack (ecx)
%macro COPY_WORDS 1
%assign i 0
%rep %1
	mov	eax, [ss:esp + 4 * i]
	mov	[ss:ecx + 4 * i], eax
%assign i i+1
%endrep
%endmacro

; the general registers and data segments, then the kernel's segments
%macro SAVE_ALL 0
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
	je	%%ac_clear
	clac
%%ac_clear:
%endmacro

; the frame back (it reads only the stack it is on and the GDT), and iret
%macro RESTORE_ALL_IRET 0
	pop	gs
	pop	fs
	pop	es
	pop	ds
	popa
	add	esp, 8			; vector and error code
	iret
%endmacro

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
	test	dword [ss:esp + 16], X86_EFLAGS_VM
	jnz	.from_user		; vm86 (TCG lets ring 3 iret into it): any cs
	test	dword [ss:esp + 12], 3
	jnz	.from_user
	; from ring 0: CR3 and stack are the kernel's, except for a fault or
	; an NMI on an entry stack, in ret_from_trap's last instructions (a
	; bad selector in the segment pops or the iret): then the kernel set
	; first, and the handler runs on the entry stack. Only there: the
	; early boot PDPT is not page-aligned, its bit 11 is an address bit.
	cmp	byte [ss:pti_active], 0
	je	trap_common
	cmp	esp, __entry_data_start
	jb	trap_common
	cmp	esp, __entry_data_end
	jae	trap_common
	push	eax
	mov	eax, cr3
	test	eax, PTI_USER_BIT
	jnz	.in_exit_window
	pop	eax
	jmp	trap_common
.in_exit_window:
	; it interrupted the exit window (or pti_enter before its switch):
	; the kernel set for the handler, then the user set again before
	; the iret back, or that task would go on into ring 3 on the whole
	; kernel set (Linux's entry_32.S: SWITCH_TO_KERNEL_CR3/RESTORE_CR3
	; around an NMI). Nothing switches tasks from a ring-0 entry, so the
	; CR3 to return on is this one with bit 11 set again.
	and	eax, ~PTI_USER_BIT
	mov	cr3, eax
	pop	eax
	SAVE_ALL
	push	esp			; struct trap_frame *
	call	trap_dispatch
	add	esp, 4
	mov	eax, cr3
	or	eax, PTI_USER_BIT
	mov	cr3, eax		; the user set the window ran on
	RESTORE_ALL_IRET
.from_user:
	cmp	byte [ss:pti_active], 0
	je	trap_common
pti_enter:				; from ring 3 on the entry stack, user set
	push	eax
	push	ecx
	mov	eax, cr3
	and	eax, ~PTI_USER_BIT
	mov	cr3, eax		; the kernel set: from here all is mapped
	mov	ecx, esp
	and	ecx, ~(PAGE_SIZE - 1)	; this CPU's cpu_entry_area
	mov	ecx, [ss:ecx + CEA_SP0]
	; ecx, eax, vector, error and the CPU's frame: 5 words, 9 from vm86
	test	dword [ss:esp + 24], X86_EFLAGS_VM
	jnz	.vm86
	sub	ecx, 9 * 4
	COPY_WORDS 9
	jmp	.moved
.vm86:
	sub	ecx, 13 * 4
	COPY_WORDS 13
.moved:
	mov	esp, ecx		; the task's kernel stack
	pop	ecx
	pop	eax
trap_common:
	SAVE_ALL
	push	esp			; struct trap_frame *
	call	trap_dispatch
	add	esp, 4
ret_from_trap:				; also where a new task first runs
	test	dword [esp + 4 * 15], 3	; the frame's cs
	jz	restore_all
	cmp	byte [pti_active], 0
	je	restore_all
	; to ring 3 with PTI: the frame onto this CPU's entry stack (ds, es
	; and fs are still the kernel's here), then the user set
	mov	eax, [fs:CPU_CEA]
	lea	edi, [eax + PAGE_SIZE - 4 * FRAME_WORDS]
	mov	esi, esp
	mov	ecx, FRAME_WORDS
	rep movsd
	lea	esp, [eax + PAGE_SIZE - 4 * FRAME_WORDS]
	mov	eax, cr3
	or	eax, PTI_USER_BIT
	mov	cr3, eax		; the user set: only the entry area from here
	; the exit window: ring 0 on the entry stack under the user set, its
	; own copy of the pops and iret (so that a breakpoint on it stops
	; exits to ring 3 only: the PTI_EXIT_WINDOW crash type)
pti_exit_window:
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
