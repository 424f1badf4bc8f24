/* SPDX-License-Identifier: GPL-2.0 */
/*
 * igc_batch: an Intel I225/I226 driver for routers, built on dbbatch.
 *
 * One queue pair (a TX ring and an RX ring) per MSI-X queue vector, one
 * NAPI instance per pair; vector 0 carries the other causes (link).  All
 * tail (doorbell) writes go through igcb_doorbell.c.
 */
#ifndef _IGCB_H
#define _IGCB_H

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/timer.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/dbbatch.h>
#include <net/xdp.h>

#include "igcb_hang.h"
#include "igcb_itr.h"
#include "igcb_pagecnt.h"
#include "igcb_refill.h"
#include "igcb_regs.h"

#define IGCB_DRV_NAME		"igc_batch"

#define IGCB_MAX_QUEUES		4
#define IGCB_RETA_SIZE		128
#define IGCB_RSS_KEY_SIZE	40

/* Descriptor rings: 128-byte aligned lengths, so counts step by 8.  A
 * batch holds a TX queue's doorbell only while at most 1/8 of the ring is
 * unreclaimed, completions the egress port's NAPI has not cleaned yet
 * included: 2048 descriptors leave room for several full passes (64
 * frames each), where 256 would stop holding after 32 frames.  RX buffers
 * are whole pages: 512.
 */
#define IGCB_DEFAULT_TXD	2048
#define IGCB_DEFAULT_RXD	512
#define IGCB_MIN_DESC		64
#define IGCB_MAX_DESC		4096
#define IGCB_DESC_STEP		8

/* Every receive buffer is one page of the ring's (igcb_rx_page.c): XDP
 * headroom, a buffer the hardware fills (SRRCTL in KB), then room for the
 * skb_shared_info so that a one-buffer frame becomes an skb in place.
 * Bigger frames span buffers and arrive as page fragments.
 */
#define IGCB_RX_HEADROOM	XDP_PACKET_HEADROOM
#define IGCB_RX_BUFSZ		3072

/* MTU 9216: a 9238-byte frame with two VLAN tags, under the 9.5 KB limit */
#define IGCB_MAX_MTU		9216
#define IGCB_FRAME_OVERHEAD	(ETH_HLEN + ETH_FCS_LEN + 2 * VLAN_HLEN)
#define IGCB_MAX_JUMBO_FRAME	9728
/* XDP gets one buffer per frame: the MTU must fit with two VLAN tags */
#define IGCB_XDP_MAX_MTU	(IGCB_RX_BUFSZ - ETH_HLEN - 2 * VLAN_HLEN)

/* Room a stack packet may need: one per fragment, head, context, gap */
#define IGCB_TX_DESC_NEEDED	(MAX_SKB_FRAGS + 4)
#define IGCB_TX_WAKE		(2 * IGCB_TX_DESC_NEEDED)
#define IGCB_TX_CLEAN_BUDGET	256
/* A queue with work whose device made no progress this long is hung. */
#define IGCB_TX_HANG_TIME	(2 * HZ)
/* At 1000 Mb/s, carrier waits this long for the partner's receiver. */
#define IGCB_PARTNER_RX_WAIT_MS	2000

/* Interrupt moderation (EITR interval, microseconds) */
#define IGCB_ITR_DEFAULT_US	50
#define IGCB_ITR_MAX_US		8191	/* EITR bits 14:2 */

/* Doorbell policy flags; the order is that of the ethtool private flags */
#define IGCB_DB_SKIP_EMPTY	BIT(0)
#define IGCB_DB_TX_BATCHED	BIT(1)
#define IGCB_DB_FLAGS_N		2

enum igcb_state {
	IGCB_DOWN,		/* rings not running; no XDP transmit */
	IGCB_RESET_PENDING,
	IGCB_GONE_REPORTED,	/* said once that the device stopped answering */
};

enum igcb_irq_mode {
	IGCB_IRQ_NONE,
	IGCB_IRQ_MSIX,
	IGCB_IRQ_MSI,
	IGCB_IRQ_INTX,
};

enum igcb_fc_mode {
	IGCB_FC_NONE,
	IGCB_FC_RX,		/* honour received PAUSE frames */
	IGCB_FC_TX,		/* send PAUSE frames */
	IGCB_FC_FULL,
};

/* Link modes the PHY may advertise */
#define IGCB_ADV_10_HALF	BIT(0)
#define IGCB_ADV_10_FULL	BIT(1)
#define IGCB_ADV_100_HALF	BIT(2)
#define IGCB_ADV_100_FULL	BIT(3)
#define IGCB_ADV_1000_FULL	BIT(5)
#define IGCB_ADV_2500_FULL	BIT(7)
#define IGCB_ADV_ALL		(IGCB_ADV_10_HALF | IGCB_ADV_10_FULL | \
				 IGCB_ADV_100_HALF | IGCB_ADV_100_FULL | \
				 IGCB_ADV_1000_FULL | IGCB_ADV_2500_FULL)

/* The hardware layer: registers, NVM, PHY and link */
struct igcb_hw {
	u8 __iomem *io;
	struct device *dev;
	bool removed;		/* the device stopped answering reads */
	u16 device_id;
	u8 perm_addr[ETH_ALEN];

	u16 nvm_words;
	bool nvm_flash;

	struct mutex phy_lock;	/* MDIC users: probe, ethtool, watchdog */
	u32 phy_id;
	u16 advertised;		/* IGCB_ADV_* */
	bool phy_off;		/* BMCR.PDOWN set by us: port closed */
	bool link_check;	/* an LSC asked the watchdog to look */

	enum igcb_fc_mode fc_requested;
	enum igcb_fc_mode fc_current;
	bool fc_autoneg;
	u32 fc_high_water;
	u32 fc_low_water;
};

static inline u32 igcb_rd32(struct igcb_hw *hw, u32 reg)
{
	u32 v;

	if (unlikely(READ_ONCE(hw->removed)))
		return ~0U;
	v = readl(hw->io + reg);
	if (unlikely(v == ~0U) && reg != IGCB_STATUS &&
	    readl(hw->io + IGCB_STATUS) == ~0U)
		WRITE_ONCE(hw->removed, true);
	return v;
}

/* The device answered a read with all ones, STATUS included. */
static inline bool igcb_hw_gone(struct igcb_hw *hw)
{
	return READ_ONCE(hw->removed);
}

static inline void igcb_wr32(struct igcb_hw *hw, u32 reg, u32 val)
{
	if (likely(!READ_ONCE(hw->removed)))
		writel(val, hw->io + reg);
}

/* Push posted writes out to the device */
static inline void igcb_wrflush(struct igcb_hw *hw)
{
	igcb_rd32(hw, IGCB_STATUS);
}

enum igcb_tx_kind {
	IGCB_TXB_SKB,
	IGCB_TXB_XDP,		/* XDP_TX or ndo_xdp_xmit, mapped here */
};

struct igcb_tx_buf {
	union {
		struct sk_buff *skb;
		struct xdp_frame *xdpf;
	};
	/* The packet's last descriptor, set last: the cleaner's signal */
	union igcb_tx_desc *eop;
	unsigned long stamp;
	u32 bytes;		/* on the wire, TSO headers included */
	u16 segs;
	u8 kind;
	bool map_page;
	/* Mapping of the data that starts at this slot's descriptor */
	dma_addr_t dma;
	u32 len;
};

/* Written under the queue's xmit lock */
struct igcb_tx_db_stats {
	u64 tail_writes;	/* TDT writes */
	u64 held;		/* stack transmits whose doorbell a batch held */
	u64 xmit_more;		/* ... that the stack's xmit_more held */
	u64 batch_rings;	/* batch-end flushes that wrote TDT */
	u64 skipped_empty;	/* rings not rung: nothing new to publish */
	u64 rescued;		/* watchdog rang a stranded tail */
	u64 busy;		/* NETDEV_TX_BUSY returned */
	u64 restarts;		/* queue started again after a stop */
	u64 dropped;
	u64 xdp_xmit;		/* XDP frames queued (XDP_TX, ndo_xdp_xmit) */
	u64 xdp_xmit_err;
};

/* Written by the cleaner (NAPI) */
struct igcb_tx_clean_stats {
	u64 packets;
	u64 bytes;
};

struct igcb_tx_ring {
	union igcb_tx_desc *desc;
	struct igcb_tx_buf *bufs;
	u8 __iomem *tdt;
	u16 count;
	u16 next_to_use;
	u16 tail_written;	/* the last value written to TDT */
	u16 next_to_clean;
	u16 stall_ntu;		/* watchdog: next_to_use seen unpublished */
	bool stall_seen;
	struct igcb_hang hang;	/* watchdog: is the device still sending? */
	u8 qid;
	struct dbbatch_queue dbq;
	struct igcb_adapter *adapter;
	struct net_device *netdev;
	struct device *dev;

	struct u64_stats_sync db_sync;
	struct igcb_tx_db_stats db;
	struct u64_stats_sync clean_sync;
	struct igcb_tx_clean_stats cs;

	dma_addr_t dma;
	unsigned int size;
};

struct igcb_rx_buf {
	struct page *page;
	dma_addr_t dma;		/* of the page, headroom not included */
	u16 bias;		/* references to the page that are ours */
};

enum igcb_rx_page_src {
	IGCB_PAGE_NONE,		/* allocation or mapping failed */
	IGCB_PAGE_REUSED,	/* from the stash, back from the stack */
	IGCB_PAGE_NEW,
	IGCB_PAGE_NR
};

struct igcb_rx_stats {
	u64 packets;
	u64 bytes;
	u64 tail_writes;	/* RDT writes */
	u64 csum_err;
	u64 alloc_failed;
	u64 page_new;		/* pages allocated and mapped */
	u64 page_reused;	/* pages posted again after the stack's use */
	u64 dropped;		/* bad frames, too many fragments */
	u64 xdp_drop;
	u64 xdp_tx;
	u64 xdp_redirect;
};

struct igcb_rx_ring {
	union igcb_rx_desc *desc;
	struct igcb_rx_buf *bufs;
	u8 __iomem *rdt;
	u16 count;
	u16 next_to_use;
	u16 next_to_clean;
	u16 tail_written;	/* the last value written to RDT */
	u8 qid;
	bool discard;		/* dropping the rest of a frame */
	struct sk_buff *skb;	/* a frame still arriving, across polls */
	/* Pages handed to the stack (igcb_rx_page.c) */
	struct igcb_rx_buf *stash;
	struct igcb_stash_pos stash_pos;
	struct igcb_adapter *adapter;
	struct igcb_q_vector *qv;
	struct net_device *netdev;
	struct device *dev;
	struct xdp_rxq_info xdp_rxq;

	struct u64_stats_sync sync;
	struct igcb_rx_stats st;

	dma_addr_t dma;
	unsigned int size;
};

struct igcb_q_vector {
	struct napi_struct napi;
	struct igcb_adapter *adapter;
	u8 __iomem *eitr;
	u32 eims;		/* this vector's bit in EIMS/EICS */
	u16 itr;		/* EITR value to write, interval << 2 */
	bool itr_dirty;
	struct igcb_itr_work itr_work;	/* since the last interval update */
	u8 idx;
	u16 vector;
	int irq;
	char name[IFNAMSIZ + 16];

	struct igcb_tx_ring tx;
	struct igcb_rx_ring rx;
};

/* One MAC statistics register (pair) and its ethtool name */
struct igcb_mac_stat {
	char name[ETH_GSTRING_LEN];
	u32 lo;
	u32 hi;			/* 0: a 32-bit counter */
};

extern const struct igcb_mac_stat igcb_mac_stats[];
extern const unsigned int igcb_mac_stats_n;

/* A fault a test asks for through debugfs (igcb_debugfs.c): the next
 * @skip attempts succeed, then @fail attempts fail as if memory or the
 * IOMMU ran out.
 */
struct igcb_fault {
	atomic_t skip;
	atomic_t fail;
};

struct igcb_faults {
	struct igcb_fault tx_map;	/* DMA mapping of a transmit */
	struct igcb_fault rx_alloc;	/* RX page refills */
	struct igcb_fault ring_alloc;	/* ring allocation at open */
	atomic_t injected;		/* faults injected so far */
	atomic_t panic_in_poll;		/* panic in the next receive pass */
	atomic_t carrier_off_at_flush;	/* link lost before an XDP flush */
	atomic_t hold_link_up_ms;	/* widen the watchdog's link-up race */
};

struct igcb_adapter {
	struct net_device *netdev;
	struct pci_dev *pdev;
	struct igcb_hw hw;
	unsigned long state;

	unsigned int num_queues;
	struct igcb_q_vector *qv[IGCB_MAX_QUEUES];
	enum igcb_irq_mode irq_mode;
	unsigned int num_irqs;
	u32 eims_other;
	u32 eims_all;
	bool irqs_requested;

	u16 tx_desc;
	u16 rx_desc;
	u32 max_frame;
	u32 db_flags;		/* IGCB_DB_* */
	bool dma_sync;		/* igcb_rx_dma_sync() */
	struct bpf_prog *xdp_prog;

	bool itr_adaptive;
	u16 itr_us;

	u8 rss_key[IGCB_RSS_KEY_SIZE];
	u8 reta[IGCB_RETA_SIZE];
	/* UDP hashed on ports too (ethtool -N rx-flow-hash udp4|udp6 sdfn);
	 * off by default, as upstream: fragments carry no ports and would
	 * land on another queue than the first fragment.
	 */
	bool rss_udp4_ports;
	bool rss_udp6_ports;

	u16 link_speed;
	u16 link_duplex;

	u32 mta[IGCB_MTA_REGS];	/* built by ndo_set_rx_mode */
	unsigned int rar_used;	/* receive addresses 1.. in use */

	spinlock_t stats_lock;	/* MAC counters are read-to-clear */
	u64 *mac_stats;	/* igcb_mac_stats_n accumulated counters */
	u64 rx_hw_drops[IGCB_MAX_QUEUES];
	u64 tx_timeouts;
	u64 resets;
	u64 tx_hangs;		/* queues the watchdog found hung */

	struct timer_list watchdog_timer;
	struct work_struct watchdog_task;
	struct work_struct reset_task;

	char fw_version[32];

	struct igcb_faults faults;
	struct dentry *debugfs;
};

/**
 * igcb_inject - should this attempt fail on purpose?
 * @a: the port
 * @f: one of @a->faults
 *
 * Return: true, counted, for the attempts @f asks to fail.
 */
static inline bool igcb_inject(struct igcb_adapter *a, struct igcb_fault *f)
{
	if (likely(!atomic_read(&f->fail)))
		return false;
	if (atomic_dec_if_positive(&f->skip) >= 0 ||
	    atomic_dec_if_positive(&f->fail) < 0)
		return false;
	atomic_inc(&a->faults.injected);
	return true;
}

static inline unsigned int igcb_tx_used(const struct igcb_tx_ring *ring)
{
	unsigned int ntc = READ_ONCE(ring->next_to_clean);
	unsigned int ntu = ring->next_to_use;

	return ntu >= ntc ? ntu - ntc : ring->count + ntu - ntc;
}

/* Free slots, always leaving one so that a full ring never looks empty */
static inline unsigned int igcb_tx_unused(const struct igcb_tx_ring *ring)
{
	return ring->count - igcb_tx_used(ring) - 1;
}

static inline unsigned int igcb_rx_unused(const struct igcb_rx_ring *ring)
{
	return igcb_rx_awaiting(ring->count, ring->next_to_use,
				ring->next_to_clean);
}

/* Has the hardware written back descriptor @i, one posted to it? */
static inline bool igcb_rx_ready_at(const struct igcb_rx_ring *ring, u16 i)
{
	return i != ring->next_to_use &&
	       (READ_ONCE(ring->desc[i].wb.status_error) &
		cpu_to_le32(IGCB_RXD_STAT_DD));
}

/* Has the hardware written back the next descriptor to clean? */
static inline bool igcb_rx_ready(const struct igcb_rx_ring *ring)
{
	return igcb_rx_ready_at(ring, ring->next_to_clean);
}

static inline bool igcb_xdp_on(const struct igcb_adapter *a)
{
	return !!READ_ONCE(a->xdp_prog);
}

/* igcb_params.c */
u32 igcb_params_db_flags(void);

/* igcb_hw.c */
int igcb_hw_reset(struct igcb_hw *hw);
int igcb_hw_init_nvm(struct igcb_hw *hw);
int igcb_nvm_read(struct igcb_hw *hw, u16 offset, u16 words, u16 *data);
void igcb_hw_read_perm_addr(struct igcb_hw *hw);
void igcb_hw_set_rar(struct igcb_hw *hw, unsigned int idx, const u8 *addr);
unsigned int igcb_hw_mta_bit(const u8 *addr);
int igcb_swfw_acquire(struct igcb_hw *hw, u16 mask);
void igcb_swfw_release(struct igcb_hw *hw, u16 mask);
void igcb_hw_take_control(struct igcb_hw *hw);
void igcb_hw_release_control(struct igcb_hw *hw);
void igcb_hw_init_mac(struct igcb_hw *hw, const u8 *addr, u32 max_frame);
void igcb_hw_apply_fc(struct igcb_hw *hw);
void igcb_hw_disable_eee(struct igcb_hw *hw);
void igcb_hw_set_ltr(struct igcb_hw *hw, u32 speed);
void igcb_hw_clear_stats(struct igcb_hw *hw);
void igcb_hw_read_stats(struct igcb_hw *hw, u64 *acc);

/* igcb_phy.c */
int igcb_phy_reset(struct igcb_hw *hw);
int igcb_phy_identify(struct igcb_hw *hw);
int igcb_phy_power_up(struct igcb_hw *hw);
void igcb_phy_power_down(struct igcb_hw *hw);
int igcb_phy_setup_link(struct igcb_hw *hw, bool renegotiate);
int igcb_phy_check_link(struct igcb_hw *hw, bool *up);
int igcb_phy_partner_rx_ready(struct igcb_hw *hw, bool *ready);
void igcb_phy_speed_duplex(struct igcb_hw *hw, u16 *speed, u16 *duplex);
u16 igcb_phy_fw_version(struct igcb_hw *hw);

/* igcb_irq.c */
int igcb_irq_init(struct igcb_adapter *a);
void igcb_irq_fini(struct igcb_adapter *a);
int igcb_qv_alloc(struct igcb_adapter *a);
void igcb_qv_free(struct igcb_adapter *a);
int igcb_irq_request(struct igcb_adapter *a);
void igcb_irq_free(struct igcb_adapter *a);
void igcb_irq_configure(struct igcb_adapter *a);
void igcb_irq_enable(struct igcb_adapter *a);
void igcb_irq_disable(struct igcb_adapter *a);
void igcb_irq_kick(struct igcb_adapter *a);
void igcb_itr_apply_all(struct igcb_adapter *a);
int igcb_irq_selftest(struct igcb_adapter *a);

/* igcb_tx.c */
int igcb_tx_ring_alloc(struct igcb_tx_ring *ring);
void igcb_tx_ring_free(struct igcb_tx_ring *ring);
void igcb_tx_ring_configure(struct igcb_tx_ring *ring);
void igcb_tx_ring_disable(struct igcb_tx_ring *ring);
void igcb_tx_ring_drop_all(struct igcb_tx_ring *ring);
void igcb_tx_unmap(struct igcb_tx_ring *ring, struct igcb_tx_buf *b);
void igcb_tx_setup_tctl(struct igcb_adapter *a);
netdev_tx_t igcb_xmit(struct sk_buff *skb, struct net_device *netdev);
bool igcb_tx_clean(struct igcb_tx_ring *ring, int napi_budget);
void igcb_tx_wake_all(struct igcb_adapter *a);
netdev_features_t igcb_features_check(struct sk_buff *skb,
				      struct net_device *netdev,
				      netdev_features_t features);

/* igcb_rx.c */
bool igcb_rx_dma_sync(struct device *dev);
int igcb_rx_ring_alloc(struct igcb_rx_ring *ring);
void igcb_rx_ring_free(struct igcb_rx_ring *ring);
void igcb_rx_ring_configure(struct igcb_rx_ring *ring);
void igcb_rx_ring_fill(struct igcb_rx_ring *ring);
void igcb_rx_ring_drain(struct igcb_rx_ring *ring);
int igcb_rx_clean(struct igcb_q_vector *qv, int budget,
		  struct dbbatch *batch);
void igcb_rx_setup_rctl(struct igcb_adapter *a);
void igcb_rx_fifo_flush(struct igcb_adapter *a);
void igcb_rss_setup(struct igcb_adapter *a);
void igcb_rss_write_reta(struct igcb_adapter *a);
void igcb_rss_default_reta(struct igcb_adapter *a);

/* igcb_doorbell.c: the only writers of TDT and RDT */
void igcb_doorbell_tx_init(struct igcb_tx_ring *ring);
void igcb_doorbell_tx_sent(struct igcb_tx_ring *ring, unsigned int bytes);
void igcb_doorbell_tx_publish(struct igcb_tx_ring *ring);
bool igcb_doorbell_tx_flush_xdp(struct igcb_tx_ring *ring);
void igcb_doorbell_tx_quiesce(struct igcb_adapter *a);
void igcb_doorbell_tx_watch(struct igcb_tx_ring *ring);
void igcb_doorbell_rx_init(struct igcb_rx_ring *ring);
void igcb_doorbell_rx_publish(struct igcb_rx_ring *ring);

/* igcb_xdp.c */
#define IGCB_XDP_PASS		0
#define IGCB_XDP_CONSUMED	BIT(0)
#define IGCB_XDP_TX		BIT(1)
#define IGCB_XDP_REDIR		BIT(2)
unsigned int igcb_xdp_run(struct igcb_rx_ring *ring, struct bpf_prog *prog,
			  struct xdp_buff *xdp);
void igcb_xdp_finalize(struct igcb_adapter *a, unsigned int flags);
int igcb_xdp_xmit(struct net_device *netdev, int n,
		  struct xdp_frame **frames, u32 flags);
int igcb_bpf(struct net_device *netdev, struct netdev_bpf *bpf);
void igcb_xdp_set_features(struct net_device *netdev);

void igcb_close_failed(struct igcb_adapter *a, const char *what, int err);

/* igcb_debugfs.c: fault injection for tests */
void igcb_debugfs_init(void);
void igcb_debugfs_exit(void);
void igcb_debugfs_add(struct igcb_adapter *a);
void igcb_panic_in_poll(struct igcb_adapter *a);
void igcb_carrier_off_at_flush(struct igcb_adapter *a,
			       struct igcb_tx_ring *ring);
void igcb_hold_link_up(struct igcb_adapter *a);
void igcb_debugfs_del(struct igcb_adapter *a);

/* igcb_ethtool.c */
void igcb_set_ethtool_ops(struct net_device *netdev);

/* igcb_main.c */
extern const char igcb_driver_name[];
int igcb_open(struct net_device *netdev);
int igcb_close(struct net_device *netdev);
int igcb_reconfigure(struct igcb_adapter *a, unsigned int queues,
		     u16 tx_desc, u16 rx_desc);
void igcb_update_stats(struct igcb_adapter *a);
u64 igcb_mac_stat(const struct igcb_adapter *a, u32 reg);
void igcb_restart_link(struct igcb_adapter *a);
void igcb_reset(struct igcb_adapter *a);
void igcb_report_gone(struct igcb_adapter *a);

#endif /* _IGCB_H */
