#!/usr/bin/env python3
"""Runs full `_all_docs?include_docs=true` scans of DB back to back until STOP_FILE
exists, MAX_SCANS are done or MAX_SECONDS pass (bounded either way); then prints a
FIGURE line with the scans' median and longest time.
Usage: scans.py DB STOP_FILE LABEL"""
import os
import sys
import time
import common

MAX_SCANS, MAX_SECONDS = 60, 30
db, stop_file, label = sys.argv[1], sys.argv[2], sys.argv[3]
c = common.connect(timeout=60)
times, t_end = [], time.monotonic() + MAX_SECONDS
while not os.path.exists(stop_file) and len(times) < MAX_SCANS and time.monotonic() < t_end:
    t0 = time.perf_counter()
    common.request(c, "GET", f"/{db}/_all_docs?include_docs=true")
    times.append(time.perf_counter() - t0)
times.sort()
if times:
    common.figure(f"{label} scans", f"{len(times)}, median {times[len(times) // 2] * 1000:.0f} ms, "
                                    f"longest {times[-1] * 1000:.0f} ms")
