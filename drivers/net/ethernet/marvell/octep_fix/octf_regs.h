/* SPDX-License-Identifier: GPL-2.0 */
/*
 * octep_fix: Octeon CN93xx/CN98xx SDP registers (BAR0), the control
 * mailbox layout (BAR4) and the descriptor formats.
 */
#ifndef _OCTF_REGS_H
#define _OCTF_REGS_H

#include <linux/bitfield.h>
#include <linux/bits.h>

/* Per ring q, BAR0 */
#define OCTF_RING_STRIDE		0x20000
#define OCTF_RING(q, off)		(0x10000 + (q) * OCTF_RING_STRIDE + (off))

#define OCTF_IN_CONTROL(q)		OCTF_RING(q, 0x00)
#define OCTF_IN_ENABLE(q)		OCTF_RING(q, 0x10)
#define OCTF_IN_INSTR_BADDR(q)		OCTF_RING(q, 0x20)
#define OCTF_IN_INSTR_RSIZE(q)		OCTF_RING(q, 0x30)
#define OCTF_IN_INSTR_DBELL(q)		OCTF_RING(q, 0x40)
#define OCTF_IN_CNTS(q)			OCTF_RING(q, 0x50)
#define OCTF_IN_INT_LEVELS(q)		OCTF_RING(q, 0x60)
#define OCTF_IN_PKT_CNT(q)		OCTF_RING(q, 0x80)
#define OCTF_IN_BYTE_CNT(q)		OCTF_RING(q, 0x90)

#define OCTF_OUT_CNTS(q)		OCTF_RING(q, 0x100)
#define OCTF_OUT_INT_LEVELS(q)		OCTF_RING(q, 0x110)
#define OCTF_OUT_SLIST_BADDR(q)		OCTF_RING(q, 0x120)
#define OCTF_OUT_SLIST_RSIZE(q)		OCTF_RING(q, 0x130)
#define OCTF_OUT_SLIST_DBELL(q)		OCTF_RING(q, 0x140)
#define OCTF_OUT_CONTROL(q)		OCTF_RING(q, 0x150)
#define OCTF_OUT_ENABLE(q)		OCTF_RING(q, 0x160)
#define OCTF_OUT_PKT_CNT(q)		OCTF_RING(q, 0x180)
#define OCTF_OUT_BYTE_CNT(q)		OCTF_RING(q, 0x190)

#define OCTF_IN_CTL_IDLE		BIT_ULL(28)
#define OCTF_IN_CTL_RDSIZE		(3ULL << 25)	/* read 4 x 64 B */
#define OCTF_IN_CTL_IS_64B		BIT_ULL(24)
#define OCTF_IN_CTL_ESR			BIT_ULL(1)	/* byte-swap the SG list */

#define OCTF_OUT_CTL_IDLE		BIT_ULL(40)
#define OCTF_OUT_CTL_ES_P		BIT_ULL(26)	/* byte-swap the length */
#define OCTF_OUT_CTL_IMODE		BIT_ULL(23)	/* info pointer mode */
#define OCTF_OUT_CTL_BSIZE		GENMASK_ULL(15, 0)

/* IN/OUT_INT_LEVELS: enable, time threshold (us), packet threshold */
#define OCTF_INT_LEVELS_ENA		BIT_ULL(62)
#define OCTF_INT_LEVELS_TIME		GENMASK_ULL(53, 32)
#define OCTF_INT_LEVELS_PKTS		GENMASK_ULL(31, 0)

/* IN/OUT_CNTS: the count in 31:0 (a write subtracts), RESEND re-arms */
#define OCTF_CNTS_COUNT			GENMASK_ULL(31, 0)
#define OCTF_CNTS_RESEND		BIT_ULL(59)

/* Doorbells: additive 32-bit counts; this value clears them */
#define OCTF_DBELL_CLEAR		0xFFFFFFFFU

/* Globals, BAR0 */
#define OCTF_OEI_RINT			0x20360
#define OCTF_OEI_RINT_W1S		0x20370
#define OCTF_OEI_RINT_ENA_W1C		0x20380
#define OCTF_OEI_RINT_ENA_W1S		0x20390
#define OCTF_OEI_MBOX			BIT_ULL(0)	/* control mailbox */
#define OCTF_OEI_HEARTBEAT		BIT_ULL(1)

#define OCTF_EPF_RINFO			0x205F0
#define OCTF_MAC_PF_RING_CTL(mac)	(0x2C000 + 0x10 * (mac))
#define OCTF_MAC_NUMBER			0x2C100
/* MAC_PF_RING_CTL on CN93 and CN98: rings per PF */
#define OCTF_CN93_RPPF			GENMASK_ULL(21, 16)
#define OCTF_CN98_RPPF			GENMASK_ULL(37, 32)

/* MSI-X: 16 non-ring vectors, then one per ring */
#define OCTF_NON_IOQ_VECTORS		16
#define OCTF_OEI_VECTOR			8

/* PCIe: the firmware-ready vendor-specific extended capability */
#define OCTF_FW_READY_VSEC_ID		0xA3
#define OCTF_FW_READY_OFF		8

/* Control mailbox: BAR4 + 7 x 4 MiB, one 32 KiB window per MAC/link */
#define OCTF_MBOX_BAR			4
#define OCTF_MBOX_OFFSET		0x1C00000
#define OCTF_MBOX_LINK_STRIDE		0x8000
#define OCTF_MBOX_MAGIC_VAL		0xdeaddeadbeefbeefULL

#define OCTF_MBOX_MAGIC			0
#define OCTF_MBOX_BARMEM_SZ		8
#define OCTF_MBOX_HOST_VERSION		16
#define OCTF_MBOX_HOST_STATUS		24
#define OCTF_MBOX_FW_VERSION		136
#define OCTF_MBOX_FW_STATUS		144
#define OCTF_MBOX_H2F_PROD		256
#define OCTF_MBOX_H2F_CONS		260
#define OCTF_MBOX_H2F_SZ		264
#define OCTF_MBOX_F2H_PROD		272
#define OCTF_MBOX_F2H_CONS		276
#define OCTF_MBOX_F2H_SZ		280
#define OCTF_MBOX_QUEUES		288

enum octf_mbox_status {
	OCTF_MBOX_STATUS_INVALID,
	OCTF_MBOX_STATUS_INIT,
	OCTF_MBOX_STATUS_READY,
	OCTF_MBOX_STATUS_UNINIT,
};

/* Control-plane versions: major.minor.patch as 8-bit fields */
#define OCTF_CP_VERSION(a, b, c)	(((a) << 16) | ((b) << 8) | (c))
#define OCTF_CP_VERSION_MIN		OCTF_CP_VERSION(1, 0, 0)
#define OCTF_CP_VERSION_HOST		OCTF_CP_VERSION(1, 0, 1)

/* v2 message header flags */
#define OCTF_MSG_REQ			BIT(0)
#define OCTF_MSG_RESP			BIT(1)
#define OCTF_MSG_NOTIFY			BIT(2)

/* Host-to-firmware commands */
enum octf_h2f_cmd {
	OCTF_CMD_MTU = 1,
	OCTF_CMD_MAC = 2,
	OCTF_CMD_GET_IF_STATS = 3,	/* rx stats (120 B), then tx (144 B) */
	OCTF_CMD_LINK_STATUS = 6,
	OCTF_CMD_RX_STATE = 7,
	OCTF_CMD_LINK_INFO = 8,
	OCTF_CMD_GET_INFO = 9,
	OCTF_CMD_DEV_REMOVE = 10,
};

/* Firmware-to-host notifications */
#define OCTF_F2H_LINK_STATUS		1

#define OCTF_NET_GET			0
#define OCTF_NET_SET			1

/* Input ring instruction: 64 bytes */
struct octf_iq_desc {
	__le64 dptr;		/* data, or the gather list */
	__le64 ih;
	__le64 front[2];	/* TX metadata, unused: no offloads */
	__le64 exthdr[4];
};

#define OCTF_IH_TLEN			GENMASK_ULL(15, 0)
#define OCTF_IH_PKIND			GENMASK_ULL(41, 36)
#define OCTF_IH_FSZ			GENMASK_ULL(47, 42)
#define OCTF_IH_GSZ			GENMASK_ULL(61, 48)
#define OCTF_IH_GATHER			BIT_ULL(62)

/* Gather list entry: ptr[k]'s length is in len[3 - k] */
struct octf_sg_entry {
	__le16 len[4];
	__le64 ptr[4];
};

/* Output ring descriptor: 16 bytes */
struct octf_oq_desc {
	__le64 buffer;
	__le64 info;		/* unused: info-pointer mode is off */
};

#endif /* _OCTF_REGS_H */
