# The hostile request cases of the battery (see README.md): one line per
# case, R(name, bytes, status, close, origin, ...):
#   bytes   what the client sends; {U} is the case's URL at the test origin
#           (/s/hN, cacheable), {S} a URL that only a smuggled request names,
#           {H} the origin's host:port. Unless after=False, a plain
#           `GET {A}` (the next request) is pipelined after the bytes.
#   status  the status of the first reply the client must get
#   close   True: the connection must close after that reply (the pipelined
#           request is never answered, nor seen by the origin); False: the
#           pipelined request must be answered with 200
#   origin  "none": the origin saw nothing; "one": exactly one request, every
#           field line of which the client sent (but those cuttle adds), with
#           body= as its body when given; "partial": at most one request
#           head (a chunked body that went bad after its head was forwarded;
#           the origin never sees it end)
#   statuses= every reply's status, when there are several
#   interims= the 1xx statuses the client must get before the first reply
#   xfail=    why the case is expected to fail (a known, reported bug)
# Every case also checks that {S} never reached the origin and is not
# cached, that a refused GET's URL is not cached, and that the canary
# object is still served from the cache unchanged.


class R:
    def __init__(self, name, data, status, close, origin, body=None, after=True, statuses=None, interims=None,
                 xfail=None, method=None):
        self.name, self.data, self.status, self.close, self.origin = name, data, status, close, origin
        self.body, self.after, self.statuses, self.interims, self.xfail = body, after, statuses, interims, xfail
        if method is None:
            method = data.lstrip(b"\r\n").split(b" ", 1)[0]
        self.method = method


def get(fields=b"", version=b"1.1", target=b"{U}", method=b"GET"):
    return method + b" " + target + b" HTTP/" + version + b"\r\nHost: {H}\r\n" + fields + b"\r\n"


def post(fields, body, version=b"1.1"):
    return b"POST {U} HTTP/" + version + b"\r\nHost: {H}\r\n" + fields + b"\r\n" + body


SMUG = b"GET {S} HTTP/1.1\r\nHost: {H}\r\n\r\n"
CHUNKED_SMUG = b"0\r\n\r\n" + SMUG  # a chunked body that ends at once, then a smuggled request
HELLO = b"5\r\nhello\r\n0\r\n\r\n"
TE = b"Transfer-Encoding: chunked\r\n"
TOKEN = set(b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def ok(name, data, body=None, **kw):
    return R(name, data, 200, False, "one", body=body, **kw)


def bad(name, data, status=400, **kw):
    return R(name, data, status, True, "none", **kw)


def chunked_ok(name, body_bytes, payload):
    return ok(name, post(TE, body_bytes), body=payload)


def chunked_bad(name, body_bytes):
    # the head may have gone to the origin before the body went wrong
    return R(name, post(TE, body_bytes), 400, True, "partial")


CASES = [
    # baselines: the checks themselves pass on good requests
    ok("plain GET", get()),
    ok("plain POST", post(b"Content-Length: 5\r\n", b"hello"), body=b"hello"),
    ok("chunked POST", post(TE, HELLO), body=b"hello"),
    ok("HTTP/1.1 leading CRLF (RFC 9112 2.2)", b"\r\n" + get()),
    ok("leading empty lines", b"\r\n\r\n\r\n" + get()),
    R("HTTP/1.0 closes after its reply", get(version=b"1.0"), 200, True, "one"),

    # Content-Length and Transfer-Encoding together (RFC 9112 6.3)
    bad("CL then TE", post(b"Content-Length: 6\r\n" + TE, CHUNKED_SMUG)),
    bad("TE then CL", post(TE + b"Content-Length: 6\r\n", CHUNKED_SMUG)),
    bad("CL 0 and TE", post(b"Content-Length: 0\r\n" + TE, CHUNKED_SMUG)),
    bad("CL long and TE", post(TE + b"Content-Length: 200\r\n", HELLO + SMUG)),
    bad("CL and TE on GET", get(b"Content-Length: 5\r\n" + TE) + CHUNKED_SMUG),
    bad("CL and folded TE", post(b"Content-Length: 6\r\nTransfer-Encoding:\r\n chunked\r\n", CHUNKED_SMUG)),
    bad("CL and TE in HTTP/1.0", post(b"Content-Length: 6\r\n" + TE, CHUNKED_SMUG, version=b"1.0")),
    bad("CL and TE: identity", post(b"Content-Length: 6\r\nTransfer-Encoding: identity\r\n", CHUNKED_SMUG)),
    bad("CL and TE Chunked", post(b"Content-Length: 6\r\nTransfer-Encoding: CHUNKED\r\n", CHUNKED_SMUG)),
    ok("CL and X-Transfer-Encoding", post(b"Content-Length: 5\r\nX-Transfer-Encoding: chunked\r\n", b"hello"),
       body=b"hello"),
    ok("CL listed in Connection", post(b"Content-Length: 5\r\nConnection: Content-Length\r\n", b"hello"),
       body=b"hello"),
    ok("TE listed in Connection", post(TE + b"Connection: Transfer-Encoding\r\n", HELLO), body=b"hello"),

    # several, differing or malformed Content-Lengths
    bad("CL 1000,1000", post(b"Content-Length: 1000,1000\r\n", b"hello" + SMUG)),
    bad("CL 5,5", post(b"Content-Length: 5,5\r\n", b"hello" + SMUG)),
    bad("CL 5, 5", post(b"Content-Length: 5, 5\r\n", b"hello" + SMUG)),
    bad("CL 5 then 6", post(b"Content-Length: 5\r\nContent-Length: 6\r\n", b"hello" + SMUG)),
    bad("CL 6 then 5", post(b"Content-Length: 6\r\nContent-Length: 5\r\n", b"hello" + SMUG)),
    bad("CL 0 then 5", post(b"Content-Length: 0\r\nContent-Length: 5\r\n", b"hello" + SMUG)),
    bad("CL +5", post(b"Content-Length: +5\r\n", b"hello" + SMUG)),
    bad("CL -5", post(b"Content-Length: -5\r\n", b"hello" + SMUG)),
    bad("CL -0", post(b"Content-Length: -0\r\n", b"hello" + SMUG)),
    bad("CL 0x10", post(b"Content-Length: 0x10\r\n", b"hello" + SMUG)),
    bad("CL 0x5", post(b"Content-Length: 0x5\r\n", b"hello" + SMUG)),
    bad("CL 5 5", post(b"Content-Length: 5 5\r\n", b"hello" + SMUG)),
    bad("CL 5<TAB>5", post(b"Content-Length: 5\t5\r\n", b"hello" + SMUG)),
    bad("CL 5.0", post(b"Content-Length: 5.0\r\n", b"hello" + SMUG)),
    bad("CL 5e0", post(b"Content-Length: 5e0\r\n", b"hello" + SMUG)),
    bad("CL empty", post(b"Content-Length:\r\n", b"hello" + SMUG)),
    bad("CL blank", post(b"Content-Length:  \r\n", b"hello" + SMUG)),
    bad("CL 20 digits", post(b"Content-Length: 99999999999999999999\r\n", b"hello" + SMUG)),
    bad("CL 2^64", post(b"Content-Length: 18446744073709551616\r\n", b"hello" + SMUG)),
    bad("CL 2^64+5", post(b"Content-Length: 18446744073709551621\r\n", b"hello" + SMUG)),
    bad("CL arabic digit", post(b"Content-Length: \xd9\xa5\r\n", b"hello" + SMUG)),
    bad("CL 5 NUL", post(b"Content-Length: 5\x00\r\n", b"hello" + SMUG)),
    bad("CL 5;", post(b"Content-Length: 5;\r\n", b"hello" + SMUG)),
    bad("CL quoted", post(b'Content-Length: "5"\r\n', b"hello" + SMUG)),
    bad("CL five", post(b"Content-Length: five\r\n", b"hello" + SMUG)),
    bad("CL 5 VT", post(b"Content-Length: 5\x0b\r\n", b"hello" + SMUG)),
    bad("CL space before colon", post(b"Content-Length : 5\r\n", b"hello" + SMUG)),
    bad("CL folded", post(b"Content-Length: 5\r\n 0\r\n", b"hello" + SMUG)),
    ok("CL with OWS", post(b"Content-Length: \t 5 \t\r\n", b"hello"), body=b"hello"),
    ok("CL no space", post(b"Content-Length:5\r\n", b"hello"), body=b"hello"),
    ok("CL leading zeros", post(b"Content-Length: 0005\r\n", b"hello"), body=b"hello"),
    ok("CL twice the same", post(b"Content-Length: 5\r\nContent-Length: 5\r\n", b"hello"), body=b"hello"),
    ok("CL lower-case name", post(b"content-length: 5\r\n", b"hello"), body=b"hello"),
    ok("CL 0 on GET", get(b"Content-Length: 0\r\n")),
    ok("Content_Length is not Content-Length", get(b"Content_Length: 5\r\n")),
    ok("Content-Length2 is not Content-Length", get(b"Content-Length2: 5\r\n")),

    # Transfer-Encoding values: exactly a final chunked, or 400 (501 for a coding before it)
    ok("TE Chunked", post(b"Transfer-Encoding: Chunked\r\n", HELLO), body=b"hello"),
    ok("TE CHUNKED", post(b"Transfer-Encoding: CHUNKED\r\n", HELLO), body=b"hello"),
    ok("TE cHuNkEd", post(b"Transfer-Encoding: cHuNkEd\r\n", HELLO), body=b"hello"),
    ok("TE no space", post(b"Transfer-Encoding:chunked\r\n", HELLO), body=b"hello"),
    ok("TE tab", post(b"Transfer-Encoding:\tchunked\t\r\n", HELLO), body=b"hello"),
    ok("TE empty elements", post(b"Transfer-Encoding: , , chunked , \r\n", HELLO), body=b"hello"),
    ok("TE lower-case name", post(b"transfer-encoding: chunked\r\n", HELLO), body=b"hello"),
    ok("TE upper-case name", post(b"TRANSFER-ENCODING: chunked\r\n", HELLO), body=b"hello"),
    ok("TE on GET", get(TE) + HELLO, body=b"hello"),
    bad("TE xchunked", post(b"Transfer-Encoding: xchunked\r\n", CHUNKED_SMUG)),
    bad("TE chunkedx", post(b"Transfer-Encoding: chunkedx\r\n", CHUNKED_SMUG)),
    bad("TE chunk", post(b"Transfer-Encoding: chunk\r\n", CHUNKED_SMUG)),
    bad("TE chunked-", post(b"Transfer-Encoding: chunked-\r\n", CHUNKED_SMUG)),
    bad("TE chunked;", post(b"Transfer-Encoding: chunked;\r\n", CHUNKED_SMUG)),
    bad("TE chunked;q=1", post(b"Transfer-Encoding: chunked;q=1\r\n", CHUNKED_SMUG)),
    bad("TE quoted", post(b'Transfer-Encoding: "chunked"\r\n', CHUNKED_SMUG)),
    bad("TE chunked, chunked", post(b"Transfer-Encoding: chunked, chunked\r\n", CHUNKED_SMUG)),
    bad("TE chunked, identity", post(b"Transfer-Encoding: chunked, identity\r\n", CHUNKED_SMUG)),
    bad("TE identity", post(b"Transfer-Encoding: identity\r\n", CHUNKED_SMUG)),
    bad("TE gzip", post(b"Transfer-Encoding: gzip\r\n", CHUNKED_SMUG)),
    bad("TE ch unked", post(b"Transfer-Encoding: ch unked\r\n", CHUNKED_SMUG)),
    bad("TE chunked VT", post(b"Transfer-Encoding: chunked\x0b\r\n", CHUNKED_SMUG)),
    bad("TE FF chunked", post(b"Transfer-Encoding: \x0cchunked\r\n", CHUNKED_SMUG)),
    bad("TE NBSP chunked", post(b"Transfer-Encoding: \xc2\xa0chunked\r\n", CHUNKED_SMUG)),
    bad("TE chunked ZWSP", post(b"Transfer-Encoding: chunked\xe2\x80\x8b\r\n", CHUNKED_SMUG)),
    bad("TE chunked, then empty field", post(TE + b"Transfer-Encoding:\r\n", CHUNKED_SMUG)),
    bad("TE empty", post(b"Transfer-Encoding:\r\n", CHUNKED_SMUG)),
    bad("TE comma", post(b"Transfer-Encoding: ,\r\n", CHUNKED_SMUG)),
    bad("TE twice chunked", post(TE + TE, CHUNKED_SMUG)),
    bad("TE chunked then gzip", post(TE + b"Transfer-Encoding: gzip\r\n", CHUNKED_SMUG)),
    bad("TE folded value", post(b"Transfer-Encoding: chunked\r\n , gzip\r\n", CHUNKED_SMUG)),
    bad("TE folded name", post(b"Transfer-Encoding:\r\n\tchunked\r\n", CHUNKED_SMUG)),
    bad("TE in HTTP/1.0", post(TE, CHUNKED_SMUG, version=b"1.0")),
    bad("TE space before colon", post(b"Transfer-Encoding : chunked\r\n", CHUNKED_SMUG)),
    bad("TE tab before colon", post(b"Transfer-Encoding\t: chunked\r\n", CHUNKED_SMUG)),
    bad("Transfer Encoding with a space", post(b"Transfer Encoding: chunked\r\n", CHUNKED_SMUG)),
    bad("TE gzip, chunked", post(b"Transfer-Encoding: gzip, chunked\r\n", HELLO + SMUG), status=501),
    bad("TE identity, chunked", post(b"Transfer-Encoding: identity, chunked\r\n", HELLO + SMUG), status=501),
    bad("TE deflate,chunked", post(b"Transfer-Encoding: deflate,chunked\r\n", HELLO + SMUG), status=501),
    bad("TE gzip then chunked", post(b"Transfer-Encoding: gzip\r\n" + TE, HELLO + SMUG), status=501),
    ok("Transfer_Encoding is not TE", post(b"Content-Length: 5\r\nTransfer_Encoding: chunked\r\n", b"hello"),
       body=b"hello"),
    ok("Transfer-Encodings is not TE", post(b"Content-Length: 5\r\nTransfer-Encodings: chunked\r\n", b"hello"),
       body=b"hello"),
    ok("TransferEncoding is not TE", post(b"Content-Length: 5\r\nTransferEncoding: chunked\r\n", b"hello"),
       body=b"hello"),

    # obs-fold (RFC 9112 5.2: cuttle rejects it)
    bad("obs-fold SP", get(b"X: a\r\n b\r\n")),
    bad("obs-fold HTAB", get(b"X: a\r\n\tb\r\n")),
    bad("whitespace before the first field", b"GET {U} HTTP/1.1\r\n Host: {H}\r\n\r\n"),
    bad("obs-fold of Host", b"GET {U} HTTP/1.1\r\nHost:\r\n {H}\r\n\r\n"),
    bad("obs-fold empty continuation", get(b"X: a\r\n \r\n")),

    # bare CR and LF in every position of the head
    bad("LF-only request line", b"GET {U} HTTP/1.1\nHost: {H}\r\n\r\n"),
    bad("LF-only field line", b"GET {U} HTTP/1.1\r\nHost: {H}\n\r\n"),
    bad("LF-only final line", b"GET {U} HTTP/1.1\r\nHost: {H}\r\n\n"),
    bad("LF-only head", b"GET {U} HTTP/1.1\nHost: {H}\n\n"),
    bad("LF ends a head, a request follows", get(b"X: a\n\n") + SMUG),
    bad("LF inside a value", get(b"X: a\nTransfer-Encoding: chunked\r\n")),
    bad("leading bare LF", b"\n" + get()),
    bad("leading bare CR", b"\r" + get()),
    bad("CR in the method", b"GE\rT {U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("CR after the method", b"GET\r{U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("CR after the target", b"GET {U}\rHTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("CR in the version", b"GET {U} HTTP/1.\r1\r\nHost: {H}\r\n\r\n"),
    bad("CR CR LF", b"GET {U} HTTP/1.1\r\r\nHost: {H}\r\n\r\n"),
    bad("CR in a name", get(b"X\r: a\r\n")),
    bad("CR in a value", get(b"X: a\rb\r\n")),
    bad("CR at a value's end", get(b"X: a\r\r\n")),
    bad("CR before the final CRLF", get(b"X: a\r\n\r")),
    bad("CR ends the head", b"GET {U} HTTP/1.1\r\nHost: {H}\r\n\r" + SMUG),
    bad("CR ends a field, a request follows", get(b"X: a\rGET {S} HTTP/1.1\r\n")),
    bad("LF CR", b"GET {U} HTTP/1.1\n\rHost: {H}\r\n\r\n"),

    # NUL and other control bytes
    bad("NUL in the method", b"G\x00ET {U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("NUL before the method", b"\x00GET {U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("NUL in the target", get(target=b"{U}\x00x")),
    bad("NUL in the version", b"GET {U} HTTP/1.1\x00\r\nHost: {H}\r\n\r\n"),
    bad("NUL in a name", get(b"X\x00Y: a\r\n")),
    bad("NUL in a value", get(b"X: a\x00b\r\n")),
    bad("NUL as a value", get(b"X: \x00\r\n")),
    bad("NUL line", get(b"\x00\r\n")),
    bad("SOH in a value", get(b"X: \x01\r\n")),
    bad("BS in a value", get(b"X: a\x08\r\n")),
    bad("ESC in a value", get(b"X: \x1b[31mred\r\n")),
    bad("DEL in a value", get(b"X: a\x7f\r\n")),
    bad("DEL in a name", get(b"\x7fX: a\r\n")),
    bad("VT in a value", get(b"X: a\x0bb\r\n")),
    bad("FF in a value", get(b"X: a\x0cb\r\n")),
    bad("control in the method", b"G\x01T {U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("control in the target", get(target=b"{U}\x1bx")),
    bad("DEL in the target", get(target=b"{U}\x7fx")),
    bad("control in Host", b"GET {U} HTTP/1.1\r\nHost: {H}\x01\r\n\r\n"),
    ok("HTAB inside a value", get(b"X: a\tb\r\n")),
    ok("obs-text in a value", get(b"X: \xe9t\xe9\r\n")),

    # whitespace in the request line and before the colon
    bad("SP before a colon", get(b"X : a\r\n")),
    bad("HTAB before a colon", get(b"X\t: a\r\n")),
    bad("SP before Host's colon", b"GET {U} HTTP/1.1\r\nHost : {H}\r\n\r\n"),
    bad("SP inside a name", get(b"X Y: a\r\n")),
    bad("no colon", get(b"X a\r\n")),
    bad("empty name", get(b": a\r\n")),
    bad("two SP after the method", b"GET  {U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("two SP after the target", b"GET {U}  HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("HTAB after the method", b"GET\t{U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("HTAB after the target", b"GET {U}\tHTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("SP after the version", b"GET {U} HTTP/1.1 \r\nHost: {H}\r\n\r\n"),
    bad("SP before the method", b" GET {U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("SP in the target", b"GET {U} x HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("non-token method", b"G@T {U} HTTP/1.1\r\nHost: {H}\r\n\r\n"),
    bad("a status line as a request", b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
    ok("an unknown method is forwarded", get(method=b"HELLO")),
    ok("a lower-case method is another method", get(method=b"get")),

    # Host against absolute-form (RFC 9112 3.2.2: the target wins)
    ok("Host differs from the target", b"GET {U} HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
    ok("Host port differs", b"GET {U} HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n"),
    ok("Host empty", b"GET {U} HTTP/1.1\r\nHost:\r\n\r\n"),
    bad("Host twice", b"GET {U} HTTP/1.1\r\nHost: {H}\r\nHost: evil.example\r\n\r\n"),
    bad("Host twice, the same", b"GET {U} HTTP/1.1\r\nHost: {H}\r\nHost: {H}\r\n\r\n"),
    bad("Host with a space", b"GET {U} HTTP/1.1\r\nHost: evil example\r\n\r\n"),
    bad("Host with a path", b"GET {U} HTTP/1.1\r\nHost: evil.example/x\r\n\r\n"),
    # RFC 9112 3.2 says 400; the absolute-form target names the host and the
    # Host sent on is made from it, as Squid 5.7 takes it (doc/differences.md)
    ok("no Host in HTTP/1.1", b"GET {U} HTTP/1.1\r\n\r\n"),
    R("no Host in HTTP/1.0", b"GET {U} HTTP/1.0\r\n\r\n", 200, True, "one"),

    # oversized heads (request_header_max_size 8 KB)
    bad("request line too long", get(target=b"{U}&" + b"x" * 9000), status=414),
    bad("a field too long", get(b"X: " + b"a" * 9000 + b"\r\n"), status=431),
    bad("too many fields", get(b"X: a\r\n" * 2000), status=431),
    bad("too many empty lines first", b"\r\n" * 5000 + get(), status=414),
    ok("many fields within the limit", get(b"".join(b"X-%d: a\r\n" % i for i in range(500)))),
    ok("a long field within the limit", get(b"X: " + b"a" * 7000 + b"\r\n")),

    # HTTP/0.9, HTTP/2 and other versions on the HTTP/1 port
    bad("HTTP/0.9", b"GET {U}\r\n"),
    bad("HTTP/0.9 origin-form", b"GET /\r\n\r\n"),
    bad("HTTP/0.9 version", get(version=b"0.9")),
    bad("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", status=505),
    bad("HTTP/2 preface and SETTINGS", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00",
        status=505),
    bad("HTTP/2.0 request", get(version=b"2.0"), status=505),
    bad("HTTP/3.0 request", get(version=b"3.0"), status=505),
    ok("HTTP/1.2 is served as 1.1", get(version=b"1.2")),
    bad("HTTP/1.10", get(version=b"1.10")),
    bad("HTTP/1", get(version=b"1")),
    bad("HTTP/11", get(version=b"11")),
    bad("http/1.1", b"GET {U} http/1.1\r\nHost: {H}\r\n\r\n"),
    bad("HTTP/1.1.1", get(version=b"1.1.1")),
    bad("HTTP/ 1.1", b"GET {U} HTTP/ 1.1\r\nHost: {H}\r\n\r\n"),

    # Expect: 100-continue (RFC 9110 10.1.1)
    ok("Expect 100-continue", post(b"Expect: 100-continue\r\nContent-Length: 5\r\n", b"hello"), body=b"hello",
       interims=[100]),
    ok("Expect 100-Continue", post(b"Expect: 100-Continue\r\nContent-Length: 5\r\n", b"hello"), body=b"hello",
       interims=[100]),
    ok("Expect 100-continue chunked", post(b"Expect: 100-continue\r\n" + TE, HELLO), body=b"hello",
       interims=[100]),
    ok("Expect 100-continue without a body", get(b"Expect: 100-continue\r\n"), interims=[]),
    R("Expect 100-continue in HTTP/1.0 is ignored",
      post(b"Expect: 100-continue\r\nContent-Length: 5\r\n", b"hello", version=b"1.0"), 200, True, "one",
      body=b"hello", interims=[]),
    ok("Expect something else", post(b"Expect: something\r\nContent-Length: 5\r\n", b"hello"), body=b"hello"),
    bad("Expect 100-continue with CL and TE", post(b"Expect: 100-continue\r\nContent-Length: 6\r\n" + TE,
                                                   CHUNKED_SMUG), interims=[]),
    bad("Expect 100-continue with a bad CL", post(b"Expect: 100-continue\r\nContent-Length: +5\r\n", b"hello"),
        interims=[]),

    # chunk sizes, extensions, data ends and trailers
    chunked_ok("chunk extension", b"5;ext=1\r\nhello\r\n0\r\n\r\n", b"hello"),
    chunked_ok("chunk extension quoted", b'5;a="b c"\r\nhello\r\n0\r\n\r\n', b"hello"),
    chunked_ok("chunk extension BWS", b"5 ;x\r\nhello\r\n0\r\n\r\n", b"hello"),
    chunked_ok("chunk size leading zeros", b"0005\r\nhello\r\n0\r\n\r\n", b"hello"),
    chunked_ok("chunk size upper-case hex", b"A\r\n0123456789\r\n0\r\n\r\n", b"0123456789"),
    chunked_ok("several chunks", b"1\r\nh\r\n4\r\nello\r\n0\r\n\r\n", b"hello"),
    chunked_ok("a trailer", b"5\r\nhello\r\n0\r\nX-T: v\r\n\r\n", b"hello"),
    chunked_ok("a Content-Length trailer", b"5\r\nhello\r\n0\r\nContent-Length: 50\r\n\r\n", b"hello"),
    chunked_ok("last-chunk extension", b"5\r\nhello\r\n0;e\r\n\r\n", b"hello"),
    chunked_ok("an empty chunked body", b"0\r\n\r\n", b""),
    chunked_ok("CRLF inside the data", b"7\r\nhe\r\nllo\r\n0\r\n\r\n", b"he\r\nllo"),
    chunked_bad("chunk size 2^64-1", b"ffffffffffffffff\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size over int64", b"8000000000000000\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size 17 digits", b"10000000000000005\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size 17 digits with zeros", b"00000000000000005\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size -5", b"-5\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size +5", b"+5\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size 0x5", b"0x5\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size leading SP", b" 5\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size 5 5", b"5 5\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size empty", b"\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size g", b"g\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk size NUL", b"5\x00\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk extension NUL", b"5;\x00\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk extension control", b"5;a\x01\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk extension too long", b"5;" + b"a" * 5000 + b"\r\nhello\r\n0\r\n\r\n"),
    chunked_bad("chunk data without CRLF", b"5\r\nhelloX\r\n0\r\n\r\n"),
    chunked_bad("chunk data without CRLF, smuggling", b"5\r\nhello0\r\n\r\n" + SMUG),
    chunked_bad("chunk data too long", b"5\r\nhelloo\r\n0\r\n\r\n"),
    chunked_bad("chunk data too short", b"5\r\nhell\r\n0\r\n\r\n"),
    chunked_bad("bare LF after the chunk size", b"5\nhello\r\n0\r\n\r\n"),
    chunked_bad("bare LF after the chunk data", b"5\r\nhello\n0\r\n\r\n"),
    chunked_bad("bare LF after the last chunk", b"5\r\nhello\r\n0\n\r\n"),
    chunked_bad("bare LF ends the trailers", b"5\r\nhello\r\n0\r\n\n"),
    chunked_bad("bare LF ends a trailer", b"5\r\nhello\r\n0\r\nX: y\n\r\n"),
    chunked_bad("bare LF after an extension", b"5;x\nhello\r\n0\r\n\r\n"),
    chunked_bad("bare CR after the chunk size", b"5\rhello\r\n0\r\n\r\n"),
    chunked_bad("bare CR after the chunk data", b"5\r\nhello\r0\r\n\r\n"),
    chunked_bad("trailer obs-fold", b"5\r\nhello\r\n0\r\nX: a\r\n b\r\n\r\n"),
    chunked_bad("trailer without colon", b"5\r\nhello\r\n0\r\nXY\r\n\r\n"),
    chunked_bad("trailer SP before colon", b"5\r\nhello\r\n0\r\nX : a\r\n\r\n"),
    chunked_bad("trailer NUL", b"5\r\nhello\r\n0\r\nX: \x00\r\n\r\n"),
    chunked_bad("a request as a trailer", b"5\r\nhello\r\n0\r\n" + SMUG),

    # requests pipelined after a bad one, and a bad one after a good one
    bad("garbage, then a request", b"garbage\r\n\r\n" + SMUG),
    bad("a bad field, then a request", get(b"X : y\r\n") + SMUG),
    R("a good request, then a bad one", get() + b"GET {U} HTTP/1.1\r\nX : y\r\n\r\n", 200, True, "one",
      statuses=[200, 400], after=False),
    R("a good POST, then CL.TE", post(b"Content-Length: 5\r\n", b"hello") + post(b"Content-Length: 6\r\n" + TE,
                                                                            CHUNKED_SMUG),
      200, True, "one", body=b"hello", statuses=[200, 400], after=False),
    bad("a 100 KB garbage line", b"x" * 100000 + b"\r\n\r\n" + SMUG, status=414),
    bad("CRLF then a bare CR", b"\r\n\rX", after=False),
]


# every obfuscation of Transfer-Encoding: chunked by one byte, \x00 to \xff,
# before and after the value and the name
def _generated():
    out = []
    for b in range(256):
        c = bytes([b])
        name = "%02x" % b
        # in the value: only OWS and an empty list element leave "chunked"
        for where, value in (("before", c + b"chunked"), ("after", b"chunked" + c)):
            data = post(b"Transfer-Encoding: " + value + b"\r\n", HELLO)
            if c in b" \t,":
                out.append(ok("TE value %s byte %s" % (where, name), data, body=b"hello"))
            else:
                out.append(bad("TE value %s byte %s" % (where, name), data))
        # in the name, with a Content-Length that frames the body too
        for where, field in (("before", c + b"Transfer-Encoding"), ("after", b"Transfer-Encoding" + c)):
            data = post(b"Content-Length: 5\r\n" + field + b": chunked\r\n", b"hello")
            if b in TOKEN:
                out.append(ok("TE name %s byte %s" % (where, name), data, body=b"hello"))
            else:
                out.append(bad("TE name %s byte %s" % (where, name), data))
    return out


CASES += _generated()
