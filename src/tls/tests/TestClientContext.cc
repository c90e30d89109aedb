/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/ClientContext.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

/// Tls::ClientContext: what it refuses, and its bounded session cache.
class TestClientContext : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestClientContext);
    CPPUNIT_TEST(missingCaFileIsRefused);
    CPPUNIT_TEST(unknownCipherIsRefused);
    CPPUNIT_TEST(sessionCacheKeepsTheNewestOrigins);
    CPPUNIT_TEST(usedSessionIsKeptLongest);
    CPPUNIT_TEST(noSessionReuseKeepsNothing);
    CPPUNIT_TEST_SUITE_END();

    static Tls::ClientContextRef Make(const Tls::ClientOptions& options)
    {
        std::string why;
        auto context = Tls::ClientContext::Make(options, why);
        CPPUNIT_ASSERT_MESSAGE(why, context != nullptr);
        return context;
    }

    static Tls::SessionPtr NewSession() { return Tls::SessionPtr(SSL_SESSION_new()); }

public:
    void missingCaFileIsRefused()
    {
        Tls::ClientOptions options;
        options.caFile = "/nonexistent/ca.pem";
        std::string why;
        CPPUNIT_ASSERT(!Tls::ClientContext::Make(options, why));
        CPPUNIT_ASSERT(why.find("/nonexistent/ca.pem") != std::string::npos);
    }

    void unknownCipherIsRefused()
    {
        Tls::ClientOptions options;
        options.cipher = "NO-SUCH-CIPHER";
        std::string why;
        CPPUNIT_ASSERT(!Tls::ClientContext::Make(options, why));
        CPPUNIT_ASSERT(why.find("NO-SUCH-CIPHER") != std::string::npos);
    }

    void sessionCacheKeepsTheNewestOrigins()
    {
        Tls::ClientOptions options;
        options.sessionCacheSize = 2;
        auto context = Make(options);
        context->keepSession("a:443", NewSession());
        context->keepSession("b:443", NewSession());
        context->keepSession("c:443", NewSession());
        CPPUNIT_ASSERT_EQUAL(size_t(2), context->sessionCount());
        CPPUNIT_ASSERT(!context->session("a:443"));
        CPPUNIT_ASSERT(context->session("b:443"));
        CPPUNIT_ASSERT(context->session("c:443"));
    }

    void usedSessionIsKeptLongest()
    {
        Tls::ClientOptions options;
        options.sessionCacheSize = 2;
        auto context = Make(options);
        context->keepSession("a:443", NewSession());
        context->keepSession("b:443", NewSession());
        CPPUNIT_ASSERT(context->session("a:443")); // a is now the newest used
        context->keepSession("c:443", NewSession());
        CPPUNIT_ASSERT(context->session("a:443"));
        CPPUNIT_ASSERT(!context->session("b:443"));
        context->forgetSession("a:443");
        CPPUNIT_ASSERT(!context->session("a:443"));
        CPPUNIT_ASSERT_EQUAL(size_t(1), context->sessionCount());
    }

    void noSessionReuseKeepsNothing()
    {
        Tls::ClientOptions options;
        options.sessionReuse = false;
        auto context = Make(options);
        context->keepSession("a:443", NewSession());
        CPPUNIT_ASSERT_EQUAL(size_t(0), context->sessionCount());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestClientContext);
