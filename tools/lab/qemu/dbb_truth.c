/*
 * dbb-truth: the ground truth the dbb device models share (dbb_truth.h)
 *
 * The vendor-specific capability (offsets from the capability):
 *   +3  byte: layout version (1)
 *   +4  magic "DBBT"
 *   +8  selector, written by the reader: counter id (7:0), index (15:8),
 *       read from the snapshot (29), take a snapshot (30), reset (31);
 *       snapshot and reset happen before the value is latched
 *   +12 value, low 32 bits (all ones for an unknown id or index)
 *   +16 value, high 32 bits
 *   +20 info: counters (7:0) | queues or rings (15:8) | vectors (23:16)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/range.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "dbb_truth.h"

#define DBB_VSEC_LEN        0x18
#define DBB_VSEC_VERSION    3       /* byte: layout version */
#define DBB_VSEC_MAGIC      4       /* "DBBT" */
#define DBB_VSEC_SELECTOR   8
#define DBB_VSEC_VALUE_LO   12
#define DBB_VSEC_VALUE_HI   16
#define DBB_VSEC_INFO       20
#define DBB_VSEC_MAGIC_VAL  0x54424244u
#define DBB_SEL_ID_MASK     0xFF
#define DBB_SEL_INDEX_SHIFT 8
#define DBB_SEL_INDEX_MASK  0xFF
#define DBB_SEL_FROM_SNAP   BIT(29)
#define DBB_SEL_SNAPSHOT    BIT(30)
#define DBB_SEL_RESET       BIT(31)

static size_t dbb_truth_size(DbbTruth *t)
{
    return sizeof(uint64_t) * t->info->num * t->info->stride;
}

static void dbb_truth_sync(DbbTruth *t)
{
    if (t->info->sync) {
        t->info->sync(t->opaque);
    }
}

static int dbb_truth_id(const DbbTruthInfo *info, const char *name)
{
    unsigned id;

    for (id = 0; id < info->num; id++) {
        if (!strcmp(info->names[id], name)) {
            return id;
        }
    }
    return -1;
}

void dbb_truth_init(DbbTruth *t, const DbbTruthInfo *info, void *opaque,
                    PCIDevice *dev, uint64_t *gt, uint64_t *snap)
{
    t->info = info;
    t->opaque = opaque;
    t->dev = dev;
    t->gt = gt;
    t->snap = snap;
    t->cap = 0;
    t->guest_errors = dbb_truth_id(info, "guest_errors");
    t->dma_errors = dbb_truth_id(info, "dma_errors");
    assert(t->guest_errors >= 0);
}

void dbb_truth_reset(DbbTruth *t)
{
    memset(t->gt, 0, dbb_truth_size(t));
}

static uint64_t dbb_truth_value(DbbTruth *t, uint32_t sel)
{
    unsigned id = sel & DBB_SEL_ID_MASK;
    unsigned idx = (sel >> DBB_SEL_INDEX_SHIFT) & DBB_SEL_INDEX_MASK;
    uint64_t *from = (sel & DBB_SEL_FROM_SNAP) ? t->snap : t->gt;

    if (id >= t->info->num || idx >= t->info->width(t->opaque, id)) {
        return UINT64_MAX;
    }
    return from[id * t->info->stride + idx];
}

static void dbb_truth_select(DbbTruth *t)
{
    uint8_t *cap = t->dev->config + t->cap;
    uint32_t sel = pci_get_long(cap + DBB_VSEC_SELECTOR);
    uint64_t v;

    dbb_truth_sync(t);
    if (sel & DBB_SEL_SNAPSHOT) {
        memcpy(t->snap, t->gt, dbb_truth_size(t));
    }
    if (sel & DBB_SEL_RESET) {
        dbb_truth_reset(t);
    }
    v = dbb_truth_value(t, sel);
    pci_set_long(cap + DBB_VSEC_VALUE_LO, (uint32_t)v);
    pci_set_long(cap + DBB_VSEC_VALUE_HI, v >> 32);
}

/* The whole config write: QEMU's default, then latch a new selector. */
void dbb_truth_write_config(DbbTruth *t, uint32_t addr, uint32_t val,
                            int len)
{
    pci_default_write_config(t->dev, addr, val, len);
    if (t->cap && ranges_overlap(addr, len, t->cap + DBB_VSEC_SELECTOR, 4)) {
        dbb_truth_select(t);
    }
}

bool dbb_truth_add_cap(DbbTruth *t, uint8_t offset, unsigned queues,
                       unsigned vectors, Error **errp)
{
    PCIDevice *d = t->dev;
    uint8_t *cap;
    int off;

    off = pci_add_capability(d, PCI_CAP_ID_VNDR, offset, DBB_VSEC_LEN, errp);
    if (off < 0) {
        return false;
    }
    t->cap = off;
    cap = d->config + off;
    cap[PCI_CAP_FLAGS] = DBB_VSEC_LEN;
    cap[DBB_VSEC_VERSION] = 1;
    pci_set_long(cap + DBB_VSEC_MAGIC, DBB_VSEC_MAGIC_VAL);
    pci_set_long(cap + DBB_VSEC_INFO, t->info->num | queues << 8 |
                 vectors << 16);
    pci_set_long(d->wmask + off + DBB_VSEC_SELECTOR, UINT32_MAX);
    return true;
}

/* ---- guest programming errors and DMA ----------------------------------- */

void dbb_truth_guest_errorv(DbbTruth *t, const char *fmt, va_list ap)
{
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);

    qemu_log_mask(LOG_GUEST_ERROR, "%s: %s\n",
                  object_get_typename(OBJECT(t->dev)), msg);
    t->gt[t->guest_errors * t->info->stride]++;
}

static void G_GNUC_PRINTF(2, 3) dbb_truth_guest_error(DbbTruth *t,
                                                      const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    dbb_truth_guest_errorv(t, fmt, ap);
    va_end(ap);
}

/* A DMA the model could not do: a guest error, and a dma_errors count. */
static bool dbb_truth_dma_failed(DbbTruth *t, int unit)
{
    if (t->dma_errors >= 0 && (unsigned)unit < t->info->stride) {
        t->gt[t->dma_errors * t->info->stride + unit]++;
    }
    return false;
}

static bool dbb_truth_dma(DbbTruth *t, dma_addr_t addr, void *buf,
                          dma_addr_t len, DMADirection dir, const char *what,
                          int unit)
{
    if (!(t->dev->config[PCI_COMMAND] & PCI_COMMAND_MASTER)) {
        dbb_truth_guest_error(t, "%s %d: %s with bus mastering disabled",
                              t->info->unit, unit, what);
        return dbb_truth_dma_failed(t, unit);
    }
    if (pci_dma_rw(t->dev, addr, buf, len, dir,
                   MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        dbb_truth_guest_error(t, "%s %d: %s: DMA %s of %" PRIu64 " bytes at "
                              "0x%" PRIx64 " failed (outside RAM?)",
                              t->info->unit, unit, what,
                              dir == DMA_DIRECTION_TO_DEVICE ? "read" : "write",
                              (uint64_t)len, (uint64_t)addr);
        return dbb_truth_dma_failed(t, unit);
    }
    return true;
}

bool dbb_truth_dma_read(DbbTruth *t, dma_addr_t addr, void *buf,
                        dma_addr_t len, const char *what, int unit)
{
    return dbb_truth_dma(t, addr, buf, len, DMA_DIRECTION_TO_DEVICE, what,
                         unit);
}

bool dbb_truth_dma_write(DbbTruth *t, dma_addr_t addr, const void *buf,
                         dma_addr_t len, const char *what, int unit)
{
    return dbb_truth_dma(t, addr, (void *)buf, len,
                         DMA_DIRECTION_FROM_DEVICE, what, unit);
}

/* ---- QOM: "ground-truth" and "ground-truth-reset" ---------------------- */

/* The property's opaque is the offset of the DbbTruth in the instance. */
static DbbTruth *dbb_truth_of(Object *obj, void *opaque)
{
    return (DbbTruth *)((char *)obj + (uintptr_t)opaque);
}

static void dbb_truth_get(Object *obj, Visitor *v, const char *name,
                          void *opaque, Error **errp)
{
    DbbTruth *t = dbb_truth_of(obj, opaque);
    bool ok;
    unsigned id, i;

    dbb_truth_sync(t);
    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        return;
    }
    for (id = 0; id < t->info->num; id++) {
        if (!visit_start_list(v, t->info->names[id], NULL, 0, errp)) {
            goto out;
        }
        for (i = 0; i < t->info->width(t->opaque, id); i++) {
            if (!visit_type_uint64(v, NULL, &t->gt[id * t->info->stride + i],
                                   errp)) {
                visit_end_list(v, NULL);
                goto out;
            }
        }
        ok = visit_check_list(v, errp);
        visit_end_list(v, NULL);
        if (!ok) {
            goto out;
        }
    }
    visit_check_struct(v, errp);
out:
    visit_end_struct(v, NULL);
}

static void dbb_truth_set_reset(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    bool reset;

    if (!visit_type_bool(v, name, &reset, errp)) {
        return;
    }
    if (reset) {
        dbb_truth_reset(dbb_truth_of(obj, opaque));
    }
}

static void dbb_truth_get_reset(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    bool no = false;

    visit_type_bool(v, name, &no, errp);
}

/*
 * Add the two properties to a model's class.  @type is the QOM type name
 * of "ground-truth" (e.g. "DbbIgcGroundTruth"), @desc its description,
 * @offset that of the model's DbbTruth in its instance (offsetof()).
 */
void dbb_truth_class_init(ObjectClass *klass, const char *type,
                          const char *desc, size_t offset)
{
    void *opaque = (void *)(uintptr_t)offset;

    object_class_property_add(klass, "ground-truth", type, dbb_truth_get,
                              NULL, NULL, opaque);
    object_class_property_set_description(klass, "ground-truth", desc);
    object_class_property_add(klass, "ground-truth-reset", "bool",
                              dbb_truth_get_reset, dbb_truth_set_reset,
                              NULL, opaque);
    object_class_property_set_description(klass, "ground-truth-reset",
        "Set to true to zero all ground-truth counters");
}
