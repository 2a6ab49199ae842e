#!/usr/bin/env python3
"""Streams a 1 GiB attachment through Settee and reports the server's RSS growth.

Issue "Attachments", item 6: uploading and downloading a 1 GiB attachment
(standalone and multipart) keeps the server's RSS growth under 64 MB, and a client
that disconnects mid-upload leaves nothing behind.

Usage: bench/attachments_1gib.py [PATH_TO_SETTEE] [SIZE_MIB]
Starts its own settee on a free loopback port in a temp dir; stops it by PID.
"""
import base64, hashlib, http.client, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time

BIN = sys.argv[1] if len(sys.argv) > 1 else ".build/release/settee"
SIZE = (int(sys.argv[2]) if len(sys.argv) > 2 else 1024) * 1024 * 1024
CHUNK = 1024 * 1024
AUTH = "Basic " + base64.b64encode(b"admin:bench").decode()


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class PeakRSS(threading.Thread):
    """Samples the server's RSS every 20 ms until stopped."""
    def __init__(self, pid):
        super().__init__(daemon=True); self.pid, self.peak, self.running = pid, 0, True
    def run(self):
        while self.running:
            self.peak = max(self.peak, rss_kib(self.pid)); time.sleep(0.02)


def chunks(total):
    block = bytes(range(256)) * (CHUNK // 256)
    sent = 0
    while sent < total:
        n = min(CHUNK, total - sent); yield block[:n]; sent += n


def conn(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=600)


def measure(name, pid, action):
    before = rss_kib(pid); sampler = PeakRSS(pid); sampler.start()
    start = time.monotonic(); action(); elapsed = time.monotonic() - start
    sampler.running = False; sampler.join()
    growth = (sampler.peak - before) / 1024
    print(f"{name:28s} {SIZE / elapsed / 1e6:8.1f} MB/s   RSS growth {growth:7.1f} MB "
          f"({'ok' if growth < 64 else 'OVER 64 MB'})")


def main():
    tmp = tempfile.mkdtemp(prefix="settee-1gib-"); port = free_port()
    env = dict(os.environ, SETTEE_ADMIN="admin:bench")
    server = subprocess.Popen([BIN, "serve", "--bind", "127.0.0.1", "--port", str(port), "--data-dir", tmp + "/data"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert "listening" in server.stdout.readline()
        c = conn(port); c.request("PUT", "/big", headers={"Authorization": AUTH}); assert c.getresponse().status == 201

        def standalone_put():
            c = conn(port)
            c.putrequest("PUT", "/big/doc/blob.bin"); c.putheader("Authorization", AUTH)
            c.putheader("Content-Type", "application/octet-stream"); c.putheader("Content-Length", str(SIZE)); c.endheaders()
            for piece in chunks(SIZE): c.send(piece)
            r = c.getresponse(); body = r.read(); assert r.status == 201, body

        def download():
            c = conn(port); c.request("GET", "/big/doc/blob.bin", headers={"Authorization": AUTH})
            r = c.getresponse(); assert r.status == 200; n = 0
            while True:
                piece = r.read(CHUNK)
                if not piece: break
                n += len(piece)
            assert n == SIZE, n

        def multipart_put():
            boundary = "b" * 32
            doc = json.dumps({"_attachments": {"m.bin": {"follows": True, "content_type": "application/octet-stream",
                                                         "length": SIZE}}}).encode()
            head = (f"--{boundary}\r\nContent-Type: application/json\r\n\r\n").encode() + doc + \
                   (f"\r\n--{boundary}\r\n\r\n").encode()
            tail = f"\r\n--{boundary}--".encode()
            c = conn(port); c.putrequest("PUT", "/big/multi"); c.putheader("Authorization", AUTH)
            c.putheader("Content-Type", f'multipart/related; boundary="{boundary}"')
            c.putheader("Content-Length", str(len(head) + SIZE + len(tail))); c.endheaders()
            c.send(head)
            for piece in chunks(SIZE): c.send(piece)
            c.send(tail); r = c.getresponse(); body = r.read(); assert r.status == 201, body

        measure("standalone upload", server.pid, standalone_put)
        measure("download", server.pid, download)
        measure("multipart upload", server.pid, multipart_put)

        # A client that goes away mid-upload: nothing visible, no temp file left.
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall((f"PUT /big/gone/x.bin HTTP/1.1\r\nHost: x\r\nAuthorization: {AUTH}\r\n"
                   f"Content-Type: application/octet-stream\r\nContent-Length: {SIZE}\r\n\r\n").encode())
        s.sendall(bytes(8 * CHUNK)); s.close()
        c = conn(port); c.request("GET", "/big/gone", headers={"Authorization": AUTH}); r = c.getresponse(); r.read()
        blobs = [d for d in os.listdir(tmp + "/data") if d.endswith(".blobs")]
        leftovers = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            leftovers = [f for d in blobs for f in os.listdir(os.path.join(tmp, "data", d)) if f.startswith("tmp")]
            if not leftovers: break
            time.sleep(0.1)
        print(f"disconnect mid-upload: document {'absent' if r.status == 404 else 'PRESENT'}, "
              f"temp files left: {len(leftovers)}")
    finally:
        server.send_signal(signal.SIGTERM); server.wait(timeout=60); shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
