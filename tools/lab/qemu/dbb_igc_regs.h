/*
 * dbb-igc: register map of the Intel I225/I226 (igc) as the model uses it
 *
 * Offsets and bits are hardware facts (see tools/lab/qemu/README.md and
 * /work/shared/reference/igc-i226.md); names are our own.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_DBB_IGC_REGS_H
#define HW_NET_DBB_IGC_REGS_H

/* General */
#define IGC_R_CTRL          0x00000
#define IGC_R_STATUS        0x00008
#define IGC_R_EECD          0x00010
#define IGC_R_CTRL_EXT      0x00018
#define IGC_R_MDIC          0x00020
#define IGC_R_FCAL          0x00028
#define IGC_R_FCAH          0x0002C
#define IGC_R_FCT           0x00030
#define IGC_R_VET           0x00038
#define IGC_R_FCTTV         0x00170
#define IGC_R_TIPG          0x00410
#define IGC_R_FCRTH         0x02168
#define IGC_R_RCTL          0x00100
#define IGC_R_TCTL          0x00400
#define IGC_R_PHPM          0x00E14
#define IGC_R_RXPBS         0x02404
#define IGC_R_TXPBS         0x03404
#define IGC_R_EERD          0x12014
#define IGC_R_SRWR          0x12018
#define IGC_R_RXCSUM        0x05000
#define IGC_R_RLPML         0x05004
#define IGC_R_MTA           0x05200     /* 128 registers */
#define IGC_R_RAL(n)        (0x05400 + (n) * 8)
#define IGC_R_RAH(n)        (0x05404 + (n) * 8)
#define IGC_R_MRQC          0x05818
#define IGC_R_MANC          0x05820
#define IGC_R_SWSM          0x05B50
#define IGC_R_FWSM          0x05B54
#define IGC_R_SW_FW_SYNC    0x05B5C
#define IGC_R_RETA(i)       (0x05C00 + (i) * 4)     /* 32 registers */
#define IGC_R_RSSRK(i)      (0x05C80 + (i) * 4)     /* 10 registers */

/* Interrupts */
#define IGC_R_ICR           0x01500
#define IGC_R_ICS           0x01504
#define IGC_R_IMS           0x01508
#define IGC_R_IMC           0x0150C
#define IGC_R_IAM           0x01510
#define IGC_R_GPIE          0x01514
#define IGC_R_EICS          0x01520
#define IGC_R_EIMS          0x01524
#define IGC_R_EIMC          0x01528
#define IGC_R_EIAC          0x0152C
#define IGC_R_EIAM          0x01530
#define IGC_R_EICR          0x01580
#define IGC_R_EITR(n)       (0x01680 + (n) * 4)
#define IGC_R_IVAR0(i)      (0x01700 + (i) * 4)
#define IGC_R_IVAR_MISC     0x01740

/* Statistics: everything in [STATS_FIRST, STATS_LAST] is clear-on-read */
#define IGC_R_STATS_FIRST   0x04000
#define IGC_R_STATS_LAST    0x0414C
#define IGC_R_CRCERRS       0x04000
#define IGC_R_MPC           0x04010
#define IGC_R_PRC64         0x0405C     /* ... PRC1522 at 0x04070 */
#define IGC_R_GPRC          0x04074
#define IGC_R_BPRC          0x04078
#define IGC_R_MPRC          0x0407C
#define IGC_R_GPTC          0x04080
#define IGC_R_GORCL         0x04088
#define IGC_R_GORCH         0x0408C
#define IGC_R_GOTCL         0x04090
#define IGC_R_GOTCH         0x04094
#define IGC_R_RNBC          0x040A0
#define IGC_R_RUC           0x040A4
#define IGC_R_ROC           0x040AC
#define IGC_R_TORL          0x040C0
#define IGC_R_TORH          0x040C4
#define IGC_R_TOTL          0x040C8
#define IGC_R_TOTH          0x040CC
#define IGC_R_TPR           0x040D0
#define IGC_R_TPT           0x040D4
#define IGC_R_PTC64         0x040D8     /* ... PTC1522 at 0x040EC */
#define IGC_R_MPTC          0x040F0
#define IGC_R_BPTC          0x040F4
#define IGC_R_TSCTC         0x040F8
#define IGC_R_IAC           0x04100
#define IGC_R_RPTHC         0x04104
#define IGC_R_HGPTC         0x04118
#define IGC_R_HGORCL        0x04128
#define IGC_R_HGORCH        0x0412C
#define IGC_R_HGOTCL        0x04130
#define IGC_R_HGOTCH        0x04134

/* Per-queue registers, stride 0x40 */
#define IGC_R_RDBAL(q)      (0x0C000 + (q) * 0x40)
#define IGC_R_RDBAH(q)      (0x0C004 + (q) * 0x40)
#define IGC_R_RDLEN(q)      (0x0C008 + (q) * 0x40)
#define IGC_R_SRRCTL(q)     (0x0C00C + (q) * 0x40)
#define IGC_R_RDH(q)        (0x0C010 + (q) * 0x40)
#define IGC_R_RDT(q)        (0x0C018 + (q) * 0x40)
#define IGC_R_RXDCTL(q)     (0x0C028 + (q) * 0x40)
#define IGC_R_RQDPC(q)      (0x0C030 + (q) * 0x40)
#define IGC_R_TDBAL(q)      (0x0E000 + (q) * 0x40)
#define IGC_R_TDBAH(q)      (0x0E004 + (q) * 0x40)
#define IGC_R_TDLEN(q)      (0x0E008 + (q) * 0x40)
#define IGC_R_TDH(q)        (0x0E010 + (q) * 0x40)
#define IGC_R_TDT(q)        (0x0E018 + (q) * 0x40)
#define IGC_R_TXDCTL(q)     (0x0E028 + (q) * 0x40)
#define IGC_RXQ_FIRST       0x0C000
#define IGC_TXQ_FIRST       0x0E000
#define IGC_Q_STRIDE        0x40

/* CTRL */
#define IGC_CTRL_FD             BIT(0)
#define IGC_CTRL_GIO_MDIS       BIT(2)
#define IGC_CTRL_SLU            BIT(6)
#define IGC_CTRL_RST            BIT(26)
#define IGC_CTRL_DEV_RST        BIT(29)
#define IGC_CTRL_VME            BIT(30)
#define IGC_CTRL_PHY_RST        BIT(31)

/* STATUS */
#define IGC_STATUS_FD           BIT(0)
#define IGC_STATUS_LU           BIT(1)
#define IGC_STATUS_SPEED_100    BIT(6)
#define IGC_STATUS_SPEED_1000   BIT(7)
#define IGC_STATUS_PHYRA        BIT(10)
#define IGC_STATUS_GIO_MEN      BIT(19)
#define IGC_STATUS_SPEED_2500   BIT(22)

/* EECD */
#define IGC_EECD_PRES           BIT(8)
#define IGC_EECD_AUTO_RD        BIT(9)
#define IGC_EECD_FLASH_DETECTED BIT(19)
#define IGC_EECD_FLUDONE        BIT(26)

/* EERD */
#define IGC_EERD_START          BIT(0)
#define IGC_EERD_DONE           BIT(1)
#define IGC_EERD_ADDR_SHIFT     2
#define IGC_EERD_DATA_SHIFT     16

/* MDIC */
#define IGC_MDIC_DATA_MASK      0xFFFF
#define IGC_MDIC_REG_SHIFT      16
#define IGC_MDIC_REG_MASK       0x1F
#define IGC_MDIC_PHY_SHIFT      21
#define IGC_MDIC_PHY_MASK       0x1F
#define IGC_MDIC_OP_WRITE       BIT(26)
#define IGC_MDIC_OP_READ        BIT(27)
#define IGC_MDIC_READY          BIT(28)
#define IGC_MDIC_ERROR          BIT(30)

/* PHPM */
#define IGC_PHPM_RST_COMPL      BIT(8)

/* MANC: firmware receives manageability traffic through the port */
#define IGC_MANC_RCV_TCO_EN     BIT(17)

/* SWSM / SW_FW_SYNC */
#define IGC_SWSM_SMBI           BIT(0)
#define IGC_SWSM_SWESMBI        BIT(1)

/* RCTL */
#define IGC_RCTL_EN             BIT(1)
#define IGC_RCTL_UPE            BIT(3)
#define IGC_RCTL_MPE            BIT(4)
#define IGC_RCTL_LPE            BIT(5)
#define IGC_RCTL_LBM_MASK       (3u << 6)
#define IGC_RCTL_MO_SHIFT       12
#define IGC_RCTL_BAM            BIT(15)
#define IGC_RCTL_BSIZE_SHIFT    16
#define IGC_RCTL_VFE            BIT(18)
#define IGC_RCTL_BSEX           BIT(25)
#define IGC_RCTL_SECRC          BIT(26)

/* TCTL */
#define IGC_TCTL_EN             BIT(1)
#define IGC_TCTL_PSP            BIT(3)

/* Interrupt causes (ICR/ICS/IMS/IMC) */
#define IGC_ICR_TXDW            BIT(0)
#define IGC_ICR_LSC             BIT(2)
#define IGC_ICR_RXDMT0          BIT(4)
#define IGC_ICR_RXO             BIT(6)
#define IGC_ICR_RXT0            BIT(7)
#define IGC_ICR_INT_ASSERTED    BIT(31)

/* GPIE */
#define IGC_GPIE_NSICR          BIT(0)
#define IGC_GPIE_MSIX_MODE      BIT(4)
#define IGC_GPIE_EIAME          BIT(30)
#define IGC_GPIE_PBA            BIT(31)

/* IVAR */
#define IGC_IVAR_VALID          0x80
#define IGC_IVAR_VEC_MASK       0x1F

/* EITR */
#define IGC_EITR_INTERVAL_MASK  0x7FFC  /* bits 14:2, microseconds */

/* RXDCTL / TXDCTL */
#define IGC_XDCTL_ENABLE        BIT(25)
#define IGC_XDCTL_SWFLUSH       BIT(26)

/* SRRCTL */
#define IGC_SRRCTL_BSIZEPKT_MASK    0x7F    /* 1 KiB units */
#define IGC_SRRCTL_DESCTYPE_SHIFT   25
#define IGC_SRRCTL_DESCTYPE_MASK    0x7
#define IGC_SRRCTL_DESCTYPE_LEGACY  0
#define IGC_SRRCTL_DESCTYPE_ADV1BUF 1
#define IGC_SRRCTL_DROP_EN          BIT(31)

/* RXCSUM */
#define IGC_RXCSUM_IPOFL        BIT(8)
#define IGC_RXCSUM_TUOFL        BIT(9)
#define IGC_RXCSUM_PCSD         BIT(13)

/* RAH */
#define IGC_RAH_ADDR_MASK       0xFFFF
#define IGC_RAH_ASEL_MASK       (3u << 16)
#define IGC_RAH_QSEL_SHIFT      18
#define IGC_RAH_QSEL_MASK       3u
#define IGC_RAH_QSEL_ENABLE     BIT(28)
#define IGC_RAH_AV              BIT(31)

/* MRQC */
#define IGC_MRQC_MRQE_MASK      0x7
#define IGC_MRQC_MRQE_RSS       0x2
#define IGC_MRQC_IPV4_TCP       BIT(16)
#define IGC_MRQC_IPV4           BIT(17)
#define IGC_MRQC_IPV6_TCP_EX    BIT(18)
#define IGC_MRQC_IPV6           BIT(20)
#define IGC_MRQC_IPV6_TCP       BIT(21)
#define IGC_MRQC_IPV4_UDP       BIT(22)
#define IGC_MRQC_IPV6_UDP       BIT(23)

/* TX descriptors (advanced) */
#define IGC_TXD_DTALEN_MASK     0xFFFF
#define IGC_TXD_DTYP_SHIFT      20
#define IGC_TXD_DTYP_MASK       0xF
#define IGC_TXD_DTYP_CTXT       0x2
#define IGC_TXD_DTYP_DATA       0x3
#define IGC_TXD_CMD_EOP         BIT(24)
#define IGC_TXD_CMD_IFCS        BIT(25)
#define IGC_TXD_CMD_RS          BIT(27)
#define IGC_TXD_CMD_DEXT        BIT(29)
#define IGC_TXD_CMD_VLE         BIT(30)
#define IGC_TXD_CMD_TSE         BIT(31)
#define IGC_TXD_POPTS_IXSM      BIT(8)
#define IGC_TXD_POPTS_TXSM      BIT(9)
#define IGC_TXD_PAYLEN_SHIFT    14
#define IGC_TXD_STA_DD          BIT(0)
/* context descriptor */
#define IGC_TXCTX_IPLEN_MASK    0x1FF
#define IGC_TXCTX_MACLEN_SHIFT  9
#define IGC_TXCTX_MACLEN_MASK   0x7F
#define IGC_TXCTX_VLAN_SHIFT    16
#define IGC_TXCTX_TUCMD_IPV4    BIT(10)
#define IGC_TXCTX_TUCMD_L4T_SHIFT 11
#define IGC_TXCTX_L4T_UDP       0
#define IGC_TXCTX_L4T_TCP       1
#define IGC_TXCTX_L4T_SCTP      2
#define IGC_TXCTX_L4LEN_SHIFT   8
#define IGC_TXCTX_L4LEN_MASK    0xFF
#define IGC_TXCTX_MSS_SHIFT     16
/* legacy TX descriptor */
#define IGC_LTXD_LEN_MASK       0xFFFF

/* RX descriptor write-back (advanced) */
#define IGC_RXD_STAT_DD         BIT(0)
#define IGC_RXD_STAT_EOP        BIT(1)
#define IGC_RXD_STAT_IXSM       BIT(2)
#define IGC_RXD_STAT_VP         BIT(3)
#define IGC_RXD_STAT_UDPCS      BIT(4)
#define IGC_RXD_STAT_TCPCS      BIT(5)
#define IGC_RXD_STAT_IPCS       BIT(6)
#define IGC_RXD_ERR_L4E         BIT(29)
#define IGC_RXD_ERR_IPE         BIT(30)
#define IGC_RXD_ERR_RXE         BIT(31)
/* RSS types in DW0 bits 3:0 */
#define IGC_RSS_TYPE_NONE       0
#define IGC_RSS_TYPE_TCP_IPV4   1
#define IGC_RSS_TYPE_IPV4       2
#define IGC_RSS_TYPE_TCP_IPV6   3
#define IGC_RSS_TYPE_IPV6       5
#define IGC_RSS_TYPE_UDP_IPV4   7
#define IGC_RSS_TYPE_UDP_IPV6   8
/* packet type bits (DW0 bits 16:4) */
#define IGC_RXD_PKT_IPV4        BIT(4)
#define IGC_RXD_PKT_IPV6        BIT(6)
#define IGC_RXD_PKT_TCP         BIT(8)
#define IGC_RXD_PKT_UDP         BIT(9)

/* PHY (MDIC address 0) */
#define IGC_PHY_BMCR            0x00
#define IGC_PHY_BMSR            0x01
#define IGC_PHY_ID1             0x02
#define IGC_PHY_ID2             0x03
#define IGC_PHY_ANAR            0x04
#define IGC_PHY_ANLPAR          0x05
#define IGC_PHY_ANER            0x06
#define IGC_PHY_1000T_CTRL      0x09
#define IGC_PHY_1000T_STATUS    0x0A
#define IGC_PHY_MMDAC           0x0D
#define IGC_PHY_MMDAAD          0x0E
#define IGC_PHY_EXT_STATUS      0x0F
#define IGC_PHY_GPHY_VERSION    0x1E
#define IGC_BMCR_RESTART_AN     BIT(9)
#define IGC_BMCR_AN_ENABLE      BIT(12)
#define IGC_ANAR_10_HD          BIT(5)
#define IGC_ANAR_10_FD          BIT(6)
#define IGC_ANAR_100_HD         BIT(7)
#define IGC_ANAR_100_FD         BIT(8)
#define IGC_1000T_CTRL_HD       BIT(8)
#define IGC_1000T_CTRL_FD       BIT(9)
#define IGC_1000T_STATUS_REMOTE_RX_OK   BIT(12)
#define IGC_1000T_STATUS_LOCAL_RX_OK    BIT(13)
#define IGC_MGBT_CTRL_2500_FD   BIT(7)
#define IGC_BMCR_PDOWN          BIT(11)
#define IGC_BMCR_RESET          BIT(15)
#define IGC_BMSR_LINK           BIT(2)
#define IGC_BMSR_AN_COMPLETE    BIT(5)
#define IGC_MMDAC_DEVAD_MASK    0x1F
#define IGC_MMDAC_FUNC_SHIFT    14
#define IGC_MMDAC_FUNC_ADDR     0
#define IGC_MMDAC_FUNC_DATA     1
#define IGC_MMD_AN              7
#define IGC_MMD_AN_MGBT_CTRL    0x20
#define IGC_MMD_AN_MGBT_STAT    0x21

#endif
