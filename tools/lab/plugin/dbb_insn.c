// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dbb_insn.so: a QEMU TCG plugin counting the guest's executed
 * instructions, like QEMU's tests/plugin/libinsn.so with inline=on (one
 * inline 64-bit add per instruction), but readable WHILE the guest runs:
 * every connection to the UNIX socket sock=PATH gets the current count as
 * one decimal line, so a host-side driver can count instructions per step
 * of a load ramp in one boot (libinsn.so prints only at exit).
 *
 *   qemu-system-x86_64 -accel tcg,thread=single \
 *       -plugin dbb_insn.so,sock=/tmp/insn.sock -d plugin ...
 *   socat - UNIX-CONNECT:/tmp/insn.sock     ->  123456789
 *
 * At exit it prints "insns: N" (as libinsn.so does) through QEMU's log.
 *
 * The inline add is not atomic: with multi-threaded TCG and more than one
 * vCPU, concurrent increments can be lost.  Run with -accel
 * tcg,thread=single (all vCPUs on one thread) for exact counts.
 *
 * Built by tools/lab/labvm.py (build_insn_plugin) against the qemu-plugin.h
 * of the QEMU 7.2 tree that tools/lab/qemu/build.sh keeps.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t insn_count;
static char sock_path[108];
static int listen_fd = -1;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	size_t i;

	(void)id;
	for (i = 0; i < n; i++)
		qemu_plugin_register_vcpu_insn_exec_inline(
			qemu_plugin_tb_get_insn(tb, i),
			QEMU_PLUGIN_INLINE_ADD_U64, &insn_count, 1);
}

static void *serve(void *arg)
{
	char line[32];
	int fd, len;

	(void)arg;
	for (;;) {
		fd = accept(listen_fd, NULL, NULL);
		if (fd < 0)
			continue;
		len = snprintf(line, sizeof(line), "%" PRIu64 "\n",
			       __atomic_load_n(&insn_count, __ATOMIC_RELAXED));
		/* a short write: the reader went away, nothing to do */
		(void)!write(fd, line, len);
		close(fd);
	}
	return NULL;
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	char out[64];

	(void)id;
	(void)p;
	snprintf(out, sizeof(out), "insns: %" PRIu64 "\n", insn_count);
	qemu_plugin_outs(out);
	if (sock_path[0])
		unlink(sock_path);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pthread_t thread;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "sock=", 5) == 0 &&
		    strlen(argv[i] + 5) < sizeof(sock_path)) {
			strcpy(sock_path, argv[i] + 5);
		} else {
			fprintf(stderr, "dbb_insn: unknown option %s "
				"(only sock=PATH)\n", argv[i]);
			return -1;
		}
	}
	if (sock_path[0]) {
		strcpy(sa.sun_path, sock_path);
		unlink(sock_path);
		listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (listen_fd < 0 ||
		    bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    listen(listen_fd, 4) < 0) {
			perror("dbb_insn: socket");
			return -1;
		}
		if (pthread_create(&thread, NULL, serve, NULL) != 0)
			return -1;
		pthread_detach(thread);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
