// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch native XDP: PASS, DROP, TX and REDIRECT on receive, and
 * ndo_xdp_xmit for frames redirected to us.
 *
 * XDP frames share the stack's TX rings (ring = CPU mod queues) and their
 * xmit lock.  They are published once per poll (XDP_TX) or per
 * XDP_XMIT_FLUSH (redirect), through igcb_doorbell_tx_flush_xdp(), which skips
 * the doorbell when there is nothing new: when 0 frames were queued, or
 * when the stack already published them.
 */

#include <linux/bpf.h>
#include <linux/bpf_trace.h>
#include <linux/filter.h>

#include "igcb.h"

static struct igcb_tx_ring *igcb_xdp_ring(struct igcb_adapter *a, int cpu)
{
	return &a->qv[(unsigned int)cpu % a->num_queues]->tx;
}

/* Queue one frame on @ring, its xmit lock held.  XDP_TX frames are mapped
 * here too, as upstream igc does: an RX page's own mapping is its ring's
 * alone (igcb_rx_page.c), and may be gone before the frame is sent.
 */
static int igcb_xdp_queue(struct igcb_tx_ring *ring, struct xdp_frame *xdpf)
{
	struct skb_shared_info *sh = xdp_get_shared_info_from_frame(xdpf);
	unsigned int nr = xdp_frame_has_frags(xdpf) ? sh->nr_frags : 0;
	u16 first_idx = ring->next_to_use, i = first_idx;
	u32 total = xdp_get_frame_len(xdpf);
	struct igcb_tx_buf *first = &ring->bufs[first_idx];
	union igcb_tx_desc *d = NULL;
	unsigned int f;

	/* one descriptor per piece and a two-slot gap */
	if (igcb_tx_unused(ring) < nr + 3)
		return -EBUSY;

	for (f = 0; f <= nr; f++) {
		struct igcb_tx_buf *b = &ring->bufs[i];
		const skb_frag_t *frag = f ? &sh->frags[f - 1] : NULL;
		unsigned int size = f ? skb_frag_size(frag) : xdpf->len;
		dma_addr_t dma;

		if (unlikely(size > IGCB_TXD_MAX_DATA))
			goto unwind;

		/* The head by its address: no page lookup. */
		if (f)
			dma = skb_frag_dma_map(ring->dev, frag, 0, size,
					       DMA_TO_DEVICE);
		else
			dma = dma_map_single(ring->dev, xdpf->data, size,
					     DMA_TO_DEVICE);
		if (dma_mapping_error(ring->dev, dma))
			goto unwind;
		b->dma = dma;
		b->len = size;
		b->map_page = f;

		d = &ring->desc[i];
		d->read.addr = cpu_to_le64(dma);
		d->read.cmd_type_len = cpu_to_le32(IGCB_TXD_DTYP_DATA |
						   IGCB_TXD_CMD_DEXT |
						   IGCB_TXD_CMD_IFCS | size);
		d->read.olinfo_status =
			cpu_to_le32(f ? 0 : total << IGCB_TXD_PAYLEN_SHIFT);
		if (++i == ring->count)
			i = 0;
	}
	d->read.cmd_type_len |= cpu_to_le32(IGCB_TXD_CMD_EOP | IGCB_TXD_CMD_RS);

	first->xdpf = xdpf;
	first->kind = IGCB_TXB_XDP;
	first->bytes = total;
	first->segs = 1;
	first->stamp = jiffies;
	ring->next_to_use = i;
	/* Shared with the stack's queue: BQL counts what the cleaner reports. */
	netdev_tx_sent_queue(ring->dbq.txq, total);
	/* The descriptors must be complete before the cleaner sees eop. */
	smp_wmb();
	first->eop = d;

	u64_stats_update_begin(&ring->db_sync);
	ring->db.xdp_xmit++;
	u64_stats_update_end(&ring->db_sync);
	return 0;

unwind:
	for (; first_idx != i; first_idx = first_idx + 1 == ring->count ?
						      0 : first_idx + 1)
		igcb_tx_unmap(ring, &ring->bufs[first_idx]);
	return -ENOMEM;
}

/* XDP_TX: send the frame back out of this port. */
static int igcb_xdp_tx_back(struct igcb_adapter *a, struct xdp_buff *xdp)
{
	struct xdp_frame *xdpf = xdp_convert_buff_to_frame(xdp);
	int cpu = smp_processor_id();
	struct igcb_tx_ring *ring;
	int err;

	if (unlikely(!xdpf))
		return -EFAULT;
	ring = igcb_xdp_ring(a, cpu);
	__netif_tx_lock(ring->dbq.txq, cpu);
	/* The stack's queue is ours too: keep its watchdog quiet. */
	txq_trans_cond_update(ring->dbq.txq);
	err = igcb_xdp_queue(ring, xdpf);
	__netif_tx_unlock(ring->dbq.txq);
	return err;
}

/**
 * igcb_xdp_run - run the program on a one-buffer frame
 * @ring: the RX ring it came from
 * @prog: the program
 * @xdp: the frame
 *
 * Return: IGCB_XDP_PASS (build an skb from @xdp), or what became of the
 * frame: IGCB_XDP_CONSUMED (dropped: its page stays in its slot),
 * IGCB_XDP_TX, IGCB_XDP_REDIR (handed on: the caller gives its page).
 */
unsigned int igcb_xdp_run(struct igcb_rx_ring *ring, struct bpf_prog *prog,
			  struct xdp_buff *xdp)
{
	u32 act = bpf_prog_run_xdp(prog, xdp);

	switch (act) {
	case XDP_PASS:
		return IGCB_XDP_PASS;
	case XDP_TX:
		if (igcb_xdp_tx_back(ring->adapter, xdp))
			break;
		return IGCB_XDP_TX;
	case XDP_REDIRECT:
		if (xdp_do_redirect(ring->netdev, xdp, prog))
			break;
		return IGCB_XDP_REDIR;
	case XDP_DROP:
		return IGCB_XDP_CONSUMED;
	default:
		bpf_warn_invalid_xdp_action(ring->netdev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		break;
	}
	trace_xdp_exception(ring->netdev, prog, act);
	return IGCB_XDP_CONSUMED;
}

/**
 * igcb_xdp_finalize - end of a receive poll that transmitted XDP frames
 * @a: the port
 * @flags: IGCB_XDP_TX and/or IGCB_XDP_REDIR
 */
void igcb_xdp_finalize(struct igcb_adapter *a, unsigned int flags)
{
	if (flags & IGCB_XDP_TX) {
		int cpu = smp_processor_id();
		struct igcb_tx_ring *ring = igcb_xdp_ring(a, cpu);

		__netif_tx_lock(ring->dbq.txq, cpu);
		igcb_doorbell_tx_flush_xdp(ring);
		__netif_tx_unlock(ring->dbq.txq);
	}
	if (flags & IGCB_XDP_REDIR)
		xdp_do_flush();
}

/**
 * igcb_xdp_xmit - ndo_xdp_xmit: queue frames redirected to this port
 * @netdev: the port
 * @n: number of frames
 * @frames: the frames
 * @flags: XDP_XMIT_FLUSH to publish them
 *
 * Return: frames queued (the caller frees the rest), or a negative errno.
 */
int igcb_xdp_xmit(struct net_device *netdev, int n,
		  struct xdp_frame **frames, u32 flags)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	struct igcb_tx_ring *ring;
	int cpu, i;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	/* DOWN is set before the rings go away, then a grace period. */
	if (unlikely(test_bit(IGCB_DOWN, &a->state)))
		return -ENETDOWN;

	cpu = smp_processor_id();
	ring = igcb_xdp_ring(a, cpu);
	__netif_tx_lock(ring->dbq.txq, cpu);
	if (unlikely(atomic_read(&a->faults.carrier_off_at_flush)) &&
	    (flags & XDP_XMIT_FLUSH))
		igcb_carrier_off_at_flush(a, ring);
	/* No carrier: take no frame, but publish those devmap queued
	 * earlier without XDP_XMIT_FLUSH; they would wait for a rescue.
	 */
	if (unlikely(!netif_carrier_ok(netdev))) {
		if (flags & XDP_XMIT_FLUSH)
			igcb_doorbell_tx_publish(ring);
		__netif_tx_unlock(ring->dbq.txq);
		return -ENETDOWN;
	}
	txq_trans_cond_update(ring->dbq.txq);
	for (i = 0; i < n; i++)
		if (igcb_xdp_queue(ring, frames[i]))
			break;
	if (flags & XDP_XMIT_FLUSH)
		igcb_doorbell_tx_flush_xdp(ring);
	if (unlikely(i < n)) {
		u64_stats_update_begin(&ring->db_sync);
		ring->db.xdp_xmit_err += n - i;
		u64_stats_update_end(&ring->db_sync);
	}
	__netif_tx_unlock(ring->dbq.txq);
	return i;
}

static int igcb_xdp_setup(struct igcb_adapter *a, struct bpf_prog *prog,
			  struct netlink_ext_ack *extack)
{
	struct net_device *netdev = a->netdev;
	bool restart = netif_running(netdev) && !prog != !a->xdp_prog;
	struct bpf_prog *old;
	int err;

	/* Detached (PCI error recovery, system sleep): the rings are down
	 * and the resume brings them up; a restart here would open a
	 * disabled device and the resume would open it twice.  Removing a
	 * program only swaps it (unregister removes one that way too).
	 */
	if (!netif_device_present(netdev)) {
		if (prog) {
			NL_SET_ERR_MSG_MOD(extack,
					   "the device is detached (PCI error recovery or system sleep): try again once it is back");
			return -EBUSY;
		}
		restart = false;
	}
	if (prog && netdev->mtu > IGCB_XDP_MAX_MTU) {
		NL_SET_ERR_MSG_MOD(extack,
				   "XDP needs whole frames in one buffer: MTU at most 3050");
		return -EOPNOTSUPP;
	}

	/* Restart the port, as upstream igc does: the rings start empty
	 * under the new program, no frame half-received before it.
	 */
	if (restart)
		igcb_close(netdev);
	old = xchg(&a->xdp_prog, prog);
	if (restart) {
		err = igcb_open(netdev);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack,
					   "cannot reopen the port for XDP");
			xchg(&a->xdp_prog, old);
			if (igcb_open(netdev))
				igcb_close_failed(a, "an XDP change", err);
			return err;
		}
	}
	if (old)
		bpf_prog_put(old);
	return 0;
}

int igcb_bpf(struct net_device *netdev, struct netdev_bpf *bpf)
{
	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return igcb_xdp_setup(netdev_priv(netdev), bpf->prog,
				      bpf->extack);
	default:
		return -EOPNOTSUPP;
	}
}

void igcb_xdp_set_features(struct net_device *netdev)
{
#ifdef IGCB_HAVE_XDP_FEATURES
	xdp_set_features_flag(netdev, NETDEV_XDP_ACT_BASIC |
			      NETDEV_XDP_ACT_REDIRECT |
			      NETDEV_XDP_ACT_NDO_XMIT |
			      NETDEV_XDP_ACT_NDO_XMIT_SG);
#endif
}
