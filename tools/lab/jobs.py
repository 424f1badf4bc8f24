# SPDX-License-Identifier: GPL-2.0
"""jobs.py: how make check shares the host between the lab's guest tests
(tools/lab/selftests.py run).  Pure decisions, no I/O, so that the host-only
tests (tools/lab/tests/test_jobs.py) can check them.

A job is a dict with "name", "seconds" (its expected duration) and
"alone" (true when its checks judge rates or time from the host, which a
second guest on a 2-core host would spoil: it runs with the host to
itself).  Every other job shares the host with one more: a lab guest runs
QEMU's TCG on one host thread, so two of them keep both cores busy.
"""


def order(jobs):
    """The order jobs are offered to pick(): the alone ones first (they
    cannot overlap anything, so they are best out of the way), then the
    shared ones longest first, so that the last to end are short ones
    (longest-processing-time list scheduling).  Stable: ties keep the
    plan's order."""
    alone = [j for j in jobs if j["alone"]]
    shared = [j for j in jobs if not j["alone"]]
    return alone + sorted(shared, key=lambda j: -j["seconds"])


def pick(pending, running, slots):
    """Index into PENDING of the job to start now, or None.  RUNNING: the
    jobs running now; SLOTS: how many may run at once."""
    if not pending or len(running) >= slots:
        return None
    if any(j["alone"] for j in running):
        return None
    if not running:
        return 0
    for i, j in enumerate(pending):
        if not j["alone"]:
            return i
    return None


def makespan(pending, running_left, slots):
    """Seconds until the last job ends, if PENDING (in order()) start as
    pick() lets them and every job takes its expected time.  RUNNING_LEFT:
    [(job, seconds it still needs)] of the jobs running now."""
    now = 0.0
    pending = list(pending)
    running = [(now + max(left, 0.0), j) for j, left in running_left]
    while pending or running:
        while True:
            i = pick(pending, [j for _, j in running], slots)
            if i is None:
                break
            j = pending.pop(i)
            running.append((now + j["seconds"], j))
        if not running:
            # pick() refused with nothing running: cannot happen unless
            # SLOTS < 1; do not loop for ever
            raise ValueError("no job can start with %d slots" % slots)
        running.sort(key=lambda r: r[0])
        now, _ = running.pop(0)
    return now


def minutes(seconds):
    """"12 min 05 s" for a duration in seconds."""
    s = int(round(seconds))
    return "%d min %02d s" % (s // 60, s % 60)
