#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kernel_faults.py: the kernel's own fault injection aimed at our drivers.

    tools/testing/selftests/net/dbbatch/kernel_faults.py \
        [--kernel 6.12-debug ...]
        [--driver igc_batch|octep_fix ...] [--modules-K DIR] [--keep DIR]

failslab and fail_page_alloc (CONFIG_FAULT_INJECTION, debugfs) fail
allocations whose call stack passes through the driver's module (the
stack-trace filter, require-start/require-end set to the module's
memory; not those inside the kernel's IRQ core, which does not handle
their failure), GFP_KERNEL ones too,
while the lab generator sends traffic through the router guest, in two
phases: the guest changes ring sizes and queue counts and bounces the
ports, with only its own tasks failing (make-it-fail, task-filter: ring,
page pool and vector allocations at ethtool -G/-L and open); then the
datapath alone (page refills in NAPI, skb builds).  The paths a router
hits when memory runs short.  A page pool serves most refills from its
recycled pages, so a third phase fails page_pool_alloc_pages() itself
under traffic (fail_function, as the kernel's drivers/net/hw/
pp_alloc_fail.py does, armed before the traffic starts): every refill
the pool refuses must be counted by the driver and the ring must come
back (octep_fix; igc_batch allocates its receive pages itself, without a
page pool: its refills meet the first two phases' fail_page_alloc, and
igc_batch_extras.py forces them with the driver's own injector).  Per
driver, one boot on two ports of its model:

  the injectors fired inside the driver in the first phase (in the
  second a driver that recycles its pages and skbs may allocate nothing);
  the driver said what failed (a changed setting refused, the port left
  closed with a message, RX allocation failures counted in ethtool -S);
  no WARNING, BUG, Oops, KASAN, lockdep or RCU report, nor a stack other
  than an allocation failure's own report;
  once the faults stop, the ports come up and forward losslessly (model
  == generator == sink) with nothing published late by the watchdog;
  kmemleak finds no unreferenced object allocated from the driver, also
  after rmmod;
  page_pool_alloc_pages() failed under traffic, and the driver's RX
  allocation failures (ethtool -S) went up by exactly that many.

Needs a kernel with fault injection and kmemleak: the lab's debug build
(6.12-debug, tools/lab/build-debug-kernel.sh); on another kernel every
check is a SKIP.  EMULATED (QEMU TCG).  KTAP on stdout; exit 0 when every
check passed.
"""

import os
import re
import subprocess
import sys

from lablib import labvm, router  # noqa: E402
import octep  # noqa: E402  (tools/lab/octep.py)

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = []  # make check-debug runs it (tools/check-debug.sh)


# The lossless step after the faults, at a rate the debug kernel (the only
# one with fault injection) forwards without loss.
RATE, COUNT = labvm.DEBUG_LOW_STEP
FAULT_RATE = 5000               # background traffic while faults fire
FAULT_SECONDS = 20              # the changes under faults (phase 1)
DATAPATH_SECONDS = 10           # traffic only (phase 2)
TIMES = 400                     # failures each injector may force
POOL_TIMES, POOL_INTERVAL = 100000, 7  # phase 3: every 7th refill fails
PERCENT = 20                    # of the allocations from the driver

# Allocation failures the kernel reports itself (warn_alloc's stack, the
# injector's line): expected here, any other stack is a finding.
ALLOC_REPORT = re.compile(r"page allocation failure|FAULT_INJECTION|"
                          r"forcing a failure")
BAD = re.compile(r"WARNING|BUG:|Oops|KASAN|KFENCE|UBSAN|general protection|"
                 r"possible circular|inconsistent lock|suspicious RCU|"
                 r"sleeping function called|hung_task|soft lockup|"
                 r"refcount_t|ODEBUG|left unpublished|still held after|"
                 r"unreferenced object")

ARM = """
D=/sys/kernel/debug
[ -d $D/failslab ] && [ -d $D/fail_page_alloc ] || { echo "@@NOFI"; exit 0; }
set -- $(awk '$1 == "%(mod)s" {print $2, $6}' /proc/modules)
size=$1 base=$2
[ -n "$base" ] || { echo "@@NOMOD"; exit 3; }
end=$(printf '0x%%x' $((base + size)))
# Never fail allocations made inside the kernel's IRQ core (kernel/irq,
# from irqdesc.c's free_desc() to proc.c's unregister_handler_proc()):
# it does not handle them.  Seen here: /proc/irq/N entries it failed to
# create and then warned about at free_irq() (remove_proc_entry: "name
# 'smp_affinity'"), and a KASAN use-after-free in show_interrupts() of a
# descriptor freed at pci_free_irq_vectors(), likely left in the sparse
# IRQ maple tree by an erase whose node allocation failed.  Reports on
# the core's error handling, not the driver's.
set -- $(sort /proc/kallsyms | awk '
	$3 == "free_desc" || $3 == "irq_free_descs" {
		if (!s || $1 < s) s = $1 }
	e == "want" && $3 !~ /^__pfx_/ {e = $1}
	$3 == "unregister_handler_proc" {e = "want"}
	END {if (s && e != "want" && e) print "0x" s, "0x" e}')
rstart=${1:-0} rend=${2:-0}
for f in failslab fail_page_alloc; do
	F=$D/$f
	echo 0 >$F/probability
	echo N >$F/task-filter
	echo N >$F/ignore-gfp-wait
	[ -e $F/cache-filter ] && echo N >$F/cache-filter
	[ -e $F/ignore-gfp-highmem ] && echo N >$F/ignore-gfp-highmem
	[ -e $F/min-order ] && echo 0 >$F/min-order
	echo $base >$F/require-start
	echo $end >$F/require-end
	echo $rstart >$F/reject-start
	echo $rend >$F/reject-end
	echo 32 >$F/stacktrace-depth
	echo 0 >$F/space
	echo 1 >$F/interval
	echo 1 >$F/verbose
	echo %(times)d >$F/times
done
echo "@@RANGE $base $end, not $rstart $rend"
"""

# Two phases, each with its own budget of TIMES failures per injector.
# 1. The driver's process-context work: only the tasks of this shell
#    (make-it-fail, inherited by ethtool and ip; task-filter on), while
#    it changes ring sizes and queue counts and bounces the ports: ring,
#    page pool and vector allocations fail; a datapath failing at 20 %%
#    would otherwise spend the budget in a second.
# 2. The datapath: NAPI refills and skb builds in softirq under traffic
#    (task-filter off).
FIRE = """
D=/sys/kernel/debug
budget() { echo "$((%(times)d - $(cat $D/failslab/times))) $((%(times)d - $(cat $D/fail_page_alloc/times)))"; }
for f in failslab fail_page_alloc; do
	echo Y >$D/$f/task-filter; echo %(pct)d >$D/$f/probability
done
echo 1 >/proc/$$/make-it-fail
A=%(a)s B=%(b)s refused=0 changes=0
t0=$(date +%%s)
while [ $(($(date +%%s) - t0)) -lt %(secs)d ]; do
	for c in "-G $A rx 512 tx 512" "-L $A combined 1" "-G $B rx 512 tx 512" \\
		 "-L $B combined 1" "-G $A rx %(ring)s tx %(ring)s" \\
		 "-L $A combined %(q)s" "-G $B rx %(ring)s tx %(ring)s" \\
		 "-L $B combined %(q)s"; do
		changes=$((changes + 1))
		ethtool $c >/dev/null 2>&1 || refused=$((refused + 1))
	done
	for d in $A $B; do
		ip link set $d down; ip link set $d up 2>/dev/null ||
			refused=$((refused + 1))
		changes=$((changes + 1))
	done
done
echo 0 >/proc/$$/make-it-fail
for f in failslab fail_page_alloc; do echo 0 >$D/$f/probability; done
echo "@@FIRED1 $(budget)"
echo "@@CHANGES $changes $refused"
"""

# Phase 2, with fresh traffic (phase 1's ring changes may outlast the
# first generator run on a slow kernel).
DATAPATH = """
D=/sys/kernel/debug
budget() { echo "$((%(times)d - $(cat $D/failslab/times))) $((%(times)d - $(cat $D/fail_page_alloc/times)))"; }
for f in failslab fail_page_alloc; do
	echo N >$D/$f/task-filter; echo %(times)d >$D/$f/times
	echo %(pct)d >$D/$f/probability
done
sleep %(secs2)d
for f in failslab fail_page_alloc; do echo 0 >$D/$f/probability; done
echo "@@FIRED2 $(budget)"
"""

# Phase 3: the page pool refuses refills (fail_function on the function
# pp_alloc_fail.py names), every POOL_INTERVAL-th call.  Armed on the
# idle guest, then the traffic: armed while a vCPU runs the function, the
# kprobe's text patching under TCG left it unfailed (0 forced in three
# runs).  No stack-trace filter: taken inside the kprobe's handler, the
# trace stops at the ftrace trampoline and never shows the caller;
# nothing but the driver's rings allocates from a page pool in this
# guest.  The budget is never used up in the window: at the last unit
# two CPUs could both fail a call.
POOL_ARM = """
F=/sys/kernel/debug/fail_function
[ -d $F ] || { echo "@@NOFF"; exit 0; }
echo page_pool_alloc_pages >$F/inject || { echo "@@NOFF"; exit 0; }
echo 0 >$F/verbose; echo N >$F/task-filter; echo 0 >$F/space
echo 0 >$F/require-start; echo 0xffffffffffffffff >$F/require-end
echo 0 >$F/reject-start; echo 0 >$F/reject-end
echo %(interval)d >$F/interval; echo %(times)d >$F/times
echo 100 >$F/probability
echo "@@ARMED"
"""
POOL_CHECK = ("page_pool_alloc_pages() failed under traffic "
              "(fail_function, as pp_alloc_fail.py): the driver counted "
              "every failure in ethtool -S")
# ... off, and what it forced; off again whatever happened to the arming
POOL_OFF = """
F=/sys/kernel/debug/fail_function
[ -d $F ] || exit 0
echo 0 >$F/probability
echo "@@FIRED3 $((%(times)d - $(cat $F/times)))"
echo >$F/inject
"""

RECOVER = """
A=%(a)s B=%(b)s
for d in $A $B; do
	ethtool -L $d combined %(q)s >/dev/null 2>&1
	ethtool -G $d rx %(ring)s tx %(ring)s >/dev/null 2>&1
	ip link set $d up
done
carrier $A 1 30 && carrier $B 1 30 || { echo "@@NOCARRIER"; exit 4; }
ethtool -l $A | sed -n '/Current/,$p' | grep Combined
ethtool -g $A | sed -n '/Current/,$p' | grep -E '^(RX|TX):'
"""

# kmemleak reports an object only once it has been unreferenced for 5 s
# and seen by two scans.
LEAKS = """
K=/sys/kernel/debug/kmemleak
[ -e $K ] || { echo "@@NOKMEMLEAK"; exit 0; }
echo scan >$K; sleep 6; echo scan >$K
echo "@@LEAKS $(grep -c 'unreferenced object' $K)"
awk '/unreferenced object/ {o = $0} /%(fn)s/ && o {print o; print; o = ""}' $K | head -n 20
"""


def log_findings(out):
    """Lines of OUT (dmesg) that report a defect: BAD anywhere, or a stack
    (Call Trace) that is not an allocation failure's own report."""
    lines = out.splitlines()
    bad = [ln for ln in lines if BAD.search(ln)]
    for i, ln in enumerate(lines):
        if "Call Trace" in ln and not any(
                ALLOC_REPORT.search(x) for x in lines[max(0, i - 20):i]):
            bad.append(ln)
    return bad


def failure_sites(dmesg, driver):
    """{function: n}: the driver's innermost frame in the stack of each
    forced failure (verbose=1 dumps one per failure), most first."""
    sites, inside = {}, False
    for ln in dmesg.splitlines():
        if "forcing a failure" in ln:
            inside = True
        elif inside and "[%s]" % driver in ln:
            m = re.search(r"\s(\w+)\+0x", ln)
            if m:
                sites[m.group(1)] = sites.get(m.group(1), 0) + 1
            inside = False
    return dict(sorted(sites.items(), key=lambda kv: -kv[1]))


def driver_opts(driver, short, a, out):
    """router.options() of DRIVER's boot."""
    mods = labvm.modules_for(a, short) or None
    configs = [router.Config(driver)]
    if driver == "octep_fix":
        return octep.router_opts(short, a, out, configs=configs,
                                 modules=mods)
    return router.options(short, configs=configs, rmem=a.rmem, qemu=a.qemu,
                          smp=a.smp, out=out, flows=router.TEST_FLOWS,
                          gen_args=router.TEST_GEN_ARGS, modules=mods)


def faults_boot(t, short, a, driver):
    out = labvm.run_dir(a.keep and os.path.join(a.keep, driver), short,
                        "dbb-kfault.")
    ra = driver_opts(driver, short, a, out)
    cfg = ra.configs[0]
    r = router.Router(ra, [cfg], router.our_modules(ra, [cfg]))
    prefix = "%s: " % driver
    with router.booted(t, r, prefix + "boot"):
        r.load(cfg)
        r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null; true\n",
                check=False)
        q, ring = r.queues_now, int(r.rings_now.get("RX", 1024))
        rc, out = r.guest(ARM % {"mod": driver, "times": TIMES}, check=False)
        if "@@NOFI" in out:
            for what in ("faults fired", "said what failed", "log clean",
                         POOL_CHECK, "forwarding after",
                         "no leak", "no leak after rmmod"):
                t.check(prefix + what, True, skip="the kernel has no "
                        "fault injection (the lab's 6.12-debug has)")
            return ra.out
        if rc != 0:
            t.check(prefix + "arming failslab and fail_page_alloc", False,
                    out)
            return ra.out
        r.mode_setup("stack")
        e0 = r.ethtool_stats()
        r.guest("dmesg -C\n", check=False)
        fired_out = ""
        for script, secs in ((FIRE, FAULT_SECONDS),
                             (DATAPATH, DATAPATH_SECONDS)):
            if script is DATAPATH:
                r.guest(
                    "ip link set %s up; ip link set %s up\ncarrier %s 1 30; "
                    "carrier %s 1 30\n" % (r.ifa, r.ifb, r.ifa, r.ifb),
                    check=False)
                r.mode_setup("stack")
            gen = r.gen_background(FAULT_RATE, FAULT_RATE * (secs + 5))
            try:
                rc, out = r.guest(script % {
                    "pct": PERCENT, "a": r.ifa, "b": r.ifb,
                    "secs": FAULT_SECONDS, "secs2": DATAPATH_SECONDS,
                    "ring": ring, "q": q, "times": TIMES},
                    timeout=secs * 10 + 120, check=False)
                fired_out += out
            finally:
                gen.kill()
                gen.wait()
        _, dmesg = r.guest("dmesg\n", check=False)
        fired = []
        for ph in "12":
            m = re.search(r"@@FIRED%s (\d+) (\d+)" % ph, fired_out)
            fired.append((int(m.group(1)), int(m.group(2))) if m else (0, 0))
        m = re.search(r"@@CHANGES (\d+) (\d+)", fired_out)
        changes = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        sites = failure_sites(dmesg, driver)
        t.check(prefix + "failslab and fail_page_alloc failed allocations "
                "made by the driver while it changed its rings (in its "
                "datapath under traffic, page-pool and skb recycling may "
                "leave them none)", sum(fired[0]) > 0,
                "forced failures: %d and %d while changing the rings, %d "
                "and %d in the datapath\n%s\nwhere (the driver's "
                "innermost frame, of the reports dmesg kept): %s"
                % (fired[0] + fired[1] + (fired_out, ", ".join(
                    "%s %d" % kv for kv in list(sites.items())[:10]))))
        rc, rec = r.guest(RECOVER % {"a": r.ifa, "b": r.ifb, "ring": ring,
                                     "q": q}, check=False)
        e1 = r.ethtool_stats()
        said = re.findall(r"^.*%s.*(?:fail|could not|cannot|closed|"
                          r"refus|no memory|-12).*$" % re.escape(driver),
                          dmesg, re.M)
        rx_failed = alloc_failed(e1) - alloc_failed(e0)
        t.check(prefix + "what failed was said: changes refused, with "
                "driver messages or RX allocation failures counted "
                "(ethtool -S)", changes[1] > 0 and (said or rx_failed > 0),
                "%d of %d changes refused, %d driver messages, %d RX "
                "allocation failures counted\n%s" % (
                    changes[1], changes[0], len(said), rx_failed,
                    "\n".join(said[:10])))
        bad = log_findings(dmesg)
        t.check(prefix + "no WARNING/BUG/KASAN/lockdep/RCU report and no "
                "stack but allocation-failure reports while the faults "
                "fired", not bad, "\n".join(bad[:20]))
        pool_check(t, r, prefix, driver)
        r.mode_setup("stack")
        row = r.step(cfg, "stack", RATE, COUNT)
        t.check(prefix + "faults off: both ports up with their settings "
                "back, forwarding lossless (model == generator == sink)",
                rc == 0 and octep.counts_agree(row),
                "%s\n%s" % (rec, octep.counts_text(row)))
        r.mode_teardown("stack")
        fn = "igcb_" if driver == "igc_batch" else "octf_"
        _, leaks = r.guest(LEAKS % {"fn": fn}, timeout=300, check=False)
        ours = re.findall(r"^.*%s.*$" % fn, leaks, re.M)
        t.check(prefix + "kmemleak: no unreferenced object allocated from "
                "the driver", "@@LEAKS" in leaks and not ours, leaks)
        _, out = r.guest("rmmod %s; echo \"@@RC $?\"\n" % driver, check=False)
        _, leaks = r.guest(LEAKS % {"fn": fn}, timeout=300, check=False)
        ours = re.findall(r"^.*%s.*$" % fn, leaks, re.M)
        _, dmesg = r.guest("dmesg\n", check=False)
        bad = log_findings(dmesg)
        t.check(prefix + "rmmod: clean, no leak reported by kmemleak, no "
                "report in the log", "@@RC 0" in out and not ours and
                not bad and "@@LEAKS" in leaks,
                "%s\n%s\n%s" % (out, leaks, "\n".join(bad[:20])))
    return ra.out


def alloc_failed(stats):
    """The driver's RX allocation failures, both ports (ethtool -S)."""
    return sum(v for p in "AB" for k, v in stats[p].items()
               if re.search(r"alloc_fail", k))


def pool_check(t, r, prefix, driver):
    """Phase 3: page_pool_alloc_pages() fails every POOL_INTERVAL-th call
    from the driver under traffic; the driver counts each failure it
    met."""
    name = prefix + POOL_CHECK
    if driver == "igc_batch":
        t.check(name, True, skip="igc_batch has no page pool: it maps and "
                "reuses its receive pages itself (igcb_rx_page.c)")
        return
    r.mode_setup("stack")
    e0 = r.ethtool_stats()
    out = ""
    try:
        _, armed = r.guest(POOL_ARM % {"interval": POOL_INTERVAL,
                                       "times": POOL_TIMES}, check=False)
        if "@@ARMED" in armed:
            gen = r.gen_background(FAULT_RATE,
                                   FAULT_RATE * DATAPATH_SECONDS)
            try:
                gen.wait(timeout=DATAPATH_SECONDS * 3 + 30)
            except subprocess.TimeoutExpired:
                gen.kill()
                gen.wait()
    finally:
        _, out = r.guest(POOL_OFF % {"times": POOL_TIMES}, check=False)
    if "@@NOFF" in armed:
        t.check(name, True, skip="no fail_function for page_pool_alloc_pages "
                "in this kernel (CONFIG_FAIL_FUNCTION)")
        return
    r.drain()
    e1 = r.ethtool_stats()
    m = re.search(r"@@FIRED3 (\d+)", out)
    forced = int(m.group(1)) if m else -1
    counted = alloc_failed(e1) - alloc_failed(e0)
    t.check(name, forced > 0 and counted == forced,
            "forced %d, counted (RX alloc_failed, both ports) %d\n%s\n%s"
            % (forced, counted, armed.strip(), out.strip()))


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--driver", action="append",
                    choices=["igc_batch", "octep_fix"])
    labvm.modules_args(ap)
    ap.add_argument("--keep", help="keep the run directories in DIR")
    ap.add_argument("--smp", type=int, default=2)
    a = ap.parse_args()
    a.qemu = labvm.qemu_binary(a.qemu)
    a.kernel = a.kernel or ["6.12-debug"]
    drivers = a.driver or ["igc_batch", "octep_fix"]
    return labvm.run_per_kernel(a, lambda t, short: [
        t.boot(lambda d=d: faults_boot(t, short, a, d)) for d in drivers])


if __name__ == "__main__":
    sys.exit(main())
