#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_nic_switch.sh: tools/lab/nic-switch.sh (and igc-switch.sh, its older
# name for the igc family) against a fake machine: host only, no guest, no
# root needed.  Prints TAP; exits 0 only when every case passed.
#
# Each case builds a fake sysfs in a temp dir: PCI devices with vendor,
# device and driver_override files, driver symlinks, net/<ifname> dirs and
# /sys/class/net links, and /sys/bus/pci/drivers/<drv>/ for each loaded
# driver.  The files the kernel acts on when written (drivers_probe, each
# driver's bind and unbind) are FIFOs served by a fake kernel: one
# background reader per FIFO logs every write to $T/writes and does what
# the kernel would (unbind: the driver link and the netdev go; probe: the
# driver named by driver_override, else the first whose IDs match, binds).
# A fake modprobe (this script, --fake-modprobe) "loads" the drivers listed
# in $T/installed.  A driver with a file .fail in its dir refuses to probe;
# with .defer its probe is deferred (listed in kernel/debug/devices_deferred).
#
#   tools/lab/tests/test_nic_switch.sh
#   NIC_SWITCH=/path/to/nic-switch.sh tools/lab/tests/test_nic_switch.sh
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SELF=$HERE/$(basename "$0")
LAB=$(dirname "$HERE")
NS=${NIC_SWITCH:-$LAB/nic-switch.sh}
IGCS=${IGC_SWITCH:-$LAB/igc-switch.sh}

IGC_A=0000:03:00.0      # I226-V, 8086:125c
IGC_B=0000:04:00.0      # I225-V, 8086:15f3
OCT_A=0000:05:00.0      # CN93xx PF, 177d:b200
OCT_B=0000:06:00.0      # CN98xx PF, 177d:b100
E1000E=0000:07:00.0     # 8086:10d3, no family's
OCT_VF=0000:08:00.0     # 177d:b203, CN93xx VF, no family's
OTHER=0000:09:00.0      # 10ec:125c, an igc device ID of another vendor

# The fake drivers' ID tables.
drv_ids() {
	case "$1" in
	igc | igc_batch) echo "8086:125c 8086:15f3" ;;
	octeon_ep | octep_fix) echo "177d:b200 177d:b100" ;;
	e1000e) echo "8086:10d3" ;;
	octeon_ep_vf) echo "177d:b203" ;;
	esac
}

# ---- the fake kernel ---------------------------------------------------

devdir() { echo "$S/devices/pci0000:00/$1"; }

id_of() {
	local d
	d=$(devdir "$1")
	echo "$(sed 's/^0x//' "$d/vendor"):$(sed 's/^0x//' "$d/device")"
}

id_match() {
	case " $(drv_ids "$1") " in *" $(id_of "$2") "*) return 0 ;; esac
	return 1
}

mk_net() {
	local d i
	d=$(devdir "$1")
	i=$(cat "$T/ifname/$1")
	[ -n "$i" ] || return 0
	mkdir -p "$d/net/$i"
	ln -s ../.. "$d/net/$i/device"
	ln -s "../../devices/pci0000:00/$1/net/$i" "$S/class/net/$i"
}

rm_net() {
	local d i
	d=$(devdir "$1")
	i=$(cat "$T/ifname/$1")
	rm -rf "$d/net"
	[ -z "$i" ] || rm -f "$S/class/net/$i"
}

# do_bind DRV BDF: the driver's probe
do_bind() {
	local d
	d=$(devdir "$2")
	[ -e "$S/bus/pci/drivers/$1/.fail" ] && return 0
	if [ -e "$S/bus/pci/drivers/$1/.defer" ]; then
		printf '%s\tOcteon firmware not ready\n' "$2" >>"$S/kernel/debug/devices_deferred"
		return 0
	fi
	# as the kernel: the netdev is registered in the probe, the driver
	# link made once the probe returned
	mk_net "$2"
	ln -s "../../../bus/pci/drivers/$1" "$d/driver"
}

override() {
	local o
	o=$(cat "$(devdir "$1")/driver_override")
	[ "$o" = "(null)" ] && o=
	echo "$o"
}

fk_unbind() {
	local d
	d=$(devdir "$2")
	[ -e "$d/driver" ] && [ "$(basename "$(readlink -f "$d/driver")")" = "$1" ] || return 0
	# as the kernel: the driver's remove unregisters the netdev, then
	# the link goes
	rm_net "$2"
	rm -f "$d/driver"
}

fk_bind() {
	local o
	[ -e "$(devdir "$2")/driver" ] && return 0
	o=$(override "$2")
	if [ -n "$o" ]; then
		[ "$o" = "$1" ] && do_bind "$1" "$2"
	elif id_match "$1" "$2"; then
		do_bind "$1" "$2"
	fi
	return 0
}

fk_probe() {
	local o drv
	[ -e "$(devdir "$1")/driver" ] && return 0
	o=$(override "$1")
	if [ -n "$o" ]; then
		[ -d "$S/bus/pci/drivers/$o" ] && do_bind "$o" "$1"
		return 0
	fi
	for drv in "$S"/bus/pci/drivers/*; do
		[ -d "$drv" ] || continue
		if id_match "${drv##*/}" "$1"; then
			do_bind "${drv##*/}" "$1"
			return 0
		fi
	done
	return 0
}

# serve FIFO ACTION [DRV]: log and act on every line written to FIFO
serve() {
	local fifo=$1 action=$2 drv=${3:-}
	(
		set +e
		exec </dev/null >/dev/null 2>>"$T/kernel.err"
		while :; do
			while IFS= read -r v; do
				echo "${fifo#"$S"/} $v" >>"$T/writes"
				case "$action" in
				probe) fk_probe "$v" ;;
				bind) fk_bind "$drv" "$v" ;;
				unbind) fk_unbind "$drv" "$v" ;;
				esac
			done <"$fifo"
		done
	) &
	echo $! >>"$T/pids"
}

# add_drv NAME: the module is loaded; it probes the free devices it matches
add_drv() {
	local d=$S/bus/pci/drivers/$1 b
	mkdir -p "$d"
	mkfifo "$d/bind" "$d/unbind"
	serve "$d/bind" bind "$1"
	serve "$d/unbind" unbind "$1"
	for b in "$S"/devices/pci0000:00/*; do
		[ -e "$b/driver" ] && continue
		b=${b##*/}
		if [ -n "$(override "$b")" ]; then
			[ "$(override "$b")" = "$1" ] && do_bind "$1" "$b"
		elif id_match "$1" "$b"; then
			do_bind "$1" "$b"
		fi
	done
	return 0
}

# add_dev BDF VENDOR DEVICE DRIVER|- IFNAME|-
add_dev() {
	local d
	d=$(devdir "$1")
	mkdir -p "$d"
	echo "0x$2" >"$d/vendor"
	echo "0x$3" >"$d/device"
	echo "(null)" >"$d/driver_override"
	ln -s "../../../devices/pci0000:00/$1" "$S/bus/pci/devices/$1"
	if [ "$5" = - ]; then : >"$T/ifname/$1"; else echo "$5" >"$T/ifname/$1"; fi
	[ "$4" = - ] || do_bind "$4" "$1"
}

# tree: a fresh, empty fake machine in $T (sysfs in $S, modprobe.d in
# $T/etc); every driver installed, none loaded
tree() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/test_nic_switch.XXXXXX")
	TREES+=("$T")
	S=$T/sys
	mkdir -p "$S/devices/pci0000:00" "$S/bus/pci/devices" "$S/bus/pci/drivers" \
		"$S/class/net" "$S/kernel/debug" "$T/etc" "$T/ifname"
	: >"$T/writes"
	: >"$T/modprobes"
	: >"$T/pids"
	: >"$S/kernel/debug/devices_deferred"
	printf '%s\n' igc igc_batch octeon_ep octep_fix e1000e >"$T/installed"
	mkfifo "$S/bus/pci/drivers_probe"
	serve "$S/bus/pci/drivers_probe" probe
	printf '#!/bin/sh\nFAKE_T=%s exec %s --fake-modprobe "$@"\n' "$T" "$SELF" >"$T/modprobe"
	chmod +x "$T/modprobe"
}

# std: both families' drivers loaded, two ports each on the upstream
# driver, and two devices of no family
std() {
	tree
	add_dev $IGC_A 8086 125c igc eth1
	add_dev $IGC_B 8086 15f3 igc eth2
	add_dev $OCT_A 177d b200 octeon_ep enp5s0
	add_dev $OCT_B 177d b100 octeon_ep enp6s0
	add_dev $E1000E 8086 10d3 e1000e eno1
	add_dev $OCT_VF 177d b203 - -
	add_dev $OTHER 10ec 125c - -
	local d
	for d in igc igc_batch octeon_ep octep_fix e1000e; do add_drv $d; done
}

fake_modprobe() {
	T=$FAKE_T
	S=$T/sys
	local dry="" m
	while [ $# -gt 0 ]; do
		case "$1" in
		-n) dry=1 ;;
		-q) ;;
		-*) echo "fake modprobe: unknown option $1" >&2; exit 9 ;;
		*) m=$1 ;;
		esac
		shift
	done
	grep -qx "$m" "$T/installed" || {
		echo "modprobe: FATAL: Module $m not found in directory /lib/modules/fake" >&2
		exit 1
	}
	[ -n "$dry" ] && exit 0
	echo "modprobe $m" >>"$T/modprobes"
	grep -qx "$m" "$T/nodriver" 2>/dev/null && exit 0
	[ -d "$S/bus/pci/drivers/$m" ] || add_drv "$m"
	exit 0
}

if [ "${1:-}" = --fake-modprobe ]; then
	shift
	fake_modprobe "$@"
fi

# ---- running the tools and checking --------------------------------------

TREES=()
cleanup() {
	local t
	for t in "${TREES[@]}"; do
		# shellcheck disable=SC2046 # one PID a line
		[ -s "$t/pids" ] && kill $(cat "$t/pids") 2>/dev/null
		rm -rf "$t"
	done
	return 0
}
trap cleanup EXIT

# ns ARGS...: run nic-switch.sh on the fake machine; sets RC, OUT, ERR
ns() { run_tool "$NS" "$@"; }
igcs() { run_tool "$IGCS" "$@"; }

run_tool() {
	RC=0
	OUT=$(env NIC_SWITCH_SYSFS="$S" NIC_SWITCH_CONF_DIR="$T/etc" \
		NIC_SWITCH_MODPROBE="$T/modprobe" NIC_SWITCH_TIMEOUT=1 \
		NIC_SWITCH_SETTLE=0 "${ENV_EXTRA[@]}" \
		timeout 20 "$@" 2>"$T/stderr") || RC=$?
	ERR=$(cat "$T/stderr")
}
ENV_EXTRA=()

drv() {
	local l
	l=$(devdir "$1")/driver
	if [ -e "$l" ]; then basename "$(readlink -f "$l")"; else echo none; fi
}

ovr() { cat "$(devdir "$1")/driver_override"; }

# everything the tools could change: the tree (links, files' contents,
# FIFO writes), modprobe calls and modprobe.d
snap() {
	(
		cd "$T"
		find sys etc -printf '%p %y %l\n' | sort
		find sys etc -type f -print0 | sort -z | xargs -0 -r grep -H '' 2>/dev/null || true
		cat writes modprobes
	)
}

BAD=0
fail() {
	BAD=1
	printf '# %s\n' "$@"
}

is() { # GOT WANT WHAT
	[ "$1" = "$2" ] && return 0
	fail "$3:" "  got:  ${1//$'\n'/$'\n#         '}" "  want: ${2//$'\n'/$'\n#         '}"
}

has() { # TEXT ERE WHAT
	grep -Eq -- "$2" <<<"$1" && return 0
	fail "$3: no /$2/ in:" "  ${1//$'\n'/$'\n#   '}"
}

hasnt() { # TEXT ERE WHAT
	grep -Eq -- "$2" <<<"$1" || return 0
	fail "$3: /$2/ should not be in:" "  ${1//$'\n'/$'\n#   '}"
}

# the run succeeded / was refused with a message and nothing changed
ran_ok() {
	is "$RC" 0 "exit status"
	is "$ERR" "" "stderr"
}

refused() { # ERE-of-the-message BEFORE-SNAPSHOT
	is "$RC" 1 "exit status"
	has "$ERR" "^nic-switch.sh: .*$1" "the message"
	is "$(snap)" "$2" "nothing changed"
}

writes() { cat "$T/writes"; }

N=0
FAILED=0
tcase() { # NAME FUNCTION
	N=$((N + 1))
	BAD=0
	"$2" || fail "case function returned $?"
	if [ "$BAD" = 0 ]; then
		echo "ok $N $1"
	else
		echo "not ok $N $1"
		FAILED=$((FAILED + 1))
	fi
}

# ---- cases -------------------------------------------------------------

c_igc_to_ours_ifname() {
	std
	is "$(drv $IGC_A) $(ovr $IGC_A)" "igc (null)" "before"
	ns to-ours eth1
	ran_ok
	is "$(drv $IGC_A)" igc_batch "driver"
	is "$(ovr $IGC_A)" igc_batch "driver_override"
	is "$(writes)" "bus/pci/drivers/igc/unbind $IGC_A
bus/pci/drivers_probe $IGC_A" "sysfs writes"
	is "$OUT" "$IGC_A: now on igc_batch (eth1)" "output"
	is "$(drv $IGC_B) $(ovr $IGC_B)" "igc (null)" "the other port"
	is "$(drv $OCT_A) $(drv $OCT_B)" "octeon_ep octeon_ep" "the octep ports"
	is "$(cat "$T/modprobes")" "" "modprobe (both drivers loaded)"
}

c_igc_to_upstream_pci() {
	std
	ns to-ours eth1 eth2
	: >"$T/writes"
	ns to-upstream $IGC_A
	ran_ok
	is "$(drv $IGC_A) $(ovr $IGC_A)" "igc igc" "driver, driver_override"
	is "$(drv $IGC_B)" igc_batch "the other port"
	is "$(writes)" "bus/pci/drivers/igc_batch/unbind $IGC_A
bus/pci/drivers_probe $IGC_A" "sysfs writes"
	is "$OUT" "$IGC_A: now on igc (eth1)" "output"
	[ -e "$S/class/net/eth1" ] || fail "eth1 is back"
}

c_octep_to_ours_short_pci() {
	std
	ns to-ours 05:00.0
	ran_ok
	is "$(drv $OCT_A) $(ovr $OCT_A)" "octep_fix octep_fix" "driver, driver_override"
	is "$(drv $OCT_B) $(ovr $OCT_B)" "octeon_ep (null)" "the other port"
	is "$(writes)" "bus/pci/drivers/octeon_ep/unbind $OCT_A
bus/pci/drivers_probe $OCT_A" "sysfs writes"
	is "$OUT" "$OCT_A: now on octep_fix (enp5s0)" "output"
	is "$(drv $IGC_A) $(drv $IGC_B)" "igc igc" "the igc ports"
}

c_octep_to_upstream_ifname() {
	std
	ns to-ours enp6s0
	ran_ok
	is "$(drv $OCT_B)" octep_fix "to-ours enp6s0"
	: >"$T/writes"
	ns to-upstream enp6s0
	ran_ok
	is "$(drv $OCT_B) $(ovr $OCT_B)" "octeon_ep octeon_ep" "driver, driver_override"
	is "$(writes)" "bus/pci/drivers/octep_fix/unbind $OCT_B
bus/pci/drivers_probe $OCT_B" "sysfs writes"
	is "$OUT" "$OCT_B: now on octeon_ep (enp6s0)" "output"
}

c_all() {
	std
	ns to-ours all
	ran_ok
	is "$(drv $IGC_A) $(drv $IGC_B) $(drv $OCT_A) $(drv $OCT_B)" \
		"igc_batch igc_batch octep_fix octep_fix" "the four ports"
	is "$(drv $E1000E) $(ovr $E1000E) $(drv $OCT_VF) $(ovr $OCT_VF) $(drv $OTHER) $(ovr $OTHER)" \
		"e1000e (null) none (null) none (null)" "the devices of no family"
	is "$(writes)" "bus/pci/drivers/igc/unbind $IGC_A
bus/pci/drivers_probe $IGC_A
bus/pci/drivers/igc/unbind $IGC_B
bus/pci/drivers_probe $IGC_B
bus/pci/drivers/octeon_ep/unbind $OCT_A
bus/pci/drivers_probe $OCT_A
bus/pci/drivers/octeon_ep/unbind $OCT_B
bus/pci/drivers_probe $OCT_B" "sysfs writes"
	is "$(wc -l <<<"$OUT")" 4 "one line a port"
	ns to-upstream all
	ran_ok
	is "$(drv $IGC_A) $(drv $IGC_B) $(drv $OCT_A) $(drv $OCT_B)" \
		"igc igc octeon_ep octeon_ep" "back: the four ports"
}

c_all_family() {
	std
	ns to-ours all-octep
	ran_ok
	is "$(drv $IGC_A) $(drv $IGC_B) $(drv $OCT_A) $(drv $OCT_B)" \
		"igc igc octep_fix octep_fix" "all-octep"
	ns to-ours all-igc
	ran_ok
	is "$(drv $IGC_A) $(drv $IGC_B)" "igc_batch igc_batch" "all-igc"
	ns to-ours all-nosuch
	is "$RC" 1 "all-nosuch: exit status"
	has "$ERR" "all-nosuch: no such family \(families: igc octep\)" "all-nosuch: message"
}

c_already() {
	std
	ns to-ours eth1 $IGC_A 03:00.0
	ran_ok
	is "$OUT" "$IGC_A: now on igc_batch (eth1)" "one port named three ways: switched once"
	is "$(grep -c unbind "$T/writes")" 1 "one port named three ways: one unbind"
	: >"$T/writes"
	echo "(null)" >"$(devdir $IGC_A)/driver_override"
	ns to-ours eth1
	ran_ok
	is "$OUT" "$IGC_A: already on igc_batch (eth1)" "output"
	is "$(writes)" "" "no unbind, no probe"
	is "$(ovr $IGC_A)" igc_batch "driver_override set all the same"
}

c_dry_run() {
	std
	rm -rf "$S/bus/pci/drivers/igc_batch"     # not loaded, installed
	local before
	before=$(snap)
	ns -n to-ours all
	ran_ok
	is "$(snap)" "$before" "nothing changed, nothing written, no modprobe"
	has "$OUT" "^would: $T/modprobe igc_batch$" "says it would load igc_batch"
	hasnt "$OUT" "modprobe octep_fix" "octep_fix is loaded"
	has "$OUT" "^would: echo 'igc_batch' > $S/bus/pci/devices/$IGC_A/driver_override$" "override"
	has "$OUT" "^would: echo '$IGC_A' > $S/bus/pci/devices/$IGC_A/driver/unbind$" "unbind"
	has "$OUT" "^would: echo '$OCT_B' > $S/bus/pci/drivers_probe$" "probe"
	is "$(grep -c '^would: ' <<<"$OUT")" 13 "one modprobe, three writes a port"
	before=$(snap)
	ns -n persist ours
	ran_ok
	is "$(snap)" "$before" "persist: nothing written"
	has "$OUT" "would: write $T/etc/nic-switch-igc.conf \(blacklist igc\)" "persist: igc"
	has "$OUT" "would: write $T/etc/nic-switch-octep.conf \(blacklist octeon_ep\)" "persist: octep"
}

c_loads_driver() {
	std
	rm -rf "$S/bus/pci/drivers/octep_fix"
	ns to-ours enp5s0
	ran_ok
	is "$(cat "$T/modprobes")" "modprobe octep_fix" "modprobe"
	is "$(drv $OCT_A) $(drv $OCT_B)" "octep_fix octeon_ep" "drivers"
	# a module that loads but registers no PCI driver
	rm -rf "$S/bus/pci/drivers/igc_batch"
	echo igc_batch >"$T/nodriver"
	ns to-ours eth1
	is "$RC" 1 "no driver registered: exit status"
	has "$ERR" "^nic-switch.sh: igc_batch loaded but registered no PCI driver \\($S/bus/pci/drivers/igc_batch missing\\); no port changed$" "no driver registered: message"
	is "$(drv $IGC_A) $(ovr $IGC_A)" "igc (null)" "no driver registered: port untouched"
}

c_not_installed() {
	std
	rm -rf "$S/bus/pci/drivers/octep_fix"
	sed -i '/^octep_fix$/d' "$T/installed"
	local before
	before=$(snap)
	ns to-ours all
	refused "octep_fix is not loaded and not installed for kernel .*dkms install dbbatch.*nothing changed" "$before"
	is "$(drv $IGC_A)" igc "the igc ports were not switched either"
	rm -rf "$S/bus/pci/drivers/igc_batch"
	before=$(snap)
	ns to-ours all
	refused "octep_fix is not loaded and not installed" "$before"
	is "$(cat "$T/modprobes")" "" "igc_batch was not loaded either"
	ns -n to-ours enp5s0
	refused "octep_fix is not loaded and not installed" "$before"
	# and the other way: Debian does not build octeon_ep
	std
	ns to-ours all-octep
	is "$(drv $OCT_A) $(drv $OCT_B)" "octep_fix octep_fix" "to-ours all-octep"
	rm -rf "$S/bus/pci/drivers/octeon_ep"
	sed -i '/^octeon_ep$/d' "$T/installed"
	before=$(snap)
	ns to-upstream enp6s0
	refused "octeon_ep is not loaded and not installed .*build-octeon-ep.sh" "$before"
}

c_unknown_port() {
	std
	local before
	before=$(snap)
	ns to-ours eth1 nosuch0
	refused "nosuch0: no such interface or PCI device \(see: nic-switch.sh status; ip link\)" "$before"
	ns to-upstream 0000:0a:00.0
	refused "0000:0a:00.0: no such interface or PCI device" "$before"
}

c_foreign() {
	std
	local before
	before=$(snap)
	ns to-ours eno1
	refused "eno1 \($E1000E, PCI 8086:10d3\) is not an Intel I225/I226 or a Marvell Octeon CN93xx/CN98xx PF port" "$before"
	ns to-ours $OCT_VF
	refused "$OCT_VF \($OCT_VF, PCI 177d:b203\) is not an Intel" "$before"
	ns to-ours 09:00.0
	refused "09:00.0 \($OTHER, PCI 10ec:125c\) is not an Intel" "$before"
	mkdir "$S/class/net/lo"
	before=$(snap)
	ns to-ours lo eth1
	refused "lo: an interface with no device behind it \(virtual\?\), not an Intel" "$before"
}

c_bind_fails() {
	std
	touch "$S/bus/pci/drivers/igc_batch/.fail"
	ns to-ours eth2
	is "$RC" 1 "exit status"
	has "$ERR" "^nic-switch.sh: $IGC_B: igc_batch did not bind within 1s \(now: none\); see dmesg; driver_override stays igc_batch; to give it back to igc: nic-switch.sh to-upstream $IGC_B$" "message"
	is "$(drv $IGC_B) $(ovr $IGC_B)" "none igc_batch" "left unbound, override kept"
	ns to-upstream $IGC_B
	ran_ok
	is "$(drv $IGC_B)" igc "the way back the message gives"
	: >"$T/writes"
	touch "$S/bus/pci/drivers/octep_fix/.defer"
	ns to-ours all-octep
	is "$RC" 1 "deferred: exit status"
	has "$ERR" "$OCT_A: octep_fix did not bind .*its probe is deferred \(octep_fix defers its probe until the Octeon firmware says it is ready\): run this again once that is resolved; driver_override stays octep_fix; to give it back to octeon_ep: nic-switch.sh to-upstream $OCT_A$" "deferred: message"
	is "$(writes)" "bus/pci/drivers/octeon_ep/unbind $OCT_A
bus/pci/drivers_probe $OCT_A" "deferred: stops at the first port"
	is "$(drv $OCT_B)" octeon_ep "deferred: the second port untouched"
	rm "$S/bus/pci/drivers/octep_fix/.defer"
	: >"$S/kernel/debug/devices_deferred"
	ns to-ours all-octep
	ran_ok
	is "$(drv $OCT_A) $(drv $OCT_B)" "octep_fix octep_fix" "deferred: run again once resolved"
}

c_status() {
	std
	ns to-ours eth2 enp5s0
	ns status
	ran_ok
	is "$OUT" "PCI            FAMILY ID         DRIVER     OVERRIDE   IFACES
$IGC_A   igc    8086:125c  igc        -          eth1
$IGC_B   igc    8086:15f3  igc_batch  igc_batch  eth2
$OCT_A   octep  177d:b200  octep_fix  octep_fix  enp5s0
$OCT_B   octep  177d:b100  octeon_ep  -          enp6s0" "table"
	ns persist ours octep
	printf 'blacklist igc\n' >"$T/etc/local.conf"
	ns -f igc status
	ran_ok
	is "$OUT" "PCI            FAMILY ID         DRIVER     OVERRIDE   IFACES
$IGC_A   igc    8086:125c  igc        -          eth1
$IGC_B   igc    8086:15f3  igc_batch  igc_batch  eth2
at boot: igc blacklisted ($T/etc/local.conf)" "-f igc table, blacklist by another file"
	ns status
	has "$OUT" "^at boot: octeon_ep blacklisted \($T/etc/nic-switch-octep.conf\)$" "octep blacklist"
	tree
	ns status
	ran_ok
	is "$OUT" "PCI            FAMILY ID         DRIVER     OVERRIDE   IFACES
(no Intel I225/I226 or Marvell Octeon CN93xx/CN98xx PF port)" "no port"
	ns to-ours all
	is "$RC" 1 "all with no port: exit status"
	has "$ERR" "no Intel I225/I226 or Marvell Octeon CN93xx/CN98xx PF port found" "all with no port: message"
}

c_persist() {
	tree
	local igc_conf="# Written by nic-switch.sh: Intel I225/I226 ports use
# igc_batch; igc does not bind them at boot.  Undo with
# \"nic-switch.sh persist upstream igc\".
blacklist igc"
	ns persist ours
	ran_ok
	is "$(ls "$T/etc")" "nic-switch-igc.conf
nic-switch-octep.conf" "one file per family"
	is "$(cat "$T/etc/nic-switch-igc.conf")" "$igc_conf" "igc's"
	is "$(cat "$T/etc/nic-switch-octep.conf")" "# Written by nic-switch.sh: Marvell Octeon CN93xx/CN98xx PF ports use
# octep_fix; octeon_ep does not bind them at boot.  Undo with
# \"nic-switch.sh persist upstream octep\".
blacklist octeon_ep" "octep's"
	has "$OUT" "^wrote $T/etc/nic-switch-igc.conf \(blacklist igc: igc_batch takes Intel I225/I226 ports at boot\)$" "output"
	has "$OUT" "^if octeon_ep is in your initramfs, run update-initramfs -u" "initramfs hint"
	ns persist upstream octep_fix
	ran_ok
	is "$(ls "$T/etc")" "nic-switch-igc.conf" "persist upstream octep (by driver name)"
	is "$OUT" "removed $T/etc/nic-switch-octep.conf
if octeon_ep is in your initramfs, run update-initramfs -u for this to apply at boot" "its output"
	ns persist upstream octep
	ran_ok
	has "$OUT" "^$T/etc/nic-switch-octep.conf not present: octeon_ep is not blacklisted by this tool$" "again: says so"
	# igc-switch.sh's file goes too
	printf 'blacklist igc\n' >"$T/etc/igc-switch.conf"
	printf 'blacklist igc  # mine\n' >"$T/etc/other.conf"
	ns persist upstream igc
	ran_ok
	is "$(ls "$T/etc")" "other.conf" "persist upstream igc: ours and igc-switch.sh's removed"
	has "$OUT" "^note: $T/etc/other.conf \(not written by this tool\) blacklists igc too$" "the other blacklist named"
	printf 'blacklist igc\n' >"$T/etc/igc-switch.conf"
	ns persist ours igc
	ran_ok
	is "$(ls "$T/etc")" "nic-switch-igc.conf
other.conf" "persist ours igc replaces igc-switch.sh's file"
	ns persist both
	is "$RC" 2 "persist both: usage"
	ns persist ours nosuch
	is "$RC" 1 "persist ours nosuch: exit status"
	has "$ERR" "nosuch: no such family \(families: igc octep\)" "persist ours nosuch: message"
}

c_family_option() {
	std
	ns -f igc to-ours all
	ran_ok
	is "$(drv $IGC_A) $(drv $IGC_B) $(drv $OCT_A) $(drv $OCT_B)" \
		"igc_batch igc_batch octeon_ep octeon_ep" "-f igc all"
	local before
	before=$(snap)
	ns -f igc to-ours enp5s0
	refused "enp5s0 \($OCT_A\) is a Marvell Octeon CN93xx/CN98xx PF port, not Intel I225/I226 \(igc\)" "$before"
	ns -f octep to-ours all-igc
	refused "all-igc: not in the family this command is limited to \(octep\)" "$before"
	ns -f nosuch status
	is "$RC" 1 "-f nosuch: exit status"
	has "$ERR" "-f nosuch: no such family" "-f nosuch: message"
}

c_igc_switch_wrapper() {
	std
	igcs to-batch eth1
	ran_ok
	is "$(drv $IGC_A) $(ovr $IGC_A)" "igc_batch igc_batch" "to-batch eth1"
	igcs -n to-batch all
	ran_ok
	hasnt "$OUT" "$OCT_A|$OCT_B" "-n to-batch all: no Octeon port"
	has "$OUT" "would: echo '$IGC_B' > $S/bus/pci/drivers_probe" "-n to-batch all: port B"
	igcs to-batch all
	ran_ok
	is "$(drv $IGC_B) $(drv $OCT_A) $(drv $OCT_B)" "igc_batch octeon_ep octeon_ep" "to-batch all: the I225/I226 ports only"
	igcs to-igc 0000:03:00.0
	ran_ok
	is "$(drv $IGC_A)" igc "to-igc"
	igcs to-igc eth1 eth1 eth1 eth1 eth1 eth1 eth1 eth1 eth1 eth1
	ran_ok
	is "$OUT" "$IGC_A: already on igc (eth1)" "to-igc with ten ports"
	igcs to-igc
	is "$RC" 2 "to-igc without a port: usage"
	local before
	before=$(snap)
	igcs to-batch enp5s0
	refused "enp5s0 \($OCT_A\) is a Marvell Octeon" "$before"
	igcs status
	ran_ok
	is "$(grep -c '^0000:' <<<"$OUT")" 2 "status: the two I225/I226 ports"
	igcs persist batch
	ran_ok
	is "$(ls "$T/etc")" "nic-switch-igc.conf" "persist batch"
	has "$(cat "$T/etc/nic-switch-igc.conf")" "^blacklist igc$" "persist batch: content"
	igcs persist igc
	ran_ok
	is "$(ls "$T/etc")" "" "persist igc"
	igcs persist octep
	is "$RC" 2 "persist octep: usage"
	has "$ERR" "^usage: igc-switch.sh \[-n\] to-batch PORT\.\.\.$" "usage text"
	igcs to-ours eth1
	is "$RC" 2 "to-ours (not igc-switch.sh's): usage"
	# IGC_SWITCH_SYSFS is still honoured
	ENV_EXTRA=(NIC_SWITCH_SYSFS= IGC_SWITCH_SYSFS="$S")
	igcs to-batch eth1
	ENV_EXTRA=()
	ran_ok
	is "$(drv $IGC_A)" igc_batch "IGC_SWITCH_SYSFS"
	# a copy elsewhere finds nic-switch.sh in PATH, or says it cannot
	mkdir "$T/bin" "$T/bin2"
	cp "$IGCS" "$T/bin/igc-switch.sh"
	ENV_EXTRA=(PATH="$(dirname "$NS"):$PATH")
	run_tool "$T/bin/igc-switch.sh" to-igc eth1
	ENV_EXTRA=()
	ran_ok
	is "$(drv $IGC_A)" igc "a copy, nic-switch.sh in PATH"
	cp "$IGCS" "$T/bin2/igc-switch.sh"
	ENV_EXTRA=(PATH=/usr/bin:/bin)
	run_tool "$T/bin2/igc-switch.sh" status
	ENV_EXTRA=()
	is "$RC" 1 "a copy, no nic-switch.sh: exit status"
	has "$ERR" "nic-switch.sh, which does the work, is neither in $T/bin2 nor in PATH" "a copy, no nic-switch.sh: message"
}

c_usage() {
	std
	local before
	before=$(snap)
	ns
	is "$RC" 2 "no command: exit status"
	has "$ERR" "^usage: nic-switch.sh \[-n\] \[-f FAMILY\] to-ours PORT" "no command: usage"
	ns to-batch eth1
	is "$RC" 2 "to-batch (igc-switch.sh's): usage"
	ns to-ours
	is "$RC" 2 "to-ours without a port: usage"
	is "$(snap)" "$before" "nothing changed"
}

tcase "igc: to-ours by interface name: igc -> igc_batch, one unbind + one probe, nothing else touched" c_igc_to_ours_ifname
tcase "igc: to-upstream by full PCI address: igc_batch -> igc" c_igc_to_upstream_pci
tcase "octep: to-ours by short PCI address: octeon_ep -> octep_fix" c_octep_to_ours_short_pci
tcase "octep: to-upstream by interface name: octep_fix -> octeon_ep" c_octep_to_upstream_ifname
tcase "all: every port of both families and back; devices of no family untouched" c_all
tcase "all-octep, all-igc, unknown family" c_all_family
tcase "a port named twice switches once; already on the target: only driver_override written" c_already
tcase "-n: prints the modprobe and every write, changes nothing (to-ours all, persist)" c_dry_run
tcase "target driver not loaded but installed: modprobe, then the switch; loaded but no PCI driver: refused" c_loads_driver
tcase "target driver not installed: refused before any port is touched (octep_fix, octeon_ep)" c_not_installed
tcase "unknown port refused, nothing changed" c_unknown_port
tcase "foreign device (e1000e, Octeon VF, an I226 ID of another vendor) and virtual interface refused, nothing changed" c_foreign
tcase "target driver refuses or defers the probe: error with the way back, left with driver_override" c_bind_fails
tcase "status: both families, -f igc, blacklists at boot, no port" c_status
tcase "persist ours|upstream [FAMILY]: one modprobe.d file per family, igc-switch.sh's file, other blacklists" c_persist
tcase "-f FAMILY limits ports, all and all-FAMILY" c_family_option
tcase "igc-switch.sh: to-batch, to-igc, all = I225/I226 only, persist batch|igc, status, IGC_SWITCH_SYSFS, finding nic-switch.sh" c_igc_switch_wrapper
tcase "usage errors change nothing" c_usage

echo "1..$N"
[ "$FAILED" = 0 ]
