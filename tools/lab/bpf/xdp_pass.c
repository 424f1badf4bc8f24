// SPDX-License-Identifier: GPL-2.0
/* The least XDP program: pass every frame.  The lab attaches it (bpftool,
 * xdpdrv) where a test needs a program swap and not what it does.  No
 * headers, so that it builds with clang alone: tools/lab/pcierr.py.
 */
#define SEC(name) __attribute__((section(name), used))
#define XDP_PASS 2

struct xdp_md;

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
