// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix ethtool: -i, -S, -g/-G, -l/-L, -k, link settings from the
 * firmware, and the doorbell knobs as private flags.
 *
 * Ring changes are checked before anything is touched (whole fetches, in
 * range) and applied by closing and opening a running port: a ring is
 * never republished under the block.
 */

#include <linux/ethtool.h>
#include <linux/linkmode.h>
#include <linux/rtnetlink.h>

#include "octf.h"

static const char octf_priv_flags[OCTF_DB_FLAGS_N][ETH_GSTRING_LEN] = {
	"db_skip_empty",
	"tx_db_batched",
};

struct octf_stat {
	char name[ETH_GSTRING_LEN];
	unsigned int off;
};

#define OCTF_IQ_STAT(n, f)	{ n, offsetof(struct octf_iq_stats, f) }
#define OCTF_IQC_STAT(n, f)	{ n, offsetof(struct octf_iq_clean_stats, f) }
#define OCTF_OQ_STAT(n, f)	{ n, offsetof(struct octf_oq_stats, f) }
#define OCTF_OQW_STAT(n, f)	{ n, offsetof(struct octf_oq_wd_stats, f) }

static const struct octf_stat octf_iq_stats[] = {
	OCTF_IQ_STAT("in_dbell_writes", dbell_writes),
	OCTF_IQ_STAT("db_held", held),
	OCTF_IQ_STAT("db_batch_rings", batch_rings),
	OCTF_IQ_STAT("db_skipped_empty", skipped_empty),
	OCTF_IQ_STAT("busy", busy),
	OCTF_IQ_STAT("dropped", dropped),
	OCTF_IQ_STAT("xdp_xmit", xdp_xmit),
	OCTF_IQ_STAT("xdp_xmit_err", xdp_xmit_err),
	OCTF_IQ_STAT("restarts", restarts),
};

static const struct octf_stat octf_iqc_stats[] = {
	OCTF_IQC_STAT("packets", packets),
	OCTF_IQC_STAT("bytes", bytes),
};

static const struct octf_stat octf_oq_stats[] = {
	OCTF_OQ_STAT("packets", packets),
	OCTF_OQ_STAT("bytes", bytes),
	OCTF_OQ_STAT("out_dbell_writes", dbell_writes),
	OCTF_OQ_STAT("credit_given", credit_given),
	OCTF_OQ_STAT("oq_lapped", oq_lapped),
	OCTF_OQ_STAT("nobuf", nobuf),
	OCTF_OQ_STAT("resyncs", resyncs),
	OCTF_OQ_STAT("skipped", skipped),
	OCTF_OQ_STAT("uncounted", uncounted),
	OCTF_OQ_STAT("alloc_failed", alloc_failed),
	OCTF_OQ_STAT("dropped", dropped),
	OCTF_OQ_STAT("xdp_drop", xdp_drop),
	OCTF_OQ_STAT("xdp_tx", xdp_tx),
	OCTF_OQ_STAT("xdp_redirect", xdp_redirect),
};

static const struct octf_stat octf_oq_wd_stats[] = {
	OCTF_OQW_STAT("watchdog_stalls", stalls),
};

/* Gauges of each output ring's credit, read without stopping it */
static const char octf_oq_gauges[][ETH_GSTRING_LEN] = {
	"credit_owed",
	"credit_outstanding",
	"credit_ceiling",
	"credit_now",
	"in_device_max",
};

static const char octf_port_stats[][ETH_GSTRING_LEN] = {
	"tx_timeouts",
	"ring_restarts",
	"fw_heartbeats",
	"fw_heartbeat_lost",
	"fw_mbox_timeouts",
	"fw_notifications",
	"fw_restarts",
	"oq_wmark",
	"oq_wmark_effective",
	"fw_rx_fifo_drops",
	"oq_wmark_low",
};

#define OCTF_PER_QUEUE	(ARRAY_SIZE(octf_iq_stats) + \
			 ARRAY_SIZE(octf_iqc_stats) + \
			 ARRAY_SIZE(octf_oq_stats) + \
			 ARRAY_SIZE(octf_oq_wd_stats) + \
			 ARRAY_SIZE(octf_oq_gauges))

static void octf_get_drvinfo(struct net_device *netdev,
			     struct ethtool_drvinfo *info)
{
	struct octf_port *p = netdev_priv(netdev);

	strscpy(info->driver, OCTF_DRV_NAME, sizeof(info->driver));
	snprintf(info->fw_version, sizeof(info->fw_version),
		 "cp %u.%u.%u-%u.%u.%u",
		 p->mbox.fw_min >> 16, (p->mbox.fw_min >> 8) & 0xFF,
		 p->mbox.fw_min & 0xFF, p->mbox.fw_max >> 16,
		 (p->mbox.fw_max >> 8) & 0xFF, p->mbox.fw_max & 0xFF);
	strscpy(info->bus_info, pci_name(p->pdev), sizeof(info->bus_info));
	info->n_priv_flags = OCTF_DB_FLAGS_N;
}

static int octf_get_sset_count(struct net_device *netdev, int sset)
{
	struct octf_port *p = netdev_priv(netdev);

	switch (sset) {
	case ETH_SS_STATS:
		return ARRAY_SIZE(octf_port_stats) +
		       p->num_queues * OCTF_PER_QUEUE;
	case ETH_SS_PRIV_FLAGS:
		return OCTF_DB_FLAGS_N;
	default:
		return -EOPNOTSUPP;
	}
}

static void octf_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct octf_port *p = netdev_priv(netdev);
	unsigned int q, i;

	if (sset == ETH_SS_PRIV_FLAGS) {
		memcpy(data, octf_priv_flags, sizeof(octf_priv_flags));
		return;
	}
	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ARRAY_SIZE(octf_port_stats); i++) {
		memcpy(data, octf_port_stats[i], ETH_GSTRING_LEN);
		data += ETH_GSTRING_LEN;
	}
	for (q = 0; q < p->num_queues; q++) {
		for (i = 0; i < ARRAY_SIZE(octf_iq_stats); i++)
			ethtool_sprintf(&data, "tx%u_%s", q, octf_iq_stats[i].name);
		for (i = 0; i < ARRAY_SIZE(octf_iqc_stats); i++)
			ethtool_sprintf(&data, "tx%u_%s", q, octf_iqc_stats[i].name);
		for (i = 0; i < ARRAY_SIZE(octf_oq_stats); i++)
			ethtool_sprintf(&data, "rx%u_%s", q, octf_oq_stats[i].name);
		for (i = 0; i < ARRAY_SIZE(octf_oq_wd_stats); i++)
			ethtool_sprintf(&data, "rx%u_%s", q,
					octf_oq_wd_stats[i].name);
		for (i = 0; i < ARRAY_SIZE(octf_oq_gauges); i++)
			ethtool_sprintf(&data, "rx%u_%s", q, octf_oq_gauges[i]);
	}
}

static u64 *octf_copy_stats(u64 *data, const void *base,
			    const struct octf_stat *st, unsigned int n,
			    struct u64_stats_sync *sync)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(sync);
		for (i = 0; i < n; i++)
			data[i] = *(const u64 *)(base + st[i].off);
	} while (u64_stats_fetch_retry(sync, start));
	return data + n;
}

static void octf_get_ethtool_stats(struct net_device *netdev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct octf_port *p = netdev_priv(netdev);
	unsigned int q;

	*data++ = p->tx_timeouts;
	*data++ = p->ring_restarts;
	*data++ = p->hb_seen;
	*data++ = p->hb_lost;
	*data++ = p->mbox.timeouts;
	*data++ = p->mbox.notifications;
	*data++ = p->fw_restarts;
	*data++ = p->wmark;
	*data++ = p->wmark_eff;
	*data++ = READ_ONCE(p->fw_rx_drops);
	*data++ = READ_ONCE(p->wmark_low);
	for (q = 0; q < p->num_queues; q++) {
		struct octf_qv *qv = p->qv[q];

		data = octf_copy_stats(data, &qv->iq.st, octf_iq_stats,
				       ARRAY_SIZE(octf_iq_stats), &qv->iq.sync);
		data = octf_copy_stats(data, &qv->iq.cs, octf_iqc_stats,
				       ARRAY_SIZE(octf_iqc_stats),
				       &qv->iq.clean_sync);
		data = octf_copy_stats(data, &qv->oq.st, octf_oq_stats,
				       ARRAY_SIZE(octf_oq_stats), &qv->oq.sync);
		data = octf_copy_stats(data, &qv->oq.wd, octf_oq_wd_stats,
				       ARRAY_SIZE(octf_oq_wd_stats),
				       &qv->oq.wd_sync);
		*data++ = READ_ONCE(qv->oq.credit.owed);
		*data++ = READ_ONCE(qv->oq.credit.outstanding);
		*data++ = READ_ONCE(qv->oq.credit.ceiling);
		*data++ = READ_ONCE(qv->oq.credit_now);
		*data++ = READ_ONCE(qv->oq.in_device_max);
	}
}

static void octf_get_ringparam(struct net_device *netdev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct octf_port *p = netdev_priv(netdev);

	ring->rx_max_pending = OCTF_OQ_MAX;
	ring->tx_max_pending = OCTF_IQ_MAX;
	ring->rx_pending = p->oq_count;
	ring->tx_pending = p->iq_count;
}

static int octf_set_ringparam(struct net_device *netdev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct octf_port *p = netdev_priv(netdev);
	enum octf_credit_err err;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending)
		return -EINVAL;
	/* The output ring gets as many buffers as it publishes. */
	err = octf_ring_check(ring->rx_pending, ring->rx_pending);
	if (err) {
		netdev_err(netdev, "rx ring %u refused: %s; use a multiple of 16 from %u to %u. Nothing changed\n",
			   ring->rx_pending, octf_credit_err_str(err),
			   OCTF_OQ_MIN, OCTF_OQ_MAX);
		NL_SET_ERR_MSG_MOD(extack, "rx ring: a multiple of 16 from 64 to 8192");
		return -EINVAL;
	}
	if (ring->tx_pending % OCTF_FETCH || ring->tx_pending < OCTF_IQ_MIN ||
	    ring->tx_pending > OCTF_IQ_MAX) {
		netdev_err(netdev, "tx ring %u refused: use a multiple of 16 from %u to %u. Nothing changed\n",
			   ring->tx_pending, OCTF_IQ_MIN, OCTF_IQ_MAX);
		NL_SET_ERR_MSG_MOD(extack, "tx ring: a multiple of 16 from 64 to 8192");
		return -EINVAL;
	}
	if (ring->rx_pending == p->oq_count && ring->tx_pending == p->iq_count)
		return 0;
	return octf_reconfigure(p, p->num_queues, ring->tx_pending,
				ring->rx_pending, p->wmark);
}

static void octf_get_channels(struct net_device *netdev,
			      struct ethtool_channels *ch)
{
	struct octf_port *p = netdev_priv(netdev);

	ch->max_combined = min_t(unsigned int, p->max_rings, OCTF_MAX_QUEUES);
	ch->combined_count = p->num_queues;
}

static int octf_set_channels(struct net_device *netdev,
			     struct ethtool_channels *ch)
{
	struct octf_port *p = netdev_priv(netdev);
	unsigned int max = min_t(unsigned int, p->max_rings, OCTF_MAX_QUEUES);

	if (ch->rx_count || ch->tx_count || ch->other_count ||
	    !ch->combined_count || ch->combined_count > max) {
		netdev_err(netdev, "channels: give combined 1 to %u (the rings the firmware gave this PF)\n",
			   max);
		return -EINVAL;
	}
	if (ch->combined_count == p->num_queues)
		return 0;
	return octf_reconfigure(p, ch->combined_count, p->iq_count,
				p->oq_count, p->wmark);
}

static u32 octf_get_priv_flags(struct net_device *netdev)
{
	return READ_ONCE(((struct octf_port *)netdev_priv(netdev))->db_flags);
}

static int octf_set_priv_flags(struct net_device *netdev, u32 flags)
{
	struct octf_port *p = netdev_priv(netdev);

	if (flags & ~(OCTF_DB_SKIP_EMPTY | OCTF_DB_TX_BATCHED))
		return -EINVAL;
	WRITE_ONCE(p->db_flags, flags);
	return 0;
}

/* The firmware's link-mode bits, in their order (Marvell's
 * octep_link_mode_bit_indices), as ethtool's link mode bits by number:
 * enum ethtool_link_mode_bit_indices is user ABI, never renumbered, and
 * its names trip checkpatch's CamelCase check.
 */
static const u8 octf_link_modes[] = {
	12,		/* 10000baseT_Full */
	20,		/* 10000baseR_FEC */
	42,		/* 10000baseCR_Full */
	19,		/* 10000baseKR_Full */
	44,		/* 10000baseLR_Full */
	43,		/* 10000baseSR_Full */
	31,		/* 25000baseCR_Full */
	32,		/* 25000baseKR_Full */
	33,		/* 25000baseSR_Full */
	24,		/* 40000baseCR4_Full */
	23,		/* 40000baseKR4_Full */
	26,		/* 40000baseLR4_Full */
	25,		/* 40000baseSR4_Full */
	34,		/* 50000baseCR2_Full */
	35,		/* 50000baseKR2_Full */
	40,		/* 50000baseSR2_Full */
	54,		/* 50000baseCR_Full */
	52,		/* 50000baseKR_Full */
	55,		/* 50000baseLR_ER_FR_Full */
	53,		/* 50000baseSR_Full */
	38,		/* 100000baseCR4_Full */
	36,		/* 100000baseKR4_Full */
	39,		/* 100000baseLR4_ER4_Full */
	37,		/* 100000baseSR4_Full */
};

enum {
	OCTF_LM_AUTONEG = 6,		/* Autoneg */
	OCTF_LM_PAUSE = 13,		/* Pause */
	OCTF_LM_FIBRE = 10,		/* FIBRE */
};

static void octf_modes_to_ethtool(u64 fw, unsigned long *mask, u8 an,
				  u8 pause, u8 which)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(octf_link_modes); i++)
		if (fw & BIT_ULL(i))
			__set_bit(octf_link_modes[i], mask);
	if (an & which)
		__set_bit(OCTF_LM_AUTONEG, mask);
	if (pause & which)
		__set_bit(OCTF_LM_PAUSE, mask);
	__set_bit(OCTF_LM_FIBRE, mask);
}

static u64 octf_modes_from_ethtool(const unsigned long *mask)
{
	unsigned int i;
	u64 fw = 0;

	for (i = 0; i < ARRAY_SIZE(octf_link_modes); i++)
		if (test_bit(octf_link_modes[i], mask))
			fw |= BIT_ULL(i);
	return fw;
}

/* The speed of firmware mode bit @i (octf_link_modes' order), Mb/s */
static u32 octf_mode_speed(unsigned int i)
{
	if (i < 6)
		return SPEED_10000;
	if (i < 9)
		return SPEED_25000;
	if (i < 13)
		return SPEED_40000;
	if (i < 20)
		return SPEED_50000;
	return SPEED_100000;
}

static bool octf_speed_supported(u64 modes, u32 speed)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(octf_link_modes); i++)
		if ((modes & BIT_ULL(i)) && octf_mode_speed(i) == speed)
			return true;
	return false;
}

/* The firmware owns the link: what it reports, asked each time, unless
 * it stopped answering (each request would hold RTNL for the mailbox's
 * timeout).
 */
static int octf_get_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *ks)
{
	struct octf_port *p = netdev_priv(netdev);
	struct octf_link_info li = { .speed = p->link_speed };

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.port = PORT_FIBRE;
	if (!test_bit(OCTF_FW_LOST, &p->state) &&
	    !octf_fw_get_link_info(p, &li)) {
		octf_modes_to_ethtool(li.supported, ks->link_modes.supported,
				      li.autoneg, li.pause,
				      OCTF_LINK_SUPPORTED);
		octf_modes_to_ethtool(li.advertised,
				      ks->link_modes.advertising, li.autoneg,
				      li.pause, OCTF_LINK_ADVERTISED);
		ks->base.autoneg = li.autoneg & OCTF_LINK_ADVERTISED ?
				   AUTONEG_ENABLE : AUTONEG_DISABLE;
	}
	if (netif_carrier_ok(netdev) && li.speed) {
		ks->base.speed = li.speed;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

/* Advertised modes, speed and auto-negotiation go to the firmware, which
 * applies them; what it cannot do is refused here with the reason.
 */
static int octf_set_link_ksettings(struct net_device *netdev,
				   const struct ethtool_link_ksettings *ks)
{
	__ETHTOOL_DECLARE_LINK_MODE_MASK(supported) = { 0 };
	struct octf_port *p = netdev_priv(netdev);
	bool an = ks->base.autoneg == AUTONEG_ENABLE;
	struct octf_link_info li;
	u32 speed;
	u64 adv;
	int err;

	if (ks->base.duplex != DUPLEX_FULL &&
	    ks->base.duplex != DUPLEX_UNKNOWN) {
		netdev_err(netdev, "only full duplex is supported\n");
		return -EOPNOTSUPP;
	}
	if (test_bit(OCTF_FW_LOST, &p->state)) {
		netdev_err(netdev, "the firmware is not answering: link settings unchanged\n");
		return -EIO;
	}
	err = octf_fw_get_link_info(p, &li);
	if (err)
		return err;
	if (an && !(li.autoneg & OCTF_LINK_SUPPORTED)) {
		netdev_err(netdev, "the firmware offers no auto-negotiation on this port: set autoneg off\n");
		return -EOPNOTSUPP;
	}
	/* ethtool's bits, not the firmware's: a mode the firmware has no bit
	 * for (10baseT/Half...) must be refused, not dropped; and an empty
	 * advertisement would leave the port no mode to bring the link up.
	 */
	octf_modes_to_ethtool(li.supported, supported, li.autoneg, li.pause,
			      OCTF_LINK_SUPPORTED);
	adv = octf_modes_from_ethtool(ks->link_modes.advertising);
	if (!adv || !linkmode_subset(ks->link_modes.advertising, supported)) {
		netdev_err(netdev, "advertise one or more modes the port supports (ethtool %s shows them)\n",
			   netdev->name);
		return -EINVAL;
	}
	/* unknown while the carrier is off: keep the firmware's; a forced
	 * speed must be one an advertised mode runs at
	 */
	speed = ks->base.speed == SPEED_UNKNOWN ? li.speed : ks->base.speed;
	if (!an && speed && !octf_speed_supported(adv, speed)) {
		netdev_err(netdev, "no advertised mode runs at %u Mb/s\n", speed);
		return -EINVAL;
	}
	if (adv == li.advertised && speed == li.speed &&
	    an == !!(li.autoneg & OCTF_LINK_ADVERTISED))
		return 0;
	li.advertised = adv;
	li.speed = speed;
	li.autoneg = (li.autoneg & OCTF_LINK_SUPPORTED) |
		     (an ? OCTF_LINK_ADVERTISED : 0);
	return octf_fw_set_link_info(p, &li);
}

static const struct ethtool_ops octf_ethtool_ops = {
	.get_drvinfo		= octf_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= octf_get_link_ksettings,
	.set_link_ksettings	= octf_set_link_ksettings,
	.get_sset_count		= octf_get_sset_count,
	.get_strings		= octf_get_strings,
	.get_ethtool_stats	= octf_get_ethtool_stats,
	.get_ringparam		= octf_get_ringparam,
	.set_ringparam		= octf_set_ringparam,
	.get_channels		= octf_get_channels,
	.set_channels		= octf_set_channels,
	.get_priv_flags		= octf_get_priv_flags,
	.set_priv_flags		= octf_set_priv_flags,
};

void octf_set_ethtool_ops(struct net_device *netdev)
{
	netdev->ethtool_ops = &octf_ethtool_ops;
}
