#!/usr/bin/env python3
"""Smoke test of octep_fix on the dbb-octep model, one guest per kernel.

    tools/lab/tests/octep_fix_smoke.py --kernel 6.12 --mods DIR
        [--wmark 0x100] [--oq-wmark 0x100] [--keep DIR] [--timeout 600]

One q35 guest (TCG) with a dbb-octep port (root netns, 10.9.0.1) and a
virtio-net port (netns "peer", 10.9.0.2) on one QEMU hub.  The guest
loads dbbatch.ko and octep_fix.ko from DIR (tools/lab/build-modules.sh),
brings the port up, pings and exchanges UDP with the peer, shows ethtool
-i -S -g -l -k, refuses bad ring sizes and takes a good one, then
rmmods and prints dmesg.  Prints TAP; exit 0 when every check passed.
Run it under flock /tmp/dbb-guest.lock: guest boots are heavy.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
sys.path.insert(0, LAB)
import labvm  # noqa: E402

INIT = r"""#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /run /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
ip() { /usr/sbin/ip "$@"; }
modprobe() { /usr/sbin/modprobe "$@"; }
ip link set lo up
say() { echo "@@$*"; }
modprobe virtio_net
modprobe octep_fix oq_wmark=@OQ_WMARK@ && say LOADED
sleep 1
OCT=$(ls /sys/bus/pci/drivers/octep_fix/*/net/ 2>/dev/null | head -1)
PEER=""
for d in /sys/class/net/*; do
	n=${d##*/}
	[ "$(cat $d/device/driver/module/../module 2>/dev/null)" ] || true
	case "$(readlink $d/device/driver)" in *virtio_net*) PEER=$n ;; esac
done
say OCT=$OCT PEER=$PEER
ip netns add peer
ip link set $PEER netns peer
ip netns exec peer ip link set lo up
ip netns exec peer ip addr add 10.9.0.2/24 dev $PEER
ip netns exec peer ip link set $PEER up
ip addr add 10.9.0.1/24 dev $OCT
ip link set $OCT up
i=0
while [ $i -lt 100 ] && [ "$(cat /sys/class/net/$OCT/carrier 2>/dev/null)" != 1 ]; do
	sleep 0.1; i=$((i + 1))
done
say CARRIER=$(cat /sys/class/net/$OCT/carrier)
ping -c 5 -W 2 10.9.0.2 && say PING-OK
ip netns exec peer sh -c 'nc -u -l -p 9000 > /tmp/udp.out &'
sleep 0.5
for n in 1 2 3 4 5 6 7 8 9 10; do echo "datagram $n"; done | nc -u -w 1 10.9.0.2 9000
sleep 1
say UDP-LINES=$(wc -l < /tmp/udp.out)
ping -c 20 -i 0.05 -s 6000 10.9.0.2 >/dev/null && say JUMBO-PING-NOMTU
ip link set $OCT mtu 9000 && ip netns exec peer ip link set $PEER mtu 9000
ping -c 5 -W 2 -s 8000 10.9.0.2 && say JUMBO-PING-OK
echo @@BEGIN ethtool
ethtool -i $OCT; ethtool -g $OCT; ethtool -l $OCT; ethtool -k $OCT | head -5
ethtool --show-priv-flags $OCT
echo @@END ethtool
ethtool -G $OCT rx 1000 2>&1 && say BADRING-ACCEPTED || say BADRING-REFUSED
ethtool -G $OCT rx 16 2>&1 && say SMALLRING-ACCEPTED || say SMALLRING-REFUSED
ethtool -G $OCT rx 512 tx 512 && say RING512-OK
i=0
while [ $i -lt 100 ] && [ "$(cat /sys/class/net/$OCT/carrier 2>/dev/null)" != 1 ]; do
	sleep 0.1; i=$((i + 1))
done
ping -c 3 -W 2 10.9.0.2 && say PING-AFTER-G-OK
ethtool -L $OCT combined 1 && ping -c 3 -W 2 10.9.0.2 && say PING-AFTER-L-OK
echo 0x123 > /sys/kernel/debug/octep_fix/*/oq_wmark 2>&1 || say BADWMARK-REFUSED
echo @@BEGIN credit
cat /sys/kernel/debug/octep_fix/*/credit
echo @@END credit
echo 100 > /sys/kernel/debug/octep_fix/*/quiesce_ms && say QUIESCE-OK
ping -c 3 -W 2 10.9.0.2 && say PING-AFTER-QUIESCE-OK
echo @@BEGIN stats
ethtool -S $OCT
echo @@END stats
ip link set $OCT down
rmmod octep_fix && say RMMOD-OK
echo @@BEGIN dmesg
dmesg
echo @@END dmesg
say DONE
poweroff -f
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default="6.12")
    ap.add_argument("--mods", required=True)
    ap.add_argument("--wmark", default="0x100", help="the model's watermark")
    ap.add_argument("--oq-wmark", default="0x100", help="the driver's")
    ap.add_argument("--keep")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    kver = labvm.kernel_release(a.kernel)
    work = a.keep or tempfile.mkdtemp(prefix="octf-smoke.")
    os.makedirs(work, exist_ok=True)
    initrd = os.path.join(work, "initramfs.cpio.gz")
    kos = [os.path.join(a.mods, k) for k in ("dbbatch.ko", "octep_fix.ko")]
    vmlinuz = labvm.build_initramfs(
        kver, initrd, INIT.replace("@OQ_WMARK@", a.oq_wmark),
        kmods=("virtio_net",), extra_ko=kos)
    console = os.path.join(work, "console.log")
    qmp = os.path.join(work, "qmp.sock")
    for p in (console, qmp):
        if os.path.exists(p):
            os.unlink(p)
    cmd = labvm.qemu_cmd(labvm.qemu_binary(), "tcg", vmlinuz, initrd,
                         console, qmp, "", mem=1024, smp=2) + [
        "-netdev", "hubport,id=hp0,hubid=0",
        "-netdev", "hubport,id=hp1,hubid=0",
        "-device", "dbb-octep,id=oct0,netdev=hp0,mac=52:54:00:00:0c:01,"
        "wmark=" + a.wmark,
        "-device", "virtio-net-pci,romfile=,netdev=hp1,mac=52:54:00:00:0c:02",
        "-d", "guest_errors", "-D", os.path.join(work, "qemu.log")]
    labvm.log(" ".join(cmd))
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=open(console + ".qemu", "w"),
                            stderr=subprocess.STDOUT)
    q = labvm.QMP(qmp)
    start = time.time()
    text = ""
    while proc.poll() is None and time.time() - start < a.timeout:
        time.sleep(1)
        text = open(console, errors="replace").read()
        if "@@DONE" in text:
            break
    truth = None
    try:
        truth = q.cmd("qom-get", path="/machine/peripheral/oct0",
                      property="ground-truth")
    except Exception as e:  # noqa: BLE001
        labvm.log("ground truth: %s" % e)
    proc.kill()
    proc.wait()
    text = open(console, errors="replace").read()
    print(text[-20000:])
    if truth:
        for k in ("in_dbell_writes", "in_dbell_noop_writes", "out_dbell_writes",
                  "out_dbell_noop_writes", "credit_granted", "credit_now",
                  "buffers_fetched", "rx_frames", "tx_frames", "rx_refused",
                  "laps", "overwritten_unread", "dma_errors", "guest_errors"):
            if k in truth:
                print("# truth %s %s" % (k, truth[k][:4]))
    checks = [("loaded", "@@LOADED"), ("carrier", "@@CARRIER=1"),
              ("ping", "@@PING-OK"), ("udp 10 datagrams", "@@UDP-LINES=10"),
              ("jumbo ping at MTU 9000", "@@JUMBO-PING-OK"),
              ("ring 1000 refused", "@@BADRING-REFUSED"),
              ("ring 16 refused", "@@SMALLRING-REFUSED"),
              ("ring 512 taken", "@@RING512-OK"),
              ("ping after -G", "@@PING-AFTER-G-OK"),
              ("ping after -L", "@@PING-AFTER-L-OK"),
              ("bad wmark refused", "@@BADWMARK-REFUSED"),
              ("quiesce", "@@QUIESCE-OK"),
              ("ping after quiesce", "@@PING-AFTER-QUIESCE-OK"),
              ("rmmod", "@@RMMOD-OK")]
    failed = 0
    for n, (name, pat) in enumerate(checks, 1):
        ok = pat in text
        failed += not ok
        print("%sok %d %s" % ("" if ok else "not ", n, name))
    bad = re.findall(r"(WARNING:|BUG:|Call Trace|general protection)", text)
    n += 1
    print("%sok %d no WARN/BUG in dmesg%s" % ("not " if bad else "", n,
                                              " (%s)" % bad[:3] if bad else ""))
    failed += bool(bad)
    if truth:
        n += 1
        laps = sum(truth.get("laps", [0]))
        print("%sok %d model: no lap (laps %d)" % ("not " if laps else "", n,
                                                   laps))
        failed += bool(laps)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
