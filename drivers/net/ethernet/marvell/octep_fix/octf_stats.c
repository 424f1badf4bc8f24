// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix: the port's packet and byte totals (ndo_get_stats64) and, on
 * kernels that have them, the same counters per queue over netdev
 * netlink (qstats), so that the base plus the queues in use equal the
 * totals (tools/testing/selftests/drivers/net/stats.py checks it).
 *
 * A queue vector that ethtool -L frees first hands its counters to the
 * port's retired totals, in one step readers cannot see half of: no
 * total ever goes back.  ndo_get_stats64 runs without RTNL, so the
 * vectors are read under RCU and freed only after a grace period.
 */

#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "octf.h"

#ifdef OCTF_HAVE_QSTATS
#include <net/netdev_queues.h>
#endif

static void octf_qv_add(const struct octf_qv *qv, struct octf_totals *t)
{
	unsigned int start;
	u64 pk, by, dr, af;

	do {
		start = u64_stats_fetch_begin(&qv->oq.sync);
		pk = qv->oq.st.packets;
		by = qv->oq.st.bytes;
		dr = qv->oq.st.dropped;
		af = qv->oq.st.alloc_failed;
	} while (u64_stats_fetch_retry(&qv->oq.sync, start));
	t->rx_packets += pk;
	t->rx_bytes += by;
	t->rx_dropped += dr;
	t->rx_alloc_failed += af;
	do {
		start = u64_stats_fetch_begin(&qv->iq.clean_sync);
		pk = qv->iq.cs.packets;
		by = qv->iq.cs.bytes;
	} while (u64_stats_fetch_retry(&qv->iq.clean_sync, start));
	t->tx_packets += pk;
	t->tx_bytes += by;
	do {
		start = u64_stats_fetch_begin(&qv->iq.sync);
		dr = qv->iq.st.dropped;
	} while (u64_stats_fetch_retry(&qv->iq.sync, start));
	t->tx_dropped += dr;
}

/* Retired totals plus the vectors [@from, OCTF_MAX_QUEUES), consistent. */
static void octf_totals_from(struct octf_port *p, unsigned int from,
			     struct octf_totals *t)
{
	unsigned int seq, i;

	rcu_read_lock();
	do {
		seq = read_seqbegin(&p->retired_lock);
		*t = p->retired;
		for (i = from; i < OCTF_MAX_QUEUES; i++) {
			struct octf_qv *qv = READ_ONCE(p->qv[i]);

			if (qv)
				octf_qv_add(qv, t);
		}
	} while (read_seqretry(&p->retired_lock, seq));
	rcu_read_unlock();
}

void octf_get_stats64(struct net_device *netdev, struct rtnl_link_stats64 *s)
{
	struct octf_port *p = netdev_priv(netdev);
	struct octf_totals t;

	octf_totals_from(p, 0, &t);
	s->rx_packets = t.rx_packets;
	s->rx_bytes = t.rx_bytes;
	s->rx_dropped = t.rx_dropped + t.rx_alloc_failed;
	/* refused by the block for want of a buffer: the firmware's count */
	s->rx_missed_errors = READ_ONCE(p->fw_rx_drops);
	s->tx_packets = t.tx_packets;
	s->tx_bytes = t.tx_bytes;
	s->tx_dropped = t.tx_dropped;
}

/**
 * octf_stats_retire - take queue vectors out of the totals' walk
 * @p: the port (RTNL held, or not yet or no longer registered)
 * @qvs: the vectors, still in p->qv[], their rings freed
 * @n: how many
 *
 * Their counters move to the retired totals, and their slots in p->qv[]
 * are cleared, under the seqlock that readers retry on.  The caller
 * frees them only after a grace period (synchronize_net()): a reader may
 * still walk them until then.
 */
void octf_stats_retire(struct octf_port *p, struct octf_qv **qvs,
		       unsigned int n)
{
	unsigned int i;

	write_seqlock(&p->retired_lock);
	for (i = 0; i < n; i++) {
		octf_qv_add(qvs[i], &p->retired);
		WRITE_ONCE(p->qv[qvs[i]->idx], NULL);
	}
	write_sequnlock(&p->retired_lock);
}

void octf_stats_init(struct octf_port *p)
{
	seqlock_init(&p->retired_lock);
}

#ifdef OCTF_HAVE_QSTATS
static void octf_get_queue_stats_rx(struct net_device *netdev, int idx,
				    struct netdev_queue_stats_rx *rx)
{
	struct octf_port *p = netdev_priv(netdev);
	struct octf_totals t = {};

	if (p->qv[idx])
		octf_qv_add(p->qv[idx], &t);
	rx->packets = t.rx_packets;
	rx->bytes = t.rx_bytes;
	rx->alloc_fail = t.rx_alloc_failed;
}

static void octf_get_queue_stats_tx(struct net_device *netdev, int idx,
				    struct netdev_queue_stats_tx *tx)
{
	struct octf_port *p = netdev_priv(netdev);
	struct octf_totals t = {};

	if (p->qv[idx])
		octf_qv_add(p->qv[idx], &t);
	tx->packets = t.tx_packets;
	tx->bytes = t.tx_bytes;
}

/* Called under RTNL, as the two above: the queue count cannot change. */
static void octf_get_base_stats(struct net_device *netdev,
				struct netdev_queue_stats_rx *rx,
				struct netdev_queue_stats_tx *tx)
{
	struct octf_port *p = netdev_priv(netdev);
	struct octf_totals t;

	octf_totals_from(p, netdev->real_num_rx_queues, &t);
	rx->packets = t.rx_packets;
	rx->bytes = t.rx_bytes;
	rx->alloc_fail = t.rx_alloc_failed;
	if (netdev->real_num_tx_queues != netdev->real_num_rx_queues)
		octf_totals_from(p, netdev->real_num_tx_queues, &t);
	tx->packets = t.tx_packets;
	tx->bytes = t.tx_bytes;
}

static const struct netdev_stat_ops octf_stat_ops = {
	.get_queue_stats_rx	= octf_get_queue_stats_rx,
	.get_queue_stats_tx	= octf_get_queue_stats_tx,
	.get_base_stats		= octf_get_base_stats,
};

void octf_stats_set_ops(struct net_device *netdev)
{
	netdev->stat_ops = &octf_stat_ops;
}
#else
void octf_stats_set_ops(struct net_device *netdev)
{
}
#endif
