# SPDX-License-Identifier: GPL-2.0-only
"""ronx's side of docs/linux-vs-ronx.md: the same readings linux/'s module
takes on Debian's Linux, taken on ronx, written to build/results/ronx-checks.json.

Linux's module reads its own sections, so ronx's readings come from a
module too (hello): its groups from QEMU's `info tlb` at the addresses
lsmod gives, its init region as the kernel recorded it while init ran,
the write tests from `selftest module`. The low 1 MiB and the W^X audit
are the kernel's. Each reading is also checked against the policy."""
import json
import os
import re

import ktap
from guest import BUILD, Guest, boot_extra_moves_image, skip_under_boot_extra
from results import progress
from tlb import PageTables
from test_modules import regions

PAGE_OFFSET = 0xC0000000
LOW = (0x0, 0x9f000, 0xa0000, 0xb8000, 0xf0000, 0x100000)
WRITES = {"writes_to_text_rodata_ro_after_init_fault": ("write_rodata", "write_ro_after_init")}


def readings(g, hole):
    pt = PageTables(g.monitor("info tlb"))
    lsmod = g.command("lsmod")
    core = regions(lsmod)[("hello", "core")]

    def perm(va):
        m = pt.lookup(va)
        return m.perm() if m else "not present"
    out = {"text": perm(core["text"][0]), "rodata": perm(core["ro"][0]),
           "ro_after_init": perm(core["roai"][0]), "data": perm(core["rw"][0]),
           "bss": perm(core["rw"][0] + core["rw"][1] - 1)}
    m = re.search(r"^hello init while running: text (\S+) data (\S+)$", lsmod, re.M)
    out["init_text"], out["init_data"] = m.groups() if m else ("not measured", "not measured")
    for off in LOW:
        out["low:%#x" % off] = perm(PAGE_OFFSET + off)
    for _, name, status, _ in ktap.parse(g.command("selftest module")):
        for key in WRITES.get(name, ()):
            out[key] = "faulted" if status == "ok" else "succeeded"
    wx = g.command("wxcheck")
    n = re.search(r"(\d+) W\+X pages", wx)
    out["wx_check"] = "passed" if "passed" in wx else "%s W+X pages (%s)" % (
        n.group(1) if n else "?", "PCI BIOS hole" if hole else "outside any hole")
    return out


POLICY = {"text": "RO+X", "rodata": "RO+NX", "ro_after_init": "RO+NX", "data": "RW+NX",
          "bss": "RW+NX", "init_text": "RO+X", "init_data": "RW+NX", "low:0x0": "RW+NX",
          "low:0x9f000": "RW+NX", "low:0x100000": "RO+X", "write_rodata": "faulted",
          "write_ro_after_init": "faulted"}


def test_ronx_checks(t):
    result = {"source": "ronx: the hello module's groups (info tlb), its init region as "
                        "recorded while init ran, selftest module, the low 1 MiB, wxcheck"}
    for scenario, cmdline, hole in (("pci=bios", "", True), ("pci=nobios", "pci=nobios", False)):
        with Guest("peer " + scenario, cmdline=cmdline) as g:
            g.wait_ready()
            r = readings(g, hole)
            g.poweroff()
        want = dict(POLICY)
        for off in (0xa0000, 0xb8000, 0xf0000):
            want["low:%#x" % off] = "RW+X" if hole else "RW+NX"
        for key, value in sorted(want.items()):
            desc = "[%s] %s is %s" % (scenario, key, value)
            # phys 1 MiB is the text only where the image was not moved
            if key == "low:0x100000" and skip_under_boot_extra(
                    t, desc, "phys 1 MiB holds the kernel text only at the fixed layout"):
                continue
            t.check(r.get(key) == value, desc, "read %s" % r.get(key))
        result[scenario] = r
    if boot_extra_moves_image():
        progress("peer: ronx-checks.json not written: the table's readings are the default boot's")
        return
    with open(os.path.join(BUILD, "results", "ronx-checks.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
