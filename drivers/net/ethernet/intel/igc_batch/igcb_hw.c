// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch: MAC reset, software/firmware semaphores, NVM, MAC address,
 * receive address and multicast tables, flow control registers, statistics.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/iopoll.h>

#include "igcb.h"

/* Wait for bus mastering to drain before a reset (it may hang the bus). */
static void igcb_hw_stop_master(struct igcb_hw *hw)
{
	u32 status;
	int err;

	igcb_wr32(hw, IGCB_CTRL,
		  igcb_rd32(hw, IGCB_CTRL) | IGCB_CTRL_GIO_MASTER_DISABLE);
	err = readx_poll_timeout(readl, hw->io + IGCB_STATUS, status,
				 !(status & IGCB_STATUS_GIO_MASTER_ENABLE) ||
				 status == ~0U, 100, 800 * 100);
	if (err)
		dev_warn(hw->dev, "bus master requests still pending before reset\n");
}

/**
 * igcb_hw_reset - put the MAC into its power-on state
 * @hw: the hardware
 *
 * A port reset (CTRL.RST): the NVM is reloaded, so RAL0/RAH0 hold the
 * factory MAC address again, and every queue, filter and interrupt is
 * cleared.  The PHY is not reset.
 *
 * Return: 0, or -EIO when the device is gone.
 */
int igcb_hw_reset(struct igcb_hw *hw)
{
	u32 eecd;
	int err;

	if (READ_ONCE(hw->removed))
		return -EIO;
	igcb_hw_stop_master(hw);

	igcb_wr32(hw, IGCB_IMC, ~0U);
	igcb_wr32(hw, IGCB_RCTL, 0);
	igcb_wr32(hw, IGCB_TCTL, IGCB_TCTL_PSP);
	igcb_wrflush(hw);
	usleep_range(10000, 20000);

	igcb_wr32(hw, IGCB_CTRL, igcb_rd32(hw, IGCB_CTRL) | IGCB_CTRL_RST);

	/* The NVM auto-read ends the reset; a blank NVM never says so. */
	err = readx_poll_timeout(readl, hw->io + IGCB_EECD, eecd,
				 eecd & IGCB_EECD_AUTO_RD, 1000, 10000);
	if (err)
		dev_dbg(hw->dev, "NVM auto-read did not complete after reset\n");

	igcb_wr32(hw, IGCB_IMC, ~0U);
	igcb_rd32(hw, IGCB_ICR);
	return READ_ONCE(hw->removed) ? -EIO : 0;
}

/* The SWSM semaphore guards SW_FW_SYNC.  SMBI is taken by reading it as 0
 * (the read sets it); SWESMBI is ours when it reads back set.
 */
static int igcb_swsm_get(struct igcb_hw *hw)
{
	unsigned int tries = hw->nvm_words + 1;
	bool forced = false;
	unsigned int i;

again:
	for (i = 0; i < tries; i++) {
		if (!(igcb_rd32(hw, IGCB_SWSM) & IGCB_SWSM_SMBI))
			break;
		/* All ones reads as "taken": do not wait out a dead device. */
		if (igcb_hw_gone(hw))
			return -ENODEV;
		usleep_range(500, 600);
	}
	if (i == tries) {
		/* A previous owner may have died holding it: clear once. */
		if (forced)
			return -EBUSY;
		forced = true;
		igcb_wr32(hw, IGCB_SWSM, igcb_rd32(hw, IGCB_SWSM) &
			  ~(IGCB_SWSM_SMBI | IGCB_SWSM_SWESMBI));
		goto again;
	}

	for (i = 0; i < tries; i++) {
		igcb_wr32(hw, IGCB_SWSM,
			  igcb_rd32(hw, IGCB_SWSM) | IGCB_SWSM_SWESMBI);
		if (igcb_rd32(hw, IGCB_SWSM) & IGCB_SWSM_SWESMBI)
			return 0;
		usleep_range(500, 600);
	}
	igcb_wr32(hw, IGCB_SWSM, igcb_rd32(hw, IGCB_SWSM) &
		  ~(IGCB_SWSM_SMBI | IGCB_SWSM_SWESMBI));
	return -EBUSY;
}

static void igcb_swsm_put(struct igcb_hw *hw)
{
	igcb_wr32(hw, IGCB_SWSM, igcb_rd32(hw, IGCB_SWSM) &
		  ~(IGCB_SWSM_SMBI | IGCB_SWSM_SWESMBI));
}

/**
 * igcb_swfw_acquire - take a resource shared with the firmware
 * @hw: the hardware
 * @mask: IGCB_SWFW_EEP or IGCB_SWFW_PHY0
 *
 * Return: 0, -ENODEV when the device is gone, or -EBUSY if the firmware
 * kept it for about a second.
 */
int igcb_swfw_acquire(struct igcb_hw *hw, u16 mask)
{
	unsigned int i;
	u32 sync;
	int err;

	for (i = 0; i < 200; i++) {
		err = igcb_swsm_get(hw);
		if (err == -ENODEV)
			return err;	/* the watchdog says it, once */
		if (err)
			break;
		sync = igcb_rd32(hw, IGCB_SW_FW_SYNC);
		if (!(sync & (mask | (u32)mask << 16))) {
			igcb_wr32(hw, IGCB_SW_FW_SYNC, sync | mask);
			igcb_swsm_put(hw);
			return 0;
		}
		igcb_swsm_put(hw);
		usleep_range(5000, 6000);
	}
	dev_err(hw->dev, "cannot take the SW/FW semaphore %#x\n", mask);
	return -EBUSY;
}

void igcb_swfw_release(struct igcb_hw *hw, u16 mask)
{
	int err = igcb_swsm_get(hw);

	if (err == -ENODEV)
		return;
	if (err) {
		dev_err(hw->dev, "cannot release the SW/FW semaphore %#x\n",
			mask);
		return;
	}
	igcb_wr32(hw, IGCB_SW_FW_SYNC, igcb_rd32(hw, IGCB_SW_FW_SYNC) & ~mask);
	igcb_swsm_put(hw);
}

static int igcb_eerd_word(struct igcb_hw *hw, u16 offset, u16 *word)
{
	u32 eerd;
	int err;

	igcb_wr32(hw, IGCB_EERD,
		  (u32)offset << IGCB_EERD_ADDR_SHIFT | IGCB_EERD_START);
	err = readx_poll_timeout_atomic(readl, hw->io + IGCB_EERD, eerd,
					eerd & IGCB_EERD_DONE, 5, 500000);
	if (err)
		return err;
	*word = eerd >> IGCB_EERD_DATA_SHIFT;
	return 0;
}

/**
 * igcb_nvm_read - read words of the NVM (shadow RAM)
 * @hw: the hardware
 * @offset: first word
 * @words: how many
 * @data: where to put them
 *
 * Return: 0, -EINVAL out of range, -EBUSY or -ETIMEDOUT.
 */
int igcb_nvm_read(struct igcb_hw *hw, u16 offset, u16 words, u16 *data)
{
	unsigned int i;
	int err;

	if (!words || offset >= hw->nvm_words || words > hw->nvm_words - offset)
		return -EINVAL;
	err = igcb_swfw_acquire(hw, IGCB_SWFW_EEP);
	if (err)
		return err;
	for (i = 0; i < words && !err; i++)
		err = igcb_eerd_word(hw, offset + i, &data[i]);
	igcb_swfw_release(hw, IGCB_SWFW_EEP);
	return err;
}

/**
 * igcb_hw_init_nvm - size the NVM and check it when a flash holds it
 * @hw: the hardware, just reset
 *
 * Without a flash the shadow RAM is not checksummed (blank-NVM parts).
 *
 * Return: 0, or -EIO when the checksum is wrong.
 */
int igcb_hw_init_nvm(struct igcb_hw *hw)
{
	u32 eecd = igcb_rd32(hw, IGCB_EECD);
	unsigned int shift;
	u16 sum = 0, word;
	unsigned int i;

	shift = FIELD_GET(IGCB_EECD_SIZE_EX, eecd) + 6;
	hw->nvm_words = 1U << min(shift, 15U);
	hw->nvm_flash = eecd & IGCB_EECD_FLASH_DETECTED;
	if (!hw->nvm_flash)
		return 0;

	for (i = 0; i <= IGCB_NVM_CHECKSUM_WORD; i++) {
		if (igcb_nvm_read(hw, i, 1, &word))
			return -EIO;
		sum += word;
	}
	if (sum != IGCB_NVM_SUM) {
		dev_err(hw->dev, "NVM checksum is %#06x, not %#06x\n", sum,
			IGCB_NVM_SUM);
		return -EIO;
	}
	return 0;
}

/* After a reset the NVM's MAC address sits in receive address 0. */
void igcb_hw_read_perm_addr(struct igcb_hw *hw)
{
	u32 lo = igcb_rd32(hw, IGCB_RAL(0));
	u32 hi = igcb_rd32(hw, IGCB_RAH(0));

	hw->perm_addr[0] = lo;
	hw->perm_addr[1] = lo >> 8;
	hw->perm_addr[2] = lo >> 16;
	hw->perm_addr[3] = lo >> 24;
	hw->perm_addr[4] = hi;
	hw->perm_addr[5] = hi >> 8;
}

/**
 * igcb_hw_set_rar - program a receive address filter
 * @hw: the hardware
 * @idx: entry, 0 being the port's own address
 * @addr: the address, or NULL to clear the entry
 */
void igcb_hw_set_rar(struct igcb_hw *hw, unsigned int idx, const u8 *addr)
{
	u32 lo = 0, hi = 0;

	if (addr) {
		lo = addr[0] | addr[1] << 8 | addr[2] << 16 | (u32)addr[3] << 24;
		hi = addr[4] | addr[5] << 8 | IGCB_RAH_AV;
	}
	/* Clear AV first so the filter never matches half an address, and
	 * flush between the writes: some bridges merge them otherwise.
	 */
	igcb_wr32(hw, IGCB_RAH(idx), 0);
	igcb_wrflush(hw);
	igcb_wr32(hw, IGCB_RAL(idx), lo);
	igcb_wrflush(hw);
	igcb_wr32(hw, IGCB_RAH(idx), hi);
	igcb_wrflush(hw);
}

/* The multicast table is 4096 bits indexed by the top 12 bits of the
 * address as the hardware sees them (filter type 0): bits 4..15 of the
 * last two octets.
 */
unsigned int igcb_hw_mta_bit(const u8 *addr)
{
	return ((addr[4] >> 4) | (addr[5] << 4)) & 0xFFF;
}

void igcb_hw_take_control(struct igcb_hw *hw)
{
	igcb_wr32(hw, IGCB_CTRL_EXT,
		  igcb_rd32(hw, IGCB_CTRL_EXT) | IGCB_CTRL_EXT_DRV_LOAD);
}

void igcb_hw_release_control(struct igcb_hw *hw)
{
	igcb_wr32(hw, IGCB_CTRL_EXT,
		  igcb_rd32(hw, IGCB_CTRL_EXT) & ~IGCB_CTRL_EXT_DRV_LOAD);
}

/**
 * igcb_hw_init_mac - filters and flow control after a reset
 * @hw: the hardware
 * @addr: the port's address, for receive address 0
 * @max_frame: the largest frame, for the PAUSE water marks
 */
void igcb_hw_init_mac(struct igcb_hw *hw, const u8 *addr, u32 max_frame)
{
	u32 high;
	unsigned int i;

	igcb_hw_set_rar(hw, 0, addr);
	for (i = 1; i < IGCB_RAR_ENTRIES; i++)
		igcb_hw_set_rar(hw, i, NULL);
	for (i = 0; i < IGCB_MTA_REGS; i++)
		igcb_wr32(hw, IGCB_MTA(i), 0);

	/* Send XOFF while the receive buffer can still take the frame in
	 * flight from the peer and one of ours: buffer - both, 16-byte units.
	 */
	high = IGCB_PBA_KB * 1024 - (max_frame + IGCB_MAX_JUMBO_FRAME);
	hw->fc_high_water = high & ~0xFU;
	hw->fc_low_water = hw->fc_high_water - 16;

	igcb_wr32(hw, IGCB_FCT, IGCB_FC_TYPE);
	igcb_wr32(hw, IGCB_FCAH, IGCB_FC_ADDR_HIGH);
	igcb_wr32(hw, IGCB_FCAL, IGCB_FC_ADDR_LOW);
	igcb_wr32(hw, IGCB_FCTTV, 0xFFFF);
	igcb_wr32(hw, IGCB_VET, ETH_P_8021Q);
	igcb_hw_apply_fc(hw);
}

/* Program CTRL.TFCE/RFCE and the XOFF water marks for hw->fc_current. */
void igcb_hw_apply_fc(struct igcb_hw *hw)
{
	bool tx = hw->fc_current == IGCB_FC_TX || hw->fc_current == IGCB_FC_FULL;
	bool rx = hw->fc_current == IGCB_FC_RX || hw->fc_current == IGCB_FC_FULL;
	u32 ctrl = igcb_rd32(hw, IGCB_CTRL);

	ctrl &= ~(IGCB_CTRL_TFCE | IGCB_CTRL_RFCE);
	if (tx)
		ctrl |= IGCB_CTRL_TFCE;
	if (rx)
		ctrl |= IGCB_CTRL_RFCE;
	igcb_wr32(hw, IGCB_CTRL, ctrl);

	/* Water marks only matter when we send PAUSE frames. */
	igcb_wr32(hw, IGCB_FCRTL, tx ? hw->fc_low_water | IGCB_FCRTL_XONE : 0);
	igcb_wr32(hw, IGCB_FCRTH, tx ? hw->fc_high_water : 0);
}

static void igcb_hw_write_ltr(struct igcb_hw *hw, u32 reg, u32 ns)
{
	/* the value field holds 10 bits of 1,024 ns or of 32,768 ns units */
	bool coarse = ns / 1024 >= 1024;
	u32 scale = coarse ? IGCB_LTRV_SCALE_32768 : IGCB_LTRV_SCALE_1024;
	u32 val = ns / (coarse ? 32768 : 1024) - 1;

	/* As upstream: only a new value is written (and requested again). */
	if ((igcb_rd32(hw, reg) & IGCB_LTRV_VALUE) != val)
		igcb_wr32(hw, reg, IGCB_LTRV_SNOOP_REQ | val |
			  FIELD_PREP(IGCB_LTRV_SCALE, scale));
}

/**
 * igcb_hw_set_ltr - PCIe Latency Tolerance Reporting for a link speed
 * @hw: the hardware
 * @speed: the link's speed in Mb/s (0: no link, nothing to do)
 *
 * The device tolerates the time its receive buffer takes to fill at line
 * rate; EEE and DMA coalescing are off, so there is no wake time to add
 * and the minimum and maximum are the same.  Without this the device
 * reports its default and a platform may let the CPU package sleep longer
 * than the buffer lasts.  Upstream igc_set_ltr_i225() at every link up.
 */
void igcb_hw_set_ltr(struct igcb_hw *hw, u32 speed)
{
	u32 kb = igcb_rd32(hw, IGCB_RXPBS) & IGCB_RXPBS_SIZE;
	u32 ns;

	if (!speed || !kb)
		return;
	ns = 1000 * (kb * 1024 * 8) / speed;
	if (ns < 1024)
		return;
	igcb_hw_write_ltr(hw, IGCB_LTRMINV, ns);
	igcb_hw_write_ltr(hw, IGCB_LTRMAXV, ns);
}

/* EEE adds wake-up latency a router does not want; upstream keeps it off. */
void igcb_hw_disable_eee(struct igcb_hw *hw)
{
	igcb_wr32(hw, IGCB_IPCNFG, igcb_rd32(hw, IGCB_IPCNFG) &
		  ~(IGCB_IPCNFG_EEE_100M_AN | IGCB_IPCNFG_EEE_1G_AN |
		    IGCB_IPCNFG_EEE_2_5G_AN));
	igcb_wr32(hw, IGCB_EEER, igcb_rd32(hw, IGCB_EEER) &
		  ~(IGCB_EEER_TX_LPI_EN | IGCB_EEER_RX_LPI_EN |
		    IGCB_EEER_LPI_FC));
}

#define IGCB_STAT32(n, r)	{ .name = n, .lo = r }
#define IGCB_STAT64(n, l, h)	{ .name = n, .lo = l, .hi = h }

/* The MAC's counters under the names e1000-family drivers use. */
const struct igcb_mac_stat igcb_mac_stats[] = {
	IGCB_STAT32("rx_packets", IGCB_GPRC),
	IGCB_STAT32("tx_packets", IGCB_GPTC),
	IGCB_STAT64("rx_bytes", IGCB_GORCL, IGCB_GORCH),
	IGCB_STAT64("tx_bytes", IGCB_GOTCL, IGCB_GOTCH),
	IGCB_STAT32("rx_broadcast", IGCB_BPRC),
	IGCB_STAT32("tx_broadcast", IGCB_BPTC),
	IGCB_STAT32("rx_multicast", IGCB_MPRC),
	IGCB_STAT32("tx_multicast", IGCB_MPTC),
	IGCB_STAT32("collisions", IGCB_COLC),
	IGCB_STAT32("rx_crc_errors", IGCB_CRCERRS),
	IGCB_STAT32("rx_no_buffer_count", IGCB_RNBC),
	IGCB_STAT32("rx_missed_errors", IGCB_MPC),
	IGCB_STAT32("tx_aborted_errors", IGCB_ECOL),
	IGCB_STAT32("tx_carrier_errors", IGCB_TNCRS),
	IGCB_STAT32("tx_abort_late_coll", IGCB_LATECOL),
	IGCB_STAT32("tx_deferred_ok", IGCB_DC),
	IGCB_STAT32("tx_single_coll_ok", IGCB_SCC),
	IGCB_STAT32("tx_multi_coll_ok", IGCB_MCC),
	IGCB_STAT32("rx_long_length_errors", IGCB_ROC),
	IGCB_STAT32("rx_short_length_errors", IGCB_RUC),
	IGCB_STAT32("rx_fragment_errors", IGCB_RFC),
	IGCB_STAT32("rx_jabber_errors", IGCB_RJC),
	IGCB_STAT32("rx_length_errors", IGCB_RLEC),
	IGCB_STAT32("rx_align_errors", IGCB_ALGNERRC),
	IGCB_STAT32("rx_errors", IGCB_RXERRC),
	IGCB_STAT32("tx_tcp_seg_good", IGCB_TSCTC),
	IGCB_STAT32("rx_flow_control_xon", IGCB_XONRXC),
	IGCB_STAT32("rx_flow_control_xoff", IGCB_XOFFRXC),
	IGCB_STAT32("tx_flow_control_xon", IGCB_XONTXC),
	IGCB_STAT32("tx_flow_control_xoff", IGCB_XOFFTXC),
	IGCB_STAT32("rx_flow_control_unsupported", IGCB_FCRUC),
	IGCB_STAT32("rx_total_packets", IGCB_TPR),
	IGCB_STAT32("tx_total_packets", IGCB_TPT),
	IGCB_STAT64("rx_total_bytes", IGCB_TORL, IGCB_TORH),
	IGCB_STAT64("tx_total_bytes", IGCB_TOTL, IGCB_TOTH),
	IGCB_STAT32("rx_size_64", IGCB_PRC64),
	IGCB_STAT32("rx_size_65_to_127", IGCB_PRC127),
	IGCB_STAT32("rx_size_128_to_255", IGCB_PRC255),
	IGCB_STAT32("rx_size_256_to_511", IGCB_PRC511),
	IGCB_STAT32("rx_size_512_to_1023", IGCB_PRC1023),
	IGCB_STAT32("rx_size_1024_to_max", IGCB_PRC1522),
	IGCB_STAT32("tx_size_64", IGCB_PTC64),
	IGCB_STAT32("tx_size_65_to_127", IGCB_PTC127),
	IGCB_STAT32("tx_size_128_to_255", IGCB_PTC255),
	IGCB_STAT32("tx_size_256_to_511", IGCB_PTC511),
	IGCB_STAT32("tx_size_512_to_1023", IGCB_PTC1023),
	IGCB_STAT32("tx_size_1024_to_max", IGCB_PTC1522),
	IGCB_STAT32("tx_dropped_by_mac", IGCB_HTDPMC),
	IGCB_STAT32("tx_smbus", IGCB_MGTPTC),
	IGCB_STAT32("rx_smbus", IGCB_MGTPRC),
	IGCB_STAT32("dropped_smbus", IGCB_MGTPDC),
	IGCB_STAT32("interrupt_assertions", IGCB_IAC),
	IGCB_STAT32("tx_lpi_counter", IGCB_TLPIC),
	IGCB_STAT32("rx_lpi_counter", IGCB_RLPIC),
};

const unsigned int igcb_mac_stats_n = ARRAY_SIZE(igcb_mac_stats);

/* Read every counter once to zero it (they clear on read). */
void igcb_hw_clear_stats(struct igcb_hw *hw)
{
	unsigned int i;

	for (i = 0; i < igcb_mac_stats_n; i++) {
		igcb_rd32(hw, igcb_mac_stats[i].lo);
		if (igcb_mac_stats[i].hi)
			igcb_rd32(hw, igcb_mac_stats[i].hi);
	}
}

/**
 * igcb_hw_read_stats - add the counters' values since the last read
 * @hw: the hardware
 * @acc: igcb_mac_stats_n 64-bit accumulators
 *
 * The counters clear on read, so the caller serialises calls.
 */
void igcb_hw_read_stats(struct igcb_hw *hw, u64 *acc)
{
	unsigned int i;

	if (READ_ONCE(hw->removed))
		return;
	for (i = 0; i < igcb_mac_stats_n; i++) {
		const struct igcb_mac_stat *s = &igcb_mac_stats[i];
		u64 v = igcb_rd32(hw, s->lo);

		/* The low half first: the pair is latched by that read. */
		if (s->hi)
			v |= (u64)igcb_rd32(hw, s->hi) << 32;
		acc[i] += v;
	}
}
