# SPDX-License-Identifier: GPL-2.0
"""PCI error recovery in the lab router (a port behind a root port,
router.options(root_port=["B"])): AER injection and what a test runs
beside it.

    ok, text = pcierr.aer_bound(r)        the guest's AER service binds?
    pcierr.enable_serr(r, "B")            as a BIOS would (see there)
    rec, seen, text = pcierr.inject(r, "B")
    pcierr.xdp_loop_start(r, dev, secs)   attach/detach an XDP program
    res, text = pcierr.xdp_loop_result(r) {"ok": n, "busy": n, "other": n}

Recovery is counted by the drivers' own "recovered from a PCI error"
line (igc_batch and octep_fix both print it from .resume).  Python 3
stdlib; the XDP program (bpf/xdp_pass.c) is built with clang.
"""

import os
import re
import subprocess

import router

HERE = os.path.dirname(os.path.abspath(__file__))
XDP_PASS_SRC = os.path.join(HERE, "bpf", "xdp_pass.c")
XDP_PASS_GUEST = "/root/xdp_pass.o"
RECOVERED = "recovered from a PCI error"


def root_port_bdf(port):
    return "0000:00:%02x.0" % router.ROOT_PORT_SLOT[port]


def xdp_pass_object(out):
    """bpf/xdp_pass.c built into OUT; its path (for Router files=)."""
    obj = os.path.join(out, "xdp_pass.o")
    subprocess.run(["clang", "-O2", "-g", "-target", "bpf", "-c",
                    XDP_PASS_SRC, "-o", obj], check=True)
    return obj


def aer_bound(r):
    """(whether the guest's AER service bound a root port, evidence)."""
    _, out = r.guest("echo $(ls /sys/bus/pci_express/drivers/aer 2>/dev/null"
                     " | grep -c pcie); dmesg | grep -i aer | head -n 5\n",
                     check=False)
    return out.split("\n")[0].strip() not in ("", "0"), out


def enable_serr(r, port):
    """QEMU forwards ERR_* messages through a root port only with its
    Bridge Control SERR# Enable set (as the PCIe spec has it); Linux
    leaves that bit to firmware and SeaBIOS leaves it clear: set it, as
    a BIOS would."""
    return r.guest("cfg=/sys/bus/pci/devices/%s/config\n" % root_port_bdf(
        port) + """
v=$(od -An -tu1 -j62 -N1 $cfg)
printf "\\\\$(printf %o $((v | 2)))" | dd of=$cfg bs=1 seek=62 count=1 conv=notrunc 2>/dev/null
echo "bridge control $(od -An -tx1 -j62 -N2 $cfg)"
""", check=False)


def inject(r, port, error="POISON_TLP"):
    """An uncorrectable ERROR on nicPORT; wait for its driver's
    recovery: (recoveries, whether an AER message was seen, evidence).
    POISON_TLP is non-fatal: the core calls slot_reset without a reset,
    a window of microseconds.  MALF_TLP (a malformed TLP) is fatal: the link
    is reset under the detached port (the root port's secondary bus,
    then 100 ms or more until the device answers), a window a test can
    meet from the guest."""
    dev = r.ifa if port == "A" else r.ifb
    _, d0 = r.guest("dmesg | grep -c '%s' || true\n" % RECOVERED, check=False)
    before = int(d0.split()[-1])
    try:
        hmp = r.hmp("pcie_aer_inject_error nic%s %s" % (port, error))
    except RuntimeError as e:
        hmp = "error: %s" % e
    rc, o = r.guest("""
i=0; while [ $i -lt 100 ]; do
	[ "$(dmesg | grep -c '%s' || true)" -gt %d ] && break
	sleep 0.1; i=$((i + 1)); done
dmesg | grep -iE 'aer|PCI error|recovered|pcieport|BUG|Oops' | tail -n 12
echo "@@REC $(dmesg | grep -c '%s' || true)"
echo "@@AERMSG $(dmesg | grep -cE 'AER: .*(error|Error)' || true)"
ep=/sys/class/net/%s/device/config rp=/sys/bus/pci/devices/%s/config
echo "endpoint DEVCTL $(od -An -tx2 -j$((0xa8)) -N2 $ep) UNCOR_STATUS $(od -An -tx4 -j$((0x104)) -N4 $ep)"
echo "root port BRCTL $(od -An -tx2 -j62 -N2 $rp) ROOT_STATUS $(od -An -tx4 -j$((0x100 + 0x30)) -N4 $rp)"
""" % (RECOVERED, before, RECOVERED, dev, root_port_bdf(port)),
        timeout=60, check=False)
    m = re.search(r"@@REC (\d+)", o)
    rec = int(m.group(1)) - before if m else 0
    m = re.search(r"@@AERMSG (\d+)", o)
    seen = bool(m and int(m.group(1)) > 0)
    return rec, seen, "hmp: %r\n%s" % (hmp, o)


XDP_LOOP = """
D=%s
bpftool prog load %s /sys/fs/bpf/dbb_xdp_pass type xdp || exit 50
end=$(($(date +%%s) + %d)); ok=0; busy=0; other=0
while [ "$(date +%%s)" -lt $end ]; do
	if out=$(bpftool net attach xdpdrv pinned /sys/fs/bpf/dbb_xdp_pass dev $D 2>&1); then
		ok=$((ok + 1))
	else
		case "$out" in
		*detached*) busy=$((busy + 1)) ;;
		*) other=$((other + 1)); echo "attach: $out" | tail -n 2 ;;
		esac
	fi
	bpftool net detach xdpdrv dev $D 2>/dev/null
done
rm -f /sys/fs/bpf/dbb_xdp_pass
echo "@@XDP ok=$ok busy=$busy other=$other"
"""


def xdp_loop_start(r, dev, seconds):
    """Attach and detach XDP_PASS on DEV over and over for SECONDS, in
    the background: whatever recovery runs meanwhile meets a program
    swap at every stage."""
    r.guest("(%s) >/tmp/xdp-loop.log 2>&1 </dev/null &\necho $! "
            ">/tmp/xdp-loop.pid\n" % (XDP_LOOP % (dev, XDP_PASS_GUEST,
                                                  seconds)))


def xdp_loop_result(r):
    """Wait for the loop: ({"ok", "busy", "other": counts} or None,
    its log)."""
    _, out = r.guest("while kill -0 $(cat /tmp/xdp-loop.pid) 2>/dev/null; "
                     "do sleep 0.2; done; cat /tmp/xdp-loop.log\n",
                     timeout=120, check=False)
    m = re.search(r"@@XDP ok=(\d+) busy=(\d+) other=(\d+)", out)
    res = m and dict(zip(("ok", "busy", "other"), map(int, m.groups())))
    return res, out
