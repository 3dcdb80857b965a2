#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's rooms stay what docs/design.md says they are (issue 29).

Two rules, read from the tree and from the built objects:

- every folder of kernel/, mm/ and modload/ that holds C has a README.md
  whose first paragraph (after its heading) is one sentence saying what
  the folder is, and docs/design.md's picture of the rooms names it;
- no lower room calls up into the two top rooms, kernel/shell/ and
  kernel/selftest/: `nm` on every object the Makefile builds from
  kernel/, mm/, modload/ and boot/, and no object outside those two uses
  a symbol defined in them. A shell command, a crash type and a KTEST
  register themselves with a record in a linker section (.shell_cmds,
  .crashtypes, .ktests) that the shell or the test runner walks: that is
  no symbol, so no arrow. The calls up that the design allows are
  UPCALLS below, each with its reason; one that no longer happens is
  reported too, so the list stays true.

Its first check runs the rule on objects gcc builds from a planted tree
(one up-call, one call down), so that a checker broken by a change finds
out. Writes build/results/rooms.ktap.

    python3 tests/docs/check_rooms.py [--build DIR]"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOP = ("kernel/shell", "kernel/selftest")
CODE = ("kernel", "mm", "modload")
# (object, symbol): why this one call goes up
UPCALLS = {
    ("kernel/main.o", "shell_run"):
        "boot ends by handing the console to the shell, as Linux's kernel_init() ends in /sbin/init",
    ("kernel/main.o", "ro_after_init_test_boot"):
        "the image self-test writes a __ro_after_init value before mark_rodata_ro() seals it, "
        "as Linux's mark_rodata_ro() calls rodata_test()",
}


def rooms(root):
    """Every folder of CODE (relative to root) that holds a .c file."""
    out = []
    for top in CODE:
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            if any(n.endswith(".c") for n in names):
                out.append(os.path.relpath(d, root))
    return out


def sentence_problem(root, room):
    """None if room/README.md opens with one sentence; else what is wrong."""
    path = os.path.join(root, room, "README.md")
    if not os.path.exists(path):
        return "%s/ has no README.md saying what it is" % room
    with open(path) as f:
        paras = [p for p in re.split(r"\n\s*\n", f.read()) if p.strip()]
    body = [p for p in paras if not p.lstrip().startswith(("#", "<!--"))]
    if not body:
        return "%s/README.md has no sentence" % room
    text = " ".join(body[0].split())
    # a full stop, then a capital: a second sentence ("e.g." and file names stay one)
    if not text.endswith(".") or re.search(r"[.!?]\s+[A-Z]", text):
        return "%s/README.md: its first paragraph is not one sentence: %r" % (room, text[:120])
    return None


def design_rooms(root):
    """The text of docs/design.md's section "The rooms"."""
    with open(os.path.join(root, "docs", "design.md")) as f:
        text = f.read()
    m = re.search(r"^## The rooms\n(.*?)(?=^## )", text, re.M | re.S)
    return m.group(1) if m else ""


def symbols(obj):
    """(defined globals, undefined) of one object, by nm."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "BDGRSTVW" and f[1].isupper():
            defined.add(f[2])
    return defined, undefined


def in_top(rel):
    return any(rel.startswith(t + "/") for t in TOP)


def upcalls(objs):
    """objs: {relative object path: (defined, undefined)}. Every
    (object, symbol, defining object) where an object outside TOP uses a
    symbol an object in TOP defines."""
    owner = {}
    for rel, (defined, _) in objs.items():
        if in_top(rel):
            for s in defined:
                owner.setdefault(s, rel)
    return sorted((rel, s, owner[s]) for rel, (_, undefined) in objs.items()
                  if not in_top(rel) for s in undefined if s in owner)


def built_objects(root, build):
    """{object relative to build: symbols} for every source the Makefile
    builds into the kernel (KERNEL_DIRS' .c, boot/'s .asm); missing ones
    listed apart."""
    objs, missing = {}, []
    for top in CODE + ("boot",):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".asm")):
                    rel = os.path.relpath(os.path.join(d, os.path.splitext(n)[0] + ".o"), root)
                    path = os.path.join(build, rel)
                    if os.path.exists(path):
                        objs[rel] = symbols(path)
                    else:
                        missing.append(rel)
    return objs, missing


def judge(found):
    """The problems in found (upcalls()'s list): calls up not in UPCALLS,
    and UPCALLS entries that no longer happen."""
    bad = ["%s uses %s, defined in %s: a call up into %s" % (o, s, d, os.path.dirname(d))
           for o, s, d in found if (o, s) not in UPCALLS]
    seen = {(o, s) for o, s, _ in found}
    bad += ["UPCALLS lists %s -> %s, which no longer happens: take it off" % k
            for k in sorted(UPCALLS) if k not in seen]
    return bad


PLANT = {
    "kernel/shell/cmd.c": "int shell_word(void) { return 1; }\n"
                          "int mm_thing(void);\nint cmd(void) { return mm_thing(); }\n",
    "mm/thing.c": "int shell_word(void);\nint mm_thing(void) { return 2; }\n"
                  "int mm_up(void) { return shell_word(); }\n",
    "kernel/selftest/t.c": "int mm_thing(void);\nint t(void) { return mm_thing(); }\n",
}


def sample_problems():
    """The rule on gcc's objects of PLANT: exactly mm/thing.o's call up."""
    tmp = tempfile.mkdtemp(prefix="rooms-")
    try:
        objs = {}
        for rel, src in PLANT.items():
            c = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(c), exist_ok=True)
            with open(c, "w") as f:
                f.write(src)
            o = c[:-2] + ".o"
            subprocess.run(["gcc", "-m32", "-c", c, "-o", o], check=True)
            objs[rel[:-2] + ".o"] = symbols(o)
        got = upcalls(objs)
        want = [("mm/thing.o", "shell_word", "kernel/shell/cmd.o")]
        return [] if got == want else ["planted tree: found %s, expected %s" % (got, want)]
    except (OSError, subprocess.CalledProcessError) as e:
        return ["planted tree: could not build it: %s" % e]
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the built tree (default: build/)")
    opts = ap.parse_args()
    out, n, failed = [], 0, 0

    def check(ok, desc, notes=()):
        nonlocal n, failed
        n += 1
        failed += not ok
        out.append("%sok %d %s" % ("" if ok else "not ", n, desc))
        out.extend("# " + x for x in notes)

    bad = sample_problems()
    check(not bad, "the check itself finds the one call up of a planted tree of gcc objects", bad)
    picture = design_rooms(ROOT)
    for room in rooms(ROOT):
        bad = sentence_problem(ROOT, room)
        check(not bad, "%s/ has its sentence (README.md)" % room, [bad] if bad else [])
        named = re.search(r"(?<![\w/])%s/" % re.escape(room), picture)
        check(bool(named), "docs/design.md's picture of the rooms names %s/" % room,
              [] if named else ["docs/design.md, \"The rooms\": %s/ is not there" % room])
    objs, missing = built_objects(ROOT, opts.build)
    check(not missing, "every kernel source has its object in %s" % os.path.relpath(opts.build, ROOT),
          ["missing %s (run make first)" % m for m in missing[:5]])
    bad = judge(upcalls(objs))
    check(not bad and not missing and len(objs) > 0,
          "no object outside %s uses a symbol defined in them (%d objects, nm)"
          % (" and ".join(t + "/" for t in TOP), len(objs)), bad)
    os.makedirs(os.path.join(ROOT, "build", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "results", "rooms.ktap"), "w") as f:
        f.write("KTAP version 1\n1..%d\n%s\n" % (n, "\n".join(out)))
    for line in out:
        if line.startswith(("not ok", "# ")):
            print(line)
    print("rooms: %d passed, %d failed" % (n - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
