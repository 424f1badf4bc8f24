// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch: PCI probe and removal, the net_device operations, bringing
 * the port up and down, the watchdog (link, statistics, doorbell check)
 * and the reset task.
 *
 * Lifecycle: probe resets the MAC, reads the MAC address, resets the PHY,
 * allocates interrupt and queue vectors, starts auto-negotiation and
 * registers the netdev.  open allocates the rings and requests the
 * interrupts; igcb_up() programs the hardware and starts NAPI;
 * igcb_down() stops everything, waits until no dbbatch batch holds a
 * doorbell of ours, and resets the MAC.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/aer.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#ifdef IGCB_HAVE_QSTATS
#include <net/netdev_queues.h>
#endif

#include "igcb.h"

const char igcb_driver_name[] = IGCB_DRV_NAME;

/* Kernels before 6.5 enable AER reporting only when the driver asks. */
static void igcb_aer_reporting(struct pci_dev *pdev, bool on)
{
#ifdef IGCB_HAVE_AER_ENABLE
	if (on)
		pci_enable_pcie_error_reporting(pdev);
	else
		pci_disable_pcie_error_reporting(pdev);
#endif
}

/* Every I225 and I226 (and the I220-V/I221-V) that igc binds. */
static const struct pci_device_id igcb_pci_tbl[] = {
	{ PCI_VDEVICE(INTEL, 0x15F2) },	/* I225-LM */
	{ PCI_VDEVICE(INTEL, 0x15F3) },	/* I225-V */
	{ PCI_VDEVICE(INTEL, 0x15F8) },	/* I225-I */
	{ PCI_VDEVICE(INTEL, 0x3100) },	/* I225-K */
	{ PCI_VDEVICE(INTEL, 0x3101) },	/* I225-K2 */
	{ PCI_VDEVICE(INTEL, 0x5502) },	/* I225-LMvP */
	{ PCI_VDEVICE(INTEL, 0x0D9F) },	/* I225-IT */
	{ PCI_VDEVICE(INTEL, 0x15FD) },	/* I225, blank NVM */
	{ PCI_VDEVICE(INTEL, 0x125B) },	/* I226-LM */
	{ PCI_VDEVICE(INTEL, 0x125C) },	/* I226-V */
	{ PCI_VDEVICE(INTEL, 0x125D) },	/* I226-IT */
	{ PCI_VDEVICE(INTEL, 0x3102) },	/* I226-K */
	{ PCI_VDEVICE(INTEL, 0x5503) },	/* I226-LMvP */
	{ PCI_VDEVICE(INTEL, 0x125F) },	/* I226, blank NVM */
	{ PCI_VDEVICE(INTEL, 0x15F7) },	/* I220-V */
	{ PCI_VDEVICE(INTEL, 0x125E) },	/* I221-V */
	{ }
};
MODULE_DEVICE_TABLE(pci, igcb_pci_tbl);

static bool igcb_is_i226(u16 id)
{
	switch (id) {
	case 0x125B: case 0x125C: case 0x125D: case 0x3102: case 0x5503:
		return true;
	default:
		return false;
	}
}

/* I226 loses packets in ASPM L1.2 (upstream errata): off at probe, and
 * again after resume and a slot reset, where platform firmware may have
 * turned it back on, as upstream does.
 */
static void igcb_no_l1_2(struct igcb_adapter *a)
{
	if (igcb_is_i226(a->hw.device_id))
		pci_disable_link_state(a->pdev, PCIE_LINK_STATE_L1_2);
}

u64 igcb_mac_stat(const struct igcb_adapter *a, u32 reg)
{
	unsigned int i;

	for (i = 0; i < igcb_mac_stats_n; i++)
		if (igcb_mac_stats[i].lo == reg)
			return a->mac_stats[i];
	return 0;
}

/**
 * igcb_update_stats - fold the read-to-clear hardware counters in
 * @a: the port
 *
 * From the watchdog, ndo_get_stats64 and ethtool -S; serialised by
 * stats_lock since every read clears what it returns.
 */
void igcb_update_stats(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	unsigned int i;

	spin_lock(&a->stats_lock);
	igcb_hw_read_stats(hw, a->mac_stats);
	/* Per-queue drops (no descriptor) do not clear on read. */
	for (i = 0; i < a->num_queues && !READ_ONCE(hw->removed); i++) {
		u32 v = igcb_rd32(hw, IGCB_RQDPC(i));

		if (v) {
			igcb_wr32(hw, IGCB_RQDPC(i), 0);
			a->rx_hw_drops[i] += v;
		}
	}
	spin_unlock(&a->stats_lock);
}

static void igcb_get_stats64(struct net_device *netdev,
			     struct rtnl_link_stats64 *s)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	u64 hw_drops = 0;
	unsigned int i, start;

	/* All vectors: counters of queues ethtool -L removed still count. */
	for (i = 0; i < IGCB_MAX_QUEUES; i++) {
		struct igcb_rx_ring *rx = &a->qv[i]->rx;
		struct igcb_tx_ring *tx = &a->qv[i]->tx;
		u64 p, b, d;

		do {
			start = u64_stats_fetch_begin(&rx->sync);
			p = rx->st.packets;
			b = rx->st.bytes;
			d = rx->st.dropped;
		} while (u64_stats_fetch_retry(&rx->sync, start));
		s->rx_packets += p;
		s->rx_bytes += b;
		s->rx_dropped += d;

		do {
			start = u64_stats_fetch_begin(&tx->clean_sync);
			p = tx->cs.packets;
			b = tx->cs.bytes;
		} while (u64_stats_fetch_retry(&tx->clean_sync, start));
		s->tx_packets += p;
		s->tx_bytes += b;

		do {
			start = u64_stats_fetch_begin(&tx->db_sync);
			d = tx->db.dropped;
		} while (u64_stats_fetch_retry(&tx->db_sync, start));
		s->tx_dropped += d;
	}

	if (netif_device_present(netdev))
		igcb_update_stats(a);
	spin_lock(&a->stats_lock);
	for (i = 0; i < IGCB_MAX_QUEUES; i++)
		hw_drops += a->rx_hw_drops[i];
	s->multicast = igcb_mac_stat(a, IGCB_MPRC);
	s->collisions = igcb_mac_stat(a, IGCB_COLC);
	s->rx_crc_errors = igcb_mac_stat(a, IGCB_CRCERRS);
	s->rx_frame_errors = igcb_mac_stat(a, IGCB_ALGNERRC);
	s->rx_length_errors = igcb_mac_stat(a, IGCB_RUC) +
			      igcb_mac_stat(a, IGCB_ROC);
	s->rx_missed_errors = igcb_mac_stat(a, IGCB_MPC);
	s->rx_fifo_errors = hw_drops;
	s->rx_errors = s->rx_crc_errors + s->rx_frame_errors +
		       s->rx_length_errors + igcb_mac_stat(a, IGCB_RXERRC);
	s->tx_aborted_errors = igcb_mac_stat(a, IGCB_ECOL);
	s->tx_window_errors = igcb_mac_stat(a, IGCB_LATECOL);
	s->tx_carrier_errors = igcb_mac_stat(a, IGCB_TNCRS);
	s->tx_errors = s->tx_aborted_errors + s->tx_window_errors;
	spin_unlock(&a->stats_lock);
}

#ifdef IGCB_HAVE_QSTATS
/* Per-queue statistics over netdev netlink (qstats): the same software
 * counters as ndo_get_stats64, so that the base plus the queues in use
 * equal the netdev's totals (tools/testing/selftests/drivers/net/stats.py
 * checks it).  The base holds the queues ethtool -L took away.
 */
static void igcb_qstat_rx(struct igcb_rx_ring *rx,
			  struct netdev_queue_stats_rx *s)
{
	unsigned int start;
	u64 p, b, f;

	do {
		start = u64_stats_fetch_begin(&rx->sync);
		p = rx->st.packets;
		b = rx->st.bytes;
		f = rx->st.alloc_failed;
	} while (u64_stats_fetch_retry(&rx->sync, start));
	s->packets += p;
	s->bytes += b;
	s->alloc_fail += f;
}

static void igcb_qstat_tx(struct igcb_tx_ring *tx,
			  struct netdev_queue_stats_tx *s)
{
	unsigned int start;
	u64 p, b;

	do {
		start = u64_stats_fetch_begin(&tx->clean_sync);
		p = tx->cs.packets;
		b = tx->cs.bytes;
	} while (u64_stats_fetch_retry(&tx->clean_sync, start));
	s->packets += p;
	s->bytes += b;
}

static void igcb_get_queue_stats_rx(struct net_device *netdev, int idx,
				    struct netdev_queue_stats_rx *s)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	s->packets = 0;
	s->bytes = 0;
	s->alloc_fail = 0;
	igcb_qstat_rx(&a->qv[idx]->rx, s);
}

static void igcb_get_queue_stats_tx(struct net_device *netdev, int idx,
				    struct netdev_queue_stats_tx *s)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	s->packets = 0;
	s->bytes = 0;
	igcb_qstat_tx(&a->qv[idx]->tx, s);
}

static void igcb_get_base_stats(struct net_device *netdev,
				struct netdev_queue_stats_rx *rx,
				struct netdev_queue_stats_tx *tx)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	unsigned int i;

	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	tx->packets = 0;
	tx->bytes = 0;
	for (i = netdev->real_num_rx_queues; i < IGCB_MAX_QUEUES; i++)
		igcb_qstat_rx(&a->qv[i]->rx, rx);
	for (i = netdev->real_num_tx_queues; i < IGCB_MAX_QUEUES; i++)
		igcb_qstat_tx(&a->qv[i]->tx, tx);
}

static const struct netdev_stat_ops igcb_stat_ops = {
	.get_queue_stats_rx	= igcb_get_queue_stats_rx,
	.get_queue_stats_tx	= igcb_get_queue_stats_tx,
	.get_base_stats		= igcb_get_base_stats,
};
#endif

/* Receive addresses and the multicast table from the netdev's lists. */
static void igcb_set_rx_mode(struct net_device *netdev)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	struct igcb_hw *hw = &a->hw;
	struct netdev_hw_addr *ha;
	unsigned int i, used = 0;
	u32 rctl;

	rctl = igcb_rd32(hw, IGCB_RCTL) & ~(IGCB_RCTL_UPE | IGCB_RCTL_MPE);
	memset(a->mta, 0, sizeof(a->mta));

	if (netdev->flags & IFF_PROMISC) {
		rctl |= IGCB_RCTL_UPE | IGCB_RCTL_MPE;
	} else {
		if (netdev->flags & IFF_ALLMULTI) {
			rctl |= IGCB_RCTL_MPE;
		} else {
			netdev_for_each_mc_addr(ha, netdev) {
				unsigned int bit = igcb_hw_mta_bit(ha->addr);

				a->mta[bit >> 5] |= BIT(bit & 31);
			}
		}
		/* Entry 0 is ours; beyond 15 secondary addresses, promisc. */
		if (netdev_uc_count(netdev) >= IGCB_RAR_ENTRIES) {
			rctl |= IGCB_RCTL_UPE;
		} else {
			netdev_for_each_uc_addr(ha, netdev)
				igcb_hw_set_rar(hw, 1 + used++, ha->addr);
		}
	}
	for (i = 1 + used; i <= a->rar_used; i++)
		igcb_hw_set_rar(hw, i, NULL);
	a->rar_used = used;

	for (i = 0; i < IGCB_MTA_REGS; i++)
		igcb_wr32(hw, IGCB_MTA(i), a->mta[i]);
	igcb_wr32(hw, IGCB_RCTL, rctl);
}

static int igcb_set_mac(struct net_device *netdev, void *p)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	struct sockaddr *addr = p;

	if (!is_valid_ether_addr(addr->sa_data))
		return -EADDRNOTAVAIL;
	eth_hw_addr_set(netdev, addr->sa_data);
	igcb_hw_set_rar(&a->hw, 0, netdev->dev_addr);
	return 0;
}

static void igcb_vlan_mode(struct igcb_adapter *a, netdev_features_t features)
{
	struct igcb_hw *hw = &a->hw;
	u32 ctrl = igcb_rd32(hw, IGCB_CTRL);

	/* One bit strips on receive and allows insertion on transmit. */
	if (features & NETIF_F_HW_VLAN_CTAG_RX)
		ctrl |= IGCB_CTRL_VME;
	else
		ctrl &= ~IGCB_CTRL_VME;
	igcb_wr32(hw, IGCB_CTRL, ctrl);
}

/* Reset the MAC and bring filters, flow control and the link setup back. */
void igcb_reset(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;

	if (igcb_hw_reset(hw))
		return;
	igcb_wr32(hw, IGCB_RXPBS, IGCB_RXPBS_DEFAULT);
	igcb_wr32(hw, IGCB_TXPBS, IGCB_TXPBS_DEFAULT);
	hw->fc_current = hw->fc_requested;
	igcb_hw_init_mac(hw, a->netdev->dev_addr, a->max_frame);
	a->rar_used = 0;
	igcb_hw_disable_eee(hw);
	igcb_phy_setup_link(hw, false);
	/* Closed (or not yet opened): no link for the far end either. */
	if (!netif_running(a->netdev))
		igcb_phy_power_down(hw);
}

/* Program everything a reset cleared, and fill the receive rings. */
static void igcb_configure(struct igcb_adapter *a)
{
	unsigned int i;

	igcb_hw_take_control(&a->hw);
	igcb_set_rx_mode(a->netdev);
	igcb_vlan_mode(a, a->netdev->features);
	igcb_tx_setup_tctl(a);
	igcb_rss_setup(a);
	for (i = 0; i < a->num_queues; i++)
		igcb_tx_ring_configure(&a->qv[i]->tx);
	for (i = 0; i < a->num_queues; i++)
		igcb_rx_ring_configure(&a->qv[i]->rx);
	/* Receive goes on once every ring is programmed: a reset leaves
	 * queue 0 enabled with no ring, and a frame arriving before its ring
	 * is programmed would be written through RDBAL 0.  The buffers are
	 * posted after the FIFO flush, so that what the flush drains cannot
	 * reach memory (as upstream: configure, flush, then allocate).
	 */
	igcb_rx_setup_rctl(a);
	igcb_rx_fifo_flush(a);
	for (i = 0; i < a->num_queues; i++)
		igcb_rx_ring_fill(&a->qv[i]->rx);
}

static void igcb_up(struct igcb_adapter *a)
{
	unsigned int i;

	igcb_configure(a);
	clear_bit(IGCB_DOWN, &a->state);
	for (i = 0; i < a->num_queues; i++)
		napi_enable(&a->qv[i]->napi);
	igcb_irq_configure(a);
	igcb_rd32(&a->hw, IGCB_ICR);	/* drop stale causes */
	igcb_irq_enable(a);
	/* Woken, not just started: what the qdisc queued while the port was
	 * down (ethtool -G/-L, a reset) goes out now, not with the next
	 * packet, which on a router may be seconds away.
	 */
	netif_tx_wake_all_queues(a->netdev);

	/* The watchdog reads the link and turns the carrier on. */
	a->hw.link_check = true;
	mod_timer(&a->watchdog_timer, jiffies + 1);
}

static void igcb_down(struct igcb_adapter *a)
{
	struct net_device *netdev = a->netdev;
	struct igcb_hw *hw = &a->hw;
	unsigned int i;

	/* XDP transmit checks DOWN; the quiesce below is its grace period. */
	set_bit(IGCB_DOWN, &a->state);
	igcb_wr32(hw, IGCB_RCTL, igcb_rd32(hw, IGCB_RCTL) & ~IGCB_RCTL_EN);

	netif_carrier_off(netdev);
	netif_tx_disable(netdev);
	/* No batch may still hold a doorbell of ours once we go on. */
	igcb_doorbell_tx_quiesce(a);

	igcb_wr32(hw, IGCB_TCTL, igcb_rd32(hw, IGCB_TCTL) & ~IGCB_TCTL_EN);
	igcb_wrflush(hw);
	usleep_range(10000, 20000);

	igcb_irq_disable(a);
	for (i = 0; i < a->num_queues; i++)
		napi_disable(&a->qv[i]->napi);

	timer_delete_sync(&a->watchdog_timer);
	cancel_work_sync(&a->watchdog_task);
	timer_delete_sync(&a->watchdog_timer);
	/* A watchdog that looked at DOWN just before it was set may have
	 * turned the carrier on since: the igcb_up() of a restart (MTU,
	 * reset task, PCI error recovery) must find it off, or its watchdog
	 * skips the link-up work (speed, LTR, partner wait).
	 */
	netif_carrier_off(netdev);

	igcb_update_stats(a);
	a->link_speed = 0;
	a->link_duplex = 0;

	if (pci_device_is_present(a->pdev))
		igcb_reset(a);
	for (i = 0; i < a->num_queues; i++) {
		igcb_tx_ring_disable(&a->qv[i]->tx);
		igcb_tx_ring_drop_all(&a->qv[i]->tx);
		igcb_rx_ring_drain(&a->qv[i]->rx);
	}
}

static void igcb_free_rings(struct igcb_adapter *a)
{
	unsigned int i;

	for (i = 0; i < a->num_queues; i++) {
		igcb_tx_ring_free(&a->qv[i]->tx);
		igcb_rx_ring_free(&a->qv[i]->rx);
	}
}

static int igcb_alloc_rings(struct igcb_adapter *a)
{
	unsigned int i;
	int err;

	if (unlikely(igcb_inject(a, &a->faults.ring_alloc))) {
		netdev_err(a->netdev, "cannot allocate the rings: %d (injected)\n",
			   -ENOMEM);
		return -ENOMEM;
	}

	for (i = 0; i < a->num_queues; i++) {
		struct igcb_q_vector *qv = a->qv[i];

		qv->tx.count = a->tx_desc;
		qv->rx.count = a->rx_desc;
		err = igcb_tx_ring_alloc(&qv->tx);
		if (!err)
			err = igcb_rx_ring_alloc(&qv->rx);
		if (err) {
			netdev_err(a->netdev, "cannot allocate queue %u: %d\n",
				   i, err);
			igcb_free_rings(a);
			return err;
		}
	}
	return 0;
}

int igcb_open(struct net_device *netdev)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	int err;

	netif_carrier_off(netdev);
	err = igcb_alloc_rings(a);
	if (err)
		goto err_phy;
	igcb_phy_power_up(&a->hw);

	err = igcb_irq_request(a);
	if (err) {
		netdev_err(netdev, "cannot request interrupts: %d\n", err);
		goto err_rings;
	}
	err = netif_set_real_num_tx_queues(netdev, a->num_queues);
	if (!err)
		err = netif_set_real_num_rx_queues(netdev, a->num_queues);
	if (err)
		goto err_irq;

	igcb_up(a);
	return 0;

err_irq:
	igcb_irq_free(a);
err_rings:
	igcb_free_rings(a);
err_phy:
	/* Not open: no link for the far end (also when a reconfigure found
	 * it up; its retry powers it up again).
	 */
	if (!igcb_hw_gone(&a->hw))
		igcb_phy_power_down(&a->hw);
	return err;
}

int igcb_close(struct net_device *netdev)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	if (!test_bit(IGCB_DOWN, &a->state))
		igcb_down(a);
	igcb_irq_free(a);
	igcb_free_rings(a);
	return 0;
}

/**
 * igcb_reconfigure - change queue count or ring sizes
 * @a: the port, under RTNL
 * @queues: queue pairs wanted
 * @tx_desc: TX ring size
 * @rx_desc: RX ring size
 *
 * A running port is closed and reopened; if it cannot reopen with the new
 * settings it goes back to the old ones, and if it cannot reopen at all it
 * is closed (igcb_close_failed()).
 *
 * Return: 0 or a negative errno.
 */
int igcb_reconfigure(struct igcb_adapter *a, unsigned int queues,
		     u16 tx_desc, u16 rx_desc)
{
	struct net_device *netdev = a->netdev;
	unsigned int old_queues = a->num_queues;
	u16 old_tx = a->tx_desc, old_rx = a->rx_desc;
	bool running = netif_running(netdev);
	int err = 0, open_err;

	if (running)
		igcb_close(netdev);

	if (queues != a->num_queues) {
		igcb_irq_fini(a);
		a->num_queues = queues;
		err = igcb_irq_init(a);
		if (err) {
			a->num_queues = old_queues;
			if (igcb_irq_init(a)) {
				netdev_err(netdev, "no interrupts left: port is unusable\n");
				if (running)
					igcb_close_failed(a, "a channel change",
							  err);
				return err;
			}
		}
		if (!netif_is_rxfh_configured(netdev))
			igcb_rss_default_reta(a);
	}
	if (!err) {
		a->tx_desc = tx_desc;
		a->rx_desc = rx_desc;
	}
	if (!running)
		return err;

	open_err = igcb_open(netdev);
	if (open_err && (a->tx_desc != old_tx || a->rx_desc != old_rx)) {
		/* Refused: the old sizes back, the port running again. */
		a->tx_desc = old_tx;
		a->rx_desc = old_rx;
		if (!igcb_open(netdev))
			return open_err;
	}
	if (open_err) {
		igcb_close_failed(a, "a ring or channel change", open_err);
		return open_err;
	}
	return err;
}

/**
 * igcb_close_failed - close a running port that could not be reopened
 * @a: the port, under RTNL, its rings freed by the failed igcb_open()
 * @what: what was being done, for the message
 * @err: why the open failed
 *
 * Closed, not left "up" without rings: nothing may then restart it behind
 * the user's back (a reset, PCI error recovery, an MTU change).
 */
void igcb_close_failed(struct igcb_adapter *a, const char *what, int err)
{
	struct net_device *netdev = a->netdev;

	netdev_err(netdev, "cannot restart after %s (%d): port closed; bring it up again with ip link set %s up\n",
		   what, err, netdev->name);
	if (netif_running(netdev))
		dev_close(netdev);
}

/* Renegotiate after a change of advertisement or flow control. */
void igcb_restart_link(struct igcb_adapter *a)
{
	a->hw.fc_current = a->hw.fc_requested;
	igcb_phy_setup_link(&a->hw, true);
	if (!netif_running(a->netdev))
		return;
	mod_timer(&a->watchdog_timer, jiffies + 1);
}

static int igcb_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	if (igcb_xdp_on(a) && new_mtu > IGCB_XDP_MAX_MTU) {
		netdev_err(netdev, "MTU %d does not fit one buffer; XDP allows up to %u\n",
			   new_mtu, IGCB_XDP_MAX_MTU);
		return -EINVAL;
	}
	WRITE_ONCE(netdev->mtu, new_mtu);
	a->max_frame = new_mtu + IGCB_FRAME_OVERHEAD;
	/* Not running, or stopped by a PCI error until it recovers: the
	 * next igcb_up() programs it.
	 */
	if (!netif_running(netdev) || test_bit(IGCB_DOWN, &a->state))
		return 0;
	/* Length limit and PAUSE water marks are set from scratch. */
	igcb_down(a);
	igcb_up(a);
	return 0;
}

static void igcb_tx_timeout(struct net_device *netdev, unsigned int txqueue)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	a->tx_timeouts++;
	if (igcb_hw_gone(&a->hw) || igcb_rd32(&a->hw, IGCB_STATUS) == ~0U) {
		igcb_report_gone(a);
		return;
	}
	netdev_err(netdev, "TX queue %u timed out: resetting\n", txqueue);
	schedule_work(&a->reset_task);
}

static netdev_features_t igcb_fix_features(struct net_device *netdev,
					   netdev_features_t features)
{
	/* VLAN insertion and stripping share CTRL.VME. */
	if (features & NETIF_F_HW_VLAN_CTAG_RX)
		features |= NETIF_F_HW_VLAN_CTAG_TX;
	else
		features &= ~NETIF_F_HW_VLAN_CTAG_TX;
	return features;
}

static int igcb_set_features(struct net_device *netdev,
			     netdev_features_t features)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	netdev_features_t changed = netdev->features ^ features;

	if (changed & NETIF_F_HW_VLAN_CTAG_RX)
		igcb_vlan_mode(a, features);
	if (!(changed & NETIF_F_RXALL))
		return 0;
	netdev->features = features;
	/* Not on a port left down: RCTL.EN would receive into no ring. */
	if (netif_running(netdev) && !test_bit(IGCB_DOWN, &a->state))
		igcb_rx_setup_rctl(a);
	return 1;	/* features already updated */
}

static const struct net_device_ops igcb_netdev_ops = {
	.ndo_open		= igcb_open,
	.ndo_stop		= igcb_close,
	.ndo_start_xmit		= igcb_xmit,
	.ndo_set_rx_mode	= igcb_set_rx_mode,
	.ndo_set_mac_address	= igcb_set_mac,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_change_mtu		= igcb_change_mtu,
	.ndo_tx_timeout		= igcb_tx_timeout,
	.ndo_get_stats64	= igcb_get_stats64,
	.ndo_fix_features	= igcb_fix_features,
	.ndo_set_features	= igcb_set_features,
	.ndo_features_check	= igcb_features_check,
	.ndo_bpf		= igcb_bpf,
	.ndo_xdp_xmit		= igcb_xdp_xmit,
};

static const char *igcb_fc_name(enum igcb_fc_mode mode)
{
	switch (mode) {
	case IGCB_FC_FULL:
		return "RX/TX";
	case IGCB_FC_RX:
		return "RX";
	case IGCB_FC_TX:
		return "TX";
	default:
		return "None";
	}
}

static bool igcb_tx_pending(struct igcb_adapter *a)
{
	unsigned int i;

	for (i = 0; i < a->num_queues; i++)
		if (READ_ONCE(a->qv[i]->tx.next_to_clean) !=
		    READ_ONCE(a->qv[i]->tx.next_to_use))
			return true;
	return false;
}

/**
 * igcb_report_gone - the device answers every read with all ones
 * @a: the port
 *
 * Surprise removal, a dead PCIe link or a frozen slot: say so once, with
 * what to do, and detach the port so that the stack stops using it.  PCI
 * error recovery, when the platform has it, attaches it again.
 */
void igcb_report_gone(struct igcb_adapter *a)
{
	if (test_and_set_bit(IGCB_GONE_REPORTED, &a->state))
		return;
	netdev_err(a->netdev, "device at %s stopped answering (registers read all ones): removed, powered off or its PCIe link is down; port detached. Check the card and slot, then rescan (echo 1 >/sys/bus/pci/rescan) or reload igc_batch\n",
		   pci_name(a->pdev));
	netif_device_detach(a->netdev);
}

/**
 * igcb_tx_hang_check - reset the port if the device stopped sending
 * @a: the port, up
 *
 * The stack's transmit timeout only sees a queue it stopped because the
 * ring was full; a queue the device stopped serving while it was not full
 * would stay dead for the flows hashed to it.  igcb_hang.h decides.
 */
static void igcb_tx_hang_check(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	bool can_send;
	unsigned int i;

	can_send = netif_carrier_ok(a->netdev) &&
		   !(igcb_rd32(hw, IGCB_STATUS) & IGCB_STATUS_TXOFF);
	for (i = 0; i < a->num_queues; i++) {
		struct igcb_tx_ring *tx = &a->qv[i]->tx;
		u32 tdh = igcb_rd32(hw, IGCB_TDH(tx->qid));
		u16 tdt = READ_ONCE(tx->tail_written);
		u32 done = (u32)READ_ONCE(tx->cs.packets);

		/* All ones: the device is gone, which the watchdog reports. */
		if (tdh >= tx->count)
			continue;
		if (!igcb_hang_look(&tx->hang, tdh, tdt, done, can_send,
				    jiffies, IGCB_TX_HANG_TIME))
			continue;
		netdev_err(a->netdev, "TX queue %u hung: the device sent nothing for %u s with descriptors to send (TDH %u, TDT %u, next_to_clean %u); resetting the port. If this repeats, collect ethtool -d and ethtool -S output and dmesg\n",
			   tx->qid, IGCB_TX_HANG_TIME / HZ, tdh, tdt,
			   READ_ONCE(tx->next_to_clean));
		spin_lock(&a->stats_lock);
		a->tx_hangs++;
		spin_unlock(&a->stats_lock);
		schedule_work(&a->reset_task);
		return;
	}
}

/* At 1000 Mb/s the link can come up before the partner's receiver is
 * ready, and the first frames sent are then lost: wait for it, as upstream
 * does, up to IGCB_PARTNER_RX_WAIT_MS in 100 ms steps, but not past a close
 * (which waits for this work under RTNL).
 */
static void igcb_wait_partner_rx(struct igcb_adapter *a)
{
	unsigned int ms;
	bool ready;

	for (ms = 0; ; ms += 100) {
		if (igcb_phy_partner_rx_ready(&a->hw, &ready))
			return;		/* the PHY did not answer: carry on */
		if (ready || test_bit(IGCB_DOWN, &a->state))
			return;
		if (ms >= IGCB_PARTNER_RX_WAIT_MS)
			break;
		msleep(100);
	}
	netdev_warn(a->netdev, "link partner's 1000BASE-T receiver not ready after %u ms: carrier on anyway, the first frames may be lost\n",
		    IGCB_PARTNER_RX_WAIT_MS);
}

static void igcb_watchdog_task(struct work_struct *work)
{
	struct igcb_adapter *a = container_of(work, struct igcb_adapter,
					      watchdog_task);
	struct net_device *netdev = a->netdev;
	struct igcb_hw *hw = &a->hw;
	unsigned int i;
	bool link;

	if (test_bit(IGCB_DOWN, &a->state))
		return;

	if (igcb_phy_check_link(hw, &link))
		link = netif_carrier_ok(netdev);
	hw->link_check = false;
	/* Every poll is bounded, but a dead device would only time out. */
	if (igcb_hw_gone(hw)) {
		netif_carrier_off(netdev);
		igcb_report_gone(a);
		return;
	}

	if (link && !netif_carrier_ok(netdev)) {
		igcb_phy_speed_duplex(hw, &a->link_speed, &a->link_duplex);
		igcb_hw_set_ltr(hw, a->link_speed);
		netdev_info(netdev, "NIC Link is Up %u Mbps %s Duplex, Flow Control: %s\n",
			    a->link_speed,
			    a->link_duplex == DUPLEX_FULL ? "Full" : "Half",
			    igcb_fc_name(hw->fc_current));
		if (a->link_speed == SPEED_1000)
			igcb_wait_partner_rx(a);
		if (test_bit(IGCB_DOWN, &a->state))
			return;
		if (unlikely(atomic_read(&a->faults.hold_link_up_ms)))
			igcb_hold_link_up(a);
		netif_carrier_on(netdev);
		igcb_tx_wake_all(a);
	} else if (!link && netif_carrier_ok(netdev)) {
		a->link_speed = 0;
		a->link_duplex = 0;
		netdev_info(netdev, "NIC Link is Down\n");
		netif_carrier_off(netdev);
		/* The MAC stopped sending: flush what it will never send. */
		if (igcb_tx_pending(a))
			schedule_work(&a->reset_task);
	}

	igcb_update_stats(a);
	for (i = 0; i < a->num_queues; i++)
		igcb_doorbell_tx_watch(&a->qv[i]->tx);
	igcb_tx_hang_check(a);
	/* Rings starved by an allocation failure get polled again. */
	igcb_irq_kick(a);

	if (!test_bit(IGCB_DOWN, &a->state))
		mod_timer(&a->watchdog_timer, round_jiffies(jiffies + 2 * HZ));
}

static void igcb_watchdog(struct timer_list *t)
{
	struct igcb_adapter *a = from_timer(a, t, watchdog_timer);

	schedule_work(&a->watchdog_task);
}

static void igcb_reset_task(struct work_struct *work)
{
	struct igcb_adapter *a = container_of(work, struct igcb_adapter,
					      reset_task);

	rtnl_lock();
	if (netif_running(a->netdev) && netif_device_present(a->netdev) &&
	    !test_bit(IGCB_DOWN, &a->state)) {
		a->resets++;
		netdev_warn(a->netdev, "resetting the port\n");
		igcb_down(a);
		igcb_up(a);
	}
	rtnl_unlock();
}

static void igcb_init_features(struct net_device *netdev)
{
	netdev_features_t f;

	f = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_TSO | NETIF_F_TSO6 |
	    NETIF_F_TSO_ECN | NETIF_F_RXCSUM | NETIF_F_RXHASH |
	    NETIF_F_HW_VLAN_CTAG_RX | NETIF_F_HW_VLAN_CTAG_TX;
	netdev->features = f | NETIF_F_HIGHDMA;
	netdev->hw_features = f | NETIF_F_RXALL;
	netdev->vlan_features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_TSO |
				NETIF_F_TSO6 | NETIF_F_TSO_ECN |
				NETIF_F_HIGHDMA;
	netdev->hw_enc_features = NETIF_F_SG | NETIF_F_HW_CSUM;
	netdev->mpls_features = NETIF_F_HW_CSUM;
	netdev->priv_flags |= IFF_UNICAST_FLT;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = IGCB_MAX_MTU;
	netdev->watchdog_timeo = 5 * HZ;
}

static void igcb_read_versions(struct igcb_adapter *a)
{
	u16 nvm = 0;

	if (igcb_nvm_read(&a->hw, IGCB_NVM_DEV_STARTER, 1, &nvm))
		nvm = 0;
	snprintf(a->fw_version, sizeof(a->fw_version), "%x:%x", nvm,
		 igcb_phy_fw_version(&a->hw));
}

static int igcb_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *netdev;
	struct igcb_adapter *a;
	struct igcb_hw *hw;
	int err;

	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(&pdev->dev, "no usable 64-bit DMA\n");
		goto err_dma;
	}
	err = pci_request_mem_regions(pdev, igcb_driver_name);
	if (err)
		goto err_dma;
	igcb_aer_reporting(pdev, true);
	pci_set_master(pdev);

	err = -ENOMEM;
	netdev = alloc_etherdev_mq(sizeof(*a), IGCB_MAX_QUEUES);
	if (!netdev)
		goto err_netdev;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	pci_set_drvdata(pdev, netdev);

	a = netdev_priv(netdev);
	a->netdev = netdev;
	a->pdev = pdev;
	a->dma_sync = igcb_rx_dma_sync(&pdev->dev);
	set_bit(IGCB_DOWN, &a->state);
	spin_lock_init(&a->stats_lock);
	timer_setup(&a->watchdog_timer, igcb_watchdog, 0);
	INIT_WORK(&a->watchdog_task, igcb_watchdog_task);
	INIT_WORK(&a->reset_task, igcb_reset_task);

	hw = &a->hw;
	hw->dev = &pdev->dev;
	hw->device_id = pdev->device;
	mutex_init(&hw->phy_lock);

	a->mac_stats = kcalloc(igcb_mac_stats_n, sizeof(*a->mac_stats),
			       GFP_KERNEL);
	if (!a->mac_stats)
		goto err_mac_stats;

	err = -EIO;
	hw->io = pci_iomap(pdev, 0, 0);
	if (!hw->io)
		goto err_iomap;

	igcb_no_l1_2(a);

	err = igcb_hw_reset(hw);
	if (err)
		goto err_hw;
	err = igcb_hw_init_nvm(hw);
	if (err)
		goto err_hw;
	/* The platform's address first (device tree: boards whose soldered
	 * I225/I226 has a blank NVM), as upstream; else the NVM's.
	 */
	if (eth_platform_get_mac_address(&pdev->dev, hw->perm_addr))
		igcb_hw_read_perm_addr(hw);
	if (is_valid_ether_addr(hw->perm_addr)) {
		eth_hw_addr_set(netdev, hw->perm_addr);
	} else {
		dev_warn(&pdev->dev, "NVM holds no valid MAC address (%pM): using a random one\n",
			 hw->perm_addr);
		eth_hw_addr_random(netdev);
	}
	igcb_wr32(hw, IGCB_RXPBS, IGCB_RXPBS_DEFAULT);
	igcb_wr32(hw, IGCB_TXPBS, IGCB_TXPBS_DEFAULT);

	err = igcb_phy_reset(hw);
	if (!err)
		err = igcb_phy_identify(hw);
	if (err)
		dev_warn(&pdev->dev, "PHY does not answer (%d); link may not come up\n",
			 err);

	/* Defaults that ethtool may change */
	a->tx_desc = IGCB_DEFAULT_TXD;
	a->rx_desc = IGCB_DEFAULT_RXD;
	a->num_queues = min_t(unsigned int, IGCB_MAX_QUEUES,
			      num_online_cpus());
	a->db_flags = igcb_params_db_flags();
	a->itr_adaptive = true;
	a->itr_us = IGCB_ITR_DEFAULT_US;
	a->max_frame = ETH_DATA_LEN + IGCB_FRAME_OVERHEAD;
	hw->advertised = IGCB_ADV_ALL;
	hw->fc_requested = IGCB_FC_FULL;
	hw->fc_autoneg = true;
	netdev_rss_key_fill(a->rss_key, sizeof(a->rss_key));

	err = igcb_qv_alloc(a);
	if (err)
		goto err_hw;
	err = igcb_irq_init(a);
	if (err) {
		dev_err(&pdev->dev, "cannot set up interrupts: %d\n", err);
		goto err_irq;
	}
	igcb_rss_default_reta(a);

	netdev->netdev_ops = &igcb_netdev_ops;
#ifdef IGCB_HAVE_QSTATS
	netdev->stat_ops = &igcb_stat_ops;
#endif
	igcb_set_ethtool_ops(netdev);
	igcb_init_features(netdev);
	igcb_xdp_set_features(netdev);

	igcb_reset(a);
	igcb_read_versions(a);
	igcb_hw_take_control(hw);

	err = netif_set_real_num_tx_queues(netdev, a->num_queues);
	if (!err)
		err = netif_set_real_num_rx_queues(netdev, a->num_queues);
	if (!err)
		err = register_netdev(netdev);
	if (err)
		goto err_register;
	netif_carrier_off(netdev);
	/* PCI error recovery restores this after a slot reset. */
	pci_save_state(pdev);
	igcb_debugfs_add(a);

	netdev_info(netdev, "Intel %s (%04x) at %s, MAC %pM, %u queue pair%s (%s); doorbells: skip-empty %s, batched %s\n",
		    igcb_is_i226(hw->device_id) ? "I226" : "I225",
		    hw->device_id, pci_name(pdev), netdev->dev_addr,
		    a->num_queues, a->num_queues > 1 ? "s" : "",
		    a->irq_mode == IGCB_IRQ_MSIX ? "MSI-X" :
		    a->irq_mode == IGCB_IRQ_MSI ? "MSI" : "INTx",
		    a->db_flags & IGCB_DB_SKIP_EMPTY ? "on" : "off",
		    a->db_flags & IGCB_DB_TX_BATCHED ? "on" : "off");
	return 0;

err_register:
	igcb_hw_release_control(hw);
	igcb_irq_fini(a);
err_irq:
	igcb_qv_free(a);
err_hw:
	pci_iounmap(pdev, hw->io);
err_iomap:
	kfree(a->mac_stats);
err_mac_stats:
	free_netdev(netdev);
err_netdev:
	igcb_aer_reporting(pdev, false);
	pci_release_mem_regions(pdev);
err_dma:
	pci_disable_device(pdev);
	return err;
}

static void igcb_remove(struct pci_dev *pdev)
{
	struct net_device *netdev = pci_get_drvdata(pdev);
	struct igcb_adapter *a = netdev_priv(netdev);

	igcb_debugfs_del(a);
	/* unregister_netdev() closes the port: rings, IRQs, batches. */
	unregister_netdev(netdev);
	cancel_work_sync(&a->reset_task);
	cancel_work_sync(&a->watchdog_task);
	timer_delete_sync(&a->watchdog_timer);

	igcb_irq_fini(a);
	igcb_qv_free(a);
	igcb_hw_release_control(&a->hw);
	pci_iounmap(pdev, a->hw.io);
	igcb_aer_reporting(pdev, false);
	pci_release_mem_regions(pdev);
	kfree(a->mac_stats);
	mutex_destroy(&a->hw.phy_lock);
	free_netdev(netdev);
	/* a failed PCI error recovery left it disabled already */
	if (pci_is_enabled(pdev))
		pci_disable_device(pdev);
}

/* Stop the port for system sleep or shutdown: detached, closed (no DMA,
 * interrupts freed, rings gone), the firmware told the driver left.  What
 * the user configured (queues, ring sizes, MTU, RSS, XDP program, link
 * advertisement, flow control, doorbell knobs) lives in the adapter and
 * is programmed again by igcb_open().
 */
static void igcb_stop_port(struct igcb_adapter *a)
{
	struct net_device *netdev = a->netdev;

	rtnl_lock();
	netif_device_detach(netdev);
	if (netif_running(netdev))
		igcb_close(netdev);
	/* No wake-on-LAN: nothing needs the link until we are back. */
	if (!igcb_hw_gone(&a->hw))
		igcb_phy_power_down(&a->hw);
	igcb_hw_release_control(&a->hw);
	rtnl_unlock();
	/* After RTNL: the reset task takes it, and sees the port detached. */
	cancel_work_sync(&a->reset_task);
}

static int igcb_suspend(struct device *dev)
{
	struct igcb_adapter *a = netdev_priv(dev_get_drvdata(dev));

	igcb_stop_port(a);
	return 0;
}

static int igcb_resume(struct device *dev)
{
	struct igcb_adapter *a = netdev_priv(dev_get_drvdata(dev));
	struct net_device *netdev = a->netdev;
	int err;

	pci_set_master(a->pdev);
	igcb_no_l1_2(a);
	rtnl_lock();
	/* Power may have been lost: reset MAC, filters and link setup. */
	clear_bit(IGCB_GONE_REPORTED, &a->state);
	igcb_reset(a);
	igcb_hw_take_control(&a->hw);
	err = igcb_hw_gone(&a->hw) ? -ENODEV : 0;
	if (!err && netif_running(netdev))
		err = igcb_open(netdev);
	/* Closed first: attaching a running port wakes its queues. */
	if (err)
		igcb_close_failed(a, "resume", err);
	netif_device_attach(netdev);
	rtnl_unlock();
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(igcb_pm_ops, igcb_suspend, igcb_resume);

/* Reboot, power off or kexec: no DMA may outlive us. */
static void igcb_shutdown(struct pci_dev *pdev)
{
	struct igcb_adapter *a = netdev_priv(pci_get_drvdata(pdev));

	igcb_stop_port(a);
	pci_clear_master(pdev);
	netdev_dbg(a->netdev, "shut down: DMA stopped\n");
}

/* PCI error recovery (AER): stop the port without trusting the device,
 * let the PCI core reset the slot, program everything again, restart.
 */
static pci_ers_result_t igcb_io_error_detected(struct pci_dev *pdev,
					       pci_channel_state_t state)
{
	struct igcb_adapter *a = netdev_priv(pci_get_drvdata(pdev));
	struct net_device *netdev = a->netdev;

	netdev_err(netdev, "PCI error (channel state %d): stopping the port for recovery\n",
		   state);
	rtnl_lock();
	netif_device_detach(netdev);
	if (state == pci_channel_io_perm_failure) {
		rtnl_unlock();
		return PCI_ERS_RESULT_DISCONNECT;
	}
	/* Rings and interrupts stay allocated for igcb_io_resume(). */
	if (netif_running(netdev) && !test_bit(IGCB_DOWN, &a->state))
		igcb_down(a);
	rtnl_unlock();
	pci_disable_device(pdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t igcb_io_slot_reset(struct pci_dev *pdev)
{
	struct igcb_adapter *a = netdev_priv(pci_get_drvdata(pdev));

	if (pci_enable_device_mem(pdev)) {
		dev_err(&pdev->dev, "cannot enable the device after a slot reset; it stays off: reload igc_batch or replace the card\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_set_master(pdev);
	pci_restore_state(pdev);
	pci_save_state(pdev);
	igcb_no_l1_2(a);

	rtnl_lock();
	/* The reads that saw all ones are history after the slot reset. */
	WRITE_ONCE(a->hw.removed, false);
	clear_bit(IGCB_GONE_REPORTED, &a->state);
	igcb_reset(a);
	igcb_hw_take_control(&a->hw);
	rtnl_unlock();
	if (igcb_hw_gone(&a->hw)) {
		dev_err(&pdev->dev, "device still reads all ones after a slot reset; it stays off: reload igc_batch or replace the card\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	return PCI_ERS_RESULT_RECOVERED;
}

static void igcb_io_resume(struct pci_dev *pdev)
{
	struct igcb_adapter *a = netdev_priv(pci_get_drvdata(pdev));
	struct net_device *netdev = a->netdev;

	rtnl_lock();
	if (netif_running(netdev))
		igcb_up(a);
	netif_device_attach(netdev);
	rtnl_unlock();
	netdev_info(netdev, "recovered from a PCI error\n");
}

static const struct pci_error_handlers igcb_err_handlers = {
	.error_detected	= igcb_io_error_detected,
	.slot_reset	= igcb_io_slot_reset,
	.resume		= igcb_io_resume,
};

static struct pci_driver igcb_driver = {
	.name		= IGCB_DRV_NAME,
	.id_table	= igcb_pci_tbl,
	.probe		= igcb_probe,
	.remove		= igcb_remove,
	.shutdown	= igcb_shutdown,
	.err_handler	= &igcb_err_handlers,
	.driver.pm	= pm_sleep_ptr(&igcb_pm_ops),
};

static int __init igcb_init_module(void)
{
	int err;

	igcb_debugfs_init();
	err = pci_register_driver(&igcb_driver);
	if (err)
		igcb_debugfs_exit();
	return err;
}
module_init(igcb_init_module);

static void __exit igcb_exit_module(void)
{
	pci_unregister_driver(&igcb_driver);
	igcb_debugfs_exit();
}
module_exit(igcb_exit_module);

MODULE_DESCRIPTION("Intel I225/I226 Ethernet for routers, with skip-empty and NAPI-batched doorbells");
MODULE_LICENSE("GPL");
