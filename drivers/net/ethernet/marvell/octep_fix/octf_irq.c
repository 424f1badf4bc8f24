// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix interrupts: MSI-X with the 16 non-ring vectors the SDP has and
 * one per ring (ring q on 16 + q, as the block raises it), vector 8 for the
 * firmware (OEI: control mailbox answers and notifications, heartbeat).
 *
 * A ring's vector is disarmed by the block when it fires and armed again
 * by the RESEND bit the NAPI poll writes to OUT_CNTS and IN_CNTS when it
 * completes; the block raises it again at once if packets are waiting.
 */

#include <linux/interrupt.h>

#include "octf.h"

static irqreturn_t octf_ring_irq(int irq, void *data)
{
	struct octf_qv *qv = data;

	napi_schedule_irqoff(&qv->napi);
	return IRQ_HANDLED;
}

/* Mailbox work runs in a thread: the f2h ring is read under a lock. */
static irqreturn_t octf_oei_irq(int irq, void *data)
{
	struct octf_port *p = data;
	u64 cause = octf_rd64(p, OCTF_OEI_RINT);

	if (!cause)
		return IRQ_NONE;
	octf_wr64(p, OCTF_OEI_RINT, cause);	/* W1C */
	if (cause & OCTF_OEI_HEARTBEAT)
		octf_fw_heartbeat(p);
	if (cause & OCTF_OEI_MBOX)
		schedule_work(&p->fw_work);
	return IRQ_HANDLED;
}

/**
 * octf_irq_init - MSI-X vectors and the firmware's vector
 * @p: the port, max_rings known
 *
 * All 16 + rings vectors are allocated once, at probe, as the device
 * lays them out; vector 8 is requested here and kept until remove, so
 * that mailbox answers and heartbeats arrive whether the port is up or
 * not.
 */
int octf_irq_init(struct octf_port *p)
{
	struct pci_dev *pdev = p->pdev;
	unsigned int n = OCTF_NON_IOQ_VECTORS + p->max_rings;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, n, n, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(&pdev->dev, "cannot have the %u MSI-X vectors the SDP lays out (16 + %u rings): %d\n",
			n, p->max_rings, ret);
		return ret;
	}
	p->num_vectors = n;
	p->oei_irq = pci_irq_vector(pdev, OCTF_OEI_VECTOR);
	ret = request_irq(p->oei_irq, octf_oei_irq, 0, OCTF_DRV_NAME "-fw", p);
	if (ret) {
		dev_err(&pdev->dev, "cannot request the firmware's vector: %d\n",
			ret);
		pci_free_irq_vectors(pdev);
		return ret;
	}
	octf_wr64(p, OCTF_OEI_RINT, ~0ULL);
	octf_wr64(p, OCTF_OEI_RINT_ENA_W1S, OCTF_OEI_MBOX | OCTF_OEI_HEARTBEAT);
	return 0;
}

void octf_irq_fini(struct octf_port *p)
{
	octf_wr64(p, OCTF_OEI_RINT_ENA_W1C, OCTF_OEI_MBOX | OCTF_OEI_HEARTBEAT);
	free_irq(p->oei_irq, p);
	pci_free_irq_vectors(p->pdev);
}

static int octf_poll(struct napi_struct *napi, int budget,
		     struct dbbatch *batch);

/* One dbbatch pass, its batch opened when the pass first hands the stack
 * a frame: a poll that only reclaims transmitted buffers, or whose frames
 * all go to XDP_REDIRECT, XDP_TX or XDP_DROP, opens none (unless GRO
 * holds frames of an earlier pass).
 */
static int octf_napi_poll(struct napi_struct *napi, int budget)
{
	return dbbatch_napi_poll_on_demand(napi, budget, octf_poll);
}

/**
 * octf_qv_alloc - allocate queue vectors [@from, @to)
 * @p: the port
 * @from: first index
 * @to: one past the last
 *
 * All or nothing: on failure none of them is left, and the vectors below
 * @from (the port's current ones) are untouched.
 *
 * Return: 0 or -ENOMEM.
 */
int octf_qv_alloc(struct octf_port *p, unsigned int from, unsigned int to)
{
	unsigned int i;

	for (i = from; i < to; i++) {
		struct octf_qv *qv = kzalloc(sizeof(*qv), GFP_KERNEL);

		if (!qv) {
			octf_qv_free(p, from, i);
			return -ENOMEM;
		}
		qv->port = p;
		qv->idx = i;
		qv->irq = pci_irq_vector(p->pdev, OCTF_NON_IOQ_VECTORS + i);
		qv->iq.qid = i;
		qv->iq.port = p;
		qv->iq.netdev = p->netdev;
		qv->iq.dev = &p->pdev->dev;
		u64_stats_init(&qv->iq.sync);
		u64_stats_init(&qv->iq.clean_sync);
		qv->oq.qid = i;
		qv->oq.port = p;
		qv->oq.qv = qv;
		qv->oq.netdev = p->netdev;
		qv->oq.dev = &p->pdev->dev;
		u64_stats_init(&qv->oq.sync);
		u64_stats_init(&qv->oq.wd_sync);
#ifdef OCTF_HAVE_NAPI_ADD_WEIGHT
		netif_napi_add(p->netdev, &qv->napi, octf_napi_poll);
#else
		netif_napi_add(p->netdev, &qv->napi, octf_napi_poll,
			       NAPI_POLL_WEIGHT);
#endif
		/* published whole: ndo_get_stats64 reads it without RTNL */
		smp_store_release(&p->qv[i], qv);
	}
	return 0;
}

/* Free queue vectors [@from, @to); their rings must be freed already.
 * Their counters stay in the port's totals (octf_stats_retire()).
 */
void octf_qv_free(struct octf_port *p, unsigned int from, unsigned int to)
{
	struct octf_qv *gone[OCTF_MAX_QUEUES];
	unsigned int i, n = 0;

	for (i = from; i < to && i < OCTF_MAX_QUEUES; i++)
		if (p->qv[i])
			gone[n++] = p->qv[i];
	if (!n)
		return;
	octf_stats_retire(p, gone, n);
	for (i = 0; i < n; i++)
		__netif_napi_del(&gone[i]->napi);
	/* one grace period for the stats readers and the NAPI instances */
	synchronize_net();
	for (i = 0; i < n; i++)
		kfree(gone[i]);
}

int octf_irq_request(struct octf_port *p)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->num_queues; i++) {
		struct octf_qv *qv = p->qv[i];

		snprintf(qv->name, sizeof(qv->name), "%s-rxtx-%u",
			 p->netdev->name, i);
		err = request_irq(qv->irq, octf_ring_irq, 0, qv->name, qv);
		if (err) {
			netdev_err(p->netdev, "cannot request ring %u's vector: %d\n",
				   i, err);
			while (i--)
				free_irq(p->qv[i]->irq, p->qv[i]);
			return err;
		}
		irq_set_affinity_hint(qv->irq, get_cpu_mask(i % num_online_cpus()));
	}
	return 0;
}

void octf_irq_free(struct octf_port *p)
{
	unsigned int i;

	for (i = 0; i < p->num_queues; i++) {
		irq_set_affinity_hint(p->qv[i]->irq, NULL);
		free_irq(p->qv[i]->irq, p->qv[i]);
	}
}

/* Arm the ring's vector again: the block raises it now if work waits.
 * An output ring stopped at a gap stays unarmed: its count would raise
 * it at once, a pass per interrupt finding the same gap; the watchdog's
 * tick looks again until the resync.
 */
void octf_irq_rearm(struct octf_qv *qv)
{
	writeq(OCTF_CNTS_RESEND, qv->iq.cnts);
	if (READ_ONCE(qv->oq.gap_idx) == U32_MAX)
		writeq(OCTF_CNTS_RESEND, qv->oq.cnts);
}

/* One NAPI pass: transmit completions, then receive; the first frame
 * handed to the stack opens the pass's batch.
 */
static int octf_poll(struct napi_struct *napi, int budget,
		     struct dbbatch *batch)
{
	struct octf_qv *qv = container_of(napi, struct octf_qv, napi);
	bool tx_done;
	int work;

	tx_done = octf_iq_clean(&qv->iq, budget);
	if (!budget)
		return 0;	/* netpoll: transmit completions only */
	work = octf_oq_clean(qv, budget, batch);
	if (!tx_done)
		work = budget;
	if (work >= budget)
		return budget;
	if (napi_complete_done(napi, work))
		octf_irq_rearm(qv);
	return work;
}
