// SPDX-License-Identifier: GPL-2.0
/*
 * dbb-gen - send test Ethernet frames as UDP datagrams to a QEMU
 * "-netdev dgram" port over loopback: IPv4/UDP, many flows, exact packet
 * counts per rate step, paced, with an end-of-step marker the sink uses to
 * report exact loss.  See README.md for the frame layout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <netinet/udp.h>

#include "dbb-common.h"

#define MAX_BATCH 1024

struct step {
	uint64_t pps;		/* 0: as fast as possible */
	uint64_t count;		/* frames offered */
};

static struct {
	struct sockaddr_in to, from;
	bool have_from;
	uint8_t dst_mac[6], src_mac[6];
	unsigned int size;	/* on the wire, incl. FCS; 0: imix */
	uint32_t flows;
	uint32_t src_ip, dst_ip, dst_ip_count;
	uint32_t sport, sport_count, dport;
	struct step steps[DBB_MAX_STEPS];
	unsigned int nsteps;
	unsigned int batch, burst;
	uint64_t spin_ns;
	uint64_t step_gap_ns, marker_delay_ns;
	unsigned int markers;
	uint64_t drop_every, dup_every, swap_every;
	unsigned int gso_segs;
	bool udp_csum, json, quiet;
	int cpu;
	int sndbuf;
} opt = {
	.dst_mac = { 0x52, 0x54, 0x00, 0xdb, 0xb0, 0x00 },
	.src_mac = { 0x02, 0x00, 0x00, 0xdb, 0xb0, 0x01 },
	.size = DBB_MIN_SIZE,
	.flows = 99328,
	.dst_ip_count = 1,
	.sport = 1024,
	.sport_count = 1024,
	.dport = 9,
	.batch = 64,
	.spin_ns = 20000,
	.marker_delay_ns = 500000,
	.markers = 8,
	.cpu = -1,
	.gso_segs = 64,
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: dbb-gen --to 127.0.0.1:PORT [options]\n"
"  --to A:P             destination (QEMU dgram netdev's local address)\n"
"  --from A:P           bind the sending socket here (default: any port)\n"
"  --dst-mac M          frame destination MAC (default 52:54:00:db:b0:00)\n"
"  --src-mac M          frame source MAC (default 02:00:00:db:b0:01)\n"
"  --size B             frame size on the wire incl. 4-byte FCS (default 64;\n"
"                       the datagram is B-4 bytes), 64..9018, or imix: the\n"
"                       simple IMIX, 7 x 64, 4 x 594, 1 x 1518 bytes in a\n"
"                       fixed order of 12 (mean 361.8; no GSO; JSON size 0)\n"
"  --flows N            flows (default 99328)\n"
"  --src-ip A           first source IP (default 10.0.0.1)\n"
"  --dst-ip A           first destination IP (default 10.1.0.1)\n"
"  --dst-ip-count N     destination IPs used (default 1)\n"
"  --sport P            first UDP source port (default 1024)\n"
"  --sport-count N      source ports per source IP (default 1024)\n"
"  --dport P            UDP destination port (default 9)\n"
"  --udp-csum           fill a valid UDP checksum (default 0 = none)\n"
"  --pps R              one step at R frames/s (0 = as fast as possible)\n"
"  --steps R1,R2,...    rate steps in frames/s (k/M suffixes ok)\n"
"  --count N            frames offered per step\n"
"  --step-seconds S     per step: count = rate * S (S may be fractional)\n"
"  --step-gap-ms G      idle time between steps (default 0)\n"
"  --markers K          end-of-step marker copies (default 8)\n"
"  --marker-delay-us U  pause before the first marker copy (default 500);\n"
"                       it doubles before each next copy, up to 64 U\n"
"  --batch N            frames per sendmmsg (default 64, max %d)\n"
"  --burst N            frames sent back to back when paced\n"
"                       (default rate/5000 in 1..batch: a burst per 200 us)\n"
"  --spin-us U          sleep until U us before a burst, then spin (default 20)\n"
"  --cpu N              pin to CPU N\n"
"  --sndbuf BYTES       SO_SNDBUF\n"
"  --gso N              UDP GSO: up to N frames per send (default 64,\n"
"                       0 = one datagram per message; the receiver sees\n"
"                       ordinary datagrams either way)\n"
"  --drop-every N       TESTING: skip the send of every Nth frame (it keeps\n"
"                       its sequence numbers and counts as offered)\n"
"  --dup-every N        TESTING: send every Nth frame twice\n"
"  --swap-every N       TESTING: send every Nth frame after the next one\n"
"                       (within a burst)\n"
"  --json               one JSON line per step and one for the run\n"
"  --quiet              no text lines\n", MAX_BATCH);
}

/* ---- /proc counters, read once per step (whole network namespace) ---- */

static int64_t udp_rcvbuf_errors(void)
{
	FILE *f = fopen("/proc/net/snmp", "r");
	char hdr[1024], val[1024];
	int64_t r = -1;

	if (!f)
		return -1;
	while (fgets(hdr, sizeof(hdr), f)) {
		char *h, *v, *hs, *vs;
		int i;

		if (strncmp(hdr, "Udp:", 4) || !fgets(val, sizeof(val), f))
			continue;
		h = strtok_r(hdr, " \n", &hs);
		v = strtok_r(val, " \n", &vs);
		for (i = 0; h && v; i++) {
			if (!strcmp(h, "RcvbufErrors")) {
				r = strtoll(v, NULL, 10);
				break;
			}
			h = strtok_r(NULL, " \n", &hs);
			v = strtok_r(NULL, " \n", &vs);
		}
		break;
	}
	fclose(f);
	return r;
}

static int64_t backlog_drops(void)
{
	FILE *f = fopen("/proc/net/softnet_stat", "r");
	char line[512];
	int64_t r = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int processed, dropped;

		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			r += dropped;
	}
	fclose(f);
	return r;
}

/* ---- frames ---- */

struct flow_tuple {
	uint32_t src, dst;	/* host order */
	uint16_t sport, dport;
};

static void flow_tuple(uint32_t flow, struct flow_tuple *t)
{
	uint32_t hi = flow / opt.sport_count;

	t->sport = (uint16_t)(opt.sport + flow % opt.sport_count);
	t->src = opt.src_ip + hi;
	t->dst = opt.dst_ip + hi % opt.dst_ip_count;
	t->dport = (uint16_t)opt.dport;
}

/*
 * --size imix: the simple IMIX (7:4:1 of 64, 594 and 1518 bytes), frame g
 * taking imix[g % 12], so every run and every flow sees the same mix.
 */
#define IMIX_MAX_SIZE	1518
static const unsigned short imix[12] = {
	64, 594, 64, 64, 594, 64, IMIX_MAX_SIZE, 64, 594, 64, 594, 64,
};

/* Frame g's datagram length (its size on the wire less the FCS). */
static unsigned int frame_len(uint64_t g)
{
	return (opt.size ? opt.size : imix[g % 12]) - DBB_FCS_LEN;
}

/* The longest datagram: a buffer slot's size. */
static unsigned int dgram_len(void)
{
	return (opt.size ? opt.size : IMIX_MAX_SIZE) - DBB_FCS_LEN;
}

/* Constant part of a frame: Ethernet header and fixed IPv4/UDP fields. */
static void frame_template(uint8_t *f)
{
	uint8_t *ip = f + DBB_ETH_LEN;

	memset(f, 0, dgram_len());
	memcpy(f, opt.dst_mac, 6);
	memcpy(f + 6, opt.src_mac, 6);
	put_be16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[8] = DBB_TTL;
	ip[9] = 17;
	put_le16(f + DBB_HDR_LEN + DBB_P_MAGIC, DBB_MAGIC);
}

/*
 * Per-frame fields: lengths (LEN, the datagram's), addresses, checksums,
 * payload.  A slot is zero past the payload whatever length it carried
 * before (only the header and payload are ever written).
 */
static void frame_fill(uint8_t *f, unsigned int len,
		       const struct flow_tuple *t, uint8_t step, uint32_t flow,
		       uint32_t fseq, uint32_t seq, uint32_t ts)
{
	uint8_t *ip = f + DBB_ETH_LEN, *udp = ip + DBB_IP_LEN;
	uint8_t *pl = udp + DBB_UDP_LEN;
	uint32_t sum;

	put_be16(ip + 2, (uint16_t)(len - DBB_ETH_LEN));
	put_be16(udp + 4, (uint16_t)(len - DBB_ETH_LEN - DBB_IP_LEN));
	put_be16(ip + 12, (uint16_t)(t->src >> 16));
	put_be16(ip + 14, (uint16_t)t->src);
	put_be16(ip + 16, (uint16_t)(t->dst >> 16));
	put_be16(ip + 18, (uint16_t)t->dst);
	put_be16(ip + 10, 0);
	put_be16(ip + 10, csum_fold(csum_add(0, ip, DBB_IP_LEN)));

	put_be16(udp, t->sport);
	put_be16(udp + 2, t->dport);
	pl[DBB_P_STEP] = step;
	put_le24(pl + DBB_P_FLOW, flow);
	put_le32(pl + DBB_P_FSEQ, fseq);
	put_le32(pl + DBB_P_SEQ, seq);
	put_le32(pl + DBB_P_TS, ts);

	put_be16(udp + 6, 0);
	if (opt.udp_csum) {
		uint16_t ulen = get_be16(udp + 4), c;

		/* pseudo header; the padding after the payload is zero */
		sum = csum_add(0, ip + 12, 8);
		sum += 17 + ulen;
		sum = csum_add(sum, udp, DBB_UDP_LEN + DBB_PAYLOAD_LEN);
		c = csum_fold(sum);
		put_be16(udp + 6, c ? c : 0xffff);
	}
}

/* ---- pacing and sending ---- */

/* Wait until DUE: sleep while far away, spin the last spin_ns. */
static uint64_t wait_until(uint64_t due)
{
	uint64_t t = now_ns();

	if (t >= due)
		return t;
	if (due - t > opt.spin_ns) {
		uint64_t wake = due - opt.spin_ns;
		struct timespec ts = {
			.tv_sec = (time_t)(wake / 1000000000ull),
			.tv_nsec = (long)(wake % 1000000000ull),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
		       EINTR && !dbb_stop)
			;
	}
	while ((t = now_ns()) < due && !dbb_stop)
		dbb_cpu_relax();
	return t;
}

static int fd;
/*
 * order[]: the frames of one burst in send order (twice the batch:
 * --dup-every may send a frame twice); each msgs[] entry sends one frame,
 * or with UDP GSO up to gso_segs consecutive ones.
 */
static struct iovec order[2 * MAX_BATCH];
static bool is_dup[2 * MAX_BATCH];
static struct mmsghdr msgs[2 * MAX_BATCH];
static unsigned int msg_frames[2 * MAX_BATCH];
static unsigned int gso_segs;	/* 0: no GSO */
static uint8_t *bufs;
static uint64_t send_errors, send_retries;

static uint8_t *slot(unsigned int i)
{
	return bufs + (size_t)i * dgram_len();
}

static void gso_off(void)
{
	int zero = 0;

	gso_segs = 0;
	setsockopt(fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
}

/*
 * Send order[start..m); returns frames the kernel accepted.  EINTR, EAGAIN
 * and ENOBUFS are retried (counted in send_retries, at most 100,000 times
 * per call); any other error abandons the rest (counted per frame in
 * send_errors).  If the kernel
 * refuses a GSO send, GSO is turned off and the rest goes one by one.
 */
static unsigned int send_frames(unsigned int start, unsigned int m)
{
	unsigned int nmsg = 0, i = start, off = 0, done = 0, retries = 0;

	while (i < m) {
		unsigned int c = gso_segs ? gso_segs : 1;

		if (c > m - i)
			c = m - i;
		msgs[nmsg].msg_hdr.msg_iov = &order[i];
		msgs[nmsg].msg_hdr.msg_iovlen = c;
		msg_frames[nmsg++] = c;
		i += c;
	}
	while (off < nmsg) {
		int r = sendmmsg(fd, msgs + off, nmsg - off, 0);

		if (r > 0) {
			while (r--)
				done += msg_frames[off++];
			continue;
		}
		if (r < 0 && (errno == EINTR || errno == EAGAIN ||
			      errno == ENOBUFS) && retries++ < 100000) {
			send_retries++;
			continue;
		}
		if (r < 0 && gso_segs && (errno == EINVAL || errno == EIO ||
					  errno == EOPNOTSUPP)) {
			fprintf(stderr, "dbb-gen: GSO send failed (%s), "
				"sending one datagram per syscall slot\n",
				strerror(errno));
			gso_off();
			return done + send_frames(start + done, m);
		}
		if (send_errors < 10)
			perror("dbb-gen: sendmmsg");
		send_errors += m - start - done;
		break;
	}
	return done;
}

static uint64_t gseq;		/* global sequence: data frames offered so far */

struct step_result {
	uint64_t offered, sent, errors;
	uint64_t test_dropped, test_duplicated, test_swapped;
	double seconds, pps, max_late_us, mean_late_us;
	int64_t rcvbuf_errors, backlog_drops;
};

/*
 * The end-of-step marker: K copies, spread out so that one overflowing
 * queue does not take them all: before copy k the generator waits
 * marker_delay * 2^min(k, 6) (500 us, 1 ms, 2 ms ... 32 ms, 32 ms ...;
 * about 96 ms for the default 8; back to back once interrupted).  Copy k
 * uses flow k's addresses, so the copies hash to different receive queues
 * like the data.
 */
static void send_markers(uint8_t step, uint64_t offered, uint64_t first_seq)
{
	unsigned int k;

	for (k = 0; k < opt.markers; k++) {
		struct flow_tuple t;

		if (opt.marker_delay_ns)
			wait_until(now_ns() + (opt.marker_delay_ns << (k < 6 ? k : 6)));
		flow_tuple(k % opt.flows, &t);
		frame_fill(slot(0), frame_len(0), &t, step, DBB_FLOW_MARKER,
			   (uint32_t)offered, (uint32_t)first_seq,
			   (uint32_t)now_ns());
		order[0].iov_base = slot(0);
		order[0].iov_len = frame_len(0);
		send_frames(0, 1);
	}
}

static unsigned int step_burst(const struct step *st)
{
	unsigned int burst = opt.burst;

	if (!burst) {
		burst = st->pps ? (unsigned int)(st->pps / 5000) : opt.batch;
		if (burst < 1)
			burst = 1;
	}
	return burst > opt.batch ? opt.batch : burst;
}

/*
 * Build frames g = gseq .. gseq+n-1 into slots and order[]; returns the
 * number of entries in order[].  The test options act here: a dropped frame
 * gets no entry, a duplicated one two, a swapped one changes places with
 * the next entry.
 */
static unsigned int build_batch(unsigned int si, unsigned int n, uint32_t ts,
				struct step_result *res)
{
	unsigned int i, m = 0, k = 0;
	bool swap_pending = false;

	for (i = 0; i < n; i++) {
		uint64_t g = gseq + i;
		uint32_t flow = (uint32_t)(g % opt.flows);
		struct flow_tuple tp;

		if (opt.drop_every && (g + 1) % opt.drop_every == 0) {
			res->test_dropped++;
			continue;
		}
		flow_tuple(flow, &tp);
		frame_fill(slot(k), frame_len(g), &tp, (uint8_t)si, flow,
			   (uint32_t)(g / opt.flows), (uint32_t)g, ts);
		order[m].iov_base = slot(k);
		order[m].iov_len = frame_len(g);
		is_dup[m++] = false;
		if (swap_pending) {
			struct iovec x = order[m - 2];

			order[m - 2] = order[m - 1];
			order[m - 1] = x;
			res->test_swapped++;
			swap_pending = false;
		}
		if (opt.dup_every && (g + 1) % opt.dup_every == 0) {
			order[m] = order[m - 1];
			is_dup[m++] = true;
		} else if (opt.swap_every && (g + 1) % opt.swap_every == 0) {
			swap_pending = true;
		}
		k++;
	}
	return m;
}

static void run_step(unsigned int si, struct step_result *res)
{
	const struct step *st = &opt.steps[si];
	uint64_t idx = 0, t0, t, first_seq = gseq, err0 = send_errors;
	int64_t rb0 = udp_rcvbuf_errors(), bd0 = backlog_drops();
	unsigned int burst = step_burst(st);
	uint64_t max_late = 0, sum_late = 0, bursts = 0;

	memset(res, 0, sizeof(*res));
	t0 = now_ns();
	while (idx < st->count && !dbb_stop) {
		unsigned int n = burst, m, i, ok;

		if (n > st->count - idx)
			n = (unsigned int)(st->count - idx);
		if (st->pps) {
			uint64_t due = t0 + (uint64_t)((unsigned __int128)idx *
						       1000000000u / st->pps);

			t = wait_until(due);
			if (dbb_stop)
				break;
			if (t - due > max_late)
				max_late = t - due;
			sum_late += t - due;
			bursts++;
		} else {
			t = now_ns();
		}
		m = build_batch(si, n, (uint32_t)t, res);
		ok = m ? send_frames(0, m) : 0;
		for (i = 0; i < ok; i++) {
			if (is_dup[i])
				res->test_duplicated++;
			else
				res->sent++;
		}
		gseq += n;
		idx += n;
	}
	/* A paced step owns its whole time slot: rate = count / slot. */
	if (st->pps && !dbb_stop)
		wait_until(t0 + (uint64_t)((unsigned __int128)st->count *
					   1000000000u / st->pps));
	t = now_ns();
	res->offered = idx;
	res->errors = send_errors - err0;
	res->seconds = (double)(t - t0) / 1e9;
	res->pps = res->seconds > 0 ? (double)res->sent / res->seconds : 0;
	res->max_late_us = (double)max_late / 1e3;
	res->mean_late_us = bursts ? (double)sum_late / (double)bursts / 1e3 : 0;

	send_markers((uint8_t)si, idx, first_seq);
	res->rcvbuf_errors = rb0 < 0 ? -1 : udp_rcvbuf_errors() - rb0;
	res->backlog_drops = bd0 < 0 ? -1 : backlog_drops() - bd0;
}

static void print_step(unsigned int si, const struct step_result *r)
{
	const struct step *st = &opt.steps[si];

	if (!opt.quiet) {
		printf("step %u: target %" PRIu64 " pps, offered %" PRIu64
		       ", sent %" PRIu64 ", errors %" PRIu64
		       ", %.3f s, %.0f pps, late mean %.1f max %.1f us"
		       ", host udp rcvbuf errors %" PRId64
		       ", backlog drops %" PRId64,
		       si, st->pps, r->offered, r->sent, r->errors, r->seconds,
		       r->pps, r->mean_late_us, r->max_late_us,
		       r->rcvbuf_errors, r->backlog_drops);
		if (r->test_dropped || r->test_duplicated || r->test_swapped)
			printf(", TEST dropped %" PRIu64 " duplicated %" PRIu64
			       " swapped %" PRIu64, r->test_dropped,
			       r->test_duplicated, r->test_swapped);
		printf("\n");
	}
	if (opt.json)
		printf("{\"tool\":\"dbb-gen\",\"type\":\"step\",\"step\":%u,"
		       "\"target_pps\":%" PRIu64 ",\"offered\":%" PRIu64
		       ",\"sent\":%" PRIu64 ",\"send_errors\":%" PRIu64
		       ",\"seconds\":%.6f,\"pps\":%.1f,\"mean_late_us\":%.1f,"
		       "\"max_late_us\":%.1f,\"host_udp_rcvbuf_errors\":%" PRId64
		       ",\"host_backlog_drops\":%" PRId64 ",\"size\":%u,"
		       "\"flows\":%u,\"test_dropped\":%" PRIu64
		       ",\"test_duplicated\":%" PRIu64 ",\"test_swapped\":%"
		       PRIu64 "}\n",
		       si, st->pps, r->offered, r->sent, r->errors, r->seconds,
		       r->pps, r->mean_late_us, r->max_late_us,
		       r->rcvbuf_errors, r->backlog_drops, opt.size, opt.flows,
		       r->test_dropped, r->test_duplicated, r->test_swapped);
	fflush(stdout);
}

/* ---- options ---- */

#define need_u64(name, s, min, max) dbb_need_u64("dbb-gen", name, s, min, max)

enum {
	O_TO = 256, O_FROM, O_DMAC, O_SMAC, O_SIZE, O_FLOWS, O_SIP, O_DIP,
	O_DIPC, O_SPORT, O_SPORTC, O_DPORT, O_UCSUM, O_PPS, O_STEPS, O_COUNT,
	O_SECS, O_GAP, O_MARKERS, O_MDELAY, O_BATCH, O_BURST, O_SPIN, O_CPU,
	O_SNDBUF, O_DROP, O_DUP, O_SWAP, O_GSO, O_JSON, O_QUIET, O_HELP
};

static const struct option long_opts[] = {
	{ "to", 1, 0, O_TO }, { "from", 1, 0, O_FROM },
	{ "dst-mac", 1, 0, O_DMAC }, { "src-mac", 1, 0, O_SMAC },
	{ "size", 1, 0, O_SIZE }, { "flows", 1, 0, O_FLOWS },
	{ "src-ip", 1, 0, O_SIP }, { "dst-ip", 1, 0, O_DIP },
	{ "dst-ip-count", 1, 0, O_DIPC }, { "sport", 1, 0, O_SPORT },
	{ "sport-count", 1, 0, O_SPORTC }, { "dport", 1, 0, O_DPORT },
	{ "udp-csum", 0, 0, O_UCSUM }, { "pps", 1, 0, O_PPS },
	{ "steps", 1, 0, O_STEPS }, { "count", 1, 0, O_COUNT },
	{ "step-seconds", 1, 0, O_SECS },
	{ "step-gap-ms", 1, 0, O_GAP },
	{ "markers", 1, 0, O_MARKERS },
	{ "marker-delay-us", 1, 0, O_MDELAY },
	{ "batch", 1, 0, O_BATCH }, { "burst", 1, 0, O_BURST },
	{ "spin-us", 1, 0, O_SPIN }, { "cpu", 1, 0, O_CPU },
	{ "sndbuf", 1, 0, O_SNDBUF }, { "drop-every", 1, 0, O_DROP },
	{ "gso", 1, 0, O_GSO }, { "dup-every", 1, 0, O_DUP }, { "swap-every", 1, 0, O_SWAP },
	{ "json", 0, 0, O_JSON }, { "quiet", 0, 0, O_QUIET },
	{ "help", 0, 0, O_HELP }, { 0, 0, 0, 0 }
};

/*
 * What the command line says about the steps, kept until every option is
 * read: --pps, --steps, --count and --step-seconds only make opt.steps[]
 * together (set_steps()).
 */
struct step_args {
	uint64_t rates[DBB_MAX_STEPS], count, pps;
	unsigned int nrates;
	bool have_pps, have_count;
	double secs;
};

static void parse_steps(const char *s, uint64_t *rates, unsigned int *n)
{
	char *copy = strdup(s), *tok, *save;

	if (!copy)
		dbb_die("dbb-gen: out of memory");
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == DBB_MAX_STEPS)
			dbb_die("dbb-gen: at most %d steps", DBB_MAX_STEPS);
		rates[(*n)++] = need_u64("steps", tok, 0, 1000000000000ull);
	}
	free(copy);
	if (!*n)
		dbb_die("dbb-gen: --steps: no rates");
}

/*
 * An option about the frames' contents (MACs, size, flows, addresses,
 * ports, checksum) into opt; false if C is not one.  A bad value exits 2.
 */
static bool frame_option(int c, const char *arg)
{
	switch (c) {
	case O_DMAC:
	case O_SMAC:
		if (dbb_parse_mac(arg, c == O_DMAC ? opt.dst_mac : opt.src_mac))
			dbb_die("dbb-gen: bad MAC '%s'", arg);
		break;
	case O_SIZE:
		if (!strcmp(arg, "imix"))
			opt.size = 0;
		else
			opt.size = (unsigned int)need_u64("size", arg,
							  DBB_MIN_SIZE,
							  DBB_MAX_SIZE);
		break;
	case O_FLOWS:
		opt.flows = (uint32_t)need_u64("flows", arg, 1,
					       DBB_FLOW_MAX + 1);
		break;
	case O_SIP:
	case O_DIP:
		if (dbb_parse_ipv4(arg, c == O_SIP ? &opt.src_ip : &opt.dst_ip))
			dbb_die("dbb-gen: bad IPv4 address '%s'", arg);
		break;
	case O_DIPC:
		opt.dst_ip_count = (uint32_t)need_u64("dst-ip-count", arg, 1,
						      1u << 24);
		break;
	case O_SPORT:
		opt.sport = (uint32_t)need_u64("sport", arg, 0, 65535);
		break;
	case O_SPORTC:
		opt.sport_count = (uint32_t)need_u64("sport-count", arg, 1,
						     65536);
		break;
	case O_DPORT:
		opt.dport = (uint32_t)need_u64("dport", arg, 0, 65535);
		break;
	case O_UCSUM:
		opt.udp_csum = true;
		break;
	default:
		return false;
	}
	return true;
}

/*
 * An option about the steps (rates, lengths, markers) into A or opt;
 * false if C is not one.  A bad value exits 2.
 */
static bool step_option(int c, const char *arg, struct step_args *a)
{
	char *end;

	switch (c) {
	case O_PPS:
		a->pps = need_u64("pps", arg, 0, 1000000000000ull);
		a->have_pps = true;
		break;
	case O_STEPS:
		parse_steps(arg, a->rates, &a->nrates);
		break;
	case O_COUNT:
		a->count = need_u64("count", arg, 1, UINT64_MAX / 2);
		a->have_count = true;
		break;
	case O_SECS:
		a->secs = strtod(arg, &end);
		if (*end || !(a->secs > 0) || a->secs > 1e6)
			dbb_die("dbb-gen: --step-seconds: bad '%s'", arg);
		break;
	case O_GAP:
		opt.step_gap_ns = need_u64("step-gap-ms", arg, 0, 3600000) *
				  1000000ull;
		break;
	case O_MARKERS:
		opt.markers = (unsigned int)need_u64("markers", arg, 0, 64);
		break;
	case O_MDELAY:
		opt.marker_delay_ns = need_u64("marker-delay-us", arg, 0,
					       1000000) * 1000ull;
		break;
	default:
		return false;
	}
	return true;
}

/*
 * An option about how frames are sent (batching, pacing, the socket, the
 * TESTING faults, output) into opt; false if C is not one.  A bad value
 * exits 2.
 */
static bool send_option(int c, const char *arg)
{
	switch (c) {
	case O_BATCH:
		opt.batch = (unsigned int)need_u64("batch", arg, 1, MAX_BATCH);
		break;
	case O_BURST:
		opt.burst = (unsigned int)need_u64("burst", arg, 1, MAX_BATCH);
		break;
	case O_SPIN:
		opt.spin_ns = need_u64("spin-us", arg, 0, 1000000) * 1000ull;
		break;
	case O_CPU:
		opt.cpu = (int)need_u64("cpu", arg, 0, 4095);
		break;
	case O_SNDBUF:
		opt.sndbuf = (int)need_u64("sndbuf", arg, 4096, 1u << 30);
		break;
	case O_DROP:
		opt.drop_every = need_u64("drop-every", arg, 1, UINT64_MAX);
		break;
	case O_GSO:
		opt.gso_segs = (unsigned int)need_u64("gso", arg, 0, 64);
		break;
	case O_DUP:
		opt.dup_every = need_u64("dup-every", arg, 1, UINT64_MAX);
		break;
	case O_SWAP:
		opt.swap_every = need_u64("swap-every", arg, 1, UINT64_MAX);
		break;
	case O_JSON:
		opt.json = true;
		break;
	case O_QUIET:
		opt.quiet = true;
		break;
	default:
		return false;
	}
	return true;
}

/* opt.steps[] from A, once all options are read; a contradiction exits 2. */
static void set_steps(struct step_args *a)
{
	unsigned int i;

	if (a->nrates && a->have_pps)
		dbb_die("dbb-gen: give --pps or --steps, not both");
	if (!a->nrates) {
		a->rates[0] = a->pps;
		a->nrates = 1;
	}
	if (a->have_count == (a->secs > 0))
		dbb_die("dbb-gen: give exactly one of --count and --step-seconds");
	for (i = 0; i < a->nrates; i++) {
		opt.steps[i].pps = a->rates[i];
		if (a->have_count) {
			opt.steps[i].count = a->count;
		} else {
			if (!a->rates[i])
				dbb_die("dbb-gen: rate 0 (as fast as possible) "
					"needs --count");
			opt.steps[i].count = (uint64_t)((double)a->rates[i] *
							a->secs + 0.5);
			if (!opt.steps[i].count)
				dbb_die("dbb-gen: step %u has no frames", i);
		}
	}
	opt.nsteps = a->nrates;
	for (i = 0; i < a->nrates; i++)
		if (opt.markers && opt.steps[i].count > UINT32_MAX)
			dbb_die("dbb-gen: a step has at most %u frames (the "
				"marker's count is 32 bits)", UINT32_MAX);
}

/*
 * The command line into opt.  Returns -1 to go on and run, or the exit
 * status (0 after --help, 2 on a usage error); a bad value exits 2 at once.
 */
static int parse_args(int argc, char **argv)
{
	struct step_args a = { .nrates = 0 };
	bool have_to = false;
	int c;

	opt.src_ip = 0x0a000001;	/* 10.0.0.1 */
	opt.dst_ip = 0x0a010001;	/* 10.1.0.1 */
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (c) {
		case O_TO:
			if (dbb_parse_loopback(optarg, &opt.to, false, "--to"))
				return 2;
			have_to = true;
			break;
		case O_FROM:
			if (dbb_parse_loopback(optarg, &opt.from, true, "--from"))
				return 2;
			opt.have_from = true;
			break;
		case O_HELP:
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (frame_option(c, optarg) ||
			    step_option(c, optarg, &a) || send_option(c, optarg))
				break;
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !have_to) {
		usage(stderr);
		return 2;
	}
	if (opt.burst > opt.batch)
		opt.burst = opt.batch;
	set_steps(&a);
	if ((uint64_t)opt.src_ip + (opt.flows - 1) / opt.sport_count > 0xffffffffu ||
	    opt.sport + opt.sport_count - 1 > 65535)
		dbb_die("dbb-gen: the flows do not fit the source IP/port range");
	return -1;
}

/* ---- setup ---- */

/* The process: SIGINT/SIGTERM end the run, the CPU pin, timer slack. */
static void setup_process(void)
{
	dbb_catch_stop();
	if (dbb_pin_cpu(opt.cpu) < 0)
		perror("dbb-gen: sched_setaffinity");
	/* 1 ns timer slack: wake-ups as close to the deadline as asked */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

/*
 * fd: the sending socket, bound to --from if given.  Not connect()ed: an
 * unconnected UDP socket ignores ICMP port unreachable, so a port that is
 * not listening yet does not turn into ECONNREFUSED on later sends.
 */
static void open_socket(void)
{
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		dbb_die("dbb-gen: socket: %s", strerror(errno));
	if (opt.sndbuf &&
	    dbb_set_sockbuf(fd, SO_SNDBUFFORCE, SO_SNDBUF, opt.sndbuf) < 0)
		perror("dbb-gen: SO_SNDBUF");
	if (opt.have_from) {
		int one = 1;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&opt.from, sizeof(opt.from)) < 0)
			dbb_die("dbb-gen: bind: %s", strerror(errno));
	}
}

/* The frame slots (headers filled in once) and every message's address. */
static void setup_slots(void)
{
	unsigned int i;

	bufs = calloc(opt.batch, dgram_len());
	if (!bufs)
		dbb_die("dbb-gen: out of memory");
	for (i = 0; i < opt.batch; i++)
		frame_template(slot(i));
	for (i = 0; i < 2 * MAX_BATCH; i++) {
		msgs[i].msg_hdr.msg_name = &opt.to;
		msgs[i].msg_hdr.msg_namelen = sizeof(opt.to);
	}
}

/*
 * UDP GSO: one sendmsg carries up to gso_segs frames, the kernel cuts
 * them into datagrams of dgram_len bytes (the receiving socket gets
 * ordinary datagrams).  A datagram no longer than the segment size is
 * sent as is, so single frames need nothing special.  Left off (gso_segs
 * 0) for IMIX, fewer than 2 segments, or a kernel without UDP_SEGMENT.
 */
static void setup_gso(void)
{
	int sz = (int)dgram_len();

	if (!opt.gso_segs || !opt.size)	/* GSO cuts equal segments */
		return;
	gso_segs = opt.gso_segs;
	if (gso_segs > 65000 / dgram_len())
		gso_segs = 65000 / dgram_len();
	if (gso_segs < 2 ||
	    setsockopt(fd, SOL_UDP, UDP_SEGMENT, &sz, sizeof(sz)) < 0)
		gso_segs = 0;
}

/* ---- the run ---- */

struct run_totals {
	unsigned int steps;	/* steps run (fewer if interrupted) */
	uint64_t offered, sent, test_dropped;
	uint64_t t_start;
};

static void print_total(const struct run_totals *tot)
{
	if (opt.json)
		printf("{\"tool\":\"dbb-gen\",\"type\":\"total\",\"steps\":%u,"
		       "\"offered\":%" PRIu64 ",\"sent\":%" PRIu64
		       ",\"test_dropped\":%" PRIu64 ",\"send_errors\":%" PRIu64
		       ",\"send_retries\":%" PRIu64 ",\"gso_segs\":%u"
		       ",\"seconds\":%.6f,\"interrupted\":%s}\n",
		       tot->steps, tot->offered, tot->sent, tot->test_dropped,
		       send_errors, send_retries, gso_segs,
		       (double)(now_ns() - tot->t_start) / 1e9,
		       dbb_stop ? "true" : "false");
	else if (!opt.quiet)
		printf("total: %u steps, offered %" PRIu64 ", sent %" PRIu64
		       ", test-dropped %" PRIu64 ", errors %" PRIu64 "%s\n",
		       tot->steps, tot->offered, tot->sent, tot->test_dropped,
		       send_errors, dbb_stop ? " (interrupted)" : "");
}

/* Every step (each with its markers and line), then the run's line. */
static void run_steps(void)
{
	struct run_totals tot = { .t_start = now_ns() };
	struct step_result res;

	for (tot.steps = 0; tot.steps < opt.nsteps && !dbb_stop; tot.steps++) {
		if (tot.steps && opt.step_gap_ns)
			wait_until(now_ns() + opt.step_gap_ns);
		run_step(tot.steps, &res);
		print_step(tot.steps, &res);
		tot.offered += res.offered;
		tot.sent += res.sent;
		tot.test_dropped += res.test_dropped;
	}
	print_total(&tot);
}

int main(int argc, char **argv)
{
	int r = parse_args(argc, argv);

	if (r >= 0)
		return r;
	setup_process();
	open_socket();
	setup_slots();
	setup_gso();
	run_steps();
	close(fd);
	return send_errors || dbb_stop ? 1 : 0;
}
