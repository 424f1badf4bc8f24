#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""lab_extra_port.py: a router guest with one more port than A and B.

    tools/testing/selftests/net/dbbatch/lab_extra_port.py [--kernel K ...]

The lab's environment object (tools/lab/labenv.py) with a third dbb-igc
port, C, behind a PCIe root port, on upstream igc: no change to the lab
library is needed for it.  Per kernel, one boot: C binds behind its root
port; what the guest sends out of C reaches C's wire on the host, frame
for frame as the model counts them; frames the host sends into C's wire
reach the guest, counted alike by the model and the guest's interface.
KTAP on stdout; exit 0 when every check passed.
"""

import socket
import struct
import sys

from lablib import labvm, rows
from labenv import LabEnv, Port

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 10, "kernels": "each", "label": "lab extra port",
              "minutes": 0.5}]


PEER_MAC = bytes.fromhex("020000db0c01")
PINGS = 5
FRAMES_IN = 10


def frames_at(sock):
    """Every datagram (frame) waiting on SOCK."""
    sock.setblocking(False)
    got = []
    while True:
        try:
            got.append(sock.recv(65536))
        except BlockingIOError:
            return got


def checks(t, short, a, qemu):
    out = labvm.run_dir(a.keep, short, "dbb-extra-port.")
    with LabEnv(short, ports=[Port("C", root_port=True)], out=out, t=t,
                qemu=qemu, rmem=a.rmem, smp=a.smp) as env:
        r = env.router
        r.load(env.configs[0])
        c = env.ifname("C")
        rc, dev = env.guest("readlink -f /sys/class/net/%s/device" % c,
                            check=False)
        # behind the root port: .../0000:00:10.0/0000:01:00.0
        if not t.check("port C binds igc behind its PCIe root port",
                       c and rc == 0 and dev.count("/0000:") >= 2,
                       "interface %s, device %s" % (c, dev.strip())):
            return out
        wire = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        wire.bind(("127.0.0.1", env.port("C").host_in))
        env.defer(wire.close)
        env.guest("ip addr add 10.2.255.254/16 dev %s; ip link set %s up; "
                  "carrier %s 1 20; ip neigh replace 10.2.0.1 lladdr %s "
                  "dev %s nud permanent"
                  % (c, c, c, PEER_MAC.hex(":"), c))
        env.defer(env.guest, "ip link set %s down" % c, check=False)
        frames_at(wire)
        m0 = r.port_truth("C")
        env.guest("ping -c %d -i 0.2 -W 1 10.2.0.1 >/dev/null; sleep 1"
                  % PINGS, check=False)
        seen = frames_at(wire)
        sent = rows.sum_q(r.port_truth("C"), "tx_frames") - \
            rows.sum_q(m0, "tx_frames")
        echo = [f for f in seen if len(f) > 34 and f[:6] == PEER_MAC and
                f[12:14] == b"\x08\x00" and f[23] == 1 and f[34] == 8]
        t.check("what the guest sends out of port C reaches its wire, as "
                "many frames as the model counts sent",
                len(echo) == PINGS and len(seen) == sent,
                "echo requests %d of %d, frames on the wire %d, model "
                "tx_frames +%d" % (len(echo), PINGS, len(seen), sent))

        _, mac = env.guest("cat /sys/class/net/%s/address" % c)
        dst = bytes.fromhex(mac.strip().replace(":", ""))
        _, n0 = env.guest("cat /sys/class/net/%s/statistics/rx_packets" % c)
        m0 = r.port_truth("C")
        for i in range(FRAMES_IN):
            wire.sendto(dst + PEER_MAC + struct.pack("!H", 0x88b5) +
                        bytes(46), ("127.0.0.1", env.port("C").guest_in))
        env.guest("sleep 1")
        _, n1 = env.guest("cat /sys/class/net/%s/statistics/rx_packets" % c)
        got = rows.sum_q(r.port_truth("C"), "rx_frames") - \
            rows.sum_q(m0, "rx_frames")
        t.check("frames the host sends into port C reach the guest, the "
                "model's count and the interface's alike",
                got == FRAMES_IN and int(n1) - int(n0) == FRAMES_IN,
                "sent %d, model rx_frames +%d, rx_packets +%d"
                % (FRAMES_IN, got, int(n1) - int(n0)))
        t.check("kernel log clean, not tainted, no guest error in a model",
                *r.clean())
        return out


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    return labvm.one_boot_test(ap, checks)


if __name__ == "__main__":
    sys.exit(main())
