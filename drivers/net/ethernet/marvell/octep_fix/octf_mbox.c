// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix control mailbox, protocol v2 (the current firmware's): two
 * byte rings in BAR4, host-to-firmware and firmware-to-host, each message
 * a 16-byte header {is_vf, vf_idx, size, flags, msg_id} and a body.
 *
 * One request is in flight at a time (mbox.lock): the answer is matched
 * by msg_id when the firmware-to-host ring is drained, from vector 8's
 * work or by the waiter itself every few milliseconds, so an interrupt
 * that never comes costs latency, not the answer.  Firmware that speaks
 * only v1 (the 8-byte header of older images) is refused at probe.
 */

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/log2.h>

#include "octf.h"

#define OCTF_MSG_HDR_SZ		16
#define OCTF_MBOX_POLL_MS	5

static u32 octf_q_depth(u32 pi, u32 ci, u32 sz)
{
	return pi >= ci ? pi - ci : sz - ci + pi;
}

/* Copy @len bytes into a ring at *@idx, wrapping. */
static void octf_q_write(u8 __iomem *q, u32 sz, u32 *idx, const u8 *buf,
			 u32 len)
{
	while (len) {
		u32 n = min(len, sz - *idx);

		memcpy_toio(q + *idx, buf, n);
		buf += n;
		len -= n;
		*idx = (*idx + n) % sz;
	}
}

static void octf_q_read(const u8 __iomem *q, u32 sz, u32 *idx, u8 *buf,
			u32 len)
{
	while (len) {
		u32 n = min(len, sz - *idx);

		memcpy_fromio(buf, q + *idx, n);
		buf += n;
		len -= n;
		*idx = (*idx + n) % sz;
	}
}

/**
 * octf_mbox_init - check the firmware's mailbox and announce the host
 * @p: the port, BAR4 mapped
 *
 * Return: 0, -ENODEV for a mailbox that is not there or a firmware we do
 * not speak to (v1 only), -EAGAIN if the firmware is not ready yet.
 */
int octf_mbox_init(struct octf_port *p)
{
	struct octf_mbox *m = &p->mbox;
	struct device *dev = &p->pdev->dev;
	u64 magic, status, ver;

	magic = readq(m->base + OCTF_MBOX_MAGIC);
	if (magic != OCTF_MBOX_MAGIC_VAL) {
		dev_err(dev, "no control mailbox at BAR4+0x%x (magic %#llx, expected %#llx): is the Octeon firmware loaded?\n",
			OCTF_MBOX_OFFSET, magic, OCTF_MBOX_MAGIC_VAL);
		return -ENODEV;
	}
	status = readq(m->base + OCTF_MBOX_FW_STATUS);
	if (status != OCTF_MBOX_STATUS_READY) {
		dev_warn(dev, "control mailbox not ready (firmware status %llu)\n",
			 status);
		return -EAGAIN;
	}
	ver = readq(m->base + OCTF_MBOX_FW_VERSION);
	m->fw_min = upper_32_bits(ver);
	m->fw_max = lower_32_bits(ver);
	/* v1 firmware reports no version (or one before 1.0.0). */
	if (m->fw_max < OCTF_CP_VERSION_MIN || m->fw_min > OCTF_CP_VERSION_HOST) {
		dev_err(dev, "firmware control plane %x..%x speaks the v1 mailbox or a version this driver does not: octep_fix needs v2 (1.0.0 or later). Update the Octeon firmware, or use the upstream octeon_ep driver of Linux 6.1 for v1 firmware\n",
			m->fw_min, m->fw_max);
		return -ENODEV;
	}
	m->h2f_sz = readl(m->base + OCTF_MBOX_H2F_SZ);
	m->f2h_sz = readl(m->base + OCTF_MBOX_F2H_SZ);
	if (!is_power_of_2(m->h2f_sz) || !is_power_of_2(m->f2h_sz) ||
	    m->h2f_sz < 64 || m->f2h_sz < 64 ||
	    OCTF_MBOX_QUEUES + m->h2f_sz + m->f2h_sz > OCTF_MBOX_LINK_STRIDE) {
		dev_err(dev, "control mailbox queue sizes %u/%u are not what a v2 firmware reports: refusing it\n",
			m->h2f_sz, m->f2h_sz);
		return -ENODEV;
	}

	writeq(OCTF_MBOX_STATUS_INIT, m->base + OCTF_MBOX_HOST_STATUS);
	/* A host version is what tells the firmware we speak v2. */
	writeq(OCTF_CP_VERSION_HOST, m->base + OCTF_MBOX_HOST_VERSION);
	/* the firmware must see the version before READY */
	wmb();
	writeq(OCTF_MBOX_STATUS_READY, m->base + OCTF_MBOX_HOST_STATUS);
	dev_info(dev, "control mailbox v2: firmware %x..%x, host %x\n",
		 m->fw_min, m->fw_max, OCTF_CP_VERSION_HOST);
	return 0;
}

void octf_mbox_uninit(struct octf_port *p)
{
	struct octf_mbox *m = &p->mbox;

	writeq(0, m->base + OCTF_MBOX_HOST_VERSION);
	writeq(OCTF_MBOX_STATUS_INVALID, m->base + OCTF_MBOX_HOST_STATUS);
}

/**
 * octf_mbox_poll - drain the firmware-to-host ring
 * @p: the port
 *
 * Answers complete the waiting request if their msg_id is its own (a late
 * answer to a request that timed out is dropped); notifications go to
 * octf_fw_notify().  Any context that may sleep.
 */
void octf_mbox_poll(struct octf_port *p)
{
	struct octf_mbox *m = &p->mbox;
	u8 __iomem *q = m->base + OCTF_MBOX_QUEUES + m->h2f_sz;
	u8 hdr[OCTF_MSG_HDR_SZ], body[96];
	unsigned int guard;
	u32 pi, ci;

	if (readq(m->base + OCTF_MBOX_FW_STATUS) != OCTF_MBOX_STATUS_READY)
		return;
	spin_lock_bh(&m->rx_lock);
	ci = readl(m->base + OCTF_MBOX_F2H_CONS) % m->f2h_sz;
	pi = readl(m->base + OCTF_MBOX_F2H_PROD) % m->f2h_sz;
	/* Bounded: the ring holds at most f2h_sz / header messages. */
	for (guard = m->f2h_sz / OCTF_MSG_HDR_SZ; guard; guard--) {
		u32 depth = octf_q_depth(pi, ci, m->f2h_sz), len, flags, keep;
		u16 id;

		if (depth < OCTF_MSG_HDR_SZ)
			break;
		octf_q_read(q, m->f2h_sz, &ci, hdr, OCTF_MSG_HDR_SZ);
		len = get_unaligned_le32(hdr + 4);
		flags = get_unaligned_le32(hdr + 8);
		id = get_unaligned_le16(hdr + 12);
		if (len > depth - OCTF_MSG_HDR_SZ) {
			netdev_warn(p->netdev, "control mailbox: firmware message of %u bytes with %u in the ring: dropping the ring's contents\n",
				    len, depth - OCTF_MSG_HDR_SZ);
			ci = pi;
			break;
		}
		keep = min_t(u32, len, sizeof(body));
		octf_q_read(q, m->f2h_sz, &ci, body, keep);
		ci = (ci + len - keep) % m->f2h_sz;

		if (flags & OCTF_MSG_RESP) {
			if (m->waiting && id == m->wait_id) {
				memcpy(m->resp, body, keep);
				m->resp_len = keep;
				m->waiting = false;
				complete(&m->done);
			}
		} else if (flags & OCTF_MSG_NOTIFY) {
			m->notifications++;
			octf_fw_notify(p, body, keep);
		}
	}
	writel(ci, m->base + OCTF_MBOX_F2H_CONS);
	spin_unlock_bh(&m->rx_lock);
}

/**
 * octf_mbox_request - send a request and wait for its answer
 * @p: the port
 * @req: the body: {sender, receiver, cmd, rsvd} and the command's data
 * @len: its length
 * @resp: the answer's body (its header's reply word checked here)
 * @resp_len: room in @resp
 *
 * Return: bytes of answer, -ETIMEDOUT when the firmware did not answer
 * within OCTF_MBOX_TIMEOUT_MS, -EIO when it said no or is not ready,
 * -EAGAIN when the ring had no room.
 */
int octf_mbox_request(struct octf_port *p, const void *req, u32 len,
		      void *resp, u32 resp_len)
{
	struct octf_mbox *m = &p->mbox;
	u8 __iomem *q = m->base + OCTF_MBOX_QUEUES;
	unsigned long deadline;
	u8 hdr[OCTF_MSG_HDR_SZ] = { 0 };
	u32 pi, ci;
	int ret;

	if (readq(m->base + OCTF_MBOX_FW_STATUS) != OCTF_MBOX_STATUS_READY)
		return -EIO;
	mutex_lock(&m->lock);
	pi = readl(m->base + OCTF_MBOX_H2F_PROD) % m->h2f_sz;
	ci = readl(m->base + OCTF_MBOX_H2F_CONS) % m->h2f_sz;
	if (m->h2f_sz - octf_q_depth(pi, ci, m->h2f_sz) <=
	    len + OCTF_MSG_HDR_SZ) {
		mutex_unlock(&m->lock);
		return -EAGAIN;
	}
	m->msg_id++;
	put_unaligned_le32(len, hdr + 4);
	put_unaligned_le32(OCTF_MSG_REQ, hdr + 8);
	put_unaligned_le16(m->msg_id, hdr + 12);

	spin_lock_bh(&m->rx_lock);
	reinit_completion(&m->done);
	m->wait_id = m->msg_id;
	m->waiting = true;
	spin_unlock_bh(&m->rx_lock);

	octf_q_write(q, m->h2f_sz, &pi, hdr, OCTF_MSG_HDR_SZ);
	octf_q_write(q, m->h2f_sz, &pi, req, len);
	/* the message before the producer index that publishes it */
	wmb();
	writel(pi, m->base + OCTF_MBOX_H2F_PROD);

	deadline = jiffies + msecs_to_jiffies(OCTF_MBOX_TIMEOUT_MS);
	ret = -ETIMEDOUT;
	do {
		if (wait_for_completion_timeout(&m->done,
						msecs_to_jiffies(OCTF_MBOX_POLL_MS))) {
			ret = 0;
			break;
		}
		/* vector 8 may not be set up yet, or its message lost */
		octf_mbox_poll(p);
		if (completion_done(&m->done)) {
			ret = 0;
			break;
		}
	} while (time_before(jiffies, deadline));

	spin_lock_bh(&m->rx_lock);
	m->waiting = false;
	if (!ret) {
		u16 reply = m->resp_len >= 8 ?
			    get_unaligned_le16(m->resp + 6) : 0xFFFF;

		if (reply) {
			ret = -EIO;
		} else {
			ret = min(m->resp_len, resp_len);
			if (resp)
				memcpy(resp, m->resp, ret);
		}
	} else {
		m->timeouts++;
	}
	spin_unlock_bh(&m->rx_lock);
	mutex_unlock(&m->lock);
	return ret;
}
