/*
 * dbb-truth: the ground truth the dbb device models (dbb-igc, dbb-octep)
 * share: 64-bit counters a model keeps about what it saw, readable from
 * the host (QOM property "ground-truth", reset by "ground-truth-reset")
 * and from inside the guest through a vendor-specific PCI capability
 * (tools/lab/qemu/README.md, dbb-truth.sh).
 *
 * A model keeps its counters in two arrays of its own, [num][stride]
 * (the counters and the last snapshot), describes them in a
 * DbbTruthInfo, and calls:
 *   dbb_truth_init()         at instance_init,
 *   dbb_truth_add_cap()      at realize,
 *   dbb_truth_write_config() as (or from) its config_write,
 *   dbb_truth_class_init()   at class_init.
 * Guest programming errors are logged ("<type>: ...") and counted in the
 * counter named "guest_errors"; DMA goes through dbb_truth_dma_read/write,
 * which also count a refused DMA in "dma_errors" if the model has it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_DBB_TRUTH_H
#define HW_NET_DBB_TRUTH_H

#include "hw/pci/pci.h"
#include "qom/object.h"
#include "sysemu/dma.h"

typedef struct DbbTruthInfo {
    const char *const *names;   /* counter names, indexed by id */
    unsigned num;               /* counters: ids 0 .. num - 1 (ABI) */
    unsigned stride;            /* indexes per counter in the arrays */
    /* How many indexes counter @id has (queues, vectors, one...). */
    unsigned (*width)(void *opaque, unsigned id);
    /* Optional: refresh gauges kept in the counters before a read. */
    void (*sync)(void *opaque);
    const char *unit;           /* what a DMA's index is: "queue", "ring" */
} DbbTruthInfo;

typedef struct DbbTruth {
    const DbbTruthInfo *info;
    void *opaque;               /* the model, for the callbacks */
    PCIDevice *dev;             /* the model as a PCI device */
    uint64_t *gt;               /* [num][stride]: the counters */
    uint64_t *snap;             /* [num][stride]: the last snapshot */
    uint8_t cap;                /* config offset of the capability */
    int guest_errors;           /* id of "guest_errors" */
    int dma_errors;             /* id of "dma_errors" (per unit), or -1 */
} DbbTruth;

void dbb_truth_init(DbbTruth *t, const DbbTruthInfo *info, void *opaque,
                    PCIDevice *dev, uint64_t *gt, uint64_t *snap);
bool dbb_truth_add_cap(DbbTruth *t, uint8_t offset, unsigned queues,
                       unsigned vectors, Error **errp);
void dbb_truth_write_config(DbbTruth *t, uint32_t addr, uint32_t val,
                            int len);
void dbb_truth_reset(DbbTruth *t);
void dbb_truth_guest_errorv(DbbTruth *t, const char *fmt, va_list ap)
    G_GNUC_PRINTF(2, 0);
bool dbb_truth_dma_read(DbbTruth *t, dma_addr_t addr, void *buf,
                        dma_addr_t len, const char *what, int unit);
bool dbb_truth_dma_write(DbbTruth *t, dma_addr_t addr, const void *buf,
                         dma_addr_t len, const char *what, int unit);
void dbb_truth_class_init(ObjectClass *klass, const char *type,
                          const char *desc, size_t offset);

#endif
