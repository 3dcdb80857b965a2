# SPDX-License-Identifier: GPL-2.0-only
"""A nested execve under qemu-i386 is the host kernel's: qemu-user 7.2
hands it over as it is. An x86_64 host runs an i386 program itself only
when it was built with (and boots with) IA32 emulation; without it the
child gets ENOEXEC and sh's and forktest's execve checks fail for a
reason that is not theirs.

host_exec_i386() says whether the host runs one. If not, i386_binfmt()
registers qemu-i386 with binfmt_misc for i386 ELF executables for the
length of the run (root only; binfmt_misc mounted if it is not), and
takes the entry away afterwards. The magic and mask are the ELF header's
fields for ELFCLASS32, little-endian, EM_386, ET_EXEC or ET_DYN.
"""
import contextlib
import errno
import os
import shutil
import subprocess

MISC = "/proc/sys/fs/binfmt_misc"
NAME = "ronx-test-i386"
MAGIC = r"\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00"
MASK = r"\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff"


def host_exec_i386(path):
    """True if the host kernel runs the static i386 program at path itself."""
    try:
        subprocess.run([path], stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
        return True
    except OSError as e:
        if e.errno == errno.ENOEXEC:
            return False
        raise


def _mounted():
    return os.path.exists(os.path.join(MISC, "register"))


@contextlib.contextmanager
def i386_binfmt(probe):
    """Yields None if the host runs i386 programs (natively or already
    through binfmt_misc), or once qemu-i386 is registered for them; else
    yields why it could not be (the caller's checks then say so)."""
    if host_exec_i386(probe):
        yield None
        return
    qemu = shutil.which("qemu-i386")
    why = None
    if os.geteuid() != 0:
        why = "the host cannot exec i386 programs (no IA32 emulation) and only root can register qemu-i386 with binfmt_misc"
    elif not _mounted():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", MISC], capture_output=True)
        if not _mounted():
            why = "the host cannot exec i386 programs and binfmt_misc cannot be mounted at " + MISC
    entry = os.path.join(MISC, NAME)
    registered = False
    if not why:
        try:
            if not os.path.exists(entry):
                with open(os.path.join(MISC, "register"), "w") as f:
                    f.write(":%s:M::%s:%s:%s:\n" % (NAME, MAGIC, MASK, qemu))
                registered = True
        except OSError as e:
            why = "registering qemu-i386 with binfmt_misc failed: %s" % e
    if not why and not host_exec_i386(probe):
        why = "qemu-i386 is registered with binfmt_misc, yet the host still cannot exec i386 programs"
    if not why:
        print("user: the host kernel does not run i386 programs itself; qemu-i386 registered "
              "with binfmt_misc (%s) for this run" % entry, flush=True)
    try:
        yield why
    finally:
        if registered and os.path.exists(entry):
            with open(entry, "w") as f:
                f.write("-1\n")
