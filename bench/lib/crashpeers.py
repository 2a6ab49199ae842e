"""Peers for bench/crashloop: settee servers that are killed with SIGKILL and
started again on the same port and data directory, and a small JSON client that
treats a refused or reset connection as "no answer" (the peer may be down)."""
import base64
import http.client
import json
import os
import signal
import socket
import subprocess
import time

USER, PASS = "admin", "pw"
AUTH = "Basic " + base64.b64encode(f"{USER}:{PASS}".encode()).decode()
DB = "crash"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Peer:
    """One settee: `start` launches it (again), `kill` sends SIGKILL to its pid only."""

    def __init__(self, binary, root, index):
        self.binary, self.index = binary, index
        self.dir = os.path.join(root, f"peer{index}")
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.log_path = os.path.join(self.dir, "settee.log")
        self.proc = None
        self.starts = 0
        self.url = f"http://{USER}:{PASS}@127.0.0.1:{self.port}/{DB}"

    def start(self, timeout=60):
        log = open(self.log_path, "ab")
        offset = log.tell()
        env = dict(os.environ, SETTEE_ADMIN=f"{USER}:{PASS}", SETTEE_LOG_LEVEL="info")
        self.proc = subprocess.Popen([self.binary, "serve", "--bind", "127.0.0.1", "--port", str(self.port),
                                      "--data-dir", os.path.join(self.dir, "data")],
                                     stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                if b"Settee listening on" in f.read():
                    return
            if self.proc.poll() is not None:
                raise RuntimeError(f"peer{self.index} exited with {self.proc.returncode} before listening")
            time.sleep(0.02)  # polling the log for the listening line, with a deadline
        raise RuntimeError(f"peer{self.index} not listening after {timeout} s")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def client(self, timeout=30):
        return Client(self.port, timeout)


class Client:
    """Keep-alive JSON requests to one peer; any connection failure → (None, None)."""

    def __init__(self, port, timeout):
        self.port, self.timeout = port, timeout
        self.conn = None

    def request(self, method, path, body=None, headers=None, raw=False):
        h = {"Authorization": AUTH}
        if isinstance(body, (dict, list)):
            body = json.dumps(body, separators=(",", ":")).encode()
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            self.conn.request(method, path, body=body, headers=h)
            resp = self.conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            self.close()
            return None, None
        if resp.getheader("Connection", "").lower() == "close":
            self.close()
        if raw:
            return resp.status, data
        try:
            return resp.status, json.loads(data) if data else None
        except ValueError:
            return resp.status, None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def leaves(client):
    """id → (sorted leaf revs) from `_changes?style=all_docs`, or None when the peer is down."""
    status, body = client.request("GET", f"/{DB}/_changes?style=all_docs")
    if status != 200:
        return None
    return {row["id"]: tuple(sorted(c["rev"] for c in row["changes"])) for row in body["results"]}


def missing(client, wanted):
    """Of {id: [revs]}, what the peer lacks (`_revs_diff`), in batches; None when it is down."""
    out = {}
    items = list(wanted.items())
    for start in range(0, len(items), 500):
        status, body = client.request("POST", f"/{DB}/_revs_diff", dict(items[start:start + 500]))
        if status != 200:
            return None
        for docid, diff in body.items():
            out[docid] = diff["missing"]
    return out
