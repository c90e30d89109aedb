/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "helper/Pool.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <algorithm>

namespace {

constexpr int DebugSection = 84; // Squid's "Helper process maintenance"

Comm::Milliseconds Until(Comm::Clock::time_point when, Comm::Clock::time_point now)
{
    if (when <= now)
        return Comm::Milliseconds(0);
    return std::chrono::ceil<Comm::Milliseconds>(when - now);
}

void CheckOptions(const Helper::Options& options)
{
    Must2(!options.argv.empty() && !options.argv[0].empty(), "helper " + options.name + ": no program");
    Must2(options.childrenMax >= 1, "helper " + options.name + ": children must be at least 1");
}

} // namespace

Helper::Ticket::Ticket(Ticket&& other) noexcept : pool_(other.pool_), id_(other.id_)
{
    other.pool_ = nullptr;
}

Helper::Ticket& Helper::Ticket::operator=(Ticket&& other) noexcept
{
    if (this != &other) {
        cancel();
        pool_ = other.pool_;
        id_ = other.id_;
        other.pool_ = nullptr;
    }
    return *this;
}

void Helper::Ticket::cancel()
{
    if (pool_)
        pool_->cancel(id_);
    pool_ = nullptr;
}

bool Helper::Ticket::isPending() const
{
    return pool_ && pool_->isPending(id_);
}

Helper::Pool::Pool(Comm::Loop& loop, const Options& options) : loop_(loop), options_(options), reaper_(loop)
{
    CheckOptions(options_);
    dispatch();
}

Helper::Pool::~Pool()
{
    cleanup_.cancel();
    resumeTimer_.cancel();
    requests_.clear(); // no callback runs now
    for (auto& m : members_) {
        const pid_t pid = m->child->pid();
        m->child->close();
        reaper_.adopt(pid, options_.shutdownGrace);
    }
    members_.clear();
    retired_.clear();
}

Helper::Ticket Helper::Pool::submit(std::string_view line, Callback cb)
{
    // a line break would let one request smuggle another to the helper
    Must2(line.find_first_of("\r\n") == std::string_view::npos,
          "helper " + options_.name + ": a request line with a line break");
    const uint64_t id = nextRequestId_++;
    ++counters_.requests;
    Request& r = requests_[id];
    r.line = std::string(line);
    r.callback = std::move(cb);
    r.deadline = loop_.now() + options_.timeout;

    if (isShutDown_) {
        ++counters_.rejected;
        failLater(id, MakeFailure(Failure::ShutDown, "helper " + options_.name + " is shut down"));
    } else if (isSuspended_) {
        ++counters_.rejected;
        failLater(id, MakeFailure(Failure::Unavailable, "helper " + options_.name +
                                                            " is not restarted: its children die too fast"));
    } else if (isPersistentlyOverloaded()) {
        if (dropped_++ == 0)
            debugs(DebugSection, 1, "WARNING: dropping requests to overloaded helper " << options_.name);
        ++counters_.rejected;
        failLater(id, MakeFailure(Failure::Overloaded, "helper " + options_.name + " is overloaded"));
    } else {
        queue_.push_back(id);
        ++queued_;
        armTimeout(id, r);
        dispatch();
    }
    return Ticket(this, id);
}

void Helper::Pool::reconfigure(const Options& options)
{
    CheckOptions(options);
    options_ = options;
    for (auto& m : members_)
        m->isDraining = true;
    isShutDown_ = false;
    isSuspended_ = false;
    resumeTimer_.cancel();
    deaths_.clear();
    dispatch();
}

void Helper::Pool::shutdown()
{
    if (isShutDown_)
        return;
    isShutDown_ = true;
    resumeTimer_.cancel();
    failQueued(Failure::ShutDown, "helper " + options_.name + " is shut down");
    while (!members_.empty())
        retire(*members_.front(), Failure::ShutDown, "shut down");
}

bool Helper::Pool::isFinished() const
{
    return isShutDown_ && members_.empty() && reaper_.waiting() == 0;
}

Helper::Pool::Stats Helper::Pool::stats() const
{
    Stats s = counters_;
    s.killed = reaper_.killed();
    s.queued = queued_;
    s.isSuspended = isSuspended_;
    s.isOverloaded = isOverloaded_;
    for (const auto& m : members_) {
        s.inFlight += m->inFlight;
        s.children.push_back({m->child->pid(), m->inFlight, m->requests, m->replies, m->isDraining});
    }
    return s;
}

void Helper::Pool::childLine(Child& child, std::string_view line)
{
    Member* m = findMember(child.id());
    if (!m)
        return;
    unsigned ch = 0;
    std::string_view text = line;
    if (m->usesChannelIds) {
        size_t digits = 0;
        uint64_t value = 0;
        while (digits < text.size() && digits < 10 && text[digits] >= '0' && text[digits] <= '9')
            value = value * 10 + static_cast<unsigned>(text[digits++] - '0');
        if (digits == 0 || (digits < text.size() && text[digits] != ' ' && text[digits] != '\t')) {
            ++counters_.garbage;
            debugs(DebugSection, 1,
                   "WARNING: helper " << options_.name << " #" << child.id()
                                      << " sent a reply without a channel id: " << line.substr(0, 80));
            return;
        }
        text.remove_prefix(digits);
        while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
            text.remove_prefix(1);
        ch = value < m->channels.size() ? static_cast<unsigned>(value)
                                        : static_cast<unsigned>(m->channels.size());
    }
    if (ch >= m->channels.size() || m->channels[ch] == 0) {
        ++counters_.garbage;
        debugs(DebugSection, 1,
               "WARNING: helper " << options_.name << " #" << child.id()
                                  << " sent an unexpected reply (no request on its channel): "
                                  << line.substr(0, 80));
        return;
    }
    const uint64_t id = m->channels[ch];
    freeChannel(*m, ch);
    ++m->replies;
    const auto found = requests_.find(id);
    if (found != requests_.end() && found->second.state == State::Sent) {
        ++counters_.replies;
        deliver(id, ParseReply(text));
    } else if (found != requests_.end()) {
        if (found->second.wasTimedOut) {
            ++counters_.lateReplies;
            debugs(DebugSection, 2,
                   "helper " << options_.name << ": dropping a reply that came after its timeout");
        }
        requests_.erase(found);
    }
    dispatch();
}

void Helper::Pool::childClosed(Child& child, const std::string& why)
{
    Member* m = findMember(child.id());
    if (!m)
        return;
    debugs(DebugSection, 1,
           "WARNING: helper " << options_.name << " #" << child.id() << " (pid " << child.pid() << ") " << why
                              << (m->inFlight ? ", failing its requests" : ""));
    ++counters_.deaths;
    const bool neverAnswered = m->replies == 0;
    retire(*m, Failure::ChildDied, why);
    noteDeath();
    if (neverAnswered)
        debugs(DebugSection, 2, "helper " << options_.name << " #" << child.id() << " never answered");
    dispatch();
}

void Helper::Pool::dispatch()
{
    if (isShutDown_ || isDispatching_)
        return;
    isDispatching_ = true;
    // spawn() may throw (a bug); the next dispatch() must still run
    struct Reset {
        bool& flag;
        ~Reset() { flag = false; }
    } reset{isDispatching_};
    closeDrained();
    const unsigned startup = std::min(options_.startup, options_.childrenMax);
    while (!isSuspended_ && runningCount() < startup && spawn()) {
    }
    for (;;) {
        while (!queue_.empty()) {
            const auto found = requests_.find(queue_.front());
            if (found != requests_.end() && found->second.state == State::Queued)
                break;
            queue_.pop_front(); // cancelled, timed out or failed meanwhile
        }
        if (queue_.empty())
            break;
        Member* m = pickMember();
        if (!m) {
            if (isSuspended_ || runningCount() >= options_.childrenMax || !spawn())
                break;
            continue;
        }
        const uint64_t id = queue_.front();
        queue_.pop_front();
        --queued_;
        sendTo(*m, id);
    }
    // Squid's idle=N: once there is demand, keep N children with nothing to do
    if (!isSuspended_ && counters_.requests > 0) {
        unsigned idle = 0;
        for (const auto& m : members_)
            idle += !m->isDraining && m->inFlight == 0;
        while (idle < options_.idle && runningCount() < options_.childrenMax && spawn())
            ++idle;
    }
    if (isSuspended_ && queued_ > 0)
        failQueued(Failure::Unavailable,
                   "helper " + options_.name + " is not restarted: its children die too fast");
    else if (queued_ > 0 && runningCount() == 0)
        failQueued(Failure::Unavailable, "helper " + options_.name + " cannot be started");

    const bool isOver = queued_ > queueLimit();
    if (isOver && !isOverloaded_) {
        overloadedSince_ = loop_.now();
        debugs(DebugSection, 1,
               "WARNING: all " << runningCount() << "/" << options_.childrenMax << " " << options_.name
                               << " helpers are busy; " << queued_ << " requests queued");
    } else if (!isOver && isOverloaded_) {
        debugs(DebugSection, dropped_ ? 1 : 2,
               "helper " << options_.name << " is no longer overloaded after dropping " << dropped_
                         << " requests");
        dropped_ = 0;
    }
    isOverloaded_ = isOver;
}

bool Helper::Pool::spawn()
{
    auto m = std::make_unique<Member>();
    const uint64_t childId = nextChildId_++;
    Child::Events& events = *this;
    m->child = std::make_unique<Child>(loop_, events, childId, options_.maxReplySize);
    std::string error;
    if (!m->child->start(options_.argv, error)) {
        ++counters_.spawnFailures;
        debugs(DebugSection, 0, "ERROR: cannot start helper " << options_.name << ": " << error);
        noteDeath();
        return false;
    }
    ++counters_.spawns;
    if (replacementsDue_ > 0) {
        --replacementsDue_;
        ++counters_.restarts;
    }
    m->channels.assign(std::max(1u, options_.concurrency), 0);
    m->usesChannelIds = options_.concurrency > 0;
    debugs(DebugSection, 1,
           "helper " << options_.name << ": started #" << childId << " (pid " << m->child->pid() << "), "
                     << runningCount() + 1 << "/" << options_.childrenMax << " running");
    members_.push_back(std::move(m));
    return true;
}

Helper::Pool::Member* Helper::Pool::pickMember()
{
    Member* best = nullptr;
    for (const auto& m : members_) {
        if (m->isDraining || !m->child->isOpen() || m->inFlight >= m->channels.size())
            continue;
        if (!best || m->inFlight < best->inFlight)
            best = m.get();
    }
    return best;
}

void Helper::Pool::sendTo(Member& m, uint64_t id)
{
    Request& r = requests_.at(id);
    const auto free = std::find(m.channels.begin(), m.channels.end(), 0);
    Must(free != m.channels.end());
    const auto ch = static_cast<unsigned>(free - m.channels.begin());
    *free = id;
    ++m.inFlight;
    ++m.requests;
    r.state = State::Sent;
    r.childId = m.child->id();
    r.channel = ch;
    std::string bytes;
    bytes.reserve(r.line.size() + 12);
    if (m.usesChannelIds) {
        bytes += std::to_string(ch);
        bytes += ' ';
    }
    bytes += r.line;
    bytes += '\n';
    m.child->send(bytes);
}

Helper::Pool::Member* Helper::Pool::findMember(uint64_t childId)
{
    for (const auto& m : members_) {
        if (m->child->id() == childId)
            return m.get();
    }
    return nullptr;
}

void Helper::Pool::retire(Member& m, Failure failure, const std::string& why)
{
    for (unsigned ch = 0; ch < m.channels.size(); ++ch) {
        const uint64_t id = m.channels[ch];
        if (!id)
            continue;
        m.channels[ch] = 0;
        const auto found = requests_.find(id);
        if (found == requests_.end())
            continue;
        if (found->second.state == State::Sent) {
            if (failure == Failure::ChildDied)
                ++counters_.childFailures;
            failLater(id, MakeFailure(failure, "helper " + options_.name + " " + why));
        } else {
            requests_.erase(found);
        }
    }
    m.inFlight = 0;
    const pid_t pid = m.child->pid();
    m.child->close();
    reaper_.adopt(pid, options_.shutdownGrace);
    const auto at =
        std::find_if(members_.begin(), members_.end(), [&m](const auto& p) { return p.get() == &m; });
    if (at != members_.end()) {
        // destroyed from the loop: retire() may run inside this child's own callback
        retired_.push_back(std::move(*at));
        members_.erase(at);
        if (!cleanup_.isPending())
            cleanup_ = loop_.defer([this] { retired_.clear(); });
    }
}

void Helper::Pool::closeDrained()
{
    for (size_t i = 0; i < members_.size();) {
        Member& m = *members_[i];
        if (m.isDraining && m.inFlight == 0)
            retire(m, Failure::ShutDown, "reconfigured"); // erases members_[i]
        else
            ++i;
    }
}

void Helper::Pool::freeChannel(Member& m, unsigned ch)
{
    m.channels[ch] = 0;
    --m.inFlight;
}

uint64_t Helper::Pool::orphan(Request& r)
{
    // the channel stays taken until the helper answers on it
    const uint64_t placeholder = nextRequestId_++;
    Request& p = requests_[placeholder];
    p.state = State::Orphaned;
    p.wasTimedOut = r.wasTimedOut;
    p.childId = r.childId;
    p.channel = r.channel;
    if (Member* m = findMember(r.childId))
        m->channels[r.channel] = placeholder;
    if (options_.timeout.count() > 0) {
        // a child that owes a reply this long after the deadline is hung
        const auto hangAt = std::max(r.deadline, loop_.now()) + options_.timeout;
        p.timer = loop_.schedule(Until(hangAt, loop_.now()), [this, placeholder] { hung(placeholder); });
    }
    r.state = State::Queued; // off its channel; the caller decides what next
    return placeholder;
}

void Helper::Pool::timedOut(uint64_t id)
{
    const auto found = requests_.find(id);
    if (found == requests_.end())
        return;
    Request& r = found->second;
    ++counters_.timeouts;
    debugs(DebugSection, 2,
           "helper " << options_.name << ": a request had no answer within " << options_.timeout.count()
                     << " ms");
    const bool wasQueued = r.state == State::Queued;
    if (r.state == State::Sent) {
        r.wasTimedOut = true;
        orphan(r);
    }
    if (options_.onTimeout == OnTimeout::Retry && r.retries < MaxRetries) {
        ++r.retries;
        r.wasTimedOut = false;
        if (!wasQueued) {
            queue_.push_front(id);
            ++queued_;
        }
        r.deadline = loop_.now() + options_.timeout;
        armTimeout(id, r);
        dispatch();
        return;
    }
    if (wasQueued)
        --queued_;
    Reply reply = options_.onTimeout == OnTimeout::UseConfiguredResponse
                      ? ParseReply(options_.timeoutResponse)
                      : MakeFailure(Failure::TimedOut, "helper " + options_.name + " did not answer in time");
    reply.failure = Failure::TimedOut;
    deliver(id, reply);
}

void Helper::Pool::hung(uint64_t placeholder)
{
    const auto found = requests_.find(placeholder);
    if (found == requests_.end() || found->second.state != State::Orphaned)
        return;
    Member* m = findMember(found->second.childId);
    if (!m)
        return;
    debugs(DebugSection, 1,
           "WARNING: helper " << options_.name << " #" << m->child->id() << " still owes a reply "
                              << options_.timeout.count() << " ms after its timeout: closing it");
    ++counters_.deaths;
    ++replacementsDue_;
    retire(*m, Failure::ChildDied, "hung");
    dispatch();
}

void Helper::Pool::failLater(uint64_t id, Reply reply)
{
    Request& r = requests_.at(id);
    r.state = State::Failing;
    r.failure = std::move(reply);
    r.timer = loop_.defer([this, id] {
        const auto found = requests_.find(id);
        if (found == requests_.end())
            return;
        const Reply failure = std::move(found->second.failure);
        deliver(id, failure);
    });
}

void Helper::Pool::deliver(uint64_t id, const Reply& reply)
{
    const auto found = requests_.find(id);
    if (found == requests_.end())
        return;
    Callback cb = std::move(found->second.callback);
    requests_.erase(found);
    if (cb)
        loop_.guard(nullptr, [&cb, &reply] { cb(reply); });
}

void Helper::Pool::noteDeath()
{
    const auto now = loop_.now();
    ++replacementsDue_;
    deaths_.push_back(now);
    std::erase_if(deaths_, [&](const auto when) { return now - when > options_.restartWindow; });
    if (isSuspended_ || deaths_.size() <= restartLimit())
        return;
    isSuspended_ = true;
    debugs(DebugSection, 0,
           "ERROR: the " << options_.name << " helpers are crashing too rapidly (" << deaths_.size() << " in "
                         << options_.restartWindow.count() << " ms): not starting them for "
                         << options_.restartBackoff.count() << " ms; their requests fail meanwhile");
    resumeTimer_ = loop_.schedule(options_.restartBackoff, [this] {
        isSuspended_ = false;
        debugs(DebugSection, 1, "helper " << options_.name << ": trying to start children again");
        dispatch();
    });
}

void Helper::Pool::failQueued(Failure failure, const std::string& why)
{
    for (const uint64_t id : queue_) {
        const auto found = requests_.find(id);
        if (found != requests_.end() && found->second.state == State::Queued) {
            ++counters_.rejected;
            failLater(id, MakeFailure(failure, why));
        }
    }
    queue_.clear();
    queued_ = 0;
}

bool Helper::Pool::isPersistentlyOverloaded()
{
    // Squid's helper::prepSubmit(): a queue over its size is tolerated
    // for a while (bursts), then new requests are refused
    return isOverloaded_ && loop_.now() - overloadedSince_ >= options_.persistentOverload;
}

void Helper::Pool::armTimeout(uint64_t id, Request& r)
{
    if (options_.timeout.count() > 0)
        r.timer = loop_.schedule(Until(r.deadline, loop_.now()), [this, id] { timedOut(id); });
}

void Helper::Pool::cancel(uint64_t id)
{
    const auto found = requests_.find(id);
    if (found == requests_.end())
        return;
    Request& r = found->second;
    if (r.state == State::Orphaned)
        return;
    if (r.state == State::Queued)
        --queued_; // its queue_ entry is skipped later
    else if (r.state == State::Sent)
        orphan(r); // may rehash: found is no longer valid
    requests_.erase(id);
}

bool Helper::Pool::isPending(uint64_t id) const
{
    const auto found = requests_.find(id);
    return found != requests_.end() && found->second.state != State::Orphaned && found->second.callback;
}

unsigned Helper::Pool::runningCount() const
{
    unsigned n = 0;
    for (const auto& m : members_)
        n += !m->isDraining;
    return n;
}

unsigned Helper::Pool::queueLimit() const
{
    return options_.queueSize ? options_.queueSize : 2 * options_.childrenMax;
}

unsigned Helper::Pool::restartLimit() const
{
    return options_.maxRestarts ? options_.maxRestarts : options_.childrenMax;
}
