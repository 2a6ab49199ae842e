"""The room bench/room and the room test build: namespaces on one bridge, a settee in each,
and a client per device that talks to it over the device's own loopback (see bench/room)."""
import base64
import ctypes
import http.client
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)
USER, PASS = "admin", "pw"
AUTH = "Basic " + base64.b64encode(f"{USER}:{PASS}".encode()).decode()
SUBNET = "198.18.0"


@dataclass
class Settings:
    writes: int
    burst: int
    away: float
    idle: float
    names: str
    quick: bool


def release_binary(root):
    subprocess.run(["swift", "build", "-c", "release", "-j", "2"], cwd=root, check=True,
                   stdout=subprocess.DEVNULL)
    out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=root, check=True,
                         capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "settee")


def enter_netns(name):
    """Moves the calling thread (only it) into network namespace `name`."""
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {name}")
    finally:
        os.close(fd)


def sh(*args, check=True):
    result = subprocess.run(list(args), capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {result.stderr.strip()}")
    return result


def daemons_default(names):
    """bench/room's ROOM_DAEMONS when unset (`Room.daemons_first`)."""
    return "together" if names == "shared" else "first"


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Device:
    """One device: its namespace, address, settee process, and a worker thread inside its
    namespace through which every request to it goes (http on 127.0.0.1:5984)."""

    def __init__(self, room, index):
        self.room, self.index = room, index
        self.netns = f"{room.prefix}d{index}"
        self.address = f"{SUBNET}.{10 + index}"
        self.port_name = f"s{index}"
        self.dir = os.path.join(room.work, f"d{index}")
        self.process = None
        self.jobs = queue.Queue()
        self.conn = None
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        enter_netns_ready = False
        while True:
            item = self.jobs.get()
            if item is None:
                return
            fn, box, done = item
            try:
                if not enter_netns_ready:
                    enter_netns(self.netns)
                    enter_netns_ready = True
                box.append((True, fn()))
            except Exception as error:  # handed back to the caller
                box.append((False, error))
            done.set()

    def call(self, fn, timeout=60):
        box, done = [], threading.Event()
        self.jobs.put((fn, box, done))
        if not done.wait(timeout):
            raise TimeoutError(f"device {self.index}: no answer in {timeout} s")
        ok, value = box[0]
        if not ok:
            raise value
        return value

    def request(self, method, path, body=None, timeout=60):
        """(status, JSON) for one request, on a keep-alive connection kept by the worker."""
        def go():
            for attempt in (0, 1):
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", 5984, timeout=timeout)
                try:
                    headers = {"Authorization": AUTH, "Accept": "application/json"}
                    data = None
                    if body is not None:
                        data = json.dumps(body).encode()
                        headers["Content-Type"] = "application/json"
                    self.conn.request(method, path, body=data, headers=headers)
                    resp = self.conn.getresponse()
                    raw = resp.read()
                    return resp.status, (json.loads(raw) if raw else None)
                except (OSError, http.client.HTTPException):
                    self.conn.close()
                    self.conn = None
                    if attempt:
                        raise
        return self.call(go, timeout + 5)

    def feed(self, on_change, stop):
        """A thread following `room/_changes` continuously; on_change(index, id) per row."""
        def follow():
            enter_netns(self.netns)
            since = "0"
            while not stop.is_set():
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", 5984, timeout=10)
                    conn.request("GET", f"/room/_changes?feed=continuous&heartbeat=2000&since={since}",
                                 headers={"Authorization": AUTH})
                    resp = conn.getresponse()
                    while not stop.is_set():
                        line = resp.readline()
                        if not line:
                            break
                        line = line.strip()
                        if not line:
                            continue
                        row = json.loads(line)
                        if "id" in row:
                            on_change(self.index, row["id"])
                        since = row.get("seq", row.get("last_seq", since))
                    conn.close()
                except (OSError, http.client.HTTPException, ValueError):
                    time.sleep(0.2)
        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        return thread

    def tree_usage(self):
        """{command name: (CPU seconds, start in seconds of CLOCK_BOOTTIME)} of the processes
        under this device's mdns-host (D-Bus, avahi-daemon, settee, the scripts between)."""
        usage, todo = {}, [self.process.pid] if self.process else []
        tick = os.sysconf("SC_CLK_TCK")
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/comm") as f:
                    name = f.read().strip()
                with open(f"/proc/{pid}/task/{pid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                continue
            cpu, start = (int(fields[11]) + int(fields[12])) / tick, int(fields[19]) / tick
            before = usage.get(name, (0.0, start))
            usage[name] = (before[0] + cpu, min(before[1], start))
        return usage

    def settee_pid(self):
        """The settee process under mdns-host (its descendant running the binary)."""
        if not self.process:
            return None
        todo = [self.process.pid]
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as f:
                    children = [int(c) for c in f.read().split()]
                if os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath(self.room.binary):
                    return pid
            except OSError:
                continue
            todo.extend(children)
        return None


class Room:
    def __init__(self, root, binary, n, loss, rate, settings, tag):
        self.root, self.binary, self.n, self.loss, self.rate = root, binary, n, loss, rate
        self.settings = settings
        self.prefix = f"rm{tag}"
        self.switch = f"{self.prefix}sw"
        self.work = tempfile.mkdtemp(prefix="settee-room.")
        self.devices = []
        self.made = []

    def build(self):
        sh("ip", "netns", "add", self.switch)
        self.made.append(self.switch)
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        for i in range(self.n):
            d = Device(self, i)
            self.devices.append(d)
            sh("ip", "netns", "add", d.netns)
            self.made.append(d.netns)
            # MAC addresses descend as IPv4 addresses ascend, so IPv6 link-local addresses sort
            # the other way round from IPv4 ones: the order in which avahi's record-by-record
            # probe tie-break makes every host sharing a name lose (HostNameGuard.swift), every run.
            sh("ip", "-n", self.switch, "link", "add", d.port_name, "type", "veth", "peer", "name", "eth0",
               "address", f"02:00:00:00:{(0xfffe - i) >> 8:02x}:{(0xfffe - i) & 0xff:02x}", "netns", d.netns)
            sh("ip", "-n", self.switch, "link", "set", d.port_name, "master", "br0", "up")
            sh("ip", "-n", d.netns, "addr", "add", f"{d.address}/24", "dev", "eth0")
            sh("ip", "-n", d.netns, "link", "set", "lo", "up")
            sh("ip", "-n", d.netns, "link", "set", "eth0", "up")
            self.impair(d)

    def impair(self, d):
        ns = ["ip", "netns", "exec", d.netns]
        # A chain of its own for the partition, ahead of the loss.
        sh(*ns, "iptables", "-N", "ROOMPART")
        sh(*ns, "iptables", "-A", "INPUT", "-j", "ROOMPART")
        if self.loss > 0:
            sh(*ns, "iptables", "-A", "INPUT", "-i", "eth0", "-m", "statistic", "--mode", "random",
               "--probability", str(self.loss), "-j", "DROP")
        if self.rate:
            sh(*ns, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", self.rate,
               "burst", "32kbit", "latency", "200ms")

    def daemons_first(self):
        """ROOM_DAEMONS: `first` (the default, but see below) starts every device's D-Bus and avahi-daemon, waits
        until each is running (its host name probed and announced), then every settee, as on
        real devices whose daemon has been up long before; `together` starts each daemon with
        its settee (20 daemons probing host names and services at once). Rooms of one shared host
        name default to `together`: their daemons rename their hosts in step for ever until each
        Settee's HostNameGuard gives its own a name (README "Discovery"), so none settles first."""
        mode = os.environ.get("ROOM_DAEMONS") or daemons_default(self.settings.names)
        if mode not in ("first", "together"):
            raise ValueError(f"ROOM_DAEMONS={mode}: first or together")
        return mode == "first"

    def start(self):
        """Starts every device's settee; the time the last one was started (`time.monotonic()`;
        `self.boot_t0` is the same moment on CLOCK_BOOTTIME, the clock of /proc's start times).
        With the daemons first, `self.daemons_settled` is how long they took (s)."""
        first = self.daemons_first()
        t0 = time.monotonic()
        for d in self.devices:
            self.launch(d, first)
        if first:
            self.daemons_settled = self.wait_settled(t0)
            for d in self.devices:  # each gate's writer: its mdns-host execs settee at the close
                os.close(os.open(d.gate, os.O_WRONLY))
        self.boot_t0 = time.clock_gettime(time.CLOCK_BOOTTIME)
        return time.monotonic()

    def launch(self, d, gated):
        os.makedirs(d.dir, exist_ok=True)
        ini = os.path.join(d.dir, "settee.ini")
        name = f"\nname = Settee d{d.index}" if self.settings.names == "distinct" else ""
        with open(ini, "w") as f:
            topology = os.environ.get("ROOM_TOPOLOGY", "mesh")
            f.write(f"[discovery]\nenabled = true\nsync = room\ncredentials = {USER}:{PASS}{name}\n"
                    f"topology = {topology}\n")
        # shared: one host name for all (every Raspberry Pi is raspberrypi); instance: each
        # avahi its own host name, every settee the same instance name; distinct: neither shared.
        host = "raspberrypi" if self.settings.names == "shared" else f"device{d.index}"
        env = dict(os.environ, SETTEE_ADMIN=f"{USER}:{PASS}",
                   SETTEE_LOG_LEVEL=os.environ.get("ROOM_LOG_LEVEL", "notice"),
                   MDNS_HOST_AVAHI_LOG=os.path.join(d.dir, "avahi.log"))
        env.pop("SETTEE_TLS_PORT", None)
        if gated:
            d.settled, d.gate = os.path.join(d.dir, "settled"), os.path.join(d.dir, "gate")
            os.mkfifo(d.gate)
            env.update(MDNS_HOST_SETTLED=d.settled, MDNS_HOST_GATE=d.gate)
        d.log = open(os.path.join(d.dir, "settee.log"), "w")
        d.process = subprocess.Popen(
            [os.path.join(self.root, "scripts/mdns-host"), d.netns, host, self.binary, "serve",
             "--bind", "0.0.0.0", "--port", "5984", "--data-dir", os.path.join(d.dir, "data"), "--config", ini],
            stdout=d.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def wait_settled(self, t0, seconds=120):
        """Seconds until every device's avahi-daemon is running (mdns-host's MDNS_HOST_SETTLED)."""
        deadline = t0 + seconds
        for d in self.devices:
            while not os.path.exists(d.settled):
                if time.monotonic() > deadline or d.process.poll() is not None:
                    raise RuntimeError(f"device {d.index}: avahi-daemon not running: see {d.dir}/avahi.log")
                time.sleep(0.05)
        return time.monotonic() - t0

    def wait_listening(self, seconds=60):
        deadline = time.monotonic() + seconds
        for d in self.devices:
            while True:
                try:
                    if d.request("GET", "/", timeout=2)[0] == 200:
                        break
                except Exception:
                    pass
                if time.monotonic() > deadline or d.process.poll() is not None:
                    raise RuntimeError(f"device {d.index} did not start: see {d.dir}/settee.log")
                time.sleep(0.05)

    def set_link(self, d, up):
        sh("ip", "-n", self.switch, "link", "set", d.port_name, "up" if up else "down")

    def partition(self, halves):
        for side, other in ((halves[0], halves[1]), (halves[1], halves[0])):
            for d in side:
                for o in other:
                    sh("ip", "netns", "exec", d.netns, "iptables", "-A", "ROOMPART", "-s", o.address, "-j", "DROP")

    def heal(self):
        for d in self.devices:
            sh("ip", "netns", "exec", d.netns, "iptables", "-F", "ROOMPART")

    def teardown(self):
        """SIGTERM to each mdns-host started here (it stops its settee, avahi and D-Bus),
        SIGKILL to the session of any that lingers, then the namespaces and the work dir."""
        live = [d for d in self.devices if d.process and d.process.poll() is None]
        for d in live:
            d.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for d in live:
            try:
                d.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(d.process.pid, signal.SIGKILL)
                d.process.wait()
        for d in self.devices:
            d.jobs.put(None)
        for ns in reversed(self.made):
            sh("ip", "netns", "delete", ns, check=False)
        self.made = []
        print(f"-- room taken down: namespaces {self.prefix}*", flush=True)
        if os.environ.get("ROOM_KEEP") != "1":
            shutil.rmtree(self.work, ignore_errors=True)
        else:
            print(f"-- logs kept in {self.work}")
