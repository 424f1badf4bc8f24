#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""selftests.py: make check's plan of the host-driven tests, read from the
test directory itself (tools/testing/selftests/net/dbbatch/), so that a
test added there runs without a hand-kept list.

    tools/lab/selftests.py plan --kernels "6.1 6.12" [--rt "6.12-rt"]
    tools/lab/selftests.py list

Every *.py test there (lablib.py is the library) says how make check runs
it in a module-level literal, LAB_CHECK: a list of runs, each a dict

    stage    int: runs are ordered by stage, then kernel, then file name
    kernels  "each" (every --kernels), "first", "rt" (every --rt), or a
             list of kernels (those of --kernels it names)
    label    the prefix of its check names in make check's count
    args     its arguments; {k} is the kernel, {mods} our modules for it
             (<repo>/build/modules/<release>), {repo} the tree
    python   "system" for Debian's /usr/bin/python3 (matplotlib, yaml);
             default python3
    env      {name: value} for the run (e.g. the lab's locks off)

An empty list says the test is not part of make check (say where it runs
in a comment beside it).  A test without LAB_CHECK is an error: nothing
there may be forgotten.  `plan` prints one run a line, tab-separated:
the log name, the label, the header of its section, and the command as a
shell-quoted string; `list` prints each file and its runs.
"""

import argparse
import ast
import os
import shlex
import subprocess
import sys

LAB = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(LAB))
TESTS = os.path.join(REPO, "tools", "testing", "selftests", "net", "dbbatch")
LIBRARY = ("lablib.py",)


def lab_check(path):
    """The LAB_CHECK literal of the test at PATH (SystemExit if none)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "LAB_CHECK"
                for t in node.targets):
            runs = ast.literal_eval(node.value)
            for r in runs:
                why = bad_run(r)
                if why:
                    raise SystemExit("%s: LAB_CHECK: %s in %r" % (path, why,
                                                                   r))
            return runs
    raise SystemExit("%s has no LAB_CHECK: say how make check runs it "
                     "(tools/lab/selftests.py), [] if it does not" % path)


KEYS = {"stage", "kernels", "label", "args", "python", "env"}


def bad_run(r):
    """What is wrong with one LAB_CHECK run R, "" when nothing."""
    if not isinstance(r, dict):
        return "a run is a dict"
    if set(r) - KEYS:
        return "unknown keys %s" % ", ".join(sorted(set(r) - KEYS))
    if {"stage", "kernels", "label"} - set(r):
        return "no %s" % ", ".join(sorted({"stage", "kernels", "label"} -
                                           set(r)))
    if not isinstance(r["stage"], int):
        return "stage is not a whole number"
    k = r["kernels"]
    if not (k in ("each", "first", "rt") or isinstance(k, list)):
        return "kernels is each, first, rt or a list of kernels"
    if r.get("python", "python3") not in ("python3", "system"):
        return "python is system or left out"
    return ""


def tests():
    """{file name: LAB_CHECK} of every test in TESTS."""
    return {f: lab_check(os.path.join(TESTS, f))
            for f in sorted(os.listdir(TESTS))
            if f.endswith(".py") and f not in LIBRARY}


def kernels_of(spec, kernels, rt):
    if spec == "each":
        return kernels
    if spec == "first":
        return kernels[:1]
    if spec == "rt":
        return rt
    return [k for k in kernels if k in spec]   # a list (bad_run)


def release(short):
    return subprocess.run(
        ["bash", "-c", '. "$1/lib/common.sh"; lab_kernel_release "$2"', "-",
         LAB, short], check=True, stdout=subprocess.PIPE,
        text=True).stdout.strip()


def plan(kernels, rt):
    """[(sort key, log, label, header, argv)] of every run."""
    order = kernels + [k for k in rt if k not in kernels]
    rels = {}
    runs = []
    for f, checks in tests().items():
        stem = f[:-3]
        for r in checks:
            for k in kernels_of(r["kernels"], kernels, rt):
                if k not in rels:
                    rels[k] = release(k)
                sub = {"k": k, "repo": REPO,
                       "mods": os.path.join(REPO, "build", "modules",
                                            rels[k])}
                argv = [("/usr/bin/python3" if r.get("python") == "system"
                         else "python3"), os.path.join(TESTS, f),
                        "--kernel", k]
                argv += [a.format(**sub) for a in r.get("args", [])]
                if r.get("env"):
                    argv = ["env"] + ["%s=%s" % kv for kv in
                                      sorted(r["env"].items())] + argv
                runs.append(((r["stage"], order.index(k), f),
                             "%s-%s" % (stem, k), r["label"],
                             "%s on %s" % (f, k), argv))
    return sorted(runs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--kernels", required=True)
    p.add_argument("--rt", default="")
    sub.add_parser("list")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for f, checks in tests().items():
            print("%s: %s" % (f, ", ".join(
                "stage %d on %s as %r" % (r["stage"], r["kernels"],
                                          r["label"]) for r in checks)
                or "not in make check"))
        return 0
    for _, log, label, header, cmd in plan(a.kernels.split(), a.rt.split()):
        print("\t".join((log, label, header, shlex.join(cmd))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
