# SPDX-License-Identifier: GPL-2.0
"""netpoll's budget-0 poll beside XDP_TX in the lab router, watched on a
stock kernel.

    class R(router.Router): KMODS = router.Router.KMODS + netpoll0.KMODS
    res, text = netpoll0.xdp_tx_under_netpoll(r, "igcb_napi_poll")
    netpoll0.check(t, r, "igc_batch", "igcb_napi_poll")   the same, judged

napi.rst: a poll with budget 0 comes from netpoll, possibly with IRQs
off, and must not touch XDP or page_pool; page_pool's ring lock is not
IRQ-safe, so an XDP frame returned from there is a lockdep splat on a
debug kernel and a possible deadlock on any.  This makes such polls
happen and shows what they return without lockdep:

Port A bounces what the generator sends it (xdp-bench tx, native) while
two netconsole targets on A send kernel messages.  BQL's limit on A's
transmit queues is held at 0, so the first target's copy of a message
stops its queue, and netconsole sends the second copy at once with IRQs
still off: netpoll finds the queue stopped and polls A's NAPI contexts
at budget 0 (__netpoll_send_skb) until the first copy is reclaimed.
The function tracer records the driver's poll (POLL_FN),
xdp_return_frame and xdp_return_frame_bulk, each with its IRQs-off
flag: a poll with IRQs off is netpoll's, and an XDP frame returned with
IRQs off came from it.

res: {"polls_irqs_off", "returns", "returns_irqs_off", "bounced"}:
polls and XDP returns counted by the tracer, bounced the frames model A
sent back out (its ground truth).
"""

import re
import time

KMODS = ("netconsole",)
TARGETS = "/sys/kernel/config/netconsole/dbb-budget0"  # a, b

SETUP = r"""
D=%(dev)s T=/sys/kernel/tracing N=%(target)s
grep -qs " $T " /proc/mounts || mount -t tracefs nodev $T || exit 51
modprobe netconsole || exit 52
grep -qs ' /sys/kernel/config ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || exit 53
for t in a b; do
	mkdir -p $N$t && echo $D >$N$t/dev_name &&
		echo 198.51.100.9 >$N$t/remote_ip &&
		echo 02:00:00:00:00:09 >$N$t/remote_mac &&
		echo 1 >$N$t/enabled || exit 54
done
for q in /sys/class/net/$D/queues/tx-*/byte_queue_limits; do
	echo "$q $(cat $q/limit_max)" >>/tmp/bql.saved; echo 0 >$q/limit_max
done
echo 0 >$T/tracing_on; echo >$T/trace; echo 4096 >$T/buffer_size_kb
echo '%(poll)s xdp_return_frame xdp_return_frame_bulk' >$T/set_ftrace_filter ||
	exit 55
echo function >$T/current_tracer && echo 1 >$T/tracing_on || exit 56
setsid xdp-bench tx -m native $D >/tmp/budget0-xdp.log 2>&1 </dev/null &
echo $! >/tmp/budget0-xdp.pid
i=0; while [ $i -lt 100 ]; do
	ip -d link show $D | grep -q 'prog/xdp' && exit 0; sleep 0.1; i=$((i + 1)); done
cat /tmp/budget0-xdp.log; exit 57
"""

# Messages over the generator's run: a copy that finds its queue stopped
# spins up to a jiffy in netpoll, polling.
MESSAGES = r"""
i=0; while [ $i -lt %(n)d ]; do
	echo "<4>dbb-budget0 message $i" >/dev/kmsg; i=$((i + 1))
	[ $((i %% 20)) -ne 0 ] || sleep 0.1
done
"""

# Per traced call: its IRQs-off flag (d or D: IRQs off), function, caller.
RESULT = r"""
D=%(dev)s T=/sys/kernel/tracing N=%(target)s
echo 0 >$T/tracing_on
awk '{ for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) {
	f = substr($(i + 1), 1, 1); print (f == "d" || f == "D") ? "off" : "on",
	    $(i + 3), $(i + 4); break } }' $T/trace | sort | uniq -c
echo nop >$T/current_tracer; echo >$T/set_ftrace_filter
p=$(cat /tmp/budget0-xdp.pid); kill -INT $p
i=0; while [ $i -lt 100 ] && { kill -0 $p 2>/dev/null ||
	ip -d link show $D | grep -q prog/xdp; }; do sleep 0.1; i=$((i + 1)); done
while read -r q v; do echo $v >$q/limit_max; done </tmp/bql.saved
rm -f /tmp/bql.saved
for t in a b; do echo 0 >$N$t/enabled; rmdir $N$t; done
"""


def xdp_tx_under_netpoll(r, poll_fn, rate=3000, frames=9000, messages=400):
    """Run the above on R's port A; (res, text)."""
    args = {"dev": r.ifa, "target": TARGETS, "poll": poll_fn,
            "n": messages}
    rc, out = r.guest(SETUP % args, check=False)
    if rc:
        return None, "setting up failed (%d):\n%s" % (rc, out)
    tr0 = r.truth()
    gen = r.gen_background(rate, frames)
    try:
        rc, msg = r.guest(MESSAGES % args, timeout=300, check=False)
    finally:
        gen.wait()
    time.sleep(1)
    tr1 = r.truth()
    rc2, out = r.guest(RESULT % args, check=False)
    res = {"polls_irqs_off": 0, "returns": 0, "returns_irqs_off": 0,
           "bounced": sum(tr1["A"]["tx_frames"]) - sum(tr0["A"]["tx_frames"])}
    for m in re.finditer(r"^\s*(\d+) (on|off) (\S+) <-(\S+)", out, re.M):
        n, off, fn = int(m.group(1)), m.group(2) == "off", m.group(3)
        if fn == poll_fn:
            res["polls_irqs_off"] += n if off else 0
        elif fn.startswith("xdp_return_frame"):
            res["returns"] += n
            res["returns_irqs_off"] += n if off else 0
    return res, "messages: rc %d %s; traced calls (IRQs on/off, function, " \
        "caller):\n%s" % (rc, msg.strip(), out.strip())


def check(t, r, driver, poll_fn):
    """The check igc_batch's and octep_fix's tests make of it: netpoll
    polled with IRQs off, returned no XDP frame there, and NAPI returned
    the frames A bounced."""
    res, text = xdp_tx_under_netpoll(r, poll_fn)
    name = ("%s: netpoll's polls at budget 0 (netconsole on A, BQL holding "
            "its queue, IRQs off) beside XDP_TX on A never return an XDP "
            "frame; the frames went back out and were returned by NAPI"
            % driver)
    if res is None and "setting up failed (53)" in text:
        return t.check(name, True, text, skip="the kernel has no configfs: "
                       "netconsole takes no target at run time")
    t.check(name,
            res is not None and res["polls_irqs_off"] > 0 and
            res["returns_irqs_off"] == 0 and res["bounced"] > 0 and
            res["returns"] > 0, "%s; %s" % (res, text))
