#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_jobs.py: how make check shares the host between guest tests
(tools/lab/jobs.py: the order, the pick, the expected end) and
selftests.py's LAB_CHECK rules for it ("alone", "minutes"), without a
guest.  Host only: prints TAP.  Exit 0 when every case passed.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
sys.path.insert(0, LAB)
import jobs  # noqa: E402
import selftests  # noqa: E402
import tap  # noqa: E402


def job(name, seconds, alone=False):
    return {"name": name, "seconds": seconds, "alone": alone}


def names(js):
    return [j["name"] for j in js]


def simulate(todo, slots):
    """[(start, end, name)] of TODO run as pick() lets them."""
    now, pending, running, spans = 0.0, list(todo), [], []
    while pending or running:
        while True:
            i = jobs.pick(pending, [j for _, j in running], slots)
            if i is None:
                break
            j = pending.pop(i)
            running.append((now + j["seconds"], j))
            spans.append((now, now + j["seconds"], j["name"]))
        running.sort(key=lambda r: r[0])
        now, _ = running.pop(0)
    return spans


def main():
    t = tap.Tap()
    tap.header()
    plan = [job("a", 60), job("lab", 300, True), job("b", 600),
            job("c", 120), job("fix", 200, True), job("d", 600)]
    o = jobs.order(plan)
    t.check("order: alone runs first in the plan's order, then the shared "
            "ones longest first, ties in the plan's order",
            names(o) == ["lab", "fix", "b", "d", "c", "a"], names(o))

    spans = simulate(o, 2)
    alone = [s for s in spans if s[2] in ("lab", "fix")]
    overlap = [(x[2], y[2]) for x in alone for y in spans
               if x is not y and x[0] < y[1] and y[0] < x[1]]
    t.check("an alone run overlaps no other run", not overlap, overlap)
    most = max(sum(1 for s in spans if s[0] <= x[0] < s[1]) for x in spans)
    t.check("never more runs at once than the slots", most == 2, most)
    end = max(s[1] for s in spans)
    t.check("makespan(): the simulated end (500 alone, then 600 | 600, "
            "120 | 60 after)", jobs.makespan(o, [], 2) == end == 1220,
            "%s %s" % (jobs.makespan(o, [], 2), end))
    t.check("one slot: everything one after another",
            jobs.makespan(o, [], 1) == sum(j["seconds"] for j in plan))
    t.check("a shared job does not start beside a running alone one",
            jobs.pick([job("x", 1)], [job("lab", 1, True)], 2) is None)
    t.check("an alone job waits for an empty host, a shared one behind it "
            "goes first",
            jobs.pick([job("lab", 1, True), job("x", 1)], [job("y", 1)],
                      2) == 1)
    t.check("an empty host takes the first pending job, alone or not",
            jobs.pick([job("lab", 1, True)], [], 2) == 0)
    t.check("full slots start nothing",
            jobs.pick([job("x", 1)], [job("y", 1), job("z", 1)], 2) is None)
    t.check("running jobs count with what they still need",
            jobs.makespan([job("x", 100)], [(job("y", 300), 50)], 2) == 100
            and jobs.makespan([job("x", 100, True)],
                              [(job("y", 300), 50)], 2) == 150)
    t.check("minutes(): 12 min 05 s", jobs.minutes(725) == "12 min 05 s")

    bad = {"stage": 1, "kernels": "each", "label": "x"}
    t.check("LAB_CHECK: alone is a bool, minutes a positive number",
            selftests.bad_run(dict(bad, alone=1)) and
            selftests.bad_run(dict(bad, minutes=0)) and
            selftests.bad_run(dict(bad, minutes="5")) and
            not selftests.bad_run(dict(bad, alone=True, minutes=2.5)))
    runs = [((1, 0, "x.py"), "x-6.1", "x", "x.py on 6.1", ["true"],
             {"minutes": 4}),
            ((1, 0, "y.py"), "y-6.1", "y", "y.py on 6.1", ["true"],
             {"alone": True})]
    js = selftests.job_list(runs, {"x-6.1": 30.0})
    t.check("job_list: a measured time wins over LAB_CHECK's minutes, "
            "DEFAULT_MINUTES when neither",
            [(j["name"], j["seconds"], j["alone"]) for j in js] ==
            [("y-6.1", 60.0 * selftests.DEFAULT_MINUTES, True),
             ("x-6.1", 30.0, False)], js)

    with tempfile.TemporaryDirectory() as d:
        todo = [{"name": "p", "header": "p on k", "alone": False,
                 "seconds": 1, "argv": ["sh", "-c", "echo 'ok 1 a'; "
                                        "echo 'not ok 2 b'; exit 1"]},
                {"name": "q", "header": "q on k", "alone": False,
                 "seconds": 1, "argv": ["sh", "-c", "echo 'ok 1 a'"]}]
        times = os.path.join(d, "times.json")
        with open(os.path.join(d, "out"), "w") as out:
            bad = selftests.run_all(todo, os.path.join(d, "logs"), 2, times,
                                    out)
        with open(os.path.join(d, "out")) as f:
            text = f.read()
        with open(os.path.join(d, "logs", "p.rc")) as f:
            rc = f.read().strip()
        with open(times) as f:
            measured = json.load(f)
        t.check("run_all: logs, exit statuses, one start and one end line "
                "each with the counts, the times kept",
                bad == 1 and rc == "1" and text.count("] start ") == 2 and
                "p on k in 0 min 0" in text and "1 ok, 1 not ok, exit "
                "status 1" in text and sorted(measured) == ["p", "q"],
                text)
        r = subprocess.run([sys.executable, os.path.join(LAB, "selftests.py"),
                            "run", "--kernels", "6.1", "--jobs", "0",
                            "--logs", d], stderr=subprocess.PIPE, text=True)
        t.check("run --jobs 0 is refused with a message",
                r.returncode == 2 and "--jobs" in r.stderr, r.stderr)
    t.plan()
    return t.exit_code()


if __name__ == "__main__":
    sys.exit(main())
