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
 * With prof=PATH it also counts, per translation block at a kernel
 * address, the instructions the block ran (its length times its
 * executions): every connection to PATH gets them as "pc count" lines
 * (hex, decimal; a block translated twice is two lines) and an "end"
 * line.  The host takes the difference of two reads and names the
 * functions from the guest's /proc/kallsyms (tools/lab/insnprof.py).
 * A switch (ctl=, below) starts the list anew.
 *
 * With ctl=PATH the counting can be switched off and on while the guest
 * runs, so one boot can hold both timed load ramps (no instrumentation:
 * the guest runs at full TCG speed) and counted steps: a connection sends
 * "on" or "off" (or "?") and gets back the state in effect, "on" or
 * "off".  The switch is made on the vCPU thread at the next translation
 * (qemu_plugin_reset(): all vCPUs stopped, the code cache flushed, so no
 * block translated in the other state runs again); until then the answer
 * is the old state, and the host asks again after running something new
 * in the guest.  count=off starts with counting off.  QEMU 7.2 needs
 * tools/lab/qemu/patches/plugins-reset-unlock.diff for the reset.
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

static char ctl_path[108];
static int ctl_fd = -1;
/* the state asked for (ctl thread), the state the code cache is in (set
 * in the reset callback), and a switch under way (vCPU threads)
 */
static int want_on = 1, have_on = 1, switching;
static int switch_to;

/* x86-64: the kernel runs in the upper half of the address space */
#define KERNEL_HALF 0xffff800000000000ULL

struct prof_tb {
	uint64_t pc;
	uint64_t n;
	uint64_t exec;		/* an inline add on every execution */
};

static char prof_path[108];
static int prof_fd = -1;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prof_tb **prof;
static size_t prof_len, prof_cap;

/* Called on the vCPU thread at translation: rare once the guest is warm. */
static void prof_add(struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	struct prof_tb *p, **grown;

	if (pc < KERNEL_HALF)
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;		/* not counted: the totals stay exact */
	p->pc = pc;
	p->n = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&prof_lock);
	if (prof_len == prof_cap) {
		grown = realloc(prof, (prof_cap ? 2 * prof_cap : 4096) *
				sizeof(*prof));
		if (!grown) {
			pthread_mutex_unlock(&prof_lock);
			free(p);
			return;
		}
		prof = grown;
		prof_cap = prof_cap ? 2 * prof_cap : 4096;
	}
	prof[prof_len++] = p;
	pthread_mutex_unlock(&prof_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &p->exec, 1);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void plugin_exit(qemu_plugin_id_t id, void *p);

static void register_cbs(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
}

/* Runs with every vCPU stopped, after the code cache was flushed and our
 * callbacks were removed.
 */
static void switched(qemu_plugin_id_t id)
{
	/* The flushed blocks never run again: serve only the new ones.  The
	 * entries stay allocated (a reader may hold them), as every entry.
	 */
	pthread_mutex_lock(&prof_lock);
	prof_len = 0;
	pthread_mutex_unlock(&prof_lock);
	register_cbs(id);
	__atomic_store_n(&have_on, switch_to, __ATOMIC_RELEASE);
	__atomic_store_n(&switching, 0, __ATOMIC_RELEASE);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	int want = __atomic_load_n(&want_on, __ATOMIC_ACQUIRE);
	int zero = 0;
	size_t i;

	if (want != __atomic_load_n(&have_on, __ATOMIC_ACQUIRE) &&
	    __atomic_compare_exchange_n(&switching, &zero, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		switch_to = want;
		qemu_plugin_reset(id, switched);
	}
	/* a block translated now is flushed before the switch completes */
	if (!__atomic_load_n(&have_on, __ATOMIC_ACQUIRE))
		return;
	if (prof_fd >= 0)
		prof_add(tb);
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

/* "on", "off" or "?" in; the state in effect out. */
static void *ctl_serve(void *arg)
{
	char cmd[16];
	ssize_t len;
	int fd;

	(void)arg;
	for (;;) {
		fd = accept(ctl_fd, NULL, NULL);
		if (fd < 0)
			continue;
		len = read(fd, cmd, sizeof(cmd) - 1);
		cmd[len > 0 ? len : 0] = '\0';
		if (strncmp(cmd, "on", 2) == 0)
			__atomic_store_n(&want_on, 1, __ATOMIC_RELEASE);
		else if (strncmp(cmd, "off", 3) == 0)
			__atomic_store_n(&want_on, 0, __ATOMIC_RELEASE);
		if (__atomic_load_n(&have_on, __ATOMIC_ACQUIRE))
			(void)!write(fd, "on\n", 3);
		else
			(void)!write(fd, "off\n", 4);
		close(fd);
	}
	return NULL;
}

/* The exec counts are read while the vCPU adds to them: each read is one
 * aligned 64-bit load, a count a few executions old at worst.
 */
static void *prof_serve(void *arg)
{
	struct prof_tb **snap = NULL, **grown;
	size_t i, n, cap = 0;
	uint64_t exec;
	FILE *f;
	int fd;

	(void)arg;
	for (;;) {
		fd = accept(prof_fd, NULL, NULL);
		if (fd < 0)
			continue;
		f = fdopen(fd, "w");
		if (!f) {
			close(fd);
			continue;
		}
		/* A copy of the list: a slow reader must not hold up a
		 * translation, which takes the lock.  Entries are never freed.
		 */
		pthread_mutex_lock(&prof_lock);
		n = prof_len;
		if (n > cap) {
			grown = realloc(snap, n * sizeof(*snap));
			if (grown) {
				snap = grown;
				cap = n;
			}
		}
		if (n <= cap)
			memcpy(snap, prof, n * sizeof(*snap));
		pthread_mutex_unlock(&prof_lock);
		if (n > cap) {
			fclose(f);	/* no end line: the reader sees a failure */
			continue;
		}
		for (i = 0; i < n; i++) {
			exec = __atomic_load_n(&snap[i]->exec, __ATOMIC_RELAXED);
			if (exec)
				fprintf(f, "%" PRIx64 " %" PRIu64 "\n", snap[i]->pc,
					exec * snap[i]->n);
		}
		fputs("end\n", f);
		fclose(f);
	}
	return NULL;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 4) < 0) {
		perror("dbb_insn: socket");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Listen on PATH and answer its connections with FN on a thread. */
static int start_server(const char *path, int *fd, void *(*fn)(void *))
{
	pthread_t thread;

	*fd = listen_unix(path);
	if (*fd < 0 || pthread_create(&thread, NULL, fn, NULL) != 0)
		return -1;
	pthread_detach(thread);
	return 0;
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
	if (prof_path[0])
		unlink(prof_path);
	if (ctl_path[0])
		unlink(ctl_path);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "sock=", 5) == 0 &&
		    strlen(argv[i] + 5) < sizeof(sock_path)) {
			strcpy(sock_path, argv[i] + 5);
		} else if (strncmp(argv[i], "prof=", 5) == 0 &&
			   strlen(argv[i] + 5) < sizeof(prof_path)) {
			strcpy(prof_path, argv[i] + 5);
		} else if (strncmp(argv[i], "ctl=", 4) == 0 &&
			   strlen(argv[i] + 4) < sizeof(ctl_path)) {
			strcpy(ctl_path, argv[i] + 4);
		} else if (strcmp(argv[i], "count=off") == 0) {
			want_on = 0;
			have_on = 0;
		} else if (strcmp(argv[i], "count=on") != 0) {
			fprintf(stderr, "dbb_insn: unknown option %s "
				"(sock=PATH, prof=PATH, ctl=PATH, count=on|off)\n",
				argv[i]);
			return -1;
		}
	}
	if (sock_path[0] && start_server(sock_path, &listen_fd, serve) < 0)
		return -1;
	if (prof_path[0] && start_server(prof_path, &prof_fd, prof_serve) < 0)
		return -1;
	if (ctl_path[0] && start_server(ctl_path, &ctl_fd, ctl_serve) < 0)
		return -1;
	register_cbs(id);
	return 0;
}
