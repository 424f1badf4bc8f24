# SPDX-License-Identifier: GPL-2.0
"""labenv: a router guest as a test's environment, in the spirit of the
kernel's NetDrvEpEnv (tools/testing/selftests/drivers/net/lib/py): a
context manager that boots the guest its arguments describe and, on the
way out, runs what the test deferred (last first), then shuts it down.

    from labenv import LabEnv, Port
    from router import Config

    with LabEnv("6.1", [Config("igc")], ports=[Port("C", root_port=True)],
                nic_b="dbb-octep,wmark=0x100", rings=0) as env:
        env.router.load(env.configs[0])
        c = env.ifname("C")
        env.guest("ip link set %s up" % c)
        env.defer(env.guest, "ip link set %s down" % c)
        ...

The description: the kernel, the driver configurations (router.Config),
ports beyond A and B (router.Port: model and properties, behind a root
port or not), and any router.py option by its name with "_" for "-"
(nic_a="dbb-octep,wmark=0x400", root_port=["B"], insn=True, smp=1).  The
measurements stay in router.Router (env.router): ground-truth snapshots
(truth(), port_truth()), steps and their rows.  Our modules come from
MODULES (a directory) or are built (router.our_modules()).
"""

import os
import shutil
import sys
import tempfile
import traceback

LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, LAB)
import labvm  # noqa: E402
import router  # noqa: E402
from router import Port  # noqa: E402

__all__ = ["LabEnv", "Port"]


class LabEnv:
    """One router guest for the block: KERNEL (6.1, 6.12, ...), CONFIGS
    (router.Config; default upstream igc), PORTS beyond A and B, our
    MODULES directory (None: built when a configuration needs them),
    ROUTER (router.Router or a subclass), FILES and DIRS for the guest,
    OPTS router.py's options by name.  Its run directory is OUT (default
    a temporary one, removed unless KEEP).  With a Tap T, an exception in
    the block (the guest's boot included) is one failed check of T, as
    router.booted makes it, never a traceback."""

    def __init__(self, kernel="6.1", configs=(), ports=(), modules=None,
                 out=None, keep=False, router_class=router.Router,
                 files=None, dirs=(), t=None, **opts):
        self.t = t
        self.out = out or tempfile.mkdtemp(prefix="dbb-labenv.")
        self.keep = keep or out is not None
        if modules:
            opts["modules"] = modules
        self.args = router.options(kernel, configs, out=self.out, **opts)
        self.configs = self.args.configs
        self.router = router_class(
            self.args, self.configs,
            router.our_modules(self.args, self.configs), files=files,
            dirs=dirs, ports=ports)
        self.kver = labvm.kernel_release(kernel)
        self._deferred = []

    def __enter__(self):
        self.boot_failed = False
        try:
            self.router.boot()
        except Exception as e:
            if not self.t:
                self.router.shutdown()
                raise
            # the block still runs (a context manager cannot skip it); its
            # first guest command fails, without a second check
            self.boot_failed = True
            self.t.check("harness: the guest booted", False,
                         "%s: %s" % (type(e).__name__, e))
        return self

    def __exit__(self, *exc):
        if exc[0] and self.t and issubclass(exc[0], Exception):
            if not self.boot_failed:
                self.t.check("harness: the test ran to its end", False,
                             "".join(traceback.format_exception(*exc)))
            self.cleanup(failed=True)
            return True
        self.cleanup(failed=bool(exc[0]))
        return False

    def cleanup(self, failed=False):
        """What __exit__ does: the deferred calls, the guest's shutdown,
        the run directory (kept when FAILED)."""
        while self._deferred:
            fn, args, kw = self._deferred.pop()
            try:
                fn(*args, **kw)
            except Exception:       # the rest still runs, the guest goes
                labvm.log("deferred %s failed:\n%s" % (
                    getattr(fn, "__name__", fn), traceback.format_exc()))
        self.router.shutdown()
        if failed:
            labvm.log("run directory %s" % self.out)
        elif not self.keep:
            shutil.rmtree(self.out, ignore_errors=True)

    def defer(self, fn, *args, **kw):
        """Run FN(*ARGS, **KW) when the block ends (last deferred first),
        whether it ended well or not."""
        self._deferred.append((fn, args, kw))

    def guest(self, script, timeout=120, check=True):
        """Run SCRIPT in the guest (router.Router.guest); (status, output)."""
        return self.router.guest(script, timeout=timeout, check=check)

    def port(self, name):
        return next(p for p in self.router.ports if p.name == name)

    def ifname(self, name):
        """The guest's interface of port NAME (A, B or one of PORTS), by
        its MAC; None when no driver has bound it."""
        mac = {"A": router.MAC_A, "B": router.MAC_B}.get(name) or \
            self.port(name).mac
        rc, out = self.guest("waitif %s && ifof %s" % (mac, mac),
                             check=False)
        return out.strip() if rc == 0 else None
