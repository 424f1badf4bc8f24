# SPDX-License-Identifier: GPL-2.0
"""The lab library (tools/lab/: labvm, router) for the host-driven tests
beside this file: `from lablib import labvm, router`.  DBBATCH_REPO points
them at another tree."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("DBBATCH_REPO", os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "..", "..")))
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))

import labvm  # noqa: E402,F401
import router  # noqa: E402,F401
