#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""selftests.py: make check's plan of the host-driven tests, read from the
test directory itself (tools/testing/selftests/net/dbbatch/), so that a
test added there runs without a hand-kept list.

    tools/lab/selftests.py plan --kernels "6.1 6.12" [--rt "6.12-rt"]
    tools/lab/selftests.py run --kernels "6.1 6.12" [--rt "6.12-rt"]
        --logs DIR [--jobs 2] [--times FILE]
    tools/lab/selftests.py expect --kernels ... [--rt ...] [--jobs 2]
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
    alone    true when its checks judge rates or time from the host (a
             saturating step, a hold timed by the host): `run` gives it
             the host to itself; every other run shares the host with one
             more (tools/lab/jobs.py)
    minutes  its expected duration on a 2-core host, for the order and
             the estimate until `run` has measured it on this machine
    part     a word naming the run among the file's runs on one kernel
             (its log is <file>-<part>-<kernel>), where a test is split
             into runs (e.g. an alone part and a shared one)

An empty list says the test is not part of make check (say where it runs
in a comment beside it).  A test without LAB_CHECK is an error: nothing
there may be forgotten.  `plan` prints one run a line, tab-separated:
the log name, the label, the header of its section, and the command as a
shell-quoted string; `list` prints each file and its runs.

`run` runs the plan, --jobs at a time (alone runs by themselves), each
into DIR/<log name>.log with its exit status in DIR/<log name>.rc, and
prints a line when each starts (with the expected end of the whole plan)
and ends (its time and its ok / not ok counts); the durations it measured
go into --times ($DBBATCH_CACHE/check-times.json), the next run's
estimates.  `expect` prints the plan's expected duration in seconds.
"""

import argparse
import ast
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

import jobs
import tap

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


KEYS = {"stage", "kernels", "label", "args", "python", "env", "alone",
        "minutes", "part"}
# A run's expected duration when neither its LAB_CHECK nor a measurement
# says
DEFAULT_MINUTES = 3
CACHE = os.environ.get("DBBATCH_CACHE", "/var/cache/dbbatch")
TIMES = os.path.join(CACHE, "check-times.json")


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
    if not isinstance(r.get("alone", False), bool):
        return "alone is true or false"
    m = r.get("minutes", DEFAULT_MINUTES)
    if isinstance(m, bool) or not isinstance(m, (int, float)) or m <= 0:
        return "minutes is a positive number"
    if not re.fullmatch(r"[a-z0-9_]+", r.get("part", "x")):
        return "part is a word (a-z, 0-9, _)"
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
    """[(sort key, log, label, header, argv, run)] of every run (RUN: its
    LAB_CHECK dict)."""
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
                part = r.get("part")
                runs.append(((r["stage"], order.index(k), f),
                             "-".join(x for x in (stem, part, k) if x),
                             r["label"],
                             " ".join(x for x in (f, part, "on", k) if x),
                             argv, r))
    runs.sort(key=lambda x: x[0])
    logs = [x[1] for x in runs]
    twice = sorted({x for x in logs if logs.count(x) > 1})
    if twice:
        raise SystemExit("selftests: two runs log to %s: give each of a "
                         "file's runs on one kernel its own part"
                         % ", ".join(twice))
    return runs


def read_times(path):
    """{log name: seconds} measured by earlier runs ({} if none)."""
    try:
        with open(path) as f:
            t = json.load(f)
        return {k: float(v) for k, v in t.items()}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def write_times(path, measured):
    """Merge MEASURED into the times file at PATH (best effort: a cache
    that cannot be written only costs the next estimate)."""
    t = read_times(path)
    t.update(measured)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "w") as f:
            json.dump(t, f, indent=1, sort_keys=True)
        os.replace(path + ".tmp", path)
    except OSError as e:
        print("selftests: %s not written: %s" % (path, e), flush=True)


def job_list(runs, times):
    """The jobs (tools/lab/jobs.py) of plan() RUNS, in jobs.order()."""
    return jobs.order([
        {"name": log, "header": header, "argv": argv,
         "alone": bool(r.get("alone", False)),
         "seconds": times.get(log, 60.0 * r.get("minutes",
                                                DEFAULT_MINUTES))}
        for _, log, _, header, argv, r in runs])


def run_all(todo, logs, slots, times_path, out=sys.stdout):
    """Run the jobs TODO (job_list()) SLOTS at a time into LOGS; print a
    line as each starts and ends; record the durations.  Returns the
    number of runs that exited non-zero."""
    os.makedirs(logs, exist_ok=True)
    t0 = time.time()
    pending = list(todo)
    running = {}            # Popen -> (job, start, log file, number)
    measured = {}
    bad = 0
    n = len(pending)
    started = 0

    def say(msg):
        out.write("[%s] %s\n" % (jobs.minutes(time.time() - t0), msg))
        out.flush()

    def stop_all(*_):
        for p in running:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
        raise SystemExit("selftests: stopped; %d runs killed" % len(running))

    old = signal.signal(signal.SIGTERM, stop_all)
    try:
        while pending or running:
            while True:
                i = jobs.pick(pending, [v[0] for v in running.values()],
                              slots)
                if i is None:
                    break
                j = pending.pop(i)
                started += 1
                log = os.path.join(logs, j["name"] + ".log")
                f = open(log, "w")
                p = subprocess.Popen(j["argv"], stdout=f,
                                     stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL,
                                     start_new_session=True)
                running[p] = (j, time.time(), f, started)
                left = [(v[0], v[0]["seconds"] - (time.time() - v[1]))
                        for v in running.values()]
                say("start %d/%d: %s (%s, expected %s; all done in about "
                    "%s)" % (started, n, j["header"],
                             "alone" if j["alone"] else "shared",
                             jobs.minutes(j["seconds"]),
                             jobs.minutes(jobs.makespan(pending, left,
                                                        slots))))
            time.sleep(0.5)
            for p in [p for p in running if p.poll() is not None]:
                j, start, f, k = running.pop(p)
                f.close()
                took = time.time() - start
                measured[j["name"]] = round(took, 1)
                with open(os.path.join(logs, j["name"] + ".rc"), "w") as rc:
                    rc.write("%d\n" % p.returncode)
                bad += p.returncode != 0
                with open(os.path.join(logs, j["name"] + ".log"),
                          errors="replace") as f:
                    ok, nok, skip, _ = tap.count_ktap(f.read())
                ok += skip
                say("end %d/%d: %s in %s: %d ok, %d not ok%s"
                    % (k, n, j["header"], jobs.minutes(took), ok, nok,
                       "" if p.returncode == 0 else
                       ", exit status %d" % p.returncode))
    except KeyboardInterrupt:
        stop_all()
    finally:
        signal.signal(signal.SIGTERM, old)
        if measured:
            write_times(times_path, measured)
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("plan", "run", "expect"):
        p = sub.add_parser(name)
        p.add_argument("--kernels", required=True)
        p.add_argument("--rt", default="")
        if name == "plan":
            continue
        p.add_argument("--jobs", type=int, default=2,
                       help="runs at once (alone runs by themselves)")
        p.add_argument("--times", default=TIMES,
                       help="durations measured before (default %(default)s)")
        if name == "run":
            p.add_argument("--logs", required=True)
    sub.add_parser("list")
    a = ap.parse_args(argv)
    if a.cmd in ("run", "expect"):
        if a.jobs < 1:
            ap.error("--jobs is at least 1")
        todo = job_list(plan(a.kernels.split(), a.rt.split()),
                        read_times(a.times))
        if a.cmd == "expect":
            print(round(jobs.makespan(todo, [], a.jobs)))
            return 0
        return 1 if run_all(todo, a.logs, a.jobs, a.times) else 0
    if a.cmd == "list":
        for f, checks in tests().items():
            print("%s: %s" % (f, ", ".join(
                "stage %d on %s as %r" % (r["stage"], r["kernels"],
                                          r["label"]) for r in checks)
                or "not in make check"))
        return 0
    for _, log, label, header, cmd, _ in plan(a.kernels.split(),
                                              a.rt.split()):
        print("\t".join((log, label, header, shlex.join(cmd))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
