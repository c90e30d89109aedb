/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Fields.h"
#include "base/TextException.h"
#include "http/ReplyParser.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <string_view>
#include <vector>

/// Http::FieldIndex (narrow and wide) and Http::FieldsView over both kinds.
class TestFields : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestFields);
    CPPUNIT_TEST(indexGivesTheParsedFieldsBack);
    CPPUNIT_TEST(indexFollowsACopyOfTheHead);
    CPPUNIT_TEST(largeHeadUsesWideOffsets);
    CPPUNIT_TEST(fieldOutsideTheHeadIsRefused);
    CPPUNIT_TEST(viewOfParsedFieldsFindsIgnoringCase);
    CPPUNIT_TEST(emptyIndexHasNoFields);
    CPPUNIT_TEST_SUITE_END();

public:
    /// the fields of a parsed head
    static std::vector<Http::HeaderField> Parse(std::string_view head)
    {
        Http::ReplyParser parser(1 << 20);
        CPPUNIT_ASSERT_EQUAL(int(Http::ParseResult::Done), int(parser.parse(head)));
        return parser.fields();
    }

    /// the (name, value) pairs of view, as strings
    static std::vector<std::pair<std::string, std::string>> Pairs(Http::FieldsView view)
    {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto f : view)
            out.emplace_back(f.name, f.value);
        return out;
    }

    void indexGivesTheParsedFieldsBack()
    {
        const std::string head =
            "HTTP/1.1 200 OK\r\nDate: Mon, 02 Mar 2026 10:00:00 GMT\r\n"
            "Content-Length: 5\r\nX-Empty:\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n";
        const auto fields = Parse(head);
        const Http::FieldIndex index(head, fields);
        CPPUNIT_ASSERT_EQUAL(size_t(5), index.size());
        CPPUNIT_ASSERT_EQUAL(size_t(5 * 8), index.memoryBytes()); // 8 bytes a field under 64 KB
        const auto view = index.view(head.data());
        CPPUNIT_ASSERT(Pairs(view) == Pairs(fields));
        CPPUNIT_ASSERT(view[0].name.data() == head.data() + 17); // views into the head, not copies
        CPPUNIT_ASSERT(view.find("set-cookie") == std::string_view("a=1"));
        CPPUNIT_ASSERT(view.find("X-EMPTY") == std::string_view(""));
        CPPUNIT_ASSERT(!view.find("Vary"));
    }

    void indexFollowsACopyOfTheHead()
    {
        const std::string head = "HTTP/1.1 200 OK\r\nETag: \"x\"\r\nVary: Accept\r\n\r\n";
        const Http::FieldIndex index(head, Parse(head));
        const Http::FieldIndex copy(index); // a deep copy
        const std::string moved = head;     // the head in another buffer (compaction)
        const auto view = copy.view(moved.data());
        CPPUNIT_ASSERT(view[1].value.data() == moved.data() + head.find("Accept"));
        CPPUNIT_ASSERT_EQUAL(std::string("Accept"), std::string(view[1].value));
        Http::FieldIndex assigned;
        assigned = index;
        CPPUNIT_ASSERT(Pairs(assigned.view(head.data())) == Pairs(index.view(head.data())));
    }

    void largeHeadUsesWideOffsets()
    {
        // a head past 64 KB (reply_header_max_size raised): 32-bit offsets
        const std::string big(70000, 'v');
        const std::string head = "HTTP/1.1 200 OK\r\nX-Big: " + big + "\r\nX-After: yes\r\n\r\n";
        const Http::FieldIndex index(head, Parse(head));
        CPPUNIT_ASSERT_EQUAL(size_t(2 * 16), index.memoryBytes());
        const auto view = index.view(head.data());
        CPPUNIT_ASSERT_EQUAL(big.size(), view[0].value.size());
        CPPUNIT_ASSERT(view.find("x-after") == std::string_view("yes"));
        CPPUNIT_ASSERT_EQUAL(head.size() - 7, size_t(view[1].value.data() - head.data()));
    }

    void fieldOutsideTheHeadIsRefused()
    {
        const std::string head = "HTTP/1.1 200 OK\r\n\r\n";
        const std::string other = "Vary";
        CPPUNIT_ASSERT_THROW(Http::FieldIndex(head, {{other, other}}), TextException);
    }

    void viewOfParsedFieldsFindsIgnoringCase()
    {
        const std::vector<Http::HeaderField> fields = {{"Cache-Control", "max-age=1"},
                                                       {"cache-control", "public"}};
        const Http::FieldsView view(fields);
        CPPUNIT_ASSERT_EQUAL(size_t(2), view.size());
        CPPUNIT_ASSERT(view.find("CACHE-CONTROL") == std::string_view("max-age=1"));
        CPPUNIT_ASSERT(view[1].value.data() == fields[1].value.data());
    }

    void emptyIndexHasNoFields()
    {
        const Http::FieldIndex index;
        CPPUNIT_ASSERT(index.view(nullptr).empty());
        CPPUNIT_ASSERT(index.view(nullptr).begin() == index.view(nullptr).end());
        const std::string head = "HTTP/1.1 204 No Content\r\n\r\n";
        CPPUNIT_ASSERT_EQUAL(size_t(0), Http::FieldIndex(head, Parse(head)).size());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestFields);
