#!/usr/bin/env python3
"""Open N HTTPS keep-alive connections to SETTEE_TLS_URL, one GET /_up on each, keep
them all open and measure the server's RSS: what an idle TLS connection costs it.
Usage: idle_tls.py N"""
import os
import socket
import ssl
import sys
import urllib.parse
import common

n = int(sys.argv[1])
url = urllib.parse.urlsplit(os.environ["SETTEE_TLS_URL"])
assert url.hostname in ("127.0.0.1", "localhost"), "benchmarks only ever talk to loopback"
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE  # the server's generated self-signed certificate


def connection():
    s = context.wrap_socket(socket.create_connection((url.hostname, url.port)))
    s.sendall(b"GET /_up HTTP/1.1\r\nHost: bench\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = s.recv(4096)
        if not chunk:
            raise SystemExit("server closed a TLS connection early")
        answer += chunk
    if b" 200 " not in answer.split(b"\r\n")[0]:
        raise SystemExit(f"GET /_up over TLS: {answer[:80]!r}")
    return s


warm = [connection() for _ in range(20)]  # the TLS code's first allocations
before = common.rss_mib()
socks = [connection() for _ in range(n)]
during = common.rss_mib()
common.figure(f"rss with {n} idle TLS keep-alive connections",
              f"{during:.1f} MiB (before {before:.1f} MiB, +{(during - before) * 1024 / n:.1f} KiB per connection)")
for s in socks + warm:
    s.close()
