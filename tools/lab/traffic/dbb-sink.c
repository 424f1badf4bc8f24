// SPDX-License-Identifier: GPL-2.0
/*
 * dbb-sink - receive the frames dbb-gen sent (after a QEMU guest forwarded
 * them, or straight over loopback) and count them: arrivals, loss per step
 * (against the generator's end-of-step markers), per-flow gaps, reordering
 * and duplicates, latency.  O(1) work per frame: per-flow state is an array
 * indexed by the flow id carried in the payload.  See README.md.
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
#include <sys/socket.h>
#include <linux/sock_diag.h>

#include "dbb-common.h"

#define MAX_BATCH	1024
#define SNAP		128	/* bytes of each frame we need: headers+payload */
#define HIST_SUB	16	/* sub-buckets per power of two: <= 3.2 % error */
#define HIST_BUCKETS	((32 - 3) * HIST_SUB)	/* 32-bit latencies */

static struct {
	struct sockaddr_in bind;
	uint64_t idle_ns, start_ns, expect;
	unsigned int batch;
	int rcvbuf, cpu;
	bool json, quiet, busy;
	const char *ready_file;
} opt = {
	.idle_ns = 2000000000ull,
	.batch = 256,
	.rcvbuf = 32 << 20,
	.cpu = -1,
};

/* Per flow: highest seq seen + 1 (0: none yet) and which of the 64 seqs
 * at and below it have arrived (bit i: hi - i), to tell late from dup. */
struct flow_state {
	uint32_t hi1;
	uint32_t pad;
	uint64_t win;
};

struct hist {
	uint64_t n, sum, min, max;
	uint64_t b[HIST_BUCKETS];
};

struct step_stats {
	bool seen;
	uint64_t rx, uniq, dup, reord;
	uint64_t first_ns, last_ns;
	/* from the markers */
	uint32_t markers;
	bool marker_conflict;
	uint32_t m_count, m_first;
	struct hist *lat;
};

static struct step_stats steps[DBB_MAX_STEPS];
static struct flow_state *flows;
static uint32_t nflows_cap;
static struct hist lat_all;

static struct {
	uint64_t rx, uniq, dup, reord, greord, invalid, markers;
	uint64_t bad_ip_csum, bad_udp_csum, gaps_open;
	uint64_t max_gseq;	/* highest global seq seen + 1 (extended) */
	uint32_t flows_seen;
	uint32_t sock_drops;
	uint8_t ttl_min, ttl_max;
	uint64_t first_ns, last_ns;
} tot = { .ttl_min = 255 };

static void usage(FILE *f)
{
	fprintf(f,
"usage: dbb-sink --bind 127.0.0.1:PORT [options]\n"
"  --bind A:P           receive here (QEMU dgram netdev's remote address)\n"
"  --idle-ms N          stop N ms after the last frame (default 2000)\n"
"  --start-timeout-ms N stop if no frame came N ms after start (default 0:\n"
"                       wait for ever)\n"
"  --expect N           stop once N distinct data frames arrived (plus a\n"
"                       100 ms grace for the end-of-step markers); the\n"
"                       total loss is then counted against N\n"
"  --batch N            frames per recvmmsg (default 256, max %d)\n"
"  --rcvbuf BYTES       SO_RCVBUF(FORCE) (default 32M)\n"
"  --cpu N              pin to CPU N\n"
"  --busy-poll          never sleep: poll the socket (a whole core; for\n"
"                       ceiling measurements, not next to a busy guest)\n"
"  --ready-file F       create F once the socket is bound\n"
"  --json               JSON lines: one per step and one total\n"
"  --quiet              no text summary\n"
"Stops on SIGINT/SIGTERM too, and prints the summary.\n", MAX_BATCH);
}

/* ---- latency histogram: log-linear, 16 sub-buckets per octave ---- */

static unsigned int hist_bucket(uint32_t v)
{
	unsigned int e;

	if (v < HIST_SUB)
		return v;
	e = 31u - (unsigned int)__builtin_clz(v);	/* >= 4 */
	return (e - 3) * HIST_SUB + ((v >> (e - 4)) & (HIST_SUB - 1));
}

/* Lowest value of bucket B and its width. */
static void hist_range(unsigned int b, uint64_t *lo, uint64_t *width)
{
	unsigned int e, sub;

	if (b < HIST_SUB) {
		*lo = b;
		*width = 1;
		return;
	}
	e = b / HIST_SUB + 3;
	sub = b % HIST_SUB;
	*lo = (uint64_t)(HIST_SUB + sub) << (e - 4);
	*width = 1ull << (e - 4);
}

static inline void hist_add(struct hist *h, uint32_t v)
{
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->b[hist_bucket(v)]++;
}

/* Value at quantile Q: the middle of its bucket, clamped to [min, max]. */
static uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, lo, w, v;
	unsigned int b;

	if (!h->n)
		return 0;
	rank = (uint64_t)(q * (double)h->n);
	if (rank >= h->n)
		rank = h->n - 1;
	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += h->b[b];
		if (seen > rank)
			break;
	}
	hist_range(b, &lo, &w);
	v = lo + w / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

/* ---- per-frame work ---- */

static void flows_grow(uint32_t flow)
{
	uint32_t cap = nflows_cap ? nflows_cap : 131072;
	struct flow_state *n;

	while (cap <= flow)
		cap = cap > DBB_FLOW_MAX / 2 ? DBB_FLOW_MAX + 1 : cap * 2;
	n = realloc(flows, (size_t)cap * sizeof(*flows));
	if (!n)
		dbb_die("dbb-sink: out of memory for %u flows", cap);
	memset(n + nflows_cap, 0, (size_t)(cap - nflows_cap) * sizeof(*n));
	flows = n;
	nflows_cap = cap;
}

static void on_marker(uint8_t step, const uint8_t *pl)
{
	struct step_stats *s = &steps[step];
	uint32_t count = get_le32(pl + DBB_P_FSEQ);
	uint32_t first = get_le32(pl + DBB_P_SEQ);

	tot.markers++;
	if (s->markers && (s->m_count != count || s->m_first != first))
		s->marker_conflict = true;
	s->markers++;
	s->m_count = count;
	s->m_first = first;
}

static void on_frame(const uint8_t *f, unsigned int len, uint64_t now)
{
	const uint8_t *ip = f + DBB_ETH_LEN, *udp = ip + DBB_IP_LEN;
	const uint8_t *pl = udp + DBB_UDP_LEN;
	struct step_stats *s;
	struct flow_state *fs;
	uint32_t flow, fseq, seq32, lat;
	uint64_t gseq;
	uint8_t step;

	if (len < DBB_MIN_DGRAM || get_be16(f + 12) != 0x0800 ||
	    ip[0] != 0x45 || ip[9] != 17 ||
	    get_le16(pl + DBB_P_MAGIC) != DBB_MAGIC ||
	    pl[DBB_P_STEP] >= DBB_MAX_STEPS) {
		tot.invalid++;
		return;
	}
	if (csum_fold(csum_add(0, ip, DBB_IP_LEN)))
		tot.bad_ip_csum++;
	if (get_be16(udp + 6)) {
		unsigned int ulen = get_be16(udp + 4);
		uint32_t sum;

		if (ulen < DBB_UDP_LEN || DBB_ETH_LEN + DBB_IP_LEN + ulen > len) {
			tot.bad_udp_csum++;
		} else {
			/* only the first SNAP bytes were copied; the generator's
			 * padding is zero, so summing past SNAP adds nothing */
			unsigned int have = len < SNAP ? len : SNAP;
			unsigned int n = DBB_ETH_LEN + DBB_IP_LEN + ulen > have ?
					 have - DBB_ETH_LEN - DBB_IP_LEN : ulen;

			sum = csum_add(0, ip + 12, 8);
			sum += 17 + ulen;
			sum = csum_add(sum, udp, n);
			if (csum_fold(sum))
				tot.bad_udp_csum++;
		}
	}
	if (ip[8] < tot.ttl_min)
		tot.ttl_min = ip[8];
	if (ip[8] > tot.ttl_max)
		tot.ttl_max = ip[8];

	step = pl[DBB_P_STEP];
	flow = get_le24(pl + DBB_P_FLOW);
	if (flow == DBB_FLOW_MARKER) {
		on_marker(step, pl);
		return;
	}
	fseq = get_le32(pl + DBB_P_FSEQ);
	seq32 = get_le32(pl + DBB_P_SEQ);
	lat = (uint32_t)now - get_le32(pl + DBB_P_TS);

	s = &steps[step];
	if (!s->seen) {
		s->seen = true;
		s->first_ns = now;
		s->lat = calloc(1, sizeof(*s->lat));
		if (!s->lat)
			dbb_die("dbb-sink: out of memory");
	}
	s->last_ns = now;
	s->rx++;
	tot.rx++;
	if (!tot.first_ns)
		tot.first_ns = now;
	tot.last_ns = now;

	/* global sequence, extended to 64 bits around the highest seen */
	if (!tot.max_gseq) {
		gseq = seq32;
		tot.max_gseq = gseq + 1;
	} else {
		gseq = (tot.max_gseq - 1) +
		       (int64_t)(int32_t)(seq32 - (uint32_t)(tot.max_gseq - 1));
		if (gseq + 1 > tot.max_gseq)
			tot.max_gseq = gseq + 1;
		else
			tot.greord++;
	}

	if (flow >= nflows_cap)
		flows_grow(flow);
	fs = &flows[flow];
	if (!fs->hi1) {
		tot.flows_seen++;
		tot.gaps_open += fseq;
		fs->hi1 = fseq + 1;
		fs->win = 1;
	} else {
		uint32_t hi = fs->hi1 - 1;

		if (fseq > hi) {
			uint32_t d = fseq - hi;

			tot.gaps_open += d - 1;
			fs->win = d >= 64 ? 1 : (fs->win << d) | 1;
			fs->hi1 = fseq + 1;
		} else {
			uint32_t d = hi - fseq;

			if (d < 64 && (fs->win >> d) & 1) {
				s->dup++;
				tot.dup++;
				return;
			}
			if (d < 64)
				fs->win |= 1ull << d;
			/* late: fills a hole (beyond the window we cannot
			 * tell a late frame from a duplicate; counted late) */
			s->reord++;
			tot.reord++;
			if (tot.gaps_open)
				tot.gaps_open--;
		}
	}
	s->uniq++;
	tot.uniq++;
	hist_add(s->lat, lat);
	hist_add(&lat_all, lat);
}

/* ---- summary ---- */

/* Frames step I offered: from its marker, or inferred from the markers of
 * its neighbours (start of step 0 is seq 0).  -1 if unknown. */
static int64_t step_sent(unsigned int i, const char **how)
{
	bool have_start = false, have_end = false;
	uint32_t start = 0, end = 0;

	if (steps[i].markers) {
		*how = steps[i].marker_conflict ? "marker-conflict" : "marker";
		return steps[i].m_count;
	}
	if (i == 0) {
		have_start = true;
	} else if (steps[i - 1].markers) {
		start = steps[i - 1].m_first + steps[i - 1].m_count;
		have_start = true;
	}
	if (i + 1 < DBB_MAX_STEPS && steps[i + 1].markers) {
		end = steps[i + 1].m_first;
		have_end = true;
	}
	if (have_start && have_end) {
		*how = "inferred";
		return (uint32_t)(end - start);
	}
	*how = "unknown";
	return -1;
}

static void print_lat_text(const struct hist *h)
{
	if (!h->n) {
		printf("latency: none\n");
		return;
	}
	printf("latency us: min %.1f avg %.1f p50 %.1f p99 %.1f max %.1f\n",
	       h->min / 1e3, (double)h->sum / (double)h->n / 1e3,
	       hist_quantile(h, 0.50) / 1e3, hist_quantile(h, 0.99) / 1e3,
	       h->max / 1e3);
}

static void print_lat_json(const struct hist *h)
{
	printf("\"lat_ns\":{\"n\":%" PRIu64 ",\"min\":%" PRIu64
	       ",\"avg\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p99\":%" PRIu64
	       ",\"max\":%" PRIu64 "}",
	       h->n, h->n ? h->min : 0, h->n ? h->sum / h->n : 0,
	       hist_quantile(h, 0.50), hist_quantile(h, 0.99), h->max);
}

static void summary(void)
{
	int64_t sent_total = 0;
	bool sent_known = true;
	unsigned int i, last = 0;
	double secs = tot.last_ns > tot.first_ns ?
		      (double)(tot.last_ns - tot.first_ns) / 1e9 : 0;

	for (i = 0; i < DBB_MAX_STEPS; i++)
		if (steps[i].seen || steps[i].markers)
			last = i + 1;
	for (i = 0; i < last; i++) {
		struct step_stats *s = &steps[i];
		const char *how;
		int64_t sent = step_sent(i, &how);
		int64_t lost = sent < 0 ? -1 : sent - (int64_t)s->uniq;
		double dur = s->last_ns > s->first_ns ?
			     (double)(s->last_ns - s->first_ns) / 1e9 : 0;
		double rate = dur > 0 ? (double)s->uniq / dur : 0;
		struct hist empty = { 0 };
		const struct hist *h = s->lat ? s->lat : &empty;

		if (sent < 0)
			sent_known = false;
		else
			sent_total += sent;
		if (!opt.quiet) {
			printf("step %u: sent %" PRId64 " (%s), received %" PRIu64
			       ", lost %" PRId64 " (%.4f %%), dup %" PRIu64
			       ", reordered %" PRIu64 ", rx %.0f pps over %.3f s; ",
			       i, sent, how, s->uniq, lost,
			       sent > 0 && lost >= 0 ? 100.0 * (double)lost / (double)sent : 0.0,
			       s->dup, s->reord, rate, dur);
			print_lat_text(h);
		}
		if (opt.json) {
			printf("{\"tool\":\"dbb-sink\",\"type\":\"step\",\"step\":%u,"
			       "\"sent\":%" PRId64 ",\"sent_from\":\"%s\","
			       "\"received\":%" PRIu64 ",\"lost\":%" PRId64
			       ",\"dup\":%" PRIu64 ",\"reordered\":%" PRIu64
			       ",\"markers\":%u,\"rx_pps\":%.1f,\"rx_seconds\":%.6f,",
			       i, sent, how, s->uniq, lost, s->dup, s->reord,
			       s->markers, rate, dur);
			print_lat_json(h);
			printf("}\n");
		}
	}
	if (!opt.quiet) {
		printf("total: received %" PRIu64 " distinct of %" PRIu64
		       " data frames, dup %" PRIu64 ", reordered %" PRIu64
		       " (per flow), %" PRIu64 " (global), flow gaps open %"
		       PRIu64 ", flows %u, invalid %" PRIu64 ", markers %" PRIu64
		       ", bad ip csum %" PRIu64 ", bad udp csum %" PRIu64
		       ", ttl %u..%u, sink socket drops %u, %.3f s\n",
		       tot.uniq, tot.rx, tot.dup, tot.reord, tot.greord,
		       tot.gaps_open, tot.flows_seen, tot.invalid, tot.markers,
		       tot.bad_ip_csum, tot.bad_udp_csum,
		       tot.rx ? tot.ttl_min : 0, tot.ttl_max, tot.sock_drops,
		       secs);
		if (opt.expect)
			printf("expected %" PRIu64 ", lost %" PRId64 "\n",
			       opt.expect, (int64_t)opt.expect - (int64_t)tot.uniq);
		else if (sent_known && last)
			printf("sent %" PRId64 " (markers), lost %" PRId64 "\n",
			       sent_total, sent_total - (int64_t)tot.uniq);
		print_lat_text(&lat_all);
	}
	if (opt.json) {
		int64_t ref = opt.expect ? (int64_t)opt.expect :
			      sent_known && last ? sent_total : -1;

		printf("{\"tool\":\"dbb-sink\",\"type\":\"total\",\"steps\":%u,"
		       "\"sent\":%" PRId64 ",\"received\":%" PRIu64
		       ",\"lost\":%" PRId64 ",\"rx_frames\":%" PRIu64
		       ",\"dup\":%" PRIu64 ",\"reordered\":%" PRIu64
		       ",\"global_reordered\":%" PRIu64 ",\"flow_gaps_open\":%"
		       PRIu64 ",\"flows\":%u,\"invalid\":%" PRIu64
		       ",\"markers\":%" PRIu64 ",\"bad_ip_csum\":%" PRIu64
		       ",\"bad_udp_csum\":%" PRIu64 ",\"ttl_min\":%u,"
		       "\"ttl_max\":%u,\"sink_socket_drops\":%u,"
		       "\"max_seq\":%" PRId64 ",\"seconds\":%.6f,",
		       last, ref, tot.uniq, ref < 0 ? -1 : ref - (int64_t)tot.uniq,
		       tot.rx, tot.dup, tot.reord, tot.greord, tot.gaps_open,
		       tot.flows_seen, tot.invalid, tot.markers, tot.bad_ip_csum,
		       tot.bad_udp_csum, tot.rx ? tot.ttl_min : 0, tot.ttl_max,
		       tot.sock_drops, (int64_t)tot.max_gseq - 1, secs);
		print_lat_json(&lat_all);
		printf("}\n");
	}
	fflush(stdout);
}

/* ---- options and main loop ---- */

/* Datagrams the kernel dropped at this socket (receive buffer full). */
static uint32_t socket_drops(int fd)
{
	uint32_t mi[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mi);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) < 0 ||
	    len <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return 0;
	return mi[SK_MEMINFO_DROPS];
}

#define need_u64(name, s, min, max) dbb_need_u64("dbb-sink", name, s, min, max)

int main(int argc, char **argv)
{
	enum { O_BIND = 256, O_IDLE, O_START, O_EXPECT, O_BATCH, O_RCVBUF,
	       O_CPU, O_READY, O_JSON, O_QUIET, O_BUSY, O_HELP };
	static const struct option lo[] = {
		{ "bind", 1, 0, O_BIND }, { "idle-ms", 1, 0, O_IDLE },
		{ "start-timeout-ms", 1, 0, O_START },
		{ "expect", 1, 0, O_EXPECT }, { "batch", 1, 0, O_BATCH },
		{ "rcvbuf", 1, 0, O_RCVBUF }, { "cpu", 1, 0, O_CPU },
		{ "ready-file", 1, 0, O_READY }, { "json", 0, 0, O_JSON },
		{ "quiet", 0, 0, O_QUIET }, { "busy-poll", 0, 0, O_BUSY },
		{ "help", 0, 0, O_HELP },
		{ 0, 0, 0, 0 }
	};
	static struct mmsghdr msgs[MAX_BATCH];
	static struct iovec iovs[MAX_BATCH];
	static uint8_t bufs[MAX_BATCH][SNAP];
	struct timeval tv = { .tv_sec = 0, .tv_usec = 50000 };
	bool have_bind = false, expect_met = false;
	uint64_t t_start, deadline_grace = 0, last_activity = 0;
	unsigned int i;
	int fd, one = 1, c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_BIND:
			if (dbb_parse_loopback(optarg, &opt.bind, false, "--bind"))
				return 2;
			have_bind = true;
			break;
		case O_IDLE:
			opt.idle_ns = need_u64("idle-ms", optarg, 1, 86400000) *
				      1000000ull;
			break;
		case O_START:
			opt.start_ns = need_u64("start-timeout-ms", optarg, 0,
						86400000) * 1000000ull;
			break;
		case O_EXPECT:
			opt.expect = need_u64("expect", optarg, 1, INT64_MAX);
			break;
		case O_BATCH:
			opt.batch = (unsigned int)need_u64("batch", optarg, 1,
							   MAX_BATCH);
			break;
		case O_RCVBUF:
			opt.rcvbuf = (int)need_u64("rcvbuf", optarg, 4096,
						   1u << 30);
			break;
		case O_CPU:
			opt.cpu = (int)need_u64("cpu", optarg, 0, 4095);
			break;
		case O_READY:
			opt.ready_file = optarg;
			break;
		case O_JSON:
			opt.json = true;
			break;
		case O_QUIET:
			opt.quiet = true;
			break;
		case O_BUSY:
			opt.busy = true;
			break;
		case O_HELP:
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !have_bind) {
		usage(stderr);
		return 2;
	}

	dbb_catch_stop();	/* recvmmsg returns EINTR */
	if (dbb_pin_cpu(opt.cpu) < 0)
		perror("dbb-sink: sched_setaffinity");

	flows_grow(0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		dbb_die("dbb-sink: socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (dbb_set_sockbuf(fd, SO_RCVBUFFORCE, SO_RCVBUF, opt.rcvbuf) < 0)
		perror("dbb-sink: SO_RCVBUF");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		dbb_die("dbb-sink: SO_RCVTIMEO: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&opt.bind, sizeof(opt.bind)) < 0)
		dbb_die("dbb-sink: bind %s:%u: %s",
			inet_ntoa(opt.bind.sin_addr), ntohs(opt.bind.sin_port),
			strerror(errno));
	if (opt.ready_file) {
		FILE *f = fopen(opt.ready_file, "w");

		if (!f)
			dbb_die("dbb-sink: %s: %s", opt.ready_file, strerror(errno));
		fclose(f);
	}

	for (i = 0; i < opt.batch; i++) {
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = SNAP;
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	t_start = now_ns();
	while (!dbb_stop) {
		uint64_t now;
		int r;

		/* MSG_TRUNC: msg_len is the datagram's length; only its
		 * first SNAP bytes land in bufs[i] */
		r = recvmmsg(fd, msgs, opt.batch, MSG_TRUNC |
			     (opt.busy ? MSG_DONTWAIT : MSG_WAITFORONE), NULL);
		now = now_ns();
		if (r < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				dbb_die("dbb-sink: recvmmsg: %s", strerror(errno));
			if (opt.busy)
				dbb_cpu_relax();
		} else if (r > 0) {
			last_activity = now;
			for (i = 0; i < (unsigned int)r; i++)
				on_frame(bufs[i], msgs[i].msg_len, now);
		}
		if (opt.expect && !expect_met && tot.uniq >= opt.expect) {
			expect_met = true;
			deadline_grace = now + 100000000ull;
		}
		if (expect_met && now >= deadline_grace)
			break;
		if (last_activity && now - last_activity >= opt.idle_ns)
			break;
		if (!last_activity && opt.start_ns && now - t_start >= opt.start_ns)
			break;
	}
	tot.sock_drops = socket_drops(fd);
	close(fd);
	summary();
	return 0;
}
