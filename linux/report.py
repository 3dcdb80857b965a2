#!/usr/bin/env python3
# Turn the boot logs, "info tlb" dumps and page walks written by boot.py
# into KTAP (build/results/linux.ktap), a JSON of the Linux readings in
# ronx's format, and the side-by-side document (linux/check.sh writes it to
# build/results/linux-vs-ronx.md; make docs copies it into docs/). Exit 1
# if any check failed.
import argparse
import json
import os
import re
import sys

import crashes
import user
import user_nx
import wx_series
from evidence import PAGE_OFFSET, Boot, Ktap, pdpte_check, predicted_audit

CHECKS = ["text", "rodata", "ro_after_init", "data", "bss", "init_text",
          "init_data", "write_rodata", "write_ro_after_init", "low:0x0",
          "low:0x9f000", "low:0xa0000", "low:0xb8000", "low:0xf0000",
          "low:0x100000", "wx_check"]
INIT_ONLY = {"init_text", "init_data"}
KERNEL_SECTIONS = {"code": ("kernel_text", "RO+X"), "rodata": ("kernel_rodata", "RO+NX"),
                   "data": ("kernel_data", "RW+NX"), "bss": ("kernel_bss", "RW+NX")}
# boot name -> (label, ronx scenario it joins with, kernel kind)
DEBIAN = [("debian-bios", "acpi=off pci=bios", "pci=bios"),
          ("debian-nobios", "acpi=off pci=nobios", "pci=nobios"),
          ("debian-default", "default command line", "default")]


def main():
    ap = argparse.ArgumentParser()
    for a in ("boots", "ronx", "ktap", "json", "doc", "patches"):
        ap.add_argument("--" + a, required=True)
    a = ap.parse_args()
    meta = dict(l.strip().split("=", 1) for l in open(os.path.join(a.boots, "meta.env")) if "=" in l)
    kt = Ktap()
    linux = {}
    boots = {}

    for name, label, scen in DEBIAN:
        b = boots[name] = Boot(a.boots, name)
        kt.add(b.ready, f"{name} ({label}): booted Debian {meta.get('KVER')} and reached ready-for-tlb")
        row = linux[scen] = {}
        for c in CHECKS[:-1]:
            m = b.module.get(c)
            if not m:
                kt.add(False, f"{name}: module: {c} reported")
                continue
            if m.group(8):
                kt.add(True, f"{name}: module: {c}", skip=m.group(8))
                continue
            ok, val, lvl, addr, exp = m.group(1) == "ok", m.group(4), m.group(5), int(m.group(6), 16), m.group(7)
            row[c] = val
            kt.add(ok, f"{name}: module: {c} = {val} (expect {exp}; {lvl} @ 0x{addr:08x})")
            if c.startswith("write_"):
                continue
            if c in INIT_ONLY:
                kt.add(True, f"{name}: info tlb: {c}",
                       skip=f"init memory is freed before the monitor reads it (now {b.tlb_flags(addr)})")
                continue
            t, w = b.tlb_flags(addr), b.walk.get(addr, "not walked")
            kt.add(t == exp and w == exp,
                   f"{name}: info tlb: {c} = {t}, PAE walk = {w} (expect {exp}; module saw {val})")
        for sec, (c, exp) in KERNEL_SECTIONS.items():
            if sec not in b.iomem:
                kt.add(False, f"{name}: /proc/iomem lists Kernel {sec}")
                continue
            va = PAGE_OFFSET + (b.iomem[sec] & ~0xFFF)
            t, w = b.tlb_flags(va), b.walk.get(va, "not walked")
            kt.add(t == exp and w == exp, f"{name}: info tlb: {c} = {t}, PAE walk = {w} (expect {exp}; 0x{va:08x})")
        pdpte_check(kt, name, b)
        hole, other = b.wx_pages()
        row["wx_check"] = b.audit()
        pred = predicted_audit(b, fixed=False)
        kt.add(b.ready and row["wx_check"] == pred,
               f"{name}: wx_check = '{row['wx_check']}' while info tlb shows {hole} W+X pages in "
               f"640K-1M and {other} elsewhere (unpatched PAE audit is blind: predicted '{pred}')")
        row["_tlb_wx"] = f"{hole} in 640K-1M, {other} elsewhere"

    small, cps = wx_series.check(kt, a.boots, a.patches, meta)
    user_readings, user_walks = user.check(kt, a.boots)
    nx = user_nx.check(kt, a.boots, meta)
    crash_linux, crash_ronx = crashes.check(kt, a.boots, os.path.dirname(a.ronx))

    os.makedirs(os.path.dirname(a.ktap), exist_ok=True)
    open(a.ktap, "w").write(kt.text())
    readings = {s: {k: v for k, v in r.items() if not k.startswith("_")} for s, r in linux.items()}
    readings["user"] = user.to_json(user_readings)
    json.dump(readings, open(a.json, "w"), indent=1, sort_keys=True)
    ronx = json.load(open(a.ronx)) if os.path.exists(a.ronx) else None
    os.makedirs(os.path.dirname(a.doc), exist_ok=True)
    open(a.doc, "w").write(document(meta, boots, linux, ronx, kt, small,
                                    wx_series.document(meta, small, cps) +
                                    user.document(user_readings, user_walks, ronx, meta, a.boots,
                                                  nx_table=user_nx.document(
                                                      nx, meta, (user_readings.get("debian-user", {}),
                                                                 user_walks.get("debian-user", {})),
                                                      ronx)) +
                                    crashes.document(crash_linux, crash_ronx, meta)))
    print(kt.text(), end="")
    npass = sum(1 for l in kt.lines if l.startswith("ok"))
    print(f"# linux: {npass} passed, {kt.failed} failed", file=sys.stderr)
    return 1 if kt.failed else 0


# Static: Linux's KASLR read from its source, beside ronx's (nothing booted here).
KASLR_SECTION = """
## KASLR: Linux's 32-bit range beside ronx's

Not measured: read from Linux's `arch/x86/boot/compressed/kaslr.c`
(`choose_random_location()`, `process_mem_region()`) and
`arch/x86/include/asm/page_32_types.h`, `arch/x86/kernel/setup.c`; ronx's column is what
`tests/qemu/test_kaslr.py` boots.

| | Linux i386, `CONFIG_RANDOMIZE_BASE` | ronx, `kaslr` |
|---|---|---|
| on by | the config option; `nokaslr` turns it off | `kaslr` on the command line; off by default (the handouts' addresses) |
| what moves | the decompressed image's physical address; on 32-bit the virtual address is the same choice (only x86-64 picks a separate virtual one) | the image's physical base; virtual moves with it (virt = phys + 0xc0000000) |
| range | RAM entries of the e820 map clipped to `KERNEL_IMAGE_SIZE` (512 MiB), from the smaller of the load address and 512 MiB | RAM entries of the memory map between 1 MiB and 64 MiB (the early map) |
| step | `CONFIG_PHYSICAL_ALIGN` | 4 KiB |
| avoided | the compressed kernel, initrd, command line, boot parameters (`mem_avoid`) | the loaded image, the multiboot information and what it points to, the initrd |
| entropy | `kaslr_get_random_long()`: RDRAND, RDTSC, the i8254 timer, mixed | RDRAND where the CPU has it, else RDTSC mixed |
| dmesg | `Kernel Offset: 0x... from 0x... (relocation range: ...)` or `Kernel Offset: disabled`, on a panic (`dump_kernel_offset()`, a panic notifier in `arch/x86/kernel/setup.c`) | `Kernel Offset: 0x... from 0xc0100000` at boot, or `Kernel Offset: disabled` |
| slots on QEMU | — | 15,821 on 128 MiB (13.9 bits), 3,501 on 16 MiB (11.8 bits) |
| modules' area | x86 `get_module_load_offset()`: 1 to 1024 pages into the area when KASLR is on | the same: the first module 1 to 1024 pages (10 bits) into 0xf8000000-0xfc000000 |
| process stack and mmap (on by default, `norandmaps` off) | stack top: STACK_RND_MASK 0x7ff pages on i386 (11 bits); mmap base: `mmap_rnd_bits` (8 by default on 32-bit) pages | stack top 0-2047 pages under 0xc0000000 (11 bits); mmap base 0-255 pages above 0x40000000 (8 bits), bottom-up (legacy layout) |"""

# Static: Linux's x86-32 PTI read from its source, beside what test_pti reads
# from QEMU on ronx (nothing booted on Linux for it here).
PTI_SECTION = """

## PTI: Linux 4.19's x86-32 page-table isolation beside ronx's

Not measured on Linux beyond its boot line and getpid's cost (the issue's
numbers; `make bench` measures both kernels): read from Linux's
`arch/x86/mm/pti.c`, `arch/x86/entry/entry_32.S` and
`arch/x86/include/asm/cpu_entry_area.h`; ronx's column is what
`tests/qemu/test_pti.py` reads from QEMU.

| | Linux 4.19+ i386, `CONFIG_PAGE_TABLE_ISOLATION` | ronx, `pti=` |
|---|---|---|
| on by | `pti=auto` (default): on if the CPU is affected by Meltdown; `pti=on`, `pti=off`, `nopti` | the same names and default; affected = Intel without `ARCH_CAPABILITIES.RDCL_NO` (qemu32: on) |
| boot line | `Kernel/User page tables isolation: enabled` / `disabled on command line.` | the same |
| the user copy | a second PGD beside the kernel's (the 8 KiB pair, `PTI_PGTABLE_SWITCH_BIT`) | a second PDPT at +0x800 in the PDPT's own page: CR3 bit 11 |
| kernel half of the user copy | the cpu_entry_area (GDT, TSS, entry stack, IDT...), `.entry.text`, and, without PCID, the kernel text itself, global (`pti_clone_kernel_text()`) | `.entry.text` (RO+X) and `.entry.data` (the IDT, each CPU's GDT, TSS and entry stack; RW+NX) only |
| global pages | kept for the kernel text in both copies when there is no PCID | none while PTI is on (CR4.PGE cleared) |
| entry | `SWITCH_TO_KERNEL_CR3` then `SWITCH_TO_KERNEL_STACK` from the entry stack | the same order: CR3 bit 11 cleared, then the frame copied to `cpu_entry_area.sp0` |
| exit | `SWITCH_TO_ENTRY_STACK`, `SWITCH_TO_USER_CR3` just before `iret` | the same in `ret_from_trap` |
| NMI | a saved-CR3 dance in the NMI path | no NMI handler: a ring-0 entry that finds the user set loaded switches to the kernel set |
| ring 3 touching 0xc0100000 | present (its kernel text is there): error 5/7/0x15 | not present: error 4/6/0x14 |"""


def document(meta, boots, linux, ronx, kt, small, small_section):
    o = []
    w = o.append
    w("# Linux vs ronx: the same RO/NX checks\n")
    w("Generated by `make docs` (`make linux-check`, `linux/report.py`); do not edit by hand.\n")
    w(f"Linux: Debian `linux-image-{meta.get('KVER')}` {meta.get('PKGVER')} (i386, 686-pae) "
      f"in `qemu-system-i386 -accel tcg -cpu qemu32,+nx,+pae` ({meta.get('QEMU')}). "
      "The Linux column is what the `ronx_peer` module read with `lookup_address()` on its own "
      "pages and on the low 1 MiB of the direct map; the `info tlb` column is the same address "
      "read from outside through the QEMU monitor (leaf entry from `info tlb`, confirmed by a "
      "PDPTE/PDE/PTE walk with `xp`). Text, rodata, ... are the module's own sections "
      "(the module is the out-of-tree code; the kernel image's own sections are checked in "
      "`build/results/linux.ktap` as `kernel_*`).\n")
    extra = wx_series.extra_columns(meta)
    deb = ".".join(meta.get("KVER", "?").split(".")[:2])
    if extra:
        w(", ".join(f"Linux {v}" for v in extra) + ": Debian has no i386 image of it, so its column "
          "is the small kernel built from `linux-source-" + "/".join(extra) + "` without the fix "
          "(booted with `pci=bios debug_wx_selftest` or `pci=nobios`, so `wx_check` counts the "
          "planted page in the first table), read with `info tlb` and the PAE walk; "
          "it has no `ronx_peer` module. See the last section.\n")
    if ronx is None:
        w("**ronx: not measured** — `build/results/ronx-checks.json` was not present when this "
          "file was generated.\n")
    for scen, label in (("pci=bios", "acpi=off pci=bios"), ("pci=nobios", "acpi=off pci=nobios")):
        name = {"pci=bios": "debian-bios", "pci=nobios": "debian-nobios"}[scen]
        b = boots[name]
        w(f"\n## {scen} (Linux booted with `{label}`)\n")
        w(f"| check | Linux {deb} | Linux {deb}, info tlb | " + "".join(f"Linux {v}, info tlb | " for v in extra)
          + "ronx | note |")
        w("|---|---|---|" + "---|" * len(extra) + "---|---|")
        r = ronx.get(scen, {}) if ronx else {}
        for c in CHECKS:
            lv = linux.get(scen, {}).get(c, "not measured")
            m = b.module.get(c)
            if c == "wx_check":
                tv = f"W+X pages: {linux.get(scen, {}).get('_tlb_wx', '?')}"
            elif c in INIT_ONLY:
                tv = "freed before it can be read"
            elif c.startswith("write_") or not m or not m.group(6):
                tv = "—"
            else:
                tv = b.tlb_flags(int(m.group(6), 16))
            rv = r.get(c) if ronx else None
            notes = []
            if rv is None:
                rv = "ronx: not measured"
            elif str(rv) != lv:
                notes.append("differs")
            blind = wx_series.blind_versions(small, meta)
            if c == "wx_check" and scen == "pci=bios" and blind:
                notes.append(f"unpatched, the audit of Linux {' and '.join(blind)} on PAE cannot see "
                             "writable pages: W+X pages in info tlb yet it says passed (fixed by "
                             + ", ".join(f"`linux/patches/{v}/`" for v in blind) + ")")
            if c == "low:0x100000" and rv == "RO+X":
                notes.append("ronx loads its kernel at 1 MiB, so 0xc0100000 is its text; "
                             "Debian's kernel starts at 16 MiB, so 1 MiB is free RAM there")
            if tv not in ("—", "freed before it can be read") and c != "wx_check" and tv != lv:
                notes.append("info tlb disagrees with the module")
            xv = "".join(wx_series.main_cell(small, v, scen, c) + " | " for v in extra)
            w(f"| {c} | {lv} | {tv} | {xv}{rv} | {'; '.join(notes)} |")
    d = linux.get("default", {})
    w("\n## Default command line (Linux only)\n")
    w("Linux 6.1 leaves `PCI_PROBE_BIOS` out of its default `pci_probe` on PAE and 64-bit "
      "kernels (`arch/x86/pci/common.c`), so it uses the PCI BIOS only when told `pci=bios`. "
      + ("Accordingly it did not print \"PCI BIOS area is rw and x\" here and 640K-1M stayed NX. "
         if not boots["debian-default"].pcibios() else
         "Yet here it used the PCI BIOS, so 640K-1M is RW+X as with pci=bios. ")
      + "ronx's default follows 2.6.38 instead (it uses a BIOS32 directory when it finds one), "
      "so ronx's default is compared with Linux's `pci=bios` above. "
      + "".join(f"Linux {v}'s tree has `PCI_PROBE_BIOS` in the default on every kernel; its small "
                f"kernel {'did' if small[wx_series.boot_name(v, 'base', 'default')].pcibios() else 'did not'}"
                " use the PCI BIOS with the default command line (see the last section). "
                for v in extra) + "\n")
    w(f"| check | Linux {deb} |\n|---|---|")
    for c in CHECKS:
        w(f"| {c} | {d.get(c, 'not measured')} |")
    secs = re.findall(r"^section (\S+) (0x[0-9a-f]+)", boots["debian-bios"].text, re.M)
    if secs:
        w("\n### Module sections (`/sys/module/ronx_peer/sections`, acpi=off pci=bios)\n\n```")
        w("\n".join(f"{a} {n}" for n, a in sorted(secs, key=lambda x: int(x[1], 16))))
        w("```")
    for name, _, _ in DEBIAN:
        w(f"\n### Boot lines: {name}\n\n```")
        w("\n".join(boots[name].lines) or "(no boot)")
        w("```")
    o.extend(small_section)
    w(KASLR_SECTION)
    w(PTI_SECTION)
    w("\n## KTAP summary\n")
    npass = sum(1 for l in kt.lines if l.startswith("ok"))
    w(f"{npass} ok, {kt.failed} not ok (of {len(kt.lines)}); details in `build/results/linux.ktap`.\n")
    return "\n".join(o) + "\n"


if __name__ == "__main__":
    sys.exit(main())
