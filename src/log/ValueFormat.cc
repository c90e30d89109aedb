/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/ValueFormat.h"

namespace {

/// the codes ValueFormat knows without an argument, as written after the %
struct NamedCode {
    std::string_view name;
    int code; ///< a ValueFormat::Code, as int (the enum is private)
};

} // namespace

bool Log::ValueFormat::parse(std::string_view text, std::string& why)
{
    static const NamedCode codes[] = {
        {">a", int(Code::ClientAddress)}, {"rm", int(Code::Method)},  {"ru", int(Code::Url)},
        {"un", int(Code::User)},          {"ts", int(Code::Seconds)}, {"tu", int(Code::Milliseconds)},
    };
    tokens_.clear();
    const auto literal = [this](std::string_view s) {
        if (s.empty())
            return;
        if (tokens_.empty() || tokens_.back().code != Code::Literal)
            tokens_.push_back(Token{Code::Literal, std::string()});
        tokens_.back().text.append(s);
    };
    size_t i = 0;
    while (i < text.size()) {
        const size_t pct = text.find('%', i);
        literal(text.substr(i, pct == std::string_view::npos ? std::string_view::npos : pct - i));
        if (pct == std::string_view::npos)
            break;
        const std::string_view rest = text.substr(pct + 1);
        if (rest.empty()) {
            why = "a '%' ends the value (write %% for a '%')";
            return false;
        }
        if (rest.front() == '%') {
            literal("%");
            i = pct + 2;
            continue;
        }
        if (rest.front() == '{') {
            const size_t close = rest.find('}');
            if (close != std::string_view::npos && close > 1 && rest.substr(close + 1, 2) == ">h") {
                tokens_.push_back(Token{Code::RequestField, std::string(rest.substr(1, close - 1))});
                i = pct + 1 + close + 3;
                continue;
            }
        }
        bool known = false;
        for (const auto& c : codes) {
            if (rest.substr(0, c.name.size()) == c.name) {
                tokens_.push_back(Token{static_cast<Code>(c.code), std::string()});
                i = pct + 1 + c.name.size();
                known = true;
                break;
            }
        }
        if (!known) {
            const size_t end = text.find_first_of(" \t", pct);
            why = "unsupported %-code in '" + std::string(text.substr(pct, end - pct)) +
                  "' (cuttle fills in %>a %rm %ru %un %ts %tu %{NAME}>h and %%)";
            return false;
        }
    }
    return true;
}

bool Log::ValueFormat::isLiteral() const
{
    return tokens_.empty() || (tokens_.size() == 1 && tokens_.front().code == Code::Literal);
}

std::string Log::ValueFormat::expand(const FormatFacts& facts) const
{
    const auto dash = [](std::string_view s) { return s.empty() ? std::string_view("-") : s; };
    std::string out;
    for (const auto& t : tokens_) {
        switch (t.code) {
        case Code::Literal:
            out += t.text;
            break;
        case Code::ClientAddress:
            out += dash(facts.clientAddress);
            break;
        case Code::Method:
            out += dash(facts.method);
            break;
        case Code::Url:
            out += dash(facts.url);
            break;
        case Code::User:
            out += dash(facts.user);
            break;
        case Code::Seconds:
            out += std::to_string(facts.start.tv_sec);
            break;
        case Code::Milliseconds: // unpadded, as Squid prints %tu without a width
            out += std::to_string(facts.start.tv_usec / 1000);
            break;
        case Code::RequestField: {
            const auto value = facts.requestField ? facts.requestField(t.text) : std::nullopt;
            out += value && !value->empty() ? *value : std::string("-");
            break;
        }
        }
    }
    return out;
}
