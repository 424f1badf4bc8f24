/*
 * dbb-octep: the emulated firmware behind the control mailbox
 *
 * The mailbox is 32 KiB of BAR4 at +0x1C00000.  Two host protocols use
 * it, and the firmware speaks the one the host chose when it set
 * host_status to READY: a host that wrote a host_version (+16) speaks v2
 * (Linux 6.12: byte rings, 16-byte header with a message id, replies on
 * the firmware-to-host ring announced by OEI_RINT bit 0 and vector 8),
 * one that did not speaks v1 (Linux 6.1: fixed 16-byte slots, 8-byte
 * header, the reply written in place of the request, the host polls).
 * A v1 host never gets an OEI interrupt or a firmware-to-host message.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "net/net.h"
#include "hw/pci/pci.h"
#include "dbb_octep.h"

/* Mailbox layout */
#define MB_MAGIC            0
#define MB_BARMEM_SZ        8
#define MB_HOST_VERSION     16
#define MB_HOST_STATUS      24
#define MB_FW_VERSION       136
#define MB_FW_STATUS        144
#define MB_H2F_PROD         256
#define MB_H2F_CONS         260
#define MB_H2F_SZ           264     /* v1: element size; v2: bytes */
#define MB_H2F_CNT          268     /* v1: element count */
#define MB_F2H_PROD         272
#define MB_F2H_CONS         276
#define MB_F2H_SZ           280
#define MB_F2H_CNT          284
#define MB_QUEUES           288

#define MB_MAGIC_VAL        0xdeaddeadbeefbeefULL
#define MB_Q_BYTES          0x400   /* v2 ring size; v1 element size */
#define MB_V1_ELEMS         8
#define MB_V1_SLOT          16      /* what 6.1 steps slots by */
#define MB_V1_MAX_WORDS     5       /* 6.1's request buffer: 40 bytes */
#define MB_FW_VERSION_VAL   0x0001000000010001ULL   /* 1.0.0 to 1.0.1 */

#define MB_STATUS_INVALID   0
#define MB_STATUS_INIT      1
#define MB_STATUS_READY     2
#define MB_STATUS_UNINIT    3

#define MSG_REQ             1
#define MSG_RESP            2
#define MSG_NOTIFY          4
#define V2_HDR              16
#define V2_MAX_BODY         512

/* Commands (octep_ctrl_net) */
#define CMD_MTU             1
#define CMD_MAC             2
#define CMD_GET_IF_STATS    3
#define CMD_LINK_STATUS     6
#define CMD_RX_STATE        7
#define CMD_LINK_INFO       8
#define CMD_GET_INFO        9
#define CMD_DEV_REMOVE      10
#define CMD_OFFLOADS        11
#define F2H_LINK_STATUS     1
#define NET_GET             0
#define REPLY_OK            0
#define REPLY_FAIL          1
#define REPLY_INVALID       2

#define IF_RX_STATS_SIZE    120
#define IF_TX_STATS_SIZE    144
#define RESP_MAX            (8 + IF_RX_STATS_SIZE + IF_TX_STATS_SIZE)

#define LINK_SPEED_MBPS     10000

static uint32_t mb_l(DbbOctepState *s, hwaddr off)
{
    return ldl_le_p(s->mbox + off);
}

static void mb_setl(DbbOctepState *s, hwaddr off, uint32_t v)
{
    stl_le_p(s->mbox + off, v);
}

static bool dbb_octep_fw_link(DbbOctepState *s)
{
    return s->host_link_up && !qemu_get_queue(s->nic)->link_down;
}

static void dbb_octep_hb_arm(DbbOctepState *s)
{
    if (s->mbox_proto == 2 && s->fw_heartbeat) {
        timer_mod(s->hb_timer, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) +
                  MAX(s->hb_interval_ms / 2, 1));
    } else {
        timer_del(s->hb_timer);
    }
}

/*
 * Images before the v2 control plane leave the version field at 0 and
 * answer every host in v1, whatever host_version it wrote.  Takes effect
 * at the host's next READY, as a firmware update under a running host.
 */
void dbb_octep_fw_set_v1(DbbOctepState *s, bool on)
{
    s->fw_v1 = on;
    stq_le_p(s->mbox + MB_FW_VERSION, on ? 0 : MB_FW_VERSION_VAL);
}

void dbb_octep_fw_reset(DbbOctepState *s)
{
    memset(s->mbox, 0, sizeof(s->mbox));
    stq_le_p(s->mbox + MB_MAGIC, MB_MAGIC_VAL);
    stq_le_p(s->mbox + MB_BARMEM_SZ, DBB_OCTEP_MBOX_SIZE);
    dbb_octep_fw_set_v1(s, s->fw_v1);
    stq_le_p(s->mbox + MB_FW_STATUS, MB_STATUS_READY);
    mb_setl(s, MB_H2F_SZ, MB_Q_BYTES);
    mb_setl(s, MB_H2F_CNT, MB_V1_ELEMS);
    mb_setl(s, MB_F2H_SZ, MB_Q_BYTES);
    mb_setl(s, MB_F2H_CNT, MB_V1_ELEMS);
    s->mbox_proto = 0;
    s->host_link_up = false;
    s->rx_up = false;
    s->mtu = 1500;
    memcpy(s->fw_mac, s->conf.macaddr.a, 6);
    if (s->fw_timer) {
        timer_del(s->fw_timer);
        timer_del(s->hb_timer);
    }
}

/* ---- commands --------------------------------------------------------- */

static void dbb_octep_if_stats(DbbOctepState *s, uint8_t *out)
{
    uint64_t rxp = 0, rxb = 0, txp = 0, txb = 0, refused = 0;
    unsigned q;

    for (q = 0; q < s->num_rings; q++) {
        refused += s->gt[DBB_OGT_RX_REFUSED][q];
        rxp += s->gt[DBB_OGT_RX_FRAMES][q];
        rxb += s->gt[DBB_OGT_RX_BYTES][q];
        txp += s->gt[DBB_OGT_TX_FRAMES][q];
        txb += s->gt[DBB_OGT_TX_BYTES][q];
    }
    memset(out, 0, IF_RX_STATS_SIZE + IF_TX_STATS_SIZE);
    stq_le_p(out + 0, rxp);                         /* rx pkts */
    stq_le_p(out + 8, rxb);                         /* rx octets */
    /* dropped_pkts_fifo_full: no fetched buffer (its octets not kept) */
    stq_le_p(out + 48, refused);
    stq_le_p(out + IF_RX_STATS_SIZE + 32, txb);     /* tx octs */
    stq_le_p(out + IF_RX_STATS_SIZE + 40, txp);     /* tx pkts */
}

/*
 * One host request: req (len bytes: an 8-byte header, then the command)
 * answered into resp (an 8-byte header, then data).  Returns the length
 * of the answer.
 */
static uint32_t dbb_octep_fw_command(DbbOctepState *s, const uint8_t *req,
                                     uint32_t len, uint8_t *resp)
{
    uint16_t cmd = len >= 8 ? lduw_le_p(req + 4) : 0;
    uint16_t sub = len >= 10 ? lduw_le_p(req + 8) : 0;
    uint16_t val = len >= 12 ? lduw_le_p(req + 10) : 0;
    uint16_t reply = REPLY_OK;
    uint32_t rlen = 8;

    memset(resp, 0, RESP_MAX);
    dbb_octep_gt_add(s, DBB_OGT_FW_REQUESTS, cmd < DBB_FW_CMDS ? cmd : 0, 1);
    if (len < 8) {
        dbb_octep_guest_error(s, "mailbox: request of %u bytes", len);
        reply = REPLY_INVALID;
        goto out;
    }
    switch (cmd) {
    case CMD_MTU:
        if (sub == NET_GET) {
            stw_le_p(resp + 8, s->fw_mtu_max);
            rlen += 2;
        } else if (val >= 68 && val <= s->fw_mtu_max - 18) {
            s->mtu = val;
        } else {
            reply = REPLY_INVALID;
        }
        break;
    case CMD_MAC:
        if (sub == NET_GET) {
            memcpy(resp + 8, s->fw_mac, 6);
            rlen += 6;
        } else {
            memcpy(s->fw_mac, req + 10, 6);
        }
        break;
    case CMD_GET_IF_STATS:
        if (s->mbox_proto == 2) {
            dbb_octep_if_stats(s, resp + 8);
            rlen += IF_RX_STATS_SIZE + IF_TX_STATS_SIZE;
        } else {
            /* v1: into the mailbox at the offset the host gives */
            uint32_t off = ldl_le_p(req + 8);

            if (off < MB_QUEUES || off > DBB_OCTEP_MBOX_SIZE -
                IF_RX_STATS_SIZE - IF_TX_STATS_SIZE) {
                dbb_octep_guest_error(s, "mailbox: IF_STATS offset 0x%x",
                                      off);
                reply = REPLY_INVALID;
            } else {
                dbb_octep_if_stats(s, s->mbox + off);
            }
        }
        break;
    case CMD_LINK_STATUS:
        if (sub == NET_GET) {
            stw_le_p(resp + 8, dbb_octep_fw_link(s));
            rlen += 2;
        } else {
            s->host_link_up = val != 0;
        }
        break;
    case CMD_RX_STATE:
        if (sub == NET_GET) {
            stw_le_p(resp + 8, s->rx_up);
            rlen += 2;
        } else {
            s->rx_up = val != 0;
        }
        break;
    case CMD_LINK_INFO:
        if (sub == NET_GET) {
            /*
             * {u64 supported, u64 advertised, u8 autoneg, u8 pause, u32
             * speed at +20}: one mode, bit 0 (10GBASE-T in octeon_ep)
             */
            stq_le_p(resp + 8, BIT_ULL(0));
            stq_le_p(resp + 16, BIT_ULL(0));
            stl_le_p(resp + 28, LINK_SPEED_MBPS);
            rlen += 24;
        }
        break;
    case CMD_GET_INFO:
        /* struct octep_fw_info: pkind 0, fsz 0, heartbeat, offloads */
        stw_le_p(resp + 8 + 2, s->hb_interval_ms);
        stw_le_p(resp + 8 + 4, s->hb_miss);
        stw_le_p(resp + 8 + 8, s->rx_offloads);
        rlen += 64;
        break;
    case CMD_DEV_REMOVE:
        s->host_link_up = false;
        s->rx_up = false;
        break;
    case CMD_OFFLOADS:
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "dbb-octep: mailbox command %u\n", cmd);
        reply = REPLY_FAIL;
        break;
    }
out:
    stw_le_p(resp + 0, len >= 4 ? lduw_le_p(req + 2) : 0);  /* sender */
    stw_le_p(resp + 2, lduw_le_p(req));                      /* receiver */
    stw_le_p(resp + 4, cmd);
    stw_le_p(resp + 6, reply);
    return rlen;
}

/* ---- v1: fixed slots, answered in place -------------------------------- */

static void dbb_octep_fw_v1(DbbOctepState *s)
{
    uint32_t mask = MB_V1_ELEMS - 1;
    uint32_t pi = mb_l(s, MB_H2F_PROD) & mask;
    uint32_t ci = mb_l(s, MB_H2F_CONS) & mask;
    uint8_t resp[RESP_MAX];
    unsigned n;

    for (n = 0; n < MB_V1_ELEMS && ci != pi; n++) {
        hwaddr slot = MB_QUEUES + MB_V1_SLOT * ci;
        uint32_t flags = mb_l(s, slot);
        uint32_t sizew = mb_l(s, slot + 4);
        uint32_t rlen, rw;

        ci = (ci + 1) & mask;
        if (flags != MSG_REQ || sizew == 0 || sizew > MB_V1_MAX_WORDS) {
            dbb_octep_guest_error(s, "mailbox v1: slot %u: flags %u, %u "
                                  "words", (ci - 1) & mask, flags, sizew);
            continue;
        }
        rlen = dbb_octep_fw_command(s, s->mbox + slot + 8, sizew * 8, resp);
        if (s->fw_silent) {
            continue;
        }
        rw = MIN(DIV_ROUND_UP(rlen, 8), MB_V1_MAX_WORDS);
        memcpy(s->mbox + slot + 8, resp, rw * 8);
        mb_setl(s, slot + 4, rw);
        mb_setl(s, slot, MSG_RESP);
    }
    mb_setl(s, MB_H2F_CONS, ci);
}

/* ---- v2: byte rings, replies on the firmware-to-host ring -------------- */

static void dbb_octep_ring_copy(DbbOctepState *s, hwaddr q, uint32_t sz,
                                uint32_t *idx, uint8_t *buf, uint32_t len,
                                bool to_ring)
{
    uint32_t i;

    for (i = 0; i < len; i++) {
        if (to_ring) {
            s->mbox[q + *idx] = buf[i];
        } else {
            buf[i] = s->mbox[q + *idx];
        }
        *idx = (*idx + 1) % sz;
    }
}

static void dbb_octep_f2h_send(DbbOctepState *s, uint32_t flags,
                               uint16_t msg_id, uint8_t *body, uint32_t len)
{
    uint32_t sz = MB_Q_BYTES;
    hwaddr q = MB_QUEUES + MB_Q_BYTES;
    uint32_t pi = mb_l(s, MB_F2H_PROD), ci = mb_l(s, MB_F2H_CONS);
    uint8_t hdr[V2_HDR] = { 0 };

    if (pi >= sz || ci >= sz) {
        dbb_octep_guest_error(s, "mailbox v2: f2h indices %u/%u", pi, ci);
        return;
    }
    if ((pi + sz - ci) % sz + V2_HDR + len >= sz) {
        qemu_log_mask(LOG_GUEST_ERROR, "dbb-octep: mailbox v2: the host "
                      "does not read the f2h ring: message dropped\n");
        return;
    }
    stl_le_p(hdr + 4, len);
    stl_le_p(hdr + 8, flags);
    stw_le_p(hdr + 12, msg_id);
    dbb_octep_ring_copy(s, q, sz, &pi, hdr, V2_HDR, true);
    dbb_octep_ring_copy(s, q, sz, &pi, body, len, true);
    mb_setl(s, MB_F2H_PROD, pi);
    dbb_octep_oei_raise(s, OEI_MBOX);
}

static void dbb_octep_fw_v2(DbbOctepState *s)
{
    uint32_t sz = MB_Q_BYTES;
    uint32_t pi = mb_l(s, MB_H2F_PROD), ci = mb_l(s, MB_H2F_CONS);
    uint8_t hdr[V2_HDR], body[V2_MAX_BODY], resp[RESP_MAX];
    unsigned n;

    if (pi >= sz || ci >= sz) {
        dbb_octep_guest_error(s, "mailbox v2: h2f indices %u/%u", pi, ci);
        mb_setl(s, MB_H2F_CONS, pi % sz);
        return;
    }
    for (n = 0; n < sz / V2_HDR; n++) {
        uint32_t depth = (pi + sz - ci) % sz, len, flags, rlen;
        uint16_t msg_id;

        if (depth == 0) {
            break;
        }
        if (depth < V2_HDR) {
            dbb_octep_guest_error(s, "mailbox v2: %u bytes, no header",
                                  depth);
            ci = pi;
            break;
        }
        dbb_octep_ring_copy(s, MB_QUEUES, sz, &ci, hdr, V2_HDR, false);
        len = ldl_le_p(hdr + 4);
        flags = ldl_le_p(hdr + 8);
        msg_id = lduw_le_p(hdr + 12);
        if (len > depth - V2_HDR || len > V2_MAX_BODY) {
            dbb_octep_guest_error(s, "mailbox v2: message of %u bytes with "
                                  "%u in the ring", len, depth - V2_HDR);
            ci = pi;
            break;
        }
        dbb_octep_ring_copy(s, MB_QUEUES, sz, &ci, body, len, false);
        if (!(flags & MSG_REQ)) {
            dbb_octep_guest_error(s, "mailbox v2: message flags 0x%x", flags);
            continue;
        }
        rlen = dbb_octep_fw_command(s, body, len, resp);
        if (!s->fw_silent) {
            dbb_octep_f2h_send(s, MSG_RESP, msg_id, resp, rlen);
        }
    }
    mb_setl(s, MB_H2F_CONS, ci);
}

static void dbb_octep_fw_process(DbbOctepState *s)
{
    switch (s->mbox_proto) {
    case 1:
        dbb_octep_fw_v1(s);
        break;
    case 2:
        dbb_octep_fw_v2(s);
        break;
    default:
        dbb_octep_guest_error(s, "mailbox: request before host_status "
                              "READY: dropped");
        mb_setl(s, MB_H2F_CONS, mb_l(s, MB_H2F_PROD));
        break;
    }
}

void dbb_octep_fw_timer_cb(void *opaque)
{
    dbb_octep_fw_process(opaque);
}

void dbb_octep_hb_timer_cb(void *opaque)
{
    DbbOctepState *s = opaque;

    if (s->mbox_proto != 2 || !s->fw_heartbeat) {
        return;
    }
    s->gt[DBB_OGT_HEARTBEATS][0]++;
    dbb_octep_oei_raise(s, OEI_HEARTBEAT);
    dbb_octep_hb_arm(s);
}

void dbb_octep_fw_set_heartbeat(DbbOctepState *s, bool on)
{
    s->fw_heartbeat = on;
    if (s->hb_timer) {
        dbb_octep_hb_arm(s);
    }
}

void dbb_octep_fw_link_changed(DbbOctepState *s)
{
    uint8_t body[16] = { 0 };

    if (s->mbox_proto != 2 || !s->host_link_up) {
        return;
    }
    stw_le_p(body + 4, F2H_LINK_STATUS);
    stw_le_p(body + 8, dbb_octep_fw_link(s));
    s->gt[DBB_OGT_FW_NOTIFY][0]++;
    dbb_octep_f2h_send(s, MSG_NOTIFY, 0, body, 16);
}

static void dbb_octep_host_status(DbbOctepState *s, uint64_t status)
{
    switch (status) {
    case MB_STATUS_INIT:
        mb_setl(s, MB_H2F_PROD, 0);
        mb_setl(s, MB_H2F_CONS, 0);
        mb_setl(s, MB_F2H_PROD, 0);
        mb_setl(s, MB_F2H_CONS, 0);
        s->mbox_proto = 0;
        timer_del(s->fw_timer);
        break;
    case MB_STATUS_READY:
        s->mbox_proto = !s->fw_v1 &&
                        ldq_le_p(s->mbox + MB_HOST_VERSION) ? 2 : 1;
        break;
    default:
        if (s->mbox_proto == 2 && timer_pending(s->fw_timer)) {
            /*
             * 6.12 sends DEV_REMOVE without waiting and uninitialises at
             * once: what it queued is still executed, but nobody is left
             * to read an answer.
             */
            bool silent = s->fw_silent;

            s->fw_silent = true;
            dbb_octep_fw_v2(s);
            s->fw_silent = silent;
        }
        s->mbox_proto = 0;
        s->host_link_up = false;
        s->rx_up = false;
        timer_del(s->fw_timer);
        break;
    }
    dbb_octep_hb_arm(s);
}

/* ---- MMIO --------------------------------------------------------------- */

uint64_t dbb_octep_mbox_read(void *opaque, hwaddr addr, unsigned size)
{
    DbbOctepState *s = opaque;

    if (addr + size > DBB_OCTEP_MBOX_SIZE) {
        return 0;
    }
    return ldn_le_p(s->mbox + addr, size);
}

void dbb_octep_mbox_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    DbbOctepState *s = opaque;
    bool host_info = addr >= MB_HOST_VERSION &&
                     addr + size <= MB_HOST_STATUS + 8;
    bool indices = (addr >= MB_H2F_PROD && addr + size <= MB_H2F_PROD + 4) ||
                   (addr >= MB_F2H_CONS && addr + size <= MB_F2H_CONS + 4);

    if (addr + size > DBB_OCTEP_MBOX_SIZE ||
        (addr < MB_QUEUES && !host_info && !indices)) {
        dbb_octep_guest_error(s, "mailbox: %u-byte write at +0x%" HWADDR_PRIx
                              " (firmware's own field): ignored", size, addr);
        return;
    }
    stn_le_p(s->mbox + addr, size, val);
    if (addr < MB_HOST_STATUS + 8 && addr + size > MB_HOST_STATUS) {
        dbb_octep_host_status(s, ldq_le_p(s->mbox + MB_HOST_STATUS));
    }
    if (addr >= MB_H2F_PROD && addr < MB_H2F_PROD + 4) {
        /*
         * v1 answers within the producer write: 6.1 reads its slot right
         * after writing it and sleeps 10 ms when the answer is not there.
         * v2 answers fw-latency-us later, as a firmware core would: 6.12
         * puts the request on its wait list only after ringing, so an
         * answer raised inside the doorbell write could be taken (and
         * dropped) before the waiter exists.
         */
        int64_t ns = (int64_t)s->fw_delay_ms * SCALE_MS +
                     (s->mbox_proto == 2 ? (int64_t)s->fw_latency_us *
                      SCALE_US : 0);

        if (!ns) {
            dbb_octep_fw_process(s);
        } else if (!timer_pending(s->fw_timer)) {
            timer_mod(s->fw_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                      ns);
        }
    }
}
