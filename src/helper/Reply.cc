/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "helper/Reply.h"

#include <cctype>
#include <charconv>
#include <cstring>

namespace {

bool IsSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

void SkipSpace(std::string_view text, size_t& pos)
{
    while (pos < text.size() && IsSpace(text[pos]))
        ++pos;
}

/// One word as Squid's strwordtok() reads it: leading space skipped; a word
/// ends at unquoted space; double quotes toggle quoting anywhere in the word;
/// inside quotes a backslash escapes the next character (\n and \r are LF and
/// CR); outside quotes a backslash is an ordinary character. Returns false
/// when only space was left.
bool NextWord(std::string_view text, size_t& pos, std::string& word)
{
    word.clear();
    SkipSpace(text, pos);
    if (pos >= text.size())
        return false;
    bool quoted = false;
    while (pos < text.size()) {
        const char c = text[pos];
        if (c == '"') {
            quoted = !quoted;
            ++pos;
        } else if (c == '\\' && quoted) {
            ++pos;
            if (pos >= text.size())
                break;
            const char e = text[pos++];
            word += e == 'n' ? '\n' : e == 'r' ? '\r' : e;
        } else if (!quoted && IsSpace(c)) {
            ++pos;
            break;
        } else {
            word += c;
            ++pos;
        }
    }
    return true;
}

/// Whether text starts with code followed by a space or the end.
bool StartsWithCode(std::string_view text, std::string_view code)
{
    if (text.substr(0, code.size()) != code)
        return false;
    return text.size() == code.size() || IsSpace(text[code.size()]);
}

/// Squid's parseResponseKeys(): key=value pairs until a word that is not
/// one; returns where that word starts.
size_t ParseNotes(std::string_view text, size_t pos, std::vector<Helper::Note>& notes)
{
    for (;;) {
        SkipSpace(text, pos);
        if (pos >= text.size())
            return pos;
        size_t end = pos;
        while (end < text.size() && text[end] != '=' && !IsSpace(text[end]))
            ++end;
        if (end == pos || end >= text.size() || text[end] != '=')
            return pos; // not a key=value pair: the rest is `other`
        Helper::Note note;
        note.key = std::string(text.substr(pos, end - pos));
        pos = end + 1;
        // Squid decodes %XX only in a value that does not start quoted.
        const bool isQuoted = pos < text.size() && text[pos] == '"';
        if (pos < text.size() && !IsSpace(text[pos])) {
            std::string value;
            NextWord(text, pos, value);
            note.value = isQuoted ? std::move(value) : Helper::Rfc1738Unescape(value);
        }
        notes.push_back(std::move(note));
    }
}

/// the byte a %XX escape at text[i] stands for, or -1 when there is none
int EscapedByte(std::string_view text, size_t i)
{
    if (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(text[i + 2])))
        return -1;
    unsigned value = 0;
    std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    return static_cast<int>(value);
}

} // namespace

const std::string* Helper::Reply::findNote(std::string_view key) const
{
    for (const auto& note : notes) {
        if (note.key == key)
            return &note.value;
    }
    return nullptr;
}

Helper::Reply Helper::ParseReply(std::string_view line)
{
    Reply reply;
    size_t pos = 0;
    bool isNa = false;
    std::string word;
    if (StartsWithCode(line, "OK")) {
        reply.result = Result::Okay;
        pos = 2;
    } else if (StartsWithCode(line, "ERR")) {
        reply.result = Result::Error;
        pos = 3;
    } else if (StartsWithCode(line, "BH")) {
        reply.result = Result::BrokenHelper;
        pos = 2;
    } else if (line.substr(0, 3) == "TT ") {
        // NTLM/Negotiate challenge: the token is mandatory
        pos = 3;
        if (NextWord(line, pos, word)) {
            reply.result = Result::Tt;
            reply.notes.push_back({"token", word});
        } else {
            reply.result = Result::BrokenHelper;
            reply.notes.push_back({"message", "Missing 'token' data"});
        }
    } else if (line.substr(0, 3) == "AF ") {
        // NTLM/Negotiate success: "AF token user" (Negotiate) or "AF user" (NTLM)
        reply.result = Result::Okay;
        pos = 3;
        std::string second;
        const bool hasFirst = NextWord(line, pos, word);
        if (hasFirst && NextWord(line, pos, second)) {
            reply.notes.push_back({"token", word});
            reply.notes.push_back({"user", second});
        } else if (hasFirst) {
            reply.notes.push_back({"user", word});
        }
    } else if (line.substr(0, 3) == "NA ") {
        reply.result = Result::Error;
        pos = 3;
        isNa = true;
    } else {
        // an old-style reply: the caller reads the raw text
        reply.other = std::string(line);
        return reply;
    }

    SkipSpace(line, pos);
    // Squid keeps an NA line's text whole: it never held notes
    if (!isNa)
        pos = ParseNotes(line, pos, reply.notes);
    std::string_view rest = line.substr(pos);
    while (!rest.empty() && IsSpace(rest.back()))
        rest.remove_suffix(1);
    if (!rest.empty() && (isNa || reply.result == Result::BrokenHelper))
        reply.notes.push_back({"message", std::string(rest)});
    else
        reply.other = std::string(rest);
    return reply;
}

Helper::Reply Helper::MakeFailure(Failure failure, std::string message)
{
    Reply reply;
    reply.result = Result::BrokenHelper;
    reply.failure = failure;
    reply.notes.push_back({"message", std::move(message)});
    return reply;
}

const char* Helper::ResultName(Result result)
{
    switch (result) {
    case Result::Okay:
        return "OK";
    case Result::Error:
        return "ERR";
    case Result::BrokenHelper:
        return "BH";
    case Result::Tt:
        return "TT";
    case Result::Unknown:
        break;
    }
    return "Unknown";
}

const char* Helper::FailureName(Failure failure)
{
    switch (failure) {
    case Failure::ChildDied:
        return "child died";
    case Failure::TimedOut:
        return "timed out";
    case Failure::Overloaded:
        return "overloaded";
    case Failure::Unavailable:
        return "unavailable";
    case Failure::ShutDown:
        return "shut down";
    case Failure::None:
        break;
    }
    return "none";
}

std::string Helper::Rfc1738Escape(std::string_view text, bool reservedToo)
{
    // Squid's lib/rfc1738.c tables
    static constexpr const char* Unsafe = "<>\"#%{}|\\^~[]`' ";
    static constexpr const char* Reserved = ";/?:@=&";
    static constexpr const char* Hex = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        const bool escape =
            u <= 0x1F || u >= 0x7F || std::strchr(Unsafe, c) || (reservedToo && std::strchr(Reserved, c));
        if (escape) {
            out += '%';
            out += Hex[u >> 4];
            out += Hex[u & 0xF];
        } else {
            out += c;
        }
    }
    return out;
}

std::string Helper::Rfc1738Unescape(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        // Squid's rfc1738_unescape() leaves %00 alone: no NUL sneaks into a value
        const int byte = text[i] == '%' ? EscapedByte(text, i) : -1;
        if (byte > 0) {
            out += static_cast<char>(byte);
            i += 2;
            continue;
        }
        out += text[i];
    }
    return out;
}
