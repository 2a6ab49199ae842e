#!/usr/bin/env python3
"""Reads wrk --latency output on stdin, prints it, then FIGURE lines for req/s and p99.
Usage: wrkstats.py LABEL"""
import re
import sys
import common

label = sys.argv[1]
text = sys.stdin.read()
print(text, end="")
rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
errors = re.search(r"Socket errors:.*", text)


def ms(m):
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v


common.figure(f"{label} requests/s", f"{float(rps.group(1)):,.0f}" if rps else "n/a")
if p50:
    common.figure(f"{label} p50 latency", f"{ms(p50):.2f} ms")
if p99:
    common.figure(f"{label} p99 latency", f"{ms(p99):.2f} ms")
if non2xx:
    common.figure(f"{label} non-2xx responses", non2xx.group(1))
if errors:
    common.figure(f"{label} socket errors", errors.group(0))
