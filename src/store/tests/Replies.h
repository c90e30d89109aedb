/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Test helpers: the Store::Reply of a reply head, as
/// Server::Forwarder makes it when the head arrives (the store's and the
/// proxy's unit tests set such replies on entries without an origin).

#pragma once

#include "http/ReplyParser.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"

#include <cppunit/extensions/HelperMacros.h>

#include <ctime>
#include <memory>
#include <string>

namespace TestStore {

/// the Store::Reply of a whole reply head, received at `at`
inline std::unique_ptr<Store::Reply> MakeReply(const std::string& head, time_t at = ::time(nullptr))
{
    auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), head);
    Http::ReplyParser parser(block->size() + 1);
    CPPUNIT_ASSERT(parser.parse(block->view()) == Http::ParseResult::Done);
    auto reply = std::make_unique<Store::Reply>();
    reply->block = block;
    reply->head = block->view().substr(0, parser.headSize());
    reply->status = parser.statusCode();
    reply->setReason(parser.reason());
    reply->setFields(parser.fields());
    reply->requestTime = reply->responseTime = at;
    reply->contentLength = parser.contentLength();
    return reply;
}

} // namespace TestStore
