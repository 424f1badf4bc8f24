// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix module parameters: what a port starts with when it is probed.
 *
 * oq_wmark is the firmware image's output watermark (SDP_OUT_WMARK), which
 * the host cannot read: the receive credit is computed for it.  Per port
 * it can be changed in debugfs (octep_fix/<pci>/oq_wmark).  The doorbell
 * knobs are the ethtool private flags of the same names.  A value out of
 * range is refused, so that a typo fails the load instead of meaning
 * something else.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>

#include "octf.h"

static unsigned int db_skip_empty = 1;
static unsigned int tx_db_batched = 1;
static unsigned int oq_wmark = OCTF_WMARK_DEFAULT;

const char *octf_credit_err_str(enum octf_credit_err err)
{
	switch (err) {
	case OCTF_CREDIT_OK:
		return "ok";
	case OCTF_CREDIT_NOT_FETCHES:
		return "not a multiple of 16 (the block fetches 16 buffers at a time)";
	case OCTF_CREDIT_TOO_SMALL:
		return "too small";
	case OCTF_CREDIT_TOO_LARGE:
		return "too large";
	case OCTF_CREDIT_OVER_BUFFERS:
		return "more than the buffers allocated behind it";
	}
	return "invalid";
}

static int octf_param_set_01(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (!val || kstrtouint(val, 0, &v) || v > 1) {
		pr_err("invalid value '%s' for parameter '%s': accepted values are 0 and 1\n",
		       val ? val : "", kp->name);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops octf_param_ops_01 = {
	.set = octf_param_set_01,
	.get = param_get_uint,
};

static int octf_param_set_wmark(const char *val, const struct kernel_param *kp)
{
	enum octf_credit_err err;
	unsigned int v;

	if (!val || kstrtouint(val, 0, &v)) {
		pr_err("invalid value '%s' for parameter 'oq_wmark': give a number such as 0x100 or 0x400\n",
		       val ? val : "");
		return -EINVAL;
	}
	err = octf_wmark_check(v);
	if (err) {
		pr_err("oq_wmark %#x refused: %s; it must be a multiple of 16 from %#x to %#x, the firmware's SDP_OUT_WMARK (0x100 in stock Marvell firmware)\n",
		       v, octf_credit_err_str(err), OCTF_WMARK_MIN,
		       OCTF_WMARK_MAX);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops octf_param_ops_wmark = {
	.set = octf_param_set_wmark,
	.get = param_get_uint,
};

module_param_cb(db_skip_empty, &octf_param_ops_01, &db_skip_empty, 0444);
MODULE_PARM_DESC(db_skip_empty,
		 "Never write a doorbell that would announce nothing (0 or 1, default 1)");
module_param_cb(tx_db_batched, &octf_param_ops_01, &tx_db_batched, 0444);
MODULE_PARM_DESC(tx_db_batched,
		 "Hold stack transmit doorbells for a receive NAPI pass and ring once at its end (0 or 1, default 1)");
module_param_cb(oq_wmark, &octf_param_ops_wmark, &oq_wmark, 0444);
MODULE_PARM_DESC(oq_wmark,
		 "The firmware's output watermark SDP_OUT_WMARK, which sets the receive credit: a multiple of 16, 0x10-0x4000 (default 0x100, stock firmware; too high laps the ring, too low leaves buffers unused)");

/* The OCTF_DB_* flags a newly probed port starts with. */
u32 octf_params_db_flags(void)
{
	u32 flags = 0;

	if (db_skip_empty)
		flags |= OCTF_DB_SKIP_EMPTY;
	if (tx_db_batched)
		flags |= OCTF_DB_TX_BATCHED;
	return flags;
}

u32 octf_params_wmark(void)
{
	return oq_wmark;
}
