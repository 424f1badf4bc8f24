#!/usr/bin/env python3
"""kernel_drivers_net.py: the kernel's own NIC driver selftests
(tools/testing/selftests/drivers/net and drivers/net/hw of Debian's
linux-source-6.12), unmodified, against upstream igc and igc_batch on two
dbb-igc ports, and upstream octeon_ep and octep_fix on two dbb-octep
ports, in one 6.12 lab guest per driver; TAP output and a per-case table.

    tools/testing/selftests/net/dbbatch/kernel_drivers_net.py \
        [--kernel 6.12] [--driver igc --driver igc_batch
        --driver octeon_ep --driver octep_fix]
        [--modules DIR] [--keep DIR] [--rst FILE]

The guest is router.py's with its two ports wired to each other (--wire
loop): the device under test (port A, NETIF) stays in the root namespace,
port B is the remote end in the network namespace "remote"
(REMOTE_TYPE=netns).  The tests are configured only through their own
net.config (drivers/net/net.config and drivers/net/hw/net.config), written
in the guest:

    NETIF=<A>  LOCAL_V4=192.0.2.1  REMOTE_V4=192.0.2.2
    LOCAL_V6=2001:db8:1::1  REMOTE_V6=2001:db8:1::2
    REMOTE_TYPE=netns  REMOTE_ARGS=remote

The shell programs of drivers/net/hw (ethtool*.sh, hw_stats_l3*.sh,
loopback.sh) use net/forwarding's topology instead: after the Python
programs the namespace goes, both ports are in the root namespace, and
net/forwarding/forwarding.config names them NETIFS[p1]=<A>,
NETIFS[p2]=<B> (NETIF_CREATE=no, KSFT_MACHINE_SLOW=yes, and MZ: mausezahn
in bursts of 2,000 frames, each once the last one is received, instead of
ethtool_rmon.sh's 10 us pause between frames, MZ_UNPACED below; each
port's receive ring at its largest); each runs as
"bash PROGRAM" and its lib.sh result lines ("TEST: name [ OK ]") become
cases "<program>.<name>".

They run in the source tree's layout (lib/py finds tools/net/ynl and
Documentation/netlink/specs there), extracted from
/usr/src/linux-source-6.12.tar.xz into $DBBATCH_CACHE/ksft/, with
net/lib/csum built on the host.  The guest carries Debian 12's python3.11
(+ PyYAML), socat, iputils ping, jq, devlink, iperf3, mausezahn,
coreutils' readlink and comm, Debian 12's linux/ethtool.h (ethtool_lib.sh
reads the link-mode bits from it), ethtool 6.1 and iproute2 6.1.

Per driver, the driver's defaults (2 combined queues on the 2-vCPU guest;
upstream igc oopses on "ip link set up" after "ethtool -L combined 4"
there, see the doc), each test program is run as
"python3 PROGRAM" with a bound; every KTAP case line it prints becomes one
TAP line here: "ok" for a pass, "ok ... # SKIP reason" for a skip or an
xfail (the test's reason), "not ok" for a failure, except a failure whose
output shows one of Debian 12's user-space tools too old for the test
(USERSPACE below: a skip naming the tool) or a rate floor of the test
that TCG does not reach (EMULATION: a skip giving the rate).  A program
that dies before it prints a case is one failed case "<program>.setup".
Then per driver the kernel log must be clean (no warning, oops, hang;
taint only O and E) and the model must have logged no guest programming
error.  Finally: every case upstream igc passes, igc_batch passes too, and
every case upstream octeon_ep passes, octep_fix passes too, but for the
hollow passes of HOLLOW (the upstream driver ignored what the case set
and the case cannot tell), listed in the diagnostics.

The table (stdout, the run directory's table.txt and table.json, and with
--rst an RST table for Documentation/) has one row per case and one
column per driver.  Exit 0 when every check passed.

Every guest boot holds /tmp/dbb-guest.lock and the module build
/tmp/dbb-build.lock (DBB_GUEST_LOCK, DBB_BUILD_LOCK; empty: no lock).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
from lablib import labvm, router  # noqa: E402
import octep  # noqa: E402  (tools/lab/octep.py)

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 50, "kernels": ["6.12"],
              "label": "drivers/net selftests",
              "minutes": 10, "python": "system",
              "env": {"DBB_GUEST_LOCK": "", "DBB_BUILD_LOCK": ""},
              "args": ["--driver", "igc_batch", "--driver", "octeon_ep",
                       "--driver", "octep_fix", "--modules", "{mods}"]}]


# Each of our drivers beside the upstream driver of the same model.
PEERS = (("igc", "igc_batch"), ("octeon_ep", "octep_fix"))
OCTEON = PEERS[1]           # on dbb-octep ports

SRC_PKG = "linux-source-6.12"
SRC_TAR = "/usr/src/%s.tar.xz" % SRC_PKG
# What the tests need of the source tree, nothing more.
SRC_PARTS = ("tools/testing/selftests/net/lib",
             "tools/testing/selftests/drivers/net",
             "tools/testing/selftests/net/lib.sh",
             "tools/testing/selftests/net/net_helper.sh",
             "tools/testing/selftests/net/forwarding/lib.sh",
             "tools/testing/selftests/net/forwarding/tc_common.sh",
             "tools/testing/selftests/net/forwarding/ipip_lib.sh",
             "tools/testing/selftests/kselftest.h",
             "tools/testing/selftests/kselftest",
             "tools/net/ynl",
             "Documentation/netlink/specs")
KSFT = "tools/testing/selftests"
# The programs, in the order they run: (directory under KSFT, program).
PROGRAMS = (("drivers/net", "ping.py"), ("drivers/net", "stats.py"),
            ("drivers/net", "queues.py"), ("drivers/net/hw", "csum.py"),
            ("drivers/net/hw", "rss_ctx.py"),
            ("drivers/net/hw", "pp_alloc_fail.py"),
            ("drivers/net/hw", "devlink_port_split.py"),
            # net/forwarding's topology: both ports in the root namespace
            ("drivers/net/hw", "ethtool.sh"),
            ("drivers/net/hw", "ethtool_extended_state.sh"),
            ("drivers/net/hw", "ethtool_mm.sh"),
            ("drivers/net/hw", "ethtool_rmon.sh"),
            ("drivers/net/hw", "hw_stats_l3.sh"),
            ("drivers/net/hw", "hw_stats_l3_gre.sh"),
            ("drivers/net/hw", "loopback.sh"))
# Programs of the same directories not run, and why (in the table).
NOT_RUN = {
    "drivers/net/netcons_basic.sh": "software-only (two netdevsim ports, "
    "never NETIF), and Debian's 6.12 has no netdevsim (CONFIG_NETDEVSIM "
    "unset)",
}
# What net/forwarding/lib.sh's topology builds with (simple_if_init puts
# each port in a VRF; hw_stats_l3*.sh, loopback.sh add tc rules, GRE).
FORWARDING_KMODS = ("vrf", "sch_ingress", "cls_flower", "act_gact",
                    "act_mirred", "ip_gre", "ip6_gre")
PROGRAM_TIMEOUT = 900
# An upstream driver's passes that do not show what the case checks, so
# our driver does not owe them: (driver, case regex, why).
HOLLOW = (
    ("igc", r"^ethtool\.force_speed_\d+_(on_both_ends|vs\._autoneg)$",
     "upstream igc accepts a forced speed and ignores it (it logs \"Force "
     "mode currently not supported\" and keeps auto-negotiating), and the "
     "case only pings; igc_batch refuses it (EOPNOTSUPP, and says to "
     "advertise the one speed): the I225/I226 PHY links only through "
     "auto-negotiation"),
    ("octeon_ep", r"^ethtool\.check_highest_speed$",
     "on a one-mode port the case advertises nothing (ethtool -s DEV "
     "advertise 0); octeon_ep sends that to the firmware, the model's "
     "firmware ignores it, and the case re-reads the unchanged speed; "
     "octep_fix refuses an empty advertisement, which would leave the "
     "port no mode to bring the link up on"),
)
EXPECTED = os.path.join(HERE, "kernel_drivers_net.expected")
LOCAL_V4, REMOTE_V4 = "192.0.2.1", "192.0.2.2"
LOCAL_V6, REMOTE_V6 = "2001:db8:1::1", "2001:db8:1::2"
NETNS = "remote"
TAINT_OK = router.TAINT_OOT_UNSIGNED
# Failures that are Debian 12's user space, not the driver: (regex on the
# case's output, the reason given as its skip).
USERSPACE = (
    (r"ethtool: bad command line argument|ethtool: unrecognized option|"
     r"json output is not (?:supported|available)|"
     r"--json.*not supported|JSONDecodeError",
     "Debian 12's ethtool 6.1 lacks an option the test uses"),
    # The test suite's own: 6.12's csum.py uses cfg.remote_ifname, which
    # 6.12's NetDrvEpEnv does not have (upstream added it in 6.13).
    (r"'NetDrvEpEnv' object has no attribute 'remote_ifname'",
     "6.12's csum.py needs NetDrvEpEnv.remote_ifname, which 6.12's "
     "lib/py lacks (added upstream later)"),
)
# Failures that are the emulator's speed, not the driver: a test's floor
# on a rate that hardware meets and TCG on a shared 2-core host may not
# (pp_alloc_fail.py wants 15,000 received packets/s of iperf3 before it
# injects anything: 11,702/s measured on an idle host).  (regex on the
# case's output whose group is the rate, the least rate excused: below it
# the driver is too slow even for TCG and the case fails, the reason.)
EMULATION = (
    (r"Traffic seems low:',? (\d+)", 4000,
     "EMULATED: %d received packets/s under TCG, below the test's "
     "15,000/s floor (a hardware rate); it stopped before injecting"),
)
# Host tools copied into the guest, beyond router.py's (tool, package).
TOOLS = (("/usr/bin/python3.11", "python3.11"), ("socat", "socat"),
         ("ping", "iputils-ping"), ("jq", "jq"), ("devlink", "iproute2"),
         ("timeout", "coreutils"), ("mausezahn", "netsniff-ng"),
         ("readlink", "coreutils"), ("comm", "coreutils"))
# ethtool_lib.sh reads the link-mode bits from the installed UAPI header
ETHTOOL_H = "/usr/include/linux/ethtool.h"
PY_DIRS = ("/usr/lib/python3.11", "/usr/lib/python3/dist-packages/yaml",
           "/usr/lib/python3/dist-packages/_yaml")


def source_tree():
    """$CACHE/ksft/linux-source-6.12 with SRC_PARTS and net/lib/csum."""
    top = os.path.join(labvm.CACHE, "ksft", SRC_PKG)
    stamp = os.path.join(top, ".parts")
    want = "\n".join(SRC_PARTS) + "\n"
    if not (os.path.exists(stamp) and open(stamp).read() == want):
        if not os.path.exists(SRC_TAR):
            raise SystemExit("%s missing: apt-get install %s (tools/lab/"
                             "setup.sh installs it)" % (SRC_TAR, SRC_PKG))
        labvm.log("extracting the selftests, ynl and the netlink specs from "
                  "%s (about 15 s)" % SRC_TAR)
        shutil.rmtree(top, ignore_errors=True)
        os.makedirs(os.path.dirname(top), exist_ok=True)
        subprocess.run(["nice", "-n", "10", "tar", "-xJf", SRC_TAR, "-C",
                        os.path.dirname(top)] +
                       ["%s/%s" % (SRC_PKG, p) for p in SRC_PARTS],
                       check=True)
        with open(stamp, "w") as f:
            f.write(want)
    lib = os.path.join(top, KSFT, "net/lib")
    csum = os.path.join(lib, "csum")
    if not os.path.exists(csum):
        subprocess.run(["nice", "-n", "10", "gcc", "-Wall",
                        "-Wl,--no-as-needed", "-O2", "-I", os.path.join(
                            top, KSFT), "-o", csum, os.path.join(lib, "csum.c")],
                       check=True)
    return top


def guest_files():
    """{guest path: host path}: python3 and the libraries of its C
    extension modules (lib-dynload, PyYAML's)."""
    files = {"/usr/bin/python3": "/usr/bin/python3.11", ETHTOOL_H: ETHTOOL_H}
    sos = []
    for d in PY_DIRS:
        for root, _, names in os.walk(d):
            sos += [os.path.join(root, n) for n in names if n.endswith(".so")]
    for so in sos:
        out = subprocess.run(["ldd", so], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
        for m in re.finditer(r"(/\S+) \(0x", out):
            files[m.group(1)] = os.path.realpath(m.group(1))
    return files


class KsftRouter(router.Router):
    """router.Router whose initramfs also carries python3, the tools the
    selftests call, the modules net/forwarding's topology loads and the
    source tree (router.py builds it; we add)."""

    KMODS = router.Router.KMODS + FORWARDING_KMODS
    TOOLS = router.Router.TOOLS + TOOLS

    def __init__(self, args, configs, extra_ko, ksrc):
        super().__init__(args, configs, extra_ko, guest_files(),
                         dirs=list(PY_DIRS) + [ksrc])
        self.ksrc = ksrc


def net_config(ifname):
    return ("# written by tools/testing/selftests/net/dbbatch/kernel_drivers_net.py\n"
            "NETIF=%s\nLOCAL_V4=%s\nREMOTE_V4=%s\nLOCAL_V6=%s\n"
            "REMOTE_V6=%s\nREMOTE_TYPE=netns\nREMOTE_ARGS=%s\n"
            % (ifname, LOCAL_V4, REMOTE_V4, LOCAL_V6, REMOTE_V6, NETNS))


def setup_endpoints(r, ksft):
    """B into the netns, addresses on both ends, net.config in both test
    directories; raises if A cannot reach B."""
    A, B = r.ifa, r.ifb
    conf = net_config(A)
    rc, out = r.guest("""
A=%s B=%s K=%s
for i in all default $A; do echo 0 >/proc/sys/net/ipv6/conf/$i/disable_ipv6; done
# The DUT keeps its IPv6 address over a link down (stats.py check_down):
# by default the kernel flushes it, and every later test that talks to
# LOCAL_V6 fails (pp_alloc_fail.py: "iperf3 traffic did not ramp up").
echo 1 >/proc/sys/net/ipv6/conf/$A/keep_addr_on_down
ip netns del %s 2>/dev/null
ip netns add %s
ip link set $B netns %s
N="ip netns exec %s"
$N sh -c "echo 0 >/proc/sys/net/ipv6/conf/all/disable_ipv6
	echo 0 >/proc/sys/net/ipv6/conf/$B/disable_ipv6"
$N ip link set lo up
$N ip addr add %s/24 dev $B
$N ip -6 addr add %s/64 dev $B nodad
$N ip link set $B up
ip addr flush dev $A
ip addr add %s/24 dev $A
ip -6 addr add %s/64 dev $A nodad
ip link set $A up
i=0; while ! ping -c 1 -W 1 %s >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 30 ] || { echo "no IPv4 path to the remote end"; exit 1; }; done
i=0; while ! ping -6 -c 1 -W 1 %s >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 30 ] || { echo "no IPv6 path to the remote end"; exit 1; }; done
for d in drivers/net drivers/net/hw; do
	cat >$K/$d/net.config <<'EOF'
%sEOF
done
cat $K/drivers/net/net.config
ethtool -i $A | head -n 2
# octeon_ep has no .get_channels: say so rather than fail the set-up
ethtool -l $A 2>/dev/null | sed -n '/Current/,$p' | grep Combined ||
	echo "Combined: (ethtool -l not supported by the driver)"
""" % (A, B, ksft, NETNS, NETNS, NETNS, NETNS, REMOTE_V4, REMOTE_V6,
       LOCAL_V4, LOCAL_V6, REMOTE_V4, REMOTE_V6, conf), timeout=180,
        check=False)
    if rc != 0:
        raise RuntimeError("endpoint setup failed (%d):\n%s" % (rc, out))
    return out


# mausezahn as lib.sh's $MZ, less a pause of microseconds between frames
# ("-d 10us"): ethtool_rmon.sh paces its 30,000 frames a bucket so that
# real hardware's receiver keeps up; under TCG each pause costs a timer
# round trip of the guest's, and the program took 7.5 minutes on one
# driver.  Instead a count over 2,000 goes in bursts of 2,000, each sent
# once the receivers have taken the one before: no port's rx_packets
# moved over 3 samples 20 ms apart (5 s at most).  The model drops a
# frame with no descriptor, as the hardware does, so a burst must fit
# the receive ring whatever the guest's speed: setup_forwarding() grows
# each port's to its largest (igc_batch: 4,096; at its default 512 a
# busy host lost frames of the 256- and 512-byte buckets).  A fixed
# pause between bursts did not hold either (CI lost the first bucket).
# The frames, their count and what is checked stay the same; pauses in
# milliseconds (hw_stats_l3*.sh) stay.
MZ_UNPACED = """#!/bin/sh
settle() {
	last= same=0 n=0
	while [ "$same" -lt 3 ] && [ "$n" -lt 250 ]; do
		sleep 0.02
		now=$(cat /sys/class/net/*/statistics/rx_packets | tr '\\n' ' ')
		if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; fi
		last=$now n=$((n + 1))
	done
}
prev= count=
for a do
	shift
	case $prev in
	-d)	prev=
		case $a in *us) continue ;; esac
		set -- "$@" -d "$a"
		continue ;;
	-c)	prev= count=$a
		continue ;;
	esac
	case $a in -d|-c) prev=$a; continue ;; esac
	set -- "$@" "$a"
done
[ -z "$prev" ] || set -- "$@" "$prev"
case $count in
''|0|*[!0-9]*) exec mausezahn "$@" ${count:+-c "$count"} ;;
esac
while [ "$count" -gt 0 ]; do
	n=$((count > 2000 ? 2000 : count))
	mausezahn "$@" -c $n || exit
	count=$((count - n))
	settle
done
"""
MZ_PATH = "net/forwarding/mausezahn-unpaced"


def forwarding_config(a_if, b_if, mz=None):
    return ("# written by tools/testing/selftests/net/dbbatch/kernel_drivers_net.py\n"
            "NETIFS[p1]=%s\nNETIFS[p2]=%s\nNETIF_CREATE=no\n"
            "PING6=\"ping -6\"\nKSFT_MACHINE_SLOW=yes\n" % (a_if, b_if) +
            ("MZ=%s\n" % mz if mz else ""))


def setup_forwarding(r, ksft):
    """net/forwarding's topology for the shell programs: the remote end's
    namespace goes (B comes back to the root namespace), no address on
    either port (lib.sh puts each in a VRF of its own), each port's
    receive ring at its largest (MZ_UNPACED's bursts), and
    net/forwarding/forwarding.config naming them p1 (A) and p2 (B)."""
    A, B = r.ifa, r.ifb
    rc, out = r.guest("""
A=%s B=%s K=%s
ip netns del %s 2>/dev/null
i=0; while ! ip link show $B >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 30 ] || { echo "$B did not come back from the namespace"; exit 1; }
	sleep 1; done
for d in $A $B; do ip addr flush dev $d; ip link set $d up; done
# the largest receive ring each takes: a burst of MZ lands whole (below)
for d in $A $B; do
	max=$(ethtool -g $d 2>/dev/null | awk '/^Pre-set/ { p = 1 }
		p && /^RX:/ { print $2; exit }')
	[ -z "$max" ] || ethtool -G $d rx $max 2>/dev/null || true
	i=0; while [ "$(cat /sys/class/net/$d/carrier 2>/dev/null)" != 1 ] &&
		[ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	ethtool -g $d 2>/dev/null | sed -n '/^Current/,$p' | grep '^RX:' |
		sed "s/^/$d ring /"
done
cat >$K/%s <<'EOF'
%sEOF
chmod +x $K/%s
cat >$K/net/forwarding/forwarding.config <<'EOF'
%sEOF
cat $K/net/forwarding/forwarding.config
""" % (A, B, ksft, NETNS, MZ_PATH, MZ_UNPACED, MZ_PATH,
       forwarding_config(A, B, "%s/%s" % (ksft, MZ_PATH))),
        timeout=120, check=False)
    if rc != 0:
        raise RuntimeError("forwarding setup failed (%d):\n%s" % (rc, out))
    return out


# net/forwarding/lib.sh's result line, and its message on the lines after
TEST_LINE = re.compile(r"^TEST: (.*?)\s+\[\s*(OK|FAIL|XFAIL|SKIP)\s*\]$")


def lib_sh_to_ktap(prog, out):
    """A net/forwarding/lib.sh program's output as KTAP, so that one
    parser judges both kinds: "TEST: name [RESULT]" and its indented
    message become the message then "ok/not ok N prog.name [# ...]";
    the case name is lib.sh's with spaces and punctuation as "_"."""
    base = prog.rsplit(".", 1)[0]
    lines, held, seen = [], None, {}

    def flush():
        name, result, msg = held
        key = "%s.%s" % (base, re.sub(r"[^\w.\-]+", "_", name).strip("_"))
        if name.startswith("SKIP: ") and result == "OK":
            # loopback.sh's skip is a log_test of "SKIP: why" with RET 0
            key, result, msg = base, "SKIP", [name[6:]]
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += "_%d" % seen[key]
        lines.extend(msg)
        # log_test_xfail "why" has no message: its name is the reason
        reason = " ".join(m.strip() for m in msg) or name
        lines.append({"OK": "ok 1 %s" % key,
                      "FAIL": "not ok 1 %s # FAIL %s" % (key, reason),
                      "XFAIL": "ok 1 %s # XFAIL %s" % (key, reason),
                      "SKIP": "ok 1 %s # SKIP %s" % (key, reason)}[result])
    for line in out.splitlines():
        m = TEST_LINE.match(line.rstrip())
        if held and line.startswith("\t") and not m:
            held[2].append(line)
            continue
        if held:
            flush()
            held = None
        if m:
            held = (m.group(1), m.group(2), [])
        else:
            lines.append(line)
    if held:
        flush()
    return "\n".join(lines)


CASE = re.compile(r"^(not )?ok \d+ ([\w.\-]+)(?:\s+#\s*(\w+)\s*(.*))?$")


def parse_ktap(prog, out, rc, partial=False):
    """A test program's output -> [(case, result, reason, evidence)];
    result is pass, fail, skip or xfail.  PARTIAL: the program did not
    end (the kernel oopsed): its cases so far, nothing made up."""
    res, ev, excused = [], [], 0
    for line in out.splitlines():
        line = line.rstrip()
        m = CASE.match(line)
        if not m:
            ev.append(line)
            continue
        name, directive = m.group(2), (m.group(3) or "").upper()
        reason = (m.group(4) or "").strip()
        if m.group(1):
            result = "fail"
        elif directive == "SKIP":
            result = "skip"
        elif directive == "XFAIL":
            result = "xfail"
        else:
            result = "pass"
        detail = "\n".join(ev[-40:])
        if result == "fail":
            reason = reason or last_error(ev)
            text = "\n".join(ev)
            why = excuse(text)
            if why:
                result, reason = "skip", why
                detail = "the test failed: " + last_error(ev)
                excused += 1
        if result in ("skip", "xfail") and not reason:
            reason = last_error(ev) or "no reason given"
        res.append((name, result, reason, detail))
        ev = []
    base = prog.rsplit(".", 1)[0]
    if partial:
        return res
    if not res:
        # died before its first case (an import, the environment), or a
        # plain program (devlink_port_split.py: exit status 4 = skip)
        tail = "\n".join(ev[-40:])
        if rc == 4:
            res.append((base, "skip", last_error(ev) or "exit status 4 "
                        "(kselftest skip)", tail))
        elif rc == 0:
            res.append((base, "pass", "", tail))
        else:
            res.append((base + ".setup", "fail", "exit status %d: %s"
                        % (rc, last_error(ev)), tail))
    elif rc not in (0, 4) and not excused and all(r[1] != "fail"
                                                  for r in res):
        res.append((base + ".exit", "fail", "exit status %d after its "
                    "cases" % rc, "\n".join(ev[-40:])))
    return res


def excuse(text):
    """The skip reason when a failure's output is Debian 12's user space
    or the emulator's speed (USERSPACE, EMULATION), else None."""
    for rx, why in USERSPACE:
        if re.search(rx, text):
            return why
    for rx, least, why in EMULATION:
        m = re.search(rx, text)
        if m and int(m.group(1)) >= least:
            return why % int(m.group(1))
    return None


def last_error(lines):
    """The last line of a test's output that says what went wrong."""
    for line in reversed(lines):
        s = line.strip().lstrip("#").strip()
        if re.search(r"Error|Exception|error|fail|SKIP|skip|[Nn]ot "
                     r"supported|requires|Requires", s) and \
                not s.startswith("Totals"):
            return s[:240]
    return ""


OOPS = r"Oops|BUG:|general protection|kernel BUG|watchdog: BUG|hung_task"


def run_program(r, ksft, d, prog):
    """Run one program in the guest; (status, output, oops): a watcher
    stops waiting as soon as the kernel logs an oops (the program may be
    stuck for good in the kernel then, e.g. holding RTNL)."""
    rc, out = r.guest("""
cd %s/%s || exit 98
n0=$(dmesg | grep -cE '%s')
timeout -k 10 %d %s ./%s >/tmp/ksft.out 2>&1 </dev/null &
p=$!
while kill -0 $p 2>/dev/null; do
	if [ "$(dmesg | grep -cE '%s')" -gt "$n0" ]; then
		cat /tmp/ksft.out; echo "@@KERNEL-OOPS"
		dmesg | grep -E -A 30 '%s' | head -n 60; exit 99
	fi
	sleep 1
done
wait $p; rc=$?
cat /tmp/ksft.out; exit $rc
""" % (ksft, d, OOPS, PROGRAM_TIMEOUT, "bash" if prog.endswith(".sh")
       else "python3", prog, OOPS, OOPS),
        timeout=PROGRAM_TIMEOUT + 60, check=False)
    oops = None
    if rc == 99 and "@@KERNEL-OOPS" in out:
        out, _, oops = out.partition("@@KERNEL-OOPS")
        oops = oops.strip()
    if prog.endswith(".sh"):
        out = lib_sh_to_ktap(prog, out)
    return rc, out, oops


def run_driver(t, a, short, qemu, ksrc, driver, expected):
    """All programs against DRIVER, one boot, and a new one after a
    program oopsed the kernel.  Returns ({case: (result, reason,
    evidence)}, run directories)."""
    ksft = os.path.join(ksrc, KSFT)
    todo = [p for p in PROGRAMS if not a.only or p[1] in a.only]
    cases, dirs, n = {}, [], 0
    while todo:
        n += 1
        out = labvm.run_dir(a.keep and os.path.join(a.keep, short),
                            "%s-%d" % (driver, n), "dbb-ksft.")
        os.makedirs(out, exist_ok=True)
        dirs.append(out)
        nic = octep.NIC if driver in OCTEON else None
        ra = router.options(short, configs=[router.Config(driver)],
                            qemu=qemu, smp=a.smp, mem=1536, wire="loop",
                            rings=0, rmem=a.rmem, out=out,
                            modules=a.modules or None, viommu=a.viommu,
                            nic_a=nic, nic_b=nic)
        kos = router.our_modules(ra, ra.configs)
        r = KsftRouter(ra, ra.configs, kos, ksrc)
        left = len(todo)
        oops = None
        with labvm.lock("DBB_GUEST_LOCK", "/tmp/dbb-guest.lock", "a guest boot"):
            with router.booted(t, r, "%s boot %d" % (driver, n)):
                labvm.log("%s: boot %.1f s" % (t.kver, r.boot_time))
                r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null;"
                        " true\n", check=False)
                lo = r.load(ra.configs[0])
                t.check("%s binds both ports, links up [boot %d]"
                        % (driver, n), driver in lo,
                        lo + "\ncombined queues: %s" % (
                            r.queues_now or "(not reported)"))
                forwarding = False
                setup_endpoints(r, ksft)
                while todo and not oops:
                    d, prog = todo.pop(0)
                    if prog.endswith(".sh") and not forwarding:
                        for line in setup_forwarding(r, ksft).splitlines():
                            if " ring RX:" in line:
                                labvm.log("%s: %s" % (driver, line))
                        forwarding = True
                    t0 = time.time()
                    rc, o, oops = run_program(r, ksft, d, prog)
                    labvm.log("%s: %s/%s: exit %d in %.0f s%s" % (
                        driver, d, prog, rc, time.time() - t0,
                        " (kernel oops)" if oops else ""))
                    got = {c[0]: c[1:] for c in
                           parse_ktap(prog, o, rc, bool(oops))}
                    if oops:
                        got[prog.rsplit(".", 1)[0] + ".kernel-oops"] = (
                            "fail", "the kernel oopsed: " +
                            oops.splitlines()[0], oops)
                    cases.update(got)
                    report(t, driver, got, expected)
                if not oops:
                    r.guest("ip netns del %s; sleep 1\n" % NETNS, check=False)
                    ok, ev = r.clean(TAINT_OK)
                    t.check("%s: kernel log clean, taint O/E at most, no "
                            "guest programming error in the model [boot %d]"
                            % (driver, n), ok, ev)
        if len(todo) == left:
            break           # the boot ran nothing: do not loop
    report(t, driver, cases, expected, final=True)
    return cases, dirs


def read_expected(path):
    """{driver: {case: (result, note)}} from the expectations file."""
    exp = {}
    if not path or not os.path.exists(path):
        return exp
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            p = line.split(None, 3)
            exp.setdefault(p[0], {})[p[1]] = (p[2], p[3] if len(p) > 3
                                              else "")
    return exp


def report(t, driver, cases, expected, final=False):
    """One TAP line per case.  A pass passes; a skip is a skip unless the
    case is expected to pass (the regression bar: a case that passed
    must not start skipping, e.g. because a feature went away); a failure
    fails unless expected (a known failure of the reference driver, the
    model or user space, listed with why in the expectations file)."""
    exp = expected.get(driver, {})
    if final:
        for name, (want, note) in exp.items():
            if want == "pass" and name not in cases:
                t.check("%s: %s (expected to pass; did not run)"
                        % (driver, name), False)
        return
    for name, (result, reason, ev) in cases.items():
        label = "%s: %s" % (driver, name)
        want, note = exp.get(name, (None, ""))
        if result == "pass":
            t.check(label, True)
        elif want == "pass":
            t.check("%s (expected to pass; %s: %s)" % (label, result,
                                                        reason), False, ev)
        elif result in ("skip", "xfail"):
            t.check(label, True, ev if ev.startswith("the test failed")
                    else "", skip=("%s%s" % (
                        "XFAIL " if result == "xfail" else "", reason)))
        elif want == "fail":
            t.check(label, True, skip="known failure (%s): %s"
                    % (note, reason))
        else:
            t.check(label, False, ev)


def write_expected(path, results, old):
    """The expectations file from this run: pass -> pass, fail -> fail
    (keeping an existing note; a new one says TODO), skips not listed."""
    lines = ["# tools/testing/selftests/net/dbbatch/kernel_drivers_net.py: expected results",
             "# <driver> <case> pass|fail [why it fails]; a case listed "
             "pass must pass",
             "# (a skip fails it), a case listed fail may fail; skips "
             "are not listed."]
    for d, cases in results.items():
        for n, c in cases.items():
            if c[0] in ("pass", "fail"):
                note = old.get(d, {}).get(n, ("", ""))[1]
                if c[0] == "fail" and not note:
                    note = "TODO: why"
                lines.append(("%s %s %s %s" % (d, n, c[0], note)).rstrip())
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def is_hollow(driver, case):
    return any(d == driver and re.search(rx, case) for d, rx, _ in HOLLOW)


def table(results, drivers):
    """[[case, result of each driver...]] with every case any driver
    ran, in the order they ran, then the programs not run."""
    names = []
    for d in drivers:
        for n in results.get(d, {}):
            if n not in names:
                names.append(n)
    rows = []
    for n in names:
        row = [n]
        for d in drivers:
            c = results.get(d, {}).get(n)
            if c is None:
                row.append("-")
            elif c[0] == "pass":
                row.append("pass" + (" (hollow: what the case set was not "
                                     "applied; see below)"
                                     if is_hollow(d, n) else ""))
            else:
                row.append("%s: %s" % (c[0], c[1]) if c[1] else c[0])
        rows.append(row)
    for prog, why in NOT_RUN.items():
        rows.append([prog] + ["not run: " + why] * len(drivers))
    return rows


def text_table(rows, drivers):
    w = max(len(r[0]) for r in rows)
    lines = ["%-*s  %s" % (w, "case", " | ".join(drivers))]
    for r in rows:
        lines.append("%-*s  %s" % (w, r[0], " | ".join(r[1:])))
    return "\n".join(lines)


def rst_table(rows, drivers, kver):
    """A list-table (the cells are long)."""
    model = "dbb-octep" if set(drivers) <= set(OCTEON) else "dbb-igc"
    out = [".. list-table:: drivers/net selftests of linux-source-6.12 on "
           "%s, kernel %s (EMULATED: QEMU TCG)" % (model, kver),
           "   :header-rows: 1", "   :widths: 30 %s" % " ".join(
               ["35"] * len(drivers)), "",
           "   * - case"] + ["     - %s" % d for d in drivers]
    for r in rows:
        out.append("   * - ``%s``" % r[0])
        out += ["     - %s" % c.replace("*", "\\*") for c in r[1:]]
    return "\n".join(out) + "\n"


# --mutant: igc_batch without its per-queue statistics (qstats): the
# line that hands the stack igcb_stat_ops goes.  The run must fail.
MUTANT_FILE = "drivers/net/ethernet/intel/igc_batch/igcb_main.c"
MUTANT_LINE = "\tnetdev->stat_ops = &igcb_stat_ops;\n"


def build_modules(short, out, mutant=False):
    """Our *.ko for SHORT, built in a private tree; MUTANT: from a copy
    of the tree where MUTANT_LINE only mentions igcb_stat_ops (still
    "used": W=1 fails the build on an unused const)."""
    return labvm.build_modules(short, out, "ksft-build", (
        MUTANT_FILE, MUTANT_LINE, "\t(void)igcb_stat_ops;\n")
        if mutant else None)


def checks(t, short, a, qemu, ksrc):
    """Every driver's runs into T; the comparison and the table."""
    kver = t.kver
    if not a.modules and {"igc_batch", "octep_fix"} & set(a.drivers):
        a.modules = build_modules(short, os.path.join(
            labvm.REPO, "build", "ksft", "mutant" if a.mutant else
            "modules", kver), a.mutant)
    expected = {} if a.only else read_expected(a.expected)
    results, dirs = {}, []
    for driver in a.drivers:
        results[driver], d = run_driver(t, a, short, qemu, ksrc, driver,
                                        expected)
        dirs += d
    drivers = list(results)
    for up, ours in PEERS:
        if up not in results or ours not in results:
            continue
        owed = [n for n, c in results[up].items() if c[0] == "pass"]
        hollow = [n for n in owed if is_hollow(up, n)]
        worse = [n for n in owed if n not in hollow and
                 results[ours].get(n, ("missing",))[0] != "pass"]
        t.check("%s passes every case upstream %s passes" % (ours, up),
                not worse, "%d cases pass on %s; not on %s: %s; hollow "
                "passes of %s, not owed (HOLLOW): %s" % (
                    len(owed), up, ours, ", ".join(worse) or "none", up,
                    ", ".join(hollow) or "none"))
    rows = table(results, drivers)
    txt = text_table(rows, drivers)
    print("\n".join("# " + line for line in txt.splitlines()), flush=True)
    tdir = dirs[0] if dirs else "."
    with open(os.path.join(tdir, "table.txt"), "w") as f:
        f.write(txt + "\n")
    with open(os.path.join(tdir, "table.json"), "w") as f:
        json.dump({"kernel": kver, "drivers": drivers,
                   "cases": {d: {n: c[:2] for n, c in res.items()}
                             for d, res in results.items()}}, f, indent=1)
    if a.write_expected:
        write_expected(a.write_expected, results, expected)
        labvm.log("wrote %s" % a.write_expected)
    if a.rst:
        with open(a.rst, "w") as f:
            f.write(rst_table(rows, drivers, kver))
        labvm.log("wrote %s" % a.rst)
    return dirs


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--driver", action="append", dest="drivers",
                    choices=sum(PEERS, ()),
                    help="driver under test, in this order (default: igc "
                    "then igc_batch)")
    ap.add_argument("--modules", help="our *.ko for the kernel (default: "
                    "built with build-modules.sh into build/ksft/modules/)")
    ap.add_argument("--only", action="append", metavar="PROGRAM",
                    help="run only this program (e.g. stats.py; "
                    "repeatable)")
    ap.add_argument("--rst", metavar="FILE", help="also write the table "
                    "as an RST list-table to FILE")
    ap.add_argument("--expected", default=EXPECTED, metavar="FILE",
                    help="expected results (default %(default)s; not "
                    "with --only)")
    ap.add_argument("--write-expected", metavar="FILE", help="write this "
                    "run's results as an expectations file")
    ap.add_argument("--mutant", action="store_true", help="igc_batch "
                    "built without its per-queue statistics (qstats): "
                    "shows that the run fails (implies --driver "
                    "igc_batch)")
    ap.add_argument("--viommu", action="store_true", help="an emulated "
                    "IOMMU, strict, in the guests: a device write where the "
                    "driver mapped nothing is refused (and counted by the "
                    "model) instead of corrupting memory")
    ap.add_argument("--keep", help="keep the run directory in DIR/<kernel>")
    ap.add_argument("--smp", type=int, default=2)
    a = ap.parse_args()
    a.kernel = a.kernel or ["6.12"]
    if any(k not in ("6.12", "6.12-rt", "6.12-debug") for k in a.kernel):
        ap.error("the selftests are linux-source-6.12's: --kernel 6.12, "
                 "6.12-rt or 6.12-debug")
    a.drivers = (["igc_batch"] if a.mutant else
                 a.drivers or ["igc", "igc_batch"])
    if a.mutant and a.modules:
        ap.error("--mutant builds its own modules")
    for tool, pkg in TOOLS:
        if not shutil.which(tool):
            raise SystemExit("%s not found: apt-get install %s"
                             % (tool, pkg))
    if not os.path.exists(ETHTOOL_H):
        raise SystemExit("%s missing: apt-get install linux-libc-dev"
                         % ETHTOOL_H)
    for d in PY_DIRS:
        if not os.path.isdir(d):
            raise SystemExit("%s missing: apt-get install python3.11 "
                             "python3-yaml" % d)
    ksrc = source_tree()
    qemu = labvm.qemu_binary(a.qemu)
    return labvm.run_per_kernel(a, lambda t, short: checks(t, short, a,
                                                            qemu, ksrc))


if __name__ == "__main__":
    sys.exit(main())
