/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "Connection.h"
#include "Pattern.h"
#include "ReplySpec.h"
#include "Server.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <linux/sockios.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// the largest request head (request line and header fields) read
constexpr size_t MaxHead = 1u << 20;
/// the largest chunk-size line and the largest trailer section of a chunked request body
constexpr size_t MaxChunkLine = 4096;
constexpr size_t MaxTrailers = 64u << 10;
/// the most a request head read asks recv() for
constexpr size_t HeadReadSize = 64u << 10;
/// the request body read buffer
constexpr size_t ScratchSize = 256u << 10;
/// the largest script (PUT /_script/ID body) kept
constexpr size_t MaxScript = 1u << 20;
/// how long a graceful close drains the client's bytes, and a reset waits for the peer's ACKs
constexpr auto LingerTime = std::chrono::seconds(2);
/// the largest sendfile() call (the kernel moves at most 0x7ffff000 bytes per call)
constexpr uint64_t MaxSendfile = 1u << 30;
/// the payload sizes of a chunked reply's chunks, in turn: varied, the largest 64 KB
constexpr uint64_t ChunkSizes[] = {65536, 1, 4093, 65535, 61, 32768, 8199, 65536, 100, 65536, 12345, 65536};
/// the most chunks gathered into one sendmsg() (3 iovecs each, under IOV_MAX)
constexpr size_t MaxChunksPerWrite = 128;
/// a paced body (rate=) leaves in this many steps a second
constexpr uint64_t PacingSteps = 20;
/// the longest a paced body may take, as for t=: a day is more than any test waits
constexpr uint64_t MaxPacedSeconds = 86400;

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return (x >= 'A' && x <= 'Z' ? x + 32 : x) == (y >= 'A' && y <= 'Z' ? y + 32 : y);
           });
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

/// whether a comma-separated field value lists token (case-insensitively)
bool hasToken(std::string_view value, std::string_view token)
{
    while (!value.empty()) {
        const auto comma = value.find(',');
        if (iequals(trim(value.substr(0, comma)), token))
            return true;
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
    return false;
}

/// the end of the request head (just after its empty line) in text, or npos;
/// lines may end with CRLF or a bare LF (RFC 9112 section 2.2)
size_t findHeadEnd(std::string_view text)
{
    for (auto eol = text.find('\n'); eol != std::string_view::npos; eol = text.find('\n', eol + 1)) {
        if (eol + 1 < text.size() && text[eol + 1] == '\n')
            return eol + 2;
        if (eol + 2 < text.size() && text[eol + 1] == '\r' && text[eol + 2] == '\n')
            return eol + 3;
    }
    return std::string_view::npos;
}

/// an IMF-fixdate (RFC 9110 section 5.6.7)
std::string httpDate()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[64];
    const size_t length = std::strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    return std::string(text, length);
}

/// SHA-256 through OpenSSL's EVP interface
class Sha256 {
public:
    Sha256() : context_(EVP_MD_CTX_new())
    {
        if (!context_ || EVP_DigestInit_ex(context_, EVP_sha256(), nullptr) != 1)
            throw std::runtime_error("EVP_DigestInit_ex failed");
    }
    ~Sha256() { EVP_MD_CTX_free(context_); }
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(const char* bytes, size_t length) { EVP_DigestUpdate(context_, bytes, length); }

    std::string hexDigest()
    {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned length = 0;
        EVP_DigestFinal_ex(context_, digest, &length);
        std::string hex;
        for (unsigned i = 0; i < length; ++i) {
            hex += "0123456789abcdef"[digest[i] >> 4];
            hex += "0123456789abcdef"[digest[i] & 15];
        }
        return hex;
    }

private:
    EVP_MD_CTX* context_;
};

/// whether a /files/ name stays inside the directory: relative, no `..` part
bool isSafeFileName(std::string_view name)
{
    if (name.empty() || name.front() == '/' || name.find('\0') != std::string_view::npos)
        return false;
    while (!name.empty()) {
        const auto slash = name.find('/');
        if (name.substr(0, slash) == "..")
            return false;
        name = slash == std::string_view::npos ? std::string_view() : name.substr(slash + 1);
    }
    return true;
}

} // namespace

/// One parsed request and what its body was.
struct Origin::Connection::Request {
    std::string head;             ///< the request line and header lines as received, and the empty line
    std::string method;           ///< e.g. GET
    std::string path;             ///< the target's path (origin-form, also of an absolute-form target)
    std::string query;            ///< the target's query, without the '?'
    bool isHttp10 = false;        ///< an HTTP/1.0 request
    bool keepAlive = true;        ///< the client lets the connection persist
    bool isHead = false;          ///< a HEAD request
    bool hasBody = false;         ///< Content-Length or Transfer-Encoding: chunked was given
    bool isChunked = false;       ///< the body is chunked
    uint64_t contentLength = 0;   ///< the Content-Length when not chunked
    bool expectsContinue = false; ///< Expect: 100-continue
    std::string range;            ///< the Range field's value (the last one), or empty
    bool keepsBody = false;       ///< the body is kept in body (a script)
    bool isBodyTooBig = false;    ///< a kept body went past MaxScript
    uint64_t bodyLength = 0;      ///< the body's length as received
    std::string bodySha256;       ///< its SHA-256, in hex
    std::string body;             ///< the body, when keepsBody
};

/// What a reply carries: a short text, the pattern, or a file.
struct Origin::Connection::Body {
    enum class Kind { Text, Pattern, File };
    Kind kind = Kind::Text;    ///< where the bytes come from
    std::string text = "ok\n"; ///< the Text body
    uint64_t size = 0;         ///< the size of a Pattern or File body
    uint64_t from = 0;         ///< where in the pattern or file the body starts (a 206's range)
    int file = -1;             ///< the open File

    Body() = default;
    Body(const Body&) = delete;
    Body& operator=(const Body&) = delete;
    ~Body()
    {
        if (file >= 0)
            ::close(file);
    }

    /// the body's length in bytes
    uint64_t length() const { return kind == Kind::Text ? text.size() : size; }
    /// the Content-Type sent unless the reply names one
    const char* contentType() const { return kind == Kind::Text ? "text/plain" : "application/octet-stream"; }
    /// the bytes from offset (Text and Pattern; a Pattern run is at most PatternBlock bytes)
    const char* at(uint64_t offset) const
    {
        return kind == Kind::Text ? text.data() + offset : patternAt(from + offset);
    }
};

Origin::Connection::Connection(Server& server, int fd, uint64_t id) : server_(server), fd_(fd), id_(id) {}

Origin::Connection::~Connection()
{
    if (attached_)
        server_.detach(id_);
    ::close(fd_);
}

char* Origin::Connection::scratch()
{
    if (!scratch_)
        scratch_ = std::make_unique<char[]>(ScratchSize);
    return scratch_.get();
}

void Origin::Connection::serve()
{
    attached_ = server_.attach(id_, fd_);
    if (!attached_)
        return;
    for (;;) {
        Request request;
        int status = 400;
        std::string why;
        const auto result = readHead(request, status, why);
        if (result == HeadResult::Eof)
            return end(Ending::Abort);
        if (result == HeadResult::Bad || !readBody(request, status, why)) {
            if (status) {
                // a request we cannot frame: answer, then close (RFC 9112 section 9.6)
                request.keepAlive = false;
                simpleReply(request, status, why + "\n", Clock::now());
                return end(Ending::Close);
            }
            return end(Ending::Abort);
        }
        const auto ending = handle(request, Clock::now());
        if (ending != Ending::KeepAlive)
            return end(ending);
        if (in_.empty())
            in_.shrink_to_fit(); // an idle connection holds no read buffer
    }
}

bool Origin::Connection::fill()
{
    const size_t old = in_.size();
    in_.resize(old + HeadReadSize);
    ssize_t n;
    do {
        n = ::recv(fd_, in_.data() + old, HeadReadSize, 0);
    } while (n < 0 && errno == EINTR);
    in_.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    return n > 0;
}

Origin::Connection::HeadResult Origin::Connection::readHead(Request& request, int& status, std::string& why)
{
    for (;;) {
        // an empty line before a request line is ignored (RFC 9112 section 2.2)
        const auto start = in_.find_first_not_of("\r\n");
        in_.erase(0, start == std::string::npos ? in_.size() : start);
        const auto end = findHeadEnd(in_);
        if (end != std::string::npos) {
            request.head = in_.substr(0, end);
            in_.erase(0, end);
            return parseHead(request, status, why) ? HeadResult::Ok : HeadResult::Bad;
        }
        if (in_.size() > MaxHead) {
            status = 431;
            why = "request head over " + std::to_string(MaxHead) + " bytes";
            return HeadResult::Bad;
        }
        if (!fill())
            return HeadResult::Eof;
    }
}

bool Origin::Connection::parseHead(Request& request, int& status, std::string& why)
{
    std::string_view rest = request.head;
    auto nextLine = [&rest] {
        const auto eol = rest.find('\n');
        auto line = rest.substr(0, eol);
        rest.remove_prefix(std::min(rest.size(), eol + 1));
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        return line;
    };
    status = 400;

    const auto requestLine = nextLine();
    const auto sp1 = requestLine.find(' ');
    const auto sp2 = requestLine.rfind(' ');
    if (sp1 == std::string_view::npos || sp1 == sp2 || sp1 == 0) {
        why = "bad request line";
        return false;
    }
    request.method = requestLine.substr(0, sp1);
    std::string_view target = trim(requestLine.substr(sp1 + 1, sp2 - sp1 - 1));
    const auto version = requestLine.substr(sp2 + 1);
    if (!startsWith(version, "HTTP/1.") || version.size() != 8 || target.empty()) {
        why = "bad request line";
        return false;
    }
    request.isHttp10 = version == "HTTP/1.0";
    request.isHead = request.method == "HEAD";

    // absolute-form: drop the scheme and authority (RFC 9112 section 3.2.2)
    const auto scheme = target.find("://");
    if (scheme != std::string_view::npos && target.front() != '/') {
        const auto pathAt = target.find_first_of("/?", scheme + 3);
        target = pathAt == std::string_view::npos ? std::string_view("/") : target.substr(pathAt);
    }
    const auto question = target.find('?');
    request.path = target.substr(0, question);
    if (request.path.empty())
        request.path = "/";
    if (question != std::string_view::npos)
        request.query = target.substr(question + 1);

    std::string_view connection, transferEncoding;
    std::optional<uint64_t> contentLength;
    bool hasTransferEncoding = false;
    for (auto line = nextLine(); !line.empty(); line = nextLine()) {
        const auto colon = line.find(':');
        if (line.front() == ' ' || line.front() == '\t' || colon == std::string_view::npos || colon == 0 ||
            line[colon - 1] == ' ' || line[colon - 1] == '\t') {
            why = "bad header line";
            return false;
        }
        const auto name = line.substr(0, colon);
        const auto value = trim(line.substr(colon + 1));
        if (iequals(name, "Connection")) {
            connection = value;
        } else if (iequals(name, "Transfer-Encoding")) {
            hasTransferEncoding = true;
            transferEncoding = value;
        } else if (iequals(name, "Content-Length")) {
            uint64_t length = 0;
            bool valid = !value.empty() && value.size() <= 18;
            for (const char c : value) {
                valid = valid && c >= '0' && c <= '9';
                length = length * 10 + static_cast<uint64_t>(c - '0');
            }
            if (!valid || (contentLength && *contentLength != length)) {
                why = "bad Content-Length";
                return false;
            }
            contentLength = length;
        } else if (iequals(name, "Expect")) {
            request.expectsContinue = iequals(value, "100-continue");
        } else if (iequals(name, "Range")) {
            request.range = value;
        }
    }

    request.keepAlive =
        request.isHttp10 ? hasToken(connection, "keep-alive") : !hasToken(connection, "close");
    if (hasTransferEncoding) {
        // chunked must be the final coding (RFC 9112 section 6.3)
        const auto comma = transferEncoding.rfind(',');
        const auto last =
            trim(comma == std::string_view::npos ? transferEncoding : transferEncoding.substr(comma + 1));
        if (!iequals(last, "chunked")) {
            status = 501;
            why = "unsupported Transfer-Encoding";
            return false;
        }
        request.hasBody = request.isChunked = true;
        if (contentLength)
            request.keepAlive = false; // both: a smuggling attempt, so close afterwards
    } else if (contentLength) {
        request.hasBody = true;
        request.contentLength = *contentLength;
    }
    request.keepsBody = startsWith(request.path, "/_script/");
    return true;
}

bool Origin::Connection::readBody(Request& request, int& status, std::string& why)
{
    if (!request.hasBody)
        return true;
    status = 0; // an I/O error from here on ends the connection without a reply
    // RFC 9110 section 10.1.1: a 1.1 client waits for the interim reply
    if (request.expectsContinue && !request.isHttp10 && (request.isChunked || request.contentLength > 0)) {
        if (!sendAll("HTTP/1.1 100 Continue\r\n\r\n"))
            return false;
    }
    Sha256 sha;
    auto consume = [&](uint64_t length) {
        while (length > 0) {
            const char* bytes;
            size_t n;
            if (!in_.empty()) {
                bytes = in_.data();
                n = static_cast<size_t>(std::min<uint64_t>(length, in_.size()));
            } else {
                // straight into the big buffer, never past this body part
                ssize_t got;
                do {
                    got = ::recv(fd_, scratch(), static_cast<size_t>(std::min<uint64_t>(length, ScratchSize)),
                                 0);
                } while (got < 0 && errno == EINTR);
                if (got <= 0)
                    return false;
                bytes = scratch();
                n = static_cast<size_t>(got);
            }
            sha.update(bytes, n);
            request.bodyLength += n;
            if (request.keepsBody) {
                if (request.body.size() + n <= MaxScript)
                    request.body.append(bytes, n);
                else
                    request.isBodyTooBig = true;
            }
            if (bytes == in_.data())
                in_.erase(0, n);
            length -= n;
        }
        return true;
    };

    if (!request.isChunked) {
        if (!consume(request.contentLength))
            return false;
    } else {
        // RFC 9112 section 7.1
        for (;;) {
            std::string line;
            if (!readLine(line, MaxChunkLine))
                return false;
            uint64_t size = 0;
            size_t digits = 0;
            while (digits < line.size() && digits < 16) {
                const char c = line[digits];
                const int value = c >= '0' && c <= '9'   ? c - '0'
                                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                         : -1;
                if (value < 0)
                    break;
                size = size * 16 + static_cast<uint64_t>(value);
                ++digits;
            }
            const auto after = line.find_first_not_of(" \t", digits);
            if (digits == 0 || digits > 15 || (after != std::string::npos && line[after] != ';')) {
                status = 400;
                why = "bad chunk size line";
                return false;
            }
            if (size == 0)
                break;
            if (!consume(size) || !readLine(line, MaxChunkLine))
                return false;
            if (!line.empty()) {
                status = 400;
                why = "no CRLF after chunk data";
                return false;
            }
        }
        size_t trailers = 0;
        for (std::string line;;) {
            if (!readLine(line, MaxTrailers - trailers))
                return false;
            if (line.empty())
                break;
            trailers += line.size() + 2;
        }
    }
    request.bodySha256 = sha.hexDigest();
    return true;
}

bool Origin::Connection::readLine(std::string& line, size_t maxLength)
{
    for (;;) {
        const auto eol = in_.find('\n');
        if (eol != std::string::npos) {
            line.assign(in_, 0, eol > 0 && in_[eol - 1] == '\r' ? eol - 1 : eol);
            in_.erase(0, eol + 1);
            return true;
        }
        if (in_.size() > maxLength || !fill())
            return false;
    }
}

Origin::Connection::Ending Origin::Connection::handle(const Request& request, Clock::time_point started)
{
    const std::string& path = request.path;
    auto& scripts = server_.scripts();
    if (startsWith(path, "/_script/")) {
        const std::string id = path.substr(9);
        if (request.method != "PUT" && request.method != "POST")
            return simpleReply(request, 405, "PUT a script to /_script/ID\n", started);
        if (request.isBodyTooBig)
            return simpleReply(request, 413, "a script has at most " + std::to_string(MaxScript) + " bytes\n",
                               started);
        // check every line now, so that a typo fails the PUT and not a later request
        auto lines = ScriptStore::splitLines(request.body);
        for (size_t i = 0; i < lines.size(); ++i) {
            ReplySpec spec;
            if (const auto error = applyParams(lines[i], spec); !error.empty())
                return simpleReply(request, 400, "line " + std::to_string(i + 1) + ": " + error + "\n",
                                   started);
        }
        const auto count = lines.size();
        scripts.setScript(id, std::move(lines));
        return simpleReply(request, 201, "script " + id + ": " + std::to_string(count) + " replies\n",
                           started);
    }
    if (startsWith(path, "/_seen/"))
        return simpleReply(request, 200, scripts.seen(path.substr(7)), started);
    if (path == "/_conns")
        return simpleReply(request, 200, std::to_string(server_.connectionsAccepted()) + "\n", started);

    std::string params = request.query;
    if (startsWith(path, "/s/")) {
        const std::string id = path.substr(3);
        scripts.recordSeen(id, request.head);
        if (auto line = scripts.nextLine(id))
            params = std::move(*line);
    }
    ReplySpec spec;
    if (const auto error = applyParams(params, spec); !error.empty())
        return simpleReply(request, 400, error + "\n", started);

    Body body;
    if (startsWith(path, "/files/")) {
        const auto name = percentDecode(path.substr(7));
        if (server_.filesDir() < 0 || !name || !isSafeFileName(*name))
            return simpleReply(request, 404, "no such file\n", started);
        body.file = ::openat(server_.filesDir(), name->c_str(), O_RDONLY | O_CLOEXEC);
        struct stat st {};
        if (body.file < 0 || ::fstat(body.file, &st) != 0 || !S_ISREG(st.st_mode))
            return simpleReply(request, 404, "no such file\n", started);
        body.kind = Body::Kind::File;
        body.size = static_cast<uint64_t>(st.st_size);
    } else if (spec.size) {
        body.kind = Body::Kind::Pattern;
        body.size = *spec.size;
    } else if (request.hasBody) {
        body.text = "body-length: " + std::to_string(request.bodyLength) +
                    "\nbody-sha256: " + request.bodySha256 + "\n";
    }
    if (spec.ranges && body.kind != Body::Kind::Text && !request.range.empty())
        applyRange(request.range, spec, body);
    if (spec.rate > 0 && body.length() / spec.rate >= MaxPacedSeconds)
        return simpleReply(request, 400, "rate=" + std::to_string(spec.rate) + " would take a day or more\n",
                           started);
    return reply(request, spec, body, started);
}

void Origin::Connection::applyRange(std::string_view range, ReplySpec& spec, Body& body)
{
    // one range, `bytes=A-B`, `bytes=A-` or `bytes=-N`, that lies (partly)
    // within the body: a 206 of those bytes; anything else: the whole body
    if (!startsWith(range, "bytes="))
        return;
    range.remove_prefix(6);
    const auto dash = range.find('-');
    if (dash == std::string_view::npos || range.find(',') != std::string_view::npos)
        return;
    const auto first = parseDecimal(range.substr(0, dash));
    const auto last = parseDecimal(range.substr(dash + 1));
    uint64_t from = 0, to = 0;
    if (dash == 0 && last && *last > 0) {
        from = body.size > *last ? body.size - *last : 0;
        to = body.size;
    } else if (first && dash + 1 == range.size()) {
        from = *first;
        to = body.size;
    } else if (first && last && *last >= *first) {
        from = *first;
        to = std::min(*last + 1, body.size);
    } else {
        return;
    }
    if (from >= to)
        return;
    spec.status = 206;
    spec.headers.emplace_back("Content-Range", "bytes " + std::to_string(from) + "-" +
                                                   std::to_string(to - 1) + "/" + std::to_string(body.size));
    body.from = from;
    body.size = to - from;
}

Origin::Connection::Ending Origin::Connection::simpleReply(const Request& request, int status,
                                                           std::string text, Clock::time_point started)
{
    ReplySpec spec;
    spec.status = status;
    Body body;
    body.text = std::move(text);
    return reply(request, spec, body, started);
}

Origin::Connection::Ending Origin::Connection::reply(const Request& request, const ReplySpec& spec,
                                                     Body& body, Clock::time_point started)
{
    if (spec.delay.count() > 0 && !server_.sleepFor(spec.delay))
        return Ending::Abort;
    if (spec.failure == Failure::Empty)
        return Ending::Close;
    if (spec.failure == Failure::Garbage) {
        sendAll("this is not http\r\n\r\n");
        return Ending::Close;
    }

    // RFC 9110 sections 15.3.5 and 15.4.5: no content, so no Content-Length either
    const bool hasBody = spec.status != 204 && spec.status != 304;
    // a Reset or Stall reply looks like a persistent one until it breaks
    const bool keepAlive = request.keepAlive && !spec.close && spec.failure != Failure::BadHeader;
    const auto built = buildHead(request, spec, body, hasBody, keepAlive, started);
    std::string_view head = built;

    const bool breaks = spec.failure == Failure::Reset || spec.failure == Failure::Stall;
    uint64_t limit = hasBody && !request.isHead ? body.length() : 0;
    const bool complete = !breaks || spec.failAt >= limit;
    if (!complete)
        limit = spec.failAt;
    if (spec.rate > 0 && limit > 0) {
        // rate=: the head at once, then the body (and its chunk framing) paced
        if (!sendAll(head))
            return Ending::Abort;
        head = {};
        pacing_ = Pacing{spec.rate, Clock::now(), 0};
    }
    const bool sent = hasBody && !request.isHead && spec.chunked ? sendChunked(head, body, limit, complete)
                                                                 : sendIdentity(head, body, limit);
    pacing_ = Pacing{};
    if (!sent)
        return Ending::Abort;
    if (spec.failure == Failure::Reset) {
        waitUntilSent();
        return Ending::Reset;
    }
    if (spec.failure == Failure::Stall) {
        stall();
        return Ending::Abort;
    }
    return keepAlive ? Ending::KeepAlive : Ending::Close;
}

std::string Origin::Connection::buildHead(const Request& request, const ReplySpec& spec, const Body& body,
                                          bool hasBody, bool keepAlive, Clock::time_point started) const
{
    auto isGiven = [&spec](std::string_view name) {
        return std::any_of(spec.headers.begin(), spec.headers.end(),
                           [name](const auto& field) { return iequals(field.first, name); });
    };
    std::string head;
    head.reserve(512 + spec.headSize);
    head += "HTTP/1.1 " + std::to_string(spec.status) + " " + reasonPhrase(spec.status) + "\r\n";
    if (spec.failure == Failure::BadHeader)
        head += "Bad Header Line Without Colon\r\n";
    if (!isGiven("Date"))
        head += "Date: " + httpDate() + "\r\n";
    if (hasBody && !isGiven("Content-Type"))
        head += std::string("Content-Type: ") + body.contentType() + "\r\n";
    if (hasBody && spec.chunked)
        head += "Transfer-Encoding: chunked\r\n";
    else if (hasBody && !spec.close)
        head += "Content-Length: " + std::to_string(body.length()) + "\r\n";
    if (!keepAlive)
        head += "Connection: close\r\n";
    else if (request.isHttp10)
        head += "Connection: keep-alive\r\n";
    if (request.hasBody) {
        head += "X-Body-Length: " + std::to_string(request.bodyLength) + "\r\n";
        head += "X-Body-Sha256: " + request.bodySha256 + "\r\n";
    }
    for (const auto& [name, value] : spec.headers)
        head += name + ": " + value + "\r\n";
    head += "X-Origin-Conn: " + std::to_string(id_) + "\r\n";
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
    head += "X-Origin-Time: " + std::to_string(micros.count()) + "\r\n";

    // hsize=: filler fields up to the size asked for, exactly unless fewer
    // bytes are missing than the smallest filler line takes
    constexpr size_t LongestFiller = 4096;
    auto missing = spec.headSize > head.size() + 2 ? spec.headSize - head.size() - 2 : 0;
    for (unsigned number = 1; missing > 0; ++number) {
        const std::string name = "X-Filler-" + std::to_string(number) + ": ";
        const size_t shortest = name.size() + 3; // one byte of value and CRLF
        size_t line = std::max<size_t>(std::min<uint64_t>(missing, LongestFiller), shortest);
        if (missing > line && missing - line < shortest + 1)
            line -= shortest + 1; // leave room for one more whole line
        head += name;
        head.append(line - name.size() - 2, 'x');
        head += "\r\n";
        missing = missing > line ? missing - line : 0;
    }
    head += "\r\n";
    return head;
}

bool Origin::Connection::sendAll(iovec* iov, size_t count, int flags)
{
    while (count > 0) {
        if (!waitForPace())
            return false;
        // paced: this call takes one step's worth, the iovec where the step
        // ends cut short for the call and restored after it
        size_t used = 0;
        size_t room = static_cast<size_t>(stepLimit(std::numeric_limits<size_t>::max()));
        while (used < count && room >= iov[used].iov_len)
            room -= iov[used++].iov_len;
        const size_t whole = used < count ? iov[used].iov_len : 0;
        if (used < count && room > 0)
            iov[used++].iov_len = room;
        msghdr message{};
        message.msg_iov = iov;
        message.msg_iovlen = used;
        // MSG_MORE would hold a paced step back until the next one
        const int sendFlags = (pacing_.rate ? flags & ~MSG_MORE : flags) | MSG_NOSIGNAL;
        const ssize_t n = ::sendmsg(fd_, &message, sendFlags);
        if (whole && room > 0)
            iov[used - 1].iov_len = whole;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        pacing_.sent += static_cast<uint64_t>(n);
        auto left = static_cast<size_t>(n);
        while (count > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            ++iov;
            --count;
        }
        if (count > 0) {
            iov->iov_base = static_cast<char*>(iov->iov_base) + left;
            iov->iov_len -= left;
        }
    }
    return true;
}

bool Origin::Connection::sendAll(std::string_view bytes, int flags)
{
    iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
    return sendAll(&iov, 1, flags);
}

bool Origin::Connection::sendFile(int file, uint64_t offset, uint64_t length)
{
    auto position = static_cast<off_t>(offset);
    while (length > 0) {
        if (!waitForPace())
            return false;
        const ssize_t n =
            ::sendfile(fd_, file, &position, static_cast<size_t>(std::min(length, stepLimit(MaxSendfile))));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false; // an error, or the file shrank
        length -= static_cast<uint64_t>(n);
        pacing_.sent += static_cast<uint64_t>(n);
    }
    return true;
}

uint64_t Origin::Connection::stepLimit(uint64_t max) const
{
    if (pacing_.rate == 0)
        return max;
    return std::min(max, std::max<uint64_t>(pacing_.rate / PacingSteps, 1));
}

bool Origin::Connection::waitForPace()
{
    if (pacing_.rate == 0)
        return true;
    // a schedule from the start, not a sleep per step: a late step does not
    // slow down the ones after it
    const auto offset =
        std::chrono::duration<double>(static_cast<double>(pacing_.sent) / static_cast<double>(pacing_.rate));
    const auto due = pacing_.start + std::chrono::duration_cast<Clock::duration>(offset);
    const auto now = Clock::now();
    if (due <= now)
        return true;
    return server_.sleepFor(std::chrono::duration_cast<std::chrono::microseconds>(due - now) +
                            std::chrono::microseconds(1));
}

bool Origin::Connection::sendIdentity(std::string_view head, const Body& body, uint64_t limit)
{
    if (body.kind == Body::Kind::File) {
        if (limit == 0)
            return sendAll(head);
        // MSG_MORE: the head leaves in the same segment as the file's first bytes
        return (head.empty() || sendAll(head, MSG_MORE)) && sendFile(body.file, body.from, limit);
    }
    // the head and the first (up to PatternBlock) body bytes in one call, then big writes
    uint64_t offset = std::min<uint64_t>(limit, PatternBlock);
    iovec iov[2] = {{const_cast<char*>(head.data()), head.size()},
                    {const_cast<char*>(body.at(0)), static_cast<size_t>(offset)}};
    if (!sendAll(iov, offset ? 2 : 1))
        return false;
    while (offset < limit) {
        const auto n = std::min<uint64_t>(limit - offset, PatternBlock);
        if (!sendAll(std::string_view(body.at(offset), static_cast<size_t>(n))))
            return false;
        offset += n;
    }
    return true;
}

bool Origin::Connection::sendChunked(std::string_view head, const Body& body, uint64_t limit, bool complete)
{
    static const char Crlf[] = "\r\n";
    static const char LastChunk[] = "0\r\n\r\n";
    std::vector<iovec> iov;
    iov.reserve(3 * MaxChunksPerWrite + 3);
    std::vector<std::array<char, 24>> sizeLines(MaxChunksPerWrite);
    size_t lines = 0;
    uint64_t bytes = 0;
    auto add = [&](const char* data, size_t length) {
        iov.push_back({const_cast<char*>(data), length});
        bytes += length;
    };
    auto flush = [&](int flags) {
        const bool ok = sendAll(iov.data(), iov.size(), flags);
        iov.clear();
        lines = 0;
        bytes = 0;
        return ok;
    };

    add(head.data(), head.size());
    uint64_t offset = 0;
    for (size_t turn = 0; offset < limit; ++turn) {
        const uint64_t size = std::min(limit - offset, ChunkSizes[turn % std::size(ChunkSizes)]);
        auto& line = sizeLines[lines++];
        const int length = std::snprintf(line.data(), line.size(), "%" PRIx64 "\r\n", size);
        add(line.data(), static_cast<size_t>(length));
        if (body.kind == Body::Kind::File) {
            if (!flush(MSG_MORE) || !sendFile(body.file, offset, size))
                return false;
        } else {
            add(body.at(offset), static_cast<size_t>(size));
        }
        add(Crlf, 2);
        offset += size;
        if ((bytes >= PatternBlock || lines == MaxChunksPerWrite) && !flush(0))
            return false;
    }
    if (complete)
        add(LastChunk, sizeof(LastChunk) - 1);
    return iov.empty() || flush(0);
}

void Origin::Connection::waitUntilSent()
{
    // With SO_LINGER 0, close() drops the bytes still queued; wait (bounded)
    // until the peer has acknowledged them, so that it sees N bytes, then the reset.
    const auto deadline = Clock::now() + LingerTime;
    int queued = 0;
    while (::ioctl(fd_, SIOCOUTQ, &queued) == 0 && queued > 0 && Clock::now() < deadline) {
        if (!server_.sleepFor(std::chrono::milliseconds(1)))
            return;
    }
}

void Origin::Connection::stall()
{
    // Discard whatever the client sends until it closes (or stop() shuts the socket down).
    for (;;) {
        const ssize_t n = ::recv(fd_, scratch(), ScratchSize, 0);
        if (n > 0 || (n < 0 && errno == EINTR))
            continue;
        return;
    }
}

void Origin::Connection::end(Ending ending)
{
    if (ending == Ending::Reset) {
        const linger abortive{1, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abortive, sizeof(abortive));
    } else if (ending == Ending::Close) {
        // A graceful close: FIN first, then read until the client closes too, so
        // that unread bytes of the client do not turn our close into a reset that
        // could destroy the reply before the client read it.
        ::shutdown(fd_, SHUT_WR);
        const auto deadline = Clock::now() + LingerTime;
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0)
                break;
            pollfd pfd{fd_, POLLIN, 0};
            const int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready <= 0 || ::recv(fd_, scratch(), ScratchSize, 0) <= 0)
                break;
        }
    }
    // the destructor detaches and closes
}
