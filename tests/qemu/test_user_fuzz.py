# SPDX-License-Identifier: GPL-2.0-only
"""The system-call fuzzer (bin/fuzz, user/): 100,000 random calls with
kernel addresses, unmapped addresses and huge lengths. No oops, no hang,
no page leaked, no call naming the kernel's half succeeding, and the
kernel's text and rodata byte for byte what they were (read by QEMU's
pmemsave, not by the kernel)."""
import filecmp
import os
import re

from guest import BUILD, Guest
from tlb import kernel_symbols
from userprog import free_pages

CPU_SMEP = "qemu32,+nx,+pae,+smep,+smap"
PAGE_OFFSET = 0xC0000000


def save_image(g, syms, path):
    start, end = syms["_text"], syms["__end_rodata"]
    out = g.monitor('pmemsave 0x%x 0x%x "%s"' % (start - PAGE_OFFSET, end - start, path))
    if out.strip():
        raise RuntimeError("pmemsave: " + out)


def test_user_fuzz(t):
    with Guest("user fuzz", cpu=CPU_SMEP) as g:
        g.wait_ready()
        syms = g.symbols()      # where this boot put the image (kaslr moves it)
        before_img, after_img = os.path.join(g.tmp, "before.bin"), os.path.join(g.tmp, "after.bin")
        save_image(g, syms, before_img)
        before = free_pages(g)
        out = g.command("run fuzz 100000 7", timeout=900)
        m = re.search(r"fuzz: done: (\d+) calls, seed 7; calls naming the kernel's half: (\d+), succeeded: (\d+)", out)
        t.check(m and m.group(1) == "100000", "fuzz: 100,000 calls end", out[-1200:])
        t.check(m and m.group(3) == "0" and int(m.group(2)) > 0,
                "no call naming the kernel's half succeeded", m and m.group(0))
        t.check("fuzz: exit status 0" in out, "the fuzzer exits normally", out[-300:])
        mem = g.command("meminfo")
        t.check("Oopses:            0" in mem, "no oops", mem)
        t.check(free_pages(g) == before, "no page leaked", "before %d, after %d" % (before, free_pages(g)))
        save_image(g, syms, after_img)
        t.check(os.path.getsize(before_img) > 0 and filecmp.cmp(before_img, after_img, shallow=False),
                "kernel text and rodata unchanged (pmemsave before and after)")
        t.check(g.poweroff() == 1, "poweroff after the fuzzer")
