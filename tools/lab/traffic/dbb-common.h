/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dbb-common.h - what dbb-gen and dbb-sink share: the test frame layout,
 * loopback-only address parsing, clocks, small helpers.
 *
 * Frame (datagram = one Ethernet frame without FCS, as QEMU's -netdev dgram
 * carries it; 60 bytes for a 64-byte frame on the wire):
 *
 *   0  Ethernet  dst MAC(6) src MAC(6) type 0x0800
 *  14  IPv4      20 bytes, no options, TTL 64, DF clear, ID 0, valid checksum
 *  34  UDP       sport, dport, length, checksum (0, or valid with --udp-csum)
 *  42  payload   DBB_PAYLOAD_LEN (18) bytes, little-endian fields:
 *        +0  u16 magic     DBB_MAGIC (0xDBB7)
 *        +2  u8  step      step id, 0..254
 *        +3  u24 flow      flow id, 0..DBB_FLOW_MAX; DBB_FLOW_MARKER marks
 *                          an end-of-step marker frame
 *        +6  u32 flow_seq  per-flow sequence number (data frames; run-wide)
 *                          marker: data frames the step offered (its count)
 *       +10  u32 seq       global sequence number, low 32 bits (data frames)
 *                          marker: global seq of the step's first frame
 *       +14  u32 ts        CLOCK_MONOTONIC ns at send, low 32 bits
 *  60  padding (zeros) up to --size - 4
 */
#ifndef DBB_COMMON_H
#define DBB_COMMON_H

#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <netinet/in.h>

#define DBB_MAGIC		0xDBB7u
#define DBB_ETH_LEN		14
#define DBB_IP_LEN		20
#define DBB_UDP_LEN		8
#define DBB_HDR_LEN		(DBB_ETH_LEN + DBB_IP_LEN + DBB_UDP_LEN)
#define DBB_PAYLOAD_LEN		18
#define DBB_MIN_DGRAM		(DBB_HDR_LEN + DBB_PAYLOAD_LEN)	/* 60 */
#define DBB_FCS_LEN		4
#define DBB_MIN_SIZE		(DBB_MIN_DGRAM + DBB_FCS_LEN)	/* 64 */
#define DBB_MAX_SIZE		9018	/* jumbo frame incl. FCS */
#define DBB_FLOW_MARKER		0xFFFFFFu
#define DBB_FLOW_MAX		(DBB_FLOW_MARKER - 1)
#define DBB_MAX_STEPS		255
#define DBB_TTL			64

/* Payload field offsets, relative to the payload (byte 42 of the frame). */
#define DBB_P_MAGIC	0
#define DBB_P_STEP	2
#define DBB_P_FLOW	3
#define DBB_P_FSEQ	6
#define DBB_P_SEQ	10
#define DBB_P_TS	14

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v; p[1] = v >> 8;
}

static inline void put_le24(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le24(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8; p[1] = v;
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One's-complement sum of LEN bytes (big-endian 16-bit words), unfolded. */
static inline uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len > 1) {
		sum += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Parse "127.x.y.z:PORT" into SA.  Only loopback (127.0.0.0/8) is accepted:
 * these tools never send to or bind any other address.  Returns 0 or -1
 * with a message on stderr.  PORT 0 is allowed only if ALLOW_ANY_PORT.
 */
int dbb_parse_loopback(const char *s, struct sockaddr_in *sa,
		       bool allow_any_port, const char *what);
int dbb_parse_mac(const char *s, uint8_t mac[6]);
int dbb_parse_ipv4(const char *s, uint32_t *host_order);
/* Parse an unsigned integer with optional k/M/G (10^3) suffix. */
int dbb_parse_u64(const char *s, uint64_t *v);
/* --NAME's value S as a number in MIN..MAX, or exit 2 naming PROG. */
uint64_t dbb_need_u64(const char *prog, const char *name, const char *s,
		      uint64_t min, uint64_t max);

/* A hint to the CPU inside a spin loop. */
static inline void dbb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}
int dbb_pin_cpu(int cpu);
/*
 * Set to 1 by SIGINT or SIGTERM once dbb_catch_stop() ran.  The handler has
 * no SA_RESTART: a blocking recvmmsg/clock_nanosleep returns EINTR, so the
 * loop around it sees the flag.
 */
extern volatile sig_atomic_t dbb_stop;
void dbb_catch_stop(void);
/*
 * The socket buffer FORCE_NAME (SO_SNDBUFFORCE/SO_RCVBUFFORCE: above the
 * sysctl limit, needs CAP_NET_ADMIN), else NAME (SO_SNDBUF/SO_RCVBUF), to
 * BYTES.  Returns setsockopt's result for NAME if FORCE_NAME failed.
 */
int dbb_set_sockbuf(int fd, int force_name, int name, int bytes);
void dbb_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
