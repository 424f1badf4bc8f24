# SPDX-License-Identifier: GPL-2.0
"""traffic: the host's end of the lab's wires: dbb-gen and dbb-sink
(tools/lab/traffic, built on first use), their rate and size arguments,
a sink's start and stop, and the counter of frames nobody should send.
router.Router.run_gen() runs a step with them."""

import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import threading
import time

LAB = os.path.dirname(os.path.abspath(__file__))
TRAFFIC = os.path.join(LAB, "traffic")


def rate(s):
    m = re.fullmatch(r"([0-9.]+)([kKmMgG]?)", s.strip())
    if not m:
        raise argparse.ArgumentTypeError("bad rate %r" % s)
    mult = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    return int(round(float(m.group(1)) * mult))


def frame_size(s):
    """--size: bytes on the wire (64..9018) or "imix"."""
    if s == "imix":
        return s
    try:
        n = int(s)
    except ValueError:
        n = 0
    if not 64 <= n <= 9018:
        raise argparse.ArgumentTypeError("bad size %r: 64..9018 or imix"
                                         % s)
    return n


def traffic_tools():
    out = os.path.join(TRAFFIC, "build")
    subprocess.run(["make", "-s", "-C", TRAFFIC, "O=" + out], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(out, "dbb-gen"), os.path.join(out, "dbb-sink")


class StrayCounter(threading.Thread):
    """Counts frames the guest sends out of port A (towards the
    generator): none are expected while forwarding A -> B."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", port))
        self.sock.settimeout(0.5)
        self.frames = 0
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                self.sock.recv(70000)
                self.frames += 1
            except socket.timeout:
                continue
            except OSError:
                return


def start_sink(binary, tmp, port, name, extra=""):
    """A fresh dbb-sink (BINARY) on 127.0.0.1:PORT, the host end of a
    port's wire, with EXTRA options; (Popen, its output file's path)
    once it is listening.  Its files are TMP/NAME.*."""
    ready = os.path.join(tmp, name + ".ready")
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as out:
        sink = subprocess.Popen(
            [binary, "--bind", "127.0.0.1:%d" % port, "--json", "--quiet",
             "--idle-ms", "600000", "--ready-file", ready] +
            shlex.split(extra), stdout=out, stderr=subprocess.STDOUT)
    for _ in range(200):
        if os.path.exists(ready):
            break
        time.sleep(0.02)
    return sink, path


def stop_sink(sink, path):
    """SIGTERM a sink; its JSON lines."""
    sink.send_signal(signal.SIGTERM)
    try:
        sink.wait(timeout=10)
    except subprocess.TimeoutExpired:
        sink.kill()
        sink.wait()
    with open(path) as f:
        return json_objects(f)


def json_objects(lines):
    """The JSON objects among LINES (a tool's output; others skipped)."""
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def gen_argv(binary, port, dst_mac, flows, size, src_ip=None, dst_ip=None):
    """dbb-gen (BINARY) into 127.0.0.1:PORT, frames to DST_MAC from FLOWS
    flows of SIZE bytes (SRC_IP/DST_IP: other than dbb-gen's defaults):
    the part of its command line every run shares (the caller adds the
    steps and its own options)."""
    argv = [binary, "--to", "127.0.0.1:%d" % port, "--dst-mac", dst_mac]
    if src_ip:
        argv += ["--src-ip", src_ip]
    if dst_ip:
        argv += ["--dst-ip", dst_ip]
    return argv + ["--quiet", "--flows", str(flows), "--size", str(size)]
