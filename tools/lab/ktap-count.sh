#!/bin/bash
# ktap-count.sh LABEL RESULTS-FILE
#
# Count the test cases in KTAP/TAP output as run_kselftest.sh emits it:
# nested tests are prefixed with "# " per level (kselftest) or indented by
# four spaces (the kernel's KTAP, e.g. a test module's output from dmesg),
# in any mix.  Only leaves count: a result line with sub-results before it
# at the next level is a parent.  A failed parent with no failed leaf (a test
# that passed its cases and then crashed or timed out) counts as one failure.
#
# Prints "LABEL: P passed, F failed, S skipped" plus one line per failure on
# stderr; exits 1 on any failure or if no test ran (none, or all skipped).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: tools/lab/ktap-count.sh LABEL RESULTS-FILE" >&2; exit 2; }
in=$2
[ -r "$in" ] || { echo "lab: no results file $in" >&2; in=/dev/null; }

awk -v label="$1" '
{
	sub(/\r$/, "")
	line = $0
	if (line ~ /^LAB-/) next		# the lab'"'"'s own markers
	depth = 0
	for (;;) {
		if (substr(line, 1, 2) == "# ") { line = substr(line, 3); depth++ }
		else if (substr(line, 1, 4) == "    ") { line = substr(line, 5); depth++ }
		else break
	}
	if (line !~ /^(not )?ok [0-9]+([ \t]|$)/) next

	status = (line ~ /^not /) ? "fail" : "pass"
	if (line ~ /#[ \t]*(SKIP|skip|Skip)/) status = "skip"

	if (nchild[depth + 1] == 0) {		# a leaf
		n[status]++
		if (status == "fail") { failed[++nf] = line; subfail[depth]++ }
	} else {				# a parent: its leaves are counted
		if (status == "fail" && subfail[depth + 1] == 0) {
			n["fail"]++; failed[++nf] = line " (no failed case inside)"
			subfail[depth]++
		}
		subfail[depth] += subfail[depth + 1]
		for (d = depth + 1; d <= maxd; d++) { nchild[d] = 0; subfail[d] = 0 }
	}
	nchild[depth]++
	if (depth > maxd) maxd = depth
}
END {
	printf "%s: %d passed, %d failed, %d skipped\n", label, n["pass"], n["fail"], n["skip"]
	for (i = 1; i <= nf; i++) printf "%s: FAILED: %s\n", label, failed[i] > "/dev/stderr"
	if (n["pass"] + n["fail"] == 0) {	# all skipped is not a pass
		printf "%s: no test ran (only %d skipped)\n", label, n["skip"] > "/dev/stderr"
		exit 1
	}
	exit n["fail"] > 0
}' "$in"
