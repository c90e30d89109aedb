/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/TlsErrorNode.h"
#include "acl/Registry.h"
#include "acl/AccessList.h"
#include "base/TlsErrors.h"

#include <cppunit/extensions/HelperMacros.h>

#include <openssl/x509_vfy.h>

/// Acl::TlsErrorNode: Squid's error names and shortcuts, against the error asked about.
class TestTlsErrorNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestTlsErrorNode);
    CPPUNIT_TEST(namedErrorMatchesOnlyItself);
    CPPUNIT_TEST(shortcutNamesSeveralErrors);
    CPPUNIT_TEST(unknownNameIsRefused);
    CPPUNIT_TEST(noErrorAskedMatchesNothing);
    CPPUNIT_TEST(oneOfSeveralErrorsIsEnough);
    CPPUNIT_TEST(squidShortcutsArePredefined);
    CPPUNIT_TEST_SUITE_END();

    static Acl::Checklist Asking(int code)
    {
        Acl::Checklist facts;
        facts.tlsErrors = {code};
        return facts;
    }

public:
    void namedErrorMatchesOnlyItself()
    {
        Acl::TlsErrorNode node("e");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(node.addValues({"X509_V_ERR_CERT_HAS_EXPIRED", "SQUID_X509_V_ERR_DOMAIN_MISMATCH"},
                                      why, warnings));
        CPPUNIT_ASSERT(node.match(Asking(X509_V_ERR_CERT_HAS_EXPIRED)));
        CPPUNIT_ASSERT(node.match(Asking(SquidX509VErrDomainMismatch)));
        CPPUNIT_ASSERT(!node.match(Asking(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT)));
    }

    void shortcutNamesSeveralErrors()
    {
        Acl::TlsErrorNode node("e");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(node.addValues({"ssl::certUntrusted"}, why, warnings));
        CPPUNIT_ASSERT(node.match(Asking(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)));
        CPPUNIT_ASSERT(node.match(Asking(X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN)));
        CPPUNIT_ASSERT(!node.match(Asking(X509_V_ERR_CERT_HAS_EXPIRED)));
    }

    void unknownNameIsRefused()
    {
        Acl::TlsErrorNode node("e");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(!node.addValues({"X509_V_ERR_CERT_HAS_EXPIRD"}, why, warnings));
        CPPUNIT_ASSERT_EQUAL(std::string("Unknown TLS error name 'X509_V_ERR_CERT_HAS_EXPIRD'"), why);
    }

    void noErrorAskedMatchesNothing()
    {
        Acl::TlsErrorNode node("e");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(node.addValues({"X509_V_OK"}, why, warnings));
        CPPUNIT_ASSERT(!node.match(Acl::Checklist()));
        CPPUNIT_ASSERT(node.match(Asking(X509_V_OK)));
        CPPUNIT_ASSERT_EQUAL(std::string("X509_V_ERR_CERT_HAS_EXPIRED"),
                             TlsErrorName(X509_V_ERR_CERT_HAS_EXPIRED));
    }

    void oneOfSeveralErrorsIsEnough()
    {
        Acl::TlsErrorNode node("e");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(node.addValues({"ssl::certSelfSigned"}, why, warnings));
        Acl::Checklist facts;
        facts.tlsErrors = {X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT};
        CPPUNIT_ASSERT(node.match(facts));
        facts.tlsErrors = {X509_V_ERR_CERT_HAS_EXPIRED, SquidX509VErrDomainMismatch};
        CPPUNIT_ASSERT(!node.match(facts));
    }

    void squidShortcutsArePredefined()
    {
        const Acl::Registry acls;
        const Acl::Node* untrusted = acls.find("ssl::certUntrusted");
        const Acl::Node* self = acls.find("ssl::certSelfSigned");
        CPPUNIT_ASSERT(untrusted && self && acls.find("ssl::certHasExpired") &&
                       acls.find("ssl::certNotYetValid") && acls.find("ssl::certDomainMismatch"));
        CPPUNIT_ASSERT(untrusted->match(Asking(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)));
        CPPUNIT_ASSERT(!untrusted->match(Asking(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT)));
        CPPUNIT_ASSERT(self->match(Asking(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT)));
        CPPUNIT_ASSERT(acls.find("ssl::certDomainMismatch")->match(Asking(SquidX509VErrDomainMismatch)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestTlsErrorNode);
