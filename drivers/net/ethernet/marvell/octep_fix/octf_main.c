// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix: PCI probe and removal, the net_device operations, bringing
 * the port up and down, the watchdog and the ring restart work.
 *
 * Probe: wait for the firmware's ready flag (deferring the probe until it
 * is set), map BAR0 and the control mailbox in BAR4, read the rings per
 * PF, set up MSI-X and the firmware's vector, open the mailbox (v2 only),
 * GET_INFO (its failure aborts), start heartbeat supervision, GET_MTU,
 * GET_MAC, register.  Open: rings, interrupts, NAPI, then RX state and
 * link up in the firmware; the carrier follows the firmware's link.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>

#include "octf.h"

static const struct pci_device_id octf_pci_tbl[] = {
	{ PCI_VDEVICE(CAVIUM, 0xB200) },	/* CN93xx PF */
	{ PCI_VDEVICE(CAVIUM, 0xB100) },	/* CN98xx PF */
	{ }
};
MODULE_DEVICE_TABLE(pci, octf_pci_tbl);

static void octf_free_rings(struct octf_port *p)
{
	unsigned int i;

	for (i = 0; i < p->num_queues; i++) {
		octf_iq_free(&p->qv[i]->iq);
		octf_oq_free(&p->qv[i]->oq);
	}
}

static int octf_alloc_rings(struct octf_port *p)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->num_queues; i++) {
		struct octf_qv *qv = p->qv[i];

		qv->iq.count = p->iq_count;
		qv->oq.count = p->oq_count;
		qv->oq.nbufs = p->oq_count;
		err = octf_iq_alloc(&qv->iq);
		if (!err)
			err = octf_oq_alloc(&qv->oq);
		if (err) {
			netdev_err(p->netdev, "no memory for ring pair %u (%u + %u entries): %d\n",
				   i, p->iq_count, p->oq_count, err);
			octf_free_rings(p);
			return err;
		}
	}
	return 0;
}

/* Program and start the rings; NAPI and the vectors follow. */
static int octf_up(struct octf_port *p)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->num_queues; i++) {
		octf_iq_configure(&p->qv[i]->iq);
		err = octf_oq_configure(&p->qv[i]->oq);
		if (err) {
			/* This ring's input queue is on already; its output
			 * ring was never programmed (a new vector's has no
			 * doorbell address yet) and holds no page.
			 */
			octf_iq_disable(&p->qv[i]->iq);
			while (i--) {
				octf_iq_disable(&p->qv[i]->iq);
				octf_oq_disable(&p->qv[i]->oq);
			}
			return err;
		}
	}
	clear_bit(OCTF_DOWN, &p->state);
	for (i = 0; i < p->num_queues; i++) {
		napi_enable(&p->qv[i]->napi);
		octf_irq_rearm(p->qv[i]);
	}
	netif_tx_start_all_queues(p->netdev);
	return 0;
}

static void octf_down(struct octf_port *p)
{
	struct net_device *netdev = p->netdev;
	unsigned int i;

	set_bit(OCTF_DOWN, &p->state);
	netif_carrier_off(netdev);
	netif_tx_disable(netdev);
	for (i = 0; i < p->num_queues; i++)
		napi_disable(&p->qv[i]->napi);
	for (i = 0; i < p->num_queues; i++) {
		octf_iq_disable(&p->qv[i]->iq);
		octf_oq_disable(&p->qv[i]->oq);
	}
	/* no batch may still hold a doorbell of the rings about to go */
	octf_doorbell_tx_quiesce(p);
	for (i = 0; i < p->num_queues; i++)
		octf_iq_drop_all(&p->qv[i]->iq);
}

int octf_open(struct net_device *netdev)
{
	struct octf_port *p = netdev_priv(netdev);
	int err;

	netif_carrier_off(netdev);
	err = octf_alloc_rings(p);
	if (err)
		return err;
	err = octf_irq_request(p);
	if (err)
		goto err_irq;
	err = netif_set_real_num_tx_queues(netdev, p->num_queues);
	if (!err)
		err = netif_set_real_num_rx_queues(netdev, p->num_queues);
	if (err)
		goto err_up;
	err = octf_up(p);
	if (err)
		goto err_up;
	/* Without the firmware the carrier stays off; the watchdog retries. */
	mutex_lock(&p->fw_lock);
	if (!test_bit(OCTF_FW_LOST, &p->state))
		octf_fw_port_up(p);
	mutex_unlock(&p->fw_lock);
	return 0;

err_up:
	octf_irq_free(p);
err_irq:
	octf_free_rings(p);
	return err;
}

int octf_close(struct net_device *netdev)
{
	struct octf_port *p = netdev_priv(netdev);

	if (!test_bit(OCTF_DOWN, &p->state)) {
		/* after a port-up the watchdog asked for, none after this */
		mutex_lock(&p->fw_lock);
		octf_fw_port_down(p);
		octf_down(p);
		mutex_unlock(&p->fw_lock);
		octf_irq_free(p);
		octf_free_rings(p);
	}
	return 0;
}

/**
 * octf_close_failed - close a running port that could not be reopened
 * @p: the port, RTNL held, its rings freed by the failed octf_open()
 * @what: what was being done, for the message
 * @err: why the open failed
 *
 * Closed, not left "up" without rings: ip link set up would then do
 * nothing, and every later close, reconfigure or restart would work on
 * rings that are gone.
 */
void octf_close_failed(struct octf_port *p, const char *what, int err)
{
	struct net_device *netdev = p->netdev;

	netdev_err(netdev, "cannot reopen after %s (%d): port closed; bring it up again with ip link set %s up\n",
		   what, err, netdev->name);
	if (netif_running(netdev))
		dev_close(netdev);
}

/**
 * octf_reconfigure - change queues, ring sizes or the watermark
 * @p: the port, RTNL held
 * @queues: ring pairs
 * @iq_count: input ring size
 * @oq_count: output ring size (its buffers are allocated to match)
 * @wmark: the watermark setting, checked
 *
 * A running port is closed and opened again: rings are never changed
 * under the block.  If the new settings cannot be opened the old ones
 * are restored; if even those cannot, the port is closed with a message,
 * never left "up" without rings.  The queue vectors of the old setting
 * stay until the new one works, so that going back allocates nothing:
 * qv[0 .. num_queues - 1] always exist.
 *
 * Return: 0 or a negative errno (the old settings are back).
 */
int octf_reconfigure(struct octf_port *p, unsigned int queues, u32 iq_count,
		     u32 oq_count, u32 wmark)
{
	struct net_device *netdev = p->netdev;
	unsigned int old_q = p->num_queues;
	u32 old_iq = p->iq_count, old_oq = p->oq_count, old_w = p->wmark;
	bool running = netif_running(netdev);
	int err;

	ASSERT_RTNL();
	/* ethtool refuses a detached device itself; debugfs does not */
	if (!netif_device_present(netdev)) {
		netdev_err(netdev, "the device is detached (PCI error recovery or system sleep): settings unchanged; try again once it is back\n");
		return -EBUSY;
	}
	if (queues > old_q) {
		err = octf_qv_alloc(p, old_q, queues);
		if (err) {
			netdev_err(netdev, "cannot apply the new ring settings (%d): keeping %u queues, rings %u/%u, oq_wmark %#x\n",
				   err, old_q, old_iq, old_oq, old_w);
			return err;
		}
	}
	if (running)
		octf_close(netdev);
	p->num_queues = queues;
	p->iq_count = iq_count;
	p->oq_count = oq_count;
	p->wmark = wmark;
	p->wmark_eff = wmark;
	err = running ? octf_open(netdev) : 0;
	if (!err) {
		octf_qv_free(p, queues, old_q);
		return 0;
	}

	netdev_err(netdev, "cannot apply the new ring settings (%d): keeping %u queues, rings %u/%u, oq_wmark %#x\n",
		   err, old_q, old_iq, old_oq, old_w);
	/* The count first: octf_xdp_ring() reads it without RTNL. */
	WRITE_ONCE(p->num_queues, old_q);
	octf_qv_free(p, old_q, queues);
	p->iq_count = old_iq;
	p->oq_count = old_oq;
	p->wmark = old_w;
	p->wmark_eff = old_w;
	if (running) {
		int open_err = octf_open(netdev);

		if (open_err)
			octf_close_failed(p, "a ring or channel change",
					  open_err);
	}
	return err;
}

/**
 * octf_quiesce - hold every ring's servicing for @ms milliseconds
 * @p: the port
 * @ms: how long
 *
 * For tests of a ring left to fill.  The block goes on receiving into the
 * buffers it has credit for, and refuses what does not fit.  The resume
 * marks every ring as visited, so that the watchdog does not count what
 * the hold did as a stall.
 */
void octf_quiesce(struct octf_port *p, unsigned int ms)
{
	unsigned int i;

	rtnl_lock();
	if (test_bit(OCTF_DOWN, &p->state)) {
		rtnl_unlock();
		return;
	}
	WRITE_ONCE(p->test.quiesced, true);
	for (i = 0; i < p->num_queues; i++)
		napi_disable(&p->qv[i]->napi);
	msleep(ms);
	local_bh_disable();
	for (i = 0; i < p->num_queues; i++) {
		struct octf_qv *qv = p->qv[i];

		qv->oq.visited = true;
		qv->oq.unvisited_ticks = 0;
		napi_enable(&qv->napi);
		napi_schedule(&qv->napi);
	}
	local_bh_enable();
	WRITE_ONCE(p->test.quiesced, false);
	rtnl_unlock();
}

/* Lower (or restore, 0) the rings' credit ceiling; passes apply it. */
void octf_set_ceiling(struct octf_port *p, u32 ceiling)
{
	unsigned int i;

	rtnl_lock();
	WRITE_ONCE(p->test.ceiling, ceiling);
	if (!test_bit(OCTF_DOWN, &p->state) && !p->test.quiesced) {
		local_bh_disable();
		for (i = 0; i < p->num_queues; i++)
			napi_schedule(&p->qv[i]->napi);
		local_bh_enable();
	}
	rtnl_unlock();
}

static int octf_change_mtu(struct net_device *netdev, int mtu)
{
	struct octf_port *p = netdev_priv(netdev);
	u32 hdr = OCTF_RX_HDR + (p->fw.rx_ol ? OCTF_RX_OL_HDR : 0);
	int err;

	if (octf_xdp_on(p) &&
	    mtu > OCTF_RX_BUFSZ(hdr) - hdr - ETH_HLEN - 2 * VLAN_HLEN) {
		netdev_err(netdev, "MTU %d does not fit one receive buffer, which XDP needs: detach the XDP program first\n",
			   mtu);
		return -EINVAL;
	}
	err = octf_fw_set_mtu(p, mtu);
	if (err) {
		netdev_err(netdev, "the firmware refused MTU %d (%d): MTU stays %u\n",
			   mtu, err, netdev->mtu);
		return err == -ETIMEDOUT ? err : -EINVAL;
	}
	WRITE_ONCE(netdev->mtu, mtu);
	if (!test_bit(OCTF_DOWN, &p->state)) {
		unsigned int q;

		for (q = 0; q < p->num_queues; q++)
			octf_oq_set_mtu(&p->qv[q]->oq, mtu);
	}
	return 0;
}

static int octf_set_mac(struct net_device *netdev, void *addr)
{
	struct octf_port *p = netdev_priv(netdev);
	struct sockaddr *sa = addr;
	int err;

	if (!is_valid_ether_addr(sa->sa_data))
		return -EADDRNOTAVAIL;
	err = octf_fw_set_mac(p, sa->sa_data);
	if (err) {
		netdev_err(netdev, "the firmware refused MAC %pM (%d)\n",
			   sa->sa_data, err);
		return err;
	}
	eth_hw_addr_set(netdev, sa->sa_data);
	return 0;
}

static void octf_tx_timeout(struct net_device *netdev, unsigned int txqueue)
{
	struct octf_port *p = netdev_priv(netdev);

	p->tx_timeouts++;
	netdev_err(netdev, "transmit queue %u timed out: restarting the rings\n",
		   txqueue);
	set_bit(OCTF_RESTART, &p->state);
	schedule_work(&p->reset_work);
}

static const struct net_device_ops octf_netdev_ops = {
	.ndo_open		= octf_open,
	.ndo_stop		= octf_close,
	.ndo_start_xmit		= octf_xmit,
	.ndo_set_mac_address	= octf_set_mac,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_change_mtu		= octf_change_mtu,
	.ndo_tx_timeout		= octf_tx_timeout,
	.ndo_get_stats64	= octf_get_stats64,
	.ndo_bpf		= octf_bpf,
	.ndo_xdp_xmit		= octf_xdp_xmit,
};

static void octf_watchdog(struct work_struct *work)
{
	struct octf_port *p = container_of(to_delayed_work(work),
					   struct octf_port, watchdog);
	unsigned int i;

	/* close waits for this work under RTNL: never block on it */
	if (!rtnl_trylock())
		goto out;
	octf_fw_supervise(p);
	if (test_and_clear_bit(OCTF_WAKE_QUEUES, &p->state) &&
	    !test_bit(OCTF_DOWN, &p->state))
		octf_iq_wake_all(p);
	if (!test_bit(OCTF_DOWN, &p->state) && !READ_ONCE(p->test.quiesced)) {
		local_bh_disable();
		for (i = 0; i < p->num_queues; i++)
			octf_oq_watch(&p->qv[i]->oq);
		local_bh_enable();
	}
	if (++p->wd_ticks >= OCTF_FW_STATS_TICKS) {
		p->wd_ticks = 0;
		if (netif_running(p->netdev) && !test_bit(OCTF_DOWN, &p->state))
			schedule_work(&p->fw_stats_work);
	}
	rtnl_unlock();
out:
	schedule_delayed_work(&p->watchdog,
			      msecs_to_jiffies(OCTF_WD_PERIOD_MS));
}

static void octf_fw_work(struct work_struct *work)
{
	octf_mbox_poll(container_of(work, struct octf_port, fw_work));
}

/* A restarted firmware knows nothing of the port: tell it the MTU and
 * MAC address again (the rings follow in the reopen).
 */
static void octf_fw_restore(struct octf_port *p)
{
	struct net_device *netdev = p->netdev;
	int err;

	err = octf_fw_set_mtu(p, netdev->mtu);
	if (!err)
		err = octf_fw_set_mac(p, netdev->dev_addr);
	if (err)
		netdev_err(netdev, "the restarted firmware did not take the MTU and MAC address (%d): set them again with ip link\n",
			   err);
}

static void octf_reset_work(struct work_struct *work)
{
	struct octf_port *p = container_of(work, struct octf_port,
					   reset_work);
	struct net_device *netdev = p->netdev;
	bool fw;
	int err;

	rtnl_lock();
	fw = test_and_clear_bit(OCTF_FW_RESTARTED, &p->state);
	if (fw)
		octf_fw_restore(p);
	if ((test_and_clear_bit(OCTF_RESTART, &p->state) || fw) &&
	    netif_running(netdev) && netif_device_present(netdev)) {
		p->ring_restarts++;
		netdev_warn(netdev, "restarting the rings (oq_wmark %#x)\n",
			    p->wmark_eff);
		octf_close(netdev);
		err = octf_open(netdev);
		if (err)
			octf_close_failed(p, "a ring restart", err);
	}
	rtnl_unlock();
}

static int octf_read_rings(struct octf_port *p)
{
	u64 mac = octf_rd64(p, OCTF_MAC_NUMBER) & 0xFF;
	u64 ctl = octf_rd64(p, OCTF_MAC_PF_RING_CTL(mac));

	p->max_rings = p->cn98 ? FIELD_GET(OCTF_CN98_RPPF, ctl) :
				 FIELD_GET(OCTF_CN93_RPPF, ctl);
	if (!p->max_rings) {
		dev_err(&p->pdev->dev, "the firmware gave this PF no rings (MAC_PF_RING_CTL %#llx): check the Octeon's PF configuration\n",
			ctl);
		return -ENODEV;
	}
	return 0;
}

static int octf_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *netdev;
	struct octf_port *p;
	u8 mac[ETH_ALEN];
	int err, mtu;

	if (!octf_fw_ready(pdev)) {
		dev_info(&pdev->dev, "Octeon firmware not ready yet: probe deferred\n");
		return -EPROBE_DEFER;
	}
	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(&pdev->dev, "no usable 64-bit DMA\n");
		goto err_dma;
	}
	err = pci_request_mem_regions(pdev, OCTF_DRV_NAME);
	if (err)
		goto err_dma;
	pci_set_master(pdev);
	/* what a slot reset of PCI error recovery restores */
	pci_save_state(pdev);

	err = -ENOMEM;
	netdev = alloc_etherdev_mq(sizeof(*p), OCTF_MAX_QUEUES);
	if (!netdev)
		goto err_netdev;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	pci_set_drvdata(pdev, netdev);
	p = netdev_priv(netdev);
	p->netdev = netdev;
	p->pdev = pdev;
	p->cn98 = pdev->device == 0xB100;
	set_bit(OCTF_DOWN, &p->state);
	mutex_init(&p->mbox.lock);
	spin_lock_init(&p->mbox.rx_lock);
	octf_stats_init(p);
	init_completion(&p->mbox.done);
	INIT_DELAYED_WORK(&p->watchdog, octf_watchdog);
	INIT_WORK(&p->fw_work, octf_fw_work);
	INIT_WORK(&p->reset_work, octf_reset_work);
	INIT_WORK(&p->fw_up_work, octf_fw_up_work);
	INIT_WORK(&p->fw_stats_work, octf_fw_stats_work);
	p->low_least = OCTF_DBELL_NONE;
	mutex_init(&p->fw_lock);

	err = -EIO;
	p->bar0 = pci_iomap(pdev, 0, 0);
	if (!p->bar0)
		goto err_bar0;
	if (pci_resource_len(pdev, OCTF_MBOX_BAR) <
	    OCTF_MBOX_OFFSET + OCTF_MBOX_LINK_STRIDE) {
		dev_err(&pdev->dev, "BAR4 is %llu bytes, too small for the control mailbox at %#x\n",
			(u64)pci_resource_len(pdev, OCTF_MBOX_BAR),
			OCTF_MBOX_OFFSET);
		goto err_bar4;
	}
	p->bar4 = pci_iomap_range(pdev, OCTF_MBOX_BAR, OCTF_MBOX_OFFSET,
				  OCTF_MBOX_LINK_STRIDE);
	if (!p->bar4)
		goto err_bar4;
	p->mbox.base = p->bar4;

	err = octf_read_rings(p);
	if (err)
		goto err_rings;
	err = octf_irq_init(p);
	if (err)
		goto err_rings;
	err = octf_mbox_init(p);
	if (err)
		goto err_mbox;
	err = octf_fw_get_info(p);
	if (err) {
		dev_err(&pdev->dev, "firmware did not answer GET_INFO (%d): is it running? Reload octep_fix once it is\n",
			err);
		goto err_info;
	}
	/* Supervision starts now: the first heartbeat is due within limits. */
	p->last_hb = jiffies;
	mtu = octf_fw_get_mtu(p);
	if (mtu < 0) {
		dev_warn(&pdev->dev, "firmware did not give its MTU (%d): assuming %u\n",
			 mtu, OCTF_MAX_MTU_DEFAULT);
		mtu = OCTF_MAX_MTU_DEFAULT;
	}
	err = octf_fw_get_mac(p, mac);
	if (!err && is_valid_ether_addr(mac)) {
		eth_hw_addr_set(netdev, mac);
	} else {
		dev_warn(&pdev->dev, "firmware gave no valid MAC address (%d): using a random one\n",
			 err);
		eth_hw_addr_random(netdev);
	}

	p->iq_count = OCTF_DEFAULT_IQ;
	p->oq_count = OCTF_DEFAULT_OQ;
	p->wmark = octf_params_wmark();
	p->wmark_eff = p->wmark;
	p->db_flags = octf_params_db_flags();
	p->num_queues = min3(p->max_rings, num_online_cpus(),
			     (unsigned int)OCTF_MAX_QUEUES);
	err = octf_qv_alloc(p, 0, p->num_queues);
	if (err)
		goto err_info;

	netdev->netdev_ops = &octf_netdev_ops;
	octf_set_ethtool_ops(netdev);
	octf_stats_set_ops(netdev);
	octf_xdp_set_features(netdev);
	netdev->features = NETIF_F_SG | NETIF_F_HIGHDMA;
	netdev->hw_features = NETIF_F_SG;
	netdev->vlan_features = NETIF_F_SG | NETIF_F_HIGHDMA;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = mtu;
	netdev->watchdog_timeo = 5 * HZ;

	err = register_netdev(netdev);
	if (err)
		goto err_register;
	netif_carrier_off(netdev);
	schedule_delayed_work(&p->watchdog, msecs_to_jiffies(OCTF_WD_PERIOD_MS));
	octf_debugfs_add(p);
	netdev_info(netdev, "Octeon %s SDP at %s, MAC %pM, %u of %u rings, firmware pkind %u fsz %u heartbeat %u ms x %u; oq_wmark %#x (grant ring + %u); doorbells: skip-empty %s, batched %s\n",
		    p->cn98 ? "CN98xx" : "CN93xx", pci_name(pdev),
		    netdev->dev_addr, p->num_queues, p->max_rings, p->fw.pkind,
		    p->fw.fsz, p->fw.hb_interval, p->fw.hb_miss, p->wmark,
		    p->wmark - OCTF_FETCH,
		    p->db_flags & OCTF_DB_SKIP_EMPTY ? "on" : "off",
		    p->db_flags & OCTF_DB_TX_BATCHED ? "on" : "off");
	return 0;

err_register:
	octf_qv_free(p, 0, OCTF_MAX_QUEUES);
err_info:
	octf_mbox_uninit(p);
err_mbox:
	octf_irq_fini(p);
	cancel_work_sync(&p->fw_work);
err_rings:
	pci_iounmap(pdev, p->bar4);
err_bar4:
	pci_iounmap(pdev, p->bar0);
err_bar0:
	free_netdev(netdev);
err_netdev:
	pci_release_mem_regions(pdev);
err_dma:
	pci_disable_device(pdev);
	return err;
}

static void octf_remove(struct pci_dev *pdev)
{
	struct net_device *netdev = pci_get_drvdata(pdev);
	struct octf_port *p = netdev_priv(netdev);

	octf_debugfs_del(p);
	/* unregister_netdev() closes the port: rings, vectors, batches */
	unregister_netdev(netdev);
	cancel_delayed_work_sync(&p->watchdog);
	cancel_work_sync(&p->reset_work);
	cancel_work_sync(&p->fw_up_work);
	cancel_work_sync(&p->fw_stats_work);
	if (!test_bit(OCTF_FW_LOST, &p->state))
		octf_fw_dev_remove(p);
	octf_irq_fini(p);
	cancel_work_sync(&p->fw_work);
	octf_mbox_uninit(p);
	octf_qv_free(p, 0, OCTF_MAX_QUEUES);
	pci_iounmap(pdev, p->bar4);
	pci_iounmap(pdev, p->bar0);
	pci_release_mem_regions(pdev);
	mutex_destroy(&p->mbox.lock);
	mutex_destroy(&p->fw_lock);
	free_netdev(netdev);
	/* a failed PCI error recovery left it disabled already */
	if (pci_is_enabled(pdev))
		pci_disable_device(pdev);
}

/* Stop the port for system sleep or shutdown: detached, closed (no DMA,
 * ring vectors freed), the watchdog stopped.  What the user configured
 * stays in the port and is programmed again by octf_open().
 */
static void octf_stop_port(struct octf_port *p)
{
	struct net_device *netdev = p->netdev;

	cancel_delayed_work_sync(&p->watchdog);
	rtnl_lock();
	netif_device_detach(netdev);
	if (netif_running(netdev))
		octf_close(netdev);
	rtnl_unlock();
	cancel_work_sync(&p->reset_work);
	cancel_work_sync(&p->fw_up_work);
	cancel_work_sync(&p->fw_stats_work);
}

static int octf_suspend(struct device *dev)
{
	octf_stop_port(netdev_priv(dev_get_drvdata(dev)));
	return 0;
}

/* Bring a stopped port back (after system sleep or a PCI error): greet
 * the firmware again (it may have restarted), reopen what was running,
 * attach, restart the watchdog.
 */
static void octf_restart_port(struct octf_port *p, const char *what)
{
	struct net_device *netdev = p->netdev;
	int err;

	pci_set_master(p->pdev);
	octf_wr64(p, OCTF_OEI_RINT_ENA_W1S, OCTF_OEI_MBOX | OCTF_OEI_HEARTBEAT);
	rtnl_lock();
	err = octf_mbox_init(p);
	p->last_hb = jiffies;
	clear_bit(OCTF_FW_LOST, &p->state);
	if (err)
		netdev_err(netdev, "the firmware's mailbox did not answer after %s (%d)\n",
			   what, err);
	else if (netif_running(netdev))
		err = octf_open(netdev);
	if (err)
		octf_close_failed(p, what, err);
	netif_device_attach(netdev);
	rtnl_unlock();
	schedule_delayed_work(&p->watchdog, msecs_to_jiffies(OCTF_WD_PERIOD_MS));
}

static int octf_resume(struct device *dev)
{
	octf_restart_port(netdev_priv(dev_get_drvdata(dev)), "resume");
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(octf_pm_ops, octf_suspend, octf_resume);

/* Reboot, power off or kexec: no DMA may outlive us. */
static void octf_shutdown(struct pci_dev *pdev)
{
	struct octf_port *p = netdev_priv(pci_get_drvdata(pdev));

	octf_stop_port(p);
	pci_clear_master(pdev);
	netdev_dbg(p->netdev, "shut down: DMA stopped\n");
}

/* PCI error recovery (AER): stop the port without trusting the device
 * (no mailbox request: the firmware is out of reach until the reset),
 * let the PCI core reset the slot, then greet the firmware and reopen.
 */
static pci_ers_result_t octf_io_error_detected(struct pci_dev *pdev,
					       pci_channel_state_t state)
{
	struct octf_port *p = netdev_priv(pci_get_drvdata(pdev));

	netdev_err(p->netdev, "PCI error (channel state %d): stopping the port for recovery\n",
		   state);
	set_bit(OCTF_FW_LOST, &p->state);
	octf_stop_port(p);
	if (state == pci_channel_io_perm_failure)
		return PCI_ERS_RESULT_DISCONNECT;
	pci_disable_device(pdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t octf_io_slot_reset(struct pci_dev *pdev)
{
	if (pci_enable_device_mem(pdev)) {
		dev_err(&pdev->dev, "cannot enable the device after a slot reset; it stays off: reload octep_fix or replace the card\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_set_master(pdev);
	pci_restore_state(pdev);
	pci_save_state(pdev);
	return PCI_ERS_RESULT_RECOVERED;
}

static void octf_io_resume(struct pci_dev *pdev)
{
	struct octf_port *p = netdev_priv(pci_get_drvdata(pdev));

	octf_restart_port(p, "a PCI error");
	netdev_info(p->netdev, "recovered from a PCI error\n");
}

static const struct pci_error_handlers octf_err_handlers = {
	.error_detected	= octf_io_error_detected,
	.slot_reset	= octf_io_slot_reset,
	.resume		= octf_io_resume,
};

static struct pci_driver octf_driver = {
	.name		= OCTF_DRV_NAME,
	.id_table	= octf_pci_tbl,
	.probe		= octf_probe,
	.remove		= octf_remove,
	.shutdown	= octf_shutdown,
	.driver.pm	= pm_sleep_ptr(&octf_pm_ops),
	.err_handler	= &octf_err_handlers,
};

static int __init octf_init_module(void)
{
	int err;

	octf_debugfs_init();
	err = pci_register_driver(&octf_driver);
	if (err)
		octf_debugfs_exit();
	return err;
}
module_init(octf_init_module);

static void __exit octf_exit_module(void)
{
	pci_unregister_driver(&octf_driver);
	octf_debugfs_exit();
}
module_exit(octf_exit_module);

MODULE_DESCRIPTION("Marvell Octeon CN93xx/CN98xx endpoint NIC with watermark-aware receive credits and batched doorbells");
MODULE_LICENSE("GPL");
