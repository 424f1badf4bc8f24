/*
 * dbb-octep: a Marvell Octeon CN93 SDP PCIe endpoint (PCI 177d:b200) that
 * behaves as the octeon_ep driver and the measured SDP output block expect
 *
 * Enough of the CN93 SDP for the unmodified Linux octeon_ep of 6.1 and
 * 6.12: BAR0 ring and global registers, the control mailbox in BAR4 with
 * an emulated firmware behind it (both mailbox protocols), input (TX)
 * rings of 64-byte instructions and output (RX) rings whose doorbell is a
 * credit the block spends 16 buffers at a time while it is at or above
 * the output watermark (tools/lab/qemu/README.md).  The ground truth is
 * readable from the host (QOM property "ground-truth") and from inside
 * the guest through a vendor-specific PCI capability.
 *
 * This file: the PCI device, BAR0 decoding, interrupts, ground truth.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "net/net.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "sysemu/dma.h"
#include "sysemu/sysemu.h"
#include "dbb_octep.h"

#define DBB_OCTEP_PM_CAP    0x40
#define DBB_OCTEP_PCIE_CAP  0x70
#define DBB_OCTEP_MSIX_CAP  0xB0
#define DBB_OCTEP_GT_CAP    0xC0
#define DBB_OCTEP_AER_CAP   0x100
#define DBB_OCTEP_FW_VSEC   0x4D0
#define DBB_OCTEP_FW_VSEC_LEN 0x10
#define DBB_OCTEP_FW_VSEC_ID  0xA3

static const char *const dbb_ogt_names[DBB_OGT_NUM] = {
    [DBB_OGT_IN_DBELL_WRITES] = "in_dbell_writes",
    [DBB_OGT_IN_DBELL_NOOP] = "in_dbell_noop_writes",
    [DBB_OGT_IN_INSTR] = "in_instr",
    [DBB_OGT_TX_FRAMES] = "tx_frames",
    [DBB_OGT_TX_BYTES] = "tx_bytes",
    [DBB_OGT_OUT_DBELL_WRITES] = "out_dbell_writes",
    [DBB_OGT_OUT_DBELL_NOOP] = "out_dbell_noop_writes",
    [DBB_OGT_CREDIT_GRANTED] = "credit_granted",
    [DBB_OGT_CREDIT_FETCHED] = "credit_fetched",
    [DBB_OGT_CREDIT_NOW] = "credit_now",
    [DBB_OGT_FETCHES] = "fetches",
    [DBB_OGT_BUFFERS_FETCHED] = "buffers_fetched",
    [DBB_OGT_RX_FRAMES] = "rx_frames",
    [DBB_OGT_RX_BYTES] = "rx_bytes",
    [DBB_OGT_RX_BUFFERS] = "rx_buffers",
    [DBB_OGT_RX_REFUSED] = "rx_refused",
    [DBB_OGT_LAPS] = "laps",
    [DBB_OGT_OVERWRITTEN] = "overwritten_unread",
    [DBB_OGT_IRQS] = "irqs",
    [DBB_OGT_FW_REQUESTS] = "fw_requests",
    [DBB_OGT_HEARTBEATS] = "heartbeats",
    [DBB_OGT_FW_NOTIFY] = "fw_notifications",
    [DBB_OGT_RX_OFF_DROPS] = "rx_off_drops",
    [DBB_OGT_GUEST_ERRORS] = "guest_errors",
    [DBB_OGT_DMA_ERRORS] = "dma_errors",
    [DBB_OGT_OUTSTANDING_MAX] = "outstanding_max",
    [DBB_OGT_REG_READS] = "reg_reads",
    [DBB_OGT_IRQ_REG_WRITES] = "irq_reg_writes",
    [DBB_OGT_OTHER_REG_WRITES] = "other_reg_writes",
    [DBB_OGT_RX_SKIPPED] = "rx_skipped",
    [DBB_OGT_DESC_CHANGED] = "desc_changed",
    [DBB_OGT_IRQS_LOST] = "irqs_lost",
    [DBB_OGT_RX_UNCOUNTED] = "rx_uncounted",
};

static unsigned dbb_ogt_width(void *opaque, unsigned id)
{
    DbbOctepState *s = opaque;

    switch (id) {
    case DBB_OGT_IRQS:
        return DBB_OCTEP_NON_IOQ_VECTORS + s->num_rings;
    case DBB_OGT_FW_REQUESTS:
        return DBB_FW_CMDS;
    case DBB_OGT_HEARTBEATS:
    case DBB_OGT_FW_NOTIFY:
    case DBB_OGT_RX_OFF_DROPS:
    case DBB_OGT_GUEST_ERRORS:
    case DBB_OGT_REG_READS:
    case DBB_OGT_IRQ_REG_WRITES:
    case DBB_OGT_OTHER_REG_WRITES:
        return 1;
    default:
        return s->num_rings;
    }
}

/* Gauges are kept in the counter array so that every reader sees them. */
static void dbb_octep_gt_sync(void *opaque)
{
    DbbOctepState *s = opaque;
    unsigned q;

    for (q = 0; q < s->num_rings; q++) {
        s->gt[DBB_OGT_CREDIT_NOW][q] = s->ring[q].out_credit;
    }
}

static const DbbTruthInfo dbb_octep_truth_info = {
    .names = dbb_ogt_names,
    .num = DBB_OGT_NUM,
    .stride = DBB_OGT_MAX_INDEX,
    .width = dbb_ogt_width,
    .sync = dbb_octep_gt_sync,
    .unit = "ring",
};

void dbb_octep_guest_error(DbbOctepState *s, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    dbb_truth_guest_errorv(&s->truth, fmt, ap);
    va_end(ap);
}

/* ---- interrupts --------------------------------------------------------- */

void dbb_octep_msix(DbbOctepState *s, unsigned vector)
{
    PCIDevice *d = PCI_DEVICE(s);

    if (vector >= DBB_OCTEP_NON_IOQ_VECTORS + s->num_rings ||
        !msix_enabled(d)) {
        return;
    }
    msix_notify(d, vector);
    dbb_octep_gt_add(s, DBB_OGT_IRQS, vector, 1);
}

/* OEI_RINT: bit 0 control mailbox, bit 1 heartbeat; vector 8. */
void dbb_octep_oei_raise(DbbOctepState *s, uint64_t bits)
{
    uint64_t *rint = dbb_octep_greg(s, G_OEI_RINT);
    uint64_t ena = *dbb_octep_greg(s, G_OEI_RINT_ENA_W1S);

    *rint |= bits;
    if (bits & ena) {
        dbb_octep_msix(s, DBB_OCTEP_OEI_VECTOR);
    }
}

/* ---- BAR0 --------------------------------------------------------------- */

static bool dbb_octep_ring_of(hwaddr addr, int *q, hwaddr *off)
{
    hwaddr rel;

    if (addr < DBB_RING_BASE) {
        return false;
    }
    rel = addr - DBB_RING_BASE;
    if (rel % DBB_RING_STRIDE >= DBB_RING_STRIDE / 2 ||
        rel / DBB_RING_STRIDE >= DBB_OCTEP_MAX_RINGS) {
        return false;
    }
    *q = rel / DBB_RING_STRIDE;
    *off = rel % DBB_RING_STRIDE;
    return true;
}

static uint64_t dbb_octep_global_read(DbbOctepState *s, hwaddr addr)
{
    switch (addr) {
    case G_OEI_RINT:
    case G_OEI_RINT_W1S:
        return *dbb_octep_greg(s, G_OEI_RINT);
    case G_OEI_RINT_ENA_W1C:
    case G_OEI_RINT_ENA_W1S:
        return *dbb_octep_greg(s, G_OEI_RINT_ENA_W1S);
    case G_EPF_RINFO:
        return 0;                       /* SRN 0, no VFs */
    case G_MAC_PF_RING_CTL:
        return (uint64_t)s->num_rings << 16 | 1;   /* RPPF, NPFS 1 */
    case G_MAC_NUMBER:
        return 0;
    }
    if (addr >= G_RINT_FIRST && addr <= G_RINT_LAST) {
        return 0;       /* other causes never raised; 6.1 needs MBOX 0 */
    }
    if (addr >= DBB_GLOBAL_BASE && addr < DBB_GLOBAL_BASE + DBB_GLOBAL_SIZE) {
        return *dbb_octep_greg(s, addr);
    }
    return 0;
}

static void dbb_octep_global_write(DbbOctepState *s, hwaddr addr,
                                   uint64_t val, uint64_t mask)
{
    uint64_t *rint = dbb_octep_greg(s, G_OEI_RINT);
    uint64_t *ena = dbb_octep_greg(s, G_OEI_RINT_ENA_W1S);

    val &= mask;
    switch (addr) {
    case G_OEI_RINT:
        *rint &= ~val;
        return;
    case G_OEI_RINT_W1S:
        dbb_octep_oei_raise(s, val & (OEI_MBOX | OEI_HEARTBEAT));
        return;
    case G_OEI_RINT_ENA_W1C:
        *ena &= ~val;
        return;
    case G_OEI_RINT_ENA_W1S:
        if (val & ~*ena & *rint) {
            *ena |= val;
            dbb_octep_msix(s, DBB_OCTEP_OEI_VECTOR);
        }
        *ena |= val;
        return;
    case G_EPF_RINFO:
    case G_MAC_PF_RING_CTL:
    case G_MAC_NUMBER:
        return;                         /* read-only */
    }
    if (addr >= G_RINT_FIRST && addr <= G_RINT_LAST) {
        return;
    }
    if (addr >= DBB_GLOBAL_BASE && addr < DBB_GLOBAL_BASE + DBB_GLOBAL_SIZE) {
        uint64_t *r = dbb_octep_greg(s, addr);

        *r = (*r & ~mask) | val;
    }
}

static uint64_t dbb_octep_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
    DbbOctepState *s = opaque;
    hwaddr reg = addr & ~7ULL, off;
    unsigned shift = (addr & 4) * 8;
    uint64_t v;
    int q;

    if (!s->busy) {
        s->gt[DBB_OGT_REG_READS][0]++;    /* not the device's own DMA */
    }
    if (dbb_octep_ring_of(reg, &q, &off)) {
        v = dbb_octep_ring_read(s, q, off);
    } else {
        v = dbb_octep_global_read(s, reg);
    }
    return size == 8 ? v : (uint32_t)(v >> shift);
}

/*
 * A ring register write by kind: the doorbells count in their ring, the
 * count acknowledgements and interrupt levels a driver writes on its
 * interrupt path apart from everything else.
 */
static void dbb_octep_count_ring_write(DbbOctepState *s, hwaddr off,
                                      uint64_t mask)
{
    switch (off) {
    case R_IN_INSTR_DBELL:
    case R_OUT_SLIST_DBELL:
        /* The ring counts a doorbell when the low half is written. */
        if (mask & 0xFFFFFFFFULL) {
            return;
        }
        s->gt[DBB_OGT_OTHER_REG_WRITES][0]++;
        return;
    case R_IN_CNTS:
    case R_OUT_CNTS:
    case R_IN_INT_LEVELS:
    case R_OUT_INT_LEVELS:
        s->gt[DBB_OGT_IRQ_REG_WRITES][0]++;
        return;
    default:
        s->gt[DBB_OGT_OTHER_REG_WRITES][0]++;
    }
}

static void dbb_octep_bar0_write(void *opaque, hwaddr addr, uint64_t val,
                                 unsigned size)
{
    DbbOctepState *s = opaque;
    hwaddr reg = addr & ~7ULL, off;
    unsigned shift = (addr & 4) * 8;
    uint64_t mask = size == 8 ? UINT64_MAX : 0xFFFFFFFFULL << shift;
    int q;

    if (s->busy) {
        dbb_octep_guest_error(s, "BAR0 write at 0x%" HWADDR_PRIx
                              " by the device's own DMA: ignored", addr);
        return;
    }
    if (size == 4) {
        val = (val & 0xFFFFFFFFULL) << shift;
    }
    if (dbb_octep_ring_of(reg, &q, &off)) {
        dbb_octep_count_ring_write(s, off, mask);
        dbb_octep_ring_write(s, q, off, val, mask);
    } else {
        s->gt[DBB_OGT_OTHER_REG_WRITES][0]++;
        dbb_octep_global_write(s, reg, val, mask);
    }
}

static const MemoryRegionOps dbb_octep_bar0_ops = {
    .read = dbb_octep_bar0_read,
    .write = dbb_octep_bar0_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};

/* BAR2: nothing the drivers use; reads 0. */
static uint64_t dbb_octep_bar2_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static void dbb_octep_bar2_write(void *opaque, hwaddr addr, uint64_t val,
                                 unsigned size)
{
}

static const MemoryRegionOps dbb_octep_bar2_ops = {
    .read = dbb_octep_bar2_read,
    .write = dbb_octep_bar2_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

static const MemoryRegionOps dbb_octep_mbox_ops = {
    .read = dbb_octep_mbox_read,
    .write = dbb_octep_mbox_write,
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

/* ---- ground truth (dbb_truth.c), firmware-ready capability ------------- */

static void dbb_octep_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                                   int len)
{
    dbb_truth_write_config(&DBB_OCTEP(d)->truth, addr, val, len);
}

/* The firmware-ready extended capability 6.12 waits for (ID 0xA3, +8 = 1) */
static void dbb_octep_fw_vsec_init(DbbOctepState *s)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint8_t *cap = d->config + DBB_OCTEP_FW_VSEC;

    pcie_add_capability(d, PCI_EXT_CAP_ID_VNDR, 1, DBB_OCTEP_FW_VSEC,
                        DBB_OCTEP_FW_VSEC_LEN);
    pci_set_long(cap + 4, DBB_OCTEP_FW_VSEC_ID | 1 << 16 |
                 DBB_OCTEP_FW_VSEC_LEN << 20);
    cap[8] = s->fw_ready;
}

static bool dbb_octep_get_fw_ready(Object *obj, Error **errp)
{
    return DBB_OCTEP(obj)->fw_ready;
}

/* 6.12 defers probe while the byte reads 0; a test can flip it live. */
static void dbb_octep_set_fw_ready(Object *obj, bool on, Error **errp)
{
    DbbOctepState *s = DBB_OCTEP(obj);

    s->fw_ready = on;
    PCI_DEVICE(s)->config[DBB_OCTEP_FW_VSEC + 8] = on;
}

/* ---- reset, link, realize ---------------------------------------------- */

static void dbb_octep_qdev_reset(DeviceState *dev)
{
    DbbOctepState *s = DBB_OCTEP(dev);
    int q;

    memset(s->ring_regs, 0, sizeof(s->ring_regs));
    memset(s->gregs, 0, sizeof(s->gregs));
    for (q = 0; q < DBB_OCTEP_MAX_RINGS; q++) {
        dbb_octep_ring_reset(s, q);
    }
    dbb_octep_fw_reset(s);
    msix_reset(PCI_DEVICE(s));
}

static void dbb_octep_link_status_changed(NetClientState *nc)
{
    DbbOctepState *s = qemu_get_nic_opaque(nc);

    dbb_octep_fw_link_changed(s);
}

static bool dbb_octep_can_receive(NetClientState *nc)
{
    return true;        /* a frame without a buffer is refused and counted */
}

static NetClientInfo dbb_octep_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = dbb_octep_can_receive,
    .receive = dbb_octep_receive,
    .link_status_changed = dbb_octep_link_status_changed,
};

static void dbb_octep_realize(PCIDevice *d, Error **errp)
{
    DbbOctepState *s = DBB_OCTEP(d);
    unsigned nvec;
    int q, ret;

    if (s->num_rings < 1 || s->num_rings > DBB_OCTEP_MAX_RINGS) {
        error_setg(errp, "dbb-octep: rings=%u; 1 to %d", s->num_rings,
                   DBB_OCTEP_MAX_RINGS);
        return;
    }
    if (s->fw_mtu_max < 68 + 18 || s->fw_mtu_max > 0xFFFF) {
        error_setg(errp, "dbb-octep: mtu-max=%u; 86 to 65535",
                   s->fw_mtu_max);
        return;
    }
    nvec = DBB_OCTEP_NON_IOQ_VECTORS + s->num_rings;
    pci_set_word(d->config + PCI_SUBSYSTEM_VENDOR_ID, 0x177D);
    pci_set_word(d->config + PCI_SUBSYSTEM_ID, 0xB200);
    d->config[PCI_INTERRUPT_PIN] = 1;
    d->config_write = dbb_octep_write_config;

    memory_region_init_io(&s->bar0, OBJECT(s), &dbb_octep_bar0_ops, s,
                          "dbb-octep-bar0", DBB_OCTEP_BAR0_SIZE);
    memory_region_init_io(&s->bar2, OBJECT(s), &dbb_octep_bar2_ops, s,
                          "dbb-octep-bar2", DBB_OCTEP_BAR2_SIZE);
    memory_region_init(&s->bar4, OBJECT(s), "dbb-octep-bar4",
                       DBB_OCTEP_BAR4_SIZE);
    memory_region_init_io(&s->mbox_mr, OBJECT(s), &dbb_octep_mbox_ops, s,
                          "dbb-octep-mbox", DBB_OCTEP_MBOX_SIZE);
    memory_region_add_subregion(&s->bar4, DBB_OCTEP_MBOX_BASE, &s->mbox_mr);
    pci_register_bar(d, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);
    pci_register_bar(d, 2, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar2);
    pci_register_bar(d, 4, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar4);

    if (pci_add_capability(d, PCI_CAP_ID_PM, DBB_OCTEP_PM_CAP,
                           PCI_PM_SIZEOF, errp) < 0) {
        return;
    }
    pci_set_word(d->config + DBB_OCTEP_PM_CAP + PCI_PM_PMC,
                 PCI_PM_CAP_VER_1_2);
    pci_set_word(d->wmask + DBB_OCTEP_PM_CAP + PCI_PM_CTRL,
                 PCI_PM_CTRL_STATE_MASK);
    if (pcie_endpoint_cap_init(d, DBB_OCTEP_PCIE_CAP) < 0) {
        error_setg(errp, "dbb-octep: cannot add the PCIe capability");
        return;
    }
    pcie_cap_deverr_init(d);
    ret = msix_init(d, nvec, &s->bar4, 4, DBB_OCTEP_MSIX_TABLE,
                    &s->bar4, 4, DBB_OCTEP_MSIX_PBA, DBB_OCTEP_MSIX_CAP,
                    errp);
    if (ret) {
        goto err_pcie;
    }
    for (q = 0; q < nvec; q++) {
        msix_vector_use(d, q);
    }
    if (!dbb_truth_add_cap(&s->truth, DBB_OCTEP_GT_CAP, s->num_rings, nvec,
                           errp)) {
        goto err_msix;
    }
    if (pcie_aer_init(d, PCI_ERR_VER, DBB_OCTEP_AER_CAP, PCI_ERR_SIZEOF,
                      errp) < 0) {
        goto err_msix;
    }
    dbb_octep_fw_vsec_init(s);

    s->frame = g_malloc(DBB_OCTEP_MAX_FRAME + 64);
    for (q = 0; q < DBB_OCTEP_MAX_RINGS; q++) {
        s->ring[q].dev = s;
        s->ring[q].index = q;
        s->ring[q].out_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                            dbb_octep_out_timer_cb,
                                            &s->ring[q]);
    }
    s->fw_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, dbb_octep_fw_timer_cb, s);
    s->hb_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, dbb_octep_hb_timer_cb, s);
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&dbb_octep_net_info, &s->conf,
                          object_get_typename(OBJECT(s)),
                          DEVICE(d)->id, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    dbb_octep_fw_reset(s);
    return;

err_msix:
    msix_uninit(d, &s->bar4, &s->bar4);
err_pcie:
    pcie_cap_exit(d);
}

static void dbb_octep_exit(PCIDevice *d)
{
    DbbOctepState *s = DBB_OCTEP(d);
    int q;

    qemu_del_nic(s->nic);
    for (q = 0; q < DBB_OCTEP_MAX_RINGS; q++) {
        timer_free(s->ring[q].out_timer);
        dbb_octep_ring_cleanup(s, q);
    }
    timer_free(s->fw_timer);
    timer_free(s->hb_timer);
    g_free(s->frame);
    pcie_aer_exit(d);
    pcie_cap_exit(d);
    msix_uninit(d, &s->bar4, &s->bar4);
}

static void dbb_octep_instance_init(Object *obj)
{
    DbbOctepState *s = DBB_OCTEP(obj);

    device_add_bootindex_property(obj, &s->conf.bootindex, "bootindex",
                                  "/ethernet-phy@0", DEVICE(obj));
    s->fw_heartbeat = true;
    s->fw_ready = true;
    dbb_truth_init(&s->truth, &dbb_octep_truth_info, s, PCI_DEVICE(obj),
                   &s->gt[0][0], &s->gt_snap[0][0]);
    object_property_add_uint32_ptr(obj, "fw-delay-ms", &s->fw_delay_ms,
                                   OBJ_PROP_FLAG_READWRITE);
    /*
     * The firmware image sets the watermark; a run-time qom-set stands for
     * a coprocessor reconfigured under a running host (driver tests).
     */
    s->wmark = 0x400;
    object_property_add_uint32_ptr(obj, "wmark", &s->wmark,
                                   OBJ_PROP_FLAG_READWRITE);
    /*
     * A fault: the block passes over this many fetched buffers without
     * writing them, before the next frame it writes (a gap the host's
     * resync steps over).  Counts down to 0 as it is spent.
     */
    object_property_add_uint32_ptr(obj, "rx-skip", &s->rx_skip,
                                   OBJ_PROP_FLAG_READWRITE);
    /*
     * A fault: this many output-ring interrupts are lost (disarmed, no
     * message), as an MSI-X write that never arrives.  Counts down.
     */
    object_property_add_uint32_ptr(obj, "irq-lose", &s->irq_lose,
                                   OBJ_PROP_FLAG_READWRITE);
    /*
     * A fault: this many frames are written to their buffers but never
     * added to OUT_CNTS (nor interrupt): buffers written, a count of
     * nothing.  Counts down.
     */
    object_property_add_uint32_ptr(obj, "cnts-lose", &s->cnts_lose,
                                   OBJ_PROP_FLAG_READWRITE);
}

/* Firmware behaviour, changeable at run time (qom-set) for driver tests */
static bool dbb_octep_get_fw_silent(Object *obj, Error **errp)
{
    return DBB_OCTEP(obj)->fw_silent;
}

static void dbb_octep_set_fw_silent(Object *obj, bool on, Error **errp)
{
    DBB_OCTEP(obj)->fw_silent = on;
}

static bool dbb_octep_get_tx_hold(Object *obj, Error **errp)
{
    return DBB_OCTEP(obj)->tx_hold;
}

static void dbb_octep_set_tx_hold(Object *obj, bool on, Error **errp)
{
    DbbOctepState *s = DBB_OCTEP(obj);

    s->tx_hold = on;
    if (!on) {
        dbb_octep_in_resume(s);
    }
}

static bool dbb_octep_get_fw_v1(Object *obj, Error **errp)
{
    return DBB_OCTEP(obj)->fw_v1;
}

static void dbb_octep_set_fw_v1(Object *obj, bool on, Error **errp)
{
    dbb_octep_fw_set_v1(DBB_OCTEP(obj), on);
}

static bool dbb_octep_get_fw_heartbeat(Object *obj, Error **errp)
{
    return DBB_OCTEP(obj)->fw_heartbeat;
}

static void dbb_octep_set_fw_heartbeat(Object *obj, bool on, Error **errp)
{
    dbb_octep_fw_set_heartbeat(DBB_OCTEP(obj), on);
}

/*
 * The coprocessor restarts its firmware under a running host: the SDP
 * rings are reinitialised (disabled, no credit, no count) and the
 * mailbox is back to its first READY, waiting for a host to greet it;
 * until one does, no heartbeat.  PCI config and MSI-X are the host's and
 * stay.  Writing true does it once; it reads back false.
 */
static bool dbb_octep_get_fw_restart(Object *obj, Error **errp)
{
    return false;
}

static void dbb_octep_set_fw_restart(Object *obj, bool on, Error **errp)
{
    DbbOctepState *s = DBB_OCTEP(obj);
    int q;

    if (!on) {
        return;
    }
    memset(s->ring_regs, 0, sizeof(s->ring_regs));
    for (q = 0; q < DBB_OCTEP_MAX_RINGS; q++) {
        dbb_octep_ring_reset(s, q);
    }
    dbb_octep_fw_reset(s);
}

static const VMStateDescription dbb_octep_vmstate = {
    .name = "dbb-octep",
    .unmigratable = 1,
};

static Property dbb_octep_properties[] = {
    DEFINE_NIC_PROPERTIES(DbbOctepState, conf),
    DEFINE_PROP_UINT32("rings", DbbOctepState, num_rings, 4),
    DEFINE_PROP_UINT32("hb-interval-ms", DbbOctepState, hb_interval_ms,
                       1000),
    DEFINE_PROP_UINT32("hb-miss", DbbOctepState, hb_miss, 20),
    DEFINE_PROP_UINT32("mtu-max", DbbOctepState, fw_mtu_max, 9018),
    DEFINE_PROP_UINT32("rx-offloads", DbbOctepState, rx_offloads, 0),
    DEFINE_PROP_BOOL("rx-spread", DbbOctepState, rx_spread, true),
    DEFINE_PROP_UINT32("fw-latency-us", DbbOctepState, fw_latency_us, 1000),
    DEFINE_PROP_END_OF_LIST(),
};

static void dbb_octep_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *c = PCI_DEVICE_CLASS(klass);

    c->realize = dbb_octep_realize;
    c->exit = dbb_octep_exit;
    c->vendor_id = 0x177D;              /* Cavium / Marvell */
    c->device_id = 0xB200;              /* CN93xx SDP PF */
    c->revision = 0;
    c->class_id = PCI_CLASS_NETWORK_ETHERNET;

    dc->desc = "Marvell Octeon CN93 SDP endpoint (octeon_ep) with ring-credit "
               "ground truth";
    dc->reset = dbb_octep_qdev_reset;
    dc->vmsd = &dbb_octep_vmstate;
    device_class_set_props(dc, dbb_octep_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);

    object_class_property_add_bool(klass, "fw-silent",
                                   dbb_octep_get_fw_silent,
                                   dbb_octep_set_fw_silent);
    object_class_property_set_description(klass, "fw-silent",
        "The firmware reads mailbox requests but never answers");
    object_class_property_add_bool(klass, "tx-hold",
                                   dbb_octep_get_tx_hold,
                                   dbb_octep_set_tx_hold);
    object_class_property_add_bool(klass, "fw-v1",
                                   dbb_octep_get_fw_v1,
                                   dbb_octep_set_fw_v1);
    object_class_property_set_description(klass, "fw-v1",
        "An older firmware image: no control-plane version, v1 mailbox "
        "only (from the host's next READY)");
    object_class_property_add_bool(klass, "fw-heartbeat",
                                   dbb_octep_get_fw_heartbeat,
                                   dbb_octep_set_fw_heartbeat);
    object_class_property_set_description(klass, "fw-heartbeat",
        "The firmware pulses OEI_RINT bit 1 (v2 hosts; default on)");
    object_class_property_add_bool(klass, "fw-restart",
                                   dbb_octep_get_fw_restart,
                                   dbb_octep_set_fw_restart);
    object_class_property_set_description(klass, "fw-restart",
        "Write true: the firmware restarts (rings reinitialised, the "
        "mailbox waiting for the host's greeting, no heartbeat until then)");
    object_class_property_add_bool(klass, "fw-ready",
                                   dbb_octep_get_fw_ready,
                                   dbb_octep_set_fw_ready);
    object_class_property_set_description(klass, "fw-ready",
        "The firmware-ready byte of the 0xA3 capability reads 1 (default)");
    dbb_truth_class_init(klass, "DbbOctepGroundTruth",
        "Per-ring doorbell, credit, buffer, frame, lap and per-vector "
        "interrupt counts seen by the device (tools/lab/qemu/README.md)",
        offsetof(DbbOctepState, truth));
}

static const TypeInfo dbb_octep_info = {
    .name = TYPE_DBB_OCTEP,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(DbbOctepState),
    .instance_init = dbb_octep_instance_init,
    .class_init = dbb_octep_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void dbb_octep_register_types(void)
{
    type_register_static(&dbb_octep_info);
}

type_init(dbb_octep_register_types)
