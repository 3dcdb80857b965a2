# SPDX-License-Identifier: GPL-2.0-only
"""The CPU entry area (mm/cpu_entry_area.c): .entry.data mapped again at a
fixed address, where the CPUs find their GDT, TSS (and entry stack) and
IDT. What QEMU reports as those bases (info registers: GDT=, IDT=, TR=)
are alias addresses; this turns one into the physical address `xp` needs,
and lists the alias pages a page-table walk must find."""

PAGE = 4096
PAGE_OFFSET = 0xC0000000
CEA_BASE = 0xFFC00000          # ronx/memlayout.h CPU_ENTRY_AREA_BASE
CEA_END = 0xFFE00000


def phys(syms, va):
    """The physical address of a kernel va: in the CPU entry area, the
    .entry.data byte it aliases; elsewhere the direct map's."""
    if CEA_BASE <= va < CEA_END:
        return va - CEA_BASE + syms["__entry_data_start"] - PAGE_OFFSET
    return va - PAGE_OFFSET


def alias_pages(syms):
    """{alias va: the .entry.data va it maps}."""
    start, end = syms["__entry_data_start"], syms["__entry_data_end"]
    return {CEA_BASE + off: start + off for off in range(0, end - start, PAGE)}
