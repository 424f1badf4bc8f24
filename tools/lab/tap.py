# SPDX-License-Identifier: GPL-2.0
"""tap.py: the lab's one TAP writer.  Every host-driven lab test prints
its results through it (labvm.Tap for the guest tests, qtestlib.Tap for
the device-model tests, the host-only tests directly):

    ok N NAME
    not ok N NAME
    ok N NAME # SKIP WHY
    # diagnostics
    1..N

NAME is the same every run: what a run measures goes in the diagnostics.
Terminal control codes are dropped from diagnostics, so that a log stays
text grep reads.
"""

import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def header():
    """The first line of a program's TAP output."""
    print("TAP version 13", flush=True)


class Tap:
    """Numbered results of one program.  DIAG_LEAD starts each diagnostic
    line; DIAG_TAIL keeps only that many last lines of a diagnostic;
    with DIAG_ON_PASS off, a passing check prints none."""

    def __init__(self, diag_lead="# ", diag_tail=None, diag_on_pass=True):
        self.n = 0
        self.failed = 0
        self.lead = diag_lead
        self.tail = diag_tail
        self.on_pass = diag_on_pass
        self.held = None        # lines kept back (hold(), release())

    def emit(self, line):
        if self.held is not None:
            self.held.append(line)
        else:
            print(line, flush=True)

    def diag(self, text):
        lines = [CONTROL.sub("", x) for x in str(text).splitlines()]
        lines = [x for x in lines if x.strip()]
        for x in lines[-self.tail:] if self.tail else lines:
            self.emit(self.lead + x)

    def check(self, name, ok, diag="", skip=None):
        """One result; returns OK as a bool (a skip is not a failure)."""
        ok = bool(ok)
        self.n += 1
        if skip:
            self.emit("ok %d %s # SKIP %s" % (self.n, name, skip))
        else:
            self.failed += not ok
            self.emit("%s %d %s" % ("ok" if ok else "not ok", self.n, name))
        if diag and (self.on_pass or skip or not ok):
            self.diag(diag)
        return ok

    def hold(self):
        """Keep the next lines back until release()."""
        self.held = []

    def release(self, drop=False):
        lines, self.held = self.held or [], None
        if not drop:
            for x in lines:
                print(x, flush=True)

    def plan(self):
        print("1..%d" % self.n, flush=True)

    def exit_code(self):
        return 1 if self.failed else 0


class Skip(Exception):
    """Raised by a run_cases() case that cannot run here: its check is a
    SKIP with the reason given."""


def run_cases(ns):
    """A host-only unit test's main(): every function case_NAME of the
    namespace NS (a module's globals()), by name, as check NAME: it
    passes when it returns, is skipped when it raises Skip(WHY), fails
    with anything else it raised.  Exit code."""
    header()
    t = Tap(diag_on_pass=False)
    for name, f in sorted(ns.items()):
        if not name.startswith("case_"):
            continue
        try:
            f()
            t.check(name[5:], True)
        except Skip as e:
            t.check(name[5:], True, skip=str(e))
        except Exception as e:      # a crash of the code under test too
            t.check(name[5:], False, repr(e))
    t.plan()
    return t.exit_code()


KTAP_RESULT = re.compile(r"(not )?ok [0-9]+([ \t]|$)")
KTAP_SKIP = re.compile(r"#[ \t]*(SKIP|skip|Skip)")


def count_ktap(text):
    """Count the test cases in KTAP/TAP output as run_kselftest.sh emits
    it: nested tests are prefixed with "# " per level (kselftest) or
    indented by four spaces (the kernel's KTAP, e.g. a test module's
    output from dmesg), in any mix.  Only leaves count: a result line with
    results before it at the next level is a parent.  A failed parent with
    no failed leaf (a test that passed its cases and then crashed or timed
    out) counts as one failure.  The lab's own LAB- lines are not results.
    Returns (passed, failed, skipped, [lines of the failures])."""
    n = {"pass": 0, "fail": 0, "skip": 0}
    failures = []
    nchild, subfail = {}, {}
    maxd = 0
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.startswith("LAB-"):
            continue
        depth = 0
        while True:
            if line.startswith("# "):
                line = line[2:]
            elif line.startswith("    "):
                line = line[4:]
            else:
                break
            depth += 1
        if not KTAP_RESULT.match(line):
            continue
        status = "fail" if line.startswith("not ") else "pass"
        if KTAP_SKIP.search(line):
            status = "skip"
        if not nchild.get(depth + 1):           # a leaf
            n[status] += 1
            if status == "fail":
                failures.append(line)
                subfail[depth] = subfail.get(depth, 0) + 1
        else:                                   # a parent: leaves counted
            inside = subfail.get(depth + 1, 0)
            if status == "fail" and not inside:
                n["fail"] += 1
                failures.append(line + " (no failed case inside)")
                subfail[depth] = subfail.get(depth, 0) + 1
            subfail[depth] = subfail.get(depth, 0) + inside
            for d in range(depth + 1, maxd + 1):
                nchild[d] = subfail[d] = 0
        nchild[depth] = nchild.get(depth, 0) + 1
        maxd = max(maxd, depth)
    return n["pass"], n["fail"], n["skip"], failures
