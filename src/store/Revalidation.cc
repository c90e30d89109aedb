/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Revalidation.h"
#include "http/Fields.h"
#include "http/Head.h"
#include "http/ReplyParser.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Index.h"

#include <memory>

namespace {

/// the stored head with the fields a 304 sent in place of its own
std::string MergedHead(const Store::Reply& stored, const Store::Reply& fresh)
{
    auto replaced = [&](std::string_view name) {
        if (Http::EqualsIgnoreCase(name, "Content-Length") ||
            Http::EqualsIgnoreCase(name, "Transfer-Encoding"))
            return false;
        return fresh.findField(name).has_value();
    };
    // the stored status line as the origin sent it (its version included)
    std::string head = "HTTP/" + std::to_string(stored.versionMajor) + "." +
                       std::to_string(stored.versionMinor) + " " + std::to_string(stored.status) + " " +
                       std::string(stored.reason()) + "\r\n";
    for (const auto f : stored.fields()) {
        if (!replaced(f.name))
            Http::AppendField(head, f.name, f.value);
    }
    for (const auto f : fresh.fields()) {
        if (replaced(f.name))
            Http::AppendField(head, f.name, f.value);
    }
    Http::EndHead(head);
    return head;
}

} // namespace

void Store::FreshenStored(Entry& stored, const Reply& notModified)
{
    const auto* old = stored.reply();
    if (!old)
        return;
    auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), MergedHead(*old, notModified));
    Http::ReplyParser parser(block->size() + 1);
    if (parser.parse(block->view()) != Http::ParseResult::Done)
        return;
    auto merged = std::make_unique<Reply>(*old);
    merged->block = block;
    merged->head = block->view();
    merged->setReason(parser.reason());
    merged->setFields(parser.fields());
    merged->requestTime = notModified.requestTime;
    merged->responseTime = notModified.responseTime;
    stored.replaceReply(std::move(merged));
}

Store::Revalidated Store::Revalidate(Index& index, const std::string& staleKey, Entry& stale,
                                     const Reply& reply, bool staleMayAnswerErrors, DiskTier* disk)
{
    const auto* stored = stale.reply();
    if (reply.status == 304 && stored) {
        // a requester that joined finds the stored head freshened already by
        // the one that asked, unless that one left before the 304 came
        if (!reply.appliedToStored) {
            if (disk) {
                FreshenStored(stale, reply);
                disk->freshen(staleKey, *stale.reply()); // RFC 9111 4.3.4: the head, not the body
            } else if (index.change(staleKey, stale, [&] { FreshenStored(stale, reply); })) {
                index.touch(staleKey, stale);
            } else {
                // no longer stored, or a copy of another worker's object: that one is freshened too
                (void)index.adopt(staleKey, stale, [&reply](Entry& copy) { FreshenStored(copy, reply); });
                FreshenStored(stale, reply);
            }
            reply.appliedToStored = true;
        } else if (disk || stale.isCopy()) {
            // this requester's own entry of the stored object (a disk
            // object's, a copy of another worker's) gets the merged head too
            FreshenStored(stale, reply);
        }
        return Revalidated::Unmodified;
    }
    if (reply.status >= 500)
        return staleMayAnswerErrors ? Revalidated::ServeStale : Revalidated::Error;
    return Revalidated::Modified;
}
