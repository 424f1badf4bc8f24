/*
 * dbb-igc: an Intel I225/I226 (igc) Ethernet controller model that counts
 * what the device sees (doorbell writes, descriptors, frames, interrupts)
 *
 * Enough of the I225/I226 for the unmodified Linux igc driver: reset, NVM
 * and MAC address, PHY over MDIC, link, four TX and four RX queues with
 * advanced descriptors, RSS, checksum offload and TSO, MSI-X with EITR
 * moderation, statistics.  The ground truth is readable from the host
 * (QOM property "ground-truth") and from inside the guest through a
 * vendor-specific PCI capability; see tools/lab/qemu/README.md.
 *
 * This file: the PCI device, the register file, interrupts, ground truth.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "net/net.h"
#include "net/eth.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "sysemu/dma.h"
#include "sysemu/sysemu.h"
#include "dbb_igc.h"
#include "dbb_pcie.h"
#include "dbb_igc_regs.h"

#define DBB_IGC_PM_CAP      0x40
#define DBB_IGC_MSI_CAP     0x50
#define DBB_IGC_MSIX_CAP    0x70
#define DBB_IGC_PCIE_CAP    0xA0
#define DBB_IGC_VSEC_CAP    0xE0
#define DBB_IGC_AER_CAP     0x100
#define DBB_IGC_DSN_CAP     0x140
#define DBB_IGC_MMIO_BAR    0
#define DBB_IGC_MSIX_BAR    3

static const char *const dbb_gt_names[DBB_GT_NUM] = {
    [DBB_GT_TDT_WRITES] = "tdt_writes",
    [DBB_GT_TDT_NOOP_WRITES] = "tdt_noop_writes",
    [DBB_GT_RDT_WRITES] = "rdt_writes",
    [DBB_GT_RDT_NOOP_WRITES] = "rdt_noop_writes",
    [DBB_GT_TX_DESC] = "tx_desc",
    [DBB_GT_RX_DESC] = "rx_desc",
    [DBB_GT_TX_FRAMES] = "tx_frames",
    [DBB_GT_RX_FRAMES] = "rx_frames",
    [DBB_GT_RX_DROPPED] = "rx_dropped",
    [DBB_GT_TX_PACKETS] = "tx_packets",
    [DBB_GT_TX_BYTES] = "tx_bytes",
    [DBB_GT_RX_BYTES] = "rx_bytes",
    [DBB_GT_IRQS] = "irqs",
    [DBB_GT_IRQ_DEFERRED] = "irq_deferred",
    [DBB_GT_RX_FILTERED] = "rx_filtered",
    [DBB_GT_RX_OFF_DROPS] = "rx_off_drops",
    [DBB_GT_GUEST_ERRORS] = "guest_errors",
    [DBB_GT_RX_PAUSED_DROPS] = "rx_paused_drops",
    [DBB_GT_TX_LINK_DROPS] = "tx_link_drops",
    [DBB_GT_REG_READS] = "reg_reads",
    [DBB_GT_IRQ_REG_WRITES] = "irq_reg_writes",
    [DBB_GT_OTHER_REG_WRITES] = "other_reg_writes",
    [DBB_GT_TX_DESC_READS] = "tx_desc_reads",
    [DBB_GT_RX_DESC_READS] = "rx_desc_reads",
    [DBB_GT_TX_WB_WRITES] = "tx_wb_writes",
    [DBB_GT_IRQS_RX] = "irqs_rx",
};

/* How many indexes each counter has: queues, vectors or one. */
static unsigned dbb_gt_width(void *opaque, unsigned id)
{
    switch (id) {
    case DBB_GT_IRQS:
    case DBB_GT_IRQ_DEFERRED:
    case DBB_GT_IRQS_RX:
        return DBB_IGC_MSIX_VECTORS;
    case DBB_GT_RX_FILTERED:
    case DBB_GT_RX_OFF_DROPS:
    case DBB_GT_GUEST_ERRORS:
    case DBB_GT_REG_READS:
    case DBB_GT_IRQ_REG_WRITES:
    case DBB_GT_OTHER_REG_WRITES:
        return 1;
    default:
        return DBB_IGC_NUM_QUEUES;
    }
}

static const DbbTruthInfo dbb_igc_truth_info = {
    .names = dbb_gt_names,
    .num = DBB_GT_NUM,
    .stride = DBB_GT_MAX_INDEX,
    .width = dbb_gt_width,
    .unit = "queue",
};

/* The PCI device IDs of the I225/I226 family that igc binds to. */
static const uint16_t dbb_igc_device_ids[] = {
    0x15F2, 0x15F3, 0x15F8, 0x3100, 0x3101, 0x5502, 0x0D9F, 0x15FD,
    0x125B, 0x125C, 0x125D, 0x3102, 0x5503, 0x125F, 0x15F7, 0x125E,
};

void dbb_igc_guest_error(DbbIgcState *s, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    dbb_truth_guest_errorv(&s->truth, fmt, ap);
    va_end(ap);
}

/* ---- statistics ----------------------------------------------------- */

void dbb_igc_stat_add(DbbIgcState *s, hwaddr reg, uint32_t n)
{
    uint32_t v = dbb_igc_reg(s, reg);

    /* Saturating, like the hardware's 32-bit counters. */
    dbb_igc_set_reg(s, reg, v + n < v ? UINT32_MAX : v + n);
}

void dbb_igc_stat_add64(DbbIgcState *s, hwaddr lo, uint64_t n)
{
    uint64_t v = dbb_igc_reg(s, lo) |
                 (uint64_t)dbb_igc_reg(s, lo + 4) << 32;

    v += n;
    dbb_igc_set_reg(s, lo, (uint32_t)v);
    dbb_igc_set_reg(s, lo + 4, v >> 32);
}

/* ---- interrupts ----------------------------------------------------- */

static bool dbb_igc_msix_mode(DbbIgcState *s)
{
    return msix_enabled(PCI_DEVICE(s)) &&
           (dbb_igc_reg(s, IGC_R_GPIE) & IGC_GPIE_MSIX_MODE);
}

static uint32_t dbb_igc_eitr_interval_us(DbbIgcState *s, int v)
{
    return (dbb_igc_reg(s, IGC_R_EITR(v)) & IGC_EITR_INTERVAL_MASK) >> 2;
}

/* Send one message on vector @v (MSI-X), or MSI (v = 0). */
static void dbb_igc_send_msg(DbbIgcState *s, int v)
{
    PCIDevice *d = PCI_DEVICE(s);
    bool busy = s->busy;
    uint32_t us;

    /* The message is a DMA write: it must not land in our own BAR. */
    s->busy = true;
    if (msix_enabled(d)) {
        msix_notify(d, v);
    } else if (msi_enabled(d)) {
        msi_notify(d, 0);
    } else {
        s->busy = busy;
        return;
    }
    s->busy = busy;
    s->gt[DBB_GT_IRQS][v]++;
    /*
     * Which messages a receive raised: the lab matches those between
     * drivers (their count is the emulated timing's), not the transmit
     * completions a driver's own doorbells cause.
     */
    if (s->rx_cause[v]) {
        s->gt[DBB_GT_IRQS_RX][v]++;
        s->rx_cause[v] = false;
    }

    us = dbb_igc_eitr_interval_us(s, v);
    if (us) {
        s->eitr_armed[v] = true;
        timer_mod(s->eitr_timer[v],
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + us * SCALE_US);
    }
}

/* MSI-X mode: fire the vectors of @bits whose cause is set and enabled. */
static void dbb_igc_msix_fire(DbbIgcState *s, uint32_t bits)
{
    uint32_t pend = bits & dbb_igc_reg(s, IGC_R_EICR) &
                    dbb_igc_reg(s, IGC_R_EIMS);
    int v;

    for (v = 0; v < DBB_IGC_MSIX_VECTORS; v++) {
        if (!(pend & BIT(v))) {
            continue;
        }
        if (s->eitr_armed[v]) {
            s->eitr_pending[v] = true;
            s->gt[DBB_GT_IRQ_DEFERRED][v]++;
            continue;
        }
        dbb_igc_send_msg(s, v);
        if (dbb_igc_reg(s, IGC_R_EIAC) & BIT(v)) {
            dbb_igc_set_reg(s, IGC_R_EICR,
                            dbb_igc_reg(s, IGC_R_EICR) & ~BIT(v));
        }
        if ((dbb_igc_reg(s, IGC_R_GPIE) & IGC_GPIE_EIAME) &&
            (dbb_igc_reg(s, IGC_R_EIAM) & BIT(v))) {
            dbb_igc_set_reg(s, IGC_R_EIMS,
                            dbb_igc_reg(s, IGC_R_EIMS) & ~BIT(v));
        }
    }
}

static void dbb_igc_set_eicr(DbbIgcState *s, uint32_t bits)
{
    bits &= MAKE_64BIT_MASK(0, DBB_IGC_MSIX_VECTORS);
    dbb_igc_set_reg(s, IGC_R_EICR, dbb_igc_reg(s, IGC_R_EICR) | bits);
    dbb_igc_msix_fire(s, bits);
}

/*
 * Not in MSI-X mode: ICR & IMS drive INTx, or one MSI/MSI-X message per
 * newly set enabled cause.
 */
static void dbb_igc_legacy_update(DbbIgcState *s, uint32_t new_causes)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint32_t icr = dbb_igc_reg(s, IGC_R_ICR) & ~IGC_ICR_INT_ASSERTED;
    uint32_t pend = icr & dbb_igc_reg(s, IGC_R_IMS);

    if (pend) {
        icr |= IGC_ICR_INT_ASSERTED;
    }
    dbb_igc_set_reg(s, IGC_R_ICR, icr);

    if (dbb_igc_msix_mode(s)) {
        return;
    }
    if (msix_enabled(d) || msi_enabled(d)) {
        if (pend & new_causes) {
            if (s->eitr_armed[0]) {
                s->eitr_pending[0] = true;
                s->gt[DBB_GT_IRQ_DEFERRED][0]++;
            } else {
                dbb_igc_send_msg(s, 0);
                if (pend & IGC_ICR_RXT0) {
                    s->gt[DBB_GT_IRQS_RX][0]++;
                }
            }
        }
        return;
    }
    if (!!pend != s->legacy_irq_level) {
        s->legacy_irq_level = !!pend;
        pci_set_irq(d, s->legacy_irq_level);
        if (s->legacy_irq_level) {
            s->gt[DBB_GT_IRQS][0]++;
            if (pend & IGC_ICR_RXT0) {
                s->gt[DBB_GT_IRQS_RX][0]++;
            }
        }
    }
}

static void dbb_igc_eitr_expired(void *opaque, int v)
{
    DbbIgcState *s = opaque;

    s->eitr_armed[v] = false;
    if (!s->eitr_pending[v]) {
        return;
    }
    s->eitr_pending[v] = false;
    if (dbb_igc_msix_mode(s)) {
        dbb_igc_msix_fire(s, BIT(v));
    } else if (v == 0) {
        dbb_igc_legacy_update(s, dbb_igc_reg(s, IGC_R_ICR));
    }
}

#define DBB_IGC_EITR_CB(n) \
    static void dbb_igc_eitr_cb##n(void *opaque) \
    { \
        dbb_igc_eitr_expired(opaque, n); \
    }
DBB_IGC_EITR_CB(0)
DBB_IGC_EITR_CB(1)
DBB_IGC_EITR_CB(2)
DBB_IGC_EITR_CB(3)
DBB_IGC_EITR_CB(4)

static QEMUTimerCB *const dbb_igc_eitr_cbs[DBB_IGC_MSIX_VECTORS] = {
    dbb_igc_eitr_cb0, dbb_igc_eitr_cb1, dbb_igc_eitr_cb2,
    dbb_igc_eitr_cb3, dbb_igc_eitr_cb4,
};

/* ICR causes (link change etc.): in MSI-X mode via IVAR_MISC. */
void dbb_igc_set_icr(DbbIgcState *s, uint32_t causes)
{
    dbb_igc_set_reg(s, IGC_R_ICR, dbb_igc_reg(s, IGC_R_ICR) | causes);
    if (dbb_igc_msix_mode(s)) {
        uint32_t misc = (dbb_igc_reg(s, IGC_R_IVAR_MISC) >> 8) & 0xFF;

        if ((causes & dbb_igc_reg(s, IGC_R_IMS)) && (misc & IGC_IVAR_VALID)) {
            dbb_igc_set_eicr(s, BIT(misc & IGC_IVAR_VEC_MASK));
        }
        return;
    }
    dbb_igc_legacy_update(s, causes);
}

/* A queue finished work: raise its cause through IVAR (MSI-X mode). */
void dbb_igc_queue_cause(DbbIgcState *s, int queue, bool tx)
{
    if (dbb_igc_msix_mode(s)) {
        uint32_t ivar = dbb_igc_reg(s, IGC_R_IVAR0(queue >> 1));
        uint32_t e = (ivar >> ((queue & 1) * 16 + (tx ? 8 : 0))) & 0xFF;
        int v = e & IGC_IVAR_VEC_MASK;

        if (e & IGC_IVAR_VALID) {
            if (!tx && v < DBB_IGC_MSIX_VECTORS) {
                s->rx_cause[v] = true;
            }
            dbb_igc_set_eicr(s, BIT(v));
        }
        return;
    }
    dbb_igc_set_icr(s, tx ? IGC_ICR_TXDW : IGC_ICR_RXT0);
}

/* ---- link ------------------------------------------------------------- */

void dbb_igc_update_link(DbbIgcState *s)
{
    bool up = !qemu_get_queue(s->nic)->link_down &&
              !(s->phy[IGC_PHY_BMCR] & IGC_BMCR_PDOWN) &&
              s->an_speed && !s->an_running;

    if (up == s->link_up) {
        return;
    }
    s->link_up = up;
    dbb_igc_link_up_timing(s);
    dbb_igc_phy_link_changed(s);
    dbb_igc_set_icr(s, IGC_ICR_LSC);
}

static void dbb_igc_link_status_changed(NetClientState *nc)
{
    dbb_igc_update_link(qemu_get_nic_opaque(nc));
}

/* ---- reset ------------------------------------------------------------ */

void dbb_igc_set_mac_regs(DbbIgcState *s)
{
    const uint8_t *m = s->conf.macaddr.a;

    dbb_igc_set_reg(s, IGC_R_RAL(0), ldl_le_p(m));
    dbb_igc_set_reg(s, IGC_R_RAH(0), lduw_le_p(m + 4) | IGC_RAH_AV);
}

/*
 * Port reset (CTRL.RST, power-on): the MAC side; the PHY keeps its state.
 * EECD.AUTO_RD and the MAC address come with the NVM auto-read
 * (dbb_igc_timing.c).
 */
static void dbb_igc_mac_reset(DbbIgcState *s)
{
    int i;

    memset(s->regs, 0, sizeof(s->regs));
    for (i = 0; i < DBB_IGC_MSIX_VECTORS; i++) {
        timer_del(s->eitr_timer[i]);
        s->eitr_armed[i] = false;
        s->eitr_pending[i] = false;
        s->rx_cause[i] = false;
    }
    if (s->legacy_irq_level) {
        s->legacy_irq_level = false;
        pci_set_irq(PCI_DEVICE(s), 0);
    }

    dbb_igc_set_reg(s, IGC_R_CTRL, IGC_CTRL_FD | IGC_CTRL_SLU);
    dbb_igc_set_reg(s, IGC_R_EECD, IGC_EECD_PRES |
                    (s->nvm_flash ? IGC_EECD_FLASH_DETECTED |
                                    IGC_EECD_FLUDONE : 0));
    dbb_igc_set_reg(s, IGC_R_VET, ETH_P_VLAN);
    if (s->mng_rcv_tco) {
        dbb_igc_set_reg(s, IGC_R_MANC, IGC_MANC_RCV_TCO_EN);
    }
    dbb_igc_set_reg(s, IGC_R_PHPM, dbb_igc_phpm_write(s, 0));
    dbb_igc_set_reg(s, IGC_R_RXPBS, 0xA2);
    dbb_igc_set_reg(s, IGC_R_TXPBS, 0x04000014);
    dbb_igc_set_reg(s, IGC_R_RXCSUM, IGC_RXCSUM_IPOFL | IGC_RXCSUM_TUOFL);
    dbb_igc_set_reg(s, IGC_R_TCTL, IGC_TCTL_PSP);
    for (i = 0; i < DBB_IGC_NUM_QUEUES; i++) {
        dbb_igc_set_reg(s, IGC_R_SRRCTL(i), 2);     /* 2 KiB buffers */
        s->rxq_ring_err[i] = false;
    }
    /* Queue 0 comes out of reset enabled, as on the real part. */
    dbb_igc_set_reg(s, IGC_R_RXDCTL(0), IGC_XDCTL_ENABLE);
    dbb_igc_set_reg(s, IGC_R_TXDCTL(0), IGC_XDCTL_ENABLE);
    dbb_igc_tx_reset(s);
    dbb_igc_timing_reset(s);
}

static void dbb_igc_qdev_reset(DeviceState *dev)
{
    DbbIgcState *s = DBB_IGC(dev);

    dbb_igc_timing_power_on(s);
    dbb_igc_mac_reset(s);
    dbb_igc_phy_reset(s);
    s->link_up = !qemu_get_queue(s->nic)->link_down;
    dbb_igc_phy_link_changed(s);
}

/* ---- registers -------------------------------------------------------- */

/*
 * Register dispatch: a read and a write op per register, in tables
 * indexed by offset / 4 (the pattern of QEMU's e1000e_core.c).  A register
 * without an op is a plain load or store of s->regs.  The TX and RX queue
 * blocks (DBB_IGC_NUM_QUEUES queues, IGC_Q_STRIDE apart) have tables of
 * their own, indexed by a register's place in its queue's block; their
 * write ops get the queue, and a block has a default write op.
 */
typedef uint32_t (*DbbIgcReadOp)(DbbIgcState *s, hwaddr off);
typedef void (*DbbIgcWriteOp)(DbbIgcState *s, hwaddr off, uint32_t val);
typedef void (*DbbIgcQueueWriteOp)(DbbIgcState *s, int q, hwaddr off,
                                   uint32_t val);

#define DBB_IGC_QUEUE_REGS  (IGC_Q_STRIDE / 4)

/* The index of a queue register in its block's tables. */
#define DBB_IGC_QIDX(off)   (((off) & (IGC_Q_STRIDE - 1)) >> 2)

typedef struct DbbIgcQueueBlock {
    hwaddr first;                       /* queue 0's first register */
    DbbIgcReadOp read[DBB_IGC_QUEUE_REGS];
    DbbIgcQueueWriteOp write[DBB_IGC_QUEUE_REGS];
    DbbIgcQueueWriteOp write_default;   /* registers without a write op */
} DbbIgcQueueBlock;

/* -- read ops -- */

static uint32_t dbb_igc_read_status(DbbIgcState *s, hwaddr off)
{
    uint32_t v = 0;

    if (s->link_up) {
        v |= IGC_STATUS_LU | (s->an_full_duplex ? IGC_STATUS_FD : 0);
        switch (s->an_speed) {
        case 2500:
            /* 2.5G sets the 1000 bit as well, as the I225/I226 does */
            v |= IGC_STATUS_SPEED_1000 | IGC_STATUS_SPEED_2500;
            break;
        case 1000:
            v |= IGC_STATUS_SPEED_1000;
            break;
        case 100:
            v |= IGC_STATUS_SPEED_100;
            break;
        }
    }
    if (!(dbb_igc_reg(s, IGC_R_CTRL) & IGC_CTRL_GIO_MDIS)) {
        v |= IGC_STATUS_GIO_MEN;
    }
    return v;
}

/* ICR: read to clear; an asserted interrupt also clears IAM's bits of IMS. */
static uint32_t dbb_igc_read_icr(DbbIgcState *s, hwaddr off)
{
    uint32_t v = dbb_igc_reg(s, IGC_R_ICR);

    dbb_igc_set_reg(s, IGC_R_ICR, 0);
    if ((v & IGC_ICR_INT_ASSERTED) && dbb_igc_reg(s, IGC_R_IAM)) {
        dbb_igc_set_reg(s, IGC_R_IMS, dbb_igc_reg(s, IGC_R_IMS) &
                        ~dbb_igc_reg(s, IGC_R_IAM));
    }
    dbb_igc_legacy_update(s, 0);
    return v;
}

/* Write-only registers (ICS, IMC, EICS, EIMC). */
static uint32_t dbb_igc_read_zero(DbbIgcState *s, hwaddr off)
{
    return 0;
}

static uint32_t dbb_igc_read_swsm(DbbIgcState *s, hwaddr off)
{
    return dbb_igc_swsm_read(s);
}

/* Statistics counters (and RQDPC): clear on read. */
static uint32_t dbb_igc_read_stat(DbbIgcState *s, hwaddr off)
{
    uint32_t v = dbb_igc_reg(s, off);

    dbb_igc_set_reg(s, off, 0);
    return v;
}

/* -- write ops -- */

/* Read-only here: STATUS, EECD, the statistics counters. */
static void dbb_igc_write_ro(DbbIgcState *s, hwaddr off, uint32_t val)
{
}

static void dbb_igc_write_ctrl(DbbIgcState *s, hwaddr off, uint32_t val)
{
    bool was_rst = dbb_igc_reg(s, IGC_R_CTRL) & IGC_CTRL_PHY_RST;

    if (val & (IGC_CTRL_RST | IGC_CTRL_DEV_RST)) {
        /* CTRL clears: PHY_RST too, and the PHY comes out of reset */
        dbb_igc_phy_rst_write(s, was_rst, false);
        dbb_igc_mac_reset(s);
        return;
    }
    if ((val & IGC_CTRL_PHY_RST) && !was_rst) {
        dbb_igc_phy_reset(s);
        dbb_igc_update_link(s);
        dbb_igc_phy_link_changed(s);
    }
    dbb_igc_phy_rst_write(s, was_rst, val & IGC_CTRL_PHY_RST);
    dbb_igc_set_reg(s, IGC_R_CTRL, val);
}

static void dbb_igc_write_eerd(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_eerd_write(s, val);
}

static void dbb_igc_write_srwr(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_srwr_write(s, val);
}

static void dbb_igc_write_mdic(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_mdic_start(s, val);
}

static void dbb_igc_write_phpm(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, off, dbb_igc_phpm_write(s, val));
}

static void dbb_igc_write_swsm(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_swsm_write(s, val);
}

static void dbb_igc_write_sw_fw_sync(DbbIgcState *s, hwaddr off,
                                     uint32_t val)
{
    dbb_igc_sw_fw_sync_write(s, val);
}

static void dbb_igc_write_rctl(DbbIgcState *s, hwaddr off, uint32_t val)
{
    bool was_on = dbb_igc_reg(s, IGC_R_RCTL) & IGC_RCTL_EN;

    dbb_igc_set_reg(s, IGC_R_RCTL, val);
    if (s->mng_rcv_tco && !was_on && (val & IGC_RCTL_EN)) {
        dbb_igc_rx_fifo_junk(s);
    }
}

static void dbb_igc_write_tctl(DbbIgcState *s, hwaddr off, uint32_t val)
{
    int i;

    dbb_igc_set_reg(s, off, val);
    if (val & IGC_TCTL_EN) {
        for (i = 0; i < DBB_IGC_NUM_QUEUES; i++) {
            dbb_igc_tx_process(s, i);
        }
    }
}

/* Writable bits of plain registers (igc's register self-test checks). */

/* FCAH, FCT, FCTTV */
static void dbb_igc_write_16bit(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, off, val & 0xFFFF);
}

static void dbb_igc_write_fcrth(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, off, val & 0x3FFF0);
}

static void dbb_igc_write_tipg(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, off, val & 0x3FFFFFFF);
}

/* RAL/RAH pairs: RAH keeps AV, QSEL_EN, QSEL, ASEL and the address. */
static void dbb_igc_write_rar(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, off, (off & 7) == 4 ? val & 0x900FFFFF : val);
}

/* ICR, EICR: write 1 to clear. */
static void dbb_igc_write_icr(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, off, dbb_igc_reg(s, off) & ~val);
    dbb_igc_legacy_update(s, 0);
}

static void dbb_igc_write_ics(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_icr(s, val & ~IGC_ICR_INT_ASSERTED);
}

static void dbb_igc_write_ims(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, IGC_R_IMS, dbb_igc_reg(s, IGC_R_IMS) | val);
    /* Causes already pending and now enabled fire. */
    dbb_igc_set_icr(s, dbb_igc_reg(s, IGC_R_ICR) & val &
                    ~IGC_ICR_INT_ASSERTED);
}

static void dbb_igc_write_imc(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, IGC_R_IMS, dbb_igc_reg(s, IGC_R_IMS) & ~val);
    dbb_igc_legacy_update(s, 0);
}

static void dbb_igc_write_eics(DbbIgcState *s, hwaddr off, uint32_t val)
{
    if (dbb_igc_msix_mode(s)) {
        dbb_igc_set_eicr(s, val);
    } else if (val) {
        dbb_igc_set_icr(s, IGC_ICR_RXT0);
    }
}

static void dbb_igc_write_eims(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, off, (dbb_igc_reg(s, off) | val) &
                    MAKE_64BIT_MASK(0, DBB_IGC_MSIX_VECTORS));
    if (dbb_igc_msix_mode(s)) {
        dbb_igc_msix_fire(s, val);
    }
}

static void dbb_igc_write_eimc(DbbIgcState *s, hwaddr off, uint32_t val)
{
    dbb_igc_set_reg(s, IGC_R_EIMS, dbb_igc_reg(s, IGC_R_EIMS) & ~val);
}

static void dbb_igc_write_eicr(DbbIgcState *s, hwaddr off, uint32_t val)
{
    int v;

    dbb_igc_set_reg(s, off, dbb_igc_reg(s, off) & ~val);
    for (v = 0; v < DBB_IGC_MSIX_VECTORS; v++) {
        if (val & BIT(v)) {
            s->rx_cause[v] = false;     /* the guest took the cause away */
        }
    }
}

/* -- queue write ops -- */

/* Ring length registers: 128-byte multiples, low bits read as zero. */
static uint32_t dbb_igc_ring_len(DbbIgcState *s, const char *reg, int q,
                                 uint32_t val)
{
    val &= DBB_IGC_MAX_RING_BYTES - 1;
    if (val & 0x7F) {
        dbb_igc_guest_error(s, "queue %d: %s %u is not a multiple of 128: "
                            "low bits ignored", q, reg, val);
    }
    return val & ~0x7Fu;
}

/* A TX queue register without an op of its own. */
static void dbb_igc_txq_set(DbbIgcState *s, int q, hwaddr off, uint32_t val)
{
    /* Any ring (re)programming gives a stopped queue another chance. */
    s->txq[q].stopped = false;
    dbb_igc_set_reg(s, off, val);
}

static void dbb_igc_write_tdbal(DbbIgcState *s, int q, hwaddr off,
                                uint32_t val)
{
    dbb_igc_txq_set(s, q, off, val & ~0x7Fu);
}

static void dbb_igc_write_tdlen(DbbIgcState *s, int q, hwaddr off,
                                uint32_t val)
{
    dbb_igc_txq_set(s, q, off, dbb_igc_ring_len(s, "TDLEN", q, val));
}

static void dbb_igc_write_tdh(DbbIgcState *s, int q, hwaddr off,
                              uint32_t val)
{
    dbb_igc_txq_set(s, q, off, val & 0xFFFF);
}

/* The TX doorbell. */
static void dbb_igc_write_tdt(DbbIgcState *s, int q, hwaddr off,
                              uint32_t val)
{
    uint32_t old = dbb_igc_reg(s, off);

    val &= 0xFFFF;
    s->gt[DBB_GT_TDT_WRITES][q]++;
    if (val == old) {
        s->gt[DBB_GT_TDT_NOOP_WRITES][q]++;
    }
    s->gt[DBB_GT_TX_DESC_READS][q] += dbb_pcie_desc_reads(
        old, val, dbb_igc_reg(s, IGC_R_TDLEN(q)) / DBB_IGC_DESC_SIZE,
        DBB_IGC_DESC_SIZE);
    dbb_igc_set_reg(s, off, val);
    dbb_igc_tx_process(s, q);
}

static void dbb_igc_write_txdctl(DbbIgcState *s, int q, hwaddr off,
                                 uint32_t val)
{
    uint32_t old = dbb_igc_reg(s, off);

    val &= ~IGC_XDCTL_SWFLUSH;
    dbb_igc_set_reg(s, off, val);
    s->txq[q].stopped = false;
    if (!(val & IGC_XDCTL_ENABLE)) {
        s->txq[q].in_packet = false;
        s->txq[q].len = 0;
    } else if (!(old & IGC_XDCTL_ENABLE)) {
        dbb_igc_tx_process(s, q);
    }
}

/* An RX queue register without an op of its own; also RQDPC. */
static void dbb_igc_rxq_set(DbbIgcState *s, int q, hwaddr off, uint32_t val)
{
    s->rxq_ring_err[q] = false;
    dbb_igc_set_reg(s, off, val);
}

static void dbb_igc_write_rdbal(DbbIgcState *s, int q, hwaddr off,
                                uint32_t val)
{
    dbb_igc_rxq_set(s, q, off, val & ~0x7Fu);
}

static void dbb_igc_write_rdlen(DbbIgcState *s, int q, hwaddr off,
                                uint32_t val)
{
    dbb_igc_rxq_set(s, q, off, dbb_igc_ring_len(s, "RDLEN", q, val));
}

static void dbb_igc_write_rdh(DbbIgcState *s, int q, hwaddr off,
                              uint32_t val)
{
    dbb_igc_rxq_set(s, q, off, val & 0xFFFF);
}

/* The RX doorbell. */
static void dbb_igc_write_rdt(DbbIgcState *s, int q, hwaddr off,
                              uint32_t val)
{
    uint32_t old = dbb_igc_reg(s, off);

    val &= 0xFFFF;
    s->gt[DBB_GT_RDT_WRITES][q]++;
    if (val == old) {
        s->gt[DBB_GT_RDT_NOOP_WRITES][q]++;
    }
    s->gt[DBB_GT_RX_DESC_READS][q] += dbb_pcie_desc_reads(
        old, val, dbb_igc_reg(s, IGC_R_RDLEN(q)) / DBB_IGC_DESC_SIZE,
        DBB_IGC_DESC_SIZE);
    dbb_igc_rxq_set(s, q, off, val);
}

static void dbb_igc_write_rxdctl(DbbIgcState *s, int q, hwaddr off,
                                 uint32_t val)
{
    dbb_igc_rxq_set(s, q, off, val & ~IGC_XDCTL_SWFLUSH);
}

/* -- the tables -- */

static const DbbIgcReadOp dbb_igc_readops[] = {
    [IGC_R_STATUS >> 2] = dbb_igc_read_status,
    [IGC_R_ICR >> 2] = dbb_igc_read_icr,
    [IGC_R_ICS >> 2] = dbb_igc_read_zero,
    [IGC_R_IMC >> 2] = dbb_igc_read_zero,
    [IGC_R_EICS >> 2] = dbb_igc_read_zero,
    [IGC_R_EIMC >> 2] = dbb_igc_read_zero,
    [IGC_R_STATS_FIRST >> 2 ... IGC_R_STATS_LAST >> 2] = dbb_igc_read_stat,
    [IGC_R_SWSM >> 2] = dbb_igc_read_swsm,
};

static const DbbIgcWriteOp dbb_igc_writeops[] = {
    [IGC_R_CTRL >> 2] = dbb_igc_write_ctrl,
    [IGC_R_STATUS >> 2] = dbb_igc_write_ro,
    [IGC_R_EECD >> 2] = dbb_igc_write_ro,
    [IGC_R_MDIC >> 2] = dbb_igc_write_mdic,
    [IGC_R_FCAH >> 2] = dbb_igc_write_16bit,
    [IGC_R_FCT >> 2] = dbb_igc_write_16bit,
    [IGC_R_RCTL >> 2] = dbb_igc_write_rctl,
    [IGC_R_FCTTV >> 2] = dbb_igc_write_16bit,
    [IGC_R_TCTL >> 2] = dbb_igc_write_tctl,
    [IGC_R_TIPG >> 2] = dbb_igc_write_tipg,
    [IGC_R_PHPM >> 2] = dbb_igc_write_phpm,
    [IGC_R_ICR >> 2] = dbb_igc_write_icr,
    [IGC_R_ICS >> 2] = dbb_igc_write_ics,
    [IGC_R_IMS >> 2] = dbb_igc_write_ims,
    [IGC_R_IMC >> 2] = dbb_igc_write_imc,
    [IGC_R_EICS >> 2] = dbb_igc_write_eics,
    [IGC_R_EIMS >> 2] = dbb_igc_write_eims,
    [IGC_R_EIMC >> 2] = dbb_igc_write_eimc,
    [IGC_R_EICR >> 2] = dbb_igc_write_eicr,
    [IGC_R_FCRTH >> 2] = dbb_igc_write_fcrth,
    [IGC_R_STATS_FIRST >> 2 ... IGC_R_STATS_LAST >> 2] = dbb_igc_write_ro,
    [IGC_R_RAL(0) >> 2 ... IGC_R_RAH(DBB_IGC_RAR_ENTRIES - 1) >> 2] =
        dbb_igc_write_rar,
    [IGC_R_SWSM >> 2] = dbb_igc_write_swsm,
    [IGC_R_SW_FW_SYNC >> 2] = dbb_igc_write_sw_fw_sync,
    [IGC_R_EERD >> 2] = dbb_igc_write_eerd,
    [IGC_R_SRWR >> 2] = dbb_igc_write_srwr,
};

QEMU_BUILD_BUG_ON(ARRAY_SIZE(dbb_igc_readops) > DBB_IGC_REG_SPACE / 4);
QEMU_BUILD_BUG_ON(ARRAY_SIZE(dbb_igc_writeops) > DBB_IGC_REG_SPACE / 4);

static const DbbIgcQueueBlock dbb_igc_txq_block = {
    .first = IGC_TXQ_FIRST,
    .write = {
        [DBB_IGC_QIDX(IGC_R_TDBAL(0))] = dbb_igc_write_tdbal,
        [DBB_IGC_QIDX(IGC_R_TDLEN(0))] = dbb_igc_write_tdlen,
        [DBB_IGC_QIDX(IGC_R_TDH(0))] = dbb_igc_write_tdh,
        [DBB_IGC_QIDX(IGC_R_TDT(0))] = dbb_igc_write_tdt,
        [DBB_IGC_QIDX(IGC_R_TXDCTL(0))] = dbb_igc_write_txdctl,
    },
    .write_default = dbb_igc_txq_set,
};

static const DbbIgcQueueBlock dbb_igc_rxq_block = {
    .first = IGC_RXQ_FIRST,
    .read = {
        [DBB_IGC_QIDX(IGC_R_RQDPC(0))] = dbb_igc_read_stat,
    },
    .write = {
        [DBB_IGC_QIDX(IGC_R_RDBAL(0))] = dbb_igc_write_rdbal,
        [DBB_IGC_QIDX(IGC_R_RDLEN(0))] = dbb_igc_write_rdlen,
        [DBB_IGC_QIDX(IGC_R_RDH(0))] = dbb_igc_write_rdh,
        [DBB_IGC_QIDX(IGC_R_RDT(0))] = dbb_igc_write_rdt,
        [DBB_IGC_QIDX(IGC_R_RXDCTL(0))] = dbb_igc_write_rxdctl,
    },
    .write_default = dbb_igc_rxq_set,
};

static int dbb_igc_queue_of(hwaddr off, hwaddr first)
{
    if (off < first || off >= first + DBB_IGC_NUM_QUEUES * IGC_Q_STRIDE) {
        return -1;
    }
    return (off - first) / IGC_Q_STRIDE;
}

/* The queue block @off is in, and its queue in *@q; NULL if none. */
static const DbbIgcQueueBlock *dbb_igc_queue_block(hwaddr off, int *q)
{
    static const DbbIgcQueueBlock *const blocks[] = {
        &dbb_igc_txq_block, &dbb_igc_rxq_block,
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(blocks); i++) {
        *q = dbb_igc_queue_of(off, blocks[i]->first);
        if (*q >= 0) {
            return blocks[i];
        }
    }
    return NULL;
}

/* -- dispatch -- */

static uint32_t dbb_igc_read_reg(DbbIgcState *s, hwaddr off)
{
    const DbbIgcQueueBlock *b;
    DbbIgcReadOp op = NULL;
    int q;

    s->gt[DBB_GT_REG_READS][0]++;
    if (off >= DBB_IGC_REG_SPACE) {
        return 0;
    }
    b = dbb_igc_queue_block(off, &q);
    if (b) {
        op = b->read[DBB_IGC_QIDX(off)];
    } else if ((off >> 2) < ARRAY_SIZE(dbb_igc_readops)) {
        op = dbb_igc_readops[off >> 2];
    }
    return op ? op(s, off) : dbb_igc_reg(s, off);
}

/*
 * The interrupt registers a driver writes on its interrupt path (causes,
 * masks, auto-clear, moderation): with the doorbells, the MMIO writes a
 * packet can cost.
 */
static bool dbb_igc_is_irq_reg(hwaddr off)
{
    switch (off) {
    case IGC_R_ICR:
    case IGC_R_ICS:
    case IGC_R_IMS:
    case IGC_R_IMC:
    case IGC_R_IAM:
    case IGC_R_EICS:
    case IGC_R_EIMS:
    case IGC_R_EIMC:
    case IGC_R_EIAC:
    case IGC_R_EIAM:
    case IGC_R_EICR:
        return true;
    default:
        return off >= IGC_R_EITR(0) &&
               off < IGC_R_EITR(DBB_IGC_MSIX_VECTORS);
    }
}

static bool dbb_igc_is_tail(hwaddr off)
{
    int q = dbb_igc_queue_of(off, IGC_TXQ_FIRST);

    if (q >= 0) {
        return off - q * IGC_Q_STRIDE == IGC_R_TDT(0);
    }
    q = dbb_igc_queue_of(off, IGC_RXQ_FIRST);
    return q >= 0 && off - q * IGC_Q_STRIDE == IGC_R_RDT(0);
}

/*
 * Every register write by kind: a TDT or RDT write the device takes
 * counts in its queue, every other one (also a tail write lost in the
 * NVM auto-read window) here.
 */
static void dbb_igc_count_write(DbbIgcState *s, hwaddr off, bool taken)
{
    if (taken && dbb_igc_is_tail(off)) {
        return;
    }
    s->gt[dbb_igc_is_irq_reg(off) ? DBB_GT_IRQ_REG_WRITES :
          DBB_GT_OTHER_REG_WRITES][0]++;
}

static void dbb_igc_write_reg(DbbIgcState *s, hwaddr off, uint32_t val)
{
    const DbbIgcQueueBlock *b;
    DbbIgcQueueWriteOp qop;
    DbbIgcWriteOp op = NULL;
    int q;

    if (off >= DBB_IGC_REG_SPACE || dbb_igc_write_lost(s, off, val)) {
        dbb_igc_count_write(s, off, false);
        return;
    }
    dbb_igc_count_write(s, off, true);
    b = dbb_igc_queue_block(off, &q);
    if (b) {
        qop = b->write[DBB_IGC_QIDX(off)];
        if (!qop) {
            qop = b->write_default;
        }
        qop(s, q, off, val);
        return;
    }
    if ((off >> 2) < ARRAY_SIZE(dbb_igc_writeops)) {
        op = dbb_igc_writeops[off >> 2];
    }
    if (op) {
        op(s, off, val);
    } else {
        dbb_igc_set_reg(s, off, val);
    }
}

static uint64_t dbb_igc_mmio_read_access(DbbIgcState *s, hwaddr addr,
                                         unsigned size)
{

    if (s->busy) {
        dbb_igc_guest_error(s, "device DMA read its own register 0x%"
                            HWADDR_PRIx ": returns 0", addr);
        return 0;
    }
    dbb_igc_timing_poll(s);
    if (size == 4 && !(addr & 3)) {
        return dbb_igc_read_reg(s, addr);
    }
    if (size == 8 && !(addr & 7)) {
        uint64_t lo = dbb_igc_read_reg(s, addr);

        return lo | (uint64_t)dbb_igc_read_reg(s, addr + 4) << 32;
    }
    dbb_igc_guest_error(s, "unsupported %u-byte register read at 0x%"
                        HWADDR_PRIx " (igc registers are 32-bit)", size, addr);
    return 0;
}

static uint64_t dbb_igc_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    DbbIgcState *s = opaque;
    uint64_t val = dbb_igc_mmio_read_access(s, addr, size);

    /* After the read: a read-to-clear register's value is what it gave. */
    dbb_igc_trace_access(s, false, addr, size, val);
    return val;
}

static void dbb_igc_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    DbbIgcState *s = opaque;

    /* Before the write: its effects (e.g. TX work) come after it. */
    dbb_igc_trace_access(s, true, addr, size, val);
    if (s->busy) {
        dbb_igc_guest_error(s, "device DMA wrote its own register 0x%"
                            HWADDR_PRIx ": ignored", addr);
        return;
    }
    dbb_igc_timing_poll(s);
    if (size == 4 && !(addr & 3)) {
        dbb_igc_write_reg(s, addr, val);
        return;
    }
    if (size == 8 && !(addr & 7)) {
        dbb_igc_write_reg(s, addr, (uint32_t)val);
        dbb_igc_write_reg(s, addr + 4, val >> 32);
        return;
    }
    dbb_igc_guest_error(s, "unsupported %u-byte register write at 0x%"
                        HWADDR_PRIx " (ignored)", size, addr);
}

static const MemoryRegionOps dbb_igc_mmio_ops = {
    .read = dbb_igc_mmio_read,
    .write = dbb_igc_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* ---- ground truth: dbb_truth.c ---------------------------------------- */

static void dbb_igc_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                                 int len)
{
    dbb_truth_write_config(&DBB_IGC(d)->truth, addr, val, len);
}

/* ---- realize ------------------------------------------------------------ */

static NetClientInfo dbb_igc_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = dbb_igc_can_receive,
    .receive = dbb_igc_receive,
    .link_status_changed = dbb_igc_link_status_changed,
};

static void dbb_igc_realize(PCIDevice *d, Error **errp)
{
    DbbIgcState *s = DBB_IGC(d);
    bool known = false;
    uint64_t dsn;
    size_t i;
    int ret;

    if (!dbb_igc_trace_realize(s, errp)) {
        return;
    }
    for (i = 0; i < ARRAY_SIZE(dbb_igc_device_ids); i++) {
        known |= s->device_id == dbb_igc_device_ids[i];
    }
    if (!known) {
        error_setg(errp, "dbb-igc: device-id 0x%x is not an I225/I226 ID "
                   "the igc driver knows (e.g. 0x125c I226-V, 0x15f3 "
                   "I225-V)", s->device_id);
        return;
    }
    pci_config_set_device_id(d->config, s->device_id);
    /* I226 parts are revision 4, I225 ones revision 3. */
    pci_config_set_revision(d->config,
                            (s->device_id & 0xFF00) == 0x1200 ? 4 : 3);
    pci_set_word(d->config + PCI_SUBSYSTEM_VENDOR_ID, PCI_VENDOR_ID_INTEL);
    pci_set_word(d->config + PCI_SUBSYSTEM_ID, 0);
    d->config[PCI_CACHE_LINE_SIZE] = 0x10;
    d->config[PCI_INTERRUPT_PIN] = 1;
    d->config_write = dbb_igc_write_config;

    memory_region_init_io(&s->mmio, OBJECT(s), &dbb_igc_mmio_ops, s,
                          "dbb-igc-mmio", DBB_IGC_MMIO_SIZE);
    pci_register_bar(d, DBB_IGC_MMIO_BAR, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    memory_region_init(&s->msix, OBJECT(s), "dbb-igc-msix",
                       DBB_IGC_MSIX_SIZE);
    pci_register_bar(d, DBB_IGC_MSIX_BAR, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->msix);

    if (pci_add_capability(d, PCI_CAP_ID_PM, DBB_IGC_PM_CAP,
                           PCI_PM_SIZEOF, errp) < 0) {
        return;
    }
    pci_set_word(d->config + DBB_IGC_PM_CAP + PCI_PM_PMC,
                 PCI_PM_CAP_VER_1_2 | PCI_PM_CAP_DSI);
    pci_set_word(d->wmask + DBB_IGC_PM_CAP + PCI_PM_CTRL,
                 PCI_PM_CTRL_STATE_MASK | PCI_PM_CTRL_PME_ENABLE);
    pci_set_word(d->w1cmask + DBB_IGC_PM_CAP + PCI_PM_CTRL,
                 PCI_PM_CTRL_PME_STATUS);

    ret = msi_init(d, DBB_IGC_MSI_CAP, 1, true, false, errp);
    if (ret) {
        return;
    }
    if (s->use_msix) {
        ret = msix_init(d, DBB_IGC_MSIX_VECTORS, &s->msix, DBB_IGC_MSIX_BAR,
                        0, &s->msix, DBB_IGC_MSIX_BAR, DBB_IGC_MSIX_PBA,
                        DBB_IGC_MSIX_CAP, errp);
        if (ret) {
            goto err_msi;
        }
        for (i = 0; i < DBB_IGC_MSIX_VECTORS; i++) {
            msix_vector_use(d, i);
        }
    }
    if (pcie_endpoint_cap_init(d, DBB_IGC_PCIE_CAP) < 0) {
        error_setg(errp, "dbb-igc: cannot add the PCIe capability");
        goto err_msix;
    }
    /* Error reporting enables in DEVCTL: without them no AER message. */
    pcie_cap_deverr_init(d);
    if (!dbb_truth_add_cap(&s->truth, DBB_IGC_VSEC_CAP, DBB_IGC_NUM_QUEUES,
                           DBB_IGC_MSIX_VECTORS, errp)) {
        goto err_pcie;
    }
    if (pcie_aer_init(d, PCI_ERR_VER, DBB_IGC_AER_CAP, PCI_ERR_SIZEOF,
                      errp) < 0) {
        goto err_pcie;
    }
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    /* EUI-64 from the MAC address: m0 m1 m2 ff fe m3 m4 m5. */
    dsn = (uint64_t)s->conf.macaddr.a[0] << 56 |
          (uint64_t)s->conf.macaddr.a[1] << 48 |
          (uint64_t)s->conf.macaddr.a[2] << 40 | 0xFFFE000000ULL |
          (uint64_t)s->conf.macaddr.a[3] << 16 |
          lduw_be_p(s->conf.macaddr.a + 4);
    pcie_dev_ser_num_init(d, DBB_IGC_DSN_CAP, dsn);

    for (i = 0; i < DBB_IGC_MSIX_VECTORS; i++) {
        s->eitr_timer[i] = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                        dbb_igc_eitr_cbs[i], s);
    }
    s->an_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, dbb_igc_phy_an_done, s);
    dbb_igc_timing_init(s);
    dbb_igc_nvm_init(s, s->conf.macaddr.a);
    dbb_igc_tx_init(s);
    dbb_igc_rx_init(s);

    s->nic = qemu_new_nic(&dbb_igc_net_info, &s->conf,
                          object_get_typename(OBJECT(s)),
                          DEVICE(d)->id, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    return;

err_pcie:
    pcie_cap_exit(d);
err_msix:
    msix_uninit(d, &s->msix, &s->msix);
err_msi:
    msi_uninit(d);
}

static void dbb_igc_exit(PCIDevice *d)
{
    DbbIgcState *s = DBB_IGC(d);
    int i;

    qemu_del_nic(s->nic);
    for (i = 0; i < DBB_IGC_MSIX_VECTORS; i++) {
        timer_free(s->eitr_timer[i]);
    }
    timer_free(s->an_timer);
    dbb_igc_timing_exit(s);
    dbb_igc_tx_cleanup(s);
    dbb_igc_rx_cleanup(s);
    dbb_igc_trace_exit(s);
    pcie_aer_exit(d);
    pcie_cap_exit(d);
    msix_uninit(d, &s->msix, &s->msix);
    msi_uninit(d);
}

static void dbb_igc_instance_init(Object *obj)
{
    DbbIgcState *s = DBB_IGC(obj);

    device_add_bootindex_property(obj, &s->conf.bootindex, "bootindex",
                                  "/ethernet-phy@0", DEVICE(obj));
    dbb_truth_init(&s->truth, &dbb_igc_truth_info, s, PCI_DEVICE(obj),
                   &s->gt[0][0], &s->gt_snap[0][0]);
}

/*
 * dma-pause (run time, qom-set): the device stops fetching and writing
 * back, as a bus stall would make it; frames arriving meanwhile overflow
 * the packet buffer (MPC, rx_paused_drops).  Unpausing sends what the
 * TX tails announced.
 */
static bool dbb_igc_get_dma_pause(Object *obj, Error **errp)
{
    return DBB_IGC(obj)->dma_paused;
}

static void dbb_igc_set_dma_pause(Object *obj, bool on, Error **errp)
{
    DbbIgcState *s = DBB_IGC(obj);
    int q;

    s->dma_paused = on;
    for (q = 0; !on && q < DBB_IGC_NUM_QUEUES; q++) {
        dbb_igc_tx_process(s, q);
    }
}

/*
 * phy-power-down (read only): BMCR.PDOWN, the PHY powered down by the
 * driver; the far end of a real port then sees no link.
 */
static bool dbb_igc_get_phy_pdown(Object *obj, Error **errp)
{
    return DBB_IGC(obj)->phy[IGC_PHY_BMCR] & IGC_BMCR_PDOWN;
}

static const VMStateDescription dbb_igc_vmstate = {
    .name = "dbb-igc",
    .unmigratable = 1,
};

static Property dbb_igc_properties[] = {
    DEFINE_NIC_PROPERTIES(DbbIgcState, conf),
    DEFINE_PROP_UINT32("device-id", DbbIgcState, device_id, 0x125C),
    DEFINE_PROP_BOOL("nvm-flash", DbbIgcState, nvm_flash, false),
    DEFINE_PROP_BOOL("msix", DbbIgcState, use_msix, true),
    DEFINE_PROP_BOOL("strict", DbbIgcState, strict, true),
    DEFINE_PROP_BOOL("mng-rcv-tco", DbbIgcState, mng_rcv_tco, false),
    DEFINE_PROP_UINT32("mmio-trace-max", DbbIgcState, trace.max,
                       DBB_IGC_TRACE_DEFAULT),
    DEFINE_PROP_END_OF_LIST(),
};

static void dbb_igc_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *c = PCI_DEVICE_CLASS(klass);

    c->realize = dbb_igc_realize;
    c->exit = dbb_igc_exit;
    c->vendor_id = PCI_VENDOR_ID_INTEL;
    c->device_id = 0x125C;
    c->revision = 4;
    c->class_id = PCI_CLASS_NETWORK_ETHERNET;

    dc->desc = "Intel I225/I226 2.5GbE (igc) with doorbell ground truth";
    dc->reset = dbb_igc_qdev_reset;
    dc->vmsd = &dbb_igc_vmstate;
    device_class_set_props(dc, dbb_igc_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);

    object_class_property_add_bool(klass, "dma-pause",
                                   dbb_igc_get_dma_pause,
                                   dbb_igc_set_dma_pause);
    object_class_property_set_description(klass, "dma-pause",
        "Stop descriptor fetch and write-back (a bus stall) until off");
    object_class_property_add_bool(klass, "phy-power-down",
                                   dbb_igc_get_phy_pdown, NULL);
    object_class_property_set_description(klass, "phy-power-down",
        "The PHY is powered down (BMCR.PDOWN): no link for the far end");
    dbb_igc_trace_class_init(klass);
    dbb_truth_class_init(klass, "DbbIgcGroundTruth",
        "Per-queue doorbell, descriptor, frame and per-vector interrupt "
        "counts seen by the device (see tools/lab/qemu/README.md)",
        offsetof(DbbIgcState, truth));
}

static const TypeInfo dbb_igc_info = {
    .name = TYPE_DBB_IGC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(DbbIgcState),
    .instance_init = dbb_igc_instance_init,
    .class_init = dbb_igc_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void dbb_igc_register_types(void)
{
    type_register_static(&dbb_igc_info);
}

type_init(dbb_igc_register_types)
