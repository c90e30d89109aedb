/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "helper/Reply.h"

#include <cppunit/extensions/HelperMacros.h>

#include <random>
#include <string>

/// Helper::ParseReply() as Squid 5.7 parses helper replies, and the RFC 1738
/// escaping helpers expect.
class TestReply : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestReply);
    CPPUNIT_TEST(okWithNotes);
    CPPUNIT_TEST(errWithMessage);
    CPPUNIT_TEST(bhTextBecomesMessage);
    CPPUNIT_TEST(bareResultCodes);
    CPPUNIT_TEST(resultWordMustEndThere);
    CPPUNIT_TEST(quotedValuesKeepEscapesNotPercents);
    CPPUNIT_TEST(unquotedValuesArePercentDecoded);
    CPPUNIT_TEST(repeatedKeysKeptInOrder);
    CPPUNIT_TEST(emptyValue);
    CPPUNIT_TEST(wordsAfterNotesAreOther);
    CPPUNIT_TEST(oldStyleReplyIsUnknownWithRawText);
    CPPUNIT_TEST(emptyLineIsUnknown);
    CPPUNIT_TEST(ttNeedsAToken);
    CPPUNIT_TEST(afCarriesTokenAndUser);
    CPPUNIT_TEST(naIsErrorWithWholeMessage);
    CPPUNIT_TEST(failureIsBrokenHelper);
    CPPUNIT_TEST(escapeAsSquid);
    CPPUNIT_TEST(unescapeLeavesMalformedAndNul);
    CPPUNIT_TEST(escapeRoundTrips);
    CPPUNIT_TEST(randomBytesNeverThrow);
    CPPUNIT_TEST_SUITE_END();

public:
    void okWithNotes();
    void errWithMessage();
    void bhTextBecomesMessage();
    void bareResultCodes();
    void resultWordMustEndThere();
    void quotedValuesKeepEscapesNotPercents();
    void unquotedValuesArePercentDecoded();
    void repeatedKeysKeptInOrder();
    void emptyValue();
    void wordsAfterNotesAreOther();
    void oldStyleReplyIsUnknownWithRawText();
    void emptyLineIsUnknown();
    void ttNeedsAToken();
    void afCarriesTokenAndUser();
    void naIsErrorWithWholeMessage();
    void failureIsBrokenHelper();
    void escapeAsSquid();
    void unescapeLeavesMalformedAndNul();
    void escapeRoundTrips();
    void randomBytesNeverThrow();
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestReply);

namespace {

std::string NoteOf(const Helper::Reply& reply, const char* key)
{
    const std::string* value = reply.findNote(key);
    return value ? *value : std::string("<none>");
}

} // namespace

void TestReply::okWithNotes()
{
    const auto r = Helper::ParseReply("OK user=bob tag=gold log=a%20b ttl=30");
    CPPUNIT_ASSERT(r.result == Helper::Result::Okay);
    CPPUNIT_ASSERT(r.isOkay());
    CPPUNIT_ASSERT_EQUAL(size_t(4), r.notes.size());
    CPPUNIT_ASSERT_EQUAL(std::string("bob"), NoteOf(r, "user"));
    CPPUNIT_ASSERT_EQUAL(std::string("gold"), NoteOf(r, "tag"));
    CPPUNIT_ASSERT_EQUAL(std::string("a b"), NoteOf(r, "log"));
    CPPUNIT_ASSERT_EQUAL(std::string("30"), NoteOf(r, "ttl"));
    CPPUNIT_ASSERT_EQUAL(std::string(), r.other);
    CPPUNIT_ASSERT(r.failure == Helper::Failure::None);
}

void TestReply::errWithMessage()
{
    const auto r = Helper::ParseReply("ERR message=\"bad password\"");
    CPPUNIT_ASSERT(r.result == Helper::Result::Error);
    CPPUNIT_ASSERT(!r.isOkay());
    CPPUNIT_ASSERT_EQUAL(std::string("bad password"), NoteOf(r, "message"));
}

void TestReply::bhTextBecomesMessage()
{
    const auto r = Helper::ParseReply("BH database unreachable");
    CPPUNIT_ASSERT(r.result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT_EQUAL(std::string("database unreachable"), NoteOf(r, "message"));
    CPPUNIT_ASSERT_EQUAL(std::string(), r.other);

    const auto withNotes = Helper::ParseReply("BH log=x then text");
    CPPUNIT_ASSERT_EQUAL(std::string("x"), NoteOf(withNotes, "log"));
    CPPUNIT_ASSERT_EQUAL(std::string("then text"), NoteOf(withNotes, "message"));
}

void TestReply::bareResultCodes()
{
    CPPUNIT_ASSERT(Helper::ParseReply("OK").result == Helper::Result::Okay);
    CPPUNIT_ASSERT(Helper::ParseReply("ERR").result == Helper::Result::Error);
    CPPUNIT_ASSERT(Helper::ParseReply("BH").result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT(Helper::ParseReply("OK ").result == Helper::Result::Okay);
    CPPUNIT_ASSERT(Helper::ParseReply("OK").notes.empty());
}

void TestReply::resultWordMustEndThere()
{
    // "OKAY" is no result code: an old-style reply, kept whole
    const auto r = Helper::ParseReply("OKAY user=x");
    CPPUNIT_ASSERT(r.result == Helper::Result::Unknown);
    CPPUNIT_ASSERT_EQUAL(std::string("OKAY user=x"), r.other);
    CPPUNIT_ASSERT(r.notes.empty());
    CPPUNIT_ASSERT(Helper::ParseReply("ERROR").result == Helper::Result::Unknown);
    CPPUNIT_ASSERT(Helper::ParseReply("ok").result == Helper::Result::Unknown);
}

void TestReply::quotedValuesKeepEscapesNotPercents()
{
    const auto r = Helper::ParseReply(R"(OK message="say \"hi\" \\ 100%20 a\nb" user="x y")");
    CPPUNIT_ASSERT_EQUAL(std::string("say \"hi\" \\ 100%20 a\nb"), NoteOf(r, "message"));
    CPPUNIT_ASSERT_EQUAL(std::string("x y"), NoteOf(r, "user"));
}

void TestReply::unquotedValuesArePercentDecoded()
{
    const auto r = Helper::ParseReply("OK rewrite-url=http://example.com/a%3Fb user=J%C3%BCrgen status=302");
    CPPUNIT_ASSERT_EQUAL(std::string("http://example.com/a?b"), NoteOf(r, "rewrite-url"));
    CPPUNIT_ASSERT_EQUAL(std::string("J\xC3\xBCrgen"), NoteOf(r, "user"));
    CPPUNIT_ASSERT_EQUAL(std::string("302"), NoteOf(r, "status"));
    // outside quotes a backslash is an ordinary character
    CPPUNIT_ASSERT_EQUAL(std::string("a\\b"), NoteOf(Helper::ParseReply("OK k=a\\b"), "k"));
}

void TestReply::repeatedKeysKeptInOrder()
{
    const auto r = Helper::ParseReply("OK group=a group=b clt_conn_tag=x group=c");
    CPPUNIT_ASSERT_EQUAL(size_t(4), r.notes.size());
    CPPUNIT_ASSERT_EQUAL(std::string("a"), r.notes[0].value);
    CPPUNIT_ASSERT_EQUAL(std::string("b"), r.notes[1].value);
    CPPUNIT_ASSERT_EQUAL(std::string("clt_conn_tag"), r.notes[2].key);
    CPPUNIT_ASSERT_EQUAL(std::string("c"), r.notes[3].value);
    CPPUNIT_ASSERT_EQUAL(std::string("a"), NoteOf(r, "group")); // the first
}

void TestReply::emptyValue()
{
    const auto r = Helper::ParseReply("OK tag= user=\"\"");
    CPPUNIT_ASSERT_EQUAL(size_t(2), r.notes.size());
    CPPUNIT_ASSERT_EQUAL(std::string(""), NoteOf(r, "tag"));
    CPPUNIT_ASSERT_EQUAL(std::string(""), NoteOf(r, "user"));
}

void TestReply::wordsAfterNotesAreOther()
{
    const auto r = Helper::ParseReply("ERR user=bob some free text =x");
    CPPUNIT_ASSERT_EQUAL(std::string("bob"), NoteOf(r, "user"));
    CPPUNIT_ASSERT_EQUAL(size_t(1), r.notes.size());
    CPPUNIT_ASSERT_EQUAL(std::string("some free text =x"), r.other);
}

void TestReply::oldStyleReplyIsUnknownWithRawText()
{
    // an old url_rewrite_program answer: the URL itself, '=' and all
    const auto url = Helper::ParseReply("http://example.com/?a=b&c=%20d");
    CPPUNIT_ASSERT(url.result == Helper::Result::Unknown);
    CPPUNIT_ASSERT_EQUAL(std::string("http://example.com/?a=b&c=%20d"), url.other);
    CPPUNIT_ASSERT(url.notes.empty());

    const auto redirect = Helper::ParseReply("302:http://example.com/");
    CPPUNIT_ASSERT(redirect.result == Helper::Result::Unknown);
    CPPUNIT_ASSERT_EQUAL(std::string("302:http://example.com/"), redirect.other);

    // Squid's old "LD" is no result code it knows either
    CPPUNIT_ASSERT(Helper::ParseReply("LD token user").result == Helper::Result::Unknown);
}

void TestReply::emptyLineIsUnknown()
{
    const auto r = Helper::ParseReply("");
    CPPUNIT_ASSERT(r.result == Helper::Result::Unknown);
    CPPUNIT_ASSERT(r.other.empty());
    CPPUNIT_ASSERT(r.notes.empty());
}

void TestReply::ttNeedsAToken()
{
    const auto r = Helper::ParseReply("TT YIIB9gYGKwYBBQUCoIIB6jCCAeagMDAuBgkqhkiC9xIBAgIGCSqGSIb3EgECAgYK");
    CPPUNIT_ASSERT(r.result == Helper::Result::Tt);
    CPPUNIT_ASSERT_EQUAL(std::string("YIIB9gYGKwYBBQUCoIIB6jCCAeagMDAuBgkqhkiC9xIBAgIGCSqGSIb3EgECAgYK"),
                         NoteOf(r, "token"));
    const auto missing = Helper::ParseReply("TT ");
    CPPUNIT_ASSERT(missing.result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT_EQUAL(std::string("Missing 'token' data"), NoteOf(missing, "message"));
}

void TestReply::afCarriesTokenAndUser()
{
    const auto negotiate = Helper::ParseReply("AF oYGQMIGNoAMKAQ== alice@EXAMPLE.COM");
    CPPUNIT_ASSERT(negotiate.result == Helper::Result::Okay);
    CPPUNIT_ASSERT_EQUAL(std::string("oYGQMIGNoAMKAQ=="), NoteOf(negotiate, "token"));
    CPPUNIT_ASSERT_EQUAL(std::string("alice@EXAMPLE.COM"), NoteOf(negotiate, "user"));
    const auto ntlm = Helper::ParseReply("AF DOMAIN\\bob");
    CPPUNIT_ASSERT(ntlm.result == Helper::Result::Okay);
    CPPUNIT_ASSERT_EQUAL(std::string("DOMAIN\\bob"), NoteOf(ntlm, "user"));
    CPPUNIT_ASSERT(ntlm.findNote("token") == nullptr);
}

void TestReply::naIsErrorWithWholeMessage()
{
    // NA never carried notes: an '=' in its text stays text
    const auto r = Helper::ParseReply("NA reason=not a key");
    CPPUNIT_ASSERT(r.result == Helper::Result::Error);
    CPPUNIT_ASSERT_EQUAL(std::string("reason=not a key"), NoteOf(r, "message"));
    CPPUNIT_ASSERT(r.findNote("reason") == nullptr);
}

void TestReply::failureIsBrokenHelper()
{
    const auto r = Helper::MakeFailure(Helper::Failure::ChildDied, "helper x exited");
    CPPUNIT_ASSERT(r.result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT(!r.isOkay());
    CPPUNIT_ASSERT(r.failure == Helper::Failure::ChildDied);
    CPPUNIT_ASSERT_EQUAL(std::string("helper x exited"), NoteOf(r, "message"));
    CPPUNIT_ASSERT_EQUAL(std::string("BH"), std::string(Helper::ResultName(r.result)));
    CPPUNIT_ASSERT_EQUAL(std::string("child died"), std::string(Helper::FailureName(r.failure)));
}

void TestReply::escapeAsSquid()
{
    CPPUNIT_ASSERT_EQUAL(std::string("john%20doe"), Helper::Rfc1738Escape("john doe"));
    CPPUNIT_ASSERT_EQUAL(std::string("a%0Ab%0Dc%25"), Helper::Rfc1738Escape("a\nb\rc%"));
    CPPUNIT_ASSERT_EQUAL(std::string("%22%5C%7F%C3%BC"), Helper::Rfc1738Escape("\"\\\x7f\xc3\xbc"));
    // reserved characters only for a URL part
    CPPUNIT_ASSERT_EQUAL(std::string("a/b:c@d"), Helper::Rfc1738Escape("a/b:c@d"));
    CPPUNIT_ASSERT_EQUAL(std::string("a%2Fb%3Ac%40d"), Helper::Rfc1738Escape("a/b:c@d", true));
}

void TestReply::unescapeLeavesMalformedAndNul()
{
    CPPUNIT_ASSERT_EQUAL(std::string("a b"), Helper::Rfc1738Unescape("a%20b"));
    CPPUNIT_ASSERT_EQUAL(std::string("%zz%2"), Helper::Rfc1738Unescape("%zz%2"));
    CPPUNIT_ASSERT_EQUAL(std::string("%"), Helper::Rfc1738Unescape("%"));
    CPPUNIT_ASSERT_EQUAL(std::string("x%00y"), Helper::Rfc1738Unescape("x%00y"));
    CPPUNIT_ASSERT_EQUAL(std::string("\xff"), Helper::Rfc1738Unescape("%fF"));
}

void TestReply::escapeRoundTrips()
{
    std::string all;
    for (int c = 1; c < 256; ++c)
        all += static_cast<char>(c);
    const std::string escaped = Helper::Rfc1738Escape(all, true);
    // no byte a helper would split on survives escaping
    CPPUNIT_ASSERT_EQUAL(std::string::npos, escaped.find_first_of(" \t\r\n\"\\"));
    CPPUNIT_ASSERT_EQUAL(all, Helper::Rfc1738Unescape(escaped));
}

void TestReply::randomBytesNeverThrow()
{
    // untrusted input: any line parses to something, and the parse is pure
    std::mt19937 random(84);
    const std::string alphabet = "OKERRBHTAFN =\"\\%0aZ \t";
    for (int i = 0; i < 20000; ++i) {
        std::string line;
        const int length = static_cast<int>(random() % 40);
        for (int j = 0; j < length; ++j)
            line += (random() % 4) ? alphabet[random() % alphabet.size()] : static_cast<char>(random() % 256);
        const auto first = Helper::ParseReply(line);
        const auto second = Helper::ParseReply(line);
        CPPUNIT_ASSERT(first.result == second.result);
        CPPUNIT_ASSERT_EQUAL(first.other, second.other);
        CPPUNIT_ASSERT_EQUAL(first.notes.size(), second.notes.size());
        if (first.result == Helper::Result::Unknown)
            CPPUNIT_ASSERT_EQUAL(line, first.other);
    }
}
