"""Helpers shared by the Python benchmarks: the server under test comes from the
environment bench/run sets (SETTEE_URL, SETTEE_USER, SETTEE_PASS, SETTEE_PID)."""
import base64
import http.client
import json
import os
import socket
import time
import urllib.parse

URL = os.environ.get("SETTEE_URL", "http://127.0.0.1:5984")
_u = urllib.parse.urlsplit(URL)
HOST, PORT = _u.hostname, _u.port
assert HOST in ("127.0.0.1", "localhost"), "benchmarks only ever talk to loopback"
USER = os.environ.get("SETTEE_USER", "admin")
PASS = os.environ.get("SETTEE_PASS", "pw")
AUTH = "Basic " + base64.b64encode(f"{USER}:{PASS}".encode()).decode()
PID = int(os.environ.get("SETTEE_PID", "0"))


def connect(timeout=120):
    return http.client.HTTPConnection(HOST, PORT, timeout=timeout)


def request(conn, method, path, body=None, headers=None, expect=(200, 201, 202)):
    """One request on a keep-alive connection; returns (status, body bytes)."""
    h = {"Authorization": AUTH}
    if isinstance(body, (dict, list)):
        body = json.dumps(body, separators=(",", ":")).encode()
        h["Content-Type"] = "application/json"
    h.update(headers or {})
    conn.request(method, path, body=body, headers=h)
    resp = conn.getresponse()
    data = resp.read()
    if expect and resp.status not in expect:
        raise RuntimeError(f"{method} {path} -> {resp.status} {data[:300]!r}")
    return resp.status, data


def proc_status(field, pid=None):
    """A /proc/PID/status field in KiB (VmRSS, VmHWM, Threads...)."""
    with open(f"/proc/{pid or PID}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def rss_mib(pid=None):
    return proc_status("VmRSS", pid) / 1024.0


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def create_db(conn, db):
    request(conn, "PUT", f"/{db}", expect=(201, 202))


def small_doc(i, prefix="doc"):
    return {"_id": f"{prefix}{i:06d}", "n": i, "type": "bench",
            "name": f"name-{i}", "tags": ["a", "b", "c"], "active": i % 2 == 0}


def load_docs(conn, db, n, batch=1000, prefix="doc"):
    """Writes n small docs in _bulk_docs batches; returns the elapsed seconds
    (body encoding excluded: batches are encoded before the clock starts)."""
    bodies = []
    for start in range(0, n, batch):
        docs = [small_doc(i, prefix) for i in range(start, min(n, start + batch))]
        bodies.append(json.dumps({"docs": docs}, separators=(",", ":")).encode())
    t0 = time.perf_counter()
    for body in bodies:
        _, data = request(conn, "POST", f"/{db}/_bulk_docs", body=body,
                          headers={"Content-Type": "application/json"}, expect=(201,))
        if b'"error"' in data:
            raise RuntimeError(f"_bulk_docs item error: {data[:300]!r}")
    return time.perf_counter() - t0


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100.0 * (len(sorted_values) - 1)))))
    return sorted_values[k]


def figure(label, value):
    """One result line; bench/run greps lines starting with 'FIGURE'."""
    print(f"FIGURE {label}: {value}   (loadavg {loadavg()})", flush=True)


def raw_socket():
    s = socket.create_connection((HOST, PORT))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def raw_get(path, extra=""):
    return (f"GET {path} HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nAuthorization: {AUTH}\r\n"
            f"{extra}\r\n").encode()
