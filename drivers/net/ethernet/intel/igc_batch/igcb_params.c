// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch module parameters: the doorbell policy's defaults.
 *
 * They set what a port starts with when it is probed; the ethtool private
 * flags of the same names change one port at runtime.  A value other than
 * 0 or 1 is refused, so that a typo fails the load instead of silently
 * meaning "on".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>

#include "igcb.h"

static unsigned int db_skip_empty = 1;
static unsigned int tx_db_batched = 1;

static int igcb_param_set_01(const char *val, const struct kernel_param *kp)
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

static const struct kernel_param_ops igcb_param_ops_01 = {
	.set = igcb_param_set_01,
	.get = param_get_uint,
};

module_param_cb(db_skip_empty, &igcb_param_ops_01, &db_skip_empty, 0444);
MODULE_PARM_DESC(db_skip_empty,
		 "Never write a tail register that would publish nothing (0 or 1, default 1)");
module_param_cb(tx_db_batched, &igcb_param_ops_01, &tx_db_batched, 0444);
MODULE_PARM_DESC(tx_db_batched,
		 "Hold stack transmit doorbells for a receive NAPI pass and ring once at its end (0 or 1, default 1)");

/* The IGCB_DB_* flags a newly probed port starts with. */
u32 igcb_params_db_flags(void)
{
	u32 flags = 0;

	if (db_skip_empty)
		flags |= IGCB_DB_SKIP_EMPTY;
	if (tx_db_batched)
		flags |= IGCB_DB_TX_BATCHED;
	return flags;
}
