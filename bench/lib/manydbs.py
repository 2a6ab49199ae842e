"""Many databases (issue 45 item 3), as a new user would make them: one database per
user, as PouchDB apps do. For each count (100, 1,000, 10,000 by default): start a fresh
server, create the databases and write one document to each, keep 100 of them busy
while the rest sit idle, list them (`_all_dbs`, `_dbs_info`), read documents from
databases the cap closed (reopen latency), then restart and read again. Prints RSS,
descriptors and start-up time per count.

Usage: python3 bench/lib/manydbs.py BINARY [COUNT...]   (env MAX_DBS_OPEN: the cap to
configure, default none = the server's default)."""
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ADMIN = ("admin", "pw")
AUTH = "Basic " + __import__("base64").b64encode(f"{ADMIN[0]}:{ADMIN[1]}".encode()).decode()
CLIENTS = 4
BUSY = 100


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def cpu_ms(pid):
    """The process's user and system CPU time so far, in milliseconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Server:
    def __init__(self, binary, data, ini):
        self.binary, self.data, self.ini = binary, data, ini
        self.port = free_port()
        self.proc = None

    def start(self):
        """Starts the server; returns the seconds until it answered GET /_up."""
        env = dict(os.environ, SETTEE_ADMIN=f"{ADMIN[0]}:{ADMIN[1]}", SETTEE_LOG_LEVEL="warning")
        args = [self.binary, "serve", "--bind", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data]
        if self.ini:
            args += ["--config", self.ini]
        t0 = time.perf_counter()
        self.log = open(os.path.join(os.path.dirname(self.data), "settee.log"), "ab")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.log, env=env)
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                c.request("GET", "/_up")
                if c.getresponse().status == 200:
                    return time.perf_counter() - t0
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("settee exited during start-up")
            time.sleep(0.005)

    def stop(self):
        """SIGTERM; returns the seconds until the process exited."""
        t0 = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=120)
        return time.perf_counter() - t0

    def connect(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)


def request(conn, method, path, body=None, expect=(200, 201, 202)):
    headers = {"Authorization": AUTH}
    if body is not None:
        body = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    if expect and resp.status not in expect:
        raise RuntimeError(f"{method} {path} -> {resp.status} {data[:200]!r}")
    return resp.status, data


def in_parallel(server, items, work):
    """Runs work(conn, item) for every item on CLIENTS keep-alive connections."""
    chunks = [items[i::CLIENTS] for i in range(CLIENTS)]
    errors = []

    def run(chunk):
        conn = server.connect()
        try:
            for item in chunk:
                work(conn, item)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=run, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def timed_gets(conn, paths):
    times = []
    for path in paths:
        t0 = time.perf_counter()
        request(conn, "GET", path)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def busy_phase(server, names, seconds=10):
    """BUSY databases read and written by CLIENTS clients for `seconds`; the rest idle."""
    stop = time.perf_counter() + seconds
    counts, latencies = [0] * CLIENTS, [[] for _ in range(CLIENTS)]

    def run(k):
        conn, rnd, i = server.connect(), random.Random(k), 0
        while time.perf_counter() < stop:
            db = names[rnd.randrange(BUSY)]
            t0 = time.perf_counter()
            if i % 5 == 0:
                request(conn, "PUT", f"/{db}/busy{k}-{i}", {"v": i})
            else:
                request(conn, "GET", f"/{db}/doc")
            latencies[k].append((time.perf_counter() - t0) * 1000)
            counts[k] += 1
            i += 1
    threads = [threading.Thread(target=run, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    peak_rss = peak_fds = 0
    while any(t.is_alive() for t in threads):
        peak_rss = max(peak_rss, rss_mib(server.proc.pid))
        peak_fds = max(peak_fds, descriptors(server.proc.pid))
        time.sleep(0.5)
    for t in threads:
        t.join()
    all_latencies = [x for l in latencies for x in l]
    return sum(counts) / seconds, pct(all_latencies, 0.5), pct(all_latencies, 0.99), peak_rss, peak_fds


def run(binary, count, root):
    data = os.path.join(root, f"n{count}", "data")
    os.makedirs(data)
    ini = None
    if os.environ.get("MAX_DBS_OPEN"):
        ini = os.path.join(root, f"n{count}", "settee.ini")
        with open(ini, "w") as f:
            f.write(f"[couchdb]\nmax_dbs_open = {os.environ['MAX_DBS_OPEN']}\n")
    server = Server(binary, data, ini)
    start_empty = server.start()
    pid = server.proc.pid
    print(f"FIGURE manydbs {count}: start-up with no databases {start_empty * 1000:.0f} ms, "
          f"RSS {rss_mib(pid):.1f} MiB, {descriptors(pid)} descriptors   (loadavg {loadavg()})", flush=True)
    names = [f"user{i:05d}" for i in range(count)]
    t0 = time.perf_counter()
    in_parallel(server, names, lambda c, n: request(c, "PUT", f"/{n}", expect=(201,)))
    created = time.perf_counter() - t0
    t0 = time.perf_counter()
    in_parallel(server, names, lambda c, n: request(c, "PUT", f"/{n}/doc", {"owner": n}, expect=(201,)))
    written = time.perf_counter() - t0
    conn = server.connect()
    _, system = request(conn, "GET", "/_node/_local/_system")
    system = json.loads(system)
    print(f"FIGURE manydbs {count}: created in {created:.1f} s ({count / created:.0f}/s), one document each in "
          f"{written:.1f} s ({count / written:.0f}/s); RSS {rss_mib(pid):.1f} MiB, {descriptors(pid)} descriptors, "
          f"open_databases {system.get('open_databases')}   (loadavg {loadavg()})", flush=True)
    rate, p50, p99, peak_rss, peak_fds = busy_phase(server, names)
    print(f"FIGURE manydbs {count}: {min(BUSY, count)} busy, the rest idle: {rate:.0f} req/s (GET doc, 1 in 5 a PUT), "
          f"p50 {p50:.2f} ms, p99 {p99:.2f} ms; peak RSS {peak_rss:.1f} MiB, peak {peak_fds} descriptors   "
          f"(loadavg {loadavg()})", flush=True)
    t0 = time.perf_counter()
    _, body = request(conn, "GET", "/_all_dbs")
    all_dbs = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, info = request(conn, "GET", "/_dbs_info")
    dbs_info = time.perf_counter() - t0
    rows = json.loads(info)
    assert len(json.loads(body)) == count + 2 and sum(1 for r in rows if r.get("info", {}).get("doc_count", 0) >= 1) == count
    print(f"FIGURE manydbs {count}: _all_dbs {all_dbs * 1000:.0f} ms, _dbs_info over all {dbs_info * 1000:.0f} ms; "
          f"RSS {rss_mib(pid):.1f} MiB, {descriptors(pid)} descriptors", flush=True)
    # Reopen latency: GETs of a database the cap closed (the least recently used:
    # `_dbs_info` walked them in name order) against GETs of one just used.
    sample = names[: min(200, count)] if count > 600 else []
    # The server's CPU time per request as well: unlike latency, it hardly depends on
    # what else the shared machine runs.
    cpu0 = cpu_ms(pid)
    hot = timed_gets(conn, [f"/{names[-1]}/doc"] * len(sample or [0] * 200))
    hot_cpu = (cpu_ms(pid) - cpu0) / len(hot)
    if sample:
        cpu0 = cpu_ms(pid)
        cold = timed_gets(conn, [f"/{n}/doc" for n in sample])
        cold_cpu = (cpu_ms(pid) - cpu0) / len(cold)
        print(f"FIGURE manydbs {count}: GET of a closed database p50 {pct(cold, 0.5):.2f} ms, p99 {pct(cold, 0.99):.2f} ms, "
              f"server CPU {cold_cpu:.2f} ms a request; of an open one p50 {pct(hot, 0.5):.2f} ms, p99 {pct(hot, 0.99):.2f} ms, "
              f"CPU {hot_cpu:.2f} ms: reopening costs about {pct(cold, 0.5) - pct(hot, 0.5):.2f} ms "
              f"({cold_cpu - hot_cpu:.2f} ms of CPU, closing another included)   (loadavg {loadavg()})", flush=True)
    conn.close()
    stopped = server.stop()
    started = server.start()
    pid = server.proc.pid
    idle_rss, idle_fds = rss_mib(pid), descriptors(pid)
    conn = server.connect()
    reads = timed_gets(conn, [f"/{n}/doc" for n in random.Random(1).sample(names, min(200, count))])
    print(f"FIGURE manydbs {count}: stopped in {stopped * 1000:.0f} ms; restarted (answering /_up) in "
          f"{started * 1000:.0f} ms with RSS {idle_rss:.1f} MiB, {idle_fds} descriptors; first GETs after it p50 "
          f"{pct(reads, 0.5):.2f} ms, p99 {pct(reads, 0.99):.2f} ms; then RSS {rss_mib(pid):.1f} MiB, "
          f"{descriptors(pid)} descriptors   (loadavg {loadavg()})", flush=True)
    conn.close()
    server.stop()


def main():
    binary = sys.argv[1]
    counts = [int(c) for c in sys.argv[2:]] or [100, 1000, 10000]
    with tempfile.TemporaryDirectory(prefix="settee-manydbs-") as root:
        for count in counts:
            run(binary, count, root)


if __name__ == "__main__":
    main()
