/*
 * dbb-igc: what the silicon makes a driver wait for, and the semaphore it
 * shares with the firmware (property "strict", on by default)
 *
 * A model that answers at once passes a driver that skips a wait the real
 * part needs; with strict=on a driver must wait as upstream igc does:
 *
 * - a port reset (CTRL.RST, CTRL.DEV_RST, power-on, PCI reset) reloads
 *   the NVM: EECD.AUTO_RD and the MAC address in RAL0/RAH0 appear
 *   DBB_IGC_AUTORD_NS later, and a register write before that is lost
 *   (upstream polls EECD.AUTO_RD every 1-2 ms for up to 10 tries);
 * - a PHY reset ends DBB_IGC_PHY_RST_NS after CTRL.PHY_RST is cleared,
 *   when PHPM.RST_COMPL sets ("SW should guarantee 100us for the
 *   completion of the PHY reset"); an MDIC access before that fails
 *   (MDIC.E);
 * - an MDIC access takes one MDIO frame, 64 bits at 2.5 MHz: READY sets
 *   DBB_IGC_MDIC_NS after the write, and only then are the data valid;
 * - a link that comes up at 1000 Mb/s: the partner's 1000BASE-T receiver
 *   is ready DBB_IGC_1000T_RX_NS later (1000T status bits 12-13, which
 *   upstream's watchdog polls for up to 2 s before carrier on); a frame
 *   sent before that is lost (tx_link_drops), as on the wire;
 * - SWSM.SMBI is taken by the read that returns it clear and held until
 *   written back to 0 (a second reader sees it set); SW_FW_SYNC is only
 *   written under SWSM.SWESMBI; a semaphore held for DBB_IGC_SWSM_HOLD_NS
 *   is a driver that forgot to release it.
 *
 * Each broken rule is a guest error (logged with -d guest_errors and
 * counted in the ground truth), never a QEMU crash.
 *
 * The waits end at a virtual time checked at every BAR0 access
 * (dbb_igc_timing_poll), not by timers: a vCPU spinning on MMIO reads can
 * keep the main loop from running a timer for longer than the driver
 * polls, which would fail a driver that waited correctly.  strict=off: all of
 * it is immediate and SMBI always reads 0, the model's old behaviour.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "dbb_igc.h"
#include "dbb_igc_regs.h"

#define DBB_IGC_AUTORD_NS       (1 * SCALE_MS)
#define DBB_IGC_PHY_RST_NS      (100 * SCALE_US)
#define DBB_IGC_MDIC_NS         (26 * SCALE_US)     /* 64 bits / 2.5 MHz */
#define DBB_IGC_SWSM_HOLD_NS    (1 * NANOSECONDS_PER_SECOND)
#define DBB_IGC_1000T_RX_NS     (300 * SCALE_MS)

static int64_t dbb_igc_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* ---- reset and NVM auto-read ----------------------------------------- */

static void dbb_igc_autoread_done(DbbIgcState *s)
{
    s->autoread_end = INT64_MAX;
    dbb_igc_set_reg(s, IGC_R_EECD, dbb_igc_reg(s, IGC_R_EECD) |
                    IGC_EECD_AUTO_RD);
    dbb_igc_set_mac_regs(s);
}

/* Power-on and PCI resets: no PHY reset held, the link (if up) is old. */
void dbb_igc_timing_power_on(DbbIgcState *s)
{
    s->phy_in_reset = false;
    s->phy_rst_end = INT64_MAX;
    s->partner_rx_ok = 0;
}

/*
 * After a MAC reset cleared the registers: the NVM is read back, at once
 * or (strict) DBB_IGC_AUTORD_NS from now.  Whatever was in flight is gone.
 */
void dbb_igc_timing_reset(DbbIgcState *s)
{
    timer_del(s->swsm_timer);
    s->mdic_end = INT64_MAX;
    if (!s->strict) {
        dbb_igc_autoread_done(s);
        return;
    }
    s->autoread_end = dbb_igc_now() + DBB_IGC_AUTORD_NS;
}

/* A register write while the NVM is being read: lost, as on the part. */
bool dbb_igc_write_lost(DbbIgcState *s, hwaddr off, uint32_t val)
{
    if (s->autoread_end == INT64_MAX || off == IGC_R_CTRL) {
        return false;
    }
    dbb_igc_guest_error(s, "register 0x%05" HWADDR_PRIx " written (0x%08x) "
                        "during the NVM auto-read after a reset: lost; "
                        "wait for EECD.AUTO_RD first", off, val);
    return true;
}

/* ---- PHY reset --------------------------------------------------------- */

static void dbb_igc_phy_rst_done(DbbIgcState *s)
{
    s->phy_in_reset = false;
    s->phy_rst_end = INT64_MAX;
    dbb_igc_set_reg(s, IGC_R_PHPM, dbb_igc_reg(s, IGC_R_PHPM) |
                    IGC_PHPM_RST_COMPL);
}

/*
 * CTRL.PHY_RST went from OLD to NOW (the PHY itself is reset by the
 * caller on the rising edge).
 */
void dbb_igc_phy_rst_write(DbbIgcState *s, bool old, bool now)
{
    if (!s->strict || old == now) {
        return;
    }
    if (now) {
        s->phy_in_reset = true;
        s->phy_rst_end = INT64_MAX;
        dbb_igc_set_reg(s, IGC_R_PHPM, dbb_igc_reg(s, IGC_R_PHPM) &
                        ~IGC_PHPM_RST_COMPL);
    } else if (s->phy_in_reset) {
        s->phy_rst_end = dbb_igc_now() + DBB_IGC_PHY_RST_NS;
    }
}

/* PHPM.RST_COMPL is the device's to say. */
uint32_t dbb_igc_phpm_write(DbbIgcState *s, uint32_t val)
{
    if (!s->strict) {
        return val | IGC_PHPM_RST_COMPL;
    }
    return (val & ~IGC_PHPM_RST_COMPL) |
           (s->phy_in_reset ? 0 : IGC_PHPM_RST_COMPL);
}

/* ---- MDIC -------------------------------------------------------------- */

static void dbb_igc_mdic_done(DbbIgcState *s)
{
    s->mdic_end = INT64_MAX;
    if (s->phy_in_reset) {
        dbb_igc_guest_error(s, "MDIC access 0x%08x while the PHY is in "
                            "reset (PHPM.RST_COMPL clear): fails; wait for "
                            "RST_COMPL after clearing CTRL.PHY_RST",
                            s->mdic_req);
        dbb_igc_set_reg(s, IGC_R_MDIC, s->mdic_req | IGC_MDIC_READY |
                        IGC_MDIC_ERROR);
        return;
    }
    dbb_igc_mdic_do(s, s->mdic_req);
}

void dbb_igc_mdic_start(DbbIgcState *s, uint32_t val)
{
    if (!s->strict) {
        dbb_igc_mdic_do(s, val);
        return;
    }
    if (s->mdic_end != INT64_MAX) {
        dbb_igc_guest_error(s, "MDIC written (0x%08x) while the access "
                            "0x%08x is in flight: ignored; poll MDIC.READY "
                            "first", val, s->mdic_req);
        return;
    }
    s->mdic_req = val & ~(IGC_MDIC_READY | IGC_MDIC_ERROR);
    dbb_igc_set_reg(s, IGC_R_MDIC, s->mdic_req);
    s->mdic_end = dbb_igc_now() + DBB_IGC_MDIC_NS;
}

/* Before a BAR0 access: end what is due, in the order it fell due. */
void dbb_igc_timing_poll(DbbIgcState *s)
{
    int64_t now;

    if (s->autoread_end == INT64_MAX && s->phy_rst_end == INT64_MAX &&
        s->mdic_end == INT64_MAX) {
        return;
    }
    now = dbb_igc_now();
    for (;;) {
        int64_t first = MIN(s->autoread_end,
                            MIN(s->phy_rst_end, s->mdic_end));

        if (first > now) {
            return;
        }
        if (first == s->autoread_end) {
            dbb_igc_autoread_done(s);
        } else if (first == s->mdic_end) {
            dbb_igc_mdic_done(s);
        } else {
            dbb_igc_phy_rst_done(s);
        }
    }
}

/* ---- 1000BASE-T: the partner's receiver -------------------------------- */

/* s->link_up just changed. */
void dbb_igc_link_up_timing(DbbIgcState *s)
{
    s->partner_rx_ok = 0;
    if (s->strict && s->link_up && s->an_speed == 1000) {
        s->partner_rx_ok = dbb_igc_now() + DBB_IGC_1000T_RX_NS;
    }
}

/* Asked per transmitted frame: the clock is read only while waiting. */
bool dbb_igc_partner_rx_ok(DbbIgcState *s)
{
    if (s->partner_rx_ok && dbb_igc_now() >= s->partner_rx_ok) {
        s->partner_rx_ok = 0;
    }
    return !s->partner_rx_ok;
}

/* ---- the SWSM semaphore ------------------------------------------------ */

static void dbb_igc_swsm_held(void *opaque)
{
    DbbIgcState *s = opaque;

    dbb_igc_guest_error(s, "SWSM 0x%x held for %d ms: a driver took the "
                        "semaphore (a read of SWSM that returns SMBI clear "
                        "takes it) and did not release it; the firmware "
                        "and the next acquire wait for it",
                        dbb_igc_reg(s, IGC_R_SWSM),
                        (int)(DBB_IGC_SWSM_HOLD_NS / SCALE_MS));
}

static void dbb_igc_swsm_set(DbbIgcState *s, uint32_t v)
{
    uint32_t old = dbb_igc_reg(s, IGC_R_SWSM);

    dbb_igc_set_reg(s, IGC_R_SWSM, v);
    if (!v) {
        timer_del(s->swsm_timer);
    } else if (!old) {
        timer_mod(s->swsm_timer, dbb_igc_now() + DBB_IGC_SWSM_HOLD_NS);
    }
}

uint32_t dbb_igc_swsm_read(DbbIgcState *s)
{
    uint32_t v = dbb_igc_reg(s, IGC_R_SWSM);

    if (!s->strict) {
        return v & ~IGC_SWSM_SMBI;
    }
    if (!(v & IGC_SWSM_SMBI)) {
        dbb_igc_swsm_set(s, v | IGC_SWSM_SMBI);     /* granted to us */
    }
    return v;
}

void dbb_igc_swsm_write(DbbIgcState *s, uint32_t val)
{
    if (!s->strict) {
        dbb_igc_set_reg(s, IGC_R_SWSM, val & IGC_SWSM_SWESMBI);
        return;
    }
    dbb_igc_swsm_set(s, val & (IGC_SWSM_SMBI | IGC_SWSM_SWESMBI));
}

void dbb_igc_sw_fw_sync_write(DbbIgcState *s, uint32_t val)
{
    if (s->strict && !(dbb_igc_reg(s, IGC_R_SWSM) & IGC_SWSM_SWESMBI)) {
        dbb_igc_guest_error(s, "SW_FW_SYNC written (0x%08x) without "
                            "holding SWSM.SWESMBI: races the firmware; "
                            "take SWSM.SMBI, then SWESMBI, first", val);
    }
    dbb_igc_set_reg(s, IGC_R_SW_FW_SYNC, val & 0xFFFF);  /* no firmware */
}

/* ---- life cycle -------------------------------------------------------- */

void dbb_igc_timing_init(DbbIgcState *s)
{
    s->autoread_end = INT64_MAX;
    s->phy_rst_end = INT64_MAX;
    s->mdic_end = INT64_MAX;
    s->swsm_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, dbb_igc_swsm_held, s);
}

void dbb_igc_timing_exit(DbbIgcState *s)
{
    timer_free(s->swsm_timer);
}
