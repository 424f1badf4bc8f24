/*
 * dbb-pcie: the PCIe transactions silicon would make for the descriptor
 * traffic a dbb model moves one descriptor at a time, counted by the
 * model for the lab's modeled PCIe load per packet (tools/lab/pcie.py).
 *
 * The assumptions (stated again in the report): a tail write lets the
 * device fetch every descriptor it exposed at once, in reads of at most
 * the maximum read request size, split at the ring's end; descriptors
 * completed in one pass are written back in writes of at most the
 * maximum payload size, split where the run of written-back descriptors
 * breaks.  The sizes are the PCIe defaults an I226 on a client root port
 * runs with.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_DBB_PCIE_H
#define HW_NET_DBB_PCIE_H

#define DBB_PCIE_MRRS           512     /* max read request, bytes */
#define DBB_PCIE_MPS            128     /* max payload, bytes */

/*
 * Reads that fetch the descriptors from @old up to @new (a tail write) in
 * a ring of @ndesc descriptors of @size bytes.  0 for a no-op write, and
 * for a ring the device would refuse (size 0, index beyond the ring).
 */
static inline uint32_t dbb_pcie_desc_reads(uint32_t old, uint32_t new,
                                           uint32_t ndesc, uint32_t size)
{
    uint32_t per = size && size <= DBB_PCIE_MRRS ? DBB_PCIE_MRRS / size : 1;
    uint32_t n, first;

    if (!ndesc || old >= ndesc || new >= ndesc || old == new) {
        return 0;
    }
    n = new > old ? new - old : ndesc - old + new;
    first = MIN(n, ndesc - old);
    return DIV_ROUND_UP(first, per) + DIV_ROUND_UP(n - first, per);
}

/*
 * Write-backs of one pass: call with each written-back descriptor's
 * index; counts a new write when the run breaks (not adjacent, the
 * ring's end, or a full payload).
 */
typedef struct DbbPcieWb {
    uint32_t next;              /* index that would extend the run */
    uint32_t run;               /* descriptors in the current write */
} DbbPcieWb;

static inline void dbb_pcie_wb_start(DbbPcieWb *w)
{
    w->next = UINT32_MAX;
    w->run = 0;
}

/* Returns 1 when descriptor @idx starts a new write, else 0. */
static inline uint32_t dbb_pcie_wb_add(DbbPcieWb *w, uint32_t idx,
                                       uint32_t ndesc, uint32_t size)
{
    uint32_t per = size && size <= DBB_PCIE_MPS ? DBB_PCIE_MPS / size : 1;
    uint32_t starts = !(w->run && idx == w->next && w->run < per);

    w->run = starts ? 1 : w->run + 1;
    w->next = idx + 1 < ndesc ? idx + 1 : UINT32_MAX;
    return starts;
}

#endif
