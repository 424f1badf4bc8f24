// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix native XDP: PASS, DROP, TX and REDIRECT on receive, and
 * ndo_xdp_xmit for frames redirected to us (upstream octeon_ep has none).
 *
 * XDP frames share the stack's input rings (ring = CPU mod queues) and
 * their xmit lock, one instruction per frame, and are announced once per
 * poll (XDP_TX) or per XDP_XMIT_FLUSH through octf_doorbell_tx_flush_xdp(),
 * which skips the doorbell when there is nothing new.  XDP sees frames of
 * one buffer: the MTU is limited to what a buffer holds while a program
 * is attached.
 */

#include <linux/bpf.h>
#include <linux/bpf_trace.h>
#include <linux/filter.h>

#include "octf.h"

static struct octf_iq *octf_xdp_ring(struct octf_port *p, int cpu)
{
	return &p->qv[(unsigned int)cpu % p->num_queues]->iq;
}

/* Queue one frame on @iq, its xmit lock held.  @own: in a page of one of
 * our RX page_pools, already mapped both ways.
 */
static int octf_xdp_queue(struct octf_iq *iq, struct xdp_frame *xdpf,
			  bool own)
{
	u32 idx = iq->next_to_use;
	struct octf_tx_buf *b = &iq->bufs[idx];
	dma_addr_t dma;

	if (unlikely(xdp_frame_has_frags(xdpf)))
		return -EOPNOTSUPP;
	if (octf_iq_unused(iq) < 1)
		return -EBUSY;
	if (own) {
		struct page *page = virt_to_head_page(xdpf->data);

		dma = page_pool_get_dma_addr(page) +
		      (xdpf->data - page_address(page));
		dma_sync_single_for_device(iq->dev, dma, xdpf->len,
					   DMA_BIDIRECTIONAL);
	} else {
		dma = dma_map_single(iq->dev, xdpf->data, xdpf->len,
				     DMA_TO_DEVICE);
		if (dma_mapping_error(iq->dev, dma))
			return -ENOMEM;
	}
	b->kind = own ? OCTF_TXB_XDP_TX : OCTF_TXB_XDP_NDO;
	b->xdpf = xdpf;
	b->bytes = xdpf->len;
	b->dma[0] = dma;
	b->len[0] = xdpf->len;
	b->nmaps = 1;
	b->head_single = true;
	octf_iq_write(iq, idx, b, xdpf->len);
	iq->next_to_use = idx + 1 == iq->count ? 0 : idx + 1;
	/* the cleaner reports every instruction to BQL */
	netdev_tx_sent_queue(iq->dbq.txq, xdpf->len);

	u64_stats_update_begin(&iq->sync);
	iq->st.xdp_xmit++;
	u64_stats_update_end(&iq->sync);
	return 0;
}

static int octf_xdp_tx_back(struct octf_port *p, struct xdp_buff *xdp)
{
	struct xdp_frame *xdpf = xdp_convert_buff_to_frame(xdp);
	int cpu = smp_processor_id();
	struct octf_iq *iq;
	int err;

	if (unlikely(!xdpf))
		return -EFAULT;
	iq = octf_xdp_ring(p, cpu);
	__netif_tx_lock(iq->dbq.txq, cpu);
	txq_trans_cond_update(iq->dbq.txq);
	err = octf_xdp_queue(iq, xdpf, true);
	__netif_tx_unlock(iq->dbq.txq);
	return err;
}

/**
 * octf_xdp_run - run the program on a one-buffer frame
 * @oq: the output ring it came from
 * @prog: the program
 * @xdp: the frame
 * @page: its page, from @oq's pool
 *
 * Return: OCTF_XDP_PASS (build an skb from @xdp), or what became of the
 * page: OCTF_XDP_CONSUMED (recycled), OCTF_XDP_TX, OCTF_XDP_REDIR.
 */
unsigned int octf_xdp_run(struct octf_oq *oq, struct bpf_prog *prog,
			  struct xdp_buff *xdp, struct page *page)
{
	u32 act = bpf_prog_run_xdp(prog, xdp);

	switch (act) {
	case XDP_PASS:
		return OCTF_XDP_PASS;
	case XDP_TX:
		if (octf_xdp_tx_back(oq->port, xdp))
			break;
		return OCTF_XDP_TX;
	case XDP_REDIRECT:
		if (xdp_do_redirect(oq->netdev, xdp, prog))
			break;
		return OCTF_XDP_REDIR;
	case XDP_DROP:
		page_pool_recycle_direct(oq->pp, page);
		return OCTF_XDP_CONSUMED;
	default:
		bpf_warn_invalid_xdp_action(oq->netdev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		break;
	}
	trace_xdp_exception(oq->netdev, prog, act);
	page_pool_recycle_direct(oq->pp, page);
	return OCTF_XDP_CONSUMED;
}

void octf_xdp_finalize(struct octf_port *p, unsigned int flags)
{
	if (flags & OCTF_XDP_TX) {
		int cpu = smp_processor_id();
		struct octf_iq *iq = octf_xdp_ring(p, cpu);

		__netif_tx_lock(iq->dbq.txq, cpu);
		octf_doorbell_tx_flush_xdp(iq);
		__netif_tx_unlock(iq->dbq.txq);
	}
	if (flags & OCTF_XDP_REDIR)
		xdp_do_flush();
}

/**
 * octf_xdp_xmit - ndo_xdp_xmit: queue frames redirected to this port
 * @netdev: the port
 * @n: number of frames
 * @frames: the frames
 * @flags: XDP_XMIT_FLUSH to announce them
 *
 * Return: frames queued (the caller frees the rest), or a negative errno.
 */
int octf_xdp_xmit(struct net_device *netdev, int n,
		  struct xdp_frame **frames, u32 flags)
{
	struct octf_port *p = netdev_priv(netdev);
	struct octf_iq *iq;
	int cpu, i;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	if (unlikely(test_bit(OCTF_DOWN, &p->state)))
		return -ENETDOWN;
	cpu = smp_processor_id();
	iq = octf_xdp_ring(p, cpu);
	__netif_tx_lock(iq->dbq.txq, cpu);
	if (unlikely(!netif_carrier_ok(netdev))) {
		if (flags & XDP_XMIT_FLUSH)
			octf_doorbell_tx_publish(iq);
		__netif_tx_unlock(iq->dbq.txq);
		return -ENETDOWN;
	}
	txq_trans_cond_update(iq->dbq.txq);
	for (i = 0; i < n; i++)
		if (octf_xdp_queue(iq, frames[i], false))
			break;
	if (flags & XDP_XMIT_FLUSH)
		octf_doorbell_tx_flush_xdp(iq);
	if (unlikely(i < n)) {
		u64_stats_update_begin(&iq->sync);
		iq->st.xdp_xmit_err += n - i;
		u64_stats_update_end(&iq->sync);
	}
	__netif_tx_unlock(iq->dbq.txq);
	return i;
}

static unsigned int octf_xdp_max_mtu(struct octf_port *p)
{
	u32 hdr = OCTF_RX_HDR + (p->fw.rx_ol ? OCTF_RX_OL_HDR : 0);

	return OCTF_RX_BUFSZ(hdr) - hdr - ETH_HLEN - 2 * VLAN_HLEN;
}

static int octf_xdp_setup(struct octf_port *p, struct bpf_prog *prog,
			  struct netlink_ext_ack *extack)
{
	struct net_device *netdev = p->netdev;
	bool restart = netif_running(netdev) && !prog != !p->xdp_prog;
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
	if (prog && netdev->mtu > octf_xdp_max_mtu(p)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "XDP needs whole frames in one buffer: lower the MTU (to 3000 or less)");
		return -EOPNOTSUPP;
	}
	/* RX pages must be mapped both ways for XDP_TX: rebuild the rings. */
	if (restart)
		octf_close(netdev);
	old = xchg(&p->xdp_prog, prog);
	if (restart) {
		err = octf_open(netdev);
		if (err) {
			int open_err;

			NL_SET_ERR_MSG_MOD(extack, "cannot reopen the port for XDP");
			xchg(&p->xdp_prog, old);
			open_err = octf_open(netdev);
			if (open_err)
				octf_close_failed(p, "a failed XDP change",
						  open_err);
			return err;
		}
	}
	if (old)
		bpf_prog_put(old);
	return 0;
}

int octf_bpf(struct net_device *netdev, struct netdev_bpf *bpf)
{
	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return octf_xdp_setup(netdev_priv(netdev), bpf->prog,
				      bpf->extack);
	default:
		return -EOPNOTSUPP;
	}
}

void octf_xdp_set_features(struct net_device *netdev)
{
#ifdef OCTF_HAVE_XDP_FEATURES
	xdp_set_features_flag(netdev, NETDEV_XDP_ACT_BASIC |
			      NETDEV_XDP_ACT_REDIRECT |
			      NETDEV_XDP_ACT_NDO_XMIT);
#endif
}
