/*
 * dbb-igc: the MMIO trace, every guest access to BAR0 (offset, read or
 * write, size, value, order, guest virtual time) recorded while the host
 * asks for it, for comparing drivers register by register (issue 14's
 * register-sequence parity: igc_parity.py in
 * tools/testing/selftests/net/dbbatch/).
 *
 * QOM (from the host, over QMP):
 *   mmio-trace       bool, set: true empties the trace and starts
 *                    recording, false stops (the records are kept);
 *                    get: recording or not
 *   mmio-trace-dump  get only: { "recording", "truncated", "dropped",
 *                    "max", "accesses": [[t_ns, write, offset, size,
 *                    value], ...] } in guest order, t_ns the guest's
 *                    virtual time since the start
 *   mmio-trace-max   device property: records kept (default 65536,
 *                    1..4194304); the buffer is allocated at the first
 *                    start.  A guest that makes more accesses than that
 *                    is logged once per trace (LOG_GUEST_ERROR, not a
 *                    guest error: nothing is wrong with the device) and
 *                    the trace is marked truncated, the excess counted
 *                    in "dropped"; recording goes on at no cost.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "dbb_igc.h"

void dbb_igc_trace_access(DbbIgcState *s, bool write, hwaddr addr,
                          unsigned size, uint64_t val)
{
    DbbIgcTrace *t = &s->trace;
    DbbIgcTraceRec *r;

    /* Busy: the device's own DMA aimed at BAR0, not the guest. */
    if (!t->recording || s->busy) {
        return;
    }
    if (t->len >= t->max) {
        if (!t->truncated) {
            qemu_log_mask(LOG_GUEST_ERROR, "dbb-igc: MMIO trace full "
                          "(%u accesses): trace truncated, later "
                          "accesses dropped\n", t->max);
        }
        t->truncated = true;
        t->dropped++;
        return;
    }
    r = &t->recs[t->len++];
    r->ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - t->start_ns;
    r->val = val;
    r->off = addr;
    r->size = size;
    r->write = write;
}

bool dbb_igc_trace_realize(DbbIgcState *s, Error **errp)
{
    if (s->trace.max < 1 || s->trace.max > DBB_IGC_TRACE_MAX) {
        error_setg(errp, "dbb-igc: mmio-trace-max %u is not in 1..%u",
                   s->trace.max, DBB_IGC_TRACE_MAX);
        return false;
    }
    return true;
}

void dbb_igc_trace_exit(DbbIgcState *s)
{
    g_free(s->trace.recs);
    s->trace.recs = NULL;
}

static bool dbb_igc_get_trace(Object *obj, Error **errp)
{
    return DBB_IGC(obj)->trace.recording;
}

static void dbb_igc_set_trace(Object *obj, bool on, Error **errp)
{
    DbbIgcTrace *t = &DBB_IGC(obj)->trace;

    if (on) {
        if (!t->recs) {
            t->recs = g_new(DbbIgcTraceRec, t->max);
        }
        t->len = 0;
        t->dropped = 0;
        t->truncated = false;
        t->start_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    }
    t->recording = on;
}

static bool dbb_igc_visit_rec(Visitor *v, DbbIgcTraceRec *r, Error **errp)
{
    uint64_t ns = r->ns, off = r->off, size = r->size, val = r->val;
    bool write = r->write;
    bool ok;

    if (!visit_start_list(v, NULL, NULL, 0, errp)) {
        return false;
    }
    ok = visit_type_uint64(v, NULL, &ns, errp) &&
         visit_type_bool(v, NULL, &write, errp) &&
         visit_type_uint64(v, NULL, &off, errp) &&
         visit_type_uint64(v, NULL, &size, errp) &&
         visit_type_uint64(v, NULL, &val, errp) &&
         visit_check_list(v, errp);
    visit_end_list(v, NULL);
    return ok;
}

static void dbb_igc_get_trace_dump(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    DbbIgcTrace *t = &DBB_IGC(obj)->trace;
    bool recording = t->recording, truncated = t->truncated;
    uint64_t dropped = t->dropped;
    uint32_t max = t->max;
    uint32_t i;

    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        return;
    }
    if (!visit_type_bool(v, "recording", &recording, errp) ||
        !visit_type_bool(v, "truncated", &truncated, errp) ||
        !visit_type_uint64(v, "dropped", &dropped, errp) ||
        !visit_type_uint32(v, "max", &max, errp) ||
        !visit_start_list(v, "accesses", NULL, 0, errp)) {
        goto out;
    }
    for (i = 0; i < t->len; i++) {
        if (!dbb_igc_visit_rec(v, &t->recs[i], errp)) {
            visit_end_list(v, NULL);
            goto out;
        }
    }
    if (visit_check_list(v, errp)) {
        visit_end_list(v, NULL);
        visit_check_struct(v, errp);
    } else {
        visit_end_list(v, NULL);
    }
out:
    visit_end_struct(v, NULL);
}

void dbb_igc_trace_class_init(ObjectClass *klass)
{
    object_class_property_add_bool(klass, "mmio-trace", dbb_igc_get_trace,
                                   dbb_igc_set_trace);
    object_class_property_set_description(klass, "mmio-trace",
        "true: empty the MMIO trace and record every BAR0 access; "
        "false: stop recording");
    object_class_property_add(klass, "mmio-trace-dump", "DbbIgcMmioTrace",
                              dbb_igc_get_trace_dump, NULL, NULL, NULL);
    object_class_property_set_description(klass, "mmio-trace-dump",
        "The MMIO trace: accesses as [t_ns, write, offset, size, value]");
}
