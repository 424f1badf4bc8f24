/*
 * dbb-octep: a Marvell Octeon CN93 SDP PCIe endpoint (octeon_ep) model
 * with ring-credit ground truth
 *
 * Internal interface between dbb_octep.c (PCI device, BAR0 registers,
 * interrupts, ground truth), dbb_octep_ring.c (input and output rings)
 * and dbb_octep_fw.c (the emulated firmware behind the control mailbox).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_DBB_OCTEP_H
#define HW_NET_DBB_OCTEP_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "dbb_truth.h"

#define TYPE_DBB_OCTEP "dbb-octep"
OBJECT_DECLARE_SIMPLE_TYPE(DbbOctepState, DBB_OCTEP)

#define DBB_OCTEP_MAX_RINGS         63
#define DBB_OCTEP_NON_IOQ_VECTORS   16
#define DBB_OCTEP_MAX_VECTORS       (DBB_OCTEP_NON_IOQ_VECTORS + \
                                     DBB_OCTEP_MAX_RINGS)
#define DBB_OCTEP_OEI_VECTOR        8

#define DBB_OCTEP_BAR0_SIZE         (8 * MiB)
#define DBB_OCTEP_BAR2_SIZE         (1 * MiB)
#define DBB_OCTEP_BAR4_SIZE         (32 * MiB)
#define DBB_OCTEP_MSIX_TABLE        0x0
#define DBB_OCTEP_MSIX_PBA          0x1000
#define DBB_OCTEP_MBOX_BASE         0x1C00000
#define DBB_OCTEP_MBOX_SIZE         0x8000

/* BAR0: per-ring registers at 0x10000 + ring * 0x20000 + offset */
#define DBB_RING_BASE               0x10000
#define DBB_RING_STRIDE             0x20000
#define DBB_RING_REGS               0x800       /* backed bytes per ring */
#define R_IN_CONTROL                0x000
#define R_IN_ENABLE                 0x010
#define R_IN_INSTR_BADDR            0x020
#define R_IN_INSTR_RSIZE            0x030
#define R_IN_INSTR_DBELL            0x040
#define R_IN_CNTS                   0x050
#define R_IN_INT_LEVELS             0x060
#define R_IN_PKT_CNT                0x080
#define R_IN_BYTE_CNT               0x090
#define R_OUT_CNTS                  0x100
#define R_OUT_INT_LEVELS            0x110
#define R_OUT_SLIST_BADDR           0x120
#define R_OUT_SLIST_RSIZE           0x130
#define R_OUT_SLIST_DBELL           0x140
#define R_OUT_CONTROL               0x150
#define R_OUT_ENABLE                0x160
#define R_OUT_PKT_CNT               0x180
#define R_OUT_BYTE_CNT              0x190
#define R_MBOX_FIRST                0x200       /* PF-VF mailbox: RAZ/WI */
#define R_MBOX_LAST                 0x2FF
#define R_ERR_TYPE                  0x400

#define IN_CTL_IDLE                 BIT_ULL(28)
#define OUT_CTL_IDLE                BIT_ULL(40)
#define OUT_CTL_BSIZE_MASK          0xFFFFULL
#define INT_LEVELS_ENA              BIT_ULL(62)
#define CNTS_RESEND                 BIT_ULL(59)
#define DBELL_CLEAR                 0xFFFFFFFFu

/* BAR0: globals, backed from 0x20000 to 0x2FFFF */
#define DBB_GLOBAL_BASE             0x20000
#define DBB_GLOBAL_SIZE             0x10000
#define G_RINT_FIRST                0x20100     /* interrupt block: RAZ/WI */
#define G_RINT_LAST                 0x205DF
#define G_OEI_RINT                  0x20360
#define G_OEI_RINT_W1S              0x20370
#define G_OEI_RINT_ENA_W1C          0x20380
#define G_OEI_RINT_ENA_W1S          0x20390
#define G_EPF_RINFO                 0x205F0
#define G_MAC_PF_RING_CTL           0x2C000
#define G_MAC_NUMBER                0x2C100
#define OEI_MBOX                    BIT_ULL(0)
#define OEI_HEARTBEAT               BIT_ULL(1)

/* Instructions and descriptors */
#define DBB_IQ_INSTR_SIZE           64
#define DBB_OQ_DESC_SIZE            16
#define DBB_OQ_FETCH                16          /* buffers per fetch */
#define DBB_OCTEP_MAX_RING          65536
#define DBB_OCTEP_MAX_FRAME         (64 * KiB)
#define DBB_OCTEP_MAX_GATHER        256         /* pointers per instruction */
#define DBB_OQ_NO_ADDR              UINT64_MAX  /* descriptor read failed */

/*
 * Ground truth: what the device saw, counted by the model.  Ids are ABI
 * (tools/lab/qemu/README.md): append only.
 */
enum {
    DBB_OGT_IN_DBELL_WRITES = 0,    /* ring: IN_INSTR_DBELL writes */
    DBB_OGT_IN_DBELL_NOOP,          /* ring: ... of 0 (announce nothing) */
    DBB_OGT_IN_INSTR,               /* ring: instructions fetched */
    DBB_OGT_TX_FRAMES,              /* ring: frames sent */
    DBB_OGT_TX_BYTES,               /* ring */
    DBB_OGT_OUT_DBELL_WRITES,       /* ring: OUT_SLIST_DBELL writes */
    DBB_OGT_OUT_DBELL_NOOP,         /* ring: ... of 0 */
    DBB_OGT_CREDIT_GRANTED,         /* ring: sum of credit written */
    DBB_OGT_CREDIT_FETCHED,         /* ring: credit spent by fetches */
    DBB_OGT_CREDIT_NOW,             /* ring: OUT_SLIST_DBELL now (gauge) */
    DBB_OGT_FETCHES,                /* ring: fetches of 16 buffers */
    DBB_OGT_BUFFERS_FETCHED,        /* ring */
    DBB_OGT_RX_FRAMES,              /* ring: frames written to the host */
    DBB_OGT_RX_BYTES,               /* ring: frame bytes (no headers) */
    DBB_OGT_RX_BUFFERS,             /* ring: buffers written */
    DBB_OGT_RX_REFUSED,             /* ring: no fetched buffer */
    DBB_OGT_LAPS,                   /* ring: rounds over unread buffers */
    DBB_OGT_OVERWRITTEN,            /* ring: frames overwritten unread */
    DBB_OGT_IRQS,                   /* vector: MSI-X messages */
    DBB_OGT_FW_REQUESTS,            /* command 0-15: mailbox requests */
    DBB_OGT_HEARTBEATS,             /* 0: OEI heartbeat pulses */
    DBB_OGT_FW_NOTIFY,              /* 0: fw-to-host notifications */
    DBB_OGT_RX_OFF_DROPS,           /* 0: no ring enabled, rx/link down */
    DBB_OGT_GUEST_ERRORS,           /* 0: guest programming errors */
    DBB_OGT_DMA_ERRORS,             /* ring: DMA refused (vIOMMU, no RAM) */
    DBB_OGT_OUTSTANDING_MAX,        /* ring: most credit + fetched held */
    DBB_OGT_REG_READS,              /* 0: BAR0 register reads */
    DBB_OGT_IRQ_REG_WRITES,         /* 0: ring count acks, int levels */
    DBB_OGT_OTHER_REG_WRITES,       /* 0: other BAR0 writes, no doorbell */
    DBB_OGT_RX_SKIPPED,             /* ring: buffers passed over (rx-skip) */
    DBB_OGT_DESC_CHANGED,           /* ring: descriptor rewritten after fetch */
    DBB_OGT_IRQS_LOST,              /* ring: interrupts lost (irq-lose) */
    DBB_OGT_RX_UNCOUNTED,           /* ring: frames written, not counted */
    DBB_OGT_NUM
};
#define DBB_OGT_MAX_INDEX           DBB_OCTEP_MAX_VECTORS
#define DBB_FW_CMDS                 16

typedef struct DbbOctepRing {
    DbbOctepState *dev;
    int index;

    /* input ring */
    uint32_t in_dbell;          /* announced, not yet fetched */
    uint32_t in_rd;             /* next instruction index */
    uint32_t in_cnts;           /* completions not yet acknowledged */
    bool in_irq_armed;
    bool in_stopped;            /* fatal guest error: wait for re-setup */

    /* output ring */
    uint32_t out_credit;        /* OUT_SLIST_DBELL */
    uint32_t out_avail;         /* buffers fetched, not yet written */
    uint32_t out_wr;            /* next buffer the block writes */
    uint32_t out_size;          /* ring size the state below is for */
    uint32_t out_cnts;          /* packets written, not acknowledged */
    bool out_irq_armed;
    QEMUTimer *out_timer;       /* INT_LEVELS time threshold */
    uint64_t *slot_seq;         /* per buffer: packet number, 0 = none */
    uint64_t *slot_addr;        /* per buffer: address read at its fetch */
    uint32_t out_fetch;         /* next descriptor a fetch reads */
    bool desc_warned;           /* said once since the ring started */
    uint64_t seq_written;       /* packets written since the ring started */
    uint64_t seq_acked;         /* of those, acknowledged via OUT_CNTS */
    uint64_t buf_written;       /* buffers written since the ring started */
    uint64_t buf_returned;      /* of those, given back as credit */
    uint64_t last_lost_seq;     /* last packet counted as overwritten */
    uint64_t wr_round;          /* wraps of out_wr */
    uint64_t lap_round;         /* wr_round + 1 of the last counted lap */
} DbbOctepRing;

struct DbbOctepState {
    PCIDevice parent_obj;

    NICState *nic;
    NICConf conf;
    MemoryRegion bar0;
    MemoryRegion bar2;
    MemoryRegion bar4;
    MemoryRegion mbox_mr;

    /* properties */
    uint32_t num_rings;         /* MAC_PF_RING_CTL.RPPF */
    uint32_t wmark;             /* SDP_OUT_WMARK of the emulated firmware */
    uint32_t fw_delay_ms;       /* firmware answers this late (fault) */
    uint32_t fw_latency_us;     /* a v2 answer takes this long */
    bool fw_silent;             /* firmware never answers */
    bool fw_v1;                 /* an older image: v1 mailbox only */
    bool fw_heartbeat;          /* firmware pulses OEI bit 1 */
    uint32_t hb_interval_ms;
    uint32_t hb_miss;
    uint32_t fw_mtu_max;        /* MTU GET answer (frame size) */
    uint32_t rx_offloads;       /* GET_INFO rx_ol_flags: 8-byte header */
    bool fw_ready;              /* firmware-ready VSEC byte reads 1 */
    bool rx_spread;             /* IP flows hashed over the rings */
    uint32_t rx_skip;           /* buffers to pass over before a frame */
    uint32_t irq_lose;          /* output interrupts to lose */
    uint32_t cnts_lose;         /* frames to write without counting */
    bool tx_hold;               /* input rings not fetched from */

    uint64_t ring_regs[DBB_OCTEP_MAX_RINGS][DBB_RING_REGS / 8];
    uint64_t gregs[DBB_GLOBAL_SIZE / 8];
    DbbOctepRing ring[DBB_OCTEP_MAX_RINGS];
    uint8_t *frame;             /* one frame (TX gather or RX) */
    bool busy;                  /* in TX or RX processing (doing DMA) */

    /* firmware */
    uint8_t mbox[DBB_OCTEP_MBOX_SIZE];
    int mbox_proto;             /* 0 none yet, 1 v1 (6.1), 2 v2 (6.12) */
    QEMUTimer *fw_timer;        /* delayed processing of host requests */
    QEMUTimer *hb_timer;
    bool fw_pending;
    bool link_up;               /* link as the firmware reports it */
    bool host_link_up;          /* LINK_STATUS set by the host */
    bool rx_up;                 /* RX_STATE set by the host */
    uint16_t mtu;
    uint8_t fw_mac[6];

    DbbTruth truth;             /* the capability and QOM (dbb_truth.c) */
    uint64_t gt[DBB_OGT_NUM][DBB_OGT_MAX_INDEX];
    uint64_t gt_snap[DBB_OGT_NUM][DBB_OGT_MAX_INDEX];
};

static inline void dbb_octep_gt_add(DbbOctepState *s, int id, unsigned idx,
                                    uint64_t n)
{
    if (idx < DBB_OGT_MAX_INDEX) {
        s->gt[id][idx] += n;
    }
}

static inline uint64_t *dbb_octep_rreg(DbbOctepState *s, int q, hwaddr off)
{
    return &s->ring_regs[q][off >> 3];
}

static inline uint64_t *dbb_octep_greg(DbbOctepState *s, hwaddr addr)
{
    return &s->gregs[(addr - DBB_GLOBAL_BASE) >> 3];
}

/* dbb_octep.c */
void dbb_octep_guest_error(DbbOctepState *s, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);
void dbb_octep_msix(DbbOctepState *s, unsigned vector);
void dbb_octep_oei_raise(DbbOctepState *s, uint64_t bits);

/* dbb_octep_ring.c */
void dbb_octep_ring_reset(DbbOctepState *s, int q);
void dbb_octep_ring_cleanup(DbbOctepState *s, int q);
uint64_t dbb_octep_ring_read(DbbOctepState *s, int q, hwaddr off);
void dbb_octep_ring_write(DbbOctepState *s, int q, hwaddr off,
                          uint64_t val, uint64_t mask);
void dbb_octep_out_timer_cb(void *opaque);
void dbb_octep_in_resume(DbbOctepState *s);
ssize_t dbb_octep_receive(NetClientState *nc, const uint8_t *buf,
                          size_t size);

/* dbb_octep_fw.c */
void dbb_octep_fw_reset(DbbOctepState *s);
uint64_t dbb_octep_mbox_read(void *opaque, hwaddr addr, unsigned size);
void dbb_octep_mbox_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size);
void dbb_octep_fw_timer_cb(void *opaque);
void dbb_octep_hb_timer_cb(void *opaque);
void dbb_octep_fw_link_changed(DbbOctepState *s);
void dbb_octep_fw_set_heartbeat(DbbOctepState *s, bool on);
void dbb_octep_fw_set_v1(DbbOctepState *s, bool on);

#endif
