#!/usr/bin/env python3
"""Upload (standalone PUT, application/octet-stream) and download a 100 MB attachment,
3 times each, sampling the server's VmRSS every 20 ms; then create the 10-stub doc."""
import base64
import hashlib
import os
import threading
import time
import common
import rawhttp

SIZE, DB, RUNS = 100 * 1024 * 1024, "atts", 3
MB = 1e6
c = common.connect(timeout=300)
common.create_db(c, DB)

peak = {"rss": 0.0}
stop = threading.Event()


def sampler():
    while not stop.is_set():
        peak["rss"] = max(peak["rss"], common.rss_mib())
        time.sleep(0.02)


def upload(docid, data):
    s = common.raw_socket()
    head = (f"PUT /{DB}/{docid}/blob HTTP/1.1\r\nHost: {common.HOST}:{common.PORT}\r\n"
            f"Authorization: {common.AUTH}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {len(data)}\r\n\r\n").encode()
    t0 = time.perf_counter()
    s.sendall(head)
    s.sendall(data)
    buf = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            raise SystemExit(f"upload: connection closed, got {buf[:300]!r}")
        buf += chunk
        done, status, _ = rawhttp.response_complete(buf)
        if done:
            break
    secs = time.perf_counter() - t0
    s.close()
    if status != 201:
        raise SystemExit(f"upload -> {status}: {buf[:300]!r}")
    return secs


def download(docid, keep=False):
    conn = common.connect(timeout=300)
    t0 = time.perf_counter()
    conn.request("GET", f"/{DB}/{docid}/blob", headers={"Authorization": common.AUTH})
    r = conn.getresponse()
    buf = bytearray(1 << 20)
    n, parts = 0, []
    while True:
        k = r.readinto(buf)
        if not k:
            break
        n += k
        if keep:
            parts.append(bytes(buf[:k]))
    secs = time.perf_counter() - t0
    if r.status != 200 or n != SIZE:
        raise SystemExit(f"download -> {r.status}, {n} bytes")
    conn.close()
    return secs, b"".join(parts) if keep else None


threading.Thread(target=sampler, daemon=True).start()
time.sleep(0.2)
base_rss = common.rss_mib()
ups, downs, first = [], [], None
for i in range(RUNS):
    data = os.urandom(SIZE)
    if first is None:
        first = hashlib.sha256(data).hexdigest()
    secs = upload(f"big{i}", data)
    ups.append(secs)
    print(f"upload {i}: {SIZE / MB / secs:.0f} MB/s ({secs:.2f} s), server RSS now {common.rss_mib():.1f} MiB")
    del data
up_peak = peak["rss"]
peak["rss"] = 0.0
for i in range(RUNS):
    secs, body = download("big0", keep=(i == 0))
    downs.append(secs)
    if body is not None:
        assert hashlib.sha256(body).hexdigest() == first, "downloaded bytes differ from the upload"
        del body
    print(f"download {i}: {SIZE / MB / secs:.0f} MB/s ({secs:.2f} s)")
down_peak = peak["rss"]
stop.set()
ups.sort()
downs.sort()
common.figure("attachments upload 100 MB", f"{SIZE / MB / ups[1]:.0f} MB/s (median of {RUNS}; best "
              f"{SIZE / MB / ups[0]:.0f}) — MB = 10^6 bytes")
common.figure("attachments download 100 MB", f"{SIZE / MB / downs[1]:.0f} MB/s (median of {RUNS}; best "
              f"{SIZE / MB / downs[0]:.0f}; first one sha256-checked)")
common.figure("attachments server RSS peak", f"upload {up_peak:.1f} MiB, download {down_peak:.1f} MiB "
              f"(before {base_rss:.1f} MiB; VmHWM {common.proc_status('VmHWM') / 1024:.1f} MiB)")

atts = {f"file{i}.txt": {"content_type": "text/plain",
                         "data": base64.b64encode((f"attachment {i} " * 64).encode()).decode()}
        for i in range(10)}
common.request(c, "PUT", f"/{DB}/stubs", body={"type": "bench", "_attachments": atts}, expect=(201,))
_, doc = common.request(c, "GET", f"/{DB}/stubs")
assert doc.count(b'"stub":true') == 10, doc[:400]
print(f"stub doc: {len(doc)} bytes: {doc[:160].decode()}...")
