# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of labs/atomics.py, the reading of a lab object's count
changes: small files with a get and a put of a count reached through a
pointer variable, as mm/cow.c's, compiled by gcc with the kernel's
flags; the honest ways to change a count pass, the racy ones are named."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs"))

import atomics  # noqa: E402

CFLAGS = ["-m32", "-march=i686", "-std=gnu11", "-O2", "-ffreestanding", "-fno-pic", "-fno-pie",
          "-fno-omit-frame-pointer", "-fno-asynchronous-unwind-tables", "-c"]
HEAD = """
extern unsigned char *refs;
void free_page(unsigned long pa);
unsigned char page_ref_count(unsigned long pa);
#define C(pa) (&refs[(pa) >> 12])
"""
LOCKED_GET = "void get(unsigned long pa) { __atomic_fetch_add(C(pa), 1, __ATOMIC_SEQ_CST); }\n"
LOCKED_PUT = ("void put(unsigned long pa) { if (__atomic_sub_fetch(C(pa), 1, __ATOMIC_SEQ_CST) "
              "== 0) free_page(pa); }\n")


def problems(src):
    with tempfile.TemporaryDirectory(prefix="ronx-atomics-test-") as d:
        c, o = os.path.join(d, "t.c"), os.path.join(d, "t.o")
        with open(c, "w") as f:
            f.write(HEAD + src)
        subprocess.run(["gcc"] + CFLAGS + [c, "-o", o], check=True)
        return atomics.problems(o, "refs", change=["get", "put"], drop=["put"],
                                readers=["page_ref_count"])


def expect(src, words):
    got = problems(src)
    if not words:
        assert got == [], (src, got)
        return
    assert any(all(w in ln for w in words) for ln in got), (src, words, got)


def test_locked_changes_pass():
    expect(LOCKED_GET + LOCKED_PUT, None)
    expect("void get(unsigned long pa) { __sync_fetch_and_add(C(pa), 1); }\n"
           "void put(unsigned long pa) { if (__atomic_fetch_sub(C(pa), 1, __ATOMIC_RELAXED) == 1)"
           " free_page(pa); }\n", None)


def test_compare_and_swap_loop_passes():
    """Its read comes before the locked change it feeds, retries included."""
    expect(LOCKED_GET + "void put(unsigned long pa) { unsigned char o; do { o = *(volatile "
           "unsigned char *)C(pa); } while (!__sync_bool_compare_and_swap(C(pa), o, o - 1));"
           " if (o == 1) free_page(pa); }\n", None)


def test_plain_increment_and_decrement_refused():
    expect("void get(unsigned long pa) { (*C(pa))++; }\n" + LOCKED_PUT,
           ["get+", "without a locked read-modify-write"])
    expect(LOCKED_GET + "void put(unsigned long pa) { if (--*C(pa) == 0) free_page(pa); }\n",
           ["put+", "without a locked read-modify-write"])


def test_atomic_load_then_store_refused():
    """__atomic_store_n with SEQ_CST is an xchg: locked, yet a store of a value read before."""
    expect(LOCKED_GET + "void put(unsigned long pa) { unsigned char n = __atomic_load_n(C(pa), "
           "__ATOMIC_SEQ_CST) - 1; __atomic_store_n(C(pa), n, __ATOMIC_SEQ_CST); if (!n) "
           "free_page(pa); }\n", ["xchg", "without a locked read-modify-write"])


def test_read_after_the_locked_change_refused():
    expect(LOCKED_GET + "void put(unsigned long pa) { __atomic_sub_fetch(C(pa), 1, "
           "__ATOMIC_SEQ_CST); if (__atomic_load_n(C(pa), __ATOMIC_SEQ_CST) == 0) "
           "free_page(pa); }\n", ["reads the count", "again after the locked change"])
    expect(LOCKED_GET + "void put(unsigned long pa) { __atomic_sub_fetch(C(pa), 1, "
           "__ATOMIC_SEQ_CST); if (page_ref_count(pa) == 0) free_page(pa); }\n",
           ["call page_ref_count", "again after the locked change"])


def test_read_before_the_locked_change_passes():
    expect(LOCKED_GET + "void put(unsigned long pa) { if (page_ref_count(pa) == 0) return; "
           "if (__atomic_sub_fetch(C(pa), 1, __ATOMIC_SEQ_CST) == 0) free_page(pa); }\n", None)


def test_helpers_followed():
    """A pointer into the counts passed to a function of the file (in a
    register or on the stack) is followed into it."""
    for body in ("return __atomic_add_fetch(c, d, __ATOMIC_SEQ_CST);", "return *c += d;"):
        for attr in ("", "__attribute__((regparm(0)))"):
            src = ("static __attribute__((noinline)) %s unsigned char add(unsigned char *c, int d)"
                   " { %s }\nvoid get(unsigned long pa) { add(C(pa), 1); }\nvoid put(unsigned "
                   "long pa) { if (add(C(pa), -1) == 0) free_page(pa); }\n" % (attr, body))
            expect(src, None if "atomic" in body else ["add+", "without a locked"])


def test_no_change_at_all_refused():
    expect("void get(unsigned long pa) { (void)pa; }\n" + LOCKED_PUT,
           ["get: expected a locked change of refs[]"])


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items())
         if n.startswith("test_") and callable(f)]

if __name__ == "__main__":
    for name, fn in TESTS:
        fn()
        print("ok", name)
