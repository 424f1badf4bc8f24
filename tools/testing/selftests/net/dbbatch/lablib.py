# SPDX-License-Identifier: GPL-2.0
"""The lab library (tools/lab/: labvm, router, rows, traffic, labenv...)
for the host-driven tests beside this file: `from lablib import labvm,
router, rows`; importing it puts tools/lab/ on the path for the others
(`from labenv import LabEnv`).  DBBATCH_REPO points them at another tree."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("DBBATCH_REPO", os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "..", "..")))
LAB = os.path.join(REPO, "tools", "lab")
sys.path.insert(0, LAB)

import labvm  # noqa: E402
import netpoll0  # noqa: E402
import router  # noqa: E402
import rows  # noqa: E402
import traffic  # noqa: E402

__all__ = ["HERE", "LAB", "REPO", "labvm", "netpoll0", "router", "rows", "traffic"]
