"""MIME multipart helpers and JSON-shape comparison for the conformance suite.

CouchDB writes multipart bodies (open_revs with Accept: multipart/mixed, documents with
attachments as multipart/related) as `--boundary CRLF headers CRLF CRLF body CRLF
--boundary ... --boundary--` (couch_httpd_multipart.erl, couch_doc.erl
doc_to_multi_part_stream). The parser below accepts that, and in lenient mode a body
cut short (the recorded transcripts keep only the first 3,000 bytes).
"""

import json
import re


def media_type(content_type):
    """'multipart/mixed; boundary="x"' -> 'multipart/mixed'."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def boundary_of(content_type):
    m = re.search(r'boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))', content_type or "", re.I)
    if not m:
        raise AssertionError("no boundary in Content-Type %r" % content_type)
    return m.group(1) or m.group(2)


class Part:
    def __init__(self, headers, body, truncated=False):
        self.headers = headers  # list of (name, value), names as sent
        self.body = body  # bytes
        self.truncated = truncated
        self.parts = None  # nested parts for multipart/* parts

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def header_names(self):
        return sorted(k.lower() for k, _ in self.headers)

    @property
    def content_type(self):
        return self.header("Content-Type")

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def __repr__(self):
        return "Part(%r, %d bytes%s)" % (
            self.headers,
            len(self.body),
            ", truncated" if self.truncated else "",
        )


def _parse_headers(block, lenient):
    headers = []
    lines = block.split(b"\r\n")
    for i, line in enumerate(lines):
        if not line:
            continue
        if b":" not in line:
            if lenient and i == len(lines) - 1:
                break  # a header line cut short
            raise AssertionError("malformed part header line %r" % line)
        k, v = line.split(b":", 1)
        headers.append((k.decode("latin-1").strip(), v.decode("latin-1").strip()))
    return headers


def parse_multipart(body, content_type, lenient=False):
    """Split a multipart body into Parts (recursing into multipart/* parts).

    lenient=True accepts a body cut short: the last part is marked truncated and a
    header line without its CRLF is dropped."""
    if isinstance(body, str):
        body = body.encode("latin-1")
    delim = b"--" + boundary_of(content_type).encode("latin-1")
    start = body.find(delim)
    if start < 0:
        raise AssertionError("no opening boundary %r in %r" % (delim, body[:200]))
    pos = start + len(delim)
    parts = []
    while True:
        if body[pos:pos + 2] == b"--":
            break  # close delimiter
        eol = body.find(b"\r\n", pos)
        if eol < 0:
            if lenient:
                break
            raise AssertionError("boundary line not terminated")
        pos = eol + 2
        nxt = body.find(b"\r\n" + delim, pos)
        truncated = nxt < 0
        if truncated and not lenient:
            raise AssertionError("part without a closing boundary: %r" % body[pos:pos + 200])
        chunk = body[pos:] if truncated else body[pos:nxt]
        if chunk.startswith(b"\r\n"):
            head, content, complete_head = b"", chunk[2:], True
        else:
            sep = chunk.find(b"\r\n\r\n")
            if sep < 0:
                head, content, complete_head = chunk, b"", False
            else:
                head, content, complete_head = chunk[:sep], chunk[sep + 4:], True
        if not complete_head and not lenient:
            raise AssertionError("part headers not terminated")
        part = Part(_parse_headers(head, lenient and truncated), content, truncated)
        if media_type(part.content_type).startswith("multipart/") and complete_head:
            part.parts = parse_multipart(content, part.content_type, lenient=lenient)
        parts.append(part)
        if truncated:
            break
        pos = nxt + 2 + len(delim)
    return parts


def build_related(doc, attachments, boundary="abc123boundary"):
    """A multipart/related body: the JSON document first, then one part per
    attachment body, in the order given (CouchDB matches them to the `follows`
    entries in `_attachments` order). attachments: list of (headers, bytes)."""
    out = [b"--" + boundary.encode() + b"\r\nContent-Type: application/json\r\n\r\n"]
    out.append(json.dumps(doc, separators=(",", ":")).encode("utf-8"))
    for headers, data in attachments:
        out.append(b"\r\n--" + boundary.encode() + b"\r\n")
        for k, v in headers:
            out.append(("%s: %s\r\n" % (k, v)).encode("latin-1"))
        out.append(b"\r\n")
        out.append(data)
    out.append(b"\r\n--" + boundary.encode() + b"--")
    ctype = 'multipart/related; boundary="%s"' % boundary
    return b"".join(out), ctype


# ---------------------------------------------------------------------------------
# JSON shape comparison

# Server-generated sequence values: opaque scalars (strings on CouchDB 2+/3,
# numbers elsewhere).
OPAQUE_SCALARS = {"seq", "last_seq", "update_seq", "purge_seq"}

# Fields whose values are not server-specific once the fixture stores the recorded
# revisions (new_edits=false) and attachment bytes: compared by value as well.
VALUE_KEYS = {
    "_id", "_rev", "id", "rev", "ok", "error", "_deleted", "deleted", "missing",
    "digest", "length", "revpos", "content_type", "encoding", "encoded_length",
    "stub", "follows", "doc_count", "doc_del_count", "start", "ids",
}


def _jtype(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if v is None:
        return "null"
    if isinstance(v, list):
        return "array"
    return "object"


def _row_key(item):
    """Key to pair up list elements whose order is not defined (changes rows,
    bulk_get results)."""
    if isinstance(item, dict):
        if "seq" in item and "id" in item:
            return ("change", item["id"])
        if "id" in item and isinstance(item.get("docs"), list) and item["docs"]:
            d = item["docs"][0]
            rev = (d.get("ok") or {}).get("_rev") or (d.get("error") or {}).get("rev")
            return ("bulk_get", item["id"], rev)
    return None


def shape_diffs(expected, actual, path="$", key=None, out=None, values=True):
    """Differences between the JSON structure of `expected` (recorded) and `actual`:
    same keys and value types recursively; seq-like keys are opaque scalars; keys in
    VALUE_KEYS must also have equal values (unless values=False)."""
    if out is None:
        out = []
    if key in OPAQUE_SCALARS:
        if _jtype(actual) not in ("string", "number"):
            out.append("%s: expected an opaque scalar seq, got %r" % (path, actual))
        return out
    te, ta = _jtype(expected), _jtype(actual)
    if te != ta:
        out.append("%s: expected %s, got %s (%r)" % (path, te, ta, actual))
        return out
    if te == "object":
        ke, ka = set(expected), set(actual)
        if ke != ka:
            out.append(
                "%s: keys differ: missing %s, unexpected %s"
                % (path, sorted(ke - ka), sorted(ka - ke))
            )
        for k in sorted(ke & ka):
            shape_diffs(expected[k], actual[k], "%s.%s" % (path, k), k, out, values)
    elif te == "array":
        keyed = [_row_key(x) for x in expected]
        if expected and all(keyed):
            index = {_row_key(x): x for x in actual}
            if len(expected) != len(actual):
                out.append("%s: %d elements, expected %d" % (path, len(actual), len(expected)))
            for k, x in zip(keyed, expected):
                if k not in index:
                    out.append("%s: no element for %r" % (path, k))
                else:
                    shape_diffs(x, index[k], "%s[%s]" % (path, k[1]), None, out, values)
        else:
            if len(expected) != len(actual):
                out.append("%s: %d elements, expected %d" % (path, len(actual), len(expected)))
            if key in ("missing", "possible_ancestors", "changes"):
                # sets of revs: order is not defined
                if values and sorted(map(json.dumps, expected)) != sorted(map(json.dumps, actual)):
                    out.append("%s: expected %r, got %r" % (path, expected, actual))
                return out
            for i, (x, y) in enumerate(zip(expected, actual)):
                shape_diffs(x, y, "%s[%d]" % (path, i), key if key == "ids" else None, out, values)
    elif values and key in VALUE_KEYS and expected != actual:
        if not (key in ("_rev", "rev") and isinstance(expected, str) and expected.startswith("0-")):
            # _local revs count writes (0-N): they depend on how often a checkpoint was
            # written, not on the server
            out.append("%s: expected %r, got %r" % (path, expected, actual))
    return out


def assert_same_shape(expected, actual, what="", values=True):
    diffs = shape_diffs(expected, actual, values=values)
    assert not diffs, "%s: JSON structure differs:\n  %s\nactual: %s" % (
        what,
        "\n  ".join(diffs[:20]),
        json.dumps(actual)[:1500],
    )


def salvage_array(text, key):
    """Complete elements of the array `key` in a JSON text cut short."""
    m = re.search(r'"%s"\s*:\s*\[' % re.escape(key), text)
    if not m:
        return []
    dec = json.JSONDecoder()
    pos, items = m.end(), []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return items
        try:
            item, pos = dec.raw_decode(text, pos)
        except ValueError:
            return items
        items.append(item)
