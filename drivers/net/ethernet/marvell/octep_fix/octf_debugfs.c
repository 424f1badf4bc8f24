// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix debugfs: <debugfs>/octep_fix/<pci address>/
 *
 *   quiesce_ms   write N: hold every ring's servicing (NAPI) for N ms, as
 *                a detach's quiesce would, then resume (tests fill a ring)
 *   oq_wmark     read/write the port's watermark setting (validated); a
 *                running port restarts its rings to apply it
 *   oq_ceiling   read/write the credit ceiling: 0 is the exact grant; a
 *                lower value starves the rings on purpose (tests)
 *   credit       read: each output ring's credit state
 *   skip_rx_alloc, fail_rx_alloc  the next skip_rx_alloc receive pages
 *                are allocated, then fail_rx_alloc fail as if memory ran
 *                out (igc_batch's knobs); both read what is left
 *   injected     read: the faults injected so far
 */

#include <linux/debugfs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>

#include "octf.h"

static struct dentry *octf_dbg_root;

static int octf_dbg_quiesce_set(void *data, u64 val)
{
	struct octf_port *p = data;

	if (val > 10000)
		return -ERANGE;
	octf_quiesce(p, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(octf_dbg_quiesce_fops, NULL, octf_dbg_quiesce_set,
			 "%llu\n");

static int octf_dbg_wmark_get(void *data, u64 *val)
{
	*val = ((struct octf_port *)data)->wmark;
	return 0;
}

static int octf_dbg_wmark_set(void *data, u64 val)
{
	struct octf_port *p = data;
	enum octf_credit_err cerr;
	int err;

	cerr = val > U32_MAX ? OCTF_CREDIT_TOO_LARGE : octf_wmark_check(val);
	if (cerr) {
		netdev_err(p->netdev, "oq_wmark %#llx refused: %s; a multiple of 16 from %#x to %#x\n",
			   val, octf_credit_err_str(cerr), OCTF_WMARK_MIN,
			   OCTF_WMARK_MAX);
		return -EINVAL;
	}
	rtnl_lock();
	err = octf_reconfigure(p, p->num_queues, p->iq_count, p->oq_count,
			       val);
	rtnl_unlock();
	return err;
}
DEFINE_DEBUGFS_ATTRIBUTE(octf_dbg_wmark_fops, octf_dbg_wmark_get,
			 octf_dbg_wmark_set, "0x%llx\n");

static int octf_dbg_ceiling_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct octf_port *)data)->test.ceiling);
	return 0;
}

static int octf_dbg_ceiling_set(void *data, u64 val)
{
	if (val > U32_MAX)
		return -ERANGE;
	octf_set_ceiling(data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(octf_dbg_ceiling_fops, octf_dbg_ceiling_get,
			 octf_dbg_ceiling_set, "%llu\n");

static int octf_dbg_credit_show(struct seq_file *s, void *unused)
{
	struct octf_port *p = s->private;
	unsigned int i;

	rtnl_lock();
	seq_printf(s, "wmark %#x effective %#x running %d\n", p->wmark,
		   p->wmark_eff, !test_bit(OCTF_DOWN, &p->state));
	/* the watch for a firmware watermark above wmark_eff (racy) */
	seq_printf(s, "low watch: last interval refused %llu least %#x spoiled %d; this one least %#x spoiled %d; judged low %llu; last judged: refused %llu least %#x spoiled %u\n",
		   p->low.refused, p->low.least, p->low.spoiled,
		   READ_ONCE(p->low_least),
		   test_bit(OCTF_LOW_SPOILED, &p->state),
		   READ_ONCE(p->wmark_low), p->low_judged_refused,
		   p->low_judged_least, p->low_judged_spoiled);
	for (i = 0; i < p->num_queues && !test_bit(OCTF_DOWN, &p->state); i++) {
		struct octf_oq *oq = &p->qv[i]->oq;
		unsigned int j, posted = 0;

		/* racy against a running pass: read it with the ring at rest */
		for (j = 0; j < oq->count; j++)
			posted += !!READ_ONCE(oq->bufs[j].page);
		seq_printf(s, "ring %u: size %u buffers %u ceiling %u outstanding %u owed %u credit_now %u in_device_max %u read %u refill %u to_refill %u posted %u\n",
			   i, oq->count, oq->nbufs,
			   READ_ONCE(oq->credit.ceiling),
			   READ_ONCE(oq->credit.outstanding),
			   READ_ONCE(oq->credit.owed),
			   READ_ONCE(oq->credit_now),
			   READ_ONCE(oq->in_device_max),
			   READ_ONCE(oq->read_idx), READ_ONCE(oq->refill_idx),
			   READ_ONCE(oq->to_refill), posted);
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(octf_dbg_credit);

void octf_debugfs_add(struct octf_port *p)
{
	struct dentry *d;

	if (IS_ERR_OR_NULL(octf_dbg_root))
		return;
	d = debugfs_create_dir(pci_name(p->pdev), octf_dbg_root);
	p->debugfs = d;
	debugfs_create_file_unsafe("quiesce_ms", 0200, d, p,
				   &octf_dbg_quiesce_fops);
	debugfs_create_file_unsafe("oq_wmark", 0600, d, p,
				   &octf_dbg_wmark_fops);
	debugfs_create_file_unsafe("oq_ceiling", 0600, d, p,
				   &octf_dbg_ceiling_fops);
	debugfs_create_file("credit", 0400, d, p, &octf_dbg_credit_fops);
	debugfs_create_atomic_t("skip_rx_alloc", 0600, d,
				&p->test.skip_rx_alloc);
	debugfs_create_atomic_t("fail_rx_alloc", 0600, d,
				&p->test.fail_rx_alloc);
	debugfs_create_atomic_t("injected", 0400, d, &p->test.injected);
}

void octf_debugfs_del(struct octf_port *p)
{
	debugfs_remove_recursive(p->debugfs);
	p->debugfs = NULL;
}

void octf_debugfs_init(void)
{
	octf_dbg_root = debugfs_create_dir(OCTF_DRV_NAME, NULL);
}

void octf_debugfs_exit(void)
{
	debugfs_remove_recursive(octf_dbg_root);
}
