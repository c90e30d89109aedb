/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Helpers shared by the acl unit tests: split squid.conf-like lines,
/// build a Checklist, write a temporary value file.

#pragma once

#include "acl/AccessList.h"
#include "acl/Node.h"
#include "acl/Registry.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <strings.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace AclTest {

/// Splits on white space, as the config lexer hands words to the acl code.
inline std::vector<std::string> Words(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    return words;
}

/// Parses one `acl` line (without the "acl" word).
inline Acl::Registry::ParseOutcome ParseAcl(Acl::Registry& registry, const std::string& line,
                                            std::string* whyOut = nullptr)
{
    std::string why;
    const auto outcome = registry.parse(Words(line), why);
    if (whyOut)
        *whyOut = why;
    return outcome;
}

/// Parses an acl line that must succeed.
inline void MustAcl(Acl::Registry& registry, const std::string& line)
{
    std::string why;
    const auto outcome = registry.parse(Words(line), why);
    CPPUNIT_ASSERT_MESSAGE(line + ": " + why, outcome == Acl::Registry::ParseOutcome::Ok);
}

/// Parses an http_access line that must succeed.
inline void MustAccess(Acl::AccessList& list, const Acl::Registry& registry, const std::string& line)
{
    std::string why;
    CPPUNIT_ASSERT_MESSAGE(line + ": " + why, list.parse(Words(line), registry, why));
}

/// A Checklist for a request from `src` for METHOD scheme://host:port/path.
inline Acl::Checklist Facts(const std::string& src, const std::string& method = "GET",
                            const std::string& host = "192.0.2.1", uint16_t port = 80,
                            const std::string& scheme = "http", const std::string& path = "/")
{
    Acl::Checklist c;
    if (const auto a = Acl::Address::Parse(src))
        c.srcAddr = *a;
    c.method = method;
    c.dstHost = host;
    c.dstPort = port;
    c.urlScheme = scheme;
    c.urlPath = path;
    return c;
}

/// Acl::Fields from name/value pairs, for the header acls.
class FakeFields : public Acl::Fields {
public:
    /// The fields in message order.
    FakeFields(std::initializer_list<std::pair<std::string, std::string>> fields) : fields_(fields) {}
    std::optional<std::string> get(std::string_view name) const override
    {
        std::optional<std::string> joined;
        for (const auto& [n, v] : fields_) {
            if (n.size() != name.size() || strncasecmp(n.data(), name.data(), n.size()) != 0)
                continue;
            joined = joined ? *joined + ", " + v : v;
        }
        return joined;
    }

private:
    std::vector<std::pair<std::string, std::string>> fields_;
};

/// Whether the acl `name` of `registry` matches `facts`.
inline bool Matches(const Acl::Registry& registry, const std::string& name, const Acl::Checklist& facts)
{
    const auto* node = registry.find(name);
    CPPUNIT_ASSERT_MESSAGE(name, node && node->isSupported());
    return node->match(facts);
}

/// Parses an acl line that must be an Error; returns why.
inline std::string AclError(Acl::Registry& registry, const std::string& line)
{
    std::string why;
    CPPUNIT_ASSERT_MESSAGE(line, ParseAcl(registry, line, &why) == Acl::Registry::ParseOutcome::Error);
    return why;
}

/// A temporary file holding `content`, removed on destruction.
class TempFile {
public:
    /// Creates the file.
    explicit TempFile(const std::string& content)
    {
        char name[] = "/tmp/cuttle-acl-test-XXXXXX";
        const int fd = mkstemp(name);
        CPPUNIT_ASSERT(fd >= 0);
        close(fd);
        path_ = name;
        std::ofstream(path_) << content;
    }
    ~TempFile() { std::remove(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    /// The path.
    const std::string& path() const { return path_; }
    /// The path as a quoted acl value word.
    std::string quoted() const { return "\"" + path_ + "\""; }

private:
    std::string path_;
};

} // namespace AclTest
