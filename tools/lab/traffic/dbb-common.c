// SPDX-License-Identifier: GPL-2.0
/* dbb-common.c - helpers shared by dbb-gen and dbb-sink. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "dbb-common.h"

void dbb_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

int dbb_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;
	double mult = 1, d;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == '.') {
		/* "1.5M": a decimal fraction needs a suffix */
		d = strtod(s, &end);
		if (end == s)
			return -1;
	} else {
		d = -1;
	}
	switch (*end) {
	case 'k': case 'K': mult = 1e3; end++; break;
	case 'M': mult = 1e6; end++; break;
	case 'G': mult = 1e9; end++; break;
	default: break;
	}
	if (*end)
		return -1;
	if (d >= 0) {
		if (mult == 1 || d * mult > 1.8e19)
			return -1;
		*v = (uint64_t)(d * mult + 0.5);
		return 0;
	}
	if (x > UINT64_MAX / (uint64_t)mult)
		return -1;
	*v = x * (uint64_t)mult;
	return 0;
}

uint64_t dbb_need_u64(const char *prog, const char *name, const char *s,
		      uint64_t min, uint64_t max)
{
	uint64_t v;

	if (dbb_parse_u64(s, &v) < 0 || v < min || v > max)
		dbb_die("%s: --%s: '%s' is not a number in %" PRIu64 "..%" PRIu64,
			prog, name, s, min, max);
	return v;
}

int dbb_parse_ipv4(const char *s, uint32_t *host_order)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*host_order = ntohl(a.s_addr);
	return 0;
}

int dbb_parse_loopback(const char *s, struct sockaddr_in *sa,
		       bool allow_any_port, const char *what)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	uint64_t port;
	uint32_t ip;

	if (!colon || (size_t)(colon - s) >= sizeof(host)) {
		fprintf(stderr, "%s: '%s' is not IP:PORT\n", what, s);
		return -1;
	}
	memcpy(host, s, colon - s);
	host[colon - s] = 0;
	if (dbb_parse_ipv4(host, &ip) < 0) {
		fprintf(stderr, "%s: '%s' is not an IPv4 address\n", what, host);
		return -1;
	}
	if ((ip >> 24) != 127) {
		fprintf(stderr, "%s: %s is not a loopback address (127.0.0.0/8); "
			"these tools use loopback only\n", what, host);
		return -1;
	}
	if (dbb_parse_u64(colon + 1, &port) < 0 || port > 65535 ||
	    (!port && !allow_any_port)) {
		fprintf(stderr, "%s: bad port '%s'\n", what, colon + 1);
		return -1;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(ip);
	sa->sin_port = htons((uint16_t)port);
	return 0;
}

int dbb_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

int dbb_pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

volatile sig_atomic_t dbb_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	dbb_stop = 1;
}

void dbb_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int dbb_set_sockbuf(int fd, int force_name, int name, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, force_name, &bytes, sizeof(bytes)) == 0)
		return 0;
	return setsockopt(fd, SOL_SOCKET, name, &bytes, sizeof(bytes));
}
