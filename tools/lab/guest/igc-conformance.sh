#!/bin/sh
# Upstream igc on two dbb-igc ports, run in the guest by
# tools/testing/selftests/net/dbbatch/igc_conformance.py (lab.run=/lab/igc-conformance.sh
# under busybox ash): what it does is printed between "@@BEGIN NAME" and
# "@@END NAME" on the console; "@@EVENT" lines ask the host to act (send
# UDP, flap the link, compare the ground truth over QMP).
# busybox ash runs its own applets before searching PATH: use the real ones.
ip() { /usr/sbin/ip "$@"; }
modprobe() { /usr/sbin/modprobe "$@"; }
say() { echo "@@$*"; }
beg() { echo "@@BEGIN $1"; }
end() { echo "@@END $1"; }
# ns_carrier NETNS|- IF WANT SECONDS (not lib.sh's carrier: a netns first)
ns_carrier() {
	i=0
	while [ $i -lt $(($4 * 5)) ]; do
		if [ "$1" = - ]; then
			c=$(cat /sys/class/net/$2/carrier 2>/dev/null || echo x)
		else
			c=$(ip netns exec $1 cat /sys/class/net/$2/carrier 2>/dev/null || echo x)
		fi
		[ "$c" = "$3" ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

say START $(uname -r) cpus=$(nproc)
t0=$(cut -d' ' -f1 /proc/uptime)
modprobe igc || say MODPROBE-FAILED
i=0
while [ $i -lt 100 ]; do
	[ -e /sys/class/net/eth0 ] && [ -e /sys/class/net/eth1 ] && break
	sleep 0.1
	i=$((i + 1))
done
for n in /sys/class/net/eth*; do
	case $(cat $n/address) in
	*:56) A=${n##*/} ;;
	*:57) B=${n##*/} ;;
	esac
done
say IFACES $A $B
ip link set $A up
ip addr add 10.0.2.15/24 dev $A
ip netns add peer
ip link set $B netns peer
ip -n peer link set lo up
ip -n peer link set $B up
ip -n peer addr add 10.0.2.16/24 dev $B
ns_carrier - $A 1 20 && say CARRIER-A up || say CARRIER-A down
ns_carrier peer $B 1 20 && say CARRIER-B up || say CARRIER-B down
t1=$(cut -d' ' -f1 /proc/uptime)
say LINK-TIME modprobe-to-carrier $t0 $t1

beg dmesg-probe; dmesg | grep -i igc; end dmesg-probe
beg ethtool; ethtool $A; end ethtool
beg ethtool-l; ethtool -l $A; end ethtool-l
beg ethtool-i; ethtool -i $A; end ethtool-i
beg ethtool-k; ethtool -k $A; end ethtool-k
beg ethtool-B; ip netns exec peer ethtool $B; end ethtool-B
beg interrupts; cat /proc/interrupts; end interrupts
beg msi-irqs
d=$(readlink -f /sys/class/net/$A/device)
for f in $d/msi_irqs/*; do echo "${f##*/} $(cat $f)"; done
end msi-irqs
beg pci; for d in /sys/bus/pci/devices/*; do echo "${d##*/} $(cat $d/vendor):$(cat $d/device) $(basename $(readlink $d/driver) 2>/dev/null)"; done; end pci

beg ping; ping -c 5 -W 3 10.0.2.2; end ping
beg ping-ns; ping -c 3 -W 3 10.0.2.16; end ping-ns

beg udp-rx
n0=$(awk '/^Udp: [0-9]/ { print $3 }' /proc/net/snmp)
say SEND-UDP
i=0
while [ $i -lt 50 ]; do
	n1=$(awk '/^Udp: [0-9]/ { print $3 }' /proc/net/snmp)
	[ $((n1 - n0)) -ge 20 ] && break
	sleep 0.2
	i=$((i + 1))
done
grep ^Udp: /proc/net/snmp
echo "noports-delta $((n1 - n0))"
end udp-rx

ip netns exec peer iperf3 -s -D -1 >/dev/null 2>&1
sleep 1
beg iperf-tcp; timeout 40 iperf3 -c 10.0.2.16 -t 5 -P 8 2>&1 | tail -n 6; end iperf-tcp
ip netns exec peer iperf3 -s -D -1 >/dev/null 2>&1
sleep 1
beg iperf-rev; timeout 40 iperf3 -c 10.0.2.16 -t 3 -P 4 -R 2>&1 | tail -n 5; end iperf-rev
ip netns exec peer iperf3 -s -D -1 >/dev/null 2>&1
sleep 1
beg iperf-udp; timeout 40 iperf3 -c 10.0.2.16 -u -b 20M -t 3 2>&1 | tail -n 5; end iperf-udp
beg stats-A; ethtool -S $A; end stats-A
beg stats-B; ip netns exec peer ethtool -S $B; end stats-B

beg jumbo
ip link set $A mtu 9000
ip -n peer link set $B mtu 9000
ns_carrier - $A 1 20; ns_carrier peer $B 1 20
ping -c 3 -W 3 -s 8000 10.0.2.16
ip link set $A mtu 1500
ip -n peer link set $B mtu 1500
ns_carrier - $A 1 20; ns_carrier peer $B 1 20
end jumbo

beg flap
say FLAP-DOWN
ns_carrier - $A 0 15 && echo "carrier-down ok" || echo "carrier-down timeout"
say FLAP-UP
ns_carrier - $A 1 20 && echo "carrier-up ok" || echo "carrier-up timeout"
ping -c 2 -W 3 10.0.2.2
dmesg | grep -i 'link is'
end flap

beg selftest
ethtool -t $A online
ip netns exec peer ethtool -t $B offline
end selftest
beg truth-B; ip netns exec peer dbb-truth.sh $B all; end truth-B
ip link set $A down
sleep 1
beg truth; dbb-truth.sh $A all; end truth
say QMP-COMPARE
sleep 2
beg truth-one; dbb-truth.sh $A tdt_writes 0; dbb-truth.sh 00:04.0 rdt_writes 1; end truth-one
beg dmesg-all; dmesg | grep -E 'igc|WARNING|BUG:|Oops|Call Trace|Hang|timed out|[Ff]ail'; end dmesg-all
beg tainted; cat /proc/sys/kernel/tainted; end tainted
say DONE
