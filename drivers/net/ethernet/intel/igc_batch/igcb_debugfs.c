// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch debugfs: fault injection for tests.
 *
 * /sys/kernel/debug/igc_batch/<PCI address>/ holds two files per fault
 * site: after skip_<site> more attempts there succeed, the next
 * fail_<site> attempts fail as if memory or the IOMMU ran out; both read
 * back what is left.  Sites:
 *
 *   tx_map      DMA mapping of a transmit (the packet is dropped)
 *   rx_alloc    RX page refills (the ring runs short of buffers)
 *   ring_alloc  ring allocation when the port opens (the open fails)
 *
 * and "injected" counts the faults injected so far.  Writing 1 to
 * "panic_in_poll" panics the kernel in the next receive pass whose
 * dbbatch batch is open, inside it: what netconsole must still get out of
 * the box.  Writing 1 to "carrier_off_at_flush" drops the carrier at
 * the next ndo_xdp_xmit() that brings XDP_XMIT_FLUSH while frames an
 * earlier call queued are unpublished, as a link lost between devmap's
 * bulk transmits of one pass would.  Writing N to "hold_link_up_ms" makes
 * the watchdog's next link-up wait N ms (10 s at most) between its last
 * look at the port going down and turning the carrier on: the window in
 * which a restart (an MTU change, a reset) can race it.
 *
 * Debian's kernels have no CONFIG_FAULT_INJECTION: these let the lab drive
 * the driver's error paths on the kernels users run.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>

#include "igcb.h"

static struct dentry *igcb_debugfs_root;

void igcb_debugfs_init(void)
{
	igcb_debugfs_root = debugfs_create_dir(IGCB_DRV_NAME, NULL);
}

void igcb_debugfs_exit(void)
{
	debugfs_remove_recursive(igcb_debugfs_root);
}

static void igcb_debugfs_fault(struct dentry *d, const char *site,
			       struct igcb_fault *f)
{
	char name[32];

	snprintf(name, sizeof(name), "skip_%s", site);
	debugfs_create_atomic_t(name, 0600, d, &f->skip);
	snprintf(name, sizeof(name), "fail_%s", site);
	debugfs_create_atomic_t(name, 0600, d, &f->fail);
}

void igcb_debugfs_add(struct igcb_adapter *a)
{
	struct dentry *d = debugfs_create_dir(pci_name(a->pdev),
					      igcb_debugfs_root);

	a->debugfs = d;
	igcb_debugfs_fault(d, "tx_map", &a->faults.tx_map);
	igcb_debugfs_fault(d, "rx_alloc", &a->faults.rx_alloc);
	igcb_debugfs_fault(d, "ring_alloc", &a->faults.ring_alloc);
	debugfs_create_atomic_t("injected", 0400, d, &a->faults.injected);
	/* whether the driver syncs (kernels from 6.10 decide per call) */
	debugfs_create_bool("dma_sync", 0400, d, &a->dma_sync);
	debugfs_create_atomic_t("panic_in_poll", 0600, d,
				&a->faults.panic_in_poll);
	debugfs_create_atomic_t("carrier_off_at_flush", 0600, d,
				&a->faults.carrier_off_at_flush);
	debugfs_create_atomic_t("hold_link_up_ms", 0600, d,
				&a->faults.hold_link_up_ms);
}

/* Out of line and cold: the receive pass only tests the flag. */
void igcb_panic_in_poll(struct igcb_adapter *a)
{
	if (atomic_xchg(&a->faults.panic_in_poll, 0))
		panic("%s: panic_in_poll: panicking inside a receive pass, as asked through debugfs\n",
		      netdev_name(a->netdev));
}

/* Called with the ring's queue locked, for a call that flushes. */
void igcb_carrier_off_at_flush(struct igcb_adapter *a,
			       struct igcb_tx_ring *ring)
{
	if (!dbb_tail_pending(ring->next_to_use, ring->tail_written) ||
	    !atomic_xchg(&a->faults.carrier_off_at_flush, 0))
		return;
	atomic_inc(&a->faults.injected);
	netdev_info(a->netdev, "carrier_off_at_flush: carrier dropped before an XDP flush, as asked through debugfs\n");
	netif_carrier_off(a->netdev);
}

/* Called by the watchdog right before it turns the carrier on. */
void igcb_hold_link_up(struct igcb_adapter *a)
{
	int ms = atomic_xchg(&a->faults.hold_link_up_ms, 0);

	if (ms <= 0)
		return;
	ms = min(ms, 10000);
	atomic_inc(&a->faults.injected);
	netdev_info(a->netdev, "hold_link_up_ms: carrier on held %d ms, as asked through debugfs\n",
		    ms);
	msleep(ms);
}

void igcb_debugfs_del(struct igcb_adapter *a)
{
	debugfs_remove_recursive(a->debugfs);
	a->debugfs = NULL;
}
