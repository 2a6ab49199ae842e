"""The properties bench/crashloop checks once its peers have converged (and the
checkpoint rule after every restart): identical revision trees, every acknowledged
write everywhere, no checkpoint past a change its target lacks, no resync from 0."""
import base64
import hashlib
import json
import re

from crashpeers import DB, leaves, missing


def tree_signature(client, leaf_map):
    """Every leaf's (rev, deleted, ancestry, body, attachment digests) via `_bulk_get?revs=true`."""
    wanted = [{"id": docid, "rev": rev} for docid, revs in sorted(leaf_map.items()) for rev in revs]
    sig, attachments = {}, []
    for start in range(0, len(wanted), 200):
        status, body = client.request("POST", f"/{DB}/_bulk_get?revs=true", {"docs": wanted[start:start + 200]})
        if status != 200:
            raise RuntimeError(f"_bulk_get answered {status}")
        for result in body["results"]:
            for item in result["docs"]:
                doc = item.get("ok")
                if doc is None:
                    raise RuntimeError(f"_bulk_get {result['id']}: {item}")
                atts = {name: (a.get("digest"), a.get("length")) for name, a in doc.get("_attachments", {}).items()}
                attachments += [(doc["_id"], doc["_rev"], name, digest) for name, (digest, _) in atts.items()]
                plain = {k: v for k, v in doc.items() if k not in ("_rev", "_revisions", "_attachments")}
                sig[(doc["_id"], doc["_rev"])] = (json.dumps(plain, sort_keys=True), json.dumps(doc["_revisions"]),
                                                  json.dumps(atts, sort_keys=True))
    return sig, attachments


def attachment_bytes_ok(client, doc_id, rev, name, digest):
    """The bytes served hash to the stub's `md5-` digest."""
    status, data = client.request("GET", f"/{DB}/{doc_id}/{name}?rev={rev}", raw=True)
    if status != 200 or not digest or not digest.startswith("md5-"):
        return False
    return base64.b64encode(hashlib.md5(data).digest()).decode() == digest[4:]


def checkpoint_violations(source, target, rep_id):
    """Changes at or below the target's checkpoint (`source_last_seq`) that the target
    lacks. A later copy from the third peer can hide one, never invent one.
    Returns (checkpoint seq or None, number missing), or None when a peer is down."""
    status, local = target.request("GET", f"/{DB}/_local/{rep_id}")
    if status == 404:
        return (None, 0)
    if status != 200:
        return None
    seq = local.get("source_last_seq")
    status, body = source.request("GET", f"/{DB}/_changes?style=all_docs&since=0")
    if status != 200:
        return None
    covered = {row["id"]: [c["rev"] for c in row["changes"]] for row in body["results"]
               if int(str(row["seq"]).split("-")[0]) <= int(str(seq).split("-")[0])}
    lacking = missing(target, covered)
    if lacking is None:
        return None
    return (seq, sum(len(v) for v in lacking.values()))


START = re.compile(rb"replicating (\S+) \xe2\x86\x92 (\S+) from (\S+)")


def job_starts(log_path):
    """Every job start a peer's log shows, in order: (source, target, seq text)."""
    with open(log_path, "rb") as f:
        return [(m.group(1).decode(), m.group(2).decode(), m.group(3).decode()) for m in START.finditer(f.read())]


def resyncs(log_path, armed_counts):
    """Starts from 0 after the kill loop began (every job had checkpointed by then:
    `armed_counts[(src, tgt)]` starts of that job came before), and starts behind an
    earlier start of the same job. Returns (resyncs from 0, regressions, starts)."""
    seen, from_zero, regressions, starts = {}, 0, 0, 0
    for source, target, seq in job_starts(log_path):
        key = (source, target)
        count = seen.get(key, (0, -1))[0] + 1
        value = int(seq.strip('"').split("-")[0]) if seq.strip('"').split("-")[0].isdigit() else -1
        if count > armed_counts.get(key, 0):
            starts += 1
            from_zero += value == 0
            regressions += 0 <= value < seen.get(key, (0, -1))[1]
        seen[key] = (count, max(value, seen.get(key, (0, -1))[1]))
    return from_zero, regressions, starts


def lost_writes(clients, acked):
    """Acknowledged (id, rev) pairs some peer lacks."""
    wanted = {}
    for docid, rev in acked:
        wanted.setdefault(docid, []).append(rev)
    lost = set()
    for client in clients:
        lacking = missing(client, wanted)
        if lacking is None:
            raise RuntimeError("a peer did not answer _revs_diff")
        lost |= {(d, r) for d, revs in lacking.items() for r in revs}
    return lost


def same_leaves(clients):
    maps = [leaves(c) for c in clients]
    return maps[0] if all(m is not None and m == maps[0] for m in maps) else None
