#!/bin/sh
# dbb-truth.sh: read a dbb model's ground truth (dbb-igc, dbb-octep) from
# inside the guest, through the device's vendor-specific PCI capability in
# config space.  No driver involved: works while igc/octeon_ep owns the
# BARs, and with no driver at all.
#
#   dbb-truth.sh DEV COUNTER [INDEX]   print one counter (INDEX default 0)
#   dbb-truth.sh DEV all               print "COUNTER INDEX VALUE" lines,
#                                      all taken from one snapshot
#   dbb-truth.sh DEV reset             zero every counter
#   dbb-truth.sh DEV list              print "ID COUNTER WIDTH" lines
#
# DEV is an interface (eth0) or a PCI address (0000:00:03.0 or 00:03.0).
# COUNTER is a name (tdt_writes, credit_now) or a numeric id; see
# tools/lab/qemu/README.md.  INDEX is the queue or ring, or for irqs,
# irq_deferred and irqs_rx the MSI-X vector, or for fw_requests the
# mailbox command.
#
# Needs root (config space beyond 64 bytes), a POSIX shell with 64-bit
# arithmetic (busybox ash, dash, bash), od and dd.
set -eu

IGC_NAMES="tdt_writes tdt_noop_writes rdt_writes rdt_noop_writes tx_desc
rx_desc tx_frames rx_frames rx_dropped tx_packets tx_bytes rx_bytes irqs
irq_deferred rx_filtered rx_off_drops guest_errors rx_paused_drops
tx_link_drops reg_reads irq_reg_writes other_reg_writes tx_desc_reads
rx_desc_reads tx_wb_writes irqs_rx"
OCTEP_NAMES="in_dbell_writes in_dbell_noop_writes in_instr tx_frames tx_bytes
out_dbell_writes out_dbell_noop_writes credit_granted credit_fetched
credit_now fetches buffers_fetched rx_frames rx_bytes rx_buffers rx_refused
laps overwritten_unread irqs fw_requests heartbeats fw_notifications
rx_off_drops guest_errors dma_errors outstanding_max reg_reads irq_reg_writes
other_reg_writes rx_skipped desc_changed irqs_lost
rx_uncounted"
MAGIC=1413628484            # "DBBT" as a little-endian 32-bit word
SEL_FROM_SNAP=$((1 << 29))
SEL_SNAPSHOT=$((1 << 30))
SEL_RESET=$((1 << 31))

die() {
	echo "dbb-truth: $*" >&2
	exit 2
}

[ $# -ge 2 ] || die "usage: dbb-truth.sh <ifname|bdf> <counter|all|reset|list> [index]"
dev=$1 what=$2 index=${3:-0}

if [ -e "/sys/class/net/$dev/device" ]; then
	bdf=$(basename "$(readlink -f "/sys/class/net/$dev/device")")
else
	case $dev in
	*:*:*.*) bdf=$dev ;;
	*:*.*) bdf=0000:$dev ;;
	*) die "$dev is neither a network interface nor a PCI address" ;;
	esac
fi
cfg=/sys/bus/pci/devices/$bdf/config
[ -r "$cfg" ] || die "no PCI device $bdf ($cfg not readable)"

rd8() { od -An -tu1 -j "$1" -N 1 "$cfg" | tr -d ' \n'; }
rd32() { od -An -tu4 -j "$1" -N 4 "$cfg" | tr -d ' \n'; }
# wr32 OFFSET VALUE: one aligned 4-byte config write.
wr32() {
	v=$2
	# shellcheck disable=SC2059 # the format is the data: \ooo escapes
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) \
		$((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))" |
		dd of="$cfg" bs=4 seek=$(($1 / 4)) count=1 conv=notrunc 2>/dev/null ||
		die "cannot write $cfg (root needed)"
}

# Walk the capability list for ID 0x09 carrying our magic.
cap=0
ptr=$(($(rd8 52) & 252))
n=0
while [ "$ptr" -ne 0 ] && [ $n -lt 48 ]; do
	if [ "$(rd8 "$ptr")" -eq 9 ] && [ "$(rd32 $((ptr + 4)))" = "$MAGIC" ]; then
		cap=$ptr
		break
	fi
	ptr=$(($(rd8 $((ptr + 1))) & 252))
	n=$((n + 1))
done
[ "$cap" -ne 0 ] || die "$bdf has no dbb ground-truth capability (not a dbb-igc or dbb-octep, or config space unreadable)"

# The capability's info word: queues/rings (15:8), MSI-X vectors (23:16).
info=$(rd32 $((cap + 20)))
queues=$((info >> 8 & 255))
vectors=$((info >> 16 & 255))
if [ $(($(rd32 0) & 65535)) -eq $((0x177d)) ]; then
	model=octep
	NAMES=$OCTEP_NAMES
else
	model=igc
	NAMES=$IGC_NAMES
fi

# width ID: indexes of counter ID (queues/rings, vectors, commands or one).
width() {
	case $model:$1 in
	igc:12 | igc:13 | octep:18) echo "$vectors" ;;
	igc:14 | igc:15 | igc:16 | igc:19 | igc:2[01] | octep:2[0-3] | octep:2[6-8]) echo 1 ;;
	octep:19) echo 16 ;;
	*) echo "$queues" ;;
	esac
}

id_of() {
	i=0
	for nm in $NAMES; do
		if [ "$nm" = "$1" ] || [ "$i" = "$1" ]; then
			echo $i
			return 0
		fi
		i=$((i + 1))
	done
	die "unknown counter '$1'; try: dbb-truth.sh $dev list"
}

# value SELECTOR: latch and print the 64-bit value.
value() {
	wr32 $((cap + 8)) "$1"
	lo=$(rd32 $((cap + 12)))
	hi=$(rd32 $((cap + 16)))
	if [ "$hi" = 4294967295 ] && [ "$lo" = 4294967295 ]; then
		die "selector $1: no such counter/index"
	fi
	echo $((hi * 4294967296 + lo))
}

case $what in
list)
	i=0
	for nm in $NAMES; do
		echo "$i $nm $(width $i)"
		i=$((i + 1))
	done
	;;
reset)
	wr32 $((cap + 8)) $SEL_RESET
	;;
all)
	wr32 $((cap + 8)) $SEL_SNAPSHOT
	i=0
	for nm in $NAMES; do
		q=0
		while [ $q -lt "$(width $i)" ]; do
			echo "$nm $q $(value $((i | q << 8 | SEL_FROM_SNAP)))"
			q=$((q + 1))
		done
		i=$((i + 1))
	done
	;;
*)
	id=$(id_of "$what")
	[ "$index" -lt "$(width "$id")" ] 2>/dev/null ||
		die "index $index out of range for $what (0..$(($(width "$id") - 1)))"
	value $((id | index << 8))
	;;
esac
