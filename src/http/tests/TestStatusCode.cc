/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/StatusCode.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

/// Http::StatusCode: reason phrases.
class TestStatusCode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestStatusCode);
    CPPUNIT_TEST(knownCodesHaveSquidPhrases);
    CPPUNIT_TEST(unknownCodesGetClassPhrase);
    CPPUNIT_TEST_SUITE_END();

public:
    void knownCodesHaveSquidPhrases();
    void unknownCodesGetClassPhrase();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestStatusCode);

void TestStatusCode::knownCodesHaveSquidPhrases()
{
    CPPUNIT_ASSERT_EQUAL(std::string("Not Implemented"),
                         std::string(Http::ReasonPhrase(Http::StatusCode::NotImplemented)));
    CPPUNIT_ASSERT_EQUAL(std::string("Forbidden"),
                         std::string(Http::ReasonPhrase(Http::StatusCode::Forbidden)));
    CPPUNIT_ASSERT_EQUAL(std::string("Request Header Fields Too Large"),
                         std::string(Http::ReasonPhrase(Http::StatusCode::RequestHeaderFieldsTooLarge)));
    CPPUNIT_ASSERT_EQUAL(std::string("HTTP Version not supported"),
                         std::string(Http::ReasonPhrase(Http::StatusCode::HttpVersionNotSupported)));
}

void TestStatusCode::unknownCodesGetClassPhrase()
{
    CPPUNIT_ASSERT_EQUAL(std::string("Client Error"),
                         std::string(Http::ReasonPhrase(static_cast<Http::StatusCode>(499))));
    CPPUNIT_ASSERT_EQUAL(std::string("Unknown"),
                         std::string(Http::ReasonPhrase(static_cast<Http::StatusCode>(999))));
}
