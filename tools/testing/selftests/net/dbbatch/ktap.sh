#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KTAP output for the dbbatch shell selftests (the kselftest exit codes:
# 0 pass, 1 fail, 4 skip).

KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_N=0

ktap_header() # count
{
	echo "TAP version 13"
	echo "1..$1"
}

ktap_result() # status(0 pass, 4 skip, else fail) name [reason]
{
	KTAP_N=$((KTAP_N + 1))
	case "$1" in
	0) KTAP_PASS=$((KTAP_PASS + 1)); echo "ok $KTAP_N $2" ;;
	4) KTAP_SKIP=$((KTAP_SKIP + 1)); echo "ok $KTAP_N $2 # SKIP ${3:-}" ;;
	*) KTAP_FAIL=$((KTAP_FAIL + 1)); echo "not ok $KTAP_N $2${3:+ # $3}" ;;
	esac
}

ktap_finish()
{
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:0 xpass:0 skip:$KTAP_SKIP error:0"
	[ "$KTAP_FAIL" -eq 0 ] || exit 1
	[ "$KTAP_PASS" -gt 0 ] || exit 4
	exit 0
}

ktap_skip_all() # reason
{
	echo "TAP version 13"
	echo "1..0 # SKIP $1"
	exit 4
}
