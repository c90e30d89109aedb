/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::Entry: one object in flight (a reply body, or a request body
/// on its way to the origin), with one producer and any number of readers.
///
/// Layout
///
///     producer (origin side) --append(slice)--> body: SliceSequence
///                                                 [slice][slice][slice]...
///     readers: each a Store::Reader with its own Sbuf::Cursor
///             reader A ------------------------^          ^
///             reader B -----------------------------------+ (the fastest)
///
///     end offset - slowest reader offset  <  read_ahead_gap   => producer may read
///
/// The producer reads straight into refcounted blocks and appends slices of
/// them (no copy); every reader writes from those same slices through its
/// cursor (doc/design.md "The path of a body byte"). When the entry is not
/// kept (isKept() false: uncacheable, or too big for the memory cache), slices behind
/// the slowest reader are released at once, so a slow reader of a huge
/// object holds at most read_ahead_gap plus two blocks (the one it is in,
/// and the last one read, which may pass the gap by up to one block).
///
/// A body may continue in a kernel pipe instead of slices (setPipe(),
/// doc/design.md "Splice"): the one reader drains it after the slices, and
/// canProduce() is then the pipe's room.
///
/// Flow control: the producer asks canProduce() before each read and stops
/// when it is false; a reader that moved forward calls noteConsumed(), which
/// releases what no one needs and calls the producer's resumeProducing() when
/// room appeared. append() calls each reader's noteDataAvailable().
///
/// The re-entrancy rule. Those calls are direct, not deferred to the loop
/// (a deferral per block would cost a loop iteration per read), so a side
/// can be called back while inside its own I/O: a client's write moves its
/// cursor (noteConsumed), which resumes the producer, whose read appends,
/// which tells the readers (noteDataAvailable), back into that same client;
/// and the other way for uploads, the forwarder's send resuming the client's
/// body reader, whose append tells the forwarder. So every I/O method of a
/// producer or a reader is guarded the same way: called back from inside
/// itself, it does nothing, because the I/O in progress loops and takes the
/// news itself (it gathers again after noteConsumed(), re-checks
/// canProduce() before each read). The guards: Server::Forwarder's
/// readMore() (reading_) and sendMore() (sending_), Client::Connection's
/// streamSome() (writing_) and its body reader (it resumes only when
/// paused). Store::BodyWriter::write() throws when re-entered, so a missing
/// guard fails at once (TestBodyWriter, TestForwarder's upload past the gap).
///
/// Ownership: an Entry is refcounted (EntryRef); the producer and every
/// reader hold a reference. Producer and readers register raw pointers and
/// must unregister (setProducer(nullptr), removeReader()) before they go.
///
/// At rest (complete, no producer, no reader: a cached object between hits)
/// an entry holds only its Reply (inline), its body slices and its flags:
/// the readers' list, the producer and the gap live in a Flow allocated
/// while the entry is in use, and a small object's head, body and field
/// index share one exact allocation after compactIfSmall().
///
/// Threading: one event loop, like the blocks. In a memory cache shared by
/// workers (Store::Index's threading) another thread may, under the index's
/// mutex, ask state() (atomic) and copy a complete entry (CopyOf()), and
/// nothing else.
#pragma once

#include "base/RefCount.h"
#include "http/Fields.h"
#include "http/RequestParser.h"
#include "sbuf/Cursor.h"
#include "sbuf/MemBlob.h"
#include "sbuf/Pipe.h"
#include "sbuf/SliceSequence.h"
#include "store/forward.h"

#include <atomic>
#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace Store {

/// The reply head of an entry, parsed once in place: the field views point
/// into `block`, which the Reply keeps alive (the first body slice usually
/// shares that block, right after the head).
struct Reply {
    // (ordered so that the small members share one word: a cached object
    // keeps one Reply; copyOnto() copies them one by one: a new member goes
    // there too)
    Sbuf::MemBlobRef block;                ///< holds the head bytes
    std::string_view head;                 ///< the whole head, in block
    Http::FieldIndex fieldIndex;           ///< every field as received, as offsets into head
    std::optional<uint64_t> contentLength; ///< the body length when known in advance
    time_t requestTime = 0;                ///< request_time (RFC 9111 4.2.3): when the request was sent
    time_t responseTime = 0;               ///< response_time: when this head arrived
    time_t negativeUntil = 0;              ///< see Entry::negativeUntil()
    int status = 0;                        ///< the status code
    uint32_t reasonOffset = 0;             ///< the reason phrase: where in head (see reason())
    uint32_t reasonLength = 0;             ///< the reason phrase: its bytes
    uint8_t versionMajor = 1;              ///< the origin's HTTP version
    uint8_t versionMinor = 1;              ///< the origin's HTTP version
    bool hasBody = true;                   ///< false for HEAD, 1xx, 204, 304
    /// a 304 to a revalidation: Store::Revalidate() applied it to the stored
    /// object already (every requester that joined the conditional request
    /// reads this same reply; only the first freshens)
    mutable bool appliedToStored = false;
    /// the reason phrase, in head
    std::string_view reason() const { return head.substr(reasonOffset, reasonLength); }
    /// sets the reason phrase, which must lie within head (set head first)
    void setReason(std::string_view phrase);
    /// every field as received, in its order, as views into head
    Http::FieldsView fields() const { return fieldIndex.view(head.data()); }
    /// indexes fields, which must lie within head (set head first)
    void setFields(const std::vector<Http::HeaderField>& fields)
    {
        fieldIndex = Http::FieldIndex(head, fields);
    }
    /// the value of the first field with this name (case-insensitive)
    std::optional<std::string_view> findField(std::string_view name) const { return fields().find(name); }
    /// A copy whose head is `bytes` (the same as head's), held by block (or,
    /// when block is null, by the caller for the copy's life). Member by
    /// member: copying block would take a reference to it, a count that
    /// its own thread changes (Entry::CopyOf(), Proxy::Collapsing).
    std::unique_ptr<Reply> copyOnto(Sbuf::MemBlobRef bytesBlock, std::string_view bytes) const;
    /// whether other is this reply again: the same head, times and length
    /// (a copy of it, another worker's mirror of it, or the disk store's
    /// entry of one file made at each lookup)
    bool isSameAs(const Reply& other) const
    {
        return requestTime == other.requestTime && responseTime == other.responseTime &&
               contentLength == other.contentLength && head == other.head;
    }
};

/// The side that fills an entry (the origin reader, or a client's request body reader).
class Producer {
public:
    virtual ~Producer() = default;
    /// readers made room under read_ahead_gap: read again (may be called
    /// while the producer is inside its own read loop; then do nothing)
    virtual void resumeProducing() = 0;
    /// every reader left (the client went away): the producer may stop
    virtual void noteReadersGone() {}
};

/// One side that reads an entry (a client's reply writer, the origin's request body writer).
class Reader {
public:
    virtual ~Reader() = default;
    /// new bytes were appended, or the entry completed or failed
    virtual void noteDataAvailable() = 0;
    /// this reader's position in the body
    virtual const Sbuf::Cursor& cursor() const = 0;
    /// whether it only follows the entry (the disk store's writer): it does
    /// not count in hasReaders(), so the producer hears that every reader
    /// left when only followers are left
    virtual bool isFollower() const { return false; }
    /// whether it can write the body from the entry's pipe (see setPipe()):
    /// a client whose BodyWriter::takesPipe()
    virtual bool takesPipe() const { return false; }
};

/// One object in flight; see the file comment.
class Entry final : public RefCountable {
public:
    /// where the entry is in its life
    enum class State : uint8_t { Streaming, Complete, Failed };

    /// an empty streaming entry whose producer may run readAheadGap bytes
    /// ahead of its slowest reader (0 means one byte: always one read at a time)
    explicit Entry(uint64_t readAheadGap);
    ~Entry() override;
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

    /// sets the reply head (once) and tells every reader
    void setReply(std::unique_ptr<Reply>&& reply);
    /// the reply head, or null before it arrived (the same pointer for the
    /// entry's life once it is set: replaceReply() changes what it points at)
    const Reply* reply() const { return hasReply_ ? &reply_ : nullptr; }
    /// replaces the stored reply head (a 304 updated it, RFC 9111 4.3.4);
    /// the body is untouched and readers are not told
    void replaceReply(std::unique_ptr<Reply>&& reply);

    /// the body slices appended so far (and not yet released)
    const Sbuf::SliceSequence& body() const { return body_; }
    /// appends a slice of published bytes and tells every reader
    void append(const Sbuf::Slice& slice);
    /// no more bytes will come: tells every reader
    void complete();

    /// Holds the readers' notifications while a producer hands over what
    /// one read brought (a head, the body bytes that came with it, the end):
    /// each reader is told once, by release() of the outermost hold, so a
    /// small reply's head and body go out in one write (doc/design.md "The
    /// path of a body byte"). A hold destroyed without release() (an
    /// exception) tells no one: the producer's failure will.
    class NotificationHold {
    public:
        explicit NotificationHold(Entry& entry);
        ~NotificationHold();
        /// ends the hold; the outermost one tells the readers if anything
        /// happened meanwhile (a reader told may drop the entry: it is held)
        void release();
        NotificationHold(const NotificationHold&) = delete;
        NotificationHold& operator=(const NotificationHold&) = delete;

    private:
        RefCount<Entry> entry_; ///< null once released
        bool outer_;            ///< whether this hold tells the readers
    };

    /// the producer failed (origin reset, timeout): tells every reader
    void fail(const std::string& why);
    /// From now on the body's bytes come through pipe, after the slices
    /// held (doc/design.md "Splice"): the producer fills it and calls
    /// notePiped(), the one reader drains it, and canProduce() is the pipe's
    /// room instead of the gap. For an entry that is not kept, with one reader
    /// that takesPipe() (soleReaderTakesPipe()).
    void setPipe(std::unique_ptr<Sbuf::Pipe>&& pipe);
    /// the pipe the body continues in, or null
    Sbuf::Pipe* pipe() const { return flow_ ? flow_->pipe.get() : nullptr; }
    /// the producer put bytes into the pipe: tells every reader
    void notePiped() { notifyReaders(); }
    /// whether exactly one reader is attached and it takesPipe()
    bool soleReaderTakesPipe() const;
    /// the state now
    State state() const { return state_.load(std::memory_order_acquire); }
    /// whether complete() was called
    bool isComplete() const { return state_ == State::Complete; }
    /// whether fail() was called
    bool hasFailed() const { return state_ == State::Failed; }
    /// why it failed (empty unless it did)
    const std::string& failure() const;

    /// sets (or clears, with nullptr) the producer resumeProducing() goes to
    void setProducer(Producer* producer);
    /// whether the producer may read more: fewer than readAheadGap bytes
    /// after the slowest reader (or no reader yet: up to readAheadGap held)
    bool canProduce() const;
    /// bytes the producer may add before canProduce() turns false
    uint64_t produceRoom() const;
    /// changes the gap (request_buffer_size auto does not touch it)
    void setReadAheadGap(uint64_t gap) { flow().readAheadGap = gap ? gap : 1; }
    /// the gap in force
    uint64_t readAheadGap() const { return flow_ ? flow_->readAheadGap : 1; }

    /// starts telling reader about new data; its cursor must be within the body held
    void addReader(Reader& reader);
    /// stops telling reader; when the last one goes, the producer is told
    void removeReader(Reader& reader);
    /// puts successor in reader's place: it is told about new data when
    /// reader would have been (before the readers added after it), and the
    /// producer is not told that a reader left; reader must be attached and
    /// successor not
    void replaceReader(Reader& reader, Reader& successor);
    /// readers attached (a reader removed during a notification no longer counts)
    size_t readerCount() const;
    /// whether any reader that is not a follower is attached (a reader
    /// removed during a notification no longer counts)
    bool hasReaders() const;
    /// a reader moved its cursor forward: release what no reader needs (when
    /// not kept, nor pinned) and resume the producer when room appeared
    void noteConsumed();
    /// Someone will read the whole body later (a revalidation's stale
    /// object, served after a 304: Client::Connection::switchToStale()):
    /// while pinned, an entry that is not kept (one the index dropped
    /// meanwhile, replaced or freshened by another worker's copy) releases
    /// nothing behind its readers. EntryPin pins and unpins.
    void pin() { ++flow().pins; }
    /// undoes a pin()
    void unpin();
    /// the offset of the slowest reader (end offset when there is none)
    uint64_t slowestOffset() const;

    /// Copies a small, complete, kept object (head and body) into one block
    /// of exactly its size (Sbuf::MemBlob::MakeExact(): the bytes share the
    /// MemBlob's allocation, no size class rounds them up): the one permitted
    /// body copy (doc/design.md "Budgets"), counted as a
    /// compaction, not as a per-client copy. A 1 KB object with a 170-byte
    /// head then holds 1,194 bytes instead of the read block it arrived in.
    /// Done only when no reader is attached (cursors name slices) and the
    /// object is at most maxBytes; returns whether it was done.
    bool compactIfSmall(size_t maxBytes = 4096);
    /// whether compactIfSmall(maxBytes) would compact (read only: a hit on
    /// an object compacted already asks this before it takes the index's
    /// mutex to compact it)
    bool isCompactable(size_t maxBytes = 4096) const;

    /// A private copy of a complete object that another worker's thread
    /// stored (doc/design.md "Workers"), in this thread's blocks, complete
    /// and not kept,
    /// counted as a worker copy (Sbuf::CopyStats). It reads stored's reply
    /// and body and nothing else: no reference count, flow or flag of
    /// stored's changes, so its own thread may serve it meanwhile; what
    /// could change them (compaction, a 304's head) runs under the
    /// Store::Index mutex that the caller holds.
    static EntryRef CopyOf(const Entry& stored);
    /// whether CopyOf() takes stored: complete, with its body from its first
    /// byte (what another thread may ask of a stored entry)
    static bool IsCopyable(const Entry& stored)
    {
        return stored.isComplete() && stored.body_.startOffset() == 0;
    }
    /// whether CopyOf() made this entry
    bool isCopy() const { return copy_; }

    /// negative_ttl: a stored error reply is fresh until this time (0: not a negatively cached reply)
    time_t negativeUntil() const { return hasReply_ ? reply_.negativeUntil : 0; }
    /// marks a stored error reply as negatively cached until `until`
    void setNegativeUntil(time_t until);

    /// whether the body is kept whole (a cache entry); false releases
    /// slices behind the slowest reader
    bool isKept() const { return kept_; }
    /// keeps (true) or streams (false) the body
    void setKept(bool kept) { kept_ = kept; }

private:
    /// What only an entry in use needs: made with the entry, dropped once it
    /// is complete with neither producer nor reader, and made again for the
    /// next reader, so a cached object at rest does not carry it. A failed
    /// entry keeps it (the failure is there); the cache holds none.
    struct Flow {
        std::vector<Reader*> readers;     ///< not owned; unregister themselves
        Producer* producer = nullptr;     ///< not owned; unregisters itself
        uint64_t readAheadGap = 1;        ///< read_ahead_gap in bytes (at least 1)
        std::string failure;              ///< why the entry failed
        std::unique_ptr<Sbuf::Pipe> pipe; ///< see setPipe(); null: the body is all slices
        unsigned pins = 0;                ///< see pin()
    };

    /// flow_, made when missing
    Flow& flow();
    /// drops flow_ when nothing uses it any more (see Flow)
    void dropIdleFlow();
    void notifyReaders();

    // the small members first: they fill RefCountable's tail padding (a
    // cached object's Entry is one of its few allocations)
    /// atomic: another worker's thread may ask whether a stored entry is
    /// complete (Store::Index), and then read its reply and body, which
    /// complete() published (release)
    std::atomic<State> state_ = State::Streaming;
    bool hasReply_ = false;          ///< whether reply_ was set (not a bit field: others' threads read it)
    bool kept_ : 1 = false;          ///< see isKept()
    bool notifying_ : 1 = false;     ///< inside notifyReaders(): a reader removed then is skipped
    bool held_ : 1 = false;          ///< a NotificationHold is in force
    bool toldWhileHeld_ : 1 = false; ///< notifyReaders() was called under the hold
    bool copy_ : 1 = false;          ///< see isCopy()
    Reply reply_;                    ///< the head (held here: one allocation less per cached object)
    Sbuf::SliceSequence body_;       ///< the bytes held
    std::unique_ptr<Flow> flow_;     ///< see Flow; null while the entry is at rest
};

/// Holds an entry pinned (Entry::pin()) for its life; empty or moved-from: none.
class EntryPin {
public:
    EntryPin() = default;
    explicit EntryPin(EntryRef entry) : entry_(std::move(entry))
    {
        if (entry_)
            entry_->pin();
    }
    ~EntryPin()
    {
        if (entry_)
            entry_->unpin();
    }
    EntryPin(EntryPin&& other) noexcept = default;
    EntryPin& operator=(EntryPin&& other) noexcept
    {
        if (this != &other) {
            if (entry_)
                entry_->unpin();
            entry_ = std::move(other.entry_);
        }
        return *this;
    }
    EntryPin(const EntryPin&) = delete;
    EntryPin& operator=(const EntryPin&) = delete;

private:
    EntryRef entry_;
};

} // namespace Store
