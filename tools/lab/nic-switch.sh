#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nic-switch.sh: move NIC ports between an upstream driver and ours, while
# both are installed (they bind the same PCI IDs).  Families:
#
#   igc     Intel I225/I226 (8086:...)                   igc <-> igc_batch
#   octep   Marvell Octeon CN93xx/CN98xx PF (177d:b200,   octeon_ep <-> octep_fix
#           177d:b100)
#
#   nic-switch.sh [-n] [-f FAMILY] to-ours PORT...       bind our driver
#   nic-switch.sh [-n] [-f FAMILY] to-upstream PORT...   the way back
#   nic-switch.sh [-n] persist ours|upstream [FAMILY]    at boot: ours
#                               (blacklist upstream) or upstream again
#   nic-switch.sh [-f FAMILY] status                     every port, its driver
#
# PORT is an interface name (eth1), a PCI address (0000:03:00.0 or 03:00.0),
# "all" (every port of every family) or "all-FAMILY" (all-igc, all-octep).
# The family of a port comes from its PCI vendor and device ID.  -n prints
# what would be done and changes nothing; -f FAMILY limits the command to
# one family ("all" then means all-FAMILY, other ports are refused).
#
# A switch is per port and lasts until reboot: the port's driver_override
# names the driver, so a module reload or a PCI rescan does not hand it back
# to the other one; switching again rewrites it.  The interface goes away
# and comes back under the new driver (its name may change; its addresses
# and routes are gone, as after any driver reload).  Every port is checked
# and every driver needed is loaded before any port is touched.
#
# "persist" works per machine and family: it writes (ours) or removes
# (upstream) /etc/modprobe.d/nic-switch-FAMILY.conf, a blacklist of the
# upstream driver, so ours takes the family's ports at boot; without
# FAMILY, every family.  "persist upstream igc" also removes igc-switch.conf,
# written by the older igc-switch.sh.  Rebuild the initramfs afterwards if
# the upstream driver is in it (update-initramfs -u).
#
# For tests, against fake trees: NIC_SWITCH_SYSFS (instead of /sys),
# NIC_SWITCH_CONF_DIR (instead of /etc/modprobe.d), NIC_SWITCH_MODPROBE
# (instead of modprobe), NIC_SWITCH_TIMEOUT (seconds to wait for a bind,
# default 10), NIC_SWITCH_SETTLE (seconds given to udev after a bind,
# default 0.5).  With NIC_SWITCH_SYSFS or NIC_SWITCH_CONF_DIR set, root is
# not required for what they redirect.
set -euo pipefail

PROG=${0##*/}
SYS=${NIC_SWITCH_SYSFS:-/sys}
CONF_DIR=${NIC_SWITCH_CONF_DIR:-/etc/modprobe.d}
MODPROBE=${NIC_SWITCH_MODPROBE:-modprobe}
TIMEOUT=${NIC_SWITCH_TIMEOUT:-10}
SETTLE=${NIC_SWITCH_SETTLE:-0.5}
DRY=
ONLY=

# The families: upstream driver, ours, PCI vendor and the device IDs both
# bind (igc: upstream igc's table; octep: octeon_ep's and octep_fix's,
# drivers/net/ethernet/marvell/octep_fix/octf_main.c).
FAMILIES="igc octep"
declare -A F_NAME=(
	[igc]="Intel I225/I226"
	[octep]="Marvell Octeon CN93xx/CN98xx PF"
)
declare -A F_UP=([igc]=igc [octep]=octeon_ep)
declare -A F_OURS=([igc]=igc_batch [octep]=octep_fix)
declare -A F_VENDOR=([igc]=8086 [octep]=177d)
declare -A F_IDS=(
	[igc]="15f2 15f3 15f8 3100 3101 5502 0d9f 15fd 125b 125c 125d 3102 5503 125f 15f7 125e"
	[octep]="b200 b100"
)
# What to do when a driver is not installed.
declare -A INSTALL_HINT=(
	[igc]="it is part of the kernel (CONFIG_IGC): install the kernel's modules package"
	[igc_batch]="build and install dbbatch (DKMS: dkms install dbbatch/0.1.0, or make modules_install; see igc_batch.rst, Building)"
	[octeon_ep]="it is in the kernel (CONFIG_OCTEON_EP) but Debian does not build it; in the lab, tools/lab/build-octeon-ep.sh builds it"
	[octep_fix]="build and install dbbatch (DKMS: dkms install dbbatch/0.1.0, or make modules_install; see octep_fix.rst)"
)
# Why a probe may not have bound yet.
declare -A BIND_HINT=(
	[octep_fix]="octep_fix defers its probe until the Octeon firmware says it is ready"
	[octeon_ep]="octeon_ep waits for the Octeon firmware to be ready"
)

die() {
	echo "$PROG: $*" >&2
	exit 1
}

usage() {
	cat >&2 <<-EOF
		usage: $PROG [-n] [-f FAMILY] to-ours PORT...
		       $PROG [-n] [-f FAMILY] to-upstream PORT...
		       $PROG [-n] persist ours|upstream [FAMILY]
		       $PROG [-f FAMILY] status
		PORT: interface name, PCI address (0000:03:00.0 or 03:00.0), all, all-FAMILY
		FAMILY: $(for f in $FAMILIES; do printf '\n  %-6s %s: %s <-> %s' "$f" "${F_NAME[$f]}" "${F_UP[$f]}" "${F_OURS[$f]}"; done)
		-n: only print what would be done
	EOF
	exit 2
}

run() {
	if [ -n "$DRY" ]; then
		echo "would: $*"
	else
		"$@"
	fi
}

# write VALUE FILE, or say so under -n
put() {
	if [ -n "$DRY" ]; then
		echo "would: echo '$1' > $2"
	else
		printf '%s\n' "$1" >"$2"
	fi
}

# family NAME: the family a name stands for (family, upstream or our
# driver's name), or nothing
family_of_name() {
	local f
	for f in $FAMILIES; do
		case "$1" in "$f" | "${F_UP[$f]}" | "${F_OURS[$f]}")
			echo "$f"
			return 0
			;;
		esac
	done
	return 1
}

families() {
	if [ -n "$ONLY" ]; then echo "$ONLY"; else echo "$FAMILIES"; fi
}

# the names of the families in scope, for messages; -a: with articles
# ("an Intel I225/I226 or a Marvell ...")
family_names() {
	local f out=
	for f in $(families); do
		out+=${out:+ or }
		if [ "${1:-}" = -a ]; then
			case "${F_NAME[$f]}" in [AEIOU]*) out+="an " ;; *) out+="a " ;; esac
		fi
		out+="${F_NAME[$f]}"
	done
	echo "$out"
}

# family_of_dev BDF: the family of a PCI device (any family, not only those
# in scope), or nothing
family_of_dev() {
	local d=$SYS/bus/pci/devices/$1 v id f
	[ -r "$d/vendor" ] && [ -r "$d/device" ] || return 1
	v=$(cat "$d/vendor")
	id=$(cat "$d/device")
	v=${v#0x} id=${id#0x}
	for f in $FAMILIES; do
		[ "$v" = "${F_VENDOR[$f]}" ] || continue
		case " ${F_IDS[$f]} " in *" $id "*)
			echo "$f"
			return 0
			;;
		esac
	done
	return 1
}

pci_id() {
	local d=$SYS/bus/pci/devices/$1
	echo "$(sed 's/^0x//' "$d/vendor"):$(sed 's/^0x//' "$d/device")"
}

# ports [FAMILY...]: every port of these families (default: in scope)
ports() {
	local d f want=" ${*:-$(families)} "
	for d in "$SYS"/bus/pci/devices/*; do
		[ -e "$d" ] || continue
		f=$(family_of_dev "${d##*/}") || continue
		case "$want" in *" $f "*) echo "${d##*/}" ;; esac
	done
	return 0
}

# resolve PORT -> full PCI address(es), one a line
resolve() {
	local p=$1 bdf f dev
	case "$p" in
	all)
		ports
		return 0
		;;
	all-*)
		f=$(family_of_name "${p#all-}") ||
			die "$p: no such family (families: $FAMILIES)"
		[ -z "$ONLY" ] || [ "$f" = "$ONLY" ] ||
			die "$p: not in the family this command is limited to ($ONLY)"
		bdf=$(ports "$f")
		[ -n "$bdf" ] || die "$p: no ${F_NAME[$f]} port found (see: $PROG status)"
		echo "$bdf"
		return 0
		;;
	esac
	if [ -e "$SYS/class/net/$p" ]; then
		[ -e "$SYS/class/net/$p/device" ] ||
			die "$p: an interface with no device behind it (virtual?), not $(family_names -a) port"
		dev=$(readlink -f "$SYS/class/net/$p/device")
		bdf=${dev##*/}
		[ -e "$SYS/bus/pci/devices/$bdf" ] ||
			die "$p: not a PCI device ($dev), so not $(family_names -a) port"
	elif [ -e "$SYS/bus/pci/devices/$p" ]; then
		bdf=$p
	elif [ -e "$SYS/bus/pci/devices/0000:$p" ]; then
		bdf=0000:$p
	else
		die "$p: no such interface or PCI device (see: $PROG status; ip link)"
	fi
	if ! f=$(family_of_dev "$bdf"); then
		die "$p ($bdf, PCI $(pci_id "$bdf")) is not $(family_names -a) port"
	fi
	if [ -n "$ONLY" ] && [ "$f" != "$ONLY" ]; then
		die "$p ($bdf) is a ${F_NAME[$f]} port, not ${F_NAME[$ONLY]} ($ONLY): use nic-switch.sh without -f"
	fi
	echo "$bdf"
}

driver_of() {
	local l=$SYS/bus/pci/devices/$1/driver
	if [ -e "$l" ]; then basename "$(readlink -f "$l")"; else echo none; fi
}

ifaces_of() {
	local n out=
	for n in "$SYS"/bus/pci/devices/"$1"/net/*; do
		[ -e "$n" ] && out+="${out:+ }${n##*/}"
	done
	echo "${out:--}"
}

override_of() {
	local o
	o=$(cat "$SYS/bus/pci/devices/$1/driver_override" 2>/dev/null) || o='?'
	[ "$o" != "(null)" ] && [ -n "$o" ] || o=-
	echo "$o"
}

# wait_driver BDF DRIVER|none: until the port's driver is that, or TIMEOUT
wait_driver() {
	local i n
	n=$(awk -v t="$TIMEOUT" 'BEGIN { print int(t * 20) }')
	for ((i = 0; i <= n; i++)); do
		[ "$(driver_of "$1")" = "$2" ] && return 0
		[ "$i" -lt "$n" ] && sleep 0.05
	done
	return 1
}

# installed DRIVER: loaded, or its module can be
installed() {
	[ -d "$SYS/bus/pci/drivers/$1" ] && return 0
	$MODPROBE -q -n "$1" ||
		die "$1 is not loaded and not installed for kernel $(uname -r): ${INSTALL_HINT[$1]}; nothing changed"
}

# load DRIVER: the driver is there before any port is unbound
load() {
	[ -d "$SYS/bus/pci/drivers/$1" ] && return 0
	if [ -n "$DRY" ]; then
		echo "would: $MODPROBE $1"
		return 0
	fi
	$MODPROBE "$1" || die "$MODPROBE $1 failed (see its message above and dmesg); no port changed"
	[ -d "$SYS/bus/pci/drivers/$1" ] ||
		die "$1 loaded but registered no PCI driver ($SYS/bus/pci/drivers/$1 missing); no port changed"
}

# switch BDF DRIVER
switch() {
	local bdf=$1 want=$2 have dev=$SYS/bus/pci/devices/$1 f back why=
	have=$(driver_of "$bdf")
	if [ "$have" = "$want" ]; then
		echo "$bdf: already on $want ($(ifaces_of "$bdf"))"
		put "$want" "$dev/driver_override"
		return 0
	fi
	put "$want" "$dev/driver_override"
	if [ "$have" != none ]; then
		put "$bdf" "$dev/driver/unbind"
		if [ -z "$DRY" ] && ! wait_driver "$bdf" none; then
			die "$bdf: unbinding from $have did not take (still on $(driver_of "$bdf")); see dmesg"
		fi
	fi
	put "$bdf" "$SYS/bus/pci/drivers_probe"
	[ -n "$DRY" ] && return 0
	if ! wait_driver "$bdf" "$want"; then
		f=$(family_of_dev "$bdf")
		case "$have" in
		none) back= ;;
		"${F_UP[$f]}") back="; to give it back to $have: $PROG to-upstream $bdf" ;;
		"${F_OURS[$f]}") back="; to give it back to $have: $PROG to-ours $bdf" ;;
		*) back="; to give it back to $have: echo $have > $dev/driver_override; echo $bdf > $SYS/bus/pci/drivers_probe" ;;
		esac
		if [ -r "$SYS/kernel/debug/devices_deferred" ] &&
			awk -v b="$bdf" '$1 == b { f = 1 } END { exit !f }' "$SYS/kernel/debug/devices_deferred"; then
			why="; its probe is deferred (${BIND_HINT[$want]:-see dmesg}): run this again once that is resolved"
		elif [ -n "${BIND_HINT[$want]:-}" ]; then
			why="; if the probe was deferred, ${BIND_HINT[$want]}"
		fi
		die "$bdf: $want did not bind within ${TIMEOUT}s (now: $(driver_of "$bdf")); see dmesg$why; driver_override stays $want$back"
	fi
	# The netdev shows up in the probe; give udev a moment to rename it.
	sleep "$SETTLE"
	echo "$bdf: now on $want ($(ifaces_of "$bdf"))"
}

conf_of() {
	echo "$CONF_DIR/nic-switch-$1.conf"
}

# files igc-switch.sh wrote before this tool
legacy_conf_of() {
	[ "$1" = igc ] && echo "$CONF_DIR/igc-switch.conf"
	return 0
}

# other_blacklists FAMILY: files in CONF_DIR not ours that blacklist the
# upstream driver
other_blacklists() {
	local up=${F_UP[$1]} c
	for c in "$CONF_DIR"/*.conf; do
		[ -e "$c" ] || continue
		[ "$c" = "$(conf_of "$1")" ] && continue
		[ "$c" = "$(legacy_conf_of "$1")" ] && continue
		grep -Eq "^[[:space:]]*blacklist[[:space:]]+$up([[:space:]]|$)" "$c" && echo "$c"
	done
	return 0
}

persist() {
	local how=$1 f=$2 conf up ours old c
	conf=$(conf_of "$f")
	old=$(legacy_conf_of "$f")
	up=${F_UP[$f]}
	ours=${F_OURS[$f]}
	case "$how" in
	ours)
		if [ -n "$DRY" ]; then
			echo "would: write $conf (blacklist $up)"
		else
			mkdir -p "$CONF_DIR"
			cat >"$conf" <<-EOF
				# Written by nic-switch.sh: ${F_NAME[$f]} ports use
				# $ours; $up does not bind them at boot.  Undo with
				# "nic-switch.sh persist upstream $f".
				blacklist $up
			EOF
			echo "wrote $conf (blacklist $up: $ours takes ${F_NAME[$f]} ports at boot)"
		fi
		if [ -n "$old" ] && [ -e "$old" ]; then
			run rm -f "$old"
			echo "removed $old (igc-switch.sh's, replaced by $conf)"
		fi
		;;
	upstream)
		local gone=
		for c in "$conf" $old; do
			[ -e "$c" ] || continue
			run rm -f "$c"
			echo "removed $c"
			gone=1
		done
		[ -n "$gone" ] || echo "$conf not present: $up is not blacklisted by this tool"
		for c in $(other_blacklists "$f"); do
			echo "note: $c (not written by this tool) blacklists $up too"
		done
		;;
	esac
	echo "if $up is in your initramfs, run update-initramfs -u for this to apply at boot"
}

status() {
	local bdf found="" f c
	printf '%-14s %-6s %-10s %-10s %-10s %s\n' PCI FAMILY ID DRIVER OVERRIDE IFACES
	for bdf in $(ports); do
		found=1
		printf '%-14s %-6s %-10s %-10s %-10s %s\n' "$bdf" \
			"$(family_of_dev "$bdf")" "$(pci_id "$bdf")" \
			"$(driver_of "$bdf")" "$(override_of "$bdf")" \
			"$(ifaces_of "$bdf")"
	done
	[ -n "$found" ] || echo "(no $(family_names) port)"
	for f in $(families); do
		for c in "$(conf_of "$f")" $(legacy_conf_of "$f") $(other_blacklists "$f"); do
			[ ! -e "$c" ] || echo "at boot: ${F_UP[$f]} blacklisted ($c)"
		done
	done
}

need_root() {
	[ -n "$DRY" ] || [ -n "$1" ] || [ "$(id -u)" = 0 ] || die "must be root"
}

while getopts nf:h opt; do
	case "$opt" in
	n) DRY=1 ;;
	f)
		ONLY=$(family_of_name "$OPTARG") ||
			die "-f $OPTARG: no such family (families: $FAMILIES)"
		;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
status)
	[ $# -eq 0 ] || usage
	status
	;;
persist)
	case $# in 1 | 2) ;; *) usage ;; esac
	case "$1" in ours | upstream) ;; *) usage ;; esac
	fams=$(families)
	if [ $# -eq 2 ]; then
		fams=$(family_of_name "$2") ||
			die "$2: no such family (families: $FAMILIES)"
		[ -z "$ONLY" ] || [ "$fams" = "$ONLY" ] ||
			die "$2: not in the family this command is limited to ($ONLY)"
	fi
	need_root "${NIC_SWITCH_CONF_DIR:-}"
	for f in $fams; do
		persist "$1" "$f"
	done
	;;
to-ours | to-upstream)
	[ $# -ge 1 ] || usage
	need_root "${NIC_SWITCH_SYSFS:-}"
	# Every port first: a wrong one refuses the whole command.
	declare -A seen=()
	ports=()
	for p in "$@"; do
		r=$(resolve "$p") || exit 1
		for bdf in $r; do
			[ -n "${seen[$bdf]:-}" ] && continue
			seen[$bdf]=1
			ports+=("$bdf")
		done
	done
	[ ${#ports[@]} -gt 0 ] || die "no $(family_names) port found"
	# Then every driver that will take a port: all installed, then loaded.
	declare -A target=()
	for bdf in "${ports[@]}"; do
		f=$(family_of_dev "$bdf")
		if [ "$cmd" = to-ours ]; then w=${F_OURS[$f]}; else w=${F_UP[$f]}; fi
		target[$bdf]=$w
	done
	drivers=$(for bdf in "${ports[@]}"; do
		[ "$(driver_of "$bdf")" = "${target[$bdf]}" ] || echo "${target[$bdf]}"
	done | sort -u)
	for w in $drivers; do installed "$w"; done
	for w in $drivers; do load "$w"; done
	for bdf in "${ports[@]}"; do
		switch "$bdf" "${target[$bdf]}"
	done
	;;
*)
	usage
	;;
esac
