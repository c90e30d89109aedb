/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/WordNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

/// Acl::WordNode (proto, myportname, hier_code, peername) and the acls of
/// the connection (localip, localport).
class TestWordNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestWordNode);
    CPPUNIT_TEST(protoNamesAsSquid);
    CPPUNIT_TEST(unknownProtocolIsIgnoredWithWarning);
    CPPUNIT_TEST(hierCodeNamesAreChecked);
    CPPUNIT_TEST(portNameAndPeerName);
    CPPUNIT_TEST(localIpAndLocalPort);
    CPPUNIT_TEST(atStepMatchesTheBumpStep);
    CPPUNIT_TEST(clientInitiatesEveryCheckedTransaction);
    CPPUNIT_TEST(serverNameIsTheSniElseTheConnectHost);
    CPPUNIT_TEST_SUITE_END();

public:
    void atStepMatchesTheBumpStep()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(AclError(r, "s at_step SslBump4").find("no such at_step 'SslBump4'") !=
                       std::string::npos);
        MustAcl(r, "s at_step SslBump2 SslBump3");
        auto f = Facts("10.0.0.1", "CONNECT", "a.test", 443, "");
        CPPUNIT_ASSERT(!Matches(r, "s", f)); // outside ssl_bump
        f.sslBumpStep = 1;
        CPPUNIT_ASSERT(!Matches(r, "s", f));
        f.sslBumpStep = 2;
        CPPUNIT_ASSERT(Matches(r, "s", f));
        f.sslBumpStep = 3;
        CPPUNIT_ASSERT(Matches(r, "s", f));
    }

    void clientInitiatesEveryCheckedTransaction()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(
            AclError(r, "i transaction_initiator somebody").find("no such transaction_initiator") !=
            std::string::npos);
        MustAcl(r, "c transaction_initiator client");
        MustAcl(r, "a transaction_initiator all");
        MustAcl(r, "n transaction_initiator internal icp");
        const auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(Matches(r, "c", f));
        CPPUNIT_ASSERT(Matches(r, "a", f));
        CPPUNIT_ASSERT(!Matches(r, "n", f));
    }

    void serverNameIsTheSniElseTheConnectHost()
    {
        Acl::Registry r;
        MustAcl(r, "d ssl::server_name .example.test");
        MustAcl(r, "c ssl::server_name --client-requested .example.test");
        MustAcl(r, "p ssl::server_name --server-provided none");
        MustAcl(r, "x ssl::server_name_regex -i ^WWW\\.");
        CPPUNIT_ASSERT(AclError(r, "b ssl::server_name -n a.test").find("-n") != std::string::npos);
        auto f = Facts("10.0.0.1", "CONNECT", "127.0.0.1", 443, "");
        CPPUNIT_ASSERT(!Matches(r, "d", f));
        f.tlsSni = "www.example.test";
        CPPUNIT_ASSERT(Matches(r, "d", f));
        CPPUNIT_ASSERT(Matches(r, "c", f));
        CPPUNIT_ASSERT(Matches(r, "x", f));
        CPPUNIT_ASSERT(Matches(r, "p", f)); // no server certificate: "none"
        f.tlsSni.clear();
        f.dstHost = "a.example.test";
        CPPUNIT_ASSERT(Matches(r, "d", f));
        CPPUNIT_ASSERT(!Matches(r, "x", f));
        // the origin's certificate seen (step 3): its names, but for --client-requested
        f.tlsCertNames = {"cdn.other.test", "www.example.test"};
        CPPUNIT_ASSERT(Matches(r, "d", f));
        CPPUNIT_ASSERT(Matches(r, "x", f));
        CPPUNIT_ASSERT(!Matches(r, "p", f));
        f.tlsCertNames = {"cdn.other.test"};
        CPPUNIT_ASSERT(!Matches(r, "d", f));
        CPPUNIT_ASSERT(Matches(r, "c", f));
    }

    void protoNamesAsSquid()
    {
        Acl::Registry r;
        MustAcl(r, "web proto HTTP https");
        MustAcl(r, "tunnel proto NONE");
        CPPUNIT_ASSERT(Matches(r, "web", Facts("10.0.0.1", "GET", "a.test", 80, "http")));
        CPPUNIT_ASSERT(Matches(r, "web", Facts("10.0.0.1", "GET", "a.test", 443, "https")));
        CPPUNIT_ASSERT(!Matches(r, "web", Facts("10.0.0.1", "GET", "a.test", 21, "ftp")));
        // Squid 5.7 gives a CONNECT no scheme: NONE
        CPPUNIT_ASSERT(Matches(r, "tunnel", Facts("10.0.0.1", "CONNECT", "a.test", 443, "")));
        CPPUNIT_ASSERT(!Matches(r, "web", Facts("10.0.0.1", "CONNECT", "a.test", 443, "")));
    }

    void unknownProtocolIsIgnoredWithWarning()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "p proto AUTHORITY", &why) == Acl::Registry::ParseOutcome::Ok);
        CPPUNIT_ASSERT(why.find("unknown protocol 'AUTHORITY'") != std::string::npos);
        CPPUNIT_ASSERT(why.find("empty acl") != std::string::npos);
    }

    void hierCodeNamesAreChecked()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(AclError(r, "h hier_code DIRECT").find("no such hier_code 'DIRECT'") !=
                       std::string::npos);
        MustAcl(r, "h hier_code HIER_DIRECT FIRST_PARENT_MISS");
        auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(!Matches(r, "h", f)); // not forwarded yet
        f.hierCode = "HIER_DIRECT";
        CPPUNIT_ASSERT(Matches(r, "h", f));
        f.hierCode = "HIER_NONE";
        CPPUNIT_ASSERT(!Matches(r, "h", f));
    }

    void portNameAndPeerName()
    {
        Acl::Registry r;
        MustAcl(r, "n myportname office 3128");
        MustAcl(r, "peer peername parent1");
        MustAcl(r, "peerx peername_regex ^par");
        auto f = Facts("10.0.0.1");
        f.portName = "office";
        CPPUNIT_ASSERT(Matches(r, "n", f));
        f.portName = "guests";
        CPPUNIT_ASSERT(!Matches(r, "n", f));
        CPPUNIT_ASSERT(!Matches(r, "peer", f));
        CPPUNIT_ASSERT(!Matches(r, "peerx", f));
        f.peerName = "parent1";
        CPPUNIT_ASSERT(Matches(r, "peer", f));
        CPPUNIT_ASSERT(Matches(r, "peerx", f));
    }

    void localIpAndLocalPort()
    {
        Acl::Registry r;
        MustAcl(r, "lip localip 10.0.0.0/8 ::1");
        MustAcl(r, "lp localport 3128 8080-8081");
        auto f = Facts("192.0.2.9", "GET", "a.test", 80);
        f.localAddr = *Acl::Address::Parse("10.1.2.3");
        f.localPort = 8081;
        CPPUNIT_ASSERT(Matches(r, "lip", f));
        CPPUNIT_ASSERT(Matches(r, "lp", f));
        f.localAddr = *Acl::Address::Parse("192.0.2.1");
        f.localPort = 80; // the URL's port is 80 too: localport does not read it
        CPPUNIT_ASSERT(!Matches(r, "lip", f));
        CPPUNIT_ASSERT(!Matches(r, "lp", f));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestWordNode);
