"""A second settee for the replication benchmarks: the same binary bench/run
built (SETTEE_BIN), a free loopback port, a temp data directory, the same admin;
stopped by its PID."""
import atexit
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import common


class Peer:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="settee-bench-peer.")
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        env = dict(os.environ, SETTEE_ADMIN=f"{common.USER}:{common.PASS}", SETTEE_LOG_LEVEL="warning")
        self.out = open(os.path.join(self.dir, "out"), "w+")
        self.proc = subprocess.Popen([os.environ["SETTEE_BIN"], "serve", "--bind", "127.0.0.1", "--port",
                                      str(self.port), "--data-dir", os.path.join(self.dir, "data")],
                                     stdout=self.out, stderr=subprocess.STDOUT, env=env)
        for _ in range(300):
            self.out.seek(0)
            if "Settee listening on" in self.out.read():
                break
            if self.proc.poll() is not None:
                raise RuntimeError("peer settee exited before listening")
            time.sleep(0.05)
        self.pid = self.proc.pid
        # bench/run stops a benchmark past its time with SIGTERM: the peer goes with it.
        atexit.register(self.stop)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
        self.url = f"http://127.0.0.1:{self.port}"
        self.admin_url = f"http://{common.USER}:{common.PASS}@127.0.0.1:{self.port}"

    def connect(self, timeout=120):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


def source_admin_url():
    return f"http://{common.USER}:{common.PASS}@{common.HOST}:{common.PORT}"
