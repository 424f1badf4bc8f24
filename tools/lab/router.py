#!/usr/bin/env python3
"""router.py: the lab's forwarding topology in one command.

A QEMU guest (Debian's 6.1 or 6.12 kernel, TCG) is a router with two
ports (dbb-igc unless --nic-a/--nic-b say otherwise); dbb-gen on the
host sends into port A, dbb-sink on the host counts what port B sends:

    dbb-gen --to 127.0.0.1:PA_IN ---> [port A  nicA 52:54:00:db:b0:00]
                                         guest: IPv4 forwarding (stack)
                                         or XDP_REDIRECT A -> B (xdp)
    dbb-sink --bind 127.0.0.1:PB_OUT <--- [port B  nicB 52:54:00:db:b0:0b]

Each port is a "-netdev dgram" on 127.0.0.1 (one UDP datagram per frame).
With --both-ways a second dbb-gen sends into port B (sources in B's
subnet, destination REV_DST_IP in A's) and a second dbb-sink counts what
port A sends: each step's rate is the total, half each way, and a row's
offered, forwarded and model figures are the sums of both directions.
For every configuration (driver + module parameters + ethtool private
flags) and every mode, in ONE guest boot (the driver is unloaded and loaded
between configurations), it runs the rate steps and reports per step:
offered, sent, forwarded (sink arrivals), loss and where it happened,
per-flow reordering, latency, the model's ground truth deltas from QMP
(TDT writes per forwarded frame, no-op TDT writes, RDT writes, interrupts,
rx_dropped), guest CPU busy (/proc/stat) and, with --insn, guest
instructions per forwarded frame.  --insn-steps R1,R2 counts only steps of
its own, run first for each configuration and mode, and leaves the ramp
(--steps) uncounted at full speed in the same boot; a --counted-only
configuration runs those steps alone.  A table on stdout (or JSON lines
with --json); both are also written to the run directory.

    tools/lab/router.py --kernel 6.1 --mode stack --steps 5k,10k,20k
    tools/lab/router.py --mode stack,xdp --rate 20k --count 100000 \\
        --driver igc --driver igc_batch --driver-params 'tx_db_batched=1'
    tools/lab/router.py --nic-b dbb-octep,wmark=0x100 --rings 0 \\
        --driver igc+octeon_ep

--nic-a/--nic-b choose each port's model (dbb-igc by default, dbb-octep)
and its QEMU properties; the ground truth of either model is read under
one set of names (rows.TRUTH_ALIASES: "tdt" the TX doorbell, "rdt" the RX
doorbell or credit).  A driver "igc+octeon_ep" loads both modules (the
parameters go to the first).  --root-port A|B puts that port behind a
PCIe root port (ROOT_PORT_SLOT: 6 for A, 7 for B; the port itself then
on the root port's bus): hot-pluggable (QMP device_del) and reachable by
AER (HMP pcie_aer_inject_error nicA|nicB, Router.hmp()).

As a library: router.options(kernel, configs, **opts) gives these
options by name and Router(options, configs, modules) the guest (or
labenv.LabEnv, the same as a context manager); the rows are rows.py's,
the host's generators and sinks traffic.py's, the guest's provisioning
guest/router.sh's.

Python 3 stdlib.  Needs root only for --rmem (raising
net.core.rmem_default while QEMU creates its sockets).
"""

import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, LAB)
import insnprof  # noqa: E402
import labvm  # noqa: E402
import rows  # noqa: E402
import traffic  # noqa: E402
from rows import fmt_row, header, sum_q  # noqa: E402
from traffic import rate  # noqa: E402

MAC_A = "52:54:00:db:b0:00"       # dbb-gen's default --dst-mac
MAC_B = "52:54:00:db:b0:0b"
NEXT_HOP_MAC = "02:00:00:db:b0:02"  # the sink's (any: it ignores MACs)
ADDR_A = "10.0.255.254/16"         # generator side: 10.0.0.1 ... 10.0.x.y
ADDR_B = "10.1.255.254/16"         # sink side: dbb-gen --dst-ip 10.1.0.1
SINK_IP = "10.1.0.1"
# --both-ways: the second generator's first source and its destination
REV_SRC_IP = "10.1.1.1"
REV_DST_IP = "10.0.128.1"
# --conntrack: a stateful nftables firewall in the forward path: Debian's
# modules (the ruleset is guest/conntrack.nft)
CT_KMODS = ("nf_conntrack", "nf_tables", "nft_ct", "nf_conntrack_netlink")
CT_WARMUP_PPS = 10000   # the pass that creates every flow's entry
# --root-port: each port's root port, by slot of the root complex (the
# ports themselves sit in slots 4 and 5, or behind these on their bus)
ROOT_PORT_SLOT = {"A": 6, "B": 7}
# More ports than A and B (Router's ports=): the Nth (from 0) in slot
# 8 + N, or behind a root port in slot 16 + N; MAC 52:54:00:db:b0:1N
EXTRA_SLOT, EXTRA_ROOT_SLOT = 8, 16
RMEM = "/proc/sys/net/core/rmem_default"
# The lab tests' traffic: 1,024 flows, 16 source ports per source address
# (64 addresses), so an RSS hash on addresses alone spreads them too.
TEST_FLOWS = 1024
TEST_GEN_ARGS = "--sport-count 16"
# Taint flags a lab module may set: O (out of tree) and E (unsigned).
TAINT_OOT_UNSIGNED = 4096 | 8192
# Every port driver the lab loads: a configuration change unloads them all.
PORT_DRIVERS = ("igc_batch", "igc", "octep_fix", "octeon_ep")

class Port:
    """A port beyond A and B (Router's ports=): NAME (a letter: QEMU id
    nicNAME, netdev pNAME), NIC (MODEL[,props], as --nic-a), behind a
    PCIe root port (rpNAME) if ROOT_PORT.  At boot the router gives it a
    MAC and a wire on the host's loopback: the guest's frames arrive at
    127.0.0.1:host_in, frames sent to 127.0.0.1:guest_in reach it."""

    def __init__(self, name, nic="dbb-igc", root_port=False):
        self.name, self.nic, self.root_port = name, nic, root_port
        self.mac = self.guest_in = self.host_in = None


def dgram(netdev, local, remote):
    """-netdev of a port's wire: a UDP datagram per frame, from QEMU's
    LOCAL port to REMOTE on 127.0.0.1."""
    return ["-netdev", "dgram,id=%s,local.type=inet,local.host=127.0.0.1,"
            "local.port=%d,remote.type=inet,remote.host=127.0.0.1,"
            "remote.port=%d" % (netdev, local, remote)]


class Config:
    """One driver configuration: driver module, its parameters, ethtool
    private flags, and a label for the tables."""

    def __init__(self, driver, params="", priv_flags="", label=None):
        self.driver = driver
        self.params = params
        self.priv_flags = priv_flags
        self.label = label
        self.counted_only = False   # --counted-only: no ramp

    def modules(self):
        """The modules to load: "igc+octeon_ep" (a port of each model)
        loads both; the parameters go to the first."""
        return self.driver.split("+")

    def name(self):
        if self.label:
            return self.label
        extra = " ".join(x for x in (self.params, self.priv_flags) if x)
        return self.driver + ("[%s]" % extra if extra else "")


class DriverAction(argparse.Action):
    """--driver starts a configuration; --driver-params, --priv-flags and
    --label apply to the latest one."""

    def __call__(self, parser, ns, value, option=None):
        cfgs = getattr(ns, "configs", None) or []
        if option == "--driver":
            cfgs.append(Config(value))
        else:
            if not cfgs:
                cfgs.append(Config("igc"))
            attr = {"--driver-params": "params", "--priv-flags": "priv_flags",
                    "--label": "label", "--counted-only": "counted_only"}[
                        option]
            setattr(cfgs[-1], attr, True if self.nargs == 0 else value)
        ns.configs = cfgs


class Router:
    """The router guest: two ports, the drivers of CONFIGS, our EXTRA_KO.
    A test that needs more in the guest extends it: KMODS (Debian's
    modules, with their dependencies) and TOOLS ((host tool, package)
    pairs, copied with their libraries) in a subclass, FILES ({guest
    path: host path}) and DIRS (host directories, to the same path) per
    instance."""
    KMODS = ("igc",)
    TOOLS = (("bash", "bash"), ("bpftool", "bpftool"),
             ("xdp-bench", "xdp-tools"), ("xdp-loader", "xdp-tools"),
             ("tc", "iproute2"), ("iperf3", "iperf3"))

    def __init__(self, args, configs, extra_ko=(), files=None, dirs=(),
                 ports=()):
        self.a = args
        self.configs = configs
        self.extra_ko = list(extra_ko)
        self.files = dict(files or {})    # guest path: host path
        self.dirs = list(dirs)
        self.ports = list(ports)          # Port()s beyond A and B
        self.work = args.out
        os.makedirs(self.work, exist_ok=True)
        # A guest command's time limit is for a stuck guest, not a slow
        # one: the debug kernel (KASAN, lockdep) runs a module load or a
        # rebind several times slower than Debian's.
        self.slow = 3 if labvm.is_debug(args.kernel) else 1
        self.proc = None
        self.qmp = None
        self.gsh = None
        self.insn = None
        self.prof = None        # the plugin's profile socket (--profile)
        self.ctl = None         # the plugin's switch (--insn-steps)
        self.counting = False   # the plugin counts now
        self.core_syms = []     # the kernel's text symbols, read at boot
        self.mod_syms = (None, [])  # (/proc/modules, their text symbols)
        self.stray = None
        self.rmem_saved = None
        self.boot_time = None
        self.accel = None       # what the guest runs under (boot())
        self.ifa = self.ifb = None
        self.xdp_running = False
        self.ct_warm = None     # conntrack entries after the warm-up
        self.gen, self.sink = traffic.traffic_tools()

    # ---- boot --------------------------------------------------------
    def boot(self):
        a = self.a
        kver = labvm.kernel_release(a.kernel)
        self.kver = kver
        initrd = os.path.join(self.work, "initramfs-%s.cpio.gz" % kver)
        t = time.time()
        tools = labvm.BASE_TOOLS + tuple(self.TOOLS)
        bpfdir = "/usr/lib/x86_64-linux-gnu/bpf"
        kmods = self.KMODS
        if a.conntrack:
            tools += (("nft", "nftables"), ("conntrack", "conntrack"))
            kmods += CT_KMODS
        vmlinuz = labvm.build_initramfs(
            kver, initrd, tools=tools, kmods=kmods,
            extra_ko=self.extra_ko, files=self.files,
            dirs=([bpfdir] if os.path.isdir(bpfdir) else []) + self.dirs,
            bash_sh=True)
        labvm.log("%s: initramfs built in %.1f s" % (kver, time.time() - t))
        self.console = os.path.join(self.work, "console.log")
        qmp_path = os.path.join(self.work, "qmp.sock")
        gsh_path = os.path.join(self.work, "shell.sock")
        insn_path = os.path.join(self.work, "insn.sock")
        prof_path = os.path.join(self.work, "prof.sock")
        ctl_path = os.path.join(self.work, "insn-ctl.sock")
        for p in (self.console, qmp_path, gsh_path, insn_path, prof_path,
                  ctl_path):
            if os.path.exists(p):
                os.unlink(p)
        pa_in, pa_out, pb_in, pb_out = labvm.free_udp_ports(4)
        self.pa_in, self.pb_out = pa_in, pb_out
        self.pb_in, self.pa_out = pb_in, pa_out
        if a.wire == "loop":
            # port A's wire is port B's: each sends to the other's socket
            # (a TCP endpoint test puts B in a network namespace)
            pa_out, pb_out = pb_in, pa_in
        if a.wire == "router" and not a.both_ways:
            self.stray = traffic.StrayCounter(pa_out)
            self.stray.start()
        accel = labvm.resolve_accel(a.accel, a.qemu)
        plugin = a.insn or bool(a.insn_rates)
        if plugin and a.accel != "tcg,thread=multi":
            # the plugin counts under TCG; exact counts: one TCG thread
            # (asked for by name, multi-threaded TCG may lose some)
            accel = labvm.TCG_ACCEL
        self.accel = accel
        append = "lab.shell " + a.append
        if a.viommu:
            # DMA into a page the driver unmapped is refused (the model
            # counts dma_errors) instead of corrupting the guest.
            append += " intel_iommu=on iommu.strict=1"
        cmd = labvm.qemu_cmd(a.qemu, accel, vmlinuz, initrd, self.console,
                             qmp_path, append, mem=a.mem, smp=a.smp)
        if a.viommu:
            cmd += ["-device", "intel-iommu"]
        cmd += [
            "-chardev", "socket,id=gsh,path=%s,server=on,wait=off"
            % gsh_path, "-serial", "chardev:gsh"]
        cmd += dgram("pa", pa_in, pa_out) + dgram("pb", pb_in, pb_out)
        cmd += self.port_args(a.nic_a, "A", "pa", 4, MAC_A)
        cmd += self.port_args(a.nic_b, "B", "pb", 5, MAC_B)
        if len(self.ports) > EXTRA_ROOT_SLOT - EXTRA_SLOT:
            raise SystemExit("at most %d ports beyond A and B"
                             % (EXTRA_ROOT_SLOT - EXTRA_SLOT))
        for i, p in enumerate(self.ports):
            p.guest_in, p.host_in = labvm.free_udp_ports(2)
            p.mac = "52:54:00:db:b0:%02x" % (0x10 + i)
            cmd += dgram("p" + p.name, p.guest_in, p.host_in)
            cmd += self.port_args(p.nic, p.name, "p" + p.name,
                                  EXTRA_SLOT + i, p.mac,
                                  EXTRA_ROOT_SLOT + i if p.root_port
                                  else None)
        cmd += [
            "-d", "guest_errors,plugin" if plugin else "guest_errors",
            "-D", os.path.join(self.work, "qemu.log")]
        if plugin:
            # --insn-steps: loaded switched off (the ramps run at full
            # speed), switched on for the counted steps
            cmd += ["-plugin", "%s,sock=%s%s%s" % (
                labvm.build_insn_plugin(), insn_path,
                ",prof=" + prof_path if a.profile else "",
                ",ctl=%s,count=off" % ctl_path if a.insn_rates else "")]
            libinsn = os.path.join(os.path.dirname(a.qemu), "libinsn.so")
            if a.libinsn_check and os.path.exists(libinsn):
                cmd += ["-plugin", libinsn + ",inline=on"]
        labvm.log(" ".join(cmd))
        if a.rmem:
            try:
                with open(RMEM) as f:
                    saved = f.read().strip()
                with open(RMEM, "w") as f:
                    f.write(str(a.rmem))
                self.rmem_saved = saved
            except OSError as e:
                labvm.log("cannot raise %s (%s): QEMU's input sockets keep "
                          "the default" % (RMEM, e))
        start = time.time()
        try:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL,
                stdout=open(os.path.join(self.work, "qemu.out"), "w"),
                stderr=subprocess.STDOUT)
            # QEMU creates its dgram sockets before it listens on QMP.
            self.qmp = labvm.QMP(qmp_path)
        finally:
            self.restore_rmem()
        if plugin:
            self.insn = labvm.InsnCounter(insn_path)
            self.counting = a.insn
        if a.insn_rates:
            self.ctl = ctl_path
        if a.profile:
            self.prof = prof_path
        self.gsh = labvm.GuestShell(gsh_path, timeout=a.boot_timeout,
                                    proc=self.proc)
        self.boot_time = time.time() - start
        ready = self.gsh.ready[1].group(1).decode().split()
        labvm.log("%s: QEMU start to guest shell %.1f s (guest uptime %s s)"
                  % (kver, self.boot_time, ready[1] if len(ready) > 1
                     else "?"))
        self.guest("/lab/router-setup.sh")
        self.boot_insn = self.insn.read() if self.counting else None
        self.idle_insn_per_s = None
        if self.counting:
            # the guest's background: instructions per second while idle
            t0, i0 = time.time(), self.insn.read()
            time.sleep(3)
            self.idle_insn_per_s = round((self.insn.read() - i0) /
                                         (time.time() - t0))
        if self.prof:
            self.core_syms = self.core_symbols(vmlinuz)

    def core_symbols(self, vmlinuz):
        """The core kernel's text symbols at this boot's addresses: the
        table kept for this kernel image, slid by KASLR's offset, or read
        whole (about 15 s under TCG) and kept."""
        with open(vmlinuz, "rb") as f:
            key = hashlib.sha256(f.read()).hexdigest()[:16]
        path = os.path.join(labvm.CACHE, "kallsyms", key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _, out = self.guest("grep -E ' (%s)$' /proc/kallsyms" %
                            "|".join(insnprof.ANCHORS))
        now = insnprof.anchors(insnprof.parse_kallsyms(out))
        try:
            with open(path) as f:
                kept = insnprof.parse_kallsyms(f.read())
            syms = insnprof.shift(kept, insnprof.anchors(kept), now)
            if syms:
                return syms
        except OSError:
            pass
        text = self.kallsyms(False)
        syms = insnprof.parse_kallsyms(text)
        if insnprof.anchors(syms) == now and len(now) == 2:
            # another run of the same image may be writing it too
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        return syms

    def module_symbols(self):
        """The modules' text symbols, read again only when /proc/modules
        (names and load addresses) changed: a whole /proc/kallsyms costs
        seconds under the instruction counter, and a configuration's steps
        share one load."""
        _, mods = self.guest("awk '{ print $1, $6 }' /proc/modules")
        if mods != self.mod_syms[0]:
            self.mod_syms = (mods, insnprof.parse_kallsyms(
                self.kallsyms(True)))
        return self.mod_syms[1]

    def kallsyms(self, modules):
        """The guest's text symbols: the core kernel's (they stay put for
        the boot) or the modules' (they move at every load)."""
        _, out = self.guest("awk '$2 ~ /^[tT]$/ && (NF == 4) == %d' "
                            "/proc/kallsyms" % modules, timeout=300)
        return out

    @staticmethod
    def device_arg(nic, dev_id, netdev, addr, mac):
        """-device of one port: NIC is MODEL[,props] (--nic-a/--nic-b)."""
        model, _, props = nic.partition(",")
        return "%s,id=%s,netdev=%s,addr=%x,mac=%s%s" % (
            model, dev_id, netdev, addr, mac, "," + props if props else "")

    def port_args(self, nic, port, netdev, addr, mac, root_slot=None):
        """QEMU arguments of port PORT (nicPORT): its device in slot ADDR
        of the root complex, or behind a PCIe root port (rpPORT) in slot
        ROOT_SLOT (A and B: with --root-port PORT, in ROOT_PORT_SLOT):
        hot-pluggable, reachable by AER (HMP pcie_aer_inject_error
        nicPORT ...)."""
        dev = self.device_arg(nic, "nic" + port, netdev, addr, mac)
        if port in (self.a.root_port or ()):
            root_slot = ROOT_PORT_SLOT[port]
        if root_slot is None:
            return ["-device", dev]
        rp = "rp" + port
        return ["-device", "pcie-root-port,id=%s,chassis=%d,slot=%d,"
                "bus=pcie.0,addr=%x" % (rp, addr, addr, root_slot),
                "-device", re.sub(r",addr=[0-9a-f]+", "", dev) + ",bus=" + rp]

    def hmp(self, line):
        """One HMP command through QMP; its output."""
        return self.qmp.cmd("human-monitor-command",
                            **{"command-line": line})

    def restore_rmem(self):
        if self.rmem_saved is not None:
            with open(RMEM, "w") as f:
                f.write(self.rmem_saved)
            self.rmem_saved = None

    def guest(self, script, timeout=120, check=True):
        """Run SCRIPT in the guest after guest/lib.sh (the lab's guest
        helpers) and guest/router.sh (the router's provisioning);
        (status, output)."""
        return self.gsh.run(". /lab/lib.sh; . /lab/router.sh\n" + script,
                            timeout=timeout * self.slow, check=check)

    # ---- driver configurations and modes --------------------------------
    def load(self, cfg):
        """Unload every port driver, load CFG's modules on both ports with
        the run's queues, rings and CFG's private flags, links up
        (guest/router.sh); the guest's output."""
        a = self.a
        drivers = list(PORT_DRIVERS) + sorted(
            {m for c in self.configs for m in c.modules()} -
            set(PORT_DRIVERS))
        mods = cfg.modules()
        q = shlex.quote
        script = "router_driver %s %s %s %s || exit $?\n" % (
            q(" ".join(drivers)), q(mods[0]), q(cfg.params),
            q(" ".join(mods[1:])))
        script += "router_ports %s %s || exit $?\n" % (MAC_A, MAC_B)
        if a.queues:
            script += "router_queues $A $B %d || exit $?\n" % a.queues
        if a.rings:
            script += "router_rings $A $B %d || exit $?\n" % a.rings
        if cfg.priv_flags:
            script += "router_priv_flags $A $B %s || exit $?\n" % q(
                cfg.priv_flags)
        script += "router_up $A $B\n"
        rc, out = self.guest(script, timeout=120, check=False)
        if rc != 0:
            raise RuntimeError("loading %s failed (%d):\n%s"
                               % (cfg.name(), rc, out))
        m = re.search(r"IFACES (\S+) (\S+)", out)
        self.ifa, self.ifb = m.group(1), m.group(2)
        qm = re.search(r"Combined:\s*(\d+)", out)
        self.queues_now = int(qm.group(1)) if qm else None
        rg = re.findall(r"^(RX|TX):\s*(\d+)", out, re.M)
        self.rings_now = dict(rg)
        labvm.log("%s: %s on %s (A) and %s (B), %s combined queues"
                  % (cfg.name(), cfg.driver, self.ifa, self.ifb,
                     self.queues_now))
        return out

    def provision(self, script, what):
        """Run SCRIPT (guest/router.sh's functions); its output, or
        RuntimeError naming WHAT when it fails."""
        rc, out = self.guest(script, check=False)
        if rc != 0:
            raise RuntimeError("%s failed (%d):\n%s" % (what, rc, out))
        return out

    def mode_setup(self, mode):
        """MODE (stack: IPv4 forwarding; xdp: xdp-bench redirect A -> B,
        both ways B -> A too) on the loaded driver, with the run's RSS,
        BQL, conntrack and --guest-setup; the guest's output."""
        a, A, B = self.a, self.ifa, self.ifb
        out = ""
        if mode == "stack":
            out = self.provision("router_stack %s %s %s %s %s %s %s\n" % (
                A, B, ADDR_A, ADDR_B, SINK_IP, REV_DST_IP, NEXT_HOP_MAC),
                "stack forwarding")
        elif mode == "xdp":
            # whatever started is stopped by mode_teardown (its pid
            # files), also when the second one failed
            self.xdp_running = True
            out = self.provision("router_xdp %s %s %d %s\n" % (
                A, B, a.xdp_interval, "both" if a.both_ways else ""),
                "xdp-bench redirect")
        if a.irq_spread:
            self.guest("spread %s; spread %s\n" % (A, B))
        if a.rss == "same":
            # The same RSS on every driver, with UDP ports hashed: on
            # addresses only (both drivers' default) dbb-gen's flows (1024
            # source ports per source address, in order) sit on one queue
            # for ~50 ms at a time, every burst whole, while a router
            # benchmark wants them spread.  Which bursts split then depends
            # on the key (random per boot, the same for both drivers) and
            # on the indirection table, whose defaults differ (igc: blocks,
            # igc_batch: round robin): both made the same.
            for port in [A] + ([B] if a.both_ways else []):
                self.provision("router_rss_same %s\n" % port, "--rss same")
        if a.bql == "off":
            # Byte queue limits out of the way: a queue never stops for
            # BQL, so the qdisc does not bulk-dequeue (xmit_more) because
            # of it.
            for port in [B] + ([A] if a.both_ways else []):
                self.provision("router_bql_off %s\n" % port, "--bql off")
        if a.conntrack and mode == "stack":
            out += self.conntrack_setup()
        if a.guest_setup:
            out += self.provision("A=%s B=%s MODE=%s\n%s\n" % (
                A, B, mode, a.guest_setup), "--guest-setup")
        time.sleep(a.settle)
        return out

    def conntrack_setup(self):
        """The stateful ruleset, an empty table big enough for every flow,
        and a pass over all flows at CT_WARMUP_PPS so that the measured
        steps find each flow's entry (the established path, as pf's state
        lookups in the FreeBSD post) rather than create it.  The entries
        it made are kept in self.ct_warm for the rows."""
        a = self.a
        out = self.provision("router_conntrack '%s' %d %d\n" % (
            " ".join(CT_KMODS), max(262144, 2 * a.flows),
            max(65536, a.flows)), "--conntrack setup")
        want = a.flows * (2 if a.both_ways else 1)
        for _ in range(2):      # a pass that lost frames: once more
            self.run_gen([CT_WARMUP_PPS], [a.flows])
            self.ct_warm = self.ct_count()
            if self.ct_warm >= want:
                break
        labvm.log("conntrack: %d entries after the warm-up over %d flows"
                  % (self.ct_warm, want))
        return out

    def ct_count(self):
        """Entries in the conntrack table now."""
        rc, out = self.gsh.eval("cat /proc/sys/net/netfilter/"
                                "nf_conntrack_count")
        return int(out.strip()) if out.strip().isdigit() else -1

    def mode_teardown(self, mode):
        if mode == "xdp" and self.xdp_running:
            self.xdp_running = False
            self.provision("router_xdp_stop %s %s\n" % (self.ifa, self.ifb),
                           "xdp-bench teardown")
        elif mode == "stack":
            self.guest("router_stack_stop %d\n" % bool(self.a.conntrack))
            self.ct_warm = None

    # ---- measurements -------------------------------------------------
    def truth(self):
        return {"A": rows.normalized(rows.model_of(self.a.nic_a),
                                self.qmp.truth("nicA")),
                "B": rows.normalized(rows.model_of(self.a.nic_b),
                                self.qmp.truth("nicB"))}

    def port_truth(self, port):
        """The ground truth of one of the ports= beyond A and B."""
        p = next(x for x in self.ports if x.name == port)
        return rows.normalized(rows.model_of(p.nic), self.qmp.truth("nic" + port))

    def proc_stat(self):
        rc, out = self.gsh.eval(
            'while read -r c r; do case $c in cpu*) echo "$c $r";; '
            '*) break;; esac; done </proc/stat')
        return rows.cpu_stat(out)

    def ethtool_stats(self):
        rc, out = self.guest("""
echo "@@A"; ethtool -S %s
echo "@@B"; ethtool -S %s
""" % (self.ifa, self.ifb))
        res = {"A": {}, "B": {}}
        cur = None
        for line in out.splitlines():
            if line.startswith("@@"):
                cur = line[2:]
                continue
            m = re.match(r"\s*([\w\[\]\.-]+):\s*(-?\d+)\s*$", line)
            if m and cur:
                res[cur][m.group(1)] = int(m.group(2))
        return res

    def regs(self, dev):
        """ethtool -d DEV as a list of 32-bit words: (status, words)."""
        rc, out = self.guest("ethtool -d %s raw on | od -An -tx4 -v\n" % dev,
                             check=False)
        words = [int(w, 16) for w in out.split()
                 if re.fullmatch(r"[0-9a-f]{8}", w)]
        return rc, words

    def dbbatch_stats(self):
        """The dbbatch core's counters, total row of
        /sys/kernel/debug/dbbatch/stats: {column: value}, {} when the core
        is not loaded."""
        rc, out = self.guest(
            "[ -d /sys/kernel/debug/dbbatch ] || mount -t debugfs nodev "
            "/sys/kernel/debug 2>/dev/null\n"
            "cat /sys/kernel/debug/dbbatch/stats\n", check=False)
        lines = [x.split() for x in out.splitlines() if x.strip()]
        head = next((x for x in lines if x[0] == "cpu"), None)
        tot = next((x for x in lines if x[0] == "total"), None)
        if not head or not tot:
            return {}
        return dict(zip(head[1:], (int(x) for x in tot[1:])))

    def qdisc(self):
        """Port B's root qdisc counters: {sent, dropped, requeues}."""
        rc, out = self.gsh.eval("tc -s qdisc show dev %s | head -n 2"
                                % self.ifb)
        m = re.search(r"Sent \d+ bytes (\d+) pkt \(dropped (\d+), "
                      r"overlimits \d+ requeues (\d+)\)", out)
        if not m:
            return None
        return {"sent": int(m.group(1)), "dropped": int(m.group(2)),
                "requeues": int(m.group(3))}

    def drain(self, timeout=10.0):
        """Wait until the ports stop transmitting (the guest forwarded
        what it had), by polling the models' tx_frames."""
        last = None
        stable = 0
        deadline = time.time() + timeout
        while time.time() < deadline:
            t = sum(sum_q(self.qmp.truth(n), "tx_frames")
                    for n in ("nicA", "nicB"))
            stable = stable + 1 if t == last else 0
            if stable >= 2:
                return
            last = t
            time.sleep(0.25)

    def start_sink(self, tmp, port, name):
        """A fresh dbb-sink on the host end of a port's wire (traffic.py)
        with --sink-args; (Popen, its output file's path)."""
        return traffic.start_sink(self.sink, tmp, port, name,
                                  self.a.sink_args)

    def run_gen(self, rates, counts, on_line=None, flows=None, size=None):
        """One dbb-gen run (one or more steps) into port A, with a fresh
        dbb-sink on port B's output; returns (gen JSON lines, sink JSON
        lines, measurements).  ON_LINE(obj) is called for each gen JSON
        line as it is printed (end of each step).  With --both-ways a
        second generator and sink run the other way at the same rates
        (the caller halves them): their lines are measurements["rev"]."""
        a = self.a
        if len(set(counts)) != 1:
            raise ValueError("one count per gen run")
        steps = ["--json", "--step-gap-ms", str(a.step_gap_ms),
                 "--count", str(counts[0]),
                 "--steps", ",".join(str(r) for r in rates)]
        steps += shlex.split(a.gen_args)
        flows, size = flows or a.flows, size or a.size
        tmp = tempfile.mkdtemp(prefix="router-step.", dir=self.work)
        sinks, gens = [], []
        try:
            # the sinks first: each listens before a frame can reach it
            sinks.append(self.start_sink(tmp, self.pb_out, "sink"))
            if a.both_ways:
                sinks.append(self.start_sink(tmp, self.pa_out, "sink-rev"))
            q0 = self.qdisc()
            m0 = self.measure()
            stray0 = self.stray.frames if self.stray else None
            t0 = time.time()
            for rev in ([False, True] if a.both_ways else [False]):
                gens.append(subprocess.Popen(
                    self.gen_cmd(flows, size, rev) + steps,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True))
            gen_lines = []
            for line in gens[0].stdout:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                gen_lines.append(obj)
                if on_line:
                    on_line(obj)
            # the first one's stdout is read above: only its stderr is left
            outs = [g.communicate() for g in gens]
            rgen_lines = traffic.json_objects(
                outs[1][0].splitlines() if a.both_ways else [])
            gen_secs = time.time() - t0
            cpu1 = self.proc_stat()
            self.drain()
            m1 = self.measure(cpu=False)
            m1["cpu"] = cpu1
            q1 = self.qdisc()
            if q0 and q1:
                m1["qdisc"] = {k: q1[k] - q0[k] for k in q0}
            time.sleep(0.1)
        finally:
            # nothing outlives the run: a generator still sending, a sink
            # still listening (an error above, a signal)
            for g in gens:
                if g.poll() is None:
                    g.kill()
                    g.wait()
            lines = [traffic.stop_sink(*x) for x in sinks]
        for g, (_, err), what in zip(gens, outs,
                                     ("dbb-gen", "dbb-gen (B to A)")):
            if g.returncode not in (0, 1):
                raise RuntimeError("%s failed (%d): %s"
                                   % (what, g.returncode, err))
        return gen_lines, lines[0], {
            "m0": m0, "m1": m1, "gen_secs": gen_secs,
            "stray_frames": (self.stray.frames - stray0 if self.stray
                             else None),
            "rev": (rgen_lines, lines[1]) if a.both_ways else None,
            "ct_count": self.ct_warm}

    def gen_cmd(self, flows, size, reverse=False):
        """dbb-gen into port A (REVERSE: into port B, towards A's side):
        the part of its command line every run shares (the caller adds
        the steps and --gen-args)."""
        if reverse:
            return traffic.gen_argv(self.gen, self.pb_in, MAC_B, flows, size,
                                    REV_SRC_IP, REV_DST_IP)
        return traffic.gen_argv(self.gen, self.pa_in, MAC_A, flows, size)

    def gen_background(self, rate_pps, count):
        """dbb-gen into port A with no sink and no model reads: traffic
        while the guest shell does something else (port B may be going
        away).  Returns the Popen; the caller waits."""
        a = self.a
        return subprocess.Popen(
            self.gen_cmd(a.flows, a.size) + [
                "--steps", str(rate_pps), "--count", str(count)] +
            shlex.split(a.gen_args), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)

    def measure(self, cpu=True):
        m = {"t": time.time()}
        if cpu:
            m["cpu"] = self.proc_stat()
        m["truth"] = self.truth()
        if self.counting:
            m["insn"] = self.insn.read()
            if self.prof:
                m["prof"] = insnprof.read_socket(self.prof)
        return m

    def count(self, on, timeout=60, poke="/bin/true\n"):
        """Switch the instruction counter on or off (--insn-steps).  The
        plugin switches at the guest's next translation: a new process
        in the guest (POKE) makes one."""
        want = b"on" if on else b"off"
        deadline = time.time() + timeout
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.settimeout(10)
                s.connect(self.ctl)
                s.sendall(want + b"\n")
                got = s.recv(16).strip()
            finally:
                s.close()
            if got == want:
                self.counting = on
                return
            if time.time() > deadline:
                raise RuntimeError("the instruction counter did not switch "
                                   "%s in %d s (it says %r)"
                                   % (want.decode(), timeout, got))
            self.guest(poke, check=False)

    def step(self, cfg, mode, rate_pps, count, flows=None):
        """One step at RATE_PPS offered in all (both ways: half each)."""
        ways = 2 if self.a.both_ways else 1
        gen_lines, sink_lines, meas = self.run_gen(
            [rate_pps // ways], [max(1, count // ways)], flows=flows)
        return self.summarize(cfg, mode, gen_lines, sink_lines, meas)[0]

    def summarize(self, cfg, mode, gen_lines, sink_lines, meas):
        """Per gen step rows (rows.step_rows); model/CPU/insn deltas
        cover the whole run (exact for single-step runs)."""
        a = self.a
        ident = {
            "kernel": self.kver, "config": cfg.name(),
            "driver": cfg.driver, "params": cfg.params,
            "priv_flags": cfg.priv_flags, "mode": mode,
            "queues": self.queues_now, "smp": a.smp, "bql": a.bql,
            "insn_counting": self.counting, "size": a.size,
            "rings": self.rings_now}
        return rows.step_rows(ident, gen_lines, sink_lines, meas,
                              markers="--markers" not in a.gen_args,
                              profile=self.profile if a.profile else None)

    def profile(self, m0, m1, fwd):
        """The guest kernel's instructions per forwarded packet in the
        functions that ran most between the measurements M0 and M1 (FWD
        frames forwarded), named from /proc/kallsyms."""
        syms = sorted(self.core_syms + self.module_symbols())
        return insnprof.top(insnprof.by_function(
            insnprof.diff(m0["prof"], m1["prof"]), syms), fwd,
            n=self.a.profile)

    def boot_record(self):
        """What a run's rows depend on beyond each row: the boot's
        kernel, time, instructions, vCPUs, accelerator, flows, size."""
        a = self.a
        return {"type": "boot", "kernel": self.kver,
                "boot_seconds": round(self.boot_time, 2),
                "boot_insn": self.boot_insn,
                "idle_insn_per_s": self.idle_insn_per_s, "smp": a.smp,
                "accel": self.accel, "rmem_default_for_qemu": a.rmem,
                "flows": a.flows, "size": a.size}

    def sweep(self, emit):
        """Every configuration, every mode, every rate step of the run's
        options (a ramp stops after --loss-steps steps in a row lost more
        than --until-loss %); EMIT(row) for each step."""
        a = self.a
        for cfg in self.configs:
            self.load(cfg)
            for mode in a.modes:
                self.mode_setup(mode)
                if a.insn_rates:
                    # counted first, as right after a boot of their own
                    self.count(True)
                    for rt in a.insn_rates:
                        emit(self.step(cfg, mode, rt, max(1, int(
                            rt * a.insn_step_seconds))))
                    self.count(False)
                rates = [] if cfg.counted_only else \
                    a.mode_rates.get(mode, a.rates)
                losses = []
                while True:
                    rt = next_rate(rates, losses, a.until_loss,
                                   a.loss_steps, a.extend)
                    if rt is None:
                        break
                    count = a.count or max(1, int(rt * a.step_seconds))
                    row = self.step(cfg, mode, rt, count)
                    emit(row)
                    losses.append(row["loss_pct"])
                self.mode_teardown(mode)

    # ---- flap, health, shutdown -------------------------------------------
    def set_link(self, dev, up):
        self.qmp.cmd("set_link", name=dev, up=up)

    def qom_set(self, dev, prop, value):
        """A run-time property of the port model DEV (nicA, nicB)."""
        self.qmp.cmd("qom-set", path="/machine/peripheral/" + dev,
                     property=prop, value=value)

    def health(self):
        """(taint, kernel log lines that say something went wrong).  A
        watchdog rescue of an unpublished tail ("left unpublished") and a
        dbbatch caller bug count: no test may rely on either."""
        rc, out = self.guest("""
echo "@@TAINT $(cat /proc/sys/kernel/tainted)"
dmesg | grep -E 'WARNING|BUG:|Oops|Call Trace|RIP:|general protection|hung_task|soft lockup|Reset adapter|Tx Unit Hang|timed out|left unpublished|closed a batch|was left open|LLTX device|still held after' || true
""", check=False)
        m = re.search(r"@@TAINT (\d+)", out)
        bad = [line for line in out.splitlines()
               if not line.startswith("@@") and line.strip()]
        return (int(m.group(1)) if m else -1), bad

    def dmesg(self):
        return self.guest("dmesg\n", check=False)[1]

    def clean(self, taint_ok=0, excuse=None):
        """(ok, evidence): health() finds nothing in the kernel log, the
        taint has no flag beyond TAINT_OK, and the model logged no guest
        programming error on either port.  EXCUSE(lines) -> (lines left,
        taint flags they explain): what a test causes by design."""
        taint, bad = self.health()
        if excuse:
            bad, more = excuse(bad)
            taint_ok |= more
        errs = sum(sum(t["guest_errors"]) for t in list(self.truth().values())
                   + [self.port_truth(p.name) for p in self.ports])
        return (taint >= 0 and taint & ~taint_ok == 0 and not bad and
                not errs, "tainted=%d guest_errors=%d %s"
                % (taint, errs, "; ".join(bad[:8])))

    def free_pages(self):
        """Free pages with no driver loaded: the buddy allocator's, plus
        those parked in the per-CPU lists (/proc/zoneinfo "count:"), which
        can hold thousands after a burst of frees and are free all the
        same."""
        rc, out = self.guest("""
for m in %s; do [ -d /sys/module/$m ] && rmmod $m; done
sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1
echo "@@FREE $(sed -n 's/^nr_free_pages //p' /proc/vmstat)"
echo "@@PCP $(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)"
""" % " ".join(PORT_DRIVERS), check=False)
        free = re.search(r"@@FREE (\d+)", out)
        pcp = re.search(r"@@PCP (\d+)", out)
        return int(free.group(1)) + int(pcp.group(1)) if free and pcp \
            else -1

    def shutdown(self):
        final_insn = None
        try:
            if self.gsh:
                try:
                    with open(os.path.join(self.work, "dmesg.txt"), "w") as f:
                        f.write(self.dmesg())
                    if self.xdp_running:
                        self.mode_teardown("xdp")
                    self.gsh.s.sendall(b"E 0 poweroff -f\n")
                except Exception:
                    pass
            if self.proc:
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            self.restore_rmem()
            if self.stray:
                self.stray.stop = True
                self.stray.sock.close()
            if self.gsh:
                self.gsh.close()
            if self.qmp:
                self.qmp.close()
        try:
            with open(os.path.join(self.work, "qemu.log")) as f:
                counts = re.findall(r"insns: (\d+)", f.read())
            final_insn = [int(x) for x in counts]
        except OSError:
            pass
        return final_insn


@contextlib.contextmanager
def booted(t, r, what="boot"):
    """Boot router R for the block: an error in it is one failed check of
    Tap T (the rest of that boot's checks do not run); the guest always
    shuts down.  A guest that does not boot is that one failed check too:
    the block still runs (a context manager must yield), and its first
    guest command fails without a second check."""
    failed = False
    try:
        try:
            r.boot()
        except Exception as e:
            failed = True
            t.check("%s harness: the guest did not boot: %s: %s"
                    % (what, type(e).__name__, e), False)
        yield r
    except Exception as e:
        if not failed:
            # where it was raised: the error alone rarely says
            t.check("%s harness: %s: %s" % (what, type(e).__name__, e),
                    False, "".join(traceback.format_exc(limit=-4)))
    finally:
        r.shutdown()


# ---- output ------------------------------------------------------------


def parser():
    """router.py's options: the command line's, and options()'s by
    name."""
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--kernel", default="6.1", help="6.1|6.12 (default 6.1)")
    ap.add_argument("--driver", action=DriverAction, dest="configs",
                    metavar="MODULE",
                    help="driver under test (repeat for several "
                    "configurations in one boot; default igc)")
    ap.add_argument("--driver-params", action=DriverAction, dest="configs",
                    metavar="'P=V ...'",
                    help="module parameters of the latest --driver (words "
                    "split at spaces, no shell quoting)")
    ap.add_argument("--priv-flags", action=DriverAction, dest="configs",
                    metavar="FLAGS",
                    help="ethtool private flags of the latest --driver: "
                    "'name=on,other=off'")
    ap.add_argument("--label", action=DriverAction, dest="configs",
                    metavar="TEXT",
                    help="table label of the latest --driver")
    ap.add_argument("--counted-only", action=DriverAction, nargs=0,
                    dest="configs", help="with --insn-steps: the latest "
                    "--driver runs the counted steps only, no ramp")
    ap.add_argument("--modules", help="directory with our *.ko (default: "
                    "built with tools/lab/build-modules.sh when a driver "
                    "is not Debian's)")
    ap.add_argument("--mode", default="stack",
                    help="stack, xdp or stack,xdp (default stack)")
    ap.add_argument("--rate", type=rate, help="one step at this rate (pps)")
    ap.add_argument("--steps", help="rate steps, e.g. 10k,20k,40k")
    ap.add_argument("--mode-steps", action="append", default=[],
                    metavar="MODE=R1,R2,...",
                    help="rate steps of one mode, instead of --steps "
                    "(repeatable; e.g. stack=2k,20k,40k xdp=2k,20k,80k)")
    ap.add_argument("--count", type=int, help="frames per step (default "
                    "rate x --step-seconds)")
    ap.add_argument("--step-seconds", type=float, default=5.0)
    ap.add_argument("--until-loss", type=float, metavar="PCT",
                    help="stop a ramp after the first step losing more "
                    "than PCT %% (saturation)")
    ap.add_argument("--loss-steps", type=int, default=1, metavar="N",
                    help="with --until-loss: stop after N lossy steps in a "
                    "row (default 1)")
    ap.add_argument("--extend", type=int, default=0, metavar="N",
                    help="with --until-loss: a ramp that has not stopped "
                    "by its last rate goes on, up to N steps more, each "
                    "its last rate step higher (a guest faster than the "
                    "ramp assumed still saturates)")
    ap.add_argument("--flows", type=int, default=99328)
    ap.add_argument("--size", type=traffic.frame_size, default=64,
                    help="frame size on the wire incl. FCS, 64..9018, or "
                    "imix (dbb-gen's simple IMIX: 7:4:1 of 64, 594, 1518)")
    ap.add_argument("--queues", type=int, help="ethtool -L combined N on "
                    "both ports (default: the driver's)")
    ap.add_argument("--rings", type=int, default=4096, help="ethtool -G "
                    "rx N tx N on both ports (default 4096, igc's maximum: "
                    "deep enough to ride out the host descheduling a vCPU "
                    "thread for tens of ms; 0 = the driver's default)")
    ap.add_argument("--no-irq-spread", dest="irq_spread",
                    action="store_false", help="leave the queue vectors' "
                    "CPU affinity to the kernel (default: TxRx-i on CPU i)")
    ap.add_argument("--rss", choices=("driver", "same"), default="driver",
                    help="port A's RSS: driver: each driver's defaults "
                    "(UDP hashed on addresses only, which puts every "
                    "dbb-gen burst on one queue); same: UDP hashed on "
                    "addresses and ports "
                    "and a round-robin indirection table on every driver "
                    "(ethtool -N rx-flow-hash udp4/udp6 sdfn, -X equal N), "
                    "for side-by-side comparisons")
    ap.add_argument("--smp", type=int, default=2, help="guest vCPUs")
    ap.add_argument("--mem", type=int, default=1024, help="guest MiB")
    ap.add_argument("--insn", action="store_true", help="count guest "
                    "instructions per step (dbb_insn.so plugin; TCG runs "
                    "single-threaded)")
    ap.add_argument("--insn-steps", metavar="R1,R2,...", help="counted "
                    "steps in a boot of ramps: per configuration and mode, "
                    "these rates with the instruction counter on, then "
                    "the ramp (--steps) with it off (dbb_insn.so's ctl "
                    "socket; the ramps run at full speed, as without "
                    "--insn; TCG runs single-threaded)")
    ap.add_argument("--insn-step-seconds", type=float, metavar="S",
                    help="a counted step's length (default --step-seconds)")
    ap.add_argument("--profile", type=int, nargs="?", const=30, default=0,
                    metavar="N", help="with --insn or --insn-steps: the "
                    "guest kernel's "
                    "instructions per forwarded packet in each of the N "
                    "functions that ran most (default 30) in every row "
                    "(\"profile\"; dbb_insn.so's prof= socket, the "
                    "guest's /proc/kallsyms)")
    ap.add_argument("--libinsn-check", action="store_true", help="with "
                    "--insn, also load QEMU's libinsn.so and compare "
                    "totals at exit")
    ap.add_argument("--rmem", type=int, default=4 << 20, help="net.core."
                    "rmem_default while QEMU creates its sockets (restored "
                    "at once; 0 = leave it; default 4 MiB)")
    ap.add_argument("--qemu", help="QEMU binary (default: build.sh's)")
    ap.add_argument("--accel", default=labvm.DEFAULT_ACCEL)
    ap.add_argument("--append", default="", help="extra kernel arguments")
    ap.add_argument("--viommu", action="store_true",
                    help="an emulated Intel IOMMU, on in the guest (strict): "
                    "for tests that make a device write where it should "
                    "not (the models count refused DMA in dma_errors)")
    ap.add_argument("--bql", choices=("on", "off"), default="on",
                    help="off: byte queue limits of port B's TX queues "
                    "(both ways: both ports') out of the way (limit_min "
                    "100 MB)")
    ap.add_argument("--guest-setup", default="", metavar="SCRIPT",
                    help="shell run in the guest after each mode's setup, "
                    "with $A, $B (interfaces) and $MODE set; e.g. BQL off: "
                    "'for q in /sys/class/net/$B/queues/tx-*; do echo "
                    "100000000 >$q/byte_queue_limits/limit_min; done'")
    ap.add_argument("--gen-args", default="", help="more dbb-gen options")
    ap.add_argument("--sink-args", default="", help="more dbb-sink options")
    ap.add_argument("--step-gap-ms", type=int, default=200)
    ap.add_argument("--settle", type=float, default=1.0, help="seconds "
                    "between mode setup and the first step")
    ap.add_argument("--xdp-interval", type=int, default=30,
                    help="xdp-bench stats interval in the guest (s)")
    ap.add_argument("--both-ways", action="store_true",
                    help="a second generator into port B and a second "
                    "sink on port A: each step's rate is the total, half "
                    "each way")
    ap.add_argument("--conntrack", action="store_true",
                    help="stack mode: a stateful nftables firewall "
                    "(conntrack, every flow tracked), warmed by a pass "
                    "over all --flows at %d pps before the steps"
                    % CT_WARMUP_PPS)
    ap.add_argument("--wire", choices=("router", "loop"), default="router",
                    help="loop: port A and port B wired to each other (no "
                    "generator or sink; for endpoint tests)")
    ap.add_argument("--nic-a", default="dbb-igc", metavar="MODEL[,PROPS]",
                    help="port A's device model and its QEMU properties "
                    "(default dbb-igc; e.g. dbb-octep,wmark=0x100)")
    ap.add_argument("--nic-b", default="dbb-igc", metavar="MODEL[,PROPS]",
                    help="port B's, as --nic-a")
    ap.add_argument("--root-port", action="append", choices=("A", "B"),
                    help="put this port behind a PCIe root port "
                    "(hot-plug, AER); repeatable")
    ap.add_argument("--boot-timeout", type=int, default=180)
    ap.add_argument("--out", help="run directory (default build/router/"
                    "<kernel>-<time>)")
    ap.add_argument("--json", action="store_true",
                    help="JSON lines on stdout instead of the table")
    return ap


def parse_args(argv=None):
    """router.py's command line: the options with their defaults filled
    in and checked (configs, modes, rates, mode_rates, out)."""
    ap = parser()
    a = ap.parse_args(argv)
    if not getattr(a, "configs", None):
        a.configs = [Config("igc")]
    a.modes = a.mode.split(",")
    if a.both_ways and a.wire != "router":
        ap.error("--both-ways needs --wire router")
    a.insn_rates = [rate(x) for x in a.insn_steps.split(",")] \
        if a.insn_steps else []
    if a.insn and a.insn_rates:
        ap.error("--insn counts every step; --insn-steps only its own")
    if a.profile and not (a.insn or a.insn_rates):
        ap.error("--profile counts with the instruction counter: add --insn"
                 " or --insn-steps")
    if a.insn_step_seconds is None:
        a.insn_step_seconds = a.step_seconds
    if a.profile < 0:
        ap.error("--profile N: N >= 1 (0: no profile)")
    for m in a.modes:
        if m not in ("stack", "xdp"):
            ap.error("--mode: stack, xdp or stack,xdp")
    if a.steps:
        a.rates = [rate(x) for x in a.steps.split(",")]
    elif a.rate:
        a.rates = [a.rate]
    else:
        a.rates = [5000]
    a.mode_rates = {}
    for ms in a.mode_steps:
        m, _, steps = ms.partition("=")
        if m not in a.modes or not steps:
            ap.error("--mode-steps %r: MODE=R1,R2,... with MODE in --mode"
                     % ms)
        a.mode_rates[m] = [rate(x) for x in steps.split(",")]
    if a.out is None:
        a.out = os.path.join(labvm.REPO, "build", "router", "%s-%s" % (
            a.kernel, time.strftime("%Y%m%d-%H%M%S")))
    a.out = os.path.abspath(a.out)
    return a



def next_rate(rates, losses, until_loss, loss_steps, extend=0):
    """The next rate of a ramp of RATES whose steps so far lost LOSSES
    (per cent each), or None: without UNTIL_LOSS every rate once; with it
    the ramp stops after LOSS_STEPS steps in a row lost more than
    UNTIL_LOSS %, and one that has not stopped by its last rate goes on
    up to EXTEND steps more, each the last step's increase higher."""
    n = len(losses)
    if until_loss is not None and loss_steps and n >= loss_steps and \
            all(x > until_loss for x in losses[-loss_steps:]):
        return None
    if n < len(rates):
        return rates[n]
    if until_loss is None or not extend or n >= len(rates) + extend or \
            len(rates) < 2:
        return None
    return rates[-1] + (n - len(rates) + 1) * (rates[-1] - rates[-2])

def options(kernel="6.1", configs=None, **opts):
    """The options of a Router for a library caller, by name: what
    router.py's command line would give (the same defaults and checks),
    for KERNEL, the driver configurations CONFIGS (router.Config; default
    upstream igc) and OPTS with "_" for "-" (smp=1, insn=True,
    nic_a="dbb-octep,wmark=0x400", root_port=["B"]): True is a bare flag,
    False or None leaves an option out, a list repeats it."""
    flags = {o: act for act in parser()._actions for o in act.option_strings}
    argv = ["--kernel", kernel]
    for key, value in opts.items():
        flag = "--" + key.replace("_", "-")
        act = flags.get(flag)
        if act is None or key == "help":
            raise TypeError("router.options(): no option %s (a keyword "
                            "names a router.py option: %s)" % (key, flag))
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if v is None or v is False:
                continue
            if act.nargs != "?" and (v is True) != (act.nargs == 0):
                raise TypeError("router.options(): %s=%r: %s %s" % (
                    key, v, flag, "takes no value: True or False"
                    if act.nargs == 0 else "takes a value"))
            argv += [flag] if v is True else [flag, str(v)]
    a = parse_args(argv)
    if configs:
        a.configs = list(configs)
    return a


def upstream_modules(a, configs):
    """Upstream drivers Debian does not ship, built by the lab from
    Debian's kernel source (octeon_ep: build-octeon-ep.sh, cached)."""
    if not any("octeon_ep" in c.modules() for c in configs):
        return []
    out = subprocess.run([os.path.join(LAB, "build-octeon-ep.sh"), a.kernel],
                         check=True, stdout=subprocess.PIPE, text=True)
    return [out.stdout.splitlines()[-1]]


def our_modules(a, configs):
    """Our *.ko, when a configuration needs a driver Debian does not
    ship (igc_batch), and the upstream ones the lab builds (octeon_ep)."""
    kdir = os.path.join(labvm.CACHE, "kernels")
    kver = labvm.kernel_release(a.kernel)
    upstream = upstream_modules(a, configs)
    need = [m for c in configs for m in c.modules()
            if m != "octeon_ep" and subprocess.run(
                ["modprobe", "-d", os.path.join(kdir, kver), "-S", kver,
                 "--show-depends", m], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode != 0]
    if not need:
        return upstream
    mdir = a.modules
    if not mdir:
        mdir = os.path.join(labvm.REPO, "build", "router", "modules", kver)
        # A private build tree: build-modules.sh wipes $CACHE/build/<kver>
        # first, which must not race another user of the lab.
        env = dict(os.environ, DBBATCH_CACHE=os.path.join(
            labvm.CACHE, "router-build"))
        labvm.log("building our modules for %s into %s" % (kver, mdir))
        subprocess.run([os.path.join(LAB, "build-modules.sh"), kver, mdir],
                       check=True, env=env, stdout=sys.stderr)
    kos = sorted(os.path.join(mdir, f) for f in os.listdir(mdir)
                 if f.endswith(".ko"))
    for d in need:
        if not any(os.path.basename(k) == d + ".ko" for k in kos):
            raise SystemExit("%s.ko not in %s" % (d, mdir))
    return kos + upstream


def main(argv=None):
    """router.py: boot, sweep, a row per step on stdout (table or JSON
    lines) and in the run directory (table.txt, steps.jsonl: a boot
    record, the rows, a health record), shut down."""
    a = parse_args(argv)
    # SIGTERM (a timeout, report.py stopped) unwinds like an error: the
    # guest is shut down and QEMU does not outlive us
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    a.qemu = labvm.qemu_binary(a.qemu)
    r = Router(a, a.configs, our_modules(a, a.configs))
    failed = False
    try:
        r.boot()
        with open(os.path.join(a.out, "table.txt"), "w") as tf, \
                open(os.path.join(a.out, "steps.jsonl"), "w") as jf:
            def emit(obj):
                row = "mode" in obj
                line = fmt_row(obj) if row else "# " + json.dumps(obj)
                jf.write(json.dumps(obj) + "\n")
                jf.flush()
                if obj.get("type") != "health":
                    tf.write(line + "\n")
                    tf.flush()
                print(json.dumps(obj) if a.json else line, flush=True)
                if obj.get("type") == "boot":
                    tf.write(header() + "\n")
                    if not a.json:
                        print(header())
            emit(r.boot_record())
            r.sweep(emit)
            taint, bad = r.health()
            emit({"type": "health", "tainted": taint, "dmesg_bad": bad})
    except Exception as e:  # report, shut down, fail
        print("router.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        failed = True
    finally:
        final = r.shutdown()
        if final:
            print("# plugin totals at exit: %s" % final)
    labvm.log("run directory: %s" % a.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
