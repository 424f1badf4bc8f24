#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""igc_batch_netconsole.py: a crash log leaves the box from inside a batch.

    tools/testing/selftests/net/dbbatch/igc_batch_netconsole.py \
        [--kernel 6.1|6.12 ...] [--modules DIR] [--keep DIR]

netconsole runs over port B of the lab router (igc_batch, batching on);
the lab host listens on B's wire.  igc_batch's debugfs hook
panic_in_poll then panics the guest inside port A's receive pass, while
its dbbatch batch is open on that CPU.  netpoll transmits the panic text
on B from there with IRQs off: dbbatch must not hold that doorbell, or
the text never leaves (the CPU stops with the tail unwritten).

Per kernel, one boot: a line written to /dev/kmsg reaches the host (the
path works), then the panic text does.  KTAP on stdout; exit 0 when every
check passed.  Driven from the host like igc_batch_lab.py (tools/check.sh
runs it).
"""

import socket
import sys
import threading
import time

from lablib import labvm, netpoll0, router

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 30, "kernels": "each",
              "label": "igc_batch netconsole",
              "minutes": 0.5, "args": ["--modules", "{mods}"]}]


CONFIG = router.Config("igc_batch", "db_skip_empty=1 tx_db_batched=1",
                       label="batched")
MARKER = b"dbb-netconsole-path-works"
PANIC_TEXT = b"panic_in_poll: panicking inside a receive pass"
NETCONSOLE_PORT = 6666


class NetconsoleRouter(router.Router):
    KMODS = router.Router.KMODS + netpoll0.KMODS


class WireListener(threading.Thread):
    """Every frame port B sends: QEMU's dgram netdev sends each one as a
    UDP datagram to the host port the sink would use."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", port))
        self.sock.settimeout(0.2)
        self.frames = []
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                self.frames.append(self.sock.recv(65536))
            except socket.timeout:
                continue
            except OSError:
                return

    def saw(self, text):
        return any(text in f for f in self.frames)

    def wait_for(self, text, timeout):
        end = time.time() + timeout
        while time.time() < end:
            if self.saw(text):
                return True
            time.sleep(0.1)
        return self.saw(text)

    def close(self):
        self.stop = True
        self.sock.close()


def start_netconsole(r):
    """netconsole on B to the sink's address; the host sees the frames."""
    return r.guest("""
B=%s
dmesg -n 8
modprobe netconsole netconsole=%d@%s/$B,%d@%s/02:00:00:00:00:01 || exit 40
echo "<2>%s" >/dev/kmsg
""" % (r.ifb, NETCONSOLE_PORT, router.ADDR_B.split("/")[0],
       NETCONSOLE_PORT, router.SINK_IP, MARKER.decode()), check=False)


def panic_in_receive_pass(r):
    """Arm the hook on A and send A traffic; the guest panics in A's
    poll.  Returns whether QEMU exited (panic=-1 with -no-reboot)."""
    rc, o = r.guest("""
grep -qs ' /sys/kernel/debug ' /proc/mounts ||
	mount -t debugfs nodev /sys/kernel/debug || exit 41
echo 1 >/sys/kernel/debug/igc_batch/$(basename $(readlink /sys/class/net/%s/device))/panic_in_poll || exit 42
""" % r.ifa, check=False)
    if rc:
        raise RuntimeError("cannot arm panic_in_poll (%d): %s" % (rc, o))
    gen = r.gen_background(1000, 2000)
    try:
        r.proc.wait(timeout=60)
    except Exception:
        return False
    finally:
        gen.kill()
        gen.wait()
    return True


def checks(t, short, a, qemu):
    out = labvm.run_dir(a.keep, short, "dbb-netcons.")
    ra = router.options(short, rmem=a.rmem, qemu=qemu, smp=a.smp, out=out,
                        modules=a.modules or None)
    r = NetconsoleRouter(ra, [CONFIG], router.our_modules(ra, [CONFIG]))
    wire = None
    with router.booted(t, r):
        r.load(CONFIG)
        r.mode_setup("stack")
        wire = WireListener(r.pb_out)
        wire.start()
        rc, o = start_netconsole(r)
        t.check("netconsole over igc_batch: a kernel message reaches the "
                "lab host", rc == 0 and wire.wait_for(MARKER, 10), o)
        netpoll0.check(t, r, "igc_batch", "igcb_napi_poll")
        exited = panic_in_receive_pass(r)
        got = wire.wait_for(PANIC_TEXT, 5)
        with open(r.console, errors="replace") as f:
            con = f.read()
        t.check("a panic inside a receive pass (batch open, netpoll with "
                "IRQs off): the panic text reaches the lab host over "
                "netconsole",
                exited and got,
                "QEMU exited: %s; frames from B: %d; panic on the "
                "console: %s" % (exited, len(wire.frames),
                                 PANIC_TEXT.decode() in con))
    if wire:
        wire.close()
    return ra.out


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--modules", help="our *.ko (default: built)")
    return labvm.one_boot_test(ap, checks)


if __name__ == "__main__":
    sys.exit(main())
