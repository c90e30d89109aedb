# cuttle system tests: a raw HTTP/1.x client for the test-suite/proxy scripts.
#
# The scripts run it through proxy_py (origin.sh), which puts this folder on
# PYTHONPATH:
#
#     proxy_py "$PORT" <<'PY'
#     import sys, rawhttp
#     c = rawhttp.Conn(int(sys.argv[1]))
#     c.send(rawhttp.request("GET", "http://127.0.0.1:%d/x?s=10" % oport))
#     r = c.read_reply()
#     rawhttp.check(r.status == 200, "status %d" % r.status)
#     PY
#
# It frames replies exactly as RFC 9112 section 6.3 says (no body for HEAD,
# 1xx, 204 and 304; chunked; Content-Length; else until the close), and says
# which framing it saw, so a test can assert how cuttle framed a reply.

import hashlib
import socket
import sys

# the test origin's body pattern (test-suite/origin/Pattern.h): byte i is
# ALPHABET[i % 61]
ALPHABET = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY"
PERIOD = len(ALPHABET)


def pattern(size, offset=0):
    """the origin's s=SIZE body bytes [offset, offset + size)"""
    start = offset % PERIOD
    return (ALPHABET * ((start + size) // PERIOD + 1))[start:start + size]


def pattern_sha256(size):
    """the hex SHA-256 of the origin's s=SIZE body"""
    h = hashlib.sha256()
    block = pattern(PERIOD << 14)  # a whole number of periods, about 1 MB
    left = size
    while left > 0:
        n = min(left, len(block))
        h.update(block[:n])
        left -= n
    return h.hexdigest()


class Failure(Exception):
    """a test assertion that failed"""


def check(condition, what):
    """raises Failure(what) unless condition"""
    if not condition:
        raise Failure(what)


def run(main):
    """runs main(); a Failure or a socket error prints FAIL: and exits 1"""
    try:
        main()
    except (Failure, OSError, EOFError, ValueError) as e:
        print("FAIL: %s: %s" % (type(e).__name__, e))
        sys.stdout.flush()
        sys.exit(1)


def request(method, url, headers=(), body=None, version="1.1", host=None):
    """the bytes of a request; Host comes from the URL unless given"""
    if host is None:
        rest = url.split("://", 1)[-1]
        host = rest.split("/", 1)[0]
    out = "%s %s HTTP/%s\r\nHost: %s\r\n" % (method, url, version, host)
    for field in headers:
        out += field + "\r\n"
    if body is not None and not any(f.lower().startswith(("content-length:", "transfer-encoding:"))
                                    for f in headers):
        out += "Content-Length: %d\r\n" % len(body)
    out = out.encode("latin1") + b"\r\n"
    if body is not None:
        out += body
    return out


class Reply:
    """one parsed reply"""

    def __init__(self):
        self.version = ""
        self.status = 0
        self.reason = ""
        self.head = b""      # the status line and fields as received
        self.fields = []     # (name, value) in order
        self.body = b""
        self.framing = ""    # none, length, chunked or close
        self.interim = []    # 1xx replies before this one (Reply objects)

    def header(self, name):
        """the values of field name joined with ", ", or None"""
        values = [v for k, v in self.fields if k.lower() == name.lower()]
        return ", ".join(values) if values else None

    def has_token(self, name, token):
        """whether field name lists token (case-insensitive)"""
        value = self.header(name) or ""
        return token.lower() in [t.strip().lower() for t in value.split(",")]

    def __repr__(self):
        return "<%s %d %s, %d body bytes>" % (self.version, self.status, self.framing, len(self.body))


class Conn:
    """one client connection to cuttle (or any server)"""

    def __init__(self, port, host="127.0.0.1", timeout=10.0):
        self.timeout = timeout
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = bytearray()

    def send(self, data):
        if isinstance(data, str):
            data = data.encode("latin1")
        self.sock.sendall(data)

    def close(self):
        self.sock.close()

    def _fill(self, size=1 << 20):
        data = self.sock.recv(size)
        if not data:
            raise EOFError("connection closed by the peer (%d bytes pending)" % len(self.buf))
        self.buf += data

    def _take(self, n):
        while len(self.buf) < n:
            self._fill()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def _line(self, limit=65536):
        while True:
            end = self.buf.find(b"\r\n")
            if end >= 0:
                line = bytes(self.buf[:end])
                del self.buf[:end + 2]
                return line
            check(len(self.buf) <= limit, "line longer than %d bytes" % limit)
            self._fill()

    def read_head(self):
        """reads one reply head (status line and fields)"""
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                break
            check(len(self.buf) < (1 << 20), "reply head over 1 MB")
            self._fill()
        head = bytes(self.buf[:end + 2])
        del self.buf[:end + 4]
        reply = Reply()
        reply.head = head
        lines = head.decode("latin1").split("\r\n")
        parts = lines[0].split(" ", 2)
        check(len(parts) >= 2 and parts[0].startswith("HTTP/1."), "bad status line %r" % lines[0])
        reply.version = parts[0]
        reply.status = int(parts[1])
        reply.reason = parts[2] if len(parts) > 2 else ""
        for line in lines[1:]:
            if not line:
                continue
            check(":" in line and line[0] not in " \t", "bad field line %r" % line)
            name, value = line.split(":", 1)
            reply.fields.append((name, value.strip()))
        return reply

    def read_reply(self, method="GET", limit=None):
        """reads one final reply (1xx ones are kept in .interim) and its body;
        limit: stop reading a body after that many bytes (the rest stays unread)"""
        interim = []
        while True:
            reply = self.read_head()
            if 100 <= reply.status < 200 and reply.status != 101:
                interim.append(reply)
                continue
            break
        reply.interim = interim
        te = reply.header("Transfer-Encoding")
        length = reply.header("Content-Length")
        if method == "HEAD" or reply.status in (204, 304) or reply.status < 200:
            reply.framing = "none"
        elif te is not None:
            check(te.split(",")[-1].strip().lower() == "chunked", "Transfer-Encoding %r" % te)
            check(length is None, "both Transfer-Encoding and Content-Length")
            reply.framing = "chunked"
            reply.body = self._read_chunked()
        elif length is not None:
            check(length.isdigit(), "bad Content-Length %r" % length)
            reply.framing = "length"
            n = int(length)
            reply.body = self._take(n if limit is None else min(n, limit))
        else:
            reply.framing = "close"
            reply.body = self._read_to_close(limit)
        return reply

    def _read_chunked(self):
        parts = []
        while True:
            line = self._line()
            size_text = line.split(b";", 1)[0].strip()
            check(size_text and all(c in b"0123456789abcdefABCDEF" for c in size_text),
                  "bad chunk-size line %r" % line)
            size = int(size_text, 16)
            if size == 0:
                break
            parts.append(self._take(size))
            check(self._take(2) == b"\r\n", "no CRLF after chunk data")
        while self._line() != b"":  # trailer section
            pass
        return b"".join(parts)

    def _read_to_close(self, limit=None):
        while limit is None or len(self.buf) < limit:
            data = self.sock.recv(1 << 20)
            if not data:
                break
            self.buf += data
        out = bytes(self.buf)
        self.buf = bytearray()
        return out

    def state_after(self, wait):
        """'closed' if the peer closes within wait seconds, 'open' if nothing
        arrives, else 'data: ...' (bytes that no reply framed)"""
        if self.buf:
            return "data: %r" % bytes(self.buf[:80])
        self.sock.settimeout(wait)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return "open"
        except ConnectionResetError:
            return "closed"
        finally:
            self.sock.settimeout(self.timeout)
        if not data:
            return "closed"
        self.buf += data
        return "data: %r" % data[:80]
