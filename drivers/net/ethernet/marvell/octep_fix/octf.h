/* SPDX-License-Identifier: GPL-2.0 */
/*
 * octep_fix: a Marvell Octeon CN93xx/CN98xx SDP endpoint NIC driver (PF)
 * with watermark-aware receive credits and batched doorbells, on dbbatch.
 *
 * One input (TX) ring and one output (RX) ring per queue vector, ring q on
 * MSI-X vector 16 + q, one NAPI instance per pair; vector 8 carries the
 * firmware's causes (control mailbox, heartbeat).  The receive doorbell
 * is a credit (octf_credit.h); the transmit doorbell goes through
 * octf_doorbell.c and dbbatch.
 */
#ifndef _OCTF_H
#define _OCTF_H

#include <linux/bpf.h>
#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/dbbatch.h>
#include <net/xdp.h>
#ifdef OCTF_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#ifdef OCTF_HAVE_PP_HELPERS
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

#include "octf_credit.h"
#include "octf_regs.h"

#define OCTF_DRV_NAME		"octep_fix"

#define OCTF_MAX_QUEUES		16

/* Ring sizes: input rings any whole fetch multiple too, for symmetry */
#define OCTF_DEFAULT_IQ		1024
#define OCTF_DEFAULT_OQ		1024
#define OCTF_IQ_MIN		64
#define OCTF_IQ_MAX		8192

/* Receive buffers are whole pages: XDP headroom, of which the last 8 (or
 * 16 with the offload header) bytes take the length the block writes
 * before the data, then the buffer, then room for skb_shared_info so a
 * one-buffer frame becomes an skb in place.
 */
#define OCTF_RX_HEADROOM	XDP_PACKET_HEADROOM
#define OCTF_RX_SHINFO		SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
#define OCTF_RX_BUFSZ(hdr)	\
	(ALIGN_DOWN(PAGE_SIZE - OCTF_RX_HEADROOM + (hdr) - OCTF_RX_SHINFO, 8))
#define OCTF_RX_HDR		8	/* big-endian length */
#define OCTF_RX_OL_HDR		8	/* offload header, if reported */

/* Stop a TX queue when fewer instructions are free */
#define OCTF_TX_WAKE		32
/* Gather list entries per instruction: head and every fragment */
#define OCTF_SG_PTRS		(MAX_SKB_FRAGS + 1)
#define OCTF_SG_ENTRIES		DIV_ROUND_UP(OCTF_SG_PTRS, 4)

/* Receive interrupt moderation: after 1 packet or 10 us (as upstream) */
#define OCTF_OQ_INTR_PKTS	1
#define OCTF_OQ_INTR_US		10

/* Firmware supervision */
#define OCTF_WD_PERIOD_MS	100	/* watchdog tick */
#define OCTF_FW_STATS_TICKS	10	/* interface statistics: every second */
#define OCTF_MBOX_TIMEOUT_MS	500	/* one request */
#define OCTF_MAX_MTU_DEFAULT	9000

/* Doorbell policy flags, in the order of the ethtool private flags */
#define OCTF_DB_SKIP_EMPTY	BIT(0)
#define OCTF_DB_TX_BATCHED	BIT(1)
#define OCTF_DB_FLAGS_N		2

enum octf_state {
	OCTF_DOWN,		/* rings not running; no XDP transmit */
	OCTF_FW_LOST,		/* heartbeat missing: port held down */
	OCTF_FW_LINK_RETRY,	/* open could not reach the firmware */
	OCTF_RESTART,		/* rings to be restarted by the reset work */
	OCTF_WAKE_QUEUES,	/* carrier came on: the watchdog wakes queues */
	OCTF_FW_RESTARTED,	/* greeted again: reset_work reopens the port */
	OCTF_LOW_SPOILED,	/* this interval's refusals are not judged */
};

struct octf_port;

/* The control mailbox (v2): byte rings in BAR4 */
struct octf_mbox {
	u8 __iomem *base;
	u32 h2f_sz;
	u32 f2h_sz;
	u32 fw_min;
	u32 fw_max;
	struct mutex lock;	/* one request at a time */
	spinlock_t rx_lock;	/* the f2h ring and the waiter */
	u16 msg_id;
	/* the request waiting for its answer */
	u16 wait_id;
	bool waiting;
	struct completion done;
	u8 resp[96];
	u32 resp_len;
	u64 timeouts;
	u64 notifications;
};

/* What GET_INFO reports */
struct octf_fw_info {
	u8 pkind;
	u8 fsz;
	u16 hb_interval;	/* ms */
	u16 hb_miss;
	u16 rx_ol;
	u16 tx_ol;
};

enum octf_tx_kind {
	OCTF_TXB_SKB,
	OCTF_TXB_XDP_TX,	/* a page of our own RX page_pool */
	OCTF_TXB_XDP_NDO,	/* a frame from ndo_xdp_xmit, mapped here */
};

struct octf_tx_buf {
	union {
		struct sk_buff *skb;
		struct xdp_frame *xdpf;
	};
	u8 kind;
	u8 nmaps;		/* mappings in dma/len */
	bool head_single;	/* dma[0] maps with dma_map_single */
	u32 bytes;
	dma_addr_t dma[OCTF_SG_PTRS];
	u32 len[OCTF_SG_PTRS];
};

/* Written under the queue's xmit lock */
struct octf_iq_stats {
	u64 dbell_writes;	/* IN_INSTR_DBELL writes */
	u64 held;		/* stack transmits a batch held */
	u64 batch_rings;	/* batch-end flushes that rang */
	u64 skipped_empty;	/* doorbells not rung: nothing new */
	u64 busy;		/* NETDEV_TX_BUSY */
	u64 dropped;
	u64 linearized;		/* more fragments than a gather list takes */
	u64 xdp_xmit;
	u64 xdp_xmit_err;
	u64 restarts;		/* queue woken after a stop (both wakers lock) */
};

/* Written by the cleaner (NAPI), which does not take the xmit lock */
struct octf_iq_clean_stats {
	u64 packets;
	u64 bytes;
};

/* Input (TX) ring */
struct octf_iq {
	struct octf_iq_desc *desc;
	struct octf_sg_entry *sg;	/* OCTF_SG_ENTRIES per instruction */
	struct octf_tx_buf *bufs;
	u8 __iomem *dbell;
	u8 __iomem *cnts;
	u32 count;
	u32 next_to_use;
	u32 next_to_clean;
	u32 tail_written;	/* next_to_use at the last doorbell */
	u8 qid;
	struct dbbatch_queue dbq;
	struct octf_port *port;
	struct net_device *netdev;
	struct device *dev;

	struct u64_stats_sync sync;
	struct octf_iq_stats st;
	struct u64_stats_sync clean_sync;
	struct octf_iq_clean_stats cs;

	dma_addr_t desc_dma;
	dma_addr_t sg_dma;
};

struct octf_rx_buf {
	struct page *page;
	dma_addr_t dma;		/* of the page */
};

struct octf_oq_stats {
	u64 packets;
	u64 bytes;
	u64 dbell_writes;	/* OUT_SLIST_DBELL writes (credit) */
	u64 credit_given;	/* units written, the grants included */
	u64 oq_lapped;		/* passes that read a count above the ring */
	u64 nobuf;		/* passes that found a count and no buffer */
	u64 resyncs;		/* read index stepped over a gap */
	u64 skipped;		/* buffers so stepped over */
	u64 uncounted;		/* frames written that OUT_CNTS never said */
	u64 alloc_failed;
	u64 dropped;		/* bad lengths, too many fragments */
	u64 xdp_drop;
	u64 xdp_tx;
	u64 xdp_redirect;
};

/* Written by the watchdog, a second writer beside NAPI: its own sync */
struct octf_oq_wd_stats {
	u64 stalls;		/* ring left unserviced two ticks */
};

/* Output (RX) ring */
/* An output ring.  Its invariant, kept on every path that moves an index
 * (NAPI, resync, configure): the to_refill slots from refill_idx hold no
 * page and read_idx == (refill_idx + to_refill) % count; every other slot
 * holds a page posted to the block.  debugfs "credit" prints the indices
 * and the pages posted so a test can check it.
 */
struct octf_oq {
	struct octf_oq_desc *desc;
	struct octf_rx_buf *bufs;
	u8 __iomem *dbell;
	u8 __iomem *cnts;
	u32 count;		/* published (OUT_SLIST_RSIZE) */
	u32 nbufs;		/* allocated behind it */
	u32 read_idx;
	u32 refill_idx;		/* first slot taken and not refilled */
	u32 to_refill;
	u32 pending;		/* packets the last count read left */
	u32 hdr_len;		/* length (+ offload) header */
	u32 bufsz;
	u8 qid;
	struct octf_credit credit;	/* under NAPI or NAPI disabled */
	/* watchdog state */
	bool visited;		/* a NAPI pass ran since the last tick */
	u8 unvisited_ticks;
	bool resync_req;	/* the watchdog asks NAPI to step a gap */
	bool check_req;		/* ... to read the credit back */
	u32 gap_idx;
	u8 gap_ticks;
	bool peek_req;		/* ... to look for frames the count missed */
	u32 peek_idx;		/* written buffers seen there, count 0 */
	u32 peek_n;		/* ... how many frames */
	u32 unacked;		/* of pending, frames OUT_CNTS never counted */
	u32 took;		/* passes that took frames: did the ring idle? */
	u32 wd_took;		/* took when the watchdog last looked */
	u32 in_device_max;	/* most buffers the block held (read-back) */
	u32 credit_now;		/* the doorbell as last read back */
	u32 dbell_least;	/* least busy passes read (the low watch) */
	u32 last_give;		/* credit the last pass wrote */
	u32 full_frames;	/* frames of the MTU that fill the ring */
	struct page_pool *pp;
	struct octf_port *port;
	struct octf_qv *qv;
	struct net_device *netdev;
	struct device *dev;
	struct xdp_rxq_info xdp_rxq;

	struct u64_stats_sync sync;	/* NAPI, or NAPI disabled */
	struct octf_oq_stats st;
	struct u64_stats_sync wd_sync;	/* the watchdog, under RTNL */
	struct octf_oq_wd_stats wd;

	dma_addr_t desc_dma;
};

/* A port's packet and byte totals (octf_stats.c) */
struct octf_totals {
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_dropped;
	u64 rx_alloc_failed;
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_dropped;
};

struct octf_qv {
	struct napi_struct napi;
	struct octf_port *port;
	u8 idx;
	int irq;
	char name[IFNAMSIZ + 16];
	struct octf_iq iq;
	struct octf_oq oq;
};

/* Test hooks (debugfs) */
struct octf_test {
	u32 ceiling;		/* 0: the exact grant */
	bool quiesced;		/* NAPI held by the quiesce knob */
	/* the next skip_rx_alloc receive pages succeed, then fail_rx_alloc
	 * fail as if memory ran out (igc_batch's faults, the same knobs)
	 */
	atomic_t skip_rx_alloc;
	atomic_t fail_rx_alloc;
	atomic_t injected;	/* faults injected so far */
};

/* LINK_INFO's answer: the firmware's link-mode bits (octf_ethtool.c maps
 * them to ethtool's), auto-negotiation and pause as two bits each.
 */
struct octf_link_info {
	u64 supported;
	u64 advertised;
	u8 autoneg;		/* OCTF_LINK_SUPPORTED, OCTF_LINK_ADVERTISED */
	u8 pause;		/* the same two bits */
	u32 speed;		/* Mb/s */
};

#define OCTF_LINK_SUPPORTED	BIT(0)
#define OCTF_LINK_ADVERTISED	BIT(1)

struct octf_port {
	struct net_device *netdev;
	struct pci_dev *pdev;
	u8 __iomem *bar0;
	u8 __iomem *bar4;
	unsigned long state;
	bool cn98;

	unsigned int max_rings;		/* rings per PF (RPPF) */
	unsigned int num_queues;
	struct octf_qv *qv[OCTF_MAX_QUEUES];	/* freed after RCU */
	seqlock_t retired_lock;
	struct octf_totals retired;	/* of the vectors ethtool -L freed */
	unsigned int num_vectors;
	int oei_irq;

	u32 iq_count;
	u32 oq_count;
	u32 wmark;		/* the grant's watermark: the setting */
	u32 wmark_eff;		/* after a mismatch fell back, else wmark */
	u32 db_flags;		/* OCTF_DB_* */
	struct bpf_prog *xdp_prog;

	struct octf_mbox mbox;
	struct octf_fw_info fw;
	u32 link_speed;
	bool fw_link_up;
	unsigned long last_hb;	/* jiffies of the last heartbeat */
	u64 hb_seen;
	u64 hb_lost;		/* times the port was taken down for it */

	struct delayed_work watchdog;
	struct work_struct fw_work;	/* mailbox answers, notifications */
	struct work_struct reset_work;	/* restart the rings */
	/* Port-up requests retried for the watchdog without RTNL: a mute
	 * firmware makes each wait 500 ms.
	 */
	struct work_struct fw_up_work;
	struct mutex fw_lock;	/* port up/down requests vs. OCTF_DOWN */
	u64 fw_restarts;	/* firmware restarts greeted again */
	/* The firmware's interface statistics, every OCTF_FW_STATS_TICKS:
	 * frames the block refused for want of a buffer (fw_stats_work).
	 */
	struct work_struct fw_stats_work;
	unsigned int wd_ticks;
	u64 fw_drops_raw;	/* the firmware's count as last read */
	bool fw_drops_seen;	/* fw_drops_raw is a baseline */
	u64 fw_rx_drops;	/* its increases, over firmware restarts */
	/* A firmware watermark above wmark_eff: the refusals above, judged
	 * by the doorbell busy passes read before their credit write
	 * (octf_credit.h)
	 */
	struct octf_low_watch low;	/* fw_stats_work's */
	u32 low_least;		/* the watchdog: least of the rings' reads */
	u32 wmark_low_said;	/* the watermark the warning was given for */
	/* the last interval with refusals as it was judged (debugfs) */
	u64 low_judged_refused;
	u32 low_judged_least;
	u8 low_judged_spoiled;	/* 1: it, 2: the next */
	u64 wmark_low;		/* intervals judged too low */

	struct octf_test test;
	struct dentry *debugfs;
	u64 tx_timeouts;
	u64 ring_restarts;
};

static inline u64 octf_rd64(struct octf_port *p, u32 reg)
{
	return readq(p->bar0 + reg);
}

static inline void octf_wr64(struct octf_port *p, u32 reg, u64 val)
{
	writeq(val, p->bar0 + reg);
}

static inline u32 octf_iq_used(const struct octf_iq *iq)
{
	u32 ntc = READ_ONCE(iq->next_to_clean), ntu = iq->next_to_use;

	return ntu >= ntc ? ntu - ntc : iq->count + ntu - ntc;
}

/* Free instructions, one left so that full never looks empty */
static inline u32 octf_iq_unused(const struct octf_iq *iq)
{
	return iq->count - octf_iq_used(iq) - 1;
}

static inline bool octf_xdp_on(const struct octf_port *p)
{
	return !!READ_ONCE(p->xdp_prog);
}

/* octf_params.c */
u32 octf_params_db_flags(void);
u32 octf_params_wmark(void);
const char *octf_credit_err_str(enum octf_credit_err err);

/* octf_mbox.c: the v2 control mailbox */
int octf_mbox_init(struct octf_port *p);
void octf_mbox_uninit(struct octf_port *p);
int octf_mbox_request(struct octf_port *p, const void *req, u32 len,
		      void *resp, u32 resp_len);
void octf_mbox_poll(struct octf_port *p);

/* octf_fw.c: the firmware's commands and supervision */
bool octf_fw_ready(struct pci_dev *pdev);
int octf_fw_get_info(struct octf_port *p);
int octf_fw_get_mtu(struct octf_port *p);
int octf_fw_set_mtu(struct octf_port *p, int mtu);
int octf_fw_get_mac(struct octf_port *p, u8 *addr);
int octf_fw_set_mac(struct octf_port *p, const u8 *addr);
int octf_fw_get_link(struct octf_port *p);
int octf_fw_set_link(struct octf_port *p, bool up);
int octf_fw_set_rx_state(struct octf_port *p, bool up);
int octf_fw_get_link_info(struct octf_port *p, struct octf_link_info *li);
int octf_fw_set_link_info(struct octf_port *p,
			  const struct octf_link_info *li);
void octf_fw_dev_remove(struct octf_port *p);
void octf_fw_notify(struct octf_port *p, const u8 *msg, u32 len);
int octf_fw_port_up(struct octf_port *p);
void octf_fw_port_down(struct octf_port *p);
void octf_fw_heartbeat(struct octf_port *p);
void octf_fw_supervise(struct octf_port *p);
void octf_fw_up_work(struct work_struct *work);
void octf_fw_stats_work(struct work_struct *work);

/* octf_stats.c */
void octf_stats_init(struct octf_port *p);
void octf_get_stats64(struct net_device *netdev, struct rtnl_link_stats64 *s);
void octf_stats_retire(struct octf_port *p, struct octf_qv **qvs,
		       unsigned int n);
void octf_stats_set_ops(struct net_device *netdev);

/* octf_irq.c */
int octf_irq_init(struct octf_port *p);
void octf_irq_fini(struct octf_port *p);
int octf_qv_alloc(struct octf_port *p, unsigned int from, unsigned int to);
void octf_qv_free(struct octf_port *p, unsigned int from, unsigned int to);
int octf_irq_request(struct octf_port *p);
void octf_irq_free(struct octf_port *p);
void octf_irq_rearm(struct octf_qv *qv);

/* octf_tx.c */
int octf_iq_alloc(struct octf_iq *iq);
void octf_iq_free(struct octf_iq *iq);
void octf_iq_configure(struct octf_iq *iq);
void octf_iq_disable(struct octf_iq *iq);
void octf_iq_drop_all(struct octf_iq *iq);
netdev_tx_t octf_xmit(struct sk_buff *skb, struct net_device *netdev);
bool octf_iq_clean(struct octf_iq *iq, int budget);
void octf_iq_wake_all(struct octf_port *p);
void octf_iq_unmap(struct octf_iq *iq, struct octf_tx_buf *b);
void octf_iq_write(struct octf_iq *iq, u32 idx, struct octf_tx_buf *b,
		   u32 total);

/* octf_rx.c */
int octf_oq_alloc(struct octf_oq *oq);
void octf_oq_free(struct octf_oq *oq);
int octf_oq_configure(struct octf_oq *oq);
void octf_oq_set_mtu(struct octf_oq *oq, unsigned int mtu);
void octf_oq_disable(struct octf_oq *oq);
int octf_oq_clean(struct octf_qv *qv, int budget,
		  struct dbbatch *batch);
void octf_oq_watch(struct octf_oq *oq);

/* octf_doorbell.c: the only writer of IN_INSTR_DBELL */
void octf_doorbell_tx_init(struct octf_iq *iq);
void octf_doorbell_tx_sent(struct octf_iq *iq, unsigned int bytes);
void octf_doorbell_tx_publish(struct octf_iq *iq);
bool octf_doorbell_tx_flush_xdp(struct octf_iq *iq);
void octf_doorbell_tx_quiesce(struct octf_port *p);

/* octf_xdp.c */
#define OCTF_XDP_PASS		0
#define OCTF_XDP_CONSUMED	BIT(0)
#define OCTF_XDP_TX		BIT(1)
#define OCTF_XDP_REDIR		BIT(2)
unsigned int octf_xdp_run(struct octf_oq *oq, struct bpf_prog *prog,
			  struct xdp_buff *xdp, struct page *page);
void octf_xdp_finalize(struct octf_port *p, unsigned int flags);
int octf_xdp_xmit(struct net_device *netdev, int n,
		  struct xdp_frame **frames, u32 flags);
int octf_bpf(struct net_device *netdev, struct netdev_bpf *bpf);
void octf_xdp_set_features(struct net_device *netdev);

/* octf_debugfs.c */
void octf_debugfs_init(void);
void octf_debugfs_exit(void);
void octf_debugfs_add(struct octf_port *p);
void octf_debugfs_del(struct octf_port *p);

/* Return: true, counted, for a receive page the test knobs ask to fail. */
static inline bool octf_inject_rx_alloc(struct octf_port *p)
{
	if (likely(!atomic_read(&p->test.fail_rx_alloc)))
		return false;
	if (atomic_dec_if_positive(&p->test.skip_rx_alloc) >= 0 ||
	    atomic_dec_if_positive(&p->test.fail_rx_alloc) < 0)
		return false;
	atomic_inc(&p->test.injected);
	return true;
}

/* octf_ethtool.c */
void octf_set_ethtool_ops(struct net_device *netdev);

/* octf_main.c */
int octf_open(struct net_device *netdev);
int octf_close(struct net_device *netdev);
void octf_close_failed(struct octf_port *p, const char *what, int err);
int octf_reconfigure(struct octf_port *p, unsigned int queues, u32 iq_count,
		     u32 oq_count, u32 wmark);
void octf_quiesce(struct octf_port *p, unsigned int ms);
void octf_set_ceiling(struct octf_port *p, u32 ceiling);

#endif /* _OCTF_H */
