/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Resolver.h"
#include "base/Text.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <optional>

#include <ares.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// Squid's debug section of its DNS client
constexpr int DebugSection = 78;

/// c-ares tries each server this often; the per-try timeout doubles after
/// every round, so Tries = 3 spends 1 + 2 + 4 = 7 per-try timeouts per server
constexpr int Tries = 3;
constexpr int TryUnitsPerServer = 7;

/// the ares_process_fd() calls one readable edge may take before the rest is
/// left to a deferred call, so that a chatty DNS server cannot starve the loop
constexpr int MaxDrainRounds = 64;

/// a hosts file larger than this is refused (it would be read on the loop)
constexpr off_t MaxHostsFileSize = 64 * 1024 * 1024;

const char* const TimedOutText = "DNS server timed out";

/// the key of a name in the hosts table and in the queries in flight
std::string NameKey(std::string_view name)
{
    if (name.size() > 1 && name.back() == '.')
        name.remove_suffix(1);
    return AsciiLowercase(name);
}

/// the key of a reverse query in the queries in flight (a space is in no name)
std::string ReverseKey(const std::string& addressText)
{
    return "ptr " + addressText;
}

/// a copy of a with the given port
Comm::Address WithPort(const Comm::Address& a, uint16_t port)
{
    sockaddr_storage ss;
    std::memset(&ss, 0, sizeof(ss));
    std::memcpy(&ss, a.raw(), a.length());
    if (a.family() == AF_INET6)
        reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port = htons(port);
    else
        reinterpret_cast<sockaddr_in*>(&ss)->sin_port = htons(port);
    return Comm::Address::FromSockaddr(reinterpret_cast<const sockaddr*>(&ss), a.length());
}

bool SameHost(const Comm::Address& a, const Comm::Address& b)
{
    return a.length() == b.length() && std::memcmp(a.raw(), b.raw(), a.length()) == 0;
}

void AddUnique(std::vector<Comm::Address>& list, const Comm::Address& a)
{
    for (const auto& b : list) {
        if (SameHost(a, b))
            return;
    }
    list.push_back(a);
}

/// the answer for a c-ares failure status
Comm::Resolver::Answer FailureAnswer(int status)
{
    Comm::Resolver::Answer a;
    switch (status) {
    case ARES_ENOTFOUND:
        a.error = "Name not found";
        a.isNotFound = true;
        break;
    case ARES_ENODATA:
        a.error = "Name has no address";
        a.isNotFound = true;
        break;
    case ARES_ETIMEOUT:
        a.error = TimedOutText;
        break;
    case ARES_ECONNREFUSED:
        a.error = "DNS server unreachable";
        break;
    case ARES_ESERVFAIL:
        a.error = "DNS server failure (SERVFAIL)";
        break;
    case ARES_EREFUSED:
        a.error = "DNS server refused the query";
        break;
    case ARES_EFORMERR:
    case ARES_EBADRESP:
        a.error = "Bad DNS reply";
        break;
    case ARES_EBADNAME:
    case ARES_EBADQUERY:
        a.error = "Bad host name";
        break;
    case ARES_ENOMEM:
        a.error = "Out of memory while resolving";
        break;
    case ARES_ECANCELLED:
    case ARES_EDESTRUCTION:
        a.error = "DNS lookup cancelled";
        break;
    default:
        a.error = std::string("DNS lookup failed: ") + ares_strerror(status);
        break;
    }
    return a;
}

/// bytes waiting in a socket's receive queue (a stream's total; a datagram
/// socket's next datagram), or -1
int QueuedBytes(int fd)
{
    int n = 0;
    return ::ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

/// whether a read on fd would not block (data, EOF or an error is pending)
bool IsReadable(int fd)
{
    pollfd p = {fd, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

/// "IP", "IP:PORT", "[IPv6]" or "[IPv6]:PORT" (bare IPv6 has no port) as
/// ares_set_servers_ports_csv() takes it, or nothing
std::optional<std::string> CsvEntry(const std::string& text)
{
    std::string_view host = text;
    std::string_view port;
    if (!host.empty() && host.front() == '[') {
        const auto close = host.find(']');
        if (close == std::string_view::npos)
            return std::nullopt;
        const auto rest = host.substr(close + 1);
        host = host.substr(1, close - 1);
        if (!rest.empty()) {
            if (rest.front() != ':')
                return std::nullopt;
            port = rest.substr(1);
            if (port.empty())
                return std::nullopt;
        }
    } else if (std::count(host.begin(), host.end(), ':') == 1) {
        const auto colon = host.find(':');
        port = host.substr(colon + 1);
        host = host.substr(0, colon);
        if (port.empty())
            return std::nullopt;
    }
    unsigned long portNumber = 53;
    if (!port.empty()) {
        if (port.size() > 5 ||
            !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::nullopt;
        portNumber = std::stoul(std::string(port));
        if (portNumber == 0 || portNumber > 65535)
            return std::nullopt;
    }
    if (host.empty())
        return std::nullopt; // Address::Parse would take "" as the wildcard
    const auto address = Comm::Address::Parse(host, static_cast<uint16_t>(portNumber));
    if (!address)
        return std::nullopt;
    const std::string literal = address->host();
    if (address->family() == AF_INET6 && literal.find(':') != std::string::npos)
        return "[" + literal + "]:" + std::to_string(portNumber);
    return literal + ":" + std::to_string(portNumber);
}

void EnsureLibraryInitialised()
{
    static const int status = ares_library_init(ARES_LIB_INIT_ALL);
    Must2(status == ARES_SUCCESS, std::string("cannot initialise c-ares: ") + ares_strerror(status));
}

} // namespace

// Lookup

Comm::Lookup::Lookup(Lookup&& other) noexcept : resolver_(other.resolver_), id_(other.id_)
{
    other.resolver_ = nullptr;
}

Comm::Lookup& Comm::Lookup::operator=(Lookup&& other) noexcept
{
    if (this != &other) {
        cancel();
        resolver_ = other.resolver_;
        id_ = other.id_;
        other.resolver_ = nullptr;
    }
    return *this;
}

void Comm::Lookup::cancel()
{
    if (resolver_) {
        Resolver* const resolver = resolver_;
        resolver_ = nullptr;
        resolver->cancel(id_);
    }
}

bool Comm::Lookup::isPending() const
{
    return resolver_ && resolver_->isPending(id_);
}

// Resolver::Channel: one c-ares channel and the loop's view of its sockets

/// The c-ares channel and its sockets and timer on the loop.
///
/// Edge-triggered draining (the loop registers each descriptor once and
/// reports a readable edge once): in c-ares 1.18, ares_process_fd() reads
/// every queued datagram of a UDP socket until EAGAIN, but reads only one
/// piece of a TCP answer per call (the two-byte length, or the body), so
/// answers that arrived together would wait for the next edge, which may
/// never come. drain() therefore calls ares_process_fd() again while the
/// socket is still readable and c-ares keeps consuming (a stream's queue
/// shrank, or c-ares closed the socket); a stream still consuming after
/// MaxDrainRounds calls goes on from a deferred call (after the next I/O). Writes: c-ares only writes queued
/// TCP queries from ares_process_fd(); when it starts wanting to write on a socket that is already writable
/// no edge will come, so a deferred call makes the first attempt.
class Comm::Resolver::Channel {
public:
    /// starts c-ares; throws TextException
    Channel(Loop& loop, const Options& options);
    /// ares_destroy(): pending c-ares callbacks run with ARES_EDESTRUCTION
    ~Channel();
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    /// the c-ares channel
    ares_channel get() const { return channel_; }
    /// re-arms the timer from ares_timeout(); call after every call into c-ares
    void rearm();
    /// sockets watched now
    size_t watchedSockets() const { return sockets_.size(); }

private:
    /// one socket of c-ares, watched on the loop
    class Socket : public IoHandler {
    public:
        Socket(Channel& channel, int fd, uint64_t serial, bool isStream)
            : channel_(channel), fd_(fd), serial_(serial), isStream_(isStream)
        {}
        void handleIo(const IoEvents& events) override { channel_.handleIo(fd_, serial_, events); }

        Channel& channel_;
        const int fd_;
        const uint64_t serial_; ///< tells this socket from a later one with the same fd
        const bool isStream_;   ///< TCP (read piecewise by c-ares) rather than UDP
        bool wantsWrite = false;
        bool kickRead = false;  ///< the kick timer resumes draining
        bool kickWrite = false; ///< the kick timer makes a write attempt
        Timer kick;
        Registration registration; ///< declared last: unwatched first
    };

    static void OnSocketState(void* data, ares_socket_t fd, int readable, int writable);
    void socketState(int fd, bool readable, bool writable);
    void handleIo(int fd, uint64_t serial, const IoEvents& events) noexcept;
    void handleKick(int fd, uint64_t serial) noexcept;
    void scheduleKick(Socket& socket);
    void drain(int fd, uint64_t serial);
    Socket* find(int fd, uint64_t serial);
    void handleTimeout() noexcept;

    Loop& loop_;
    ares_channel channel_ = nullptr;
    std::unordered_map<int, std::unique_ptr<Socket>> sockets_;
    uint64_t nextSerial_ = 1;
    Timer timer_; ///< ares_timeout()
    Clock::time_point timerDeadline_;
};

Comm::Resolver::Channel::Channel(Loop& loop, const Options& options) : loop_(loop)
{
    EnsureLibraryInitialised();

    std::string csv;
    for (const auto& server : options.nameservers) {
        const auto entry = CsvEntry(server);
        Must2(entry, "dns_nameservers: '" + server + "' is not an IP address, IP:PORT or [IPv6]:PORT");
        if (!csv.empty())
            csv += ',';
        csv += *entry;
    }

    // every try of every server fits in the lookup's timeout
    const auto servers = std::max<long long>(1, options.nameservers.size());
    const long long perTry = options.timeout.count() / (servers * TryUnitsPerServer);

    ares_options o;
    std::memset(&o, 0, sizeof(o));
    int mask = 0;
    o.sock_state_cb = &OnSocketState;
    o.sock_state_cb_data = this;
    mask |= ARES_OPT_SOCK_STATE_CB;
    // DNS only: hosts_file is ours (squid.conf names it; c-ares would read /etc/hosts)
    char lookups[] = "b";
    o.lookups = lookups;
    mask |= ARES_OPT_LOOKUPS;
    // no search domains from /etc/resolv.conf (Squid's dns_defnames is off by
    // default). No ARES_FLAG_STAYOPEN: c-ares closes its sockets when no query
    // is left, so a quiet proxy's next query goes out from a new random port.
    o.flags = ARES_FLAG_NOSEARCH;
    mask |= ARES_OPT_FLAGS;
    o.domains = nullptr;
    o.ndomains = 0;
    mask |= ARES_OPT_DOMAINS;
    o.timeout = static_cast<int>(std::clamp<long long>(perTry, 1, INT_MAX));
    mask |= ARES_OPT_TIMEOUTMS;
    o.tries = Tries;
    mask |= ARES_OPT_TRIES;

    int status = ares_init_options(&channel_, &o, mask);
    Must2(status == ARES_SUCCESS,
          std::string("cannot start the DNS resolver (c-ares): ") + ares_strerror(status));
    if (!csv.empty()) {
        // before any query: none ever reaches the servers of /etc/resolv.conf
        status = ares_set_servers_ports_csv(channel_, csv.c_str());
        if (status != ARES_SUCCESS) {
            ares_destroy(channel_);
            Throw("dns_nameservers " + csv + ": " + ares_strerror(status));
        }
    }
}

Comm::Resolver::Channel::~Channel()
{
    timer_.cancel();
    ares_destroy(channel_);
    // c-ares reported each socket gone before closing it; any left are stale
    sockets_.clear();
}

void Comm::Resolver::Channel::OnSocketState(void* data, ares_socket_t fd, int readable, int writable)
{
    // called from inside c-ares: nothing may escape
    try {
        static_cast<Channel*>(data)->socketState(fd, readable != 0, writable != 0);
    } catch (const std::exception& e) {
        debugs(DebugSection, 0, "BUG: watching DNS socket FD " << fd << ": " << e.what());
    }
}

void Comm::Resolver::Channel::socketState(int fd, bool readable, bool writable)
{
    auto found = sockets_.find(fd);
    if (!readable && !writable) {
        // c-ares is about to close fd (and may reuse the number at once):
        // unwatch while it is still open
        if (found != sockets_.end()) {
            const auto gone = std::move(found->second);
            sockets_.erase(found);
        }
        return;
    }
    if (found == sockets_.end()) {
        int type = SOCK_DGRAM;
        socklen_t len = sizeof(type);
        (void)::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
        auto socket = std::make_unique<Socket>(*this, fd, nextSerial_++, type == SOCK_STREAM);
        socket->registration = loop_.watch(fd, *socket);
        found = sockets_.emplace(fd, std::move(socket)).first;
        debugs(DebugSection, 5,
               "watching DNS " << (type == SOCK_STREAM ? "TCP" : "UDP") << " socket FD " << fd);
    }
    Socket& socket = *found->second;
    const bool startsWriting = writable && !socket.wantsWrite;
    socket.wantsWrite = writable;
    if (startsWriting) {
        socket.kickWrite = true;
        scheduleKick(socket);
    }
}

void Comm::Resolver::Channel::scheduleKick(Socket& socket)
{
    if (socket.kick.isPending())
        return;
    const int fd = socket.fd_;
    const uint64_t serial = socket.serial_;
    socket.kick = loop_.defer([this, fd, serial] { handleKick(fd, serial); });
}

Comm::Resolver::Channel::Socket* Comm::Resolver::Channel::find(int fd, uint64_t serial)
{
    const auto found = sockets_.find(fd);
    if (found == sockets_.end() || found->second->serial_ != serial)
        return nullptr;
    return found->second.get();
}

void Comm::Resolver::Channel::handleIo(int fd, uint64_t serial, const IoEvents& events) noexcept
{
    // the Socket whose handleIo() called us may be destroyed by any call
    // into c-ares below: only fd and serial are used, and find() re-checks
    try {
        const Socket* socket = find(fd, serial);
        if (!socket)
            return;
        if (events.writable && socket->wantsWrite)
            ares_process_fd(channel_, ARES_SOCKET_BAD, fd);
        if (events.readable && find(fd, serial))
            drain(fd, serial);
        rearm();
    } catch (const std::exception& e) {
        debugs(DebugSection, 0, "BUG: DNS socket FD " << fd << ": " << e.what());
    }
}

void Comm::Resolver::Channel::handleKick(int fd, uint64_t serial) noexcept
{
    try {
        Socket* socket = find(fd, serial);
        if (!socket)
            return;
        const bool doRead = socket->kickRead;
        const bool doWrite = socket->kickWrite && socket->wantsWrite;
        socket->kickRead = socket->kickWrite = false;
        if (doWrite)
            ares_process_fd(channel_, ARES_SOCKET_BAD, fd);
        if (doRead && find(fd, serial))
            drain(fd, serial);
        rearm();
    } catch (const std::exception& e) {
        debugs(DebugSection, 0, "BUG: DNS socket FD " << fd << ": " << e.what());
    }
}

void Comm::Resolver::Channel::drain(int fd, uint64_t serial)
{
    const bool isStream = find(fd, serial)->isStream_;
    for (int round = 0; round < MaxDrainRounds; ++round) {
        const int before = isStream ? QueuedBytes(fd) : 0;
        ares_process_fd(channel_, fd, ARES_SOCKET_BAD);
        if (!find(fd, serial))
            return; // c-ares closed it (an error, EOF, or its last query ended)
        if (!IsReadable(fd))
            return; // drained: the next arrival makes a new edge
        // c-ares reads a stream piecewise, and something is still queued: go
        // on while it consumes (a queue that did not shrink means c-ares does
        // not want it now; new data then brings a new edge anyway)
        if (isStream && QueuedBytes(fd) >= before)
            return;
    }
    // a stream still consuming after MaxDrainRounds: go on after other work.
    // A datagram socket needs no such turn: c-ares read it to EAGAIN on every
    // call, so what is queued now arrived after that and made a new edge.
    Socket* socket = find(fd, serial);
    if (socket && isStream) {
        socket->kickRead = true;
        scheduleKick(*socket);
    }
}

void Comm::Resolver::Channel::rearm()
{
    timeval tv;
    if (!ares_timeout(channel_, nullptr, &tv)) {
        timer_.cancel();
        return;
    }
    const auto delay = std::chrono::ceil<Milliseconds>(std::chrono::seconds(tv.tv_sec) +
                                                       std::chrono::microseconds(tv.tv_usec));
    const auto deadline = Clock::now() + delay;
    // keep an earlier-or-equal timer: c-ares handles an early call, and
    // re-scheduling on every packet would only churn the timer heap
    if (timer_.isPending() && timerDeadline_ <= deadline)
        return;
    timerDeadline_ = deadline;
    timer_ = loop_.schedule(delay, [this] { handleTimeout(); });
}

void Comm::Resolver::Channel::handleTimeout() noexcept
{
    try {
        ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
        rearm();
    } catch (const std::exception& e) {
        debugs(DebugSection, 0, "BUG: DNS timeouts: " << e.what());
    }
}

// Resolver

/// one c-ares lookup of a name, shared by every Lookup of it in flight
struct Comm::Resolver::Query {
    Resolver& resolver;
    std::string name;               ///< lowercase, the key in queries_ (ReverseKey() of a reverse query)
    std::vector<uint64_t> waiters;  ///< Lookup ids (some may be cancelled)
    std::optional<Address> reverse; ///< a reverse query: the address whose names are asked
};

void Comm::Resolver::Stats::add(const Stats& other)
{
    lookups += other.lookups;
    literals += other.literals;
    fromHostsFile += other.fromHostsFile;
    dnsQueries += other.dnsQueries;
    fromDns += other.fromDns;
    notFound += other.notFound;
    failures += other.failures;
    timeouts += other.timeouts;
    addressLookups += other.addressLookups;
    nameCacheHits += other.nameCacheHits;
    negativeNameHits += other.negativeNameHits;
    addressCacheHits += other.addressCacheHits;
    negativeAddressHits += other.negativeAddressHits;
}

Comm::Resolver::Resolver(Loop& loop, const Options& options, std::shared_ptr<DnsCache> cache)
    : loop_(loop), options_(options), hosts_(LoadHostsFile(options.hostsFile)),
      cache_(cache ? std::move(cache) : std::make_shared<DnsCache>()),
      channel_(std::make_unique<Channel>(loop, options))
{}

Comm::Resolver::~Resolver()
{
    isDestroying_ = true;
    channel_.reset(); // its callbacks find isDestroying_ set
    lookups_.clear();
}

size_t Comm::Resolver::watchedSockets() const
{
    return channel_->watchedSockets();
}

Comm::Lookup Comm::Resolver::resolve(const std::string& host, uint16_t port, Callback cb)
{
    ++stats_.lookups;
    const uint64_t id = nextId_++;
    Pending& pending = lookups_[id];
    pending.callback = std::move(cb);
    pending.port = port;
    Lookup handle(this, id);

    if (host.empty()) {
        Answer a;
        a.error = "Empty host name";
        ++stats_.failures;
        finish(id, std::move(a));
        return handle;
    }
    if (const auto literal = Address::Parse(host, port)) {
        ++stats_.literals;
        Answer a;
        a.addresses.push_back(*literal);
        finish(id, std::move(a));
        return handle;
    }
    const std::string key = NameKey(host);
    if (const auto found = hosts_.byName.find(key); found != hosts_.byName.end()) {
        ++stats_.fromHostsFile;
        Answer a;
        for (const auto& address : found->second)
            a.addresses.push_back(WithPort(address, port));
        finish(id, std::move(a));
        return handle;
    }

    if (auto cached = cache_->find(DnsCache::Kind::Addresses, key, loop_.now())) {
        ++stats_.addressCacheHits;
        Answer a = std::move(*cached);
        if (a.addresses.empty())
            ++stats_.negativeAddressHits;
        for (auto& address : a.addresses)
            address = WithPort(address, port);
        finish(id, std::move(a));
        return handle;
    }

    join(key, nullptr, id);
    return handle;
}

Comm::Lookup Comm::Resolver::resolveAddress(const Address& address, Callback cb)
{
    const uint64_t id = nextId_++;
    Pending& pending = lookups_[id];
    pending.callback = std::move(cb);
    Lookup handle(this, id);
    if (auto known = knownNames(address)) {
        finish(id, std::move(*known));
        return handle;
    }
    ++stats_.lookups;
    ++stats_.addressLookups;
    join(ReverseKey(address.host()), &address, id);
    return handle;
}

void Comm::Resolver::forEachCachedName(
    const std::function<void(const std::string&, const std::vector<std::string>&, const std::string&,
                             Milliseconds)>& visit) const
{
    cache_->forEach(DnsCache::Kind::Names, loop_.now(),
                    [&](const std::string& address, const Answer& answer, Milliseconds left) {
                        visit(address, answer.names, answer.error, left);
                    });
}

std::optional<Comm::Resolver::Answer> Comm::Resolver::knownNames(const Address& address)
{
    const std::string text = address.host();
    Answer a;
    if (const auto found = hosts_.byAddress.find(text); found != hosts_.byAddress.end()) {
        ++stats_.fromHostsFile;
        a.names = found->second;
    } else if (auto cached = cache_->find(DnsCache::Kind::Names, text, loop_.now())) {
        ++stats_.nameCacheHits;
        if (cached->names.empty())
            ++stats_.negativeNameHits;
        a = std::move(*cached);
        a.addresses.clear();
    } else {
        return std::nullopt;
    }
    ++stats_.lookups;
    ++stats_.addressLookups;
    a.addresses.push_back(WithPort(address, 0));
    return a;
}

void Comm::Resolver::join(const std::string& key, const Address* reverse, uint64_t id)
{
    lookups_.at(id).timer = loop_.schedule(options_.timeout, [this, id] {
        ++stats_.timeouts;
        ++stats_.failures;
        Answer a;
        a.error = TimedOutText;
        finish(id, std::move(a));
    });
    auto& query = queries_[key];
    if (query) {
        query->waiters.push_back(id);
        return;
    }
    // braces, not make_unique's parentheses: clang 14 has no C++20 aggregate paren-init (P0960)
    query = std::make_unique<Query>(Query{*this, key, std::vector<uint64_t>{id}, std::nullopt});
    if (reverse)
        query->reverse = WithPort(*reverse, 0);
    startQuery(*query); // may answer (and erase) the query at once
}

void Comm::Resolver::startQuery(Query& query)
{
    ++stats_.dnsQueries;
    debugs(DebugSection, 3, "resolving " << query.name);
    Channel& channel = *channel_;
    if (query.reverse) {
        const sockaddr* raw = query.reverse->raw();
        if (raw->sa_family == AF_INET6) {
            const auto* in6 = reinterpret_cast<const sockaddr_in6*>(raw);
            ares_gethostbyaddr(channel.get(), &in6->sin6_addr, sizeof(in6->sin6_addr), AF_INET6,
                               &OnHostByAddr, &query);
        } else {
            const auto* in = reinterpret_cast<const sockaddr_in*>(raw);
            ares_gethostbyaddr(channel.get(), &in->sin_addr, sizeof(in->sin_addr), AF_INET, &OnHostByAddr,
                               &query);
        }
        channel.rearm();
        return;
    }
    ares_addrinfo_hints hints;
    std::memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC; // A and AAAA
    // NOSORT: RFC 6724 sorting would connect() a socket per address to find
    // source addresses; whoever connects decides the order (happy eyeballs)
    hints.ai_flags = ARES_AI_NOSORT;
    ares_getaddrinfo(channel.get(), query.name.c_str(), nullptr, &hints, &OnAddrInfo, &query);
    channel.rearm();
}

namespace {

/// runs answer() for a c-ares callback, which nothing may escape
template <class Query, class Answer>
void FromCares(Query* query, Answer answer) noexcept
{
    try {
        answer();
    } catch (const std::exception& e) {
        debugs(DebugSection, 0, "BUG: DNS answer for " << query->name << ": " << e.what());
    }
}

} // namespace

void Comm::Resolver::OnAddrInfo(void* arg, int status, int, ::ares_addrinfo* result)
{
    auto* query = static_cast<Query*>(arg);
    FromCares(query, [&] { query->resolver.answerQuery(*query, status, result); });
    if (result)
        ares_freeaddrinfo(result);
}

void Comm::Resolver::OnHostByAddr(void* arg, int status, int, ::hostent* result)
{
    auto* query = static_cast<Query*>(arg);
    FromCares(query, [&] { query->resolver.answerReverse(*query, status, result); });
}

bool Comm::Resolver::isAnswerless(Query& query, int status)
{
    if (isDestroying_)
        return true;
    if (isRestarting_ && (status == ARES_EDESTRUCTION || status == ARES_ECANCELLED)) {
        startQuery(query); // reconfigure(): ask the new servers
        return true;
    }
    return false;
}

void Comm::Resolver::answerWaiters(Query& query, const Answer& base)
{
    const std::vector<uint64_t> waiters = std::move(query.waiters);
    queries_.erase(query.name); // query is gone from here on
    for (const uint64_t id : waiters) {
        const auto found = lookups_.find(id);
        if (found == lookups_.end() || found->second.isFinished)
            continue;
        Answer a = base;
        for (auto& address : a.addresses)
            address = WithPort(address, found->second.port);
        if (a.error.empty())
            ++stats_.fromDns;
        else if (a.isNotFound)
            ++stats_.notFound;
        else
            ++stats_.failures;
        finish(id, std::move(a));
    }
}

void Comm::Resolver::answerReverse(Query& query, int status, const ::hostent* result)
{
    if (isAnswerless(query, status))
        return;
    Answer base;
    if (status == ARES_SUCCESS && result && result->h_name) {
        base.names.emplace_back(result->h_name);
        for (char** alias = result->h_aliases; alias && *alias; ++alias) {
            if (std::find(base.names.begin(), base.names.end(), *alias) == base.names.end())
                base.names.emplace_back(*alias);
        }
    } else {
        base = FailureAnswer(status == ARES_SUCCESS ? ARES_ENOTFOUND : status);
    }
    base.addresses.push_back(*query.reverse);
    debugs(DebugSection, 3,
           query.name << ": " << base.names.size() << " names" << (base.error.empty() ? "" : ", ")
                      << base.error);
    if (status != ARES_ECANCELLED && status != ARES_EDESTRUCTION)
        rememberNames(query.reverse->host(), base);
    answerWaiters(query, base);
}

void Comm::Resolver::rememberNames(const std::string& key, const Answer& answer)
{
    cache_->remember(DnsCache::Kind::Names, key, answer, loop_.now(),
                     answer.names.empty() ? options_.negativeTtl : options_.positiveTtl,
                     options_.nameCacheSize);
}

void Comm::Resolver::forEachCachedAddress(
    const std::function<void(const std::string&, const std::vector<Address>&, const std::string&,
                             Milliseconds)>& visit) const
{
    cache_->forEach(DnsCache::Kind::Addresses, loop_.now(),
                    [&](const std::string& name, const Answer& answer, Milliseconds left) {
                        visit(name, answer.addresses, answer.error, left);
                    });
}

void Comm::Resolver::answerQuery(Query& query, int status, ::ares_addrinfo* result)
{
    if (isAnswerless(query, status))
        return;
    Answer base;
    Milliseconds ttl = options_.positiveTtl;
    if (status == ARES_SUCCESS && result) {
        for (const ares_addrinfo_node* node = result->nodes; node; node = node->ai_next) {
            if (node->ai_addr && (node->ai_family == AF_INET || node->ai_family == AF_INET6)) {
                AddUnique(base.addresses, Address::FromSockaddr(node->ai_addr, node->ai_addrlen));
                ttl = std::min(ttl, Milliseconds(std::max(node->ai_ttl, 0) * 1000LL));
            }
        }
    }
    if (base.addresses.empty())
        base = FailureAnswer(status == ARES_SUCCESS ? ARES_ENODATA : status);
    // Squid 5.7's ipcache: the records' smallest TTL, at most
    // positive_dns_ttl and at least negative_dns_ttl; a failure negative_dns_ttl
    ttl = base.addresses.empty() ? options_.negativeTtl : std::max(ttl, options_.negativeTtl);
    if (status != ARES_ECANCELLED && status != ARES_EDESTRUCTION)
        cache_->remember(DnsCache::Kind::Addresses, query.name, base, loop_.now(), ttl,
                         options_.addressCacheSize);
    debugs(DebugSection, 3,
           query.name << ": " << base.addresses.size() << " addresses" << (base.error.empty() ? "" : ", ")
                      << base.error);
    answerWaiters(query, base);
}

void Comm::Resolver::finish(uint64_t id, Answer&& answer)
{
    const auto found = lookups_.find(id);
    if (found == lookups_.end() || found->second.isFinished)
        return;
    Pending& pending = found->second;
    pending.isFinished = true;
    pending.answer = std::move(answer);
    // never from inside resolve() or c-ares: the loop calls back
    pending.timer = loop_.defer([this, id] { deliver(id); });
}

void Comm::Resolver::deliver(uint64_t id)
{
    const auto found = lookups_.find(id);
    if (found == lookups_.end())
        return;
    const Callback callback = std::move(found->second.callback);
    const Answer answer = std::move(found->second.answer);
    lookups_.erase(found);
    // the callback may destroy its Lookup, start lookups, or even destroy
    // this Resolver: nothing of this is used afterwards
    if (callback)
        callback(answer);
}

void Comm::Resolver::cancel(uint64_t id)
{
    const auto found = lookups_.find(id);
    if (found == lookups_.end())
        return;
    // destroy the callback outside the map: it may own other Lookups
    const Pending gone = std::move(found->second);
    lookups_.erase(found);
}

void Comm::Resolver::reconfigure(const Options& options)
{
    auto fresh = std::make_unique<Channel>(loop_, options); // throws: the old options stay
    HostsTable hosts = LoadHostsFile(options.hostsFile);
    options_ = options;
    hosts_ = std::move(hosts);
    cache_->clear(); // Squid purges its fqdncache and ipcache on reconfigure too
    auto old = std::move(channel_);
    channel_ = std::move(fresh);
    // ares_destroy() ends each query in flight with ARES_EDESTRUCTION, and
    // answerQuery() then starts it again on the new channel
    isRestarting_ = true;
    old.reset();
    isRestarting_ = false;
    debugs(DebugSection, 2,
           "DNS reconfigured: " << hosts_.byName.size() << " names from hosts_file, " << queries_.size()
                                << " lookups restarted");
}

Comm::Resolver::HostsTable Comm::Resolver::ParseHosts(const std::string& text)
{
    HostsTable table;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string_view line(text.data() + start, end - start);
        start = end + 1;
        if (const auto hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);

        std::vector<std::string_view> words;
        size_t pos = 0;
        while (pos < line.size()) {
            while (pos < line.size() && std::isspace(static_cast<unsigned char>(line[pos])))
                ++pos;
            const size_t wordStart = pos;
            while (pos < line.size() && !std::isspace(static_cast<unsigned char>(line[pos])))
                ++pos;
            if (pos > wordStart)
                words.push_back(line.substr(wordStart, pos - wordStart));
        }
        if (words.size() < 2)
            continue;
        // only plain literals, as in /etc/hosts (no brackets, no scope ids)
        if (words[0].front() == '[')
            continue;
        const auto address = Address::Parse(words[0], 0);
        if (!address)
            continue;
        for (size_t i = 1; i < words.size(); ++i)
            AddUnique(table.byName[NameKey(words[i])], *address);
        // the first line of an address gives its names, as glibc's gethostbyaddr() reads /etc/hosts
        auto& names = table.byAddress[address->host()];
        if (names.empty()) {
            for (size_t i = 1; i < words.size(); ++i)
                names.emplace_back(words[i]);
        }
    }
    return table;
}

Comm::Resolver::HostsTable Comm::Resolver::LoadHostsFile(const std::string& path)
{
    if (path.empty() || path == "none")
        return {};
    // read on the loop at start-up and reconfigure only: refuse what could
    // block (a FIFO, a device) or take long (a huge file)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        debugs(DebugSection, 1, "WARNING: hosts_file " << path << ": " << std::strerror(errno));
        return {};
    }
    std::string text;
    struct stat st;
    const char* problem = nullptr;
    if (::fstat(fd, &st) != 0)
        problem = std::strerror(errno);
    else if (!S_ISREG(st.st_mode))
        problem = "not a regular file";
    else if (st.st_size > MaxHostsFileSize)
        problem = "larger than 64 MB";
    else {
        char buf[16384];
        for (;;) {
            const ssize_t n = ::read(fd, buf, sizeof(buf));
            if (n > 0 && text.size() + n <= static_cast<size_t>(MaxHostsFileSize)) {
                text.append(buf, n);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n != 0)
                problem = n < 0 ? std::strerror(errno) : "larger than 64 MB";
            break;
        }
    }
    ::close(fd);
    if (problem) {
        debugs(DebugSection, 1, "WARNING: hosts_file " << path << ": " << problem);
        return {};
    }
    auto table = ParseHosts(text);
    debugs(DebugSection, 2, "hosts_file " << path << ": " << table.byName.size() << " names");
    return table;
}
