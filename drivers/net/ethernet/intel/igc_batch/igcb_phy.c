// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch: the internal 2.5GBASE-T PHY, through MDIC at address 0.
 *
 * Clause 22 registers are read and written through MDIC; the 2.5G
 * advertisement lives in MMD 7 and is reached through the clause-45
 * indirection of registers 13 and 14.  Every access sequence holds the
 * driver's PHY mutex and the firmware's PHY semaphore, and runs in
 * process context (probe, open, ethtool, the watchdog work).
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/iopoll.h>
#include <linux/mii.h>

#include "igcb.h"

static int igcb_phy_lock(struct igcb_hw *hw)
{
	int err;

	mutex_lock(&hw->phy_lock);
	err = igcb_swfw_acquire(hw, IGCB_SWFW_PHY0);
	if (err)
		mutex_unlock(&hw->phy_lock);
	return err;
}

static void igcb_phy_unlock(struct igcb_hw *hw)
{
	igcb_swfw_release(hw, IGCB_SWFW_PHY0);
	mutex_unlock(&hw->phy_lock);
}

/* One MDIC transaction; the caller holds the PHY lock. */
static int igcb_mdic(struct igcb_hw *hw, bool write, u32 reg, u16 *data)
{
	u32 mdic;
	int err;

	lockdep_assert_held(&hw->phy_lock);
	mdic = FIELD_PREP(IGCB_MDIC_REG, reg) |
	       FIELD_PREP(IGCB_MDIC_PHY, IGCB_PHY_ADDR) |
	       (write ? IGCB_MDIC_OP_WRITE | *data : IGCB_MDIC_OP_READ);
	igcb_wr32(hw, IGCB_MDIC, mdic);

	/* The PHY can take tens of milliseconds after a reset. */
	err = readx_poll_timeout(readl, hw->io + IGCB_MDIC, mdic,
				 mdic & IGCB_MDIC_READY, 50, 100000);
	if (err) {
		dev_dbg(hw->dev, "MDIC %s of PHY register %#x timed out\n",
			write ? "write" : "read", reg);
		return -ETIMEDOUT;
	}
	if (mdic & IGCB_MDIC_ERROR)
		return -EIO;
	if (!write)
		*data = FIELD_GET(IGCB_MDIC_DATA, mdic);
	return 0;
}

static int igcb_phy_rd(struct igcb_hw *hw, u32 reg, u16 *val)
{
	return igcb_mdic(hw, false, reg, val);
}

static int igcb_phy_wr(struct igcb_hw *hw, u32 reg, u16 val)
{
	return igcb_mdic(hw, true, reg, &val);
}

/* Clause-45 register @reg of MMD @devad through registers 13 and 14. */
static int igcb_phy_mmd(struct igcb_hw *hw, u16 devad, u16 reg, u16 *val,
			bool write)
{
	int err;

	err = igcb_phy_wr(hw, IGCB_PHY_MMDAC, devad);
	if (!err)
		err = igcb_phy_wr(hw, IGCB_PHY_MMDAAD, reg);
	if (!err)
		err = igcb_phy_wr(hw, IGCB_PHY_MMDAC,
				  IGCB_PHY_MMDAC_DATA | devad);
	if (!err)
		err = igcb_mdic(hw, write, IGCB_PHY_MMDAAD, val);
	/* Leave register 13 at 0 so that register 14 is plain again. */
	if (!err)
		err = igcb_phy_wr(hw, IGCB_PHY_MMDAC, 0);
	return err;
}

/**
 * igcb_phy_reset - reset the PHY through CTRL.PHY_RST
 * @hw: the hardware
 *
 * Also clears a page-select register firmware may have left set.  Skipped
 * when manageability blocks PHY resets.
 *
 * Return: 0 or a negative errno.
 */
int igcb_phy_reset(struct igcb_hw *hw)
{
	u32 ctrl, phpm;
	int err;

	if (igcb_rd32(hw, IGCB_MANC) & IGCB_MANC_BLK_PHY_RST_ON_IDE)
		return 0;
	err = igcb_phy_lock(hw);
	if (err)
		return err;

	ctrl = igcb_rd32(hw, IGCB_CTRL);
	igcb_wr32(hw, IGCB_CTRL, ctrl | IGCB_CTRL_PHY_RST);
	igcb_wrflush(hw);
	usleep_range(100, 150);
	igcb_wr32(hw, IGCB_CTRL, ctrl);
	igcb_wrflush(hw);

	/* At least 100 us, then PHPM says when the PHY is back. */
	usleep_range(100, 150);
	err = readx_poll_timeout(readl, hw->io + IGCB_PHPM, phpm,
				 phpm & IGCB_PHPM_RST_COMPL, 10, 10000);
	if (err)
		dev_warn(hw->dev, "PHY reset did not complete\n");
	usleep_range(100, 150);

	igcb_phy_unlock(hw);
	return 0;
}

int igcb_phy_identify(struct igcb_hw *hw)
{
	u16 id1, id2;
	int err;

	err = igcb_phy_lock(hw);
	if (err)
		return err;
	err = igcb_phy_rd(hw, IGCB_PHY_ID1, &id1);
	if (!err)
		err = igcb_phy_rd(hw, IGCB_PHY_ID2, &id2);
	igcb_phy_unlock(hw);
	if (!err)
		hw->phy_id = (u32)id1 << 16 | id2;
	return err;
}

int igcb_phy_power_up(struct igcb_hw *hw)
{
	u16 bmcr;
	int err;

	err = igcb_phy_lock(hw);
	if (err)
		return err;
	hw->phy_off = false;
	err = igcb_phy_rd(hw, MII_BMCR, &bmcr);
	if (!err && (bmcr & BMCR_PDOWN))
		err = igcb_phy_wr(hw, MII_BMCR, bmcr & ~BMCR_PDOWN);
	igcb_phy_unlock(hw);
	return err;
}

/**
 * igcb_phy_power_down - power the PHY down while the port is closed
 * @hw: the hardware
 *
 * The far end then sees the link drop, as it would from a port whose
 * cable is pulled: a switch port goes down, a peer that fails over on
 * carrier loss does.  Left on when manageability firmware owns the PHY
 * or receives traffic through the port (MANC), which would lose its link.
 * igcb_phy_power_up() at open brings it back; the advertisement set
 * meanwhile (ethtool -s) is kept for then.
 */
void igcb_phy_power_down(struct igcb_hw *hw)
{
	bool wait = false;
	u16 bmcr;

	if (igcb_rd32(hw, IGCB_MANC) &
	    (IGCB_MANC_BLK_PHY_RST_ON_IDE | IGCB_MANC_RCV_TCO_EN))
		return;
	if (igcb_phy_lock(hw))
		return;
	if (igcb_phy_rd(hw, MII_BMCR, &bmcr))
		goto out;
	if (!(bmcr & BMCR_PDOWN)) {
		if (igcb_phy_wr(hw, MII_BMCR, bmcr | BMCR_PDOWN))
			goto out;
		wait = true;
	}
	hw->phy_off = true;
out:
	igcb_phy_unlock(hw);
	/* The PHY takes up to 2 ms to power down (upstream's wait). */
	if (wait)
		usleep_range(1000, 2000);
}

/* PAUSE bits of the advertisement for the flow control we ask for. */
static u16 igcb_fc_adv(enum igcb_fc_mode mode)
{
	switch (mode) {
	case IGCB_FC_FULL:
	case IGCB_FC_RX:
		/* No way to advertise receive-only: ask for both, resolve later. */
		return ADVERTISE_PAUSE_CAP | ADVERTISE_PAUSE_ASYM;
	case IGCB_FC_TX:
		return ADVERTISE_PAUSE_ASYM;
	case IGCB_FC_NONE:
	default:
		return 0;
	}
}

/**
 * igcb_phy_setup_link - advertise and (re)start auto-negotiation
 * @hw: the hardware
 * @renegotiate: restart auto-negotiation even if nothing changed
 *
 * The I225/I226 links only through auto-negotiation; hw->advertised picks
 * the speeds (10/100 half and full, 1000 and 2500 full) and
 * hw->fc_requested the PAUSE bits.  After a MAC reset (MTU, rings, XDP)
 * an unchanged advertisement is left alone, so the link does not drop for
 * a configuration change; ethtool's link and pause settings renegotiate.
 * The link comes up later: an LSC interrupt sends the watchdog to look.
 *
 * Return: 0 or a negative errno.
 */
int igcb_phy_setup_link(struct igcb_hw *hw, bool renegotiate)
{
	u16 adv = hw->advertised & IGCB_ADV_ALL;
	u16 anar, c1000, mgbt, bmcr;
	u16 new_anar, new_c1000, new_mgbt, pdown;
	u32 ctrl;
	int err;

	if (!adv)
		adv = IGCB_ADV_ALL;

	/* The MAC follows the PHY's resolved speed and duplex. */
	ctrl = igcb_rd32(hw, IGCB_CTRL);
	ctrl |= IGCB_CTRL_SLU;
	ctrl &= ~(IGCB_CTRL_FRCSPD | IGCB_CTRL_FRCDPX);
	igcb_wr32(hw, IGCB_CTRL, ctrl);
	hw->link_check = true;

	if (igcb_rd32(hw, IGCB_MANC) & IGCB_MANC_BLK_PHY_RST_ON_IDE)
		return 0;	/* manageability owns the link */

	err = igcb_phy_lock(hw);
	if (err)
		return err;

	err = igcb_phy_rd(hw, MII_ADVERTISE, &anar);
	if (!err)
		err = igcb_phy_rd(hw, MII_CTRL1000, &c1000);
	if (!err)
		err = igcb_phy_mmd(hw, IGCB_MMD_AN, IGCB_MMD_AN_MGBT_CTRL,
				   &mgbt, false);
	if (!err)
		err = igcb_phy_rd(hw, MII_BMCR, &bmcr);
	if (err)
		goto out;

	new_anar = anar & ~(ADVERTISE_10HALF | ADVERTISE_10FULL |
			    ADVERTISE_100HALF | ADVERTISE_100FULL |
			    ADVERTISE_PAUSE_CAP | ADVERTISE_PAUSE_ASYM);
	if (adv & IGCB_ADV_10_HALF)
		new_anar |= ADVERTISE_10HALF;
	if (adv & IGCB_ADV_10_FULL)
		new_anar |= ADVERTISE_10FULL;
	if (adv & IGCB_ADV_100_HALF)
		new_anar |= ADVERTISE_100HALF;
	if (adv & IGCB_ADV_100_FULL)
		new_anar |= ADVERTISE_100FULL;
	new_anar |= igcb_fc_adv(hw->fc_requested);

	new_c1000 = c1000 & ~(ADVERTISE_1000HALF | ADVERTISE_1000FULL);
	if (adv & IGCB_ADV_1000_FULL)
		new_c1000 |= ADVERTISE_1000FULL;

	new_mgbt = mgbt & ~IGCB_MGBT_2500_FD;
	if (adv & IGCB_ADV_2500_FULL)
		new_mgbt |= IGCB_MGBT_2500_FD;

	/* A closed port's PHY stays off: it negotiates when powered up. */
	pdown = hw->phy_off ? BMCR_PDOWN : 0;
	if (!renegotiate && new_anar == anar && new_c1000 == c1000 &&
	    new_mgbt == mgbt && (bmcr & BMCR_ANENABLE) &&
	    (bmcr & BMCR_PDOWN) == pdown)
		goto out;	/* already negotiating what we want */

	err = igcb_phy_wr(hw, MII_ADVERTISE, new_anar);
	if (!err)
		err = igcb_phy_wr(hw, MII_CTRL1000, new_c1000);
	if (!err)
		err = igcb_phy_mmd(hw, IGCB_MMD_AN, IGCB_MMD_AN_MGBT_CTRL,
				   &new_mgbt, true);
	if (!err)
		err = igcb_phy_wr(hw, MII_BMCR, (bmcr & ~BMCR_PDOWN) | pdown |
				  BMCR_ANENABLE | BMCR_ANRESTART);
out:
	igcb_phy_unlock(hw);
	if (err)
		dev_err(hw->dev, "PHY link setup failed: %d\n", err);
	return err;
}

/* IEEE 802.3 Annex 28B pause resolution from both advertisements. */
static enum igcb_fc_mode igcb_fc_resolve(enum igcb_fc_mode requested,
					 u16 anar, u16 lpa)
{
	bool pause = anar & ADVERTISE_PAUSE_CAP;
	bool asym = anar & ADVERTISE_PAUSE_ASYM;
	bool lp_pause = lpa & LPA_PAUSE_CAP;
	bool lp_asym = lpa & LPA_PAUSE_ASYM;

	if (pause && lp_pause)
		return requested == IGCB_FC_FULL ? IGCB_FC_FULL : IGCB_FC_RX;
	if (!pause && asym && lp_pause && lp_asym)
		return IGCB_FC_TX;
	if (pause && asym && !lp_pause && lp_asym)
		return IGCB_FC_RX;
	return IGCB_FC_NONE;
}

void igcb_phy_speed_duplex(struct igcb_hw *hw, u16 *speed, u16 *duplex)
{
	u32 status = igcb_rd32(hw, IGCB_STATUS);

	/* 2.5G reports the 1000 bit as well, plus its own. */
	if (status & IGCB_STATUS_SPEED_1000)
		*speed = status & IGCB_STATUS_SPEED_2500 ? SPEED_2500 :
							   SPEED_1000;
	else if (status & IGCB_STATUS_SPEED_100)
		*speed = SPEED_100;
	else
		*speed = SPEED_10;
	*duplex = status & IGCB_STATUS_FD ? DUPLEX_FULL : DUPLEX_HALF;
}

/**
 * igcb_phy_partner_rx_ready - is the partner's 1000BASE-T receiver ready?
 * @hw: the hardware
 * @ready: set from the 1000BASE-T status "remote receiver OK"
 *
 * Return: 0 or a negative errno (the PHY did not answer).
 */
int igcb_phy_partner_rx_ready(struct igcb_hw *hw, bool *ready)
{
	u16 stat;
	int err;

	err = igcb_phy_lock(hw);
	if (err)
		return err;
	err = igcb_phy_rd(hw, MII_STAT1000, &stat);
	igcb_phy_unlock(hw);
	if (!err)
		*ready = stat & LPA_1000REMRXOK;
	return err;
}

/**
 * igcb_phy_check_link - read the link state and, when up, settle PAUSE
 * @hw: the hardware
 * @up: set to whether the PHY reports link
 *
 * Return: 0 or a negative errno (the PHY did not answer).
 */
int igcb_phy_check_link(struct igcb_hw *hw, bool *up)
{
	u16 bmsr, anar = 0, lpa = 0;
	u16 speed, duplex;
	int err;

	err = igcb_phy_lock(hw);
	if (err)
		return err;
	/* Link status latches low: the second read is the current state. */
	err = igcb_phy_rd(hw, MII_BMSR, &bmsr);
	if (!err)
		err = igcb_phy_rd(hw, MII_BMSR, &bmsr);
	if (!err && (bmsr & BMSR_LSTATUS) && (bmsr & BMSR_ANEGCOMPLETE)) {
		err = igcb_phy_rd(hw, MII_ADVERTISE, &anar);
		if (!err)
			err = igcb_phy_rd(hw, MII_LPA, &lpa);
	}
	igcb_phy_unlock(hw);
	if (err)
		return err;

	*up = bmsr & BMSR_LSTATUS;
	if (!*up)
		return 0;

	if (hw->fc_autoneg)
		hw->fc_current = igcb_fc_resolve(hw->fc_requested, anar, lpa);
	else
		hw->fc_current = hw->fc_requested;
	igcb_phy_speed_duplex(hw, &speed, &duplex);
	if (duplex == DUPLEX_HALF)
		hw->fc_current = IGCB_FC_NONE;	/* PAUSE is full duplex only */
	igcb_hw_apply_fc(hw);
	return 0;
}

/* The gPHY firmware version, for ethtool -i. */
u16 igcb_phy_fw_version(struct igcb_hw *hw)
{
	u16 v = 0;

	if (igcb_phy_lock(hw))
		return 0;
	if (igcb_phy_rd(hw, IGCB_PHY_FW_VERSION, &v))
		v = 0;
	igcb_phy_unlock(hw);
	return v;
}
