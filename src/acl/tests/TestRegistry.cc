/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/Node.h"
#include "acl/Registry.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using AclTest::Facts;
using AclTest::MustAcl;
using AclTest::ParseAcl;
using Outcome = Acl::Registry::ParseOutcome;

/// Acl::Registry: `acl` lines, predefined acls, repeated names, types.
class TestRegistry : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRegistry);
    CPPUNIT_TEST(predefinedAclsExist);
    CPPUNIT_TEST(oldTypeNamesAreTheirNewOnes);
    CPPUNIT_TEST(manyWarningsOfOneLineAreCounted);
    CPPUNIT_TEST(predefinedAclsMatchAsSquids);
    CPPUNIT_TEST(redefiningPredefinedSameTypeExtends);
    CPPUNIT_TEST(redefiningPredefinedOtherTypeIsError);
    CPPUNIT_TEST(managerRedefinedWithSquidPatternsIsOk);
    CPPUNIT_TEST(repeatedLinesAreOred);
    CPPUNIT_TEST(typeClashIsError);
    CPPUNIT_TEST(namesIgnoreCase);
    CPPUNIT_TEST(missingNameOrTypeIsError);
    CPPUNIT_TEST(nameLengthLimit);
    CPPUNIT_TEST(anyNameCharactersAreAccepted);
    CPPUNIT_TEST(unknownTypeIsError);
    CPPUNIT_TEST(everyUnimplementedSquidTypeIsUnsupported);
    CPPUNIT_TEST(unsupportedAclIsRecorded);
    CPPUNIT_TEST(unsupportedTypeClashIsStillError);
    CPPUNIT_TEST(dstHostNameIsUnsupported);
    CPPUNIT_TEST(optionsAreCheckedPerType);
    CPPUNIT_TEST(doubleDashEndsOptions);
    CPPUNIT_TEST(valuesFromFile);
    CPPUNIT_TEST(badValueInFileIsError);
    CPPUNIT_TEST(missingFileIsError);
    CPPUNIT_TEST(specialFilesAreRefusedWithoutReading);
    CPPUNIT_TEST(emptyAclWarnsAndMatchesNothing);
    CPPUNIT_TEST(badValueIsErrorAndLeavesNoAcl);
    CPPUNIT_TEST(warningsComeBackOnOk);
    CPPUNIT_TEST(moveKeepsNodes);
    CPPUNIT_TEST_SUITE_END();

public:
    void oldTypeNamesAreTheirNewOnes()
    {
        // Squid 5.7 takes myip and myport as localip and localport, with a note
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(r.parse({"a", "myip", "127.0.0.1"}, why) == Acl::Registry::ParseOutcome::Ok);
        CPPUNIT_ASSERT_MESSAGE(why, why.find("UPGRADE: ACL 'myip' type has been renamed to 'localip'") == 0);
        CPPUNIT_ASSERT_EQUAL(std::string("localip"), r.find("a")->typeName());
        CPPUNIT_ASSERT(r.parse({"a", "localip", "127.0.0.2"}, why) == Acl::Registry::ParseOutcome::Ok);
        CPPUNIT_ASSERT(r.parse({"p", "myport", "3128"}, why) == Acl::Registry::ParseOutcome::Ok);
        CPPUNIT_ASSERT_EQUAL(std::string("localport"), r.find("p")->typeName());
    }

    void predefinedAclsExist()
    {
        const Acl::Registry r;
        const std::pair<const char*, const char*> expected[] = {
            {"all", "src"},          {"localhost", "src"},     {"to_localhost", "dst"},
            {"to_linklocal", "dst"}, {"manager", "url_regex"}, {"CONNECT", "method"}};
        for (const auto& [name, type] : expected) {
            const auto* n = r.find(name);
            CPPUNIT_ASSERT_MESSAGE(name, n);
            CPPUNIT_ASSERT_EQUAL(std::string(type), n->typeName());
            CPPUNIT_ASSERT(n->isSupported());
        }
        CPPUNIT_ASSERT(!r.find("localnet"));
        CPPUNIT_ASSERT_EQUAL(r.find("all"), r.find("ALL")); // names ignore case, as in Squid
    }

    void manyWarningsOfOneLineAreCounted()
    {
        // a block list with 1000 duplicates gives one short warning, not 1000
        Acl::Registry r;
        std::vector<std::string> words{"dups", "src", "192.0.2.1"};
        for (int i = 0; i < 1000; ++i)
            words.push_back("192.0.2.1");
        std::string why;
        CPPUNIT_ASSERT(r.parse(words, why) == Outcome::Ok);
        CPPUNIT_ASSERT_MESSAGE(why, why.find("and 995 more warnings like these") != std::string::npos);
        CPPUNIT_ASSERT(why.size() < 1000);
        CPPUNIT_ASSERT(r.find("dups")->match(Facts("192.0.2.1")));
    }

    void predefinedAclsMatchAsSquids()
    {
        const Acl::Registry r;
        const auto& all = *r.find("all");
        CPPUNIT_ASSERT(all.match(Facts("198.51.100.1")) && all.match(Facts("2001:db8::1")));
        const auto& localhost = *r.find("localhost");
        CPPUNIT_ASSERT(localhost.match(Facts("127.0.0.1")));
        CPPUNIT_ASSERT(localhost.match(Facts("::1")));
        CPPUNIT_ASSERT(localhost.match(Facts("::ffff:127.0.0.1")));
        CPPUNIT_ASSERT(!localhost.match(Facts("127.0.0.2"))); // /32, not /8
        const auto& toLocal = *r.find("to_localhost");
        for (const char* d : {"127.0.0.1", "127.255.255.255", "0.0.0.0", "::1", "::"})
            CPPUNIT_ASSERT_MESSAGE(d, toLocal.match(Facts("192.0.2.1", "GET", d)));
        for (const char* d : {"128.0.0.1", "0.0.0.1", "::2", "192.0.2.1"})
            CPPUNIT_ASSERT_MESSAGE(d, !toLocal.match(Facts("192.0.2.1", "GET", d)));
        const auto& linkLocal = *r.find("to_linklocal");
        CPPUNIT_ASSERT(linkLocal.match(Facts("127.0.0.1", "GET", "169.254.169.254")));
        CPPUNIT_ASSERT(linkLocal.match(Facts("127.0.0.1", "GET", "fe80::1")));
        CPPUNIT_ASSERT(!linkLocal.match(Facts("127.0.0.1", "GET", "169.255.0.1")));
        const auto& connect = *r.find("CONNECT");
        CPPUNIT_ASSERT(connect.match(Facts("127.0.0.1", "CONNECT")));
        CPPUNIT_ASSERT(!connect.match(Facts("127.0.0.1", "GET")));
        CPPUNIT_ASSERT(!connect.match(Facts("127.0.0.1", "connect")));
    }

    void redefiningPredefinedSameTypeExtends()
    {
        // Squid 5.7: `acl all src all` and `acl localhost src 127.0.0.1` only warn about duplicates.
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "all src all", &why) == Outcome::Ok);
        CPPUNIT_ASSERT(!why.empty());
        CPPUNIT_ASSERT(ParseAcl(r, "localhost src 127.0.0.1", &why) == Outcome::Ok);
        CPPUNIT_ASSERT(!why.empty());
        // and `acl CONNECT method GET` makes CONNECT match GET too
        MustAcl(r, "CONNECT method GET");
        CPPUNIT_ASSERT(r.find("CONNECT")->match(Facts("127.0.0.1", "GET")));
        CPPUNIT_ASSERT(r.find("CONNECT")->match(Facts("127.0.0.1", "CONNECT")));
        MustAcl(r, "localhost src 192.0.2.5");
        CPPUNIT_ASSERT(r.find("localhost")->match(Facts("192.0.2.5")));
    }

    void namesIgnoreCase()
    {
        // Squid 5.7's ACL::FindByName() uses strcasecmp: Foo and foo are one
        // acl, so a rule naming either sees the values of both lines.
        Acl::Registry r;
        MustAcl(r, "Foo src 192.0.2.1");
        MustAcl(r, "foo src 192.0.2.2");
        CPPUNIT_ASSERT_EQUAL(r.find("Foo"), r.find("foo"));
        CPPUNIT_ASSERT_EQUAL(r.find("FOO"), r.find("foo"));
        CPPUNIT_ASSERT_EQUAL(std::string("Foo"), r.find("foo")->name());
        CPPUNIT_ASSERT(r.find("foo")->match(Facts("192.0.2.1")));
        CPPUNIT_ASSERT(r.find("FOO")->match(Facts("192.0.2.2")));
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "FOO dst 192.0.2.3", &why) == Outcome::Error);
        // the predefined acls too
        CPPUNIT_ASSERT_EQUAL(r.find("all"), r.find("ALL"));
        CPPUNIT_ASSERT_EQUAL(r.find("localhost"), r.find("LocalHost"));
        CPPUNIT_ASSERT(ParseAcl(r, "Localhost dst 127.0.0.1", &why) == Outcome::Error);
        // distinct names stay distinct
        MustAcl(r, "foo2 src 192.0.2.9");
        CPPUNIT_ASSERT(r.find("foo2") != r.find("foo"));
        CPPUNIT_ASSERT(!r.find("foo")->match(Facts("192.0.2.9")));
    }

    void redefiningPredefinedOtherTypeIsError()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "manager src 1.2.3.4", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("url_regex") != std::string::npos);
        CPPUNIT_ASSERT(ParseAcl(r, "manager proto cache_object", &why) == Outcome::Error);
        CPPUNIT_ASSERT(ParseAcl(r, "localhost dst 127.0.0.1", &why) == Outcome::Error);
        CPPUNIT_ASSERT(ParseAcl(r, "CONNECT port 443", &why) == Outcome::Error);
        CPPUNIT_ASSERT(r.find("manager")->isSupported());
    }

    void managerRedefinedWithSquidPatternsIsOk()
    {
        Acl::Registry r;
        MustAcl(r, "manager url_regex -i ^cache_object:// +i ^https?://[^/]+/squid-internal-mgr/");
        CPPUNIT_ASSERT(r.find("manager")->isSupported());
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "manager url_regex ^http://other/", &why) == Outcome::Unsupported);
        CPPUNIT_ASSERT(!r.find("manager")->isSupported());
    }

    void repeatedLinesAreOred()
    {
        Acl::Registry r;
        MustAcl(r, "net src 10.0.0.0/8");
        MustAcl(r, "net src 192.168.0.0/16 fc00::/7");
        const auto& n = *r.find("net");
        CPPUNIT_ASSERT(n.match(Facts("10.1.1.1")));
        CPPUNIT_ASSERT(n.match(Facts("192.168.1.1")));
        CPPUNIT_ASSERT(n.match(Facts("fd00::1")));
        CPPUNIT_ASSERT(!n.match(Facts("172.16.0.1")));
        MustAcl(r, "ports port 80");
        MustAcl(r, "ports port 1025-65535");
        CPPUNIT_ASSERT(r.find("ports")->match(Facts("127.0.0.1", "GET", "h", 80)));
        CPPUNIT_ASSERT(r.find("ports")->match(Facts("127.0.0.1", "GET", "h", 8080)));
        CPPUNIT_ASSERT(!r.find("ports")->match(Facts("127.0.0.1", "GET", "h", 443)));
    }

    void typeClashIsError()
    {
        Acl::Registry r;
        MustAcl(r, "x src 1.2.3.4");
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "x dst 1.2.3.4", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("src") != std::string::npos && why.find("dst") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(std::string("src"), r.find("x")->typeName());
    }

    void missingNameOrTypeIsError()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(r.parse({}, why) == Outcome::Error);
        CPPUNIT_ASSERT(!why.empty());
        CPPUNIT_ASSERT(ParseAcl(r, "x", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("type") != std::string::npos);
        CPPUNIT_ASSERT(!r.find("x"));
    }

    void nameLengthLimit()
    {
        Acl::Registry r;
        MustAcl(r, std::string(63, 'a') + " src 1.2.3.4");
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, std::string(64, 'b') + " src 1.2.3.4", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("too long") != std::string::npos);
    }

    void anyNameCharactersAreAccepted()
    {
        // Squid 5.7 checks only the length.
        Acl::Registry r;
        for (const char* name : {"a.b-c_d", "a/b", "a:b", "a%b", "a\"b", "-x", "Safe_ports"})
            MustAcl(r, std::string(name) + " src 1.2.3.4");
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "!bang src 1.2.3.4", &why) == Outcome::Ok);
        CPPUNIT_ASSERT(why.find("'!'") != std::string::npos); // warned: no rule can name it
    }

    void unknownTypeIsError()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "x foo 1", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("foo") != std::string::npos);
        CPPUNIT_ASSERT(ParseAcl(r, "x SRC 1.2.3.4", &why) == Outcome::Error); // types are case-sensitive
        CPPUNIT_ASSERT(!r.find("x"));
    }

    void everyUnimplementedSquidTypeIsUnsupported()
    {
        for (const char* type : {"ident",
                                 "ident_regex",
                                 "urllogin",
                                 "arp",
                                 "eui64",
                                 "server_cert_fingerprint",
                                 "user_cert",
                                 "ca_cert",
                                 "adaptation_service",
                                 "ident",
                                 "ident_regex",
                                 "dst_as",
                                 "src_as",
                                 "snmp_community",
                                 "has",
                                 "squid_error",
                                 "connections_encrypted",
                                 "client_connection_mark",
                                 "clientside_mark",
                                 "annotate_client",
                                 "annotate_transaction"}) {
            Acl::Registry r;
            std::string why;
            CPPUNIT_ASSERT_MESSAGE(type, ParseAcl(r, std::string("x ") + type + " -i some value", &why) ==
                                             Outcome::Unsupported);
            CPPUNIT_ASSERT_MESSAGE(type, why.find(type) != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(type, Acl::Registry::IsKnownType(type));
        }
    }

    void unsupportedAclIsRecorded()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "work ident .example.com", &why) == Outcome::Unsupported);
        const auto* n = r.find("work");
        CPPUNIT_ASSERT(n);
        CPPUNIT_ASSERT(!n->isSupported());
        CPPUNIT_ASSERT_EQUAL(std::string("ident"), n->typeName());
        CPPUNIT_ASSERT(n->unsupportedReason().find("ident") != std::string::npos);
        // a repeated line says so again
        CPPUNIT_ASSERT(ParseAcl(r, "work ident .example.net", &why) == Outcome::Unsupported);
    }

    void unsupportedTypeClashIsStillError()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "sites ident .example.com", &why) == Outcome::Unsupported);
        CPPUNIT_ASSERT(ParseAcl(r, "sites src 1.2.3.4", &why) == Outcome::Error);
        MustAcl(r, "net src 1.2.3.4");
        CPPUNIT_ASSERT(ParseAcl(r, "net dstdomain .example.com", &why) == Outcome::Error);
    }

    void dstHostNameIsUnsupported()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "origin dst 192.0.2.1 www.example.com", &why) == Outcome::Unsupported);
        CPPUNIT_ASSERT(why.find("www.example.com") != std::string::npos);
        CPPUNIT_ASSERT(!r.find("origin")->isSupported());
        // more literal values afterwards keep it unsupported but are not errors
        CPPUNIT_ASSERT(ParseAcl(r, "origin dst 192.0.2.2", &why) == Outcome::Ok);
        CPPUNIT_ASSERT(!r.find("origin")->isSupported());
        CPPUNIT_ASSERT(ParseAcl(r, "client src my-host.example", &why) == Outcome::Unsupported);
    }

    void optionsAreCheckedPerType()
    {
        Acl::Registry r;
        std::string why;
        MustAcl(r, "d dst -n 1.2.3.4");
        CPPUNIT_ASSERT(ParseAcl(r, "s src -n 1.2.3.4", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("-n") != std::string::npos);
        CPPUNIT_ASSERT(ParseAcl(r, "s src -i 1.2.3.4", &why) == Outcome::Error);
        CPPUNIT_ASSERT(ParseAcl(r, "p port -5", &why) == Outcome::Error);
        CPPUNIT_ASSERT(ParseAcl(r, "m method +i GET", &why) == Outcome::Error);
    }

    void doubleDashEndsOptions()
    {
        Acl::Registry r;
        MustAcl(r, "s src -- 1.2.3.4");
        MustAcl(r, "m method -- -FOO");
        CPPUNIT_ASSERT(r.find("m")->match(Facts("127.0.0.1", "-FOO")));
        CPPUNIT_ASSERT(r.find("s")->match(Facts("1.2.3.4")));
    }

    void valuesFromFile()
    {
        const AclTest::TempFile file("# a comment\n\n  10.0.0.0/8   trailing words are ignored\n"
                                     "192.0.2.1 # not a comment but ignored too\n   # indented comment\n"
                                     "fc00::/7\r\n");
        Acl::Registry r;
        MustAcl(r, "net src 198.51.100.1 " + file.quoted() + " 203.0.113.1");
        const auto& n = *r.find("net");
        for (const char* a : {"198.51.100.1", "10.2.3.4", "192.0.2.1", "fc00::1", "203.0.113.1"})
            CPPUNIT_ASSERT_MESSAGE(a, n.match(Facts(a)));
        CPPUNIT_ASSERT(!n.match(Facts("192.0.2.2")));
        const AclTest::TempFile ports("80\n443\n1025-65535\n");
        MustAcl(r, "ports port " + ports.quoted());
        CPPUNIT_ASSERT(r.find("ports")->match(Facts("127.0.0.1", "GET", "h", 443)));
        CPPUNIT_ASSERT(!r.find("ports")->match(Facts("127.0.0.1", "GET", "h", 22)));
    }

    void badValueInFileIsError()
    {
        // Squid: a '#' inside a word is not a comment, so "bad#ip" is a bad address.
        const AclTest::TempFile file("10.0.0.1\nbad#ip\n");
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "x src " + file.quoted(), &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("bad#ip") != std::string::npos);
    }

    void missingFileIsError()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "x src \"/nonexistent/cuttle/acl-values\"", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("/nonexistent/cuttle/acl-values") != std::string::npos);
        CPPUNIT_ASSERT(!r.find("x"));
    }

    void specialFilesAreRefusedWithoutReading()
    {
        // /dev/zero would be read forever; a directory reads nothing
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "x src \"/dev/zero\"", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("not a regular file") != std::string::npos);
        CPPUNIT_ASSERT(ParseAcl(r, "x src \"/\"", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("not a regular file") != std::string::npos);
        CPPUNIT_ASSERT(!r.find("x"));
    }

    void emptyAclWarnsAndMatchesNothing()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "nobody src", &why) == Outcome::Ok);
        CPPUNIT_ASSERT(why.find("empty") != std::string::npos);
        CPPUNIT_ASSERT(!r.find("nobody")->match(Facts("127.0.0.1")));
        const AclTest::TempFile file("# only comments\n");
        CPPUNIT_ASSERT(ParseAcl(r, "nomethod method " + file.quoted(), &why) == Outcome::Ok);
        CPPUNIT_ASSERT(why.find("empty") != std::string::npos);
    }

    void badValueIsErrorAndLeavesNoAcl()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "x src 1.2.3.4/33", &why) == Outcome::Error);
        CPPUNIT_ASSERT(why.find("1.2.3.4/33") != std::string::npos);
        CPPUNIT_ASSERT(!r.find("x"));
        CPPUNIT_ASSERT(ParseAcl(r, "p port 70000", &why) == Outcome::Error);
        CPPUNIT_ASSERT(ParseAcl(r, "p port 10-5", &why) == Outcome::Error);
        CPPUNIT_ASSERT(!r.find("p"));
    }

    void warningsComeBackOnOk()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "x src 10.0.0.0/8", &why) == Outcome::Ok);
        CPPUNIT_ASSERT(why.empty());
        CPPUNIT_ASSERT(ParseAcl(r, "y src 10.0.0.5/8", &why) == Outcome::Ok);
        CPPUNIT_ASSERT(why.find("masks away") != std::string::npos);
    }

    void moveKeepsNodes()
    {
        Acl::Registry r;
        MustAcl(r, "net src 10.0.0.0/8");
        const auto* before = r.find("net");
        Acl::Registry moved(std::move(r));
        CPPUNIT_ASSERT_EQUAL(before, moved.find("net"));
        Acl::Registry assigned;
        assigned = std::move(moved);
        CPPUNIT_ASSERT_EQUAL(before, assigned.find("net"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestRegistry);
