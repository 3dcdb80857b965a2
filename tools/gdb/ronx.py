# SPDX-License-Identifier: GPL-2.0-only
"""gdb commands for ronx's page tables, usable at any breakpoint.

    ronx-walk VA    the page walk for one address, as the shell's `walk VA`
    ronx-ptdump     the page tables, as the shell's `ptdump`
    ronx-kaslr      where the kernel is under `kaslr`: loads kernel.elf's
                    symbols at the boot's offset (the two above do it too)

Both read the tables the CPU uses right now (CR3), so they work mid-boot
too: on the early tables of boot/entry.asm, or at mark_rodata_ro() before
text is made read-only, where the shell cannot run yet.

The lines are printed by the kernel's own pure C (mm/walk_format.c,
mm/va_region.c, mm/ptdump_walk.c, mm/ptdump_format.c), built for the host
as build/host/libronx-pt.so (`make debug` builds it) and called through
ctypes; this file only reads registers and memory.

Reading the tables: they hold physical addresses, but QEMU's gdbstub reads
memory through the guest's current page tables (virtual addresses). Going
through the direct map (0xc0000000 + phys) fails before paging is on and
covers only 64 MiB on the early tables. So we switch the gdbstub to
physical accesses for the duration of a command (QEMU's
`maint packet Qqemu.PhyMemMode:1`), and fall back to the monitor's
`xp` (`monitor xp /Ngx PHYS`) where that packet is not understood
(`set ronx-read xp` forces that path). Before paging is on (CR0.PG clear,
the first instructions of boot/entry.asm) there is nothing to walk and the
commands say so.

KASLR: with `kaslr` the image runs at its link address + an offset that
only the guest knows (kernel_offset). gdb cannot read that variable
before it knows where it is, so the offset is read from the hardware: the
IDT register (QEMU's `monitor info registers`) names the kernel's IDT once
trap_init() has run, at a fixed address (the CPU entry area), but its
first gate holds the address of stub_0, in the moved image; that minus
stub_0's link address in kernel.elf is the offset, and `symbol-file -o` moves every
symbol by it (breakpoints follow). Before trap_init, under kaslr, the
symbols stay at their link addresses: boot with `nokaslr` to debug that
early (Linux's advice too).

Registers: QEMU's i386 gdbstub has $cr0, $cr3 and $efer (checked on QEMU
7.2); where one is missing we parse `monitor info registers`.
"""
import ctypes
import os
import re
import sys

import gdb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from elf32 import Elf32  # noqa: E402  (tools/elf32.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB_PATH = os.path.join(ROOT, "build", "host", "libronx-pt.so")
PAGE_OFFSET = 0xC0000000
CR0_PG, CR0_WP, EFER_NXE = 1 << 31, 1 << 16, 1 << 11

READ_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint)
EMIT_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class PtWalk(ctypes.Structure):
    """struct pt_walk (include/ronx/walk.h)"""
    _fields_ = [("va", ctypes.c_uint32), ("cr3", ctypes.c_uint64), ("wp", ctypes.c_bool),
                ("nxe", ctypes.c_bool), ("depth", ctypes.c_int), ("unreadable", ctypes.c_bool),
                ("pdpte", ctypes.c_uint64), ("pde", ctypes.c_uint64), ("pte", ctypes.c_uint64)]


class ModSpan(ctypes.Structure):
    """struct mod_span"""
    _fields_ = [("name", ctypes.c_char_p), ("base", ctypes.c_uint32), ("text", ctypes.c_uint32),
                ("ro", ctypes.c_uint32), ("ro_after_init", ctypes.c_uint32),
                ("size", ctypes.c_uint32), ("init", ctypes.c_bool), ("freed", ctypes.c_bool)]


LAYOUT_SYMBOLS = ("_text", "_etext", "__start_rodata", "__end_rodata", "__start_ro_after_init",
                  "__end_ro_after_init", "_sdata", "_edata", "__init_begin", "__init_end",
                  "__bss_start", "__bss_stop", "_end")


class VaLayout(ctypes.Structure):
    """struct va_layout: the symbols above in order, then the rest"""
    _fields_ = [(s, ctypes.c_uint32) for s in LAYOUT_SYMBOLS] + [
        ("direct_map_end", ctypes.c_uint32), ("init_freed", ctypes.c_bool),
        ("bios_hole_x", ctypes.c_bool), ("mods", ctypes.POINTER(ModSpan)),
        ("nr_mods", ctypes.c_int)]


_lib = None


def lib():
    global _lib
    if _lib is None:
        if not os.path.exists(LIB_PATH):
            raise gdb.GdbError("ronx: %s is missing; run `make debug` (or make %s)"
                               % (LIB_PATH, os.path.relpath(LIB_PATH, ROOT)))
        _lib = ctypes.CDLL(LIB_PATH)
        _lib.pt_walk.argtypes = [ctypes.POINTER(PtWalk), ctypes.c_uint32, ctypes.c_uint64,
                                 READ_FN, ctypes.c_void_p]
        _lib.pt_walk_print.argtypes = [ctypes.POINTER(PtWalk), ctypes.c_char_p, EMIT_FN,
                                       ctypes.c_void_p]
        _lib.va_region_name.argtypes = [ctypes.POINTER(VaLayout), ctypes.c_uint32,
                                        ctypes.c_char_p, ctypes.c_size_t]
        _lib.ptdump_begin.argtypes = [ctypes.c_void_p, ctypes.c_void_p, EMIT_FN, ctypes.c_void_p]
        _lib.ptdump_walk_tables.argtypes = [ctypes.c_void_p, ctypes.c_uint64, READ_FN,
                                            ctypes.c_void_p]
    return _lib


def register(name):
    """A control or model-specific register: $name, else `monitor info registers`."""
    try:
        return int(gdb.parse_and_eval("$" + name)) & 0xFFFFFFFFFFFFFFFF
    except gdb.error:
        out = gdb.execute("monitor info registers", to_string=True)
        m = re.search(r"\b%s=([0-9a-fA-F]+)" % name.upper(), out)
        if not m:
            raise gdb.GdbError("ronx: cannot read %s (neither $%s nor the monitor has it)"
                               % (name.upper(), name))
        return int(m.group(1), 16)


class ReadMode(gdb.Parameter):
    """How ronx-walk and ronx-ptdump read physical memory: phys (the gdbstub
in physical mode, falling back to xp if QEMU does not know it) or xp (the
monitor's xp command, slower)."""
    set_doc = "Set how the ronx commands read guest-physical memory."
    show_doc = "Show how the ronx commands read guest-physical memory."

    def __init__(self):
        super().__init__("ronx-read", gdb.COMMAND_DATA, gdb.PARAM_ENUM, ["phys", "xp"])
        self.value = "phys"

    def get_show_string(self, svalue):
        return "ronx commands read physical memory with: " + svalue


READ_MODE = ReadMode()


class PhysMem:
    """Reads guest-physical memory while the command runs (see the top of this file).

    Every buffer handed to C stays alive until the command ends, as
    pt_read_fn's contract asks."""

    def __init__(self):
        self.keep = []
        self.phys_mode = False
        self.callback = READ_FN(self._read)

    def __enter__(self):
        if READ_MODE.value != "xp":
            reply = gdb.execute("maint packet Qqemu.PhyMemMode:1", to_string=True)
            self.phys_mode = '"OK"' in reply
        return self

    def __exit__(self, *exc):
        if self.phys_mode:
            gdb.execute("maint packet Qqemu.PhyMemMode:0", to_string=True)

    def read(self, phys, size):
        """size bytes at phys, or None if that is not memory."""
        try:
            if self.phys_mode:
                return bytes(gdb.selected_inferior().read_memory(phys, size))
            return self._read_xp(phys, size)
        except (gdb.error, gdb.MemoryError, ValueError):
            return None

    @staticmethod
    def _read_xp(phys, size):
        out = gdb.execute("monitor xp /%dgx 0x%x" % (size // 8, phys), to_string=True)
        words = [int(w, 16) for w in re.findall(r"\b0x([0-9a-fA-F]{16})\b", out)]
        if len(words) != size // 8:
            return None
        return b"".join(w.to_bytes(8, "little") for w in words)

    def _read(self, ctx, phys, n):
        data = self.read(phys, 8 * n)
        if data is None:
            return None
        buf = ctypes.create_string_buffer(data, len(data))
        self.keep.append(buf)
        return ctypes.addressof(buf)


EARLY_MAP_END = PAGE_OFFSET + (64 << 20)	# a moved image lies below (include/ronx/kaslr.h)
_kaslr = {"offset": 0}


def kernel_file():
    f = gdb.current_progspace().filename
    if not f:
        raise gdb.GdbError("ronx: no kernel.elf loaded (file build/kernel.elf)")
    return f


def link_symbols(path, names):
    """Link addresses from the ELF itself, whatever offset gdb applies."""
    found = {}
    for s in Elf32(path).symbols():
        if s.name in names and s.shndx != 0:
            found.setdefault(s.name, s.value)
    return found


def guest_kaslr_offset():
    """The running kernel's KASLR offset, or None before trap_init() (see the top)."""
    out = gdb.execute("monitor info registers", to_string=True)
    m = re.search(r"^IDT=\s*([0-9a-fA-F]+)", out, re.M)
    link = link_symbols(kernel_file(), ("stub_0", "_text", "_end"))
    if not m or len(link) != 3:
        return None
    try:
        gate = bytes(gdb.selected_inferior().read_memory(int(m.group(1), 16), 8))
    except gdb.MemoryError:
        return None	# the IDT register is still the loader's: nothing there
    handler = int.from_bytes(gate[0:2], "little") | int.from_bytes(gate[6:8], "little") << 16
    off = (handler - link["stub_0"]) & 0xFFFFFFFF
    if off % 4096 or link["_end"] + off > EARLY_MAP_END:
        return None	# the IDT is still the loader's or the firmware's
    return off


def sync_kaslr(verbose=False):
    """Load the symbols at the guest's offset if it is not the one gdb has."""
    off = guest_kaslr_offset()
    if off is None:
        if verbose:
            gdb.write("ronx-kaslr: the kernel has not loaded its IDT yet (before trap_init()): "
                      "symbols stay at offset 0x%x\n" % _kaslr["offset"])
        return
    if off != _kaslr["offset"]:
        gdb.execute("symbol-file -o 0x%x %s" % (off, kernel_file()), to_string=True)
        _kaslr["offset"] = off
    if verbose:
        gdb.write("ronx-kaslr: Kernel Offset: 0x%x from 0x%x: symbols loaded there\n"
                  % (off, link_symbols(kernel_file(), ("_text",))["_text"]) if off else
                  "ronx-kaslr: Kernel Offset: disabled (0)\n")


def symbol(name):
    return int(gdb.parse_and_eval("(unsigned int)&%s" % name))


def variable(expr, default):
    """A kernel variable read through the current page tables, or default
    where they do not map it yet (before paging, or before it exists)."""
    try:
        v = gdb.parse_and_eval(expr)
        v.fetch_lazy()
        return v
    except gdb.error:	# gdb.MemoryError too
        return default


def module_spans():
    """struct mod_span for each loaded module's core and init region (kernel/shell/walk.c does the same)."""
    spans = []
    mods = variable("modules", None)
    if mods is None:
        return spans
    try:
        lo, hi = mods.type.range()
        for i in range(lo, hi + 1):
            m = mods[i]
            if int(m["state"]) == 0:
                continue
            name = m["name"].string().encode()
            spans.append(ModSpan(name, int(m["module_core"]), int(m["core_text_size"]),
                                 int(m["core_ro_size"]), int(m["core_ro_after_init_size"]),
                                 int(m["core_size"]), False, False))
            if int(m["module_init"]):
                spans.append(ModSpan(name, int(m["module_init"]), int(m["init_text_size"]),
                                     int(m["init_ro_size"]), int(m["init_ro_after_init_size"]),
                                     int(m["init_size"]), True, False))
            elif int(m["freed_init"]):
                spans.append(ModSpan(name, int(m["freed_init"]), 0, 0, 0,
                                     int(m["freed_init_size"]), True, True))
    except (gdb.error, gdb.MemoryError):
        pass	# the module list is not readable here (early boot)
    return spans


def region_name(va):
    layout = VaLayout(*[symbol(s) for s in LAYOUT_SYMBOLS])
    max_low_pfn = int(variable("max_low_pfn", 0))
    layout.direct_map_end = (PAGE_OFFSET + (max_low_pfn << 12)) & 0xFFFFFFFF if max_low_pfn else 0
    layout.init_freed = bool(int(variable("init_mem_freed", 0)))
    layout.bios_hole_x = bool(int(variable("pcibios_enabled", 0)))
    spans = module_spans()	# alive until the call below: the array points into them
    arr = (ModSpan * max(len(spans), 1))(*spans)
    layout.mods, layout.nr_mods = arr, len(spans)
    buf = ctypes.create_string_buffer(128)
    lib().va_region_name(ctypes.byref(layout), va, buf, len(buf))
    return buf.value


def address(v):
    """A function or an array stands for its address, as in C."""
    if v.type.strip_typedefs().code in (gdb.TYPE_CODE_FUNC, gdb.TYPE_CODE_ARRAY):
        v = v.address
    return int(v)


def emitter(lines):
    return EMIT_FN(lambda ctx, line: lines.append(line.decode()))


def paging_on():
    return register("cr0") & CR0_PG


class RonxWalk(gdb.Command):
    """ronx-walk VA: the page walk for one address, level by level (as the shell's `walk VA`).
VA is an expression: ronx-walk 0xc0100000, ronx-walk &_sdata, ronx-walk mark_rodata_ro."""

    def __init__(self):
        super().__init__("ronx-walk", gdb.COMMAND_DATA, gdb.COMPLETE_SYMBOL)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("ronx-walk: usage: ronx-walk VA (an address or expression)")
        sync_kaslr()	# before VA is read: a name means its address in this boot
        try:
            value = address(gdb.parse_and_eval(arg))
        except gdb.error as e:
            raise gdb.GdbError("ronx-walk: '%s' is not an address: %s" % (arg, e))
        if not 0 <= value <= 0xFFFFFFFF:
            raise gdb.GdbError("ronx-walk: '%s' does not fit in 32 bits (0x0-0xffffffff)" % arg)
        if not paging_on():
            gdb.write("ronx-walk: paging is off (CR0.PG clear): virtual = physical, "
                      "no tables to walk yet\n")
            return
        w = PtWalk()
        with PhysMem() as mem:
            lib().pt_walk(ctypes.byref(w), value, register("cr3"), mem.callback, None)
        w.wp = bool(register("cr0") & CR0_WP)
        w.nxe = bool(register("efer") & EFER_NXE)
        lines = []
        lib().pt_walk_print(ctypes.byref(w), region_name(value), emitter(lines), None)
        gdb.write("\n".join(lines) + "\n")


class RonxPtdump(gdb.Command):
    """ronx-ptdump: the page tables CR3 points at, as the shell's `ptdump`."""

    def __init__(self):
        super().__init__("ronx-ptdump", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("ronx-ptdump: takes no arguments")
        if not paging_on():
            gdb.write("ronx-ptdump: paging is off (CR0.PG clear): no tables yet\n")
            return
        sync_kaslr()
        L = lib()
        lines = []
        emit = emitter(lines)
        state = ctypes.create_string_buffer(1024)	# struct ptdump_state, opaque here
        markers = ctypes.addressof(ctypes.c_char.in_dll(L, "ptdump_address_markers"))
        L.ptdump_begin(state, markers, emit, None)
        with PhysMem() as mem:
            L.ptdump_walk_tables(state, register("cr3") & 0xFFFFFFE0, mem.callback, None)
        gdb.write("\n".join(lines) + "\n")


class RonxKaslr(gdb.Command):
    """ronx-kaslr: read the running kernel's KASLR offset and load the symbols there."""

    def __init__(self):
        super().__init__("ronx-kaslr", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("ronx-kaslr: takes no arguments")
        sync_kaslr(verbose=True)


RonxWalk()
RonxPtdump()
RonxKaslr()
