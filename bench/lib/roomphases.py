"""bench/room's phases: formed, spread, burst, churn, partition, idle (see bench/room).
Each prints one line with the machine's load average beside it; each is bounded in time."""
import os
import random
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from roomlib import loadavg
from roomtimeline import Timeline


class Tracker:
    """Arrival times of documents on each device, from each device's continuous feed."""

    def __init__(self, room):
        self.room = room
        self.seen = {}
        self.cond = threading.Condition()
        self.stop = threading.Event()
        for d in room.devices:
            d.feed(self.arrived, self.stop)

    def arrived(self, index, doc_id):
        with self.cond:
            self.seen.setdefault(doc_id, {}).setdefault(index, time.monotonic())
            self.cond.notify_all()

    def wait_everywhere(self, doc_id, seconds):
        deadline = time.monotonic() + seconds
        with self.cond:
            while len(self.seen.get(doc_id, {})) < self.room.n:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return max(self.seen[doc_id].values())


def say(label, text):
    print(f"{label:<10} {text}   [load {loadavg()}]", flush=True)


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def topology():
    return os.environ.get("ROOM_TOPOLOGY", "mesh")


def jobs_per_peer():
    """This device's `room` replications with each peer it syncs with: a pull and a push, or
    (topology pull) its pull only, the peer's pull bringing the other way."""
    return 1 if topology() == "pull" else 2


def peer_view(d):
    """(peer uuids listed, peer uuids with this device's `room` replications running) from
    /_peers: both ways, or the pull only in topology pull (the row of the peer's pull of
    this device, `run_by` "peer", is the peer's job: its own view counts it)."""
    status, body = d.request("GET", "/_peers?reachable=false", timeout=10)
    listed, ready = set(), set()
    for peer in (body or {}).get("peers", []):
        if not peer.get("uuid") or peer.get("state") == "gone":
            continue
        listed.add(peer["uuid"])
        states = [r.get("state") for r in peer.get("replications", []) if r.get("run_by") != "peer"]
        if len(states) >= jobs_per_peer() and all(s == "running" for s in states):
            ready.add(peer["uuid"])
    return listed, ready


def peers_running(d):
    return peer_view(d)[1]


def doc_counts(room):
    with ThreadPoolExecutor(len(room.devices)) as pool:
        return list(pool.map(lambda d: (d.request("GET", "/room", timeout=10)[1] or {}).get("doc_count", -1),
                             room.devices))


def wait_counts(room, total, seconds):
    """Seconds until every device holds `total` documents, or None; and the lowest count."""
    start = time.monotonic()
    while True:
        counts = doc_counts(room)
        if min(counts) == total and max(counts) == total:
            return time.monotonic() - start, total
        if time.monotonic() - start > seconds:
            if seconds > 0:
                print(f"   doc counts {counts}, expected {total}", flush=True)
            return None, min(counts)
        time.sleep(0.1)


def formed(room):
    """Seconds from the last `settee serve` until every device replicates with every other
    (mesh) or with the elected hub (hub) and holds each device's first document; with when
    each milestone was reached (median and last device): all listening, every peer listed
    by DNS-SD, every replication running, every first document there."""
    t0 = room.start()
    room.wait_listening()
    listening = time.monotonic() - t0
    with ThreadPoolExecutor(len(room.devices)) as pool:
        list(pool.map(lambda d: (d.request("PUT", "/room"), d.request("PUT", f"/room/hello-{d.index}", {"device": d.index})),
                      room.devices))
    deadline = t0 + (60 + 3 * room.n)  # shared host names: avahi renames hosts one round at a time
    hub = topology() == "hub"
    seen_at, ready_at, docs_at = {}, {}, {}
    with ThreadPoolExecutor(len(room.devices)) as pool:
        while time.monotonic() < deadline:
            views = list(pool.map(peer_view, room.devices))
            counts = doc_counts(room)
            now = time.monotonic() - t0
            for d, (listed, ready), count in zip(room.devices, views, counts):
                if len(listed) == room.n - 1:
                    seen_at.setdefault(d.index, now)
                if len(ready) >= (1 if hub else room.n - 1):
                    ready_at.setdefault(d.index, now)
                if count == room.n:
                    docs_at.setdefault(d.index, now)
            # Mesh: each device with every other. Hub: one device with all, the others with it.
            links = sorted(len(ready) for _, ready in views)
            ready = links == [1] * (room.n - 1) + [room.n - 1] if hub else links == [room.n - 1] * room.n
            if ready and min(counts) == room.n:
                say("formed", f"{now:.2f} s (every device replicating "
                    + ("by its pulls " if topology() == "pull" else "") + "both ways with the "
                    + ("elected hub" if hub else f"{room.n - 1} others") + ", each one's first document on all)")
                say("  phases", f"all listening {listening:.2f} s; every peer listed {milestone(seen_at)}; "
                    f"replications running {milestone(ready_at)}; first documents everywhere {milestone(docs_at)} "
                    "(median / last device, from the last start)")
                say("  processes", start_split(room))
                if getattr(room, "daemons_settled", None) is not None:
                    say("  daemons", f"every avahi-daemon running {room.daemons_settled:.2f} s after the first "
                        "was started, before any settee (ROOM_DAEMONS=first)")
                return True
            time.sleep(0.1)
    say("formed", f"NOT within {deadline - t0:.0f} s: devices fully connected "
        f"{[len(peers_running(d)) for d in room.devices]}, doc counts {doc_counts(room)}")
    show_peers(room)
    hold = float(os.environ.get("ROOM_HOLD_S", "0"))
    if hold > 0:  # keep the room up to look at it (avahi-browse in a namespace, /_peers)
        say("  holding", f"the room for {hold:.0f} s (ROOM_HOLD_S) before taking it down")
        time.sleep(hold)
    return False


def start_split(room):
    """When each device's settee was exec'd (after its D-Bus and avahi answered), and the
    CPU each kind of process had used by the time the room formed, summed over the room."""
    usages = [d.tree_usage() for d in room.devices]
    settee = os.path.basename(room.binary)[:15]  # a process's comm: its first 15 characters
    starts = sorted(u[settee][1] - room.boot_t0 for u in usages if settee in u) or [-1]
    settee_cpu = sorted(u.get(settee, (0, 0))[0] for u in usages)
    kinds = {}
    for u in usages:
        for name, (cpu, _) in u.items():
            kinds[name] = kinds.get(name, 0) + cpu
    top = ", ".join(f"{name} {cpu:.2f}" for name, cpu in sorted(kinds.items(), key=lambda kv: -kv[1])[:6])
    return (f"settee exec'd {statistics.median(starts):.2f} / {starts[-1]:.2f} s (median / last); "
            f"settee CPU a device {statistics.median(settee_cpu):.2f} / {settee_cpu[-1]:.2f} s; "
            f"room CPU s by process: {top}")


def milestone(at):
    values = sorted(at.values())
    return f"{statistics.median(values):.2f} / {values[-1]:.2f} s" if values else "never"


def show_peers(room):
    for d in room.devices:  # what each device makes of the room, to tell why
        peers = (d.request("GET", "/_peers?reachable=false")[1] or {}).get("peers", [])
        print(f"   d{d.index} sees " + "; ".join(
            f"{p.get('instance')} {p.get('url')} {p.get('state')} "
            f"{[r.get('state') for r in p.get('replications', [])]}" for p in peers), flush=True)


def spread(room, tracker, state):
    times, missing = [], 0
    for k in range(room.settings.writes):
        d = random.choice(room.devices)
        doc = f"spread-{k}"
        t0 = time.monotonic()
        d.request("PUT", f"/room/{doc}", {"k": k, "from": d.index})
        state["total"] += 1
        done = tracker.wait_everywhere(doc, 30)
        if done is None:
            missing += 1
        else:
            times.append(done - t0)
    if times:
        say("spread", f"p50 {pct(times, 50) * 1000:.0f} ms, p90 {pct(times, 90) * 1000:.0f} ms, "
            f"p99 {pct(times, 99) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {len(times)} writes"
            + (f"; {missing} not everywhere within 30 s" if missing else ""))
    return missing == 0


def write_batch(d, prefix, count, start=0):
    docs = [{"_id": f"{prefix}-{d.index}-{i}", "i": i} for i in range(start, start + count)]
    status, body = d.request("POST", "/room/_bulk_docs", {"docs": docs}, timeout=120)
    return sum(1 for row in body or [] if row.get("ok")) if status == 201 else 0


def burst(room, state):
    count = room.settings.burst
    t0 = time.monotonic()
    with ThreadPoolExecutor(room.n) as pool:
        written = sum(pool.map(lambda d: write_batch(d, "burst", count), room.devices))
    writes = time.monotonic() - t0
    state["total"] += written
    took, low = wait_counts(room, state["total"], 60 + 2 * room.n)
    converged = time.monotonic() - t0 if took is not None else None
    lost = 0 if took is not None else state["total"] - low
    say("burst", f"{room.n}×{count} written in {writes:.2f} s, "
        + (f"on all devices {converged:.2f} s after the writes began" if converged else "NOT converged")
        + f"; documents missing somewhere: {lost}")
    return took is not None


def discovery_jobs(d):
    """Every peer uuid this device holds discovery replications with, and how many jobs."""
    _, body = d.request("GET", "/_scheduler/jobs", timeout=10)
    ids = [j.get("id") or "" for j in (body or {}).get("jobs", []) if (j.get("id") or "").startswith("discovery+")]
    return {i.split("+")[1] for i in ids}, ids


def churn(room, state):
    away = room.devices[-min(5, room.n // 2):]
    staying = [d for d in room.devices if d not in away]
    uuids = {d.index: d.request("GET", "/")[1]["uuid"] for d in away}
    stop = threading.Event()
    counts = [0] * room.n  # one slot per writer thread: no shared read-modify-write

    def writer(d):
        i = 0
        while not stop.is_set():
            counts[d.index] += write_batch(d, "churn", 5, start=i)
            i += 5
            stop.wait(1.0)
    for d in away:
        room.set_link(d, False)
    threads = [threading.Thread(target=writer, args=(d,)) for d in room.devices]
    for t in threads:
        t.start()
    time.sleep(room.settings.away)
    stop.set()
    for t in threads:
        t.join()
    written = [sum(counts)]
    # What the staying devices still hold for the departed ones at the end of their absence.
    held = sum(len(discovery_jobs(d)[0] & set(uuids.values())) for d in staying)
    state["total"] += written[0]
    timeline = None
    if os.environ.get("ROOM_TIMELINE") == "1":
        every = {d.index: d.request("GET", "/")[1]["uuid"] for d in room.devices}
        timeline = Timeline(room, away, every, state["total"])
        timeline.start()
    for d in away:
        room.set_link(d, True)
    took, low = wait_counts(room, state["total"], 60 + 2 * room.n)
    if timeline:
        timeline.finish(grace=10)
    dupes = [d.index for d in room.devices if len(set(discovery_jobs(d)[1])) != len(discovery_jobs(d)[1])]
    jobs = [len(discovery_jobs(d)[1]) for d in room.devices]
    say("churn", f"{len(away)} devices away {room.settings.away:.0f} s while all wrote ({written[0]} docs): "
        + (f"converged {took:.2f} s after their links came back" if took is not None else
           f"NOT converged, {state['total'] - low} missing")
        + f"; jobs per device after {min(jobs)}..{max(jobs)} ({topology()}: {jobs_per_peer() * (room.n - 1)}), "
        f"duplicated on {dupes or 'none'}; staying devices still holding jobs for departed peers "
        f"at the end of the absence: {held} of {len(staying) * len(away)} pairs")
    if timeline:
        timeline.report(say)
    if os.environ.get("ROOM_KEEP") == "1":
        show_peers(room)
    return took is not None and not dupes


def partition(room, state):
    half = room.n // 2
    halves = (room.devices[:half], room.devices[half:])
    edited = [f"spread-{k}" for k in range(min(10, room.settings.writes))]
    # Run without `spread` (ROOM_PHASES=partition), the documents to edit are not there yet:
    # written now, and counted (else the count never matches and it never converges).
    missing = [doc for doc in edited if room.devices[0].request("GET", f"/room/{doc}")[0] == 404]
    for doc in missing:
        room.devices[0].request("PUT", f"/room/{doc}", {"device": 0})
    state["total"] += len(missing)
    if missing and wait_counts(room, state["total"], 60 + 2 * room.n)[0] is None:
        say("partition", "NOT started: the documents to edit did not reach every device")
        return False
    room.partition(halves)
    t_split = time.monotonic()
    for side, d in (("a", halves[0][0]), ("b", halves[1][0])):
        for doc in edited:
            status, body = d.request("GET", f"/room/{doc}")
            body["side"] = side
            d.request("PUT", f"/room/{doc}", body)
    with ThreadPoolExecutor(room.n) as pool:
        state["total"] += sum(pool.map(lambda d: write_batch(d, "split", 10), room.devices))
    time.sleep(max(0.0, room.settings.away - (time.monotonic() - t_split)))
    room.heal()
    t_heal = time.monotonic()
    deadline = t_heal + 60 + 2 * room.n
    while time.monotonic() < deadline:
        if same_trees(room, edited) and wait_counts(room, state["total"], 0)[0] is not None:
            say("partition", f"halves of {len(halves[0])} and {len(halves[1])} apart {room.settings.away:.0f} s, "
                f"{len(edited)} documents edited on both sides: identical revision trees and winners "
                f"on all {room.n} devices {time.monotonic() - t_heal:.2f} s after healing")
            return True
        time.sleep(0.2)
    say("partition", "NOT converged within the deadline after healing")
    return False


def same_trees(room, docs):
    seen = None
    for d in room.devices:
        view = []
        for doc in docs:
            _, leaves = d.request("GET", f"/room/{doc}?open_revs=all&revs=true")
            view.append(sorted(str(leaf.get("ok", leaf)) for leaf in leaves or []))
            _, winner = d.request("GET", f"/room/{doc}")
            view.append((winner or {}).get("_rev"))
        if any(len(v) < 2 for v in view[0::2]):
            return False  # both edits not there yet
        if seen is not None and view != seen:
            return False
        seen = view
    return True


def cpu_seconds(pids):
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def idle(room):
    pids = [d.settee_pid() for d in room.devices]
    before, t0 = cpu_seconds(pids), time.monotonic()
    time.sleep(room.settings.idle)
    used = (cpu_seconds(pids) - before) / (time.monotonic() - t0)
    memory = {"VmRSS": [], "RssAnon": [], "RssFile": [], "Threads": []}
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key = line.split(":")[0]
                if key in memory:
                    memory[key].append(int(line.split()[1]) / (1 if key == "Threads" else 1024))
    rss = memory["VmRSS"]
    # RSS counts the binary's and libraries' pages (RssFile: shared by the room's processes
    # here, a device's own on real hardware) beside what the process itself allocated.
    say("idle", f"the room's {room.n} settees used {used * 100:.1f} % of one core over {room.settings.idle:.0f} s "
        f"with no writes; RSS per device median {statistics.median(rss):.1f} MB, max {max(rss):.1f} MB "
        f"(of it anonymous median {statistics.median(memory['RssAnon']):.1f} MB, "
        f"file-backed {statistics.median(memory['RssFile']):.1f} MB); threads a device median "
        f"{statistics.median(memory['Threads']):.0f}" + (f"; MALLOC_ARENA_MAX={os.environ['MALLOC_ARENA_MAX']}"
                                                       if "MALLOC_ARENA_MAX" in os.environ else ""))
    return True


def run_phases(room):
    """Every phase, or those ROOM_PHASES names (formed always runs first)."""
    wanted = set(os.environ.get("ROOM_PHASES", "spread burst churn partition idle").replace(",", " ").split())
    if not formed(room):
        return False
    tracker = Tracker(room)
    state = {"total": room.n}
    ok = spread(room, tracker, state) if "spread" in wanted else True
    for name, phase in (("burst", burst), ("churn", churn), ("partition", partition)):
        if name in wanted:
            ok &= phase(room, state)
    ok &= idle(room) if "idle" in wanted else True
    tracker.stop.set()
    return ok
