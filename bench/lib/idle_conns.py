#!/usr/bin/env python3
"""Open N keep-alive connections, send one GET /_up on each, read the answer, keep
them all open, measure server RSS, close. Usage: idle_conns.py N"""
import selectors
import sys
import time
import common

n = int(sys.argv[1])
before = common.rss_mib()
socks = []
for _ in range(n):
    s = common.raw_socket()
    s.sendall(common.raw_get("/_up"))
    socks.append(s)
sel = selectors.DefaultSelector()
pending = {}
for s in socks:
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
    pending[s] = b""
deadline = time.monotonic() + 60
while pending and time.monotonic() < deadline:
    for key, _ in sel.select(timeout=1):
        s = key.fileobj
        data = s.recv(65536)
        if not data:
            raise SystemExit("server closed an idle connection early")
        pending[s] += data
        head, sep, body = pending[s].partition(b"\r\n\r\n")
        if sep and b" 200 " in head.split(b"\r\n")[0]:
            length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n")
                           if l.lower().startswith(b"content-length:")), 0)
            if len(body) >= length:
                sel.unregister(s)
                del pending[s]
if pending:
    raise SystemExit(f"{len(pending)} connections got no 200 from /_up")
time.sleep(2)  # let the server settle with every connection idle
during = common.rss_mib()
threads = common.proc_status("Threads")
common.figure(f"rss with {n} idle keep-alive connections", f"{during:.1f} MiB "
              f"(before {before:.1f} MiB, +{(during - before) * 1024 * 1024 / n / 1024:.1f} KiB per connection, "
              f"server threads {threads})")
for s in socks:
    s.close()
time.sleep(2)
common.figure("rss after closing them", f"{common.rss_mib():.1f} MiB")
