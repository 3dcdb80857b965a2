# SPDX-License-Identifier: GPL-2.0-only
"""memview (issue 22 item 5) against QEMU's own page tables.

While cowtest's parent and child hold still after fork, `memview -p`
(physical, one character per page) and `memview -p PID` (each area) are
read, then QEMU walks both CR3s page by page: every page memview draws as
present has a PTE, every absent one has none; each private frame is drawn
with its process's pid character, each COW page ('C') sits on a frame
drawn 'S' (shared), and both processes' COW pages on one frame; the
PDPT, page directories and page tables QEMU walked are drawn 'P'; the
count of a pid's characters equals the frames QEMU found it alone maps.
After the child writes, two frames, each its own pid's. The kernel
image's pages ('K') match _text.._end in kernel.elf. The coloured picture
reaches the VGA text screen: QEMU reads it at 0xb8000 with attributes."""
import re
import time

from guest import PROMPT, Guest, skip_under_boot_extra
from tlb import pae_walk
from userprog import PS_LINE, run_park_in_background

FRAME = 0x000FFFFFFFFFF000
PAGE = 4096
ROW = re.compile(r"^([0-9a-f]{8}) (\S+)$", re.M)
AREA = re.compile(r"^(text|rodata|data|bss|heap|mmap|stack) ([0-9a-f]{8})-([0-9a-f]{8})", re.M)


def pid_char(pid):
    return str(pid) if 1 <= pid <= 9 else chr(ord("a") + pid - 10) if pid <= 35 else "@"


def cells(out):
    """address -> character, for every page a memview -p picture draws."""
    res = {}
    for m in ROW.finditer(out):
        base = int(m.group(1), 16)
        for i, c in enumerate(m.group(2)):
            res[base + i * PAGE] = c
    return res


def walk(g, cr3, va):
    """(leaf PTE or None, [table frames walked]) as QEMU reads them."""
    e = pae_walk(g.monitor, cr3, va)
    tables = [x[2] & FRAME for x in e[:-1] if x[2] & 1]
    leaf = e[-1][2] if len(e) == 3 and e[-1][2] & 1 else None
    return leaf, tables


def check_process(t, g, phys, virt, pid, cr3, label):
    """memview's view of pid against QEMU's walk of cr3; {va: frame} of present pages."""
    frames, bad, tables = {}, [], {cr3 & FRAME}
    for va, c in sorted(virt.items()):
        leaf, walked = walk(g, cr3, va)
        tables.update(walked)
        if c == ".":
            if leaf is not None:
                bad.append("%#x drawn absent, QEMU: PTE %#x" % (va, leaf))
            continue
        if leaf is None:
            bad.append("%#x drawn %r, QEMU: not present" % (va, c))
            continue
        frames[va] = leaf & FRAME
        want = "S" if c == "C" or c.islower() else "0" if c == "0" else pid_char(pid)
        got = phys.get(leaf & FRAME)
        if got != want:
            bad.append("%#x (%r) on frame %#x: physical picture %r, want %r"
                       % (va, c, leaf & FRAME, got, want))
    t.check(virt and not bad, "%s: every page memview -p PID draws agrees with QEMU's walk of "
            "CR3 %#x and with the physical picture (%d pages)" % (label, cr3, len(virt)),
            "; ".join(bad[:8]))
    notp = [hex(f) for f in sorted(tables) if phys.get(f) != "P"]
    t.check(not notp, "%s: the PDPT, page directories and page tables QEMU walked are drawn P "
            "(%d)" % (label, len(tables)), "not P: %s" % notp)
    alone = {f for va, f in frames.items() if virt[va] not in "C0" and not virt[va].islower()}
    drawn = sum(1 for c in phys.values() if c == pid_char(pid))
    t.check(drawn == len(alone), "%s: pid %d's character covers exactly the %d frames QEMU "
            "finds it alone maps (drawn %d)" % (label, pid, len(alone), drawn))
    return frames


def views(g, pids):
    phys = cells(g.command("memview -p"))
    virt = {}
    for pid in pids:
        out = g.command("memview -p %d" % pid)
        virt[pid] = cells(out)
    return phys, virt


def kernel_image_pages(g):
    """The image's physical span in this boot (kaslr moves it: Guest.symbols())."""
    sym = g.symbols()
    return sym["_text"] - 0xC0000000, sym["_end"] - 0xC0000000


def test_memview_fork_from_outside(t):
    with Guest("memview") as g:
        g.wait_ready()
        out = g.command("memview -p")
        phys = cells(out)
        t.check(all(phys.get(a) == "#" for a in range(0, 0x100000, PAGE)),
                "the low 1 MiB is drawn firmware/reserved (#)")
        text, end = kernel_image_pages(g)
        image = [phys.get(a) for a in range(text & ~0xFFF, end, PAGE)]
        t.check(image and all(c in "KP." for c in image) and image.count("K") > len(image) * 3 // 4,
                "the kernel image's pages (_text..._end from kernel.elf) are drawn K (its own "
                "page tables P, its freed init pages free)", "".join(c or "?" for c in image))
        t.check(re.search(r"^legend: \. free  # firmware  K kernel image", out, re.M) and
                re.search(r"^pids:$", out, re.M), "a legend, and no pid before a process runs",
                out[-600:])

        s1, s2 = run_park_in_background(g)[0], run_park_in_background(g)[0]
        mark = len(g.out)
        g.send(b"run cowtest hold %d %d &\r" % (s1, s2))
        m = g.wait_for(r"cowtest: child (\d+) of (\d+): shared", start=mark)
        g.wait_for("^" + re.escape(PROMPT), start=mark)
        time.sleep(0.3)
        child, parent = int(m.group(1)), int(m.group(2))
        va = int(re.search(r"cowtest: page at (?:0x)?([0-9a-f]+) holds 'P'", g.out[mark:]).group(1), 16)
        cr3 = {int(p.group(1)): int(p.group(3), 16) for p in PS_LINE.finditer(g.command("ps"))}
        phys, virt = views(g, (parent, child))
        t.check(virt[parent].get(va) == "C" and virt[child].get(va) == "C",
                "after fork: cowtest's page %#x is drawn C (COW-shared) in parent and child" % va,
                "parent %r child %r" % (virt[parent].get(va), virt[child].get(va)))
        g.monitor("stop")
        fp = check_process(t, g, phys, virt[parent], parent, cr3[parent], "after fork, parent")
        fc = check_process(t, g, phys, virt[child], child, cr3[child], "after fork, child")
        g.monitor("cont")
        t.check(fp.get(va) and fp.get(va) == fc.get(va) and phys.get(fp[va]) == "S",
                "after fork: QEMU finds one frame under both COW pages, drawn S",
                "parent %s child %s" % (fp.get(va), fc.get(va)))

        mark = len(g.out)
        g.command("kill %d" % s1)
        for _ in range(100):		# the shell reaps park before a prompt: cowtest goes on
            if "cowtest: child wrote 'C'" in g.out[mark:]:
                break
            g.command("ps")
            time.sleep(0.05)
        g.wait_for(r"cowtest: child wrote 'C'", start=mark)
        time.sleep(0.3)
        phys, virt = views(g, (parent, child))
        g.monitor("stop")
        fp = check_process(t, g, phys, virt[parent], parent, cr3[parent], "after the write, parent")
        fc = check_process(t, g, phys, virt[child], child, cr3[child], "after the write, child")
        g.monitor("cont")
        t.check(fp.get(va) and fc.get(va) and fp[va] != fc[va] and
                phys.get(fp[va]) == pid_char(parent) and phys.get(fc[va]) == pid_char(child),
                "after the child's write: two frames, each drawn as its own pid",
                "parent %s %r child %s %r" % (fp.get(va), phys.get(fp.get(va)), fc.get(va),
                                              phys.get(fc.get(va))))

        mark = len(g.out)
        g.command("kill %d" % s2)
        for _ in range(100):
            if "[%d] cowtest: exit status 0" % parent in g.out:
                break
            g.command("ps")
            time.sleep(0.05)
        out = g.command("memview -p")
        phys = cells(out)
        t.check(not any(c in (pid_char(parent), pid_char(child), "S") for c in phys.values()),
                "after exit: no page drawn as the parent's, the child's or shared", out[-400:])


def vga_screen(g):
    """The 80x25 VGA text screen as QEMU reads it: [(char, attr)] per row."""
    words = []
    for base in range(0xB8000, 0xB8000 + 4000, 512):
        out = g.monitor("xp /256hx 0x%x" % base)
        for line in out.splitlines():
            if ":" in line:
                words += [int(w, 16) for w in re.findall(r"0x([0-9a-f]{4})\b", line.split(":", 1)[1])]
    words = words[:2000]
    return [[(chr(w & 0xFF), w >> 8) for w in words[r * 80:(r + 1) * 80]] for r in range(25)]


def test_memview_colours(t):
    with Guest("memview colours") as g:
        g.wait_ready()
        out = g.command("memview")
        t.check("\033[94mK" in out and "\033[0m" in out, "serial: ANSI colours (K in bright blue)",
                repr(out[:300]))
        screen = vga_screen(g)
        # the picture's rows: "ADDRESS CELLS" (the legend's letters are grey text)
        rows = [row[9:] for row in screen if re.match(r"[0-9a-f]{8} [^ ]", "".join(c for c, _ in row))]
        ks = [(c, a) for row in rows for c, a in row if c == "K"]
        hashes = [(c, a) for row in rows for c, a in row if c == "#"]
        if not hashes and skip_under_boot_extra(
                t, "VGA (read by QEMU at 0xb8000): # grey (0x07)",
                "the moved image's rows push the low 1 MiB's off the 25-line screen"):
            t.check(ks and all(a == 0x09 for _, a in ks),
                    "VGA (read by QEMU at 0xb8000): the picture in colour, K blue (0x09)",
                    "K attrs %s" % sorted({a for _, a in ks}))
        else:
            t.check(ks and all(a == 0x09 for _, a in ks) and hashes and all(a == 0x07 for _, a in hashes),
                    "VGA (read by QEMU at 0xb8000): the picture in colour, K blue (0x09), # grey (0x07)",
                    "K attrs %s, # attrs %s" % (sorted({a for _, a in ks}), sorted({a for _, a in hashes})))
        t.check(not any(c == "\033" for row in screen for c, _ in row),
                "VGA: no ANSI escape bytes on the text screen")
        mark = len(g.out)
        g.send(b"run spin &\r")
        g.wait_for(r"spin: pid \d+ looping", start=mark)
        g.wait_for("^" + re.escape(PROMPT), start=mark)
        mark = len(g.out)
        g.send(b"memview -p -w 5\r")
        g.wait_for(r"^memview -w: frame 2\n", 30, mark)
        g.send(b"q")
        end = g.wait_for("^" + re.escape(PROMPT), 30, mark)
        frames = re.findall(r"^memview -w: frame (\d+)", g.out[mark:end.start()], re.M)
        t.check(2 <= len(frames) < 10, "memview -w redraws every 500 ms and a key stops it "
                "before its 5 s (%d frames)" % len(frames))
        out = g.command("uptime")
        t.check(out.startswith("up "), "the key that stopped memview -w is not taken as a command",
                repr(out))
