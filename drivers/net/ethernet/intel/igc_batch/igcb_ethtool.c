// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch ethtool: -i -S -g/-G -l/-L -a/-A -c/-C -x/-X, -d (register
 * dump), -t (self-test), link settings, and the doorbell policy's private
 * flags (db_skip_empty, tx_db_batched).
 */

#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/linkmode.h>
#include <linux/rtnetlink.h>

#include "igcb.h"

static const char igcb_priv_flags[IGCB_DB_FLAGS_N][ETH_GSTRING_LEN] = {
	"db_skip_empty",	/* IGCB_DB_SKIP_EMPTY */
	"tx_db_batched",	/* IGCB_DB_TX_BATCHED */
};

static const char * const igcb_global_stats[] = {
	"tx_timeout_count",
	"reset_count",
	"tx_hang_count",
};

/* Per TX queue, printed as tx_q<N>_<name>, in this order. */
static const char * const igcb_txq_stats[] = {
	"packets", "bytes", "restarts", "busy", "dropped",
	"tail_writes", "db_held", "db_xmit_more", "db_batch_rings", "db_skipped_empty",
	"db_rescued", "xdp_xmit", "xdp_xmit_errors",
};

/* Per RX queue, printed as rx_q<N>_<name>, in this order. */
static const char * const igcb_rxq_stats[] = {
	"packets", "bytes", "hw_drops", "dropped", "csum_err",
	"alloc_failed", "tail_writes", "xdp_drop", "xdp_tx",
	"xdp_redirect", "page_new", "page_reused",
};

/* ethtool -d: a fixed layout, the same whatever the queue count, so that
 * dumps compare.  Registers a read changes are left out: those that clear
 * on read (ICR, EICR, statistics) and SWSM, whose read takes the firmware
 * semaphore (SMBI) and would leave it held.  Version word: layout 2 in
 * bits 31:16, the PCI device ID in bits 15:0.
 */
#define IGCB_REGS_LAYOUT	2

static const u32 igcb_regs_global[] = {
	IGCB_CTRL, IGCB_STATUS, IGCB_CTRL_EXT, IGCB_EECD, IGCB_MDIC,
	IGCB_RCTL, IGCB_TCTL, IGCB_RXPBS, IGCB_TXPBS, IGCB_FCRTL, IGCB_FCRTH,
	IGCB_IMS, IGCB_IAM, IGCB_GPIE, IGCB_EIMS, IGCB_EIAC, IGCB_EIAM,
	IGCB_IVAR(0), IGCB_IVAR(1), IGCB_IVAR_MISC,
	IGCB_RXCSUM, IGCB_RLPML, IGCB_RFCTL, IGCB_MRQC, IGCB_MANC,
	IGCB_SW_FW_SYNC, IGCB_PHPM, IGCB_EEER, IGCB_IPCNFG,
};

/* Per queue 0..IGCB_MAX_QUEUES-1, queue after queue: queue 0's offsets
 * plus the queue stride.
 */
static const u32 igcb_regs_queue0[] = {
	IGCB_RDBAL(0), IGCB_RDBAH(0), IGCB_RDLEN(0), IGCB_SRRCTL(0),
	IGCB_RDH(0), IGCB_RDT(0), IGCB_RXDCTL(0),
	IGCB_TDBAL(0), IGCB_TDBAH(0), IGCB_TDLEN(0), IGCB_TDH(0),
	IGCB_TDT(0), IGCB_TXDCTL(0),
};

#define IGCB_REGS_QUEUE_STRIDE	(IGCB_RDBAL(1) - IGCB_RDBAL(0))
#define IGCB_REGS_EITRS		(IGCB_MAX_QUEUES + 1)
#define IGCB_REGS_N	(ARRAY_SIZE(igcb_regs_global) +			\
			 IGCB_MAX_QUEUES * ARRAY_SIZE(igcb_regs_queue0) +	\
			 IGCB_REGS_EITRS)

static_assert(IGCB_TDBAL(1) - IGCB_TDBAL(0) == IGCB_REGS_QUEUE_STRIDE);

static int igcb_get_regs_len(struct net_device *netdev)
{
	return IGCB_REGS_N * sizeof(u32);
}

static void igcb_get_regs(struct net_device *netdev,
			  struct ethtool_regs *regs, void *p)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	struct igcb_hw *hw = &a->hw;
	unsigned int i, q;
	u32 *out = p;

	regs->version = IGCB_REGS_LAYOUT << 16 | hw->device_id;
	for (i = 0; i < ARRAY_SIZE(igcb_regs_global); i++)
		*out++ = igcb_rd32(hw, igcb_regs_global[i]);
	for (q = 0; q < IGCB_MAX_QUEUES; q++)
		for (i = 0; i < ARRAY_SIZE(igcb_regs_queue0); i++)
			*out++ = igcb_rd32(hw, igcb_regs_queue0[i] +
					   q * IGCB_REGS_QUEUE_STRIDE);
	for (i = 0; i < IGCB_REGS_EITRS; i++)
		*out++ = igcb_rd32(hw, IGCB_EITR(i));
}

/* ethtool -t: the order of the results */
enum {
	IGCB_TEST_REG,
	IGCB_TEST_IRQ,
	IGCB_TEST_LINK,
	IGCB_TEST_N
};

static const char igcb_test_strings[IGCB_TEST_N][ETH_GSTRING_LEN] = {
	"Register test  (offline)",
	"Interrupt test (offline)",
	"Link test   (on/offline)",
};

/* Read/write registers the test may scribble on with the port closed:
 * ring bases and flow control timers, all programmed again at open.
 */
static const struct {
	u32 reg;
	u32 mask;	/* the bits that must read back */
} igcb_test_regs[] = {
	{ IGCB_RDBAL(0), 0xFFFFFF80 }, { IGCB_RDBAH(0), 0xFFFFFFFF },
	{ IGCB_TDBAL(0), 0xFFFFFF80 }, { IGCB_TDBAH(0), 0xFFFFFFFF },
	{ IGCB_RDBAL(3), 0xFFFFFF80 }, { IGCB_RDBAH(3), 0xFFFFFFFF },
	{ IGCB_TDBAL(3), 0xFFFFFF80 }, { IGCB_TDBAH(3), 0xFFFFFFFF },
	{ IGCB_FCTTV, 0x0000FFFF },
};

static const u32 igcb_test_patterns[] = {
	0x5A5A5A5A, 0xA5A5A5A5, 0x00000000, 0xFFFFFFFF,
};

static int igcb_reg_test(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(igcb_test_regs); i++) {
		u32 reg = igcb_test_regs[i].reg, mask = igcb_test_regs[i].mask;

		for (j = 0; j < ARRAY_SIZE(igcb_test_patterns); j++) {
			u32 want = igcb_test_patterns[j] & mask;
			u32 got;

			igcb_wr32(hw, reg, want);
			got = igcb_rd32(hw, reg) & mask;
			if (got != want) {
				netdev_err(a->netdev, "register test: %#07x reads %#010x after writing %#010x; the device or its bus is faulty\n",
					   reg, got, want);
				return -EIO;
			}
			igcb_wr32(hw, reg, 0);
		}
	}
	return 0;
}

/* Link from the PHY, waiting up to @secs for auto-negotiation. */
static int igcb_link_test(struct igcb_adapter *a, unsigned int secs)
{
	unsigned int i;
	bool up = false;

	for (i = 0; i <= secs * 10; i++) {
		if (!igcb_phy_check_link(&a->hw, &up) && up)
			return 0;
		if (i < secs * 10)
			msleep(100);
	}
	netdev_err(a->netdev, "link test: no link after %u s; check the cable and the link partner\n",
		   secs);
	return -ENOLINK;
}

static void igcb_self_test(struct net_device *netdev,
			   struct ethtool_test *test, u64 *data)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	bool running = netif_running(netdev);
	unsigned int i;
	int err;

	memset(data, 0, IGCB_TEST_N * sizeof(*data));
	if (test->flags & ETH_TEST_FL_OFFLINE) {
		/* The port stops: nothing else may use the registers. */
		if (running)
			igcb_close(netdev);
		data[IGCB_TEST_REG] = !!igcb_reg_test(a);
		igcb_reset(a);
		data[IGCB_TEST_IRQ] = !!igcb_irq_selftest(a);
		igcb_reset(a);
		if (running) {
			err = igcb_open(netdev);
			if (err) {
				netdev_err(netdev, "cannot reopen after the self-test (%d): bring the port up again with ip link set %s up\n",
					   err, netdev->name);
				dev_close(netdev);
			}
		}
		/* The reset renegotiates only a changed advertisement. */
		data[IGCB_TEST_LINK] = !!igcb_link_test(a, 5);
	} else {
		data[IGCB_TEST_LINK] = !!igcb_link_test(a, 0);
	}
	for (i = 0; i < IGCB_TEST_N; i++)
		if (data[i])
			test->flags |= ETH_TEST_FL_FAILED;
}

static void igcb_get_drvinfo(struct net_device *netdev,
			     struct ethtool_drvinfo *info)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	strscpy(info->driver, igcb_driver_name, sizeof(info->driver));
	strscpy(info->fw_version, a->fw_version, sizeof(info->fw_version));
	strscpy(info->bus_info, pci_name(a->pdev), sizeof(info->bus_info));
}

static int igcb_get_sset_count(struct net_device *netdev, int sset)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	switch (sset) {
	case ETH_SS_STATS:
		return igcb_mac_stats_n + ARRAY_SIZE(igcb_global_stats) +
		       a->num_queues * (ARRAY_SIZE(igcb_txq_stats) +
					ARRAY_SIZE(igcb_rxq_stats));
	case ETH_SS_PRIV_FLAGS:
		return IGCB_DB_FLAGS_N;
	case ETH_SS_TEST:
		return IGCB_TEST_N;
	default:
		return -EOPNOTSUPP;
	}
}

static void igcb_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	unsigned int i, q;

	switch (sset) {
	case ETH_SS_STATS:
		for (i = 0; i < igcb_mac_stats_n; i++)
			ethtool_sprintf(&data, "%s", igcb_mac_stats[i].name);
		for (i = 0; i < ARRAY_SIZE(igcb_global_stats); i++)
			ethtool_sprintf(&data, "%s", igcb_global_stats[i]);
		for (q = 0; q < a->num_queues; q++)
			for (i = 0; i < ARRAY_SIZE(igcb_txq_stats); i++)
				ethtool_sprintf(&data, "tx_q%u_%s", q,
						igcb_txq_stats[i]);
		for (q = 0; q < a->num_queues; q++)
			for (i = 0; i < ARRAY_SIZE(igcb_rxq_stats); i++)
				ethtool_sprintf(&data, "rx_q%u_%s", q,
						igcb_rxq_stats[i]);
		break;
	case ETH_SS_PRIV_FLAGS:
		memcpy(data, igcb_priv_flags, sizeof(igcb_priv_flags));
		break;
	case ETH_SS_TEST:
		memcpy(data, igcb_test_strings, sizeof(igcb_test_strings));
		break;
	}
}

static u64 *igcb_txq_values(struct igcb_tx_ring *r, u64 *p)
{
	struct igcb_tx_clean_stats cs;
	struct igcb_tx_db_stats db;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&r->clean_sync);
		cs = r->cs;
	} while (u64_stats_fetch_retry(&r->clean_sync, start));
	do {
		start = u64_stats_fetch_begin(&r->db_sync);
		db = r->db;
	} while (u64_stats_fetch_retry(&r->db_sync, start));

	*p++ = cs.packets;
	*p++ = cs.bytes;
	*p++ = db.restarts;
	*p++ = db.busy;
	*p++ = db.dropped;
	*p++ = db.tail_writes;
	*p++ = db.held;
	*p++ = db.xmit_more;
	*p++ = db.batch_rings;
	*p++ = db.skipped_empty;
	*p++ = db.rescued;
	*p++ = db.xdp_xmit;
	*p++ = db.xdp_xmit_err;
	return p;
}

static u64 *igcb_rxq_values(struct igcb_rx_ring *r, u64 hw_drops, u64 *p)
{
	struct igcb_rx_stats st;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&r->sync);
		st = r->st;
	} while (u64_stats_fetch_retry(&r->sync, start));

	*p++ = st.packets;
	*p++ = st.bytes;
	*p++ = hw_drops;
	*p++ = st.dropped;
	*p++ = st.csum_err;
	*p++ = st.alloc_failed;
	*p++ = st.tail_writes;
	*p++ = st.xdp_drop;
	*p++ = st.xdp_tx;
	*p++ = st.xdp_redirect;
	*p++ = st.page_new;
	*p++ = st.page_reused;
	return p;
}

static void igcb_get_ethtool_stats(struct net_device *netdev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	u64 hw_drops[IGCB_MAX_QUEUES];
	unsigned int i, q;

	if (netif_device_present(netdev))
		igcb_update_stats(a);
	spin_lock(&a->stats_lock);
	for (i = 0; i < igcb_mac_stats_n; i++)
		*data++ = a->mac_stats[i];
	memcpy(hw_drops, a->rx_hw_drops, sizeof(hw_drops));
	*data++ = a->tx_timeouts;
	*data++ = a->resets;
	*data++ = a->tx_hangs;
	spin_unlock(&a->stats_lock);

	for (q = 0; q < a->num_queues; q++)
		data = igcb_txq_values(&a->qv[q]->tx, data);
	for (q = 0; q < a->num_queues; q++)
		data = igcb_rxq_values(&a->qv[q]->rx, hw_drops[q], data);
}

static u32 igcb_get_priv_flags(struct net_device *netdev)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	return READ_ONCE(a->db_flags);
}

/* Both flags take effect at once on a running port: the transmit paths
 * read them on every packet, and a batch that held a doorbell before
 * tx_db_batched went off still rings it when it ends.
 */
static int igcb_set_priv_flags(struct net_device *netdev, u32 flags)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	if (flags & ~(IGCB_DB_SKIP_EMPTY | IGCB_DB_TX_BATCHED))
		return -EINVAL;
	WRITE_ONCE(a->db_flags, flags);
	return 0;
}

static void igcb_get_ringparam(struct net_device *netdev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	ring->rx_max_pending = IGCB_MAX_DESC;
	ring->tx_max_pending = IGCB_MAX_DESC;
	ring->rx_pending = a->rx_desc;
	ring->tx_pending = a->tx_desc;
}

static int igcb_set_ringparam(struct net_device *netdev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	u32 rx = ring->rx_pending, tx = ring->tx_pending;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "no mini or jumbo rings");
		return -EINVAL;
	}
	if (rx < IGCB_MIN_DESC || tx < IGCB_MIN_DESC ||
	    rx > IGCB_MAX_DESC || tx > IGCB_MAX_DESC) {
		NL_SET_ERR_MSG_MOD(extack, "ring sizes go from 64 to 4096");
		return -EINVAL;
	}
	/* Rings are a multiple of 128 bytes: 8 descriptors. */
	rx = ALIGN(rx, IGCB_DESC_STEP);
	tx = ALIGN(tx, IGCB_DESC_STEP);
	if (rx == a->rx_desc && tx == a->tx_desc)
		return 0;
	return igcb_reconfigure(a, a->num_queues, tx, rx);
}

static unsigned int igcb_max_queues(const struct igcb_adapter *a)
{
	return a->irq_mode == IGCB_IRQ_MSIX ? IGCB_MAX_QUEUES : 1;
}

static void igcb_get_channels(struct net_device *netdev,
			      struct ethtool_channels *ch)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	bool msix = a->irq_mode == IGCB_IRQ_MSIX;

	ch->max_combined = igcb_max_queues(a);
	ch->max_other = msix;
	ch->combined_count = a->num_queues;
	ch->other_count = msix;
}

static int igcb_set_channels(struct net_device *netdev,
			     struct ethtool_channels *ch)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	unsigned int n = ch->combined_count;
	bool msix = a->irq_mode == IGCB_IRQ_MSIX;

	if (ch->rx_count || ch->tx_count) {
		netdev_err(netdev, "queues come in pairs: set them with 'ethtool -L %s combined N'\n",
			   netdev->name);
		return -EINVAL;
	}
	if (ch->other_count != msix) {
		netdev_err(netdev, "the link interrupt is not a queue: 'other' stays %u\n",
			   msix);
		return -EINVAL;
	}
	if (!n || n > igcb_max_queues(a)) {
		netdev_err(netdev, "combined must be 1 to %u, not %u\n",
			   igcb_max_queues(a), n);
		return -EINVAL;
	}
	if (n == a->num_queues)
		return 0;
	return igcb_reconfigure(a, n, a->tx_desc, a->rx_desc);
}

static void igcb_get_pauseparam(struct net_device *netdev,
				struct ethtool_pauseparam *pause)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	enum igcb_fc_mode m = a->hw.fc_requested;

	pause->autoneg = a->hw.fc_autoneg;
	pause->rx_pause = m == IGCB_FC_RX || m == IGCB_FC_FULL;
	pause->tx_pause = m == IGCB_FC_TX || m == IGCB_FC_FULL;
}

/* PAUSE frames sent and received, XON and XOFF together (the MAC's
 * read-to-clear counters, as folded by the watchdog).  Found missing by
 * tools/testing/selftests/drivers/net/stats.py check_pause.
 */
static void igcb_get_pause_stats(struct net_device *netdev,
				 struct ethtool_pause_stats *s)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	if (netif_device_present(netdev))
		igcb_update_stats(a);
	spin_lock(&a->stats_lock);
	s->tx_pause_frames = igcb_mac_stat(a, IGCB_XONTXC) +
			     igcb_mac_stat(a, IGCB_XOFFTXC);
	s->rx_pause_frames = igcb_mac_stat(a, IGCB_XONRXC) +
			     igcb_mac_stat(a, IGCB_XOFFRXC);
	spin_unlock(&a->stats_lock);
}

/* The MAC's size bins, PRC64..PRC1522 and PTC64..PTC1522, one register
 * apart; lengths count the FCS, as RMON's do.  The last bin takes every
 * frame from 1024 bytes up to the largest the port accepts.
 */
#define IGCB_RMON_BINS	6

static const struct ethtool_rmon_hist_range igcb_rmon_ranges[] = {
	{    0,   64 },
	{   65,  127 },
	{  128,  255 },
	{  256,  511 },
	{  512, 1023 },
	{ 1024, IGCB_MAX_JUMBO_FRAME },
	{}
};

/* ethtool -S DEV --groups rmon; tools/testing/selftests/drivers/net/hw/
 * ethtool_rmon.sh sends frames of each bin's size both ways.
 */
static void igcb_get_rmon_stats(struct net_device *netdev,
				struct ethtool_rmon_stats *s,
				const struct ethtool_rmon_hist_range **ranges)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	unsigned int i;

	if (netif_device_present(netdev))
		igcb_update_stats(a);
	spin_lock(&a->stats_lock);
	s->undersize_pkts = igcb_mac_stat(a, IGCB_RUC);
	s->oversize_pkts = igcb_mac_stat(a, IGCB_ROC);
	s->fragments = igcb_mac_stat(a, IGCB_RFC);
	s->jabbers = igcb_mac_stat(a, IGCB_RJC);
	for (i = 0; i < IGCB_RMON_BINS; i++) {
		s->hist[i] = igcb_mac_stat(a, IGCB_PRC64 + 4 * i);
		s->hist_tx[i] = igcb_mac_stat(a, IGCB_PTC64 + 4 * i);
	}
	spin_unlock(&a->stats_lock);
	*ranges = igcb_rmon_ranges;
}

static int igcb_set_pauseparam(struct net_device *netdev,
			       struct ethtool_pauseparam *pause)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	struct igcb_hw *hw = &a->hw;

	if (pause->rx_pause && pause->tx_pause)
		hw->fc_requested = IGCB_FC_FULL;
	else if (pause->rx_pause)
		hw->fc_requested = IGCB_FC_RX;
	else if (pause->tx_pause)
		hw->fc_requested = IGCB_FC_TX;
	else
		hw->fc_requested = IGCB_FC_NONE;
	hw->fc_autoneg = pause->autoneg;

	if (hw->fc_autoneg) {
		/* The advertisement changes: negotiate again. */
		igcb_restart_link(a);
	} else {
		hw->fc_current = hw->fc_requested;
		igcb_hw_apply_fc(hw);
	}
	return 0;
}

static int igcb_get_coalesce(struct net_device *netdev,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	ec->use_adaptive_rx_coalesce = a->itr_adaptive;
	ec->rx_coalesce_usecs = a->itr_us;
	return 0;
}

static int igcb_set_coalesce(struct net_device *netdev,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	if (ec->rx_coalesce_usecs > IGCB_ITR_MAX_US) {
		NL_SET_ERR_MSG_MOD(extack, "rx-usecs goes up to 8191");
		return -EINVAL;
	}
	a->itr_adaptive = ec->use_adaptive_rx_coalesce;
	a->itr_us = ec->rx_coalesce_usecs;
	igcb_itr_apply_all(a);
	return 0;
}

/* Link mode bits, by number: enum ethtool_link_mode_bit_indices of
 * <uapi/linux/ethtool.h> is user ABI and never renumbered, and spelling
 * the names (10baseT_Half...) here trips checkpatch's CamelCase check.
 */
enum {
	IGCB_LM_10_HALF = 0,		/* 10baseT_Half */
	IGCB_LM_10_FULL = 1,		/* 10baseT_Full */
	IGCB_LM_100_HALF = 2,		/* 100baseT_Half */
	IGCB_LM_100_FULL = 3,		/* 100baseT_Full */
	IGCB_LM_1000_FULL = 5,		/* 1000baseT_Full */
	IGCB_LM_AUTONEG = 6,		/* Autoneg */
	IGCB_LM_TP = 7,			/* TP */
	IGCB_LM_PAUSE = 13,		/* Pause */
	IGCB_LM_ASYM_PAUSE = 14,	/* Asym_Pause */
	IGCB_LM_2500_FULL = 47,		/* 2500baseT_Full */
};

static const struct {
	u16 adv;
	u8 bit;
} igcb_speeds[] = {
	{ IGCB_ADV_10_HALF, IGCB_LM_10_HALF },
	{ IGCB_ADV_10_FULL, IGCB_LM_10_FULL },
	{ IGCB_ADV_100_HALF, IGCB_LM_100_HALF },
	{ IGCB_ADV_100_FULL, IGCB_LM_100_FULL },
	{ IGCB_ADV_1000_FULL, IGCB_LM_1000_FULL },
	{ IGCB_ADV_2500_FULL, IGCB_LM_2500_FULL },
};

static int igcb_get_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *cmd)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	unsigned long *supported = cmd->link_modes.supported;
	unsigned long *advertising = cmd->link_modes.advertising;
	struct igcb_hw *hw = &a->hw;
	unsigned int i;

	linkmode_zero(supported);
	linkmode_zero(advertising);
	for (i = 0; i < ARRAY_SIZE(igcb_speeds); i++) {
		linkmode_set_bit(igcb_speeds[i].bit, supported);
		if (hw->advertised & igcb_speeds[i].adv)
			linkmode_set_bit(igcb_speeds[i].bit, advertising);
	}
	linkmode_set_bit(IGCB_LM_AUTONEG, supported);
	linkmode_set_bit(IGCB_LM_TP, supported);
	linkmode_set_bit(IGCB_LM_PAUSE, supported);
	linkmode_set_bit(IGCB_LM_ASYM_PAUSE, supported);
	linkmode_set_bit(IGCB_LM_AUTONEG, advertising);
	linkmode_set_bit(IGCB_LM_TP, advertising);
	/* What the PHY advertises for the flow control asked for */
	if (hw->fc_requested == IGCB_FC_FULL || hw->fc_requested == IGCB_FC_RX)
		linkmode_set_bit(IGCB_LM_PAUSE, advertising);
	if (hw->fc_requested == IGCB_FC_RX || hw->fc_requested == IGCB_FC_TX)
		linkmode_set_bit(IGCB_LM_ASYM_PAUSE, advertising);

	cmd->base.port = PORT_TP;
	cmd->base.phy_address = IGCB_PHY_ADDR;
	cmd->base.autoneg = AUTONEG_ENABLE;
	cmd->base.eth_tp_mdix = ETH_TP_MDI_INVALID;
	cmd->base.eth_tp_mdix_ctrl = ETH_TP_MDI_AUTO;
	if (netif_carrier_ok(netdev)) {
		cmd->base.speed = a->link_speed;
		cmd->base.duplex = a->link_duplex;
	} else {
		cmd->base.speed = SPEED_UNKNOWN;
		cmd->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

static int igcb_set_link_ksettings(struct net_device *netdev,
				   const struct ethtool_link_ksettings *cmd)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	unsigned int i;
	u16 adv = 0;

	/* The I225/I226 PHY only links through auto-negotiation. */
	if (cmd->base.autoneg != AUTONEG_ENABLE) {
		netdev_err(netdev, "forced speed is not supported: advertise the one speed instead\n");
		return -EOPNOTSUPP;
	}
	if (cmd->base.eth_tp_mdix_ctrl &&
	    cmd->base.eth_tp_mdix_ctrl != ETH_TP_MDI_AUTO)
		return -EOPNOTSUPP;

	for (i = 0; i < ARRAY_SIZE(igcb_speeds); i++)
		if (linkmode_test_bit(igcb_speeds[i].bit,
				      cmd->link_modes.advertising))
			adv |= igcb_speeds[i].adv;
	if (!adv)
		return -EINVAL;

	a->hw.advertised = adv;
	igcb_restart_link(a);
	return 0;
}

static int igcb_nway_reset(struct net_device *netdev)
{
	igcb_restart_link(netdev_priv(netdev));
	return 0;
}

#define IGCB_RXH_IP	(RXH_IP_SRC | RXH_IP_DST)
#define IGCB_RXH_L4	(IGCB_RXH_IP | RXH_L4_B_0_1 | RXH_L4_B_2_3)

/* The fields RSS hashes: TCP on ports always, UDP on ports when asked
 * (ethtool -N DEV rx-flow-hash udp4 sdfn), everything else on addresses.
 */
static void igcb_get_rxfh_fields(struct igcb_adapter *a,
				 struct ethtool_rxnfc *cmd)
{
	switch (cmd->flow_type) {
	case TCP_V4_FLOW:
	case TCP_V6_FLOW:
		cmd->data = IGCB_RXH_L4;
		break;
	case UDP_V4_FLOW:
		cmd->data = a->rss_udp4_ports ? IGCB_RXH_L4 : IGCB_RXH_IP;
		break;
	case UDP_V6_FLOW:
		cmd->data = a->rss_udp6_ports ? IGCB_RXH_L4 : IGCB_RXH_IP;
		break;
	case IPV4_FLOW:
	case SCTP_V4_FLOW:
	case AH_ESP_V4_FLOW:
	case AH_V4_FLOW:
	case ESP_V4_FLOW:
	case IPV6_FLOW:
	case SCTP_V6_FLOW:
	case AH_ESP_V6_FLOW:
	case AH_V6_FLOW:
	case ESP_V6_FLOW:
		cmd->data = IGCB_RXH_IP;
		break;
	default:
		cmd->data = 0;
		break;
	}
}

/* Only UDP's ports can be switched; the rest is what the MAC hashes. */
static int igcb_set_rxfh_fields(struct igcb_adapter *a,
				const struct ethtool_rxnfc *cmd)
{
	bool *ports;

	switch (cmd->flow_type) {
	case UDP_V4_FLOW:
		ports = &a->rss_udp4_ports;
		break;
	case UDP_V6_FLOW:
		ports = &a->rss_udp6_ports;
		break;
	default:
		ports = NULL;
		break;
	}
	if (!ports || (cmd->data != IGCB_RXH_IP && cmd->data != IGCB_RXH_L4)) {
		struct ethtool_rxnfc now = { .flow_type = cmd->flow_type };

		igcb_get_rxfh_fields(a, &now);
		if (cmd->data == now.data)
			return 0;
		netdev_err(a->netdev, "RSS hashes addresses for this flow type, and addresses and ports for TCP; only UDP can switch between 'sd' and 'sdfn'\n");
		return -EINVAL;
	}
	*ports = cmd->data == IGCB_RXH_L4;
	if (netif_running(a->netdev))
		igcb_rss_setup(a);
	return 0;
}

static int igcb_get_rxnfc(struct net_device *netdev,
			  struct ethtool_rxnfc *cmd, u32 *rules)
{
	struct igcb_adapter *a = netdev_priv(netdev);

	switch (cmd->cmd) {
	case ETHTOOL_GRXRINGS:
		cmd->data = a->num_queues;
		return 0;
	case ETHTOOL_GRXFH:
		igcb_get_rxfh_fields(a, cmd);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int igcb_set_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *cmd)
{
	if (cmd->cmd != ETHTOOL_SRXFH)
		return -EOPNOTSUPP;
	return igcb_set_rxfh_fields(netdev_priv(netdev), cmd);
}

static u32 igcb_get_rxfh_indir_size(struct net_device *netdev)
{
	return IGCB_RETA_SIZE;
}

static u32 igcb_get_rxfh_key_size(struct net_device *netdev)
{
	return IGCB_RSS_KEY_SIZE;
}

static void igcb_rss_get(struct igcb_adapter *a, u32 *indir, u8 *key)
{
	unsigned int i;

	if (indir)
		for (i = 0; i < IGCB_RETA_SIZE; i++)
			indir[i] = a->reta[i];
	if (key)
		memcpy(key, a->rss_key, IGCB_RSS_KEY_SIZE);
}

static int igcb_rss_set(struct igcb_adapter *a, const u32 *indir,
			const u8 *key)
{
	unsigned int i;

	if (indir) {
		for (i = 0; i < IGCB_RETA_SIZE; i++)
			if (indir[i] >= a->num_queues)
				return -EINVAL;
		for (i = 0; i < IGCB_RETA_SIZE; i++)
			a->reta[i] = indir[i];
	}
	if (key)
		memcpy(a->rss_key, key, IGCB_RSS_KEY_SIZE);
	/* The RSS registers take a change at any time. */
	if (netif_running(a->netdev))
		igcb_rss_setup(a);
	return 0;
}

#ifdef IGCB_HAVE_RXFH_PARAM
static int igcb_get_rxfh(struct net_device *netdev,
			 struct ethtool_rxfh_param *rxfh)
{
	rxfh->hfunc = ETH_RSS_HASH_TOP;
	igcb_rss_get(netdev_priv(netdev), rxfh->indir, rxfh->key);
	return 0;
}

static int igcb_set_rxfh(struct net_device *netdev,
			 struct ethtool_rxfh_param *rxfh,
			 struct netlink_ext_ack *extack)
{
	if (rxfh->hfunc != ETH_RSS_HASH_NO_CHANGE &&
	    rxfh->hfunc != ETH_RSS_HASH_TOP) {
		NL_SET_ERR_MSG_MOD(extack, "only the Toeplitz hash");
		return -EOPNOTSUPP;
	}
	return igcb_rss_set(netdev_priv(netdev), rxfh->indir, rxfh->key);
}
#else
static int igcb_get_rxfh(struct net_device *netdev, u32 *indir, u8 *key,
			 u8 *hfunc)
{
	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	igcb_rss_get(netdev_priv(netdev), indir, key);
	return 0;
}

static int igcb_set_rxfh(struct net_device *netdev, const u32 *indir,
			 const u8 *key, const u8 hfunc)
{
	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	return igcb_rss_set(netdev_priv(netdev), indir, key);
}
#endif

static const struct ethtool_ops igcb_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS |
				     ETHTOOL_COALESCE_USE_ADAPTIVE_RX,
	.get_drvinfo		= igcb_get_drvinfo,
	.get_regs_len		= igcb_get_regs_len,
	.get_regs		= igcb_get_regs,
	.self_test		= igcb_self_test,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= igcb_get_link_ksettings,
	.set_link_ksettings	= igcb_set_link_ksettings,
	.nway_reset		= igcb_nway_reset,
	.get_sset_count		= igcb_get_sset_count,
	.get_strings		= igcb_get_strings,
	.get_ethtool_stats	= igcb_get_ethtool_stats,
	.get_priv_flags		= igcb_get_priv_flags,
	.set_priv_flags		= igcb_set_priv_flags,
	.get_ringparam		= igcb_get_ringparam,
	.set_ringparam		= igcb_set_ringparam,
	.get_channels		= igcb_get_channels,
	.set_channels		= igcb_set_channels,
	.get_pauseparam		= igcb_get_pauseparam,
	.set_pauseparam		= igcb_set_pauseparam,
	.get_pause_stats	= igcb_get_pause_stats,
	.get_rmon_stats		= igcb_get_rmon_stats,
	.get_coalesce		= igcb_get_coalesce,
	.set_coalesce		= igcb_set_coalesce,
	.get_rxnfc		= igcb_get_rxnfc,
	.set_rxnfc		= igcb_set_rxnfc,
	.get_rxfh_indir_size	= igcb_get_rxfh_indir_size,
	.get_rxfh_key_size	= igcb_get_rxfh_key_size,
	.get_rxfh		= igcb_get_rxfh,
	.set_rxfh		= igcb_set_rxfh,
};

void igcb_set_ethtool_ops(struct net_device *netdev)
{
	netdev->ethtool_ops = &igcb_ethtool_ops;
}
