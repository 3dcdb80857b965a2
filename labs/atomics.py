# SPDX-License-Identifier: GPL-2.0-only
"""Whether a lab object changes a shared count atomically, read from its
code (objdump -dr of the object the grade built), not from a run: a lost
update between two CPUs needs the two to meet inside one instruction
window, which no scenario can bring about on demand, and an unlocked
`addb $1,(mem)` has no window the gdbstub could stop a CPU in at all
(it is one instruction to QEMU, two memory accesses to a real CPU).

The count is an array reached through a pointer variable (cow's
frame_refs). Every register loaded from that variable, and every
register or stack slot copied or computed from one, points into the
array (a data-flow pass over each function's branches, to a fixed
point). An access through such a register is an access to a count:

  - every write of a count, in every function of the object (gcc may
    inline the lab's get/put into their callers), must be one
    lock-prefixed read-modify-write: a plain store, an xchg (locked, but
    it stores a value read before it) or an unlocked `add`/`inc` loses
    one of two updates made at once on two CPUs;
  - in the functions that drop a count, no read of a count (nor a call
    of a function that reads one) may follow the locked change: the decision to free must use the locked
    instruction's own result (its flags, xadd's old value), since a
    second read sees the other CPU's change too (both free, or neither);
  - each of the given functions changes a count with a locked
    instruction, itself or through a function of the object it calls:
    a check that found no count change at all has graded nothing.

    problems(obj, "frame_refs", change=["get_user_frame", "put_user_frame"],
             drop=["put_user_frame"], readers=["page_ref_count"])
        -> [one line per problem]
"""
import re
import subprocess

LINE = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
RELOC = re.compile(r"\t([0-9a-f]+): (R_386_\w+)\t(\S+)$")
PREFIXES = {"lock", "rep", "repz", "repe", "repnz", "repne", "data16", "cs", "ds", "es", "fs",
            "gs", "ss", "notrack", "bnd"}
# read-modify-write instructions (without their size suffix): what `lock` may prefix
RMW = {"add", "adc", "sub", "sbb", "inc", "dec", "neg", "not", "and", "or", "xor", "xadd",
       "cmpxchg", "cmpxchg8b", "xchg", "bts", "btr", "btc"}
NO_WRITE = {"cmp", "test", "bt", "push"}
# a call may change these (the i386 ABI's caller-saved registers)
CLOBBERED = ("eax", "ecx", "edx")
FAMILY = {r: f for f, names in {
    "eax": "eax ax al ah", "ebx": "ebx bx bl bh", "ecx": "ecx cx cl ch", "edx": "edx dx dl dh",
    "esi": "esi si", "edi": "edi di", "ebp": "ebp bp", "esp": "esp sp"}.items()
    for r in names.split()}


class Insn:
    def __init__(self, off, text, relocs):
        words = text.split(None, 1)
        self.off, self.text, self.relocs = off, text.strip(), relocs
        self.prefixes = []
        while len(words) > 1 and words[0] in PREFIXES:
            self.prefixes.append(words[0])
            words = words[1].split(None, 1)
        self.mnemonic = words[0] if words else ""
        self.operands = split_operands(words[1]) if len(words) > 1 else []

    @property
    def base(self):
        """The mnemonic without its size suffix (incb -> inc)."""
        m = self.mnemonic
        for root in RMW | NO_WRITE | {"mov"}:
            if m == root or (m[:-1] == root and m[-1] in "bwlq"):
                return root
        return m

    @property
    def locked(self):
        """A locked read-modify-write. Not xchg: locked too, but it stores a
        value computed before it (`__atomic_store_n` is one), as a mov does."""
        return "lock" in self.prefixes and self.base in RMW

    def target(self):
        """The offset a jump or call goes to within the object, or None."""
        if self.mnemonic.startswith(("j", "call")) and self.operands and not self.relocs:
            m = re.match(r"([0-9a-f]+) <", self.operands[0])
            if m:
                return int(m.group(1), 16)
        return None


def split_operands(s):
    out, depth, cur = [], 0, ""
    for ch in s.split("#")[0].strip():
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    return out + [cur.strip()] if cur.strip() else out


def functions(obj):
    """{function: [Insn]} of the object's code."""
    out = subprocess.run(["objdump", "-dr", "-w", "--no-show-raw-insn", obj],
                         capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for ln in out.splitlines():
        m = FUNC.match(ln)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = LINE.match(ln)
        if m and cur is not None:
            text, relocs = m.group(2), []
            r = RELOC.search(text)
            if r:
                relocs.append(r.group(3))
                text = text[:r.start()]
            cur.append(Insn(int(m.group(1), 16), text, relocs))
    return funcs


def is_mem(op):
    return "(" in op or (op and not op.startswith(("%", "$")))


def regs_of(op):
    return {FAMILY[r] for r in re.findall(r"%(\w+)", op) if r in FAMILY}


def slot(op):
    """A stack slot's key, or None: -0x1c(%ebp), 0x8(%esp)."""
    m = re.match(r"^(-?0x[0-9a-f]+|-?\d+)?\((%ebp|%esp)\)$", op)
    return op if m else None


def count_access(i, tainted):
    """The memory operand of i that reaches a count, or None."""
    for op in i.operands:
        if is_mem(op) and not slot(op) and regs_of(op) & tainted:
            return op
    return None


def writes_memory(i, op):
    """Whether i writes its memory operand op."""
    if i.base in NO_WRITE:
        return False
    if i.base == "xchg":
        return True
    return i.operands[-1] == op


def step(i, tainted, var):
    """The tainted set (registers, stack slots) after instruction i."""
    t = set(tainted)
    ops = i.operands
    if i.mnemonic.startswith("call"):
        return t - set(CLOBBERED)
    if not ops:
        return t
    dst = ops[-1]
    dst_regs = regs_of(dst) if dst.startswith("%") else set()
    dst_slot = slot(dst)
    src_tainted = any((s.startswith("%") and regs_of(s) & t) or slot(s) in t
                      for s in ops[:-1]) or (i.base == "lea" and regs_of(ops[0]) & t)
    loads_var = var in i.relocs and i.base == "mov" and is_mem(ops[0]) and dst_regs
    if i.base in ("mov", "lea") or i.mnemonic.startswith(("movz", "movs")):
        # a copy or an address computed from the pointer is the pointer; a
        # value read through it (a count) is not
        keep = loads_var or (src_tainted and not count_access(i, t) and
                             not i.mnemonic.startswith(("movz", "movs")))
    elif i.base in ("add", "sub", "or", "and", "xor", "adc", "sbb"):
        if len(ops) == 2 and ops[0] == ops[1] and i.base in ("xor", "sub"):
            keep = False
        else:
            keep = bool(dst_regs & t) or src_tainted
    elif i.base == "xchg" and len(ops) == 2 and all(o.startswith("%") for o in ops):
        a, b = regs_of(ops[0]), regs_of(ops[1])
        ta, tb = bool(a & t), bool(b & t)
        t -= a | b
        if tb:
            t |= a
        if ta:
            t |= b
        return t
    else:
        keep = bool(dst_regs & t) or bool(dst_slot and dst_slot in t)
    for key in dst_regs | ({dst_slot} if dst_slot else set()):
        if keep:
            t.add(key)
        else:
            t.discard(key)
    return t


def _index(insns):
    """{offset: position} of a function's instructions, made once per function."""
    key = id(insns)
    if _INDEX.get(key, (None,))[0] is not insns:
        _INDEX[key] = (insns, {x.off: n for n, x in enumerate(insns)})
    return _INDEX[key][1]


_INDEX = {}


def successors(insns, k):
    i = insns[k]
    at = _index(insns)
    out = []
    if i.mnemonic.startswith("j") and i.target() in at:
        out.append(at[i.target()])
    if not (i.mnemonic in ("jmp", "ret", "ud2") or i.mnemonic.startswith(("jmp", "ret"))) \
            and k + 1 < len(insns):
        out.append(k + 1)
    return out


def taints(insns, var, entry=frozenset()):
    """[tainted set before each instruction], to a fixed point over the
    branches; entry: what is tainted when the function starts."""
    before = [None] * len(insns)
    if not insns:
        return before
    before[0] = frozenset(entry)
    work = [0]
    while work:
        k = work.pop()
        after = frozenset(step(insns[k], before[k], var))
        for s in successors(insns, k):
            merged = after if before[s] is None else before[s] | after
            if merged != before[s]:
                before[s] = merged
                work.append(s)
    return [b or frozenset() for b in before]


ARG = re.compile(r"^(0x[0-9a-f]+)?\(%esp\)$")


def passed(i, tainted, names):
    """(callee, what is tainted at its start) for a call of a function of
    the object with a pointer into the counts as an argument, or None. gcc
    passes a static function's first three arguments in eax, edx, ecx
    (regparm) and the rest on the stack, where the callee's frame pointer
    finds slot k(%esp) at k+8(%ebp)."""
    if not i.mnemonic.startswith(("call", "jmp")):
        return None
    callee = i.relocs[0] if i.relocs else names.get(i.target())
    if callee is None:
        return None
    entry = {r for r in ("eax", "edx", "ecx") if r in tainted}
    for key in tainted:
        m = ARG.match(key) if isinstance(key, str) else None
        if m:
            entry.add("%#x(%%ebp)" % (int(m.group(1) or "0", 16) + 8))
    return (callee, frozenset(entry)) if entry else None


def analyse(funcs, var):
    """{function: [tainted set before each instruction]}, a pointer into
    the counts followed into the object's functions it is passed to."""
    names = {insns[0].off: name for name, insns in funcs.items() if insns}
    entry = {fn: frozenset() for fn in funcs}
    out, work = {}, list(funcs)
    while work:
        fn = work.pop()
        out[fn] = before = taints(funcs[fn], var, entry[fn])
        for k, i in enumerate(funcs[fn]):
            got = passed(i, before[k], names)
            if got and got[0] in funcs and not got[1] <= entry[got[0]]:
                entry[got[0]] |= got[1]
                work.append(got[0])
    return out


def where(fn, insns, i):
    text = re.sub(r"\s+", " ", i.text)
    if i.relocs and i.mnemonic.startswith(("call", "jmp")):
        text = "%s %s" % (i.mnemonic, i.relocs[0])     # the object's offset means nothing
    return "%s+%#x: `%s`" % (fn, i.off - insns[0].off, text)


def problems(obj, var, change, drop, readers=()):
    funcs = functions(obj)
    bad, locked_in = [], {}
    # gcc may split a function (put_user_frame.part.0) or clone it: what
    # the dropping functions call is graded as they are
    dropping = set().union(*(called(funcs, fn) for fn in drop))
    state = analyse(funcs, var)
    for fn, insns in funcs.items():
        before = state[fn]
        locked_in[fn] = []
        for k, i in enumerate(insns):
            op = count_access(i, before[k])
            if op is None:
                continue
            if writes_memory(i, op):
                if i.locked:
                    locked_in[fn].append(k)
                else:
                    bad.append("%s changes a count (%s[]) without a locked read-modify-write "
                               "(lock add/sub/inc/dec/xadd/cmpxchg): two CPUs changing it at "
                               "once lose one update (a frame freed while mapped, or never)"
                               % (where(fn, insns, i), var))
        if fn in dropping:
            bad += reread(fn, insns, before, locked_in[fn], var, readers)
    for fn in change:
        if fn not in funcs:
            bad.append("%s: expected the function in the lab's object, found none" % fn)
        elif not any(locked_in.get(f) for f in called(funcs, fn)):
            bad.append("%s: expected a locked change of %s[] in it (or a function of the file "
                       "it calls), found none" % (fn, var))
    return bad


def reread(fn, insns, before, locked, var, readers):
    """A read of a count reachable from fn's locked change of one: through
    a pointer into the counts, or a call of one of readers (functions
    outside the object that read a count: page_ref_count())."""
    seen, work = set(), [s for k in locked for s in successors(insns, k)]
    while work:
        k = work.pop()
        if k in seen:
            continue
        seen.add(k)
        i = insns[k]
        op = count_access(i, before[k])
        if op is None and i.mnemonic.startswith(("call", "jmp")) and i.relocs and \
                i.relocs[0] in readers:
            op = i.relocs[0]
        # a read that leads to a locked change again feeds it (a
        # compare-and-swap loop's retry): a read before, not after
        if op is not None and not (i.locked) and \
                not reaches(insns, k, set(locked)):
            first = insns[min(locked)]
            return ["%s reads the count (%s[]) again after the locked change at %s: the free "
                    "decision must use that instruction's own result; another CPU's change "
                    "between the two is seen by both (both free the frame, or neither)"
                    % (where(fn, insns, i), var, where(fn, insns, first))]
        work += successors(insns, k)
    return []


def reaches(insns, k, targets):
    """Whether a path from instruction k reaches one of targets."""
    seen, work = set(), list(successors(insns, k))
    while work:
        n = work.pop()
        if n in targets:
            return True
        if n not in seen:
            seen.add(n)
            work += successors(insns, n)
    return False


def called(funcs, fn):
    """fn and the functions of the object it calls, directly or not."""
    names = {insns[0].off: name for name, insns in funcs.items() if insns}
    out, work = set(), [fn]
    while work:
        f = work.pop()
        if f in out or f not in funcs:
            continue
        out.add(f)
        for i in funcs[f]:
            if i.mnemonic.startswith(("call", "jmp")):
                if i.relocs and i.relocs[0] in funcs:
                    work.append(i.relocs[0])
                elif i.target() in names:
                    work.append(names[i.target()])
    return out
