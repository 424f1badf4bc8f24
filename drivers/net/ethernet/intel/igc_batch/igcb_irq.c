// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch interrupts and NAPI: MSI-X vectors (0 for link and other
 * causes, 1..n for the queue pairs), IVAR routing, EITR moderation, and
 * an MSI or INTx fallback with a single queue pair.
 *
 * The NAPI poll registered for every queue vector is one dbbatch pass:
 * its batch opens when the pass first hands the stack a packet, so a poll
 * that only reclaims transmitted buffers, or whose frames all go to
 * XDP_REDIRECT, XDP_TX or XDP_DROP, opens none (unless GRO holds frames
 * of an earlier pass).
 */

#include <linux/bitfield.h>
#include <linux/interrupt.h>

#include "igcb.h"

static u16 igcb_itr_value(unsigned int usecs)
{
	/* A zero interval would not throttle at all; keep 1 us. */
	return FIELD_PREP(IGCB_EITR_INTERVAL, clamp(usecs, 1U, IGCB_ITR_MAX_US));
}

/* A new EITR value is written when the vector next fires, not when it is
 * computed: writing EITR restarts the interval timer.
 */
static void igcb_itr_write(struct igcb_q_vector *qv)
{
	if (!qv->itr_dirty)
		return;
	writel(qv->itr | IGCB_EITR_CNT_IGNR, qv->eitr);
	qv->itr_dirty = false;
}

/**
 * igcb_itr_update - adapt a vector's interrupt rate to its traffic
 * @qv: the vector, from its NAPI poll, after napi_complete_done()
 *
 * The rule is igcb_itr_next() (igcb_itr.h).  The receive pass, hence the
 * doorbell batch, grows with the interval.
 */
static void igcb_itr_update(struct igcb_q_vector *qv)
{
	unsigned int usecs;
	u16 itr;

	usecs = igcb_itr_next(&qv->itr_work,
			      FIELD_GET(IGCB_EITR_INTERVAL, qv->itr),
			      qv->adapter->link_speed, qv->tx.count);
	memset(&qv->itr_work, 0, sizeof(qv->itr_work));
	itr = igcb_itr_value(usecs);
	if (itr != qv->itr) {
		qv->itr = itr;
		qv->itr_dirty = true;
	}
}

/* ethtool -C: a fixed interval now, or back to adaptive. */
void igcb_itr_apply_all(struct igcb_adapter *a)
{
	unsigned int i;

	for (i = 0; i < a->num_queues; i++) {
		struct igcb_q_vector *qv = a->qv[i];

		qv->itr = igcb_itr_value(a->itr_adaptive ? IGCB_ITR_DEFAULT_US :
					 a->itr_us);
		memset(&qv->itr_work, 0, sizeof(qv->itr_work));
		qv->itr_dirty = true;
		if (qv->eitr && !test_bit(IGCB_DOWN, &a->state))
			igcb_itr_write(qv);
	}
}

/* After napi_complete_done(): let the vector fire again.  Static, like
 * igcb_itr_update(): the poll is their only caller, and inlined into it
 * they cost no call per interrupt.
 */
static void igcb_irq_rearm(struct igcb_q_vector *qv)
{
	struct igcb_adapter *a = qv->adapter;

	if (test_bit(IGCB_DOWN, &a->state))
		return;
	if (a->irq_mode == IGCB_IRQ_MSIX)
		igcb_wr32(&a->hw, IGCB_EIMS, qv->eims);
	else
		igcb_irq_enable(a);
}

static int igcb_poll(struct napi_struct *napi, int budget,
		     struct dbbatch *batch)
{
	struct igcb_q_vector *qv = container_of(napi, struct igcb_q_vector,
					       napi);
	bool tx_done;
	int done = 0;

	tx_done = igcb_tx_clean(&qv->tx, budget);
	if (budget)
		done = igcb_rx_clean(qv, budget, batch);
	if (unlikely(atomic_read(&qv->adapter->faults.panic_in_poll)) &&
	    batch->depth)
		igcb_panic_in_poll(qv->adapter);
	if (!tx_done || done >= budget)
		return budget;

	/* Busy polling may keep NAPI: re-arm only if we really completed. */
	if (likely(napi_complete_done(napi, done))) {
		if (qv->adapter->itr_adaptive)
			igcb_itr_update(qv);
		igcb_irq_rearm(qv);
	}
	return min(done, budget - 1);
}

/* The poll NAPI runs: one dbbatch pass, its batch opened on demand. */
static int igcb_napi_poll(struct napi_struct *napi, int budget)
{
	return dbbatch_napi_poll_on_demand(napi, budget, igcb_poll);
}

static void igcb_other_causes(struct igcb_adapter *a, u32 icr)
{
	if (icr & IGCB_ICR_DRSTA)
		schedule_work(&a->reset_task);
	if (icr & IGCB_ICR_LSC) {
		a->hw.link_check = true;
		if (!test_bit(IGCB_DOWN, &a->state))
			mod_timer(&a->watchdog_timer, jiffies + 1);
	}
}

static irqreturn_t igcb_msix_other(int irq, void *data)
{
	struct igcb_adapter *a = data;
	u32 icr = igcb_rd32(&a->hw, IGCB_ICR);

	igcb_other_causes(a, icr);
	igcb_wr32(&a->hw, IGCB_EIMS, a->eims_other);
	return IRQ_HANDLED;
}

static irqreturn_t igcb_msix_queue(int irq, void *data)
{
	struct igcb_q_vector *qv = data;

	igcb_itr_write(qv);
	napi_schedule_irqoff(&qv->napi);
	return IRQ_HANDLED;
}

/* MSI or INTx: one vector for everything, causes read from ICR. */
static irqreturn_t igcb_intr_single(int irq, void *data)
{
	struct igcb_adapter *a = data;
	struct igcb_q_vector *qv = a->qv[0];
	u32 icr = igcb_rd32(&a->hw, IGCB_ICR);

	if (a->irq_mode == IGCB_IRQ_INTX && !(icr & IGCB_ICR_INT_ASSERTED))
		return IRQ_NONE;	/* a shared line, not ours */
	igcb_itr_write(qv);
	igcb_other_causes(a, icr);
	napi_schedule(&qv->napi);
	return IRQ_HANDLED;
}

static void igcb_qv_init(struct igcb_adapter *a, struct igcb_q_vector *qv,
			 unsigned int i)
{
	struct device *dev = &a->pdev->dev;

	qv->adapter = a;
	qv->idx = i;
	qv->itr = igcb_itr_value(a->itr_adaptive ? IGCB_ITR_DEFAULT_US :
				 a->itr_us);

	qv->tx.qid = i;
	qv->tx.count = a->tx_desc;
	qv->tx.adapter = a;
	qv->tx.netdev = a->netdev;
	qv->tx.dev = dev;
	u64_stats_init(&qv->tx.db_sync);
	u64_stats_init(&qv->tx.clean_sync);

	qv->rx.qid = i;
	qv->rx.count = a->rx_desc;
	qv->rx.adapter = a;
	qv->rx.qv = qv;
	qv->rx.netdev = a->netdev;
	qv->rx.dev = dev;
	u64_stats_init(&qv->rx.sync);

#ifdef IGCB_HAVE_NAPI_ADD_WEIGHT
	netif_napi_add(a->netdev, &qv->napi, igcb_napi_poll);
#else
	netif_napi_add(a->netdev, &qv->napi, igcb_napi_poll, NAPI_POLL_WEIGHT);
#endif
}

/**
 * igcb_irq_init - allocate interrupt vectors
 * @a: the port; a->num_queues is the wish, reduced to what is available
 *
 * MSI-X gets one vector per queue pair plus one; without MSI-X the port
 * runs a single queue pair on MSI or INTx.
 *
 * Return: 0 or a negative errno.
 */
int igcb_irq_init(struct igcb_adapter *a)
{
	struct pci_dev *pdev = a->pdev;
	int got;

	got = pci_alloc_irq_vectors(pdev, 2, a->num_queues + 1, PCI_IRQ_MSIX);
	if (got >= 2) {
		a->irq_mode = IGCB_IRQ_MSIX;
		a->num_queues = got - 1;
	} else {
#ifdef IGCB_HAVE_PCI_IRQ_INTX
		got = pci_alloc_irq_vectors(pdev, 1, 1,
					    PCI_IRQ_MSI | PCI_IRQ_INTX);
#else
		got = pci_alloc_irq_vectors(pdev, 1, 1,
					    PCI_IRQ_MSI | PCI_IRQ_LEGACY);
#endif
		if (got < 0)
			return got;
		a->irq_mode = pdev->msi_enabled ? IGCB_IRQ_MSI : IGCB_IRQ_INTX;
		a->num_queues = 1;
		dev_info(&pdev->dev, "no MSI-X: one queue pair on %s\n",
			 a->irq_mode == IGCB_IRQ_MSI ? "MSI" : "INTx");
	}
	a->num_irqs = got;
	return 0;
}

void igcb_irq_fini(struct igcb_adapter *a)
{
	if (a->irq_mode != IGCB_IRQ_NONE)
		pci_free_irq_vectors(a->pdev);
	a->irq_mode = IGCB_IRQ_NONE;
	a->num_irqs = 0;
}

/**
 * igcb_qv_alloc - allocate the queue vectors, all of them
 * @a: the port, at probe
 *
 * All IGCB_MAX_QUEUES exist for the port's lifetime, whatever the queue
 * count: statistics readers (not under RTNL) never see one go away, and
 * counters survive ethtool -L.
 *
 * Return: 0 or -ENOMEM.
 */
int igcb_qv_alloc(struct igcb_adapter *a)
{
	unsigned int i;

	for (i = 0; i < IGCB_MAX_QUEUES; i++) {
		struct igcb_q_vector *qv;

		qv = kzalloc_node(sizeof(*qv), GFP_KERNEL,
				  dev_to_node(&a->pdev->dev));
		if (!qv) {
			igcb_qv_free(a);
			return -ENOMEM;
		}
		igcb_qv_init(a, qv, i);
		a->qv[i] = qv;
	}
	return 0;
}

void igcb_qv_free(struct igcb_adapter *a)
{
	unsigned int i;

	for (i = 0; i < IGCB_MAX_QUEUES; i++) {
		if (!a->qv[i])
			continue;
		/* netif_napi_del() waits for RCU readers of the NAPI. */
		netif_napi_del(&a->qv[i]->napi);
		kfree(a->qv[i]);
		a->qv[i] = NULL;
	}
}

int igcb_irq_request(struct igcb_adapter *a)
{
	struct net_device *netdev = a->netdev;
	struct pci_dev *pdev = a->pdev;
	unsigned int i;
	int err;

	if (a->irq_mode != IGCB_IRQ_MSIX) {
		a->qv[0]->irq = pci_irq_vector(pdev, 0);
		err = request_irq(a->qv[0]->irq, igcb_intr_single,
				  a->irq_mode == IGCB_IRQ_INTX ? IRQF_SHARED : 0,
				  netdev->name, a);
		if (!err)
			a->irqs_requested = true;
		return err;
	}

	err = request_irq(pci_irq_vector(pdev, 0), igcb_msix_other, 0,
			  netdev->name, a);
	if (err)
		return err;
	for (i = 0; i < a->num_queues; i++) {
		struct igcb_q_vector *qv = a->qv[i];
		unsigned int cpu;

		qv->irq = pci_irq_vector(pdev, i + 1);
		snprintf(qv->name, sizeof(qv->name), "%s-TxRx-%u",
			 netdev->name, i);
		err = request_irq(qv->irq, igcb_msix_queue, 0, qv->name, qv);
		if (err)
			goto undo;
		/* Spread the queues over CPUs near the device. */
		cpu = cpumask_local_spread(i, dev_to_node(&pdev->dev));
		irq_set_affinity_and_hint(qv->irq, cpumask_of(cpu));
	}
	a->irqs_requested = true;
	return 0;

undo:
	while (i--) {
		irq_update_affinity_hint(a->qv[i]->irq, NULL);
		free_irq(a->qv[i]->irq, a->qv[i]);
	}
	free_irq(pci_irq_vector(pdev, 0), a);
	return err;
}

void igcb_irq_free(struct igcb_adapter *a)
{
	unsigned int i;

	if (!a->irqs_requested)
		return;
	a->irqs_requested = false;
	if (a->irq_mode != IGCB_IRQ_MSIX) {
		free_irq(a->qv[0]->irq, a);
		return;
	}
	for (i = 0; i < a->num_queues; i++) {
		irq_update_affinity_hint(a->qv[i]->irq, NULL);
		free_irq(a->qv[i]->irq, a->qv[i]);
	}
	free_irq(pci_irq_vector(a->pdev, 0), a);
}

/* Route queue @q's RX and TX causes to MSI-X vector @vector. */
static void igcb_ivar_set(struct igcb_hw *hw, unsigned int q,
			  unsigned int vector)
{
	unsigned int shift = (q & 1) * 16;
	u32 ivar = igcb_rd32(hw, IGCB_IVAR(q >> 1));

	ivar &= ~(0xFFFFU << shift);
	ivar |= (vector | IGCB_IVAR_VALID) << shift;		/* RX */
	ivar |= (vector | IGCB_IVAR_VALID) << (shift + 8);	/* TX */
	igcb_wr32(hw, IGCB_IVAR(q >> 1), ivar);
}

/**
 * igcb_irq_configure - program vectors, routing and moderation
 * @a: the port, after a reset
 */
void igcb_irq_configure(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	unsigned int i, first;

	a->eims_all = 0;
	a->eims_other = 0;
	if (a->irq_mode == IGCB_IRQ_MSIX) {
		/* MSI-X mode first: the routing below depends on it. */
		igcb_wr32(hw, IGCB_GPIE, IGCB_GPIE_MSIX_MODE | IGCB_GPIE_PBA |
			  IGCB_GPIE_EIAME | IGCB_GPIE_NSICR);
		/* Other causes (link) on vector 0 */
		a->eims_other = BIT(0);
		igcb_wr32(hw, IGCB_IVAR_MISC, IGCB_IVAR_VALID << 8);
		first = 1;
	} else {
		first = 0;
	}
	a->eims_all = a->eims_other;

	for (i = 0; i < a->num_queues; i++) {
		struct igcb_q_vector *qv = a->qv[i];

		qv->vector = first + i;
		qv->eims = BIT(qv->vector);
		qv->eitr = hw->io + IGCB_EITR(qv->vector);
		igcb_ivar_set(hw, i, qv->vector);
		qv->itr_dirty = true;
		igcb_itr_write(qv);
		a->eims_all |= qv->eims;
	}
	igcb_wrflush(hw);
}

void igcb_irq_enable(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;

	if (a->irq_mode == IGCB_IRQ_MSIX) {
		/* Queue vectors auto-clear and auto-mask; NAPI re-arms them. */
		igcb_wr32(hw, IGCB_EIAC, igcb_rd32(hw, IGCB_EIAC) | a->eims_all);
		igcb_wr32(hw, IGCB_EIAM, igcb_rd32(hw, IGCB_EIAM) | a->eims_all);
		igcb_wr32(hw, IGCB_EIMS, a->eims_all);
		igcb_wr32(hw, IGCB_IMS, IGCB_ICR_LSC | IGCB_ICR_DOUTSYNC |
			  IGCB_ICR_DRSTA);
	} else {
		u32 mask = IGCB_ICR_RXT0 | IGCB_ICR_TXDW | IGCB_ICR_RXDMT0 |
			   IGCB_ICR_RXSEQ | IGCB_ICR_LSC | IGCB_ICR_DRSTA;

		igcb_wr32(hw, IGCB_IMS, mask);
		igcb_wr32(hw, IGCB_IAM, mask);
	}
}

void igcb_irq_disable(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	unsigned int i;

	if (a->irq_mode == IGCB_IRQ_MSIX) {
		igcb_wr32(hw, IGCB_EIAM,
			  igcb_rd32(hw, IGCB_EIAM) & ~a->eims_all);
		igcb_wr32(hw, IGCB_EIMC, a->eims_all);
		igcb_wr32(hw, IGCB_EIAC,
			  igcb_rd32(hw, IGCB_EIAC) & ~a->eims_all);
	}
	igcb_wr32(hw, IGCB_IAM, 0);
	igcb_wr32(hw, IGCB_IMC, ~0U);
	igcb_wrflush(hw);

	if (!a->irqs_requested)
		return;
	for (i = 0; i < a->num_irqs; i++)
		synchronize_irq(pci_irq_vector(a->pdev, i));
}

/* A software interrupt on every queue vector, so their rings get looked at. */
void igcb_irq_kick(struct igcb_adapter *a)
{
	if (a->irq_mode == IGCB_IRQ_MSIX)
		igcb_wr32(&a->hw, IGCB_EICS, a->eims_all & ~a->eims_other);
	else
		igcb_wr32(&a->hw, IGCB_ICS, IGCB_ICR_RXDMT0);
}

struct igcb_irq_probe {
	struct igcb_adapter *a;
	atomic_t hits;
};

static irqreturn_t igcb_irq_probe_intr(int irq, void *data)
{
	struct igcb_irq_probe *p = data;
	struct igcb_adapter *a = p->a;
	u32 icr;

	/* Without MSI-X the cause stays in ICR until read: the line would
	 * stay asserted.  A shared INTx line may be someone else's.
	 */
	if (a->irq_mode != IGCB_IRQ_MSIX) {
		icr = igcb_rd32(&a->hw, IGCB_ICR);
		if (a->irq_mode == IGCB_IRQ_INTX &&
		    !(icr & IGCB_ICR_INT_ASSERTED))
			return IRQ_NONE;
	}
	atomic_inc(&p->hits);
	return IRQ_HANDLED;
}

/* Wait up to 100 ms for the vector to fire. */
static bool igcb_irq_probe_wait(struct igcb_irq_probe *p)
{
	unsigned int i;

	for (i = 0; i < 100 && !atomic_read(&p->hits); i++)
		usleep_range(1000, 2000);
	return atomic_read(&p->hits);
}

/**
 * igcb_irq_selftest - make every vector fire once, by software
 * @a: the port, closed (no interrupt requested), after a MAC reset
 *
 * MSI-X: each vector through EICS, with moderation off and auto-clear on;
 * MSI or INTx: a link-change cause through ICS.  The caller resets the MAC
 * afterwards.
 *
 * Return: 0, -EIO if a vector never fired, or request_irq()'s error.
 */
int igcb_irq_selftest(struct igcb_adapter *a)
{
	struct igcb_irq_probe probe[IGCB_MAX_QUEUES + 1];
	struct igcb_hw *hw = &a->hw;
	unsigned int v, i, n = a->num_irqs;
	unsigned long flags;
	int err = 0;

	if (a->irqs_requested || n > ARRAY_SIZE(probe))
		return -EBUSY;
	flags = a->irq_mode == IGCB_IRQ_INTX ? IRQF_SHARED : 0;
	for (v = 0; v < n; v++) {
		probe[v].a = a;
		atomic_set(&probe[v].hits, 0);
		err = request_irq(pci_irq_vector(a->pdev, v),
				  igcb_irq_probe_intr, flags, a->netdev->name,
				  &probe[v]);
		if (err)
			goto out;
	}

	if (a->irq_mode == IGCB_IRQ_MSIX) {
		u32 all = GENMASK(n - 1, 0);

		igcb_wr32(hw, IGCB_GPIE, IGCB_GPIE_MSIX_MODE | IGCB_GPIE_PBA |
			  IGCB_GPIE_NSICR);
		for (v = 0; v < n; v++)
			igcb_wr32(hw, IGCB_EITR(v), 0);
		igcb_wr32(hw, IGCB_EIAC, all);
		igcb_wr32(hw, IGCB_EIMS, all);
		for (i = 0; i < n && !err; i++) {
			igcb_wr32(hw, IGCB_EICS, BIT(i));
			igcb_wrflush(hw);
			if (!igcb_irq_probe_wait(&probe[i])) {
				netdev_err(a->netdev, "interrupt test: MSI-X vector %u never fired; check the platform's MSI-X support (pci=nomsi to fall back)\n",
					   i);
				err = -EIO;
			}
		}
		igcb_wr32(hw, IGCB_EIMC, all);
		igcb_wr32(hw, IGCB_EIAC, 0);
	} else {
		igcb_wr32(hw, IGCB_IMS, IGCB_ICR_LSC);
		igcb_wr32(hw, IGCB_ICS, IGCB_ICR_LSC);
		igcb_wrflush(hw);
		if (!igcb_irq_probe_wait(&probe[0])) {
			netdev_err(a->netdev, "interrupt test: no %s interrupt; check the platform's interrupt routing\n",
				   a->irq_mode == IGCB_IRQ_MSI ? "MSI" : "INTx");
			err = -EIO;
		}
	}
	igcb_wr32(hw, IGCB_IMC, ~0U);
	igcb_wrflush(hw);
out:
	while (v--)
		free_irq(pci_irq_vector(a->pdev, v), &probe[v]);
	return err;
}
