// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix firmware: the control commands (GET_INFO, MTU, MAC, link, RX
 * state, DEV_REMOVE), link notifications and heartbeat supervision.
 *
 * Request bodies start with {u16 sender, u16 receiver, u16 cmd, u16 rsvd}
 * and answers with the same header whose last word is the reply code
 * (octf_mbox_request() checks it); the command's data follows at +8.
 *
 * Heartbeat: the firmware pulses OEI bit 1 every hb_interval / 2 or so.
 * When none came for hb_interval x hb_miss the port is taken down (the
 * carrier off, transmit stopped) with a message, and it comes back by
 * itself when the heartbeat does: the firmware is told RX and link up
 * again and the carrier follows its link state.
 */

#include <linux/etherdevice.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>

#include "octf.h"

#define OCTF_REQ_HDR	8
/* LINK_INFO's body, and the request: {u16 op, 6 bytes pad, body} */
#define OCTF_LINK_INFO_LEN	24
#define OCTF_LINK_INFO_REQ	(8 + OCTF_LINK_INFO_LEN)
/* GET_IF_STATS' rx half: dropped_pkts_fifo_full, the frames the block
 * refused for want of a host buffer (octep_iface_rx_stats' 7th u64)
 */
#define OCTF_IF_RX_DROPS	48

/**
 * octf_fw_ready - has the firmware said it is ready?
 * @pdev: the device
 *
 * The firmware sets byte 8 of a vendor-specific extended capability with
 * ID 0xA3 when it has booted.  A device without the capability (older
 * firmware) is taken as ready.
 */
bool octf_fw_ready(struct pci_dev *pdev)
{
	int pos = 0;
	u16 id;
	u8 ready;

	while ((pos = pci_find_next_ext_capability(pdev, pos,
						   PCI_EXT_CAP_ID_VNDR))) {
		if (pci_read_config_word(pdev, pos + PCI_VNDR_HEADER, &id))
			break;
		if (id != OCTF_FW_READY_VSEC_ID)
			continue;
		if (pci_read_config_byte(pdev, pos + OCTF_FW_READY_OFF, &ready))
			return false;
		return ready == 1;
	}
	return true;
}

static int octf_fw_cmd(struct octf_port *p, u16 cmd, const void *data,
		       u32 dlen, void *out, u32 olen)
{
	u8 req[OCTF_REQ_HDR + OCTF_LINK_INFO_REQ] = { 0 };
	u8 resp[96];
	int ret;

	if (WARN_ON(dlen > sizeof(req) - OCTF_REQ_HDR))
		return -EINVAL;
	put_unaligned_le16(cmd, req + 4);
	memcpy(req + OCTF_REQ_HDR, data, dlen);
	ret = octf_mbox_request(p, req, OCTF_REQ_HDR + dlen, resp,
				sizeof(resp));
	if (ret < 0)
		return ret;
	if (out) {
		if (ret < OCTF_REQ_HDR + olen)
			return -EPROTO;
		memcpy(out, resp + OCTF_REQ_HDR, olen);
	}
	return 0;
}

/* GET or SET of a u16 value (MTU, link state, RX state) */
static int octf_fw_u16(struct octf_port *p, u16 cmd, u16 op, u16 val,
		       u16 *out)
{
	u8 data[4];
	__le16 v;
	int err;

	put_unaligned_le16(op, data);
	put_unaligned_le16(val, data + 2);
	err = octf_fw_cmd(p, cmd, data, sizeof(data), out ? &v : NULL,
			  out ? sizeof(v) : 0);
	if (!err && out)
		*out = le16_to_cpu(v);
	return err;
}

int octf_fw_get_info(struct octf_port *p)
{
	u8 info[16];
	int err;

	err = octf_fw_cmd(p, OCTF_CMD_GET_INFO, NULL, 0, info, sizeof(info));
	if (err)
		return err;
	p->fw.pkind = info[0];
	p->fw.fsz = info[1];
	p->fw.hb_interval = get_unaligned_le16(info + 2);
	p->fw.hb_miss = get_unaligned_le16(info + 4);
	p->fw.rx_ol = get_unaligned_le16(info + 8);
	p->fw.tx_ol = get_unaligned_le16(info + 10);
	return 0;
}

/* Return: the largest MTU the firmware takes, or a negative errno. */
int octf_fw_get_mtu(struct octf_port *p)
{
	u16 frame;
	int err;

	err = octf_fw_u16(p, OCTF_CMD_MTU, OCTF_NET_GET, 0, &frame);
	if (err)
		return err;
	/* the firmware answers with the frame size: Ethernet, FCS, VLAN */
	return frame > ETH_HLEN + ETH_FCS_LEN + 4 ? frame - 18 : -EPROTO;
}

int octf_fw_set_mtu(struct octf_port *p, int mtu)
{
	return octf_fw_u16(p, OCTF_CMD_MTU, OCTF_NET_SET, mtu, NULL);
}

int octf_fw_get_mac(struct octf_port *p, u8 *addr)
{
	u8 data[2] = { OCTF_NET_GET, 0 };

	return octf_fw_cmd(p, OCTF_CMD_MAC, data, sizeof(data), addr,
			   ETH_ALEN);
}

int octf_fw_set_mac(struct octf_port *p, const u8 *addr)
{
	u8 data[2 + ETH_ALEN] = { OCTF_NET_SET, 0 };

	memcpy(data + 2, addr, ETH_ALEN);
	return octf_fw_cmd(p, OCTF_CMD_MAC, data, sizeof(data), NULL, 0);
}

/* Return: 1 link up, 0 down, or a negative errno. */
int octf_fw_get_link(struct octf_port *p)
{
	u16 state;
	int err;

	err = octf_fw_u16(p, OCTF_CMD_LINK_STATUS, OCTF_NET_GET, 0, &state);
	return err ? err : !!state;
}

int octf_fw_set_link(struct octf_port *p, bool up)
{
	return octf_fw_u16(p, OCTF_CMD_LINK_STATUS, OCTF_NET_SET, up, NULL);
}

int octf_fw_set_rx_state(struct octf_port *p, bool up)
{
	return octf_fw_u16(p, OCTF_CMD_RX_STATE, OCTF_NET_SET, up, NULL);
}

/* LINK_INFO: the request is {u16 op, 6 pad, body}, the answer the body:
 * {u64 supported, u64 advertised, u8 autoneg, u8 pause, 2 pad, u32
 * speed (Mb/s)}.
 */
int octf_fw_get_link_info(struct octf_port *p, struct octf_link_info *li)
{
	u8 data[2] = { OCTF_NET_GET, 0 };
	u8 info[OCTF_LINK_INFO_LEN];
	int err;

	err = octf_fw_cmd(p, OCTF_CMD_LINK_INFO, data, sizeof(data), info,
			  sizeof(info));
	if (err)
		return err;
	li->supported = get_unaligned_le64(info);
	li->advertised = get_unaligned_le64(info + 8);
	li->autoneg = info[16];
	li->pause = info[17];
	li->speed = get_unaligned_le32(info + 20);
	return 0;
}

int octf_fw_set_link_info(struct octf_port *p,
			  const struct octf_link_info *li)
{
	u8 data[OCTF_LINK_INFO_REQ] = { OCTF_NET_SET, 0 };
	u8 *body = data + OCTF_LINK_INFO_REQ - OCTF_LINK_INFO_LEN;

	put_unaligned_le64(li->supported, body);
	put_unaligned_le64(li->advertised, body + 8);
	body[16] = li->autoneg;
	body[17] = li->pause;
	put_unaligned_le32(li->speed, body + 20);
	return octf_fw_cmd(p, OCTF_CMD_LINK_INFO, data, sizeof(data), NULL, 0);
}

/* Tell the firmware the host driver is going away; no answer needed. */
void octf_fw_dev_remove(struct octf_port *p)
{
	int err = octf_fw_cmd(p, OCTF_CMD_DEV_REMOVE, NULL, 0, NULL, 0);

	if (err)
		dev_dbg(&p->pdev->dev, "DEV_REMOVE: %d\n", err);
}

static void octf_fw_carrier(struct octf_port *p, bool up)
{
	struct net_device *netdev = p->netdev;

	WRITE_ONCE(p->fw_link_up, up);
	if (up && !test_bit(OCTF_DOWN, &p->state) &&
	    !test_bit(OCTF_FW_LOST, &p->state)) {
		if (!netif_carrier_ok(netdev)) {
			netdev_info(netdev, "link up, %u Mb/s\n", p->link_speed);
			netif_carrier_on(netdev);
			/* not here: a notification comes without RTNL, and
			 * a wake racing octf_down() lets the stack transmit
			 * into rings being freed
			 */
			set_bit(OCTF_WAKE_QUEUES, &p->state);
		}
	} else if (netif_carrier_ok(netdev)) {
		netdev_info(netdev, "link down\n");
		netif_carrier_off(netdev);
	}
}

/* A firmware-to-host notification: {hdr, u16 state at +8} for the link */
void octf_fw_notify(struct octf_port *p, const u8 *msg, u32 len)
{
	if (len < OCTF_REQ_HDR + 2 ||
	    get_unaligned_le16(msg + 4) != OCTF_F2H_LINK_STATUS)
		return;
	octf_fw_carrier(p, get_unaligned_le16(msg + OCTF_REQ_HDR));
}

/**
 * octf_fw_port_up - ask the firmware for RX and link, read the link
 * @p: the port, rings running
 *
 * Return: 0, or the error of the first request that failed; the caller
 * leaves the carrier off and the watchdog tries again.
 */
int octf_fw_port_up(struct octf_port *p)
{
	struct octf_link_info li;
	int err, link;

	err = octf_fw_set_rx_state(p, true);
	if (!err)
		err = octf_fw_set_link(p, true);
	if (err)
		goto fail;
	p->link_speed = octf_fw_get_link_info(p, &li) ? 0 : li.speed;
	link = octf_fw_get_link(p);
	if (link < 0) {
		err = link;
		goto fail;
	}
	clear_bit(OCTF_FW_LINK_RETRY, &p->state);
	octf_fw_carrier(p, link);
	return 0;

fail:
	if (!test_and_set_bit(OCTF_FW_LINK_RETRY, &p->state))
		netdev_warn(p->netdev, "firmware did not take the port up (%d): carrier stays off, retrying every %u ms\n",
			    err, OCTF_WD_PERIOD_MS);
	return err;
}

void octf_fw_port_down(struct octf_port *p)
{
	clear_bit(OCTF_FW_LINK_RETRY, &p->state);
	/* A lost firmware would only make each request time out. */
	if (test_bit(OCTF_FW_LOST, &p->state))
		return;
	octf_fw_set_link(p, false);
	octf_fw_set_rx_state(p, false);
}

/* OEI bit 1, from vector 8's handler */
void octf_fw_heartbeat(struct octf_port *p)
{
	WRITE_ONCE(p->last_hb, jiffies);
	p->hb_seen++;
}

/* Port-up for the watchdog, without RTNL (see struct octf_port). */
void octf_fw_up_work(struct work_struct *work)
{
	struct octf_port *p = container_of(work, struct octf_port,
					   fw_up_work);

	mutex_lock(&p->fw_lock);
	if (!test_bit(OCTF_DOWN, &p->state) &&
	    !test_bit(OCTF_FW_LOST, &p->state))
		octf_fw_port_up(p);
	mutex_unlock(&p->fw_lock);
}

/* The refusals say the firmware's watermark is above the rings' grant
 * (octf_low_tick()): counted each time, said once per setting.
 */
static void octf_fw_wmark_low(struct octf_port *p, u32 wmark, u32 fw)
{
	u32 ring = p->oq_count;

	WRITE_ONCE(p->wmark_low, p->wmark_low + 1);
	if (p->wmark_low_said == wmark)
		return;
	p->wmark_low_said = wmark;
	netdev_warn(p->netdev, "the SDP block refused frames while its output rings' doorbells read %#x or more: the firmware's output watermark is at least %#x, above oq_wmark %#x, so a ring of %u buffers uses only about %u. Set oq_wmark to the firmware's watermark (module parameter oq_wmark=%#x, or the image's own value)\n",
		    fw - OCTF_FETCH, fw, wmark, ring,
		    ring > fw - wmark ? ring - (fw - wmark) : 0, fw);
}

/**
 * octf_fw_stats_work - the firmware's interface statistics
 * @work: fw_stats_work, queued by the watchdog once a second
 *
 * Without RTNL: the request may wait for the firmware.  The frames the
 * block refused for want of a buffer are counted only there; with the
 * doorbells the passes read after them (the watchdog collects them) they
 * tell a firmware watermark above the driver's.
 */
void octf_fw_stats_work(struct work_struct *work)
{
	struct octf_port *p = container_of(work, struct octf_port,
					   fw_stats_work);
	u8 rx[OCTF_IF_RX_DROPS + 8];
	u32 wmark, fw, least;
	int err = -ENODEV;
	u64 now, refused;
	bool spoiled;

	/* the reads and spoils up to the firmware's snapshot: taken first,
	 * so that none after it is judged with the refusals before it
	 */
	least = xchg(&p->low_least, OCTF_DBELL_NONE);
	spoiled = test_and_clear_bit(OCTF_LOW_SPOILED, &p->state);
	/* not while the firmware leaves port-up unanswered: no more waits */
	mutex_lock(&p->fw_lock);
	if (!test_bit(OCTF_DOWN, &p->state) &&
	    !test_bit(OCTF_FW_LOST, &p->state) &&
	    !test_bit(OCTF_FW_LINK_RETRY, &p->state))
		err = octf_fw_cmd(p, OCTF_CMD_GET_IF_STATS, NULL, 0, rx,
				  sizeof(rx));
	mutex_unlock(&p->fw_lock);
	if (err) {
		/* an interval without its count: neither side judged */
		p->low.refused = 0;
		set_bit(OCTF_LOW_SPOILED, &p->state);
		return;
	}
	now = get_unaligned_le64(rx + OCTF_IF_RX_DROPS);
	/* what the firmware counted before this driver is not ours; a
	 * restarted firmware counts from 0 again
	 */
	if (!p->fw_drops_seen)
		p->fw_drops_raw = now;
	p->fw_drops_seen = true;
	refused = now >= p->fw_drops_raw ? now - p->fw_drops_raw : now;
	p->fw_drops_raw = now;
	WRITE_ONCE(p->fw_rx_drops, p->fw_rx_drops + refused);

	wmark = READ_ONCE(p->wmark_eff);
	if (p->low.refused) {
		p->low_judged_refused = p->low.refused;
		p->low_judged_least = min(least, p->low.least);
		p->low_judged_spoiled = p->low.spoiled | spoiled << 1;
	}
	fw = octf_low_tick(&p->low, refused, least, spoiled, wmark);
	if (fw)
		octf_fw_wmark_low(p, wmark, fw);
}

/* A firmware that restarted has put the mailbox back to its first state:
 * the READY this host wrote is gone, and there is no heartbeat until a
 * host greets it again.  A register read, no request: never waits.
 */
static bool octf_fw_restarted(struct octf_port *p)
{
	u8 __iomem *m = p->mbox.base;

	return readq(m + OCTF_MBOX_FW_STATUS) == OCTF_MBOX_STATUS_READY &&
	       readq(m + OCTF_MBOX_HOST_STATUS) != OCTF_MBOX_STATUS_READY;
}

/**
 * octf_fw_supervise - the watchdog's look at the firmware
 * @p: the port; called every OCTF_WD_PERIOD_MS under RTNL
 *
 * Decides only: every request to the firmware it leads to runs in
 * fw_up_work or reset_work, so that a mute firmware never holds RTNL
 * for a request's 500 ms.  A firmware that restarted is greeted again
 * here (registers only) and the port's rings are restarted: the restart
 * took the rings and their credit with it.
 */
void octf_fw_supervise(struct octf_port *p)
{
	struct net_device *netdev = p->netdev;
	unsigned long limit;
	unsigned int i;
	bool silent;

	if (octf_fw_restarted(p) && !test_bit(OCTF_FW_RESTARTED, &p->state)) {
		/* counted and said once greeted, not at every tick it fails */
		if (!octf_mbox_init(p)) {
			p->fw_restarts++;
			netdev_warn(netdev, "the firmware restarted: greeted it again; restarting the rings\n");
			set_bit(OCTF_FW_RESTARTED, &p->state);
			WRITE_ONCE(p->last_hb, jiffies);
			clear_bit(OCTF_FW_LOST, &p->state);
			schedule_work(&p->reset_work);
		}
		return;
	}
	if (!p->fw.hb_interval || !p->fw.hb_miss)
		return;
	limit = msecs_to_jiffies(p->fw.hb_interval * p->fw.hb_miss);
	silent = time_after(jiffies, READ_ONCE(p->last_hb) + limit);

	if (silent && !test_bit(OCTF_FW_LOST, &p->state)) {
		set_bit(OCTF_FW_LOST, &p->state);
		p->hb_lost++;
		netdev_err(netdev, "firmware heartbeat missing for %u ms (%u intervals of %u ms): port down until it returns; check the Octeon firmware (its console, or reload it)\n",
			   jiffies_to_msecs(jiffies - READ_ONCE(p->last_hb)),
			   p->fw.hb_miss, p->fw.hb_interval);
		netif_carrier_off(netdev);
		/* only the queues in use: octf_iq_wake_all() wakes those,
		 * and a stopped one left over times out once the carrier
		 * is back (the stack's watchdog looks at every queue)
		 */
		for (i = 0; i < p->num_queues; i++)
			netif_stop_subqueue(netdev, i);
		return;
	}
	if (!silent && test_bit(OCTF_FW_LOST, &p->state)) {
		clear_bit(OCTF_FW_LOST, &p->state);
		netdev_info(netdev, "firmware heartbeat is back: bringing the port up\n");
		if (netif_running(netdev) && !test_bit(OCTF_DOWN, &p->state))
			schedule_work(&p->fw_up_work);
		return;
	}
	if (!silent && test_bit(OCTF_FW_LINK_RETRY, &p->state) &&
	    netif_running(netdev) && !test_bit(OCTF_DOWN, &p->state))
		schedule_work(&p->fw_up_work);
}
