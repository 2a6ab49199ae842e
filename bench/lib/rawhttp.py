"""Just enough HTTP/1.1 response framing for raw-socket clients: Content-Length or chunked."""


def response_complete(buf):
    """(complete, status, rest) for one response at the start of buf."""
    head, sep, body = buf.partition(b"\r\n\r\n")
    if not sep:
        return False, None, buf
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    headers = {l.split(b":", 1)[0].strip().lower(): l.split(b":", 1)[1].strip() for l in lines[1:] if b":" in l}
    if b"content-length" in headers:
        n = int(headers[b"content-length"])
        if len(body) < n:
            return False, status, buf
        return True, status, body[n:]
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        end = body.find(b"\r\n0\r\n\r\n")
        if body.startswith(b"0\r\n\r\n"):
            return True, status, body[5:]
        if end < 0:
            return False, status, buf
        return True, status, body[end + 7:]
    return True, status, body


def put_request(host, port, auth, path, body):
    return (f"PUT {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: {auth}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
