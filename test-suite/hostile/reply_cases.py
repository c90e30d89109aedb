# The hostile reply cases of the battery (see README.md): one line per
# case, P(name, bytes, status, ...). The raw origin sends the bytes as the
# reply to `GET /r/N` (or HEAD with method=b"HEAD"), then closes
# (then="close") or keeps serving the connection (then="keep": any later
# request on it gets a fresh 200 "fresh", so a connection that cuttle reuses
# out of step shows up as the next client getting the bytes after a reply).
#   status    the status the client must get
#   body=     the body the client must get, when given
#   truncated=True: the head went out, then the reply broke: the client must
#             see its connection close before the body's framing ends (no
#             last chunk that would make a cut reply look whole)
#   interims= the 1xx statuses the client must get first
#   xfail=    why the case is expected to fail
# Every case also checks that the next request is answered "fresh" (no
# stray bytes of an origin connection reach another client), that a 5xx or
# cut reply was not stored (the URL is a MISS after it, though every hostile
# reply says max-age=600), and that the canary is still a hit.


class P:
    def __init__(self, name, reply, status, body=None, method=b"GET", then="close", truncated=False, interims=None,
                 xfail=None):
        self.name, self.reply, self.status, self.body, self.method = name, reply, status, body, method
        self.then, self.truncated, self.interims, self.xfail = then, truncated, interims, xfail


CC = b"Cache-Control: max-age=600\r\n"
OK = b"HTTP/1.1 200 OK\r\n" + CC
HELLO = b"5\r\nhello\r\n0\r\n\r\n"
POISON = b"HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 6\r\n\r\npoison"
FINAL = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
PAUSE = b"<pause>"  # the raw origin sends what follows 50 ms later (the next request waits)


def bad(name, reply, **kw):
    return P(name, reply, 502, **kw)


def cut(name, reply, **kw):
    return P(name, reply, 200, truncated=True, **kw)


def chunked(body):
    return OK + b"Transfer-Encoding: chunked\r\n\r\n" + body


CASES = [
    # baselines
    P("plain reply", OK + b"Content-Length: 5\r\n\r\nhello", 200, body=b"hello", then="keep"),
    P("plain chunked reply", chunked(HELLO), 200, body=b"hello", then="keep"),
    P("close-delimited reply", OK + b"\r\nhello", 200, body=b"hello"),

    # 1xx, then junk; 101 without an Upgrade asked for
    P("100 then 200", b"HTTP/1.1 100 Continue\r\n\r\n" + FINAL, 200, body=b"hello", then="keep", interims=[100]),
    P("103 then 200", b"HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n" + FINAL, 200, body=b"hello",
      then="keep", interims=[103]),
    P("three 1xx then 200", b"HTTP/1.1 100 Continue\r\n\r\n" * 2 + b"HTTP/1.1 102 Processing\r\n\r\n" + FINAL, 200,
      body=b"hello", then="keep", interims=[100, 100, 102]),
    bad("100 then junk", b"HTTP/1.1 100 Continue\r\n\r\nthis is junk\r\n\r\n"),
    bad("100 with a body then a reply", b"HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\nhello" + FINAL),
    bad("100 then close", b"HTTP/1.1 100 Continue\r\n\r\n"),
    bad("100 then HTTP/0.9 bytes", b"HTTP/1.1 100 Continue\r\n\r\nhello"),
    bad("101 with Upgrade", b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
        b"\x81\x05hello"),
    bad("101 bare", b"HTTP/1.1 101 Switching Protocols\r\n\r\n" + FINAL),
    bad("100 then 101", b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 Switching Protocols\r\n\r\n" + FINAL),

    # replies that have no body, sent with one
    P("204 with a Content-Length body", b"HTTP/1.1 204 No Content\r\n" + CC + b"Content-Length: 6\r\n\r\npoison", 204,
      body=b"", then="keep"),
    P("204 with a chunked body", b"HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n6\r\npoison\r\n0\r\n\r\n",
      204, body=b"", then="keep"),
    P("204 then a whole reply", b"HTTP/1.1 204 No Content\r\n\r\n" + POISON, 204, body=b"", then="keep"),
    P("304 with a body", b"HTTP/1.1 304 Not Modified\r\nContent-Length: 6\r\n\r\npoison", 304, body=b"", then="keep"),
    P("304 then a whole reply", b"HTTP/1.1 304 Not Modified\r\n\r\n" + POISON, 304, body=b"", then="keep"),
    P("HEAD reply with a body", OK + b"Content-Length: 6\r\n\r\npoison", 200, body=b"", method=b"HEAD", then="keep"),
    P("HEAD reply chunked with a body", chunked(b"6\r\npoison\r\n0\r\n\r\n"), 200, body=b"", method=b"HEAD",
      then="keep"),
    P("HEAD reply then a whole reply", OK + b"Content-Length: 6\r\n\r\n" + POISON, 200, body=b"", method=b"HEAD",
      then="keep"),

    # bytes after a complete reply
    P("a reply after a Content-Length reply", OK + b"Content-Length: 5\r\n\r\nhello" + POISON, 200, body=b"hello",
      then="keep"),
    P("junk after a Content-Length reply", OK + b"Content-Length: 5\r\n\r\nhellojunk", 200, body=b"hello",
      then="keep"),
    P("a reply after a chunked reply", chunked(HELLO + POISON), 200, body=b"hello", then="keep"),
    P("a reply 50 ms after a Content-Length reply", OK + b"Content-Length: 5\r\n\r\nhello" + PAUSE + POISON, 200,
      body=b"hello", then="keep"),
    P("a reply 50 ms after a chunked reply", chunked(HELLO + PAUSE + POISON), 200, body=b"hello", then="keep"),
    P("a reply 50 ms after a 204", b"HTTP/1.1 204 No Content\r\n\r\n" + PAUSE + POISON, 204, body=b"",
      then="keep"),
    P("more body than Content-Length", OK + b"Content-Length: 3\r\n\r\nhello", 200, body=b"hel", then="keep"),
    P("a reply after an empty reply", OK + b"Content-Length: 0\r\n\r\n" + POISON, 200, body=b"", then="keep"),

    # framing: Content-Length and Transfer-Encoding
    P("CL and TE: TE wins", OK + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + HELLO + POISON, 200,
      body=b"hello", then="keep"),
    P("TE and CL: TE wins", OK + b"Transfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n" + HELLO, 200,
      body=b"hello", then="keep"),
    P("CL 5, 5", OK + b"Content-Length: 5, 5\r\n\r\nhello", 200, body=b"hello", then="keep"),
    bad("CL 5 and 6", OK + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
    bad("CL 5, 6", OK + b"Content-Length: 5, 6\r\n\r\nhello!"),
    bad("CL +5", OK + b"Content-Length: +5\r\n\r\nhello"),
    bad("CL -1", OK + b"Content-Length: -1\r\n\r\nhello"),
    bad("CL 0x5", OK + b"Content-Length: 0x5\r\n\r\nhello"),
    bad("CL 5 5", OK + b"Content-Length: 5 5\r\n\r\nhello"),
    bad("CL empty", OK + b"Content-Length:\r\n\r\nhello"),
    bad("CL 2^64", OK + b"Content-Length: 18446744073709551616\r\n\r\nhello"),
    bad("CL over int64", OK + b"Content-Length: 9223372036854775808\r\n\r\nhello"),
    bad("TE xchunked", OK + b"Transfer-Encoding: xchunked\r\n\r\n" + HELLO),
    bad("TE chunked, chunked", OK + b"Transfer-Encoding: chunked, chunked\r\n\r\n" + HELLO),
    bad("TE VT chunked", OK + b"Transfer-Encoding: \x0bchunked\r\n\r\n" + HELLO),
    bad("TE NBSP chunked", OK + b"Transfer-Encoding: \xa0chunked\r\n\r\n" + HELLO),
    bad("TE space before colon", OK + b"Transfer-Encoding : chunked\r\n\r\n" + HELLO),
    bad("TE gzip, chunked", OK + b"Transfer-Encoding: gzip, chunked\r\n\r\n" + HELLO),
    bad("TE chunked;x=1", OK + b"Transfer-Encoding: chunked;x=1\r\n\r\n" + HELLO),
    bad("TE folded", OK + b"Transfer-Encoding:\r\n chunked\r\n\r\n" + HELLO),
    P("CL and TE, a reply 50 ms later", OK + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + HELLO +
      PAUSE + POISON, 200, body=b"hello", then="keep"),
    P("TE Chunked", OK + b"Transfer-Encoding: Chunked\r\n\r\n" + HELLO, 200, body=b"hello", then="keep"),
    P("Transfer_Encoding is not TE", OK + b"Content-Length: 15\r\nTransfer_Encoding: chunked\r\n\r\n" + HELLO, 200,
      body=HELLO, then="keep"),
    P("TE chunked in an HTTP/1.0 reply", b"HTTP/1.0 200 OK\r\n" + CC + b"Transfer-Encoding: chunked\r\n\r\n" + HELLO,
      200, body=b"hello"),

    # the reply head's syntax
    bad("obs-fold", OK + b"X: a\r\n b\r\nContent-Length: 5\r\n\r\nhello"),
    bad("bare CR", OK + b"X: a\rb\r\nContent-Length: 5\r\n\r\nhello"),
    P("bare LF line ends", b"HTTP/1.1 200 OK\nCache-Control: max-age=600\nContent-Length: 5\n\nhello", 200,
      body=b"hello", then="keep"),
    bad("NUL in a value", OK + b"X: a\x00b\r\nContent-Length: 5\r\n\r\nhello"),
    bad("SP before a colon", OK + b"X : a\r\nContent-Length: 5\r\n\r\nhello"),
    bad("a line without a colon", OK + b"X a\r\nContent-Length: 5\r\n\r\nhello"),
    bad("status 2000", b"HTTP/1.1 2000 OK\r\n" + CC + b"Content-Length: 5\r\n\r\nhello"),
    bad("status 099", b"HTTP/1.1 099 OK\r\n" + CC + b"Content-Length: 5\r\n\r\nhello"),
    bad("status abc", b"HTTP/1.1 abc OK\r\n" + CC + b"Content-Length: 5\r\n\r\nhello"),
    bad("HTTP/2.0 status line", b"HTTP/2.0 200 OK\r\n" + CC + b"Content-Length: 5\r\n\r\nhello"),
    bad("HTTP/0.9 status line", b"HTTP/0.9 200 OK\r\n" + CC + b"Content-Length: 5\r\n\r\nhello"),
    bad("ICY status line", b"ICY 200 OK\r\n" + CC + b"Content-Length: 5\r\n\r\nhello"),
    bad("an HTTP/0.9 reply", b"hello"),
    bad("no reply", b""),
    bad("cut inside the head", b"HTTP/1.1 200 OK\r\nContent-Len"),
    bad("a head too large", OK + b"X: " + b"a" * 70000 + b"\r\nContent-Length: 5\r\n\r\nhello"),
    P("status without a reason", b"HTTP/1.1 200\r\n" + CC + b"Content-Length: 5\r\n\r\nhello", 200, body=b"hello",
      then="keep"),
    P("empty lines before the status line", b"\r\n\r\n" + OK + b"Content-Length: 5\r\n\r\nhello", 200,
      body=b"hello", then="keep"),

    # chunked bodies that go wrong after the head went out
    cut("chunk size overflow", chunked(b"5\r\nhello\r\nfffffffffffffffff\r\n")),
    cut("chunk size 2^64-1", chunked(b"5\r\nhello\r\nffffffffffffffff\r\n")),
    cut("chunk data without CRLF", chunked(b"5\r\nhelloX\r\n0\r\n\r\n")),
    cut("bare CR in a chunk", chunked(b"5\r\nhello\r0\r\n\r\n")),
    cut("chunk extension control", chunked(b"5\r\nhello\r\n1;\x01\r\nx\r\n0\r\n\r\n")),
    cut("trailer obs-fold", chunked(b"5\r\nhello\r\n0\r\nX: a\r\n b\r\n\r\n")),
    cut("a reply as a trailer", chunked(b"5\r\nhello\r\n0\r\n" + POISON)),
    cut("no last chunk", chunked(b"5\r\nhello\r\n")),
    cut("Content-Length longer than the body", OK + b"Content-Length: 10\r\n\r\nhello"),
    P("bare LF chunk framing is tolerated", chunked(b"5\nhello\n0\n\n"), 200, body=b"hello", then="keep"),
]
