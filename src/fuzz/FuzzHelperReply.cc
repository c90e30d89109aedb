/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of the helper reply parser and the RFC 1738
/// escaping (helper/Reply.h). The input is one reply line (what a helper
/// wrote after the channel id). Properties checked, for any bytes:
/// - parsing is deterministic; a reply without a result code (Unknown) has
///   the whole input as `other` and no notes;
/// - every note key is non-empty and holds no '=' or space; after OK or ERR
///   each is a `key=` of the input; `other` is a part of the input;
/// - the notes of an OK reply, written back as key="value" with the
///   escapes a quoted value takes, parse back to the same notes;
/// - Rfc1738Unescape(Rfc1738Escape(x)) is x for any x without NUL (a %00
///   is left encoded on purpose), and the escaped text holds no byte a
///   helper would split a request on.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "helper/Reply.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace {

bool IsSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/// a note value as a quoted string that ParseReply() reads back as value
std::string Quoted(const std::string& value)
{
    std::string out = "\"";
    for (const char c : value) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else
            out += c;
    }
    return out + '"';
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);

    const auto reply = Helper::ParseReply(text);
    const auto again = Helper::ParseReply(text);
    FUZZ_CHECK(reply.result == again.result && reply.other == again.other);
    FUZZ_CHECK(reply.notes.size() == again.notes.size());
    FUZZ_CHECK(reply.failure == Helper::Failure::None);
    if (reply.result == Helper::Result::Unknown) {
        FUZZ_CHECK(reply.other == text);
        FUZZ_CHECK(reply.notes.empty());
    } else {
        FUZZ_CHECK(reply.other.size() <= text.size());
        FUZZ_CHECK(text.find(reply.other) != std::string_view::npos);
    }
    // after OK and ERR every note is a key=value of the input (TT, AF, NA
    // and BH make "token", "user" and "message" notes of their own)
    const bool isKeyValueOnly = text.substr(0, 2) == "OK" || text.substr(0, 3) == "ERR";
    for (const auto& note : reply.notes) {
        FUZZ_CHECK(!note.key.empty());
        for (const char c : note.key)
            FUZZ_CHECK(c != '=' && !IsSpace(c));
        if (isKeyValueOnly)
            FUZZ_CHECK(text.find(note.key + "=") != std::string_view::npos);
    }

    if (reply.result == Helper::Result::Okay && isKeyValueOnly) {
        std::string written = "OK";
        for (const auto& note : reply.notes)
            written += " " + note.key + "=" + Quoted(note.value);
        const auto back = Helper::ParseReply(written);
        FUZZ_CHECK(back.result == Helper::Result::Okay);
        FUZZ_CHECK(back.notes.size() == reply.notes.size());
        for (size_t i = 0; i < back.notes.size(); ++i) {
            FUZZ_CHECK(back.notes[i].key == reply.notes[i].key);
            FUZZ_CHECK(back.notes[i].value == reply.notes[i].value);
        }
    }

    if (text.find('\0') == std::string_view::npos) {
        for (const bool reservedToo : {false, true}) {
            const auto escaped = Helper::Rfc1738Escape(text, reservedToo);
            FUZZ_CHECK(escaped.find_first_of(" \t\r\n\"\\") == std::string::npos);
            FUZZ_CHECK(Helper::Rfc1738Unescape(escaped) == text);
        }
    }
    return 0;
}
