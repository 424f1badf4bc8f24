/* SPDX-License-Identifier: GPL-2.0 */
/*
 * igc_batch: Intel I225/I226 registers, bits and descriptor layouts.
 *
 * Offsets are from BAR0.  Only what the driver uses is named here.
 */
#ifndef _IGCB_REGS_H
#define _IGCB_REGS_H

#include <linux/bits.h>
#include <linux/types.h>

/* Device control and status */
#define IGCB_CTRL		0x00000
#define IGCB_CTRL_GIO_MASTER_DISABLE	BIT(2)
#define IGCB_CTRL_SLU		BIT(6)
#define IGCB_CTRL_FRCSPD	BIT(11)
#define IGCB_CTRL_FRCDPX	BIT(12)
#define IGCB_CTRL_RST		BIT(26)
#define IGCB_CTRL_RFCE		BIT(27)
#define IGCB_CTRL_TFCE		BIT(28)
#define IGCB_CTRL_VME		BIT(30)
#define IGCB_CTRL_PHY_RST	BIT(31)

#define IGCB_STATUS		0x00008
#define IGCB_STATUS_FD		BIT(0)
#define IGCB_STATUS_LU		BIT(1)
#define IGCB_STATUS_TXOFF	BIT(4)
#define IGCB_STATUS_SPEED_100	BIT(6)
#define IGCB_STATUS_SPEED_1000	BIT(7)
#define IGCB_STATUS_GIO_MASTER_ENABLE	BIT(19)
#define IGCB_STATUS_SPEED_2500	BIT(22)

#define IGCB_EECD		0x00010
#define IGCB_EECD_AUTO_RD	BIT(9)
#define IGCB_EECD_SIZE_EX	GENMASK(14, 11)
#define IGCB_EECD_FLASH_DETECTED	BIT(19)

#define IGCB_CTRL_EXT		0x00018
#define IGCB_CTRL_EXT_DRV_LOAD	BIT(28)

#define IGCB_MDIC		0x00020
#define IGCB_MDIC_DATA		GENMASK(15, 0)
#define IGCB_MDIC_REG		GENMASK(20, 16)
#define IGCB_MDIC_PHY		GENMASK(25, 21)
#define IGCB_MDIC_OP_WRITE	BIT(26)
#define IGCB_MDIC_OP_READ	BIT(27)
#define IGCB_MDIC_READY		BIT(28)
#define IGCB_MDIC_ERROR		BIT(30)

/* Flow control */
#define IGCB_FCAL		0x00028
#define IGCB_FCAH		0x0002C
#define IGCB_FCT		0x00030
#define IGCB_FCTTV		0x00170
#define IGCB_FCRTL		0x02160
#define IGCB_FCRTL_XONE		BIT(31)
#define IGCB_FCRTH		0x02168
/* The 802.3x PAUSE destination 01:80:c2:00:00:01 and EtherType. */
#define IGCB_FC_ADDR_LOW	0x00C28001
#define IGCB_FC_ADDR_HIGH	0x00000100
#define IGCB_FC_TYPE		0x8808

#define IGCB_VET		0x00038

#define IGCB_PHPM		0x00E14
#define IGCB_PHPM_RST_COMPL	BIT(8)

/* Energy Efficient Ethernet: kept off, as upstream does at probe */
#define IGCB_EEER		0x00E30
#define IGCB_EEER_TX_LPI_EN	BIT(16)
#define IGCB_EEER_RX_LPI_EN	BIT(17)
#define IGCB_EEER_LPI_FC	BIT(18)
#define IGCB_IPCNFG		0x00E38
#define IGCB_IPCNFG_EEE_100M_AN	BIT(2)
#define IGCB_IPCNFG_EEE_1G_AN	BIT(3)
#define IGCB_IPCNFG_EEE_2_5G_AN	BIT(4)

/* Receive and transmit control */
#define IGCB_RCTL		0x00100
#define IGCB_RCTL_EN		BIT(1)
#define IGCB_RCTL_SBP		BIT(2)
#define IGCB_RCTL_UPE		BIT(3)
#define IGCB_RCTL_MPE		BIT(4)
#define IGCB_RCTL_LPE		BIT(5)
#define IGCB_RCTL_LBM		GENMASK(7, 6)
#define IGCB_RCTL_MO		GENMASK(13, 12)
#define IGCB_RCTL_BAM		BIT(15)
#define IGCB_RCTL_SZ		GENMASK(17, 16)
#define IGCB_RCTL_CFIEN		BIT(19)
#define IGCB_RCTL_DPF		BIT(22)
#define IGCB_RCTL_PMCF		BIT(23)
#define IGCB_RCTL_SECRC		BIT(26)

#define IGCB_TCTL		0x00400
#define IGCB_TCTL_EN		BIT(1)
#define IGCB_TCTL_PSP		BIT(3)
#define IGCB_TCTL_CT		GENMASK(11, 4)
#define IGCB_TCTL_COLD		GENMASK(21, 12)
#define IGCB_TCTL_RTLC		BIT(24)

/* Interrupts */
#define IGCB_ICR		0x01500
#define IGCB_ICS		0x01504
#define IGCB_IMS		0x01508
#define IGCB_IMC		0x0150C
#define IGCB_IAM		0x01510
#define IGCB_ICR_TXDW		BIT(0)
#define IGCB_ICR_LSC		BIT(2)
#define IGCB_ICR_RXSEQ		BIT(3)
#define IGCB_ICR_RXDMT0		BIT(4)
#define IGCB_ICR_RXT0		BIT(7)
#define IGCB_ICR_DOUTSYNC	BIT(28)
#define IGCB_ICR_DRSTA		BIT(30)
#define IGCB_ICR_INT_ASSERTED	BIT(31)

#define IGCB_GPIE		0x01514
#define IGCB_GPIE_NSICR		BIT(0)
#define IGCB_GPIE_MSIX_MODE	BIT(4)
#define IGCB_GPIE_EIAME		BIT(30)
#define IGCB_GPIE_PBA		BIT(31)

#define IGCB_EICS		0x01520
#define IGCB_EIMS		0x01524
#define IGCB_EIMC		0x01528
#define IGCB_EIAC		0x0152C
#define IGCB_EIAM		0x01530
#define IGCB_EICR		0x01580

/* EITR: the interval in microseconds sits in bits 14:2 */
#define IGCB_EITR(v)		(0x01680 + 4 * (v))
#define IGCB_EITR_INTERVAL	GENMASK(14, 2)
#define IGCB_EITR_CNT_IGNR	BIT(31)

/* IVAR: two queues per register, RX cause at +0, TX at +8, per half */
#define IGCB_IVAR(i)		(0x01700 + 4 * (i))
#define IGCB_IVAR_MISC		0x01740
#define IGCB_IVAR_VALID		0x80

/* Packet buffers */
#define IGCB_RXPBS		0x02404
#define IGCB_RXPBS_DEFAULT	0x000000A2
#define IGCB_RXPBS_SIZE		GENMASK(5, 0)	/* KB */
#define IGCB_TXPBS		0x03404
#define IGCB_TXPBS_DEFAULT	0x04000014
/* Receive packet buffer, in KB, that flow control water marks refer to */
#define IGCB_PBA_KB		34

/* Statistics: all clear on read */
#define IGCB_CRCERRS		0x04000
#define IGCB_ALGNERRC		0x04004
#define IGCB_RXERRC		0x0400C
#define IGCB_MPC		0x04010
#define IGCB_SCC		0x04014
#define IGCB_ECOL		0x04018
#define IGCB_MCC		0x0401C
#define IGCB_LATECOL		0x04020
#define IGCB_COLC		0x04028
#define IGCB_DC			0x04030
#define IGCB_TNCRS		0x04034
#define IGCB_RLEC		0x04040
#define IGCB_XONRXC		0x04048
#define IGCB_XONTXC		0x0404C
#define IGCB_XOFFRXC		0x04050
#define IGCB_XOFFTXC		0x04054
#define IGCB_FCRUC		0x04058
#define IGCB_PRC64		0x0405C
#define IGCB_PRC127		0x04060
#define IGCB_PRC255		0x04064
#define IGCB_PRC511		0x04068
#define IGCB_PRC1023		0x0406C
#define IGCB_PRC1522		0x04070
#define IGCB_GPRC		0x04074
#define IGCB_BPRC		0x04078
#define IGCB_MPRC		0x0407C
#define IGCB_GPTC		0x04080
#define IGCB_GORCL		0x04088
#define IGCB_GORCH		0x0408C
#define IGCB_GOTCL		0x04090
#define IGCB_GOTCH		0x04094
#define IGCB_RNBC		0x040A0
#define IGCB_RUC		0x040A4
#define IGCB_RFC		0x040A8
#define IGCB_ROC		0x040AC
#define IGCB_RJC		0x040B0
#define IGCB_MGTPRC		0x040B4
#define IGCB_MGTPDC		0x040B8
#define IGCB_MGTPTC		0x040BC
#define IGCB_TORL		0x040C0
#define IGCB_TORH		0x040C4
#define IGCB_TOTL		0x040C8
#define IGCB_TOTH		0x040CC
#define IGCB_TPR		0x040D0
#define IGCB_TPT		0x040D4
#define IGCB_PTC64		0x040D8
#define IGCB_PTC127		0x040DC
#define IGCB_PTC255		0x040E0
#define IGCB_PTC511		0x040E4
#define IGCB_PTC1023		0x040E8
#define IGCB_PTC1522		0x040EC
#define IGCB_MPTC		0x040F0
#define IGCB_BPTC		0x040F4
#define IGCB_TSCTC		0x040F8
#define IGCB_IAC		0x04100
#define IGCB_HTDPMC		0x0403C
#define IGCB_TLPIC		0x04148
#define IGCB_RLPIC		0x0414C

/* Receive filtering, checksum and RSS */
#define IGCB_RXCSUM		0x05000
#define IGCB_RXCSUM_CRCOFL	BIT(11)
#define IGCB_RXCSUM_PCSD	BIT(13)
#define IGCB_RLPML		0x05004
#define IGCB_RFCTL		0x05008
#define IGCB_RFCTL_IPV6_EX_DIS	BIT(16)
#define IGCB_RFCTL_LEF		BIT(18)
#define IGCB_MTA(i)		(0x05200 + 4 * (i))
#define IGCB_MTA_REGS		128
#define IGCB_RAL(i)		(0x05400 + 8 * (i))
#define IGCB_RAH(i)		(0x05404 + 8 * (i))
#define IGCB_RAH_AV		BIT(31)
#define IGCB_RAR_ENTRIES	16
#define IGCB_MRQC		0x05818
#define IGCB_MRQC_RSS_EN	0x00000002
#define IGCB_MRQC_IPV4_TCP	BIT(16)
#define IGCB_MRQC_IPV4		BIT(17)
#define IGCB_MRQC_IPV6_TCP_EX	BIT(18)
#define IGCB_MRQC_IPV6		BIT(20)
#define IGCB_MRQC_IPV6_TCP	BIT(21)
#define IGCB_MRQC_IPV4_UDP	BIT(22)
#define IGCB_MRQC_IPV6_UDP	BIT(23)
#define IGCB_MANC		0x05820
#define IGCB_MANC_RCV_TCO_EN	BIT(17)
#define IGCB_MANC_BLK_PHY_RST_ON_IDE	BIT(18)
/* PCIe Latency Tolerance Reporting: value, scale (2: 1024 ns, 3: 32768) */
#define IGCB_LTRMINV		0x05BB0
#define IGCB_LTRMAXV		0x05BB4
#define IGCB_LTRV_VALUE		GENMASK(9, 0)
#define IGCB_LTRV_SCALE		GENMASK(12, 10)
#define IGCB_LTRV_SCALE_1024	2
#define IGCB_LTRV_SCALE_32768	3
#define IGCB_LTRV_SNOOP_REQ	BIT(15)

#define IGCB_SWSM		0x05B50
#define IGCB_SWSM_SMBI		BIT(0)
#define IGCB_SWSM_SWESMBI	BIT(1)
#define IGCB_SW_FW_SYNC		0x05B5C
#define IGCB_SWFW_EEP		0x1
#define IGCB_SWFW_PHY0		0x2
#define IGCB_RETA(i)		(0x05C00 + 4 * (i))
#define IGCB_RSSRK(i)		(0x05C80 + 4 * (i))

/* NVM through the EEPROM read register */
#define IGCB_EERD		0x12014
#define IGCB_EERD_START		BIT(0)
#define IGCB_EERD_DONE		BIT(1)
#define IGCB_EERD_ADDR_SHIFT	2
#define IGCB_EERD_DATA_SHIFT	16
#define IGCB_NVM_DEV_STARTER	0x05
#define IGCB_NVM_CHECKSUM_WORD	0x3F
#define IGCB_NVM_SUM		0xBABA

/* Per-queue registers, stride 0x40 */
#define IGCB_RDBAL(n)		(0x0C000 + 0x40 * (n))
#define IGCB_RDBAH(n)		(0x0C004 + 0x40 * (n))
#define IGCB_RDLEN(n)		(0x0C008 + 0x40 * (n))
#define IGCB_SRRCTL(n)		(0x0C00C + 0x40 * (n))
#define IGCB_RDH(n)		(0x0C010 + 0x40 * (n))
#define IGCB_RDT(n)		(0x0C018 + 0x40 * (n))
#define IGCB_RXDCTL(n)		(0x0C028 + 0x40 * (n))
#define IGCB_RQDPC(n)		(0x0C030 + 0x40 * (n))
#define IGCB_TDBAL(n)		(0x0E000 + 0x40 * (n))
#define IGCB_TDBAH(n)		(0x0E004 + 0x40 * (n))
#define IGCB_TDLEN(n)		(0x0E008 + 0x40 * (n))
#define IGCB_TDH(n)		(0x0E010 + 0x40 * (n))
#define IGCB_TDT(n)		(0x0E018 + 0x40 * (n))
#define IGCB_TXDCTL(n)		(0x0E028 + 0x40 * (n))

#define IGCB_SRRCTL_BSIZEPKT	GENMASK(6, 0)	/* KB */
#define IGCB_SRRCTL_BSIZEHDR	GENMASK(13, 8)	/* 64-byte units */
#define IGCB_SRRCTL_DESCTYPE	GENMASK(27, 25)
#define IGCB_SRRCTL_DESC_ADV_ONEBUF	1
#define IGCB_XDCTL_PTHRESH	GENMASK(5, 0)
#define IGCB_XDCTL_HTHRESH	GENMASK(13, 8)
#define IGCB_XDCTL_WTHRESH	GENMASK(20, 16)
#define IGCB_XDCTL_ENABLE	BIT(25)
#define IGCB_XDCTL_SWFLUSH	BIT(26)

/* PHY registers (clause 22 through MDIC, PHY address 0) */
#define IGCB_PHY_ADDR		0
#define IGCB_PHY_ID1		0x02
#define IGCB_PHY_ID2		0x03
#define IGCB_PHY_1000T_STATUS	0x0A
#define IGCB_PHY_MMDAC		0x0D
#define IGCB_PHY_MMDAAD		0x0E
#define IGCB_PHY_MMDAC_DATA	0x4000
#define IGCB_PHY_FW_VERSION	0x1E
/* 2.5GBASE-T advertisement: MMD 7 (auto-negotiation), register 0x20 */
#define IGCB_MMD_AN		7
#define IGCB_MMD_AN_MGBT_CTRL	0x0020
#define IGCB_MGBT_2500_FD	0x0080

/* Advanced transmit descriptor */
union igcb_tx_desc {
	struct {
		__le64 addr;
		__le32 cmd_type_len;
		__le32 olinfo_status;
	} read;
	struct {
		__le64 rsvd;
		__le32 nxtseq_seed;
		__le32 status;
	} wb;
};

struct igcb_tx_ctx_desc {
	__le32 vlan_macip_lens;
	__le32 launch_time;
	__le32 type_tucmd_mlhl;
	__le32 mss_l4len_idx;
};

#define IGCB_TXD_DTYP_CTXT	0x00200000
#define IGCB_TXD_DTYP_DATA	0x00300000
#define IGCB_TXD_CMD_EOP	BIT(24)
#define IGCB_TXD_CMD_IFCS	BIT(25)
#define IGCB_TXD_CMD_RS		BIT(27)
#define IGCB_TXD_CMD_DEXT	BIT(29)
#define IGCB_TXD_CMD_VLE	BIT(30)
#define IGCB_TXD_CMD_TSE	BIT(31)
#define IGCB_TXD_POPTS_IXSM	BIT(8)
#define IGCB_TXD_POPTS_TXSM	BIT(9)
#define IGCB_TXD_PAYLEN_SHIFT	14
#define IGCB_TXD_STAT_DD	BIT(0)
#define IGCB_TXD_MAX_DATA	BIT(15)	/* bytes one data descriptor carries */

#define IGCB_CTX_MACLEN_SHIFT	9
#define IGCB_CTX_VLAN_SHIFT	16
#define IGCB_CTX_TUCMD_IPV4	BIT(10)
#define IGCB_CTX_TUCMD_L4T_TCP	BIT(11)
#define IGCB_CTX_L4LEN_SHIFT	8
#define IGCB_CTX_MSS_SHIFT	16
#define IGCB_MAX_MAC_HDR_LEN	127
#define IGCB_MAX_NET_HDR_LEN	511

/* Advanced receive descriptor, one buffer */
union igcb_rx_desc {
	struct {
		__le64 pkt_addr;
		__le64 hdr_addr;
	} read;
	struct {
		__le32 info;		/* RSS type 3:0, packet type */
		__le32 rss_hash;
		__le32 status_error;
		__le16 length;
		__le16 vlan;
	} wb;
};

#define IGCB_RXD_RSS_TYPE	GENMASK(3, 0)
#define IGCB_RXD_STAT_DD	BIT(0)
#define IGCB_RXD_STAT_EOP	BIT(1)
#define IGCB_RXD_STAT_IXSM	BIT(2)
#define IGCB_RXD_STAT_VP	BIT(3)
#define IGCB_RXD_STAT_UDPCS	BIT(4)
#define IGCB_RXD_STAT_TCPCS	BIT(5)
#define IGCB_RXD_ERR_L4E	BIT(29)
#define IGCB_RXD_ERR_IPE	BIT(30)
#define IGCB_RXD_ERR_RXE	BIT(31)

/* RSS types the hardware reports; above 9 is reserved */
enum igcb_rss_type {
	IGCB_RSS_NONE = 0,
	IGCB_RSS_TCP_IPV4 = 1,
	IGCB_RSS_IPV4 = 2,
	IGCB_RSS_TCP_IPV6 = 3,
	IGCB_RSS_IPV6_EX = 4,
	IGCB_RSS_IPV6 = 5,
	IGCB_RSS_TCP_IPV6_EX = 6,
	IGCB_RSS_UDP_IPV4 = 7,
	IGCB_RSS_UDP_IPV6 = 8,
	IGCB_RSS_UDP_IPV6_EX = 9,
};

#endif /* _IGCB_REGS_H */
