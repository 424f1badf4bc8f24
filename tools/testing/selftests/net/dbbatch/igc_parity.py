#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""igc_parity.py: igc_batch writes the registers upstream igc writes.

    tools/testing/selftests/net/dbbatch/igc_parity.py \
        [--kernel 6.12 ...] [--qemu PATH]
        [--modules-6.12 DIR] [--modules-6.1 DIR] [--allow FILE]
        [--mutant] [--keep DIR]

Issue 14's register-sequence parity.  One boot per kernel (default 6.12
only) of the lab router (tools/lab/router.py, two dbb-igc ports, no
traffic), upstream igc first, then igc_batch, each driven through the
same phases on port A while dbb-igc records every BAR0 access
(`mmio-trace`, tools/lab/qemu/README.md):

  probe     modprobe (both ports bind; A is traced)
  open      ip link set A up, carrier
  ring      ethtool -G A rx 512 tx 512, carrier
  channels  ethtool -L A combined 1, carrier
  link1g    ethtool -s A speed 1000 duplex full autoneg on: renegotiated,
            carrier at 1000 Mb/s
  suspend   system sleep with pm_test=devices (freeze): both drivers'
            suspend and resume callbacks run, carrier again
  txreset   the port reset after a TX hang: dbb-igc stops fetching
            (dma-pause) under 100 pings/s out of A; upstream finds the
            hang and the stack's TX timeout resets the port ("Reset
            adapter"), igc_batch's own hang check does ("resetting the
            port"); the pings stop at the first reset message, the
            device runs again after the phase, carrier (6.12 only: on 6.1
            upstream igc reports "Detected Tx Unit Hang" every 2 s but the
            stack's TX timeout never fires within 60 s, so it never
            resets, and the guest stopped answering after it)
  close     ip link set A down
  remove    rmmod

Then a second boot, "mng", with port A's firmware receiving manageability
traffic (dbb-igc mng-rcv-tco=on: MANC.RCV_TCO_EN), through the phases
that enable receive (probe, open, ring, close, remove): there upstream
flushes the receive FIFO after every receive enable, and so must
igc_batch (no PHY check there; not with --mutant).  dbb-igc models the
erratum as a junk broadcast frame received at every receive enable: a
driver that posts its buffers only after the flush never gets it, so
per driver port A's model must count no received frame.

After probe, close and remove the PHY must be powered down (dbb-igc's
phy-power-down: BMCR.PDOWN, the far end sees no link), after open and
suspend powered up: upstream igc does so on 6.12 (igc_reset when the
port is not running), and each driver is checked (upstream igc's
power-downs are a SKIP on 6.1, whose igc never writes BMCR.PDOWN).

Per phase the writes are compared register by register: each register's
sequence of values written, with DMA addresses (TDBAL/H, RDBAL/H) and
MAC addresses (RAL, RAH bits 15:0) masked.  Registers the interrupt
handlers, the watchdog and NAPI write a timing-dependent number of times
(the tail doorbells TDT/RDT, EICS/EIMS/EIMC/EICR, ICR/ICS/IMS/IMC, EITR,
MDIC reads) compare as the set of values written.  Reads are recorded
but not compared (polling loops read a timing-dependent number of
times).

A difference is allowed when igc_parity.allow (next to this file) lists
its phase (or *) and register, one reason per entry; the same table with
the reasons is in igc_batch.rst.  The test fails on a difference the
list does not have, on a truncated trace and on a failed phase.  Allowed
differences and allow-list entries nothing matched are printed as
diagnostics.

KTAP on stdout; exit 0 when every check passed.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
from lablib import labvm, router, rows  # noqa: E402

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 60, "kernels": "each", "label": "igc parity",
              "minutes": 3,
              "python": "system", "args": ["--modules-{k}", "{mods}"]}]


ALLOW = os.path.join(HERE, "igc_parity.allow")
TRACE_MAX = 1 << 20
DRIVERS = ("igc", "igc_batch")
A_MAC = router.MAC_A

# (phase, guest script with $A the port's interface, $D the driver)
PHASES = (
    ("probe", "modprobe $D || exit 3\nwaitif %s || exit 4\nsleep 1\n"
     % A_MAC),
    # not traced: the same starting point for both drivers (their
    # defaults differ: ring sizes, queues, MTU)
    ("-prep", "ethtool -G $A rx 256 tx 256 || exit 6\n"
     "ethtool -L $A combined 2 || exit 6\nip link set $A mtu 1500\n"),
    ("open", "ip link set $A up\ncarrier $A 1 30 || exit 5\nsleep 1\n"),
    ("ring", "ethtool -G $A rx 512 tx 512 || exit 6\n"
     "carrier $A 1 30 || exit 5\nsleep 1\n"),
    ("channels", "ethtool -L $A combined 1 || exit 6\n"
     "carrier $A 1 30 || exit 5\nsleep 1\n"),
    ("link1g", "ethtool -s $A speed 1000 duplex full autoneg on || exit 6\n"
     "sleep 2\ncarrier $A 1 30 || exit 5\n"
     "ethtool $A | grep -q 'Speed: 1000Mb/s' || exit 8\nsleep 1\n"),
    ("suspend", "echo devices >/sys/power/pm_test || exit 9\n"
     "echo freeze >/sys/power/state || exit 9\necho none >/sys/power/pm_test\n"
     "carrier $A 1 30 || exit 5\nsleep 1\n"),
    ("-txprep", "ip addr add 192.0.2.1/24 dev $A\n"
     "ip neigh replace 192.0.2.2 lladdr 02:00:00:00:00:02 dev $A\n"),
    ("txreset", """RST='Reset adapter|resetting the port'
n0=$(dmesg | grep -cE "$RST")
ping -q -i 0.01 192.0.2.2 >/dev/null 2>&1 &
p=$!
i=0; while [ $i -lt 600 ]; do
	[ "$(dmesg | grep -cE "$RST")" -gt "$n0" ] && break
	sleep 0.1; i=$((i + 1)); done
kill $p; wait $p
[ $i -lt 600 ] || exit 10
sleep 1
""", "dma-pause"),
    ("-txdone", "carrier $A 1 30 || exit 5\nip addr flush dev $A\n"
     "ip neigh flush dev $A\n"),
    ("close", "ip link set $A down\nsleep 1\n"),
    ("remove", "rmmod $D || exit 7\nsleep 0.5\n"),
)

# What the txreset phase makes the kernel say by design: the stack's TX
# timeout (on 6.1 a WARNING from dev_watchdog, which taints W), upstream
# igc's hang report and reset, igc_batch's hang report and reset, and
# igc_batch's answer to the stack's timeout when that fires first (its
# own watchdog looks every 2 s; under TCG the stack's 5 s can win).
TXRESET_LOG = re.compile(r"NETDEV WATCHDOG|transmit queue \d+ timed out|"
                         r"Detected Tx Unit Hang|Reset adapter|"
                         r"TX queue \d+ hung|TX queue \d+ timed out: "
                         r"resetting")
TAINT_WARN = 1 << 9


def txreset_excuse(bad):
    """router.Router.clean's excuse: BAD (kernel log problems) less what
    the txreset phase causes by design, and the taint that explains (W
    for dev_watchdog's WARNING, each with its one Call Trace)."""
    wd = sum(1 for x in bad if "WARNING" in x and "dev_watchdog" in x)
    traces = 0
    left = []
    for x in bad:
        if TXRESET_LOG.search(x) or "dev_watchdog" in x:
            continue
        if "Call Trace" in x and traces < wd:
            traces += 1
            continue
        left.append(x)
    return left, TAINT_WARN if wd else 0


# The PHY's power after a phase (dbb-igc's phy-power-down): upstream
# powers it down whenever the port is not open (igc_reset when not
# running: probe, close; remove keeps it so), and up at open.
PHY_AFTER = {"probe": True, "open": False, "suspend": False, "close": True,
             "remove": True}

# Indexed registers: name, first offset, stride, count.
ARRAYS = (
    ("EITR", 0x1680, 4, 5), ("IVAR", 0x1700, 4, 2), ("MTA", 0x5200, 4, 128),
    ("RAL", 0x5400, 8, 16), ("RAH", 0x5404, 8, 16),
    ("PSRTYPE", 0x5480, 4, 4), ("RETA", 0x5C00, 4, 32),
    ("RSSRK", 0x5C80, 4, 10), ("ETQF", 0x5CB0, 4, 8),
    ("FTQF", 0x59E0, 4, 8), ("IMIR", 0x5A80, 4, 8),
    ("IMIREXT", 0x5AA0, 4, 8), ("TXQCTL", 0x3344, 4, 4),
    ("STQT", 0x3324, 4, 4), ("ENDQT", 0x3334, 4, 4),
    ("TQAVCC", 0x3004, 0x40, 4), ("TQAVHC", 0x300C, 0x40, 4),
    ("RDBAL", 0xC000, 0x40, 4), ("RDBAH", 0xC004, 0x40, 4),
    ("RDLEN", 0xC008, 0x40, 4), ("SRRCTL", 0xC00C, 0x40, 4),
    ("RDH", 0xC010, 0x40, 4), ("RDT", 0xC018, 0x40, 4),
    ("RXDCTL", 0xC028, 0x40, 4), ("RQDPC", 0xC030, 0x40, 4),
    ("TDBAL", 0xE000, 0x40, 4), ("TDBAH", 0xE004, 0x40, 4),
    ("TDLEN", 0xE008, 0x40, 4), ("TDH", 0xE010, 0x40, 4),
    ("TDT", 0xE018, 0x40, 4), ("TXDCTL", 0xE028, 0x40, 4),
)

# Compared as the set of values written (interrupt, watchdog and NAPI
# timing decide how often).  Indexed ones by their base name.
AS_SET = {"TDT", "RDT", "EICS", "EIMS", "EIMC", "EICR", "ICR", "ICS",
          "IMS", "IMC", "EITR", "MDIC(read)", "SWSM", "SW_FW_SYNC"}
DMA = {"TDBAL", "TDBAH", "RDBAL", "RDBAH"}
MDIC_OP_READ = 2 << 26


def register_names():
    """offset -> name: upstream igc's igc_regs.h (from the lab's cache,
    when setup.sh extracted it) and igc_batch's igcb_regs.h, then the
    indexed registers."""
    names = {}
    srcs = [os.path.join(labvm.CACHE, "src", "linux-source-6.1", "drivers",
                         "net", "ethernet", "intel", "igc", "igc_regs.h"),
            os.path.join(labvm.REPO, "drivers", "net", "ethernet", "intel",
                         "igc_batch", "igcb_regs.h")]
    for src in srcs:
        try:
            text = open(src).read()
        except OSError:
            continue
        for name, off in re.findall(
                r"^#define\s+IGCB?_(\w+)\s+(0x[0-9A-Fa-f]{4,5})\b", text,
                re.M):
            names.setdefault(int(off, 16), name)
    # newer than 6.1's igc_regs.h (6.12's igc_tsn.c writes them)
    names.setdefault(0x3354, "TXARB")
    names.setdefault(0x041C, "RETX_CTL")
    for name, base, stride, count in ARRAYS:
        for i in range(count):
            names[base + stride * i] = "%s(%d)" % (name, i)
    return names


def base_name(reg):
    return reg.split("(")[0]


def normalize(accesses, names):
    """Writes of one trace -> {register: [value, ...]} (masked)."""
    out = {}
    for _t, write, off, size, val in accesses:
        if not write:
            continue
        words = [(off, val & 0xFFFFFFFF)]
        if size == 8:
            words.append((off + 4, val >> 32))
        for o, v in words:
            reg = names.get(o, "0x%05X" % o)
            b = base_name(reg)
            if b in DMA:
                v = "dma"
            elif b == "RAL":
                v = "mac" if v else 0
            elif b == "RAH":
                v = "mac|0x%08X" % (v & 0xFFFF0000) if v & 0xFFFF else v
            elif b == "MDIC":
                reg = "MDIC(read)" if (v >> 26) & 3 == 2 else "MDIC(write)"
                if reg == "MDIC(read)":
                    v &= 0x0FFF0000         # op, PHY, register: not data
            if isinstance(v, int):
                v = "0x%08X" % v
            out.setdefault(reg, []).append(v)
    return out


def compare(up, ours):
    """Differences between two normalized phases: [(register, upstream,
    igc_batch)] with the values as text (registers in offset order as
    they first appear)."""
    diffs = []
    for reg in sorted(set(up) | set(ours)):
        a, b = up.get(reg, []), ours.get(reg, [])
        if base_name(reg) in AS_SET or reg in AS_SET:
            a, b = sorted(set(a)), sorted(set(b))
        else:
            a, b = collapse(a), collapse(b)
        if a != b:
            diffs.append((reg, summary(a), summary(b)))
    return diffs


def collapse(vals):
    """The same value written again right after itself counts once."""
    return [v for i, v in enumerate(vals) if i == 0 or vals[i - 1] != v]


def summary(vals):
    if not vals:
        return "not written"
    text = " ".join(vals[:8])
    return text + (" ... (%d writes)" % len(vals) if len(vals) > 8 else "")


def load_allow(path):
    """[(phase or *, register or base name, reason)] from PATH: lines
    "PHASE REGISTER reason...", # comments."""
    entries = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                raise SystemExit("%s:%d: want 'PHASE REGISTER reason'"
                                 % (path, n))
            entries.append(tuple(parts))
    return entries


def allowed(entries, phase, reg):
    for e in entries:
        if e[0] in (phase, "*") and e[1] in (reg, base_name(reg)):
            return e
    return None


def trace(r, on):
    r.qom_set("nicA", "mmio-trace", on)


def dump(r):
    return r.qmp.cmd("qom-get", path="/machine/peripheral/nicA",
                     property="mmio-trace-dump")


def run_driver(t, r, drv, phases, tag=""):
    """PHASES for DRV: {phase: dump}; a failed phase ends the run.  TAG
    prefixes the check names (the mng boot), and there the PHY's power
    is not checked."""
    dumps = {}
    for phase, script, *host in phases:
        if phase in ("-txprep", "txreset", "-txdone") and \
                t.kver.startswith("6.1."):
            if phase == "txreset":
                t.check("%s: txreset" % drv, True, skip="6.1's igc finds "
                        "the hang but the stack's TX timeout never resets "
                        "it (60 s); run on 6.12")
            continue
        if phase.startswith("-"):
            rc, out = r.guest("A=$(ifof %s)\n%s" % (A_MAC, script),
                              check=False)
            t.check("%s%s: %s (not traced)" % (tag, drv, phase[1:]), rc == 0,
                    out)
            continue
        # host: "dma-pause", the device stalled for the phase
        trace(r, True)
        if host:
            r.qom_set("nicA", host[0], True)
        rc, out = r.guest("D=%s\nA=$(ifof %s)\n%s" % (drv, A_MAC, script),
                          timeout=120, check=False)
        if host:
            r.qom_set("nicA", host[0], False)
        trace(r, False)
        if phase in PHY_AFTER and not tag:
            want = PHY_AFTER[phase]
            got = r.qmp.cmd("qom-get", path="/machine/peripheral/nicA",
                            property="phy-power-down")
            name = "%s: %s: PHY %s (BMCR.PDOWN %s), as upstream igc's" % (
                drv, phase, "powered down" if want else "powered up",
                "set" if want else "clear")
            if drv == "igc" and t.kver.startswith("6.1.") and want:
                t.check(name, True, "phy-power-down is %s" % got,
                        skip="6.1's igc never powers the PHY down: the "
                        "BMCR write in igc_power_down_phy_copper() is "
                        "commented out there ('Temporary workaround'); "
                        "6.12's does")
            else:
                t.check(name, got == want, "phy-power-down is %s" % got)
        d = dump(r)
        dumps[phase] = d
        nw = sum(1 for a in d["accesses"] if a[1])
        ok = rc == 0 and not d["truncated"] and d["accesses"]
        t.check("%s%s: %s: ran, traced whole" % (tag, drv, phase), ok,
                "%d accesses, %d writes%s; rc %d%s"
                % (len(d["accesses"]), nw,
                   ", TRUNCATED" if d["truncated"] else "", rc,
                   "\n" + out if not ok else ""))
        if rc != 0:
            break
    return dumps


# --mutant: igc_batch without one init write upstream makes (EEE kept
# off after every MAC reset: IPCNFG, EEER).  The run must fail.
MUTANT = ("drivers/net/ethernet/intel/igc_batch/igcb_main.c",
          "\tigcb_hw_disable_eee(hw);\n", "")


def build_modules(a, short):
    """Our *.ko for SHORT: --modules-K, or built into build/parity/ (the
    mutant with --mutant)."""
    mods = labvm.modules_for(a, short)
    if mods and not a.mutant:
        return mods
    kver = labvm.kernel_release(short)
    mods = os.path.join(labvm.REPO, "build", "parity",
                        "mutant" if a.mutant else "modules", kver)
    labvm.log("building our modules%s for %s into %s"
              % (" (mutant)" if a.mutant else "", kver, mods))
    return labvm.build_modules(short, mods, "parity-build",
                               MUTANT if a.mutant else None)


# The mng boot: port A's firmware receives manageability traffic
# (dbb-igc mng-rcv-tco=on, MANC.RCV_TCO_EN), where upstream flushes the
# receive FIFO after every receive enable (igc_rx_fifo_flush_base).  Only
# the phases that enable receive; no PHY check (with manageability
# igc_batch keeps the PHY on, upstream's check never sees it: its
# asf_firmware_present is never set).
MNG_PHASES = ("probe", "-prep", "open", "ring", "close", "remove")


def one_boot(t, short, a, qemu, mods, entries, used, out, mng):
    """One boot in run directory OUT: both drivers through the phases,
    compared; MNG: the mng boot."""
    os.makedirs(out, exist_ok=True)
    nic = "dbb-igc,mmio-trace-max=%d%s" % (TRACE_MAX,
                                           ",mng-rcv-tco=on" if mng else "")
    ra = router.options(short, configs=[router.Config("igc"),
                                        router.Config("igc_batch")],
                        qemu=qemu, smp=a.smp, out=out, modules=mods,
                        nic_a=nic)
    kos = router.our_modules(ra, ra.configs)
    r = router.Router(ra, ra.configs, kos)
    phases = [p for p in PHASES if not mng or p[0] in MNG_PHASES]
    tag = "mng: " if mng else ""
    with router.booted(t, r, tag + "parity"):
        names = register_names()
        runs = {}
        for drv in DRIVERS:
            rx0 = rows.sum_q(r.truth()["A"], "rx_frames")
            runs[drv] = run_driver(t, r, drv, phases, tag)
            if mng:
                rx = rows.sum_q(r.truth()["A"], "rx_frames") - rx0
                t.check("mng: %s: no frame reached memory with none offered "
                        "(dbb-igc's receive-FIFO junk at each receive "
                        "enable is flushed, never posted)" % drv, rx == 0,
                        "port A's model rx_frames +%d" % rx)
        for phase, *_ in phases:
            if phase.startswith("-") or not all(phase in runs[d] for d in DRIVERS):
                continue
            diffs = compare(*(normalize(runs[d][phase]["accesses"], names)
                              for d in DRIVERS))
            new, known = [], []
            for reg, up, ours in diffs:
                e = allowed(entries, phase, reg)
                line = "%s: upstream %s | igc_batch %s" % (reg, up, ours)
                if e:
                    used.add(e)
                    known.append(line + "  [allowed: %s]" % e[2])
                else:
                    new.append(line)
            t.check("%s%s: igc_batch's writes == upstream igc's, register "
                    "by register (DMA/MAC/doorbells masked), but for the "
                    "allow-list" % (tag, phase), not new,
                    "\n".join(["NEW: " + x for x in new] + known))
        clean, ev = r.clean(router.TAINT_OOT_UNSIGNED, txreset_excuse)
        t.check("%skernel log clean but for the TX timeouts and resets the "
                "txreset phase makes, no guest programming error" % tag,
                clean, ev)


def checks(t, short, a, qemu):
    mods = build_modules(a, short)
    entries = load_allow(a.allow)
    used = set()
    out = labvm.run_dir(a.keep, short, "dbb-parity.")
    one_boot(t, short, a, qemu, mods, entries, used, out, False)
    if not a.mutant:
        one_boot(t, short, a, qemu, mods, entries, used,
                 os.path.join(out, "mng"), True)
    stale = [e for e in entries if e not in used]
    if stale:
        print("# allow-list entries no difference matched (stale?): %s"
              % "; ".join("%s %s" % e[:2] for e in stale), flush=True)
    return out


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    labvm.modules_args(ap)
    ap.add_argument("--allow", default=ALLOW,
                    help="the allow-list (default: %(default)s)")
    ap.add_argument("--mutant", action="store_true",
                    help="run igc_batch built without its EEE-off writes "
                    "(IPCNFG, EEER) after each MAC reset: must fail")
    ap.set_defaults(kernel=None)
    if "--kernel" not in sys.argv:
        sys.argv[1:1] = ["--kernel", "6.12"]
    return labvm.one_boot_test(ap, checks)


if __name__ == "__main__":
    sys.exit(main())
