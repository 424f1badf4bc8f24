/*
 * dbb-igc: the internal 2.5GBASE-T PHY (MDIC, PHY address 0, clause-45
 * MMD access through registers 13/14) and the NVM shadow RAM (EERD)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/bswap.h"
#include "dbb_igc.h"
#include "dbb_igc_regs.h"

#define DBB_PHY_ID1             0x67C9  /* I225/I226 internal GPY PHY */
#define DBB_PHY_ID2             0xDC00
#define DBB_PHY_FW_VERSION      0x0177
#define DBB_BMCR_DEFAULT        0x1140  /* AN enable, FD, 1000 */
#define DBB_BMSR_BASE           0x7949  /* 10/100 caps, ext status, AN */
#define DBB_ANAR_DEFAULT        0x0DE1
#define DBB_ANLPAR_UP           0xCDE1
#define DBB_1000T_CTRL_DEFAULT  0x0200
#define DBB_1000T_STATUS_UP     0x3C00  /* local/remote RX ok, LP 1000 */
#define DBB_EXT_STATUS          0x3000
#define DBB_MGBT_CTRL_DEFAULT   0x0080  /* advertise 2.5GBASE-T */
#define DBB_MGBT_STAT_UP        0x4020  /* LP 2.5G capable, remote ok */
#define DBB_NVM_CHECKSUM_WORD   0x3F
#define DBB_NVM_SUM             0xBABA

/*
 * The link partner advertises every mode from 10 half to 2500 full
 * (ANLPAR, 1000T status, MGBT status): the link comes up at the best mode
 * we advertise, or not at all when we advertise none.
 */
static void dbb_igc_phy_resolve(DbbIgcState *s, uint16_t *speed, bool *fd)
{
    uint16_t anar = s->phy[IGC_PHY_ANAR];
    uint16_t c1000 = s->phy[IGC_PHY_1000T_CTRL];

    *fd = true;
    if (s->mmd_an_mgbt_ctrl & IGC_MGBT_CTRL_2500_FD) {
        *speed = 2500;
    } else if (c1000 & (IGC_1000T_CTRL_FD | IGC_1000T_CTRL_HD)) {
        *speed = 1000;
        *fd = c1000 & IGC_1000T_CTRL_FD;
    } else if (anar & (IGC_ANAR_100_FD | IGC_ANAR_100_HD)) {
        *speed = 100;
        *fd = anar & IGC_ANAR_100_FD;
    } else if (anar & (IGC_ANAR_10_FD | IGC_ANAR_10_HD)) {
        *speed = 10;
        *fd = anar & IGC_ANAR_10_FD;
    } else {
        *speed = 0;
    }
}

void dbb_igc_phy_reset(DbbIgcState *s)
{
    memset(s->phy, 0, sizeof(s->phy));
    s->phy[IGC_PHY_BMCR] = DBB_BMCR_DEFAULT;
    s->phy[IGC_PHY_ID1] = DBB_PHY_ID1;
    s->phy[IGC_PHY_ID2] = DBB_PHY_ID2;
    s->phy[IGC_PHY_ANAR] = DBB_ANAR_DEFAULT;
    s->phy[IGC_PHY_1000T_CTRL] = DBB_1000T_CTRL_DEFAULT;
    s->phy[IGC_PHY_EXT_STATUS] = DBB_EXT_STATUS;
    s->phy[IGC_PHY_GPHY_VERSION] = DBB_PHY_FW_VERSION;
    s->phy_mmd_devad = 0;
    s->phy_mmd_addr = 0;
    s->phy_mmd_data = false;
    s->mmd_an_mgbt_ctrl = DBB_MGBT_CTRL_DEFAULT;
    dbb_igc_phy_resolve(s, &s->an_speed, &s->an_full_duplex);
    s->an_running = false;
    if (s->an_timer) {
        timer_del(s->an_timer);
    }
}

/*
 * Auto-negotiation (re)started.  A result that differs from the current
 * one takes the link down for DBB_AN_NS, as renegotiation does on the
 * wire, so that the driver sees two link changes and reads the new speed;
 * otherwise the link stays as it is (AN "completes" at once).
 */
#define DBB_AN_NS               (100 * SCALE_MS)

static void dbb_igc_phy_restart_an(DbbIgcState *s)
{
    uint16_t speed;
    bool fd;

    dbb_igc_phy_resolve(s, &speed, &fd);
    if (speed == s->an_speed && fd == s->an_full_duplex) {
        return;
    }
    s->an_speed = speed;
    s->an_full_duplex = fd;
    if (s->link_up) {
        s->an_running = true;
        timer_mod(s->an_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + DBB_AN_NS);
    }
}

void dbb_igc_phy_an_done(void *opaque)
{
    DbbIgcState *s = opaque;

    s->an_running = false;
    dbb_igc_update_link(s);
}

/* Refresh the link-dependent PHY registers from s->link_up. */
void dbb_igc_phy_link_changed(DbbIgcState *s)
{
    bool up = s->link_up;

    s->phy[IGC_PHY_BMSR] = DBB_BMSR_BASE |
        (up ? IGC_BMSR_LINK | IGC_BMSR_AN_COMPLETE : 0);
    s->phy[IGC_PHY_ANLPAR] = up ? DBB_ANLPAR_UP : 0;
    s->phy[IGC_PHY_ANER] = up ? 1 : 0;
    s->phy[IGC_PHY_1000T_STATUS] = up ? DBB_1000T_STATUS_UP : 0;
}

static uint16_t dbb_igc_mmd_read(DbbIgcState *s, uint16_t devad,
                                 uint16_t addr)
{
    if (devad == IGC_MMD_AN) {
        switch (addr) {
        case IGC_MMD_AN_MGBT_CTRL:
            return s->mmd_an_mgbt_ctrl;
        case IGC_MMD_AN_MGBT_STAT:
            return s->link_up ? DBB_MGBT_STAT_UP : 0;
        }
    }
    return 0;
}

static void dbb_igc_mmd_write(DbbIgcState *s, uint16_t devad, uint16_t addr,
                              uint16_t val)
{
    if (devad == IGC_MMD_AN && addr == IGC_MMD_AN_MGBT_CTRL) {
        s->mmd_an_mgbt_ctrl = val;
    }
}

static uint16_t dbb_igc_phy_read(DbbIgcState *s, unsigned reg)
{
    if (reg == IGC_PHY_MMDAAD) {
        return s->phy_mmd_data ?
            dbb_igc_mmd_read(s, s->phy_mmd_devad, s->phy_mmd_addr) :
            s->phy_mmd_addr;
    }
    if (reg == IGC_PHY_1000T_STATUS && !dbb_igc_partner_rx_ok(s)) {
        return s->phy[reg] & ~(IGC_1000T_STATUS_LOCAL_RX_OK |
                               IGC_1000T_STATUS_REMOTE_RX_OK);
    }
    return s->phy[reg];
}

static void dbb_igc_phy_write(DbbIgcState *s, unsigned reg, uint16_t val)
{
    switch (reg) {
    case IGC_PHY_BMCR:
        if (val & IGC_BMCR_RESET) {
            dbb_igc_phy_reset(s);
        } else {
            /* Restart self-clears. */
            s->phy[reg] = val & ~IGC_BMCR_RESTART_AN;
            if (val & (IGC_BMCR_RESTART_AN | IGC_BMCR_AN_ENABLE)) {
                dbb_igc_phy_restart_an(s);
            }
        }
        dbb_igc_update_link(s);
        dbb_igc_phy_link_changed(s);
        return;
    case IGC_PHY_BMSR:
    case IGC_PHY_ID1:
    case IGC_PHY_ID2:
    case IGC_PHY_ANLPAR:
    case IGC_PHY_ANER:
    case IGC_PHY_1000T_STATUS:
    case IGC_PHY_EXT_STATUS:
    case IGC_PHY_GPHY_VERSION:
        return;                                 /* read-only */
    case IGC_PHY_MMDAC:
        s->phy[reg] = val;
        s->phy_mmd_devad = val & IGC_MMDAC_DEVAD_MASK;
        s->phy_mmd_data = (val >> IGC_MMDAC_FUNC_SHIFT) != IGC_MMDAC_FUNC_ADDR;
        return;
    case IGC_PHY_MMDAAD:
        if (s->phy_mmd_data) {
            dbb_igc_mmd_write(s, s->phy_mmd_devad, s->phy_mmd_addr, val);
        } else {
            s->phy_mmd_addr = val;
        }
        return;
    default:
        s->phy[reg] = val;
        return;
    }
}

/* Carry out one MDIC access now (dbb_igc_timing.c decides when). */
void dbb_igc_mdic_do(DbbIgcState *s, uint32_t val)
{
    unsigned phy = (val >> IGC_MDIC_PHY_SHIFT) & IGC_MDIC_PHY_MASK;
    unsigned reg = (val >> IGC_MDIC_REG_SHIFT) & IGC_MDIC_REG_MASK;
    uint32_t op = val & (IGC_MDIC_OP_READ | IGC_MDIC_OP_WRITE);

    val &= ~(IGC_MDIC_READY | IGC_MDIC_ERROR);
    if (op != IGC_MDIC_OP_READ && op != IGC_MDIC_OP_WRITE) {
        dbb_igc_guest_error(s, "MDIC 0x%08x: neither a read nor a write",
                            val);
        dbb_igc_set_reg(s, IGC_R_MDIC, val | IGC_MDIC_READY | IGC_MDIC_ERROR);
        return;
    }
    if (phy != 0) {
        /* Only the internal PHY, at address 0, answers. */
        dbb_igc_set_reg(s, IGC_R_MDIC, val | IGC_MDIC_READY | IGC_MDIC_ERROR);
        return;
    }
    if (op == IGC_MDIC_OP_READ) {
        val = (val & ~IGC_MDIC_DATA_MASK) | dbb_igc_phy_read(s, reg);
    } else {
        dbb_igc_phy_write(s, reg, val & IGC_MDIC_DATA_MASK);
    }
    dbb_igc_set_reg(s, IGC_R_MDIC, val | IGC_MDIC_READY);
}

void dbb_igc_nvm_init(DbbIgcState *s, const uint8_t *mac)
{
    uint16_t sum = 0;
    int i;

    memset(s->nvm, 0, sizeof(s->nvm));
    for (i = 0; i < 3; i++) {
        s->nvm[i] = lduw_le_p(mac + 2 * i);
    }
    s->nvm[0x0A] = 0x0200;      /* init control 1: valid signature */
    s->nvm[0x0B] = 0x0000;      /* subsystem ID */
    s->nvm[0x0C] = 0x8086;      /* subsystem vendor */
    s->nvm[0x0D] = s->device_id;
    for (i = 0; i < DBB_NVM_CHECKSUM_WORD; i++) {
        sum += s->nvm[i];
    }
    s->nvm[DBB_NVM_CHECKSUM_WORD] = (uint16_t)(DBB_NVM_SUM - sum);
}

void dbb_igc_eerd_write(DbbIgcState *s, uint32_t val)
{
    uint32_t addr = (val >> IGC_EERD_ADDR_SHIFT) & 0x3FFF;
    uint16_t data;

    if (!(val & IGC_EERD_START)) {
        dbb_igc_set_reg(s, IGC_R_EERD, val & ~IGC_EERD_DONE);
        return;
    }
    data = addr < DBB_IGC_NVM_WORDS ? s->nvm[addr] : 0xFFFF;
    dbb_igc_set_reg(s, IGC_R_EERD, (uint32_t)data << IGC_EERD_DATA_SHIFT |
                    addr << IGC_EERD_ADDR_SHIFT | IGC_EERD_DONE);
}

/* Shadow RAM write (only used by igc with a flash part present). */
void dbb_igc_srwr_write(DbbIgcState *s, uint32_t val)
{
    uint32_t addr = (val >> IGC_EERD_ADDR_SHIFT) & 0x3FFF;

    if (!(val & IGC_EERD_START)) {
        dbb_igc_set_reg(s, IGC_R_SRWR, val & ~IGC_EERD_DONE);
        return;
    }
    if (addr < DBB_IGC_NVM_WORDS) {
        s->nvm[addr] = val >> IGC_EERD_DATA_SHIFT;
    } else {
        dbb_igc_guest_error(s, "NVM write beyond word %u",
                            DBB_IGC_NVM_WORDS - 1);
    }
    dbb_igc_set_reg(s, IGC_R_SRWR, val | IGC_EERD_DONE);
}
