/*
 * dbb-igc: an Intel I225/I226 (igc) model with doorbell ground truth
 *
 * Internal interface between dbb_igc.c (PCI device, registers,
 * interrupts, ground truth), dbb_igc_phy.c (PHY and NVM), dbb_igc_tx.c
 * and dbb_igc_rx.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_DBB_IGC_H
#define HW_NET_DBB_IGC_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "dbb_truth.h"

#define TYPE_DBB_IGC "dbb-igc"
OBJECT_DECLARE_SIMPLE_TYPE(DbbIgcState, DBB_IGC)

#define DBB_IGC_NUM_QUEUES      4
#define DBB_IGC_MSIX_VECTORS    5
#define DBB_IGC_MMIO_SIZE       (1 * MiB)
#define DBB_IGC_MSIX_SIZE       (16 * KiB)
#define DBB_IGC_MSIX_PBA        0x2000
/* Registers below this offset are backed by s->regs; above read as 0. */
#define DBB_IGC_REG_SPACE       0x20000
#define DBB_IGC_RAR_ENTRIES     16
#define DBB_IGC_MTA_REGS        128
#define DBB_IGC_RETA_ENTRIES    128
#define DBB_IGC_RSS_KEY_SIZE    40
#define DBB_IGC_NVM_WORDS       64
#define DBB_IGC_DESC_SIZE       16
/* Largest ring: TDLEN/RDLEN are 20-bit byte counts. */
#define DBB_IGC_MAX_RING_BYTES  0x100000
/* One TX packet (TSO: headers + 64 KiB payload) and one RX frame. */
#define DBB_IGC_TX_BUF_SIZE     (64 * KiB + 2 * KiB)
#define DBB_IGC_MAX_FRAME       (16 * KiB)

/*
 * Ground truth: what the device saw, counted by the model itself.
 * Counter ids are ABI (tools/lab/qemu/README.md, dbb-truth.sh): append
 * only, never renumber.
 */
enum {
    DBB_GT_TDT_WRITES = 0,      /* per queue */
    DBB_GT_TDT_NOOP_WRITES,     /* per queue: TDT written with its value */
    DBB_GT_RDT_WRITES,          /* per queue */
    DBB_GT_RDT_NOOP_WRITES,     /* per queue */
    DBB_GT_TX_DESC,             /* per queue: TX descriptors consumed */
    DBB_GT_RX_DESC,             /* per queue: RX descriptors written back */
    DBB_GT_TX_FRAMES,           /* per queue: frames sent (TSO: segments) */
    DBB_GT_RX_FRAMES,           /* per queue: frames received into RAM */
    DBB_GT_RX_DROPPED,          /* per queue: dropped, no RX descriptor */
    DBB_GT_TX_PACKETS,          /* per queue: EOP packets (TSO: 1) */
    DBB_GT_TX_BYTES,            /* per queue: bytes sent, no FCS */
    DBB_GT_RX_BYTES,            /* per queue: bytes received, no FCS */
    DBB_GT_IRQS,                /* per vector: MSI-X messages (MSI/INTx: 0) */
    DBB_GT_IRQ_DEFERRED,        /* per vector: held back by EITR */
    DBB_GT_RX_FILTERED,         /* device: dropped by the address filter */
    DBB_GT_RX_OFF_DROPS,        /* device: dropped, receiver/queue/link off */
    DBB_GT_GUEST_ERRORS,        /* device: guest programming errors */
    DBB_GT_RX_PAUSED_DROPS,     /* device: dropped while DMA was paused */
    DBB_GT_TX_LINK_DROPS,       /* per queue: lost, partner not ready */
    DBB_GT_REG_READS,           /* device: BAR0 register reads */
    DBB_GT_IRQ_REG_WRITES,      /* device: interrupt cause/mask/EITR writes */
    DBB_GT_OTHER_REG_WRITES,    /* device: other writes, not TDT/RDT */
    DBB_GT_TX_DESC_READS,       /* per queue: modeled descriptor fetches */
    DBB_GT_RX_DESC_READS,       /* per queue: modeled descriptor fetches */
    DBB_GT_TX_WB_WRITES,        /* per queue: modeled write-back writes */
    DBB_GT_IRQS_RX,             /* per vector: messages with a receive cause */
    DBB_GT_NUM
};
#define DBB_GT_MAX_INDEX        8

/* The MMIO trace (dbb_igc_trace.c): one record per guest BAR0 access. */
#define DBB_IGC_TRACE_DEFAULT   65536
#define DBB_IGC_TRACE_MAX       (4 * 1024 * 1024)

typedef struct DbbIgcTraceRec {
    uint64_t ns;                /* guest virtual time since the start */
    uint64_t val;               /* read: what the device returned */
    uint32_t off;
    uint8_t size;
    bool write;
} DbbIgcTraceRec;

typedef struct DbbIgcTrace {
    DbbIgcTraceRec *recs;       /* max of them, allocated at first start */
    uint32_t max;               /* property mmio-trace-max */
    uint32_t len;
    uint64_t dropped;           /* accesses past max since the start */
    int64_t start_ns;
    bool recording;
    bool truncated;
} DbbIgcTrace;

typedef struct DbbIgcTxCtx {
    uint32_t vlan_macip_lens;
    uint32_t type_tucmd;
    uint32_t mss_l4len_idx;
} DbbIgcTxCtx;

typedef struct DbbIgcTxQueue {
    DbbIgcTxCtx ctx;            /* last context descriptor */
    uint8_t *buf;               /* packet being gathered */
    uint32_t len;
    uint32_t first_cmd;         /* cmd_type_len of its first data desc */
    uint32_t first_olinfo;
    bool in_packet;
    bool bad_packet;            /* drop the rest of this packet */
    bool stopped;               /* fatal guest error: wait for re-setup */
} DbbIgcTxQueue;

struct DbbIgcState {
    PCIDevice parent_obj;

    NICState *nic;
    NICConf conf;
    MemoryRegion mmio;
    MemoryRegion msix;
    uint32_t device_id;
    bool nvm_flash;             /* EECD.FLASH_DETECTED: NVM checksummed */
    bool use_msix;              /* offer MSI-X (off: MSI/INTx only) */
    bool strict;                /* silicon's waits and semaphores (timing) */
    bool mng_rcv_tco;           /* firmware receives (MANC.RCV_TCO_EN) */

    uint32_t regs[DBB_IGC_REG_SPACE / 4];
    uint16_t phy[32];
    uint16_t phy_mmd_devad;     /* MMDAC device address */
    uint16_t phy_mmd_addr;      /* MMDAAD address latch */
    bool phy_mmd_data;          /* MMDAC function: data */
    uint16_t mmd_an_mgbt_ctrl;
    uint16_t an_speed;          /* resolved by the last auto-negotiation */
    bool an_full_duplex;        /* (0: no common mode, no link) */
    bool an_running;            /* renegotiating: link down for a while */
    QEMUTimer *an_timer;
    uint16_t nvm[DBB_IGC_NVM_WORDS];
    bool link_up;               /* effective link (peer, PHY power) */
    bool busy;                  /* in TX or RX processing (doing DMA) */
    bool dma_paused;            /* dma-pause: no fetch, no write-back */

    /*
     * dbb_igc_timing.c: what a driver must wait for (strict).  Each ends
     * at a virtual time (INT64_MAX: not pending), checked at every BAR0
     * access, so the guest sees it end as soon as the time has passed.
     */
    int64_t autoread_end;       /* reset: NVM auto-read, EECD.AUTO_RD clear */
    bool phy_in_reset;          /* CTRL.PHY_RST: until PHPM.RST_COMPL ... */
    int64_t phy_rst_end;        /* ... which comes then, once it is clear */
    int64_t mdic_end;           /* an MDIC access in flight (READY clear) */
    uint32_t mdic_req;          /* ... the one that was written */
    int64_t partner_rx_ok;      /* 1000BASE-T partner ready at (0: is) */
    QEMUTimer *swsm_timer;      /* SWSM held too long: a driver forgot it */

    QEMUTimer *eitr_timer[DBB_IGC_MSIX_VECTORS];
    bool eitr_armed[DBB_IGC_MSIX_VECTORS];
    bool eitr_pending[DBB_IGC_MSIX_VECTORS];
    bool rx_cause[DBB_IGC_MSIX_VECTORS];    /* a receive raised it */
    bool legacy_irq_level;

    DbbIgcTxQueue txq[DBB_IGC_NUM_QUEUES];
    uint8_t *tx_seg;            /* one TSO segment being built */
    struct NetRxPkt *rx_pkt;
    uint8_t *rx_buf;
    bool rxq_ring_err[DBB_IGC_NUM_QUEUES];

    DbbIgcTrace trace;          /* MMIO trace (dbb_igc_trace.c) */
    DbbTruth truth;             /* the capability and QOM (dbb_truth.c) */
    uint64_t gt[DBB_GT_NUM][DBB_GT_MAX_INDEX];
    uint64_t gt_snap[DBB_GT_NUM][DBB_GT_MAX_INDEX];
};

static inline uint32_t dbb_igc_reg(DbbIgcState *s, hwaddr off)
{
    return s->regs[off >> 2];
}

static inline void dbb_igc_set_reg(DbbIgcState *s, hwaddr off, uint32_t v)
{
    s->regs[off >> 2] = v;
}

static inline void dbb_igc_gt_add(DbbIgcState *s, int id, unsigned idx,
                                  uint64_t n)
{
    if (idx < DBB_GT_MAX_INDEX) {
        s->gt[id][idx] += n;
    }
}

/* dbb_igc.c */
void dbb_igc_guest_error(DbbIgcState *s, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);
void dbb_igc_queue_cause(DbbIgcState *s, int queue, bool tx);
void dbb_igc_set_icr(DbbIgcState *s, uint32_t causes);
void dbb_igc_stat_add(DbbIgcState *s, hwaddr reg, uint32_t n);
void dbb_igc_stat_add64(DbbIgcState *s, hwaddr lo, uint64_t n);
void dbb_igc_update_link(DbbIgcState *s);

void dbb_igc_set_mac_regs(DbbIgcState *s);

/* dbb_igc_timing.c */
void dbb_igc_timing_init(DbbIgcState *s);
void dbb_igc_timing_exit(DbbIgcState *s);
void dbb_igc_timing_power_on(DbbIgcState *s);
void dbb_igc_timing_reset(DbbIgcState *s);
void dbb_igc_timing_poll(DbbIgcState *s);
bool dbb_igc_write_lost(DbbIgcState *s, hwaddr off, uint32_t val);
void dbb_igc_phy_rst_write(DbbIgcState *s, bool old, bool now);
uint32_t dbb_igc_phpm_write(DbbIgcState *s, uint32_t val);
void dbb_igc_mdic_start(DbbIgcState *s, uint32_t val);
uint32_t dbb_igc_swsm_read(DbbIgcState *s);
void dbb_igc_swsm_write(DbbIgcState *s, uint32_t val);
void dbb_igc_sw_fw_sync_write(DbbIgcState *s, uint32_t val);
void dbb_igc_link_up_timing(DbbIgcState *s);
bool dbb_igc_partner_rx_ok(DbbIgcState *s);

/* dbb_igc_phy.c */
void dbb_igc_phy_reset(DbbIgcState *s);
void dbb_igc_phy_link_changed(DbbIgcState *s);
void dbb_igc_phy_an_done(void *opaque);
void dbb_igc_mdic_do(DbbIgcState *s, uint32_t val);
void dbb_igc_nvm_init(DbbIgcState *s, const uint8_t *mac);
void dbb_igc_eerd_write(DbbIgcState *s, uint32_t val);
void dbb_igc_srwr_write(DbbIgcState *s, uint32_t val);

/* dbb_igc_trace.c */
void dbb_igc_trace_access(DbbIgcState *s, bool write, hwaddr addr,
                          unsigned size, uint64_t val);
bool dbb_igc_trace_realize(DbbIgcState *s, Error **errp);
void dbb_igc_trace_exit(DbbIgcState *s);
void dbb_igc_trace_class_init(ObjectClass *klass);

/* dbb_igc_tx.c */
void dbb_igc_tx_init(DbbIgcState *s);
void dbb_igc_tx_cleanup(DbbIgcState *s);
void dbb_igc_tx_reset(DbbIgcState *s);
void dbb_igc_tx_process(DbbIgcState *s, int q);

/* dbb_igc_rx.c */
void dbb_igc_rx_init(DbbIgcState *s);
void dbb_igc_rx_cleanup(DbbIgcState *s);
ssize_t dbb_igc_receive(NetClientState *nc, const uint8_t *buf, size_t size);
void dbb_igc_rx_fifo_junk(DbbIgcState *s);
bool dbb_igc_can_receive(NetClientState *nc);

#endif
