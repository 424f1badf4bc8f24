# The router guest's provisioning, as router.Router calls it: load()
# (router_driver, router_ports, router_queues, router_rings,
# router_priv_flags, router_up), mode_setup() (router_stack, router_xdp,
# router_rss_same, router_bql_off, router_conntrack) and mode_teardown()
# (router_xdp_stop, router_stack_stop).  Router.guest() sources it after
# lib.sh.  A failure returns the status the host reports (3 a module did
# not load, 4 no interfaces, 5 ethtool -L/-G, 6 private flags, 7 no
# carrier, 8 XDP not attached, 9 XDP still attached, 10-12 conntrack).

# router_driver "UNLOAD" MODULE "PARAMS" "MORE": unload every port driver
# of UNLOAD that is loaded, load MODULE with PARAMS and the modules MORE
router_driver() {
	for m in $1; do [ -d "/sys/module/$m" ] && rmmod "$m"; done
	# PARAMS are words: "tx_db_batched=1 rx_credit=2"
	# shellcheck disable=SC2086
	modprobe "$2" $3 || return 3
	for m in $4; do modprobe "$m" || return 3; done
}

# router_ports MAC_A MAC_B: wait for both ports' interfaces; sets $A and
# $B and prints "IFACES A B"
router_ports() {
	waitif "$1" && waitif "$2" || { echo "no interfaces"; return 4; }
	A=$(ifof "$1")
	B=$(ifof "$2")
	echo "IFACES $A $B"
}

# router_queues A B N: N combined channels on both ports
router_queues() {
	ethtool -L "$1" combined "$3" && ethtool -L "$2" combined "$3" || return 5
}

# router_rings A B N: N descriptors in each RX and TX ring of both ports
router_rings() {
	ethtool -G "$1" rx "$3" tx "$3" && ethtool -G "$2" rx "$3" tx "$3" || return 5
}

# router_priv_flags A B "FLAGS": ethtool private flags ("name=on,other=off")
router_priv_flags() {
	f=$(echo "$3" | tr '=,' '  ')
	# shellcheck disable=SC2086
	ethtool --set-priv-flags "$1" $f && ethtool --set-priv-flags "$2" $f || return 6
}

# router_up A B: both links up with carrier; prints port A's driver,
# channels, rings, module parameters and private flags (Router.load()
# reads the channels and rings)
router_up() {
	ip link set "$1" up
	ip link set "$2" up
	carrier "$1" 1 30 && carrier "$2" 1 30 || { echo "no carrier"; return 7; }
	ethtool -i "$1" | head -n 2
	ethtool -l "$1" | sed -n '/Current/,$p' | grep Combined
	ethtool -g "$1" | sed -n '/Current/,$p' | grep -E '^(RX|TX):'
	p=/sys/class/net/$1/device/driver/module/parameters
	[ -r "$p" ] && grep -H . "$p"/* 2>/dev/null
	ethtool --show-priv-flags "$1" 2>/dev/null | tail -n +2
	true
}

# router_stack A B ADDR_A ADDR_B SINK_IP REV_DST_IP NEXT_HOP_MAC: IPv4
# forwarding between A (ADDR_A) and B (ADDR_B); both generators'
# destinations resolved to NEXT_HOP_MAC (the sinks ignore MACs)
router_stack() {
	ip addr flush dev "$1"
	ip addr flush dev "$2"
	ip addr add "$3" dev "$1"
	ip addr add "$4" dev "$2"
	ip neigh replace "$5" lladdr "$7" dev "$2" nud permanent
	ip neigh replace "$6" lladdr "$7" dev "$1" nud permanent
	for i in all default "$1" "$2"; do
		echo 0 >"/proc/sys/net/ipv4/conf/$i/rp_filter"
	done
	echo 1 >/proc/sys/net/ipv4/ip_forward
	ip route get "$5"
}

# router_stack_stop CONNTRACK: forwarding off (CONNTRACK 1: and the
# firewall and its table gone)
router_stack_stop() {
	echo 0 >/proc/sys/net/ipv4/ip_forward || return 1
	if [ "$1" = 1 ]; then
		nft flush ruleset
		conntrack -F 2>/dev/null
	fi
	true
}

# xdp_redirect FROM TO INTERVAL [own-run]: xdp-bench redirect from FROM to
# TO in the background (pid and log in /tmp/xdp-bench-FROM.*), waited for
# until its program is attached and both links are back; own-run: in a /run of its own (xdp-bench
# takes a lock file there, one instance per /run)
xdp_redirect() {
	xb="xdp-bench redirect -m native -i $3"
	if [ -z "${4:-}" ]; then
		# $xb is a command line: split on purpose
		# shellcheck disable=SC2086
		setsid $xb "$1" "$2" >"/tmp/xdp-bench-$1.log" 2>&1 </dev/null &
	else
		setsid busybox unshare -m sh -c "mount -t tmpfs tmpfs /run && exec $xb $1 $2" \
			>"/tmp/xdp-bench-$1.log" 2>&1 </dev/null &
	fi
	echo $! >"/tmp/xdp-bench-$1.pid"
	i=0
	while [ $i -lt 100 ]; do
		ip -d link show "$1" | grep -q 'prog/xdp' && break
		kill -0 "$(cat "/tmp/xdp-bench-$1.pid")" 2>/dev/null || break
		sleep 0.2
		i=$((i + 1))
	done
	ip -d link show "$1" | grep -q 'prog/xdp' || { cat "/tmp/xdp-bench-$1.log"; return 8; }
	# attaching XDP restarts the rings: wait for the links again
	carrier "$1" 1 30 && carrier "$2" 1 30 || { echo "no carrier after XDP"; return 7; }
	ip -d link show "$1" | grep -o 'prog/xdp id [0-9]*'
}

# router_xdp A B INTERVAL [both]: native XDP on A redirecting to B's
# ndo_xdp_xmit (xdp-bench swaps the MACs, leaves the TTL); both: and B
# to A.  Forwarding off, no addresses.
router_xdp() {
	echo 0 >/proc/sys/net/ipv4/ip_forward
	ip addr flush dev "$1"
	ip addr flush dev "$2"
	xdp_redirect "$1" "$2" "$3" || return $?
	if [ "${4:-}" = both ]; then
		xdp_redirect "$2" "$1" "$3" own-run || return $?
	fi
}

# router_xdp_stop A B: every xdp-bench router_xdp started stopped (its
# last lines printed), no program left on A or B, both links back
router_xdp_stop() {
	for f in /tmp/xdp-bench-*.pid; do
		[ -e "$f" ] || continue
		p=$(cat "$f")
		rm -f "$f"
		kill -INT "$p"
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		tail -n 4 "${f%.pid}.log"
	done
	for i in "$1" "$2"; do
		ip -d link show "$i" | grep -q 'prog/xdp' && { echo "XDP still attached to $i"; return 9; }
	done
	carrier "$1" 1 30 && carrier "$2" 1 30
}

# router_rss_same IF: UDP hashed on addresses and ports, a round-robin
# indirection table over every RX queue (the same RSS on every driver)
router_rss_same() {
	for f in udp4 udp6; do
		ethtool -n "$1" rx-flow-hash $f | grep -q 'L4 bytes 0 & 1' ||
			ethtool -N "$1" rx-flow-hash $f sdfn || return 1
	done
	ethtool -X "$1" equal "$(ls -d /sys/class/net/"$1"/queues/rx-* | wc -l)"
}

# router_bql_off IF: byte queue limits of IF's TX queues out of the way
router_bql_off() {
	for q in /sys/class/net/"$1"/queues/tx-*/byte_queue_limits; do
		echo 100000000 >"$q/limit_min"
	done
}

# router_conntrack "KMODS" MAX HASHSIZE: the stateful firewall
# (/lab/conntrack.nft) and an empty conntrack table of MAX entries in
# HASHSIZE buckets, UDP entries kept 300 s
router_conntrack() {
	for m in $1; do modprobe "$m" || return 10; done
	echo "$2" >/proc/sys/net/netfilter/nf_conntrack_max
	echo "$3" >/sys/module/nf_conntrack/parameters/hashsize
	echo 300 >/proc/sys/net/netfilter/nf_conntrack_udp_timeout
	nft -f /lab/conntrack.nft || return 11
	conntrack -F 2>/dev/null
	[ "$(cat /proc/sys/net/netfilter/nf_conntrack_count)" = 0 ] || return 12
}
