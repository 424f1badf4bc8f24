# The lab's guest helpers: Router.guest() sources this file before every
# script it runs in a router guest (/lab/lib.sh there).
set -u

# ifof MAC: the interface with that address
ifof() {
	for n in /sys/class/net/*; do
		[ "$(cat "$n/address" 2>/dev/null)" = "$1" ] && { echo "${n##*/}"; return 0; }
	done
	return 1
}

# waitif MAC: wait up to 15 s for an interface with that address
waitif() {
	i=0
	while [ $i -lt 150 ]; do
		ifof "$1" >/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# spread IF: vector IF-TxRx-i on CPU i mod ncpus (what irqbalance or a
# router's tuning would do; the kernel's default puts them where it likes)
spread() {
	n=$(nproc)
	awk -v ifc="$1" '$NF ~ "^"ifc"-TxRx-[0-9]+$" {
		sub(":", "", $1); q = $NF; sub(".*-", "", q); print $1, q }' /proc/interrupts |
		while read -r irq q; do echo $((q % n)) >"/proc/irq/$irq/smp_affinity_list"; done
}

# carrier IF 0|1 SECONDS: wait for IF's carrier to read 0 or 1
carrier() {
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		[ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
