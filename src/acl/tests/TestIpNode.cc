/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/IpNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using AclTest::Facts;

namespace {

/// An IpNode with these values; fails the test if they do not parse.
std::unique_ptr<Acl::IpNode> Node(const std::vector<std::string>& values,
                                  Acl::IpNode::Side side = Acl::IpNode::Side::Source)
{
    auto node = std::make_unique<Acl::IpNode>("x", side);
    std::string why;
    std::vector<std::string> warnings;
    CPPUNIT_ASSERT_MESSAGE(why, node->addValues(values, why, warnings));
    return node;
}

bool Src(const Acl::IpNode& node, const std::string& addr)
{
    return node.match(Facts(addr));
}

bool Rejects(const std::string& value)
{
    Acl::IpNode node("x", Acl::IpNode::Side::Source);
    std::string why;
    std::vector<std::string> warnings;
    return !node.addValues({value}, why, warnings) && !why.empty();
}

} // namespace

/// Acl::IpNode: the src and dst acl types.
class TestIpNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestIpNode);
    CPPUNIT_TEST(singleAddressMatchesOnlyItself);
    CPPUNIT_TEST(cidrBoundariesAreInclusive);
    CPPUNIT_TEST(dottedMaskEqualsCidr);
    CPPUNIT_TEST(nonContiguousMaskUsesLeadingOnes);
    CPPUNIT_TEST(rangeBoundaries);
    CPPUNIT_TEST(debianThisNetworkRange);
    CPPUNIT_TEST(maskedRangeCoversMaskedNetwork);
    CPPUNIT_TEST(reversedRangeMatchesNothing);
    CPPUNIT_TEST(ipv6Networks);
    CPPUNIT_TEST(ipv4RuleMatchesMappedClient);
    CPPUNIT_TEST(mappedRuleMatchesIpv4Client);
    CPPUNIT_TEST(ipv4RuleDoesNotMatchPlainIpv6);
    CPPUNIT_TEST(allMatchesEverything);
    CPPUNIT_TEST(zeroSlashZeroBecomesAll);
    CPPUNIT_TEST(ipv4AndIpv6Keywords);
    CPPUNIT_TEST(hostBitsAreMaskedWithWarning);
    CPPUNIT_TEST(duplicateIsWarnedAndIgnored);
    CPPUNIT_TEST(overlappingLaterValueIsIgnoredAsInSquid);
    CPPUNIT_TEST(badValuesAreRejected);
    CPPUNIT_TEST(hostNameMakesAclUnsupported);
    CPPUNIT_TEST(unsetAddressMatchesNothing);
    CPPUNIT_TEST(dstUsesResolvedAddressThenLiteralHost);
    CPPUNIT_TEST(dstAcceptsNoLookupOptionSrcDoesNot);
    CPPUNIT_TEST_SUITE_END();

public:
    void singleAddressMatchesOnlyItself()
    {
        const auto n = Node({"192.0.2.10"});
        CPPUNIT_ASSERT(Src(*n, "192.0.2.10"));
        CPPUNIT_ASSERT(!Src(*n, "192.0.2.9"));
        CPPUNIT_ASSERT(!Src(*n, "192.0.2.11"));
    }

    void cidrBoundariesAreInclusive()
    {
        const auto n = Node({"10.0.0.0/8", "172.16.0.0/12"});
        CPPUNIT_ASSERT(Src(*n, "10.0.0.0"));
        CPPUNIT_ASSERT(Src(*n, "10.255.255.255"));
        CPPUNIT_ASSERT(!Src(*n, "9.255.255.255"));
        CPPUNIT_ASSERT(!Src(*n, "11.0.0.0"));
        CPPUNIT_ASSERT(Src(*n, "172.31.255.255"));
        CPPUNIT_ASSERT(!Src(*n, "172.32.0.0"));
        CPPUNIT_ASSERT(!Src(*n, "172.15.255.255"));
        const auto host = Node({"192.0.2.1/32"});
        CPPUNIT_ASSERT(Src(*host, "192.0.2.1"));
        CPPUNIT_ASSERT(!Src(*host, "192.0.2.0"));
    }

    void dottedMaskEqualsCidr()
    {
        const auto dotted = Node({"192.168.0.0/255.255.0.0"});
        const auto cidr = Node({"192.168.0.0/16"});
        for (const char* a : {"192.168.0.0", "192.168.255.255", "192.167.255.255", "192.169.0.0", "::1"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(a, Src(*cidr, a), Src(*dotted, a));
    }

    void nonContiguousMaskUsesLeadingOnes()
    {
        // Squid: "For now we will assume you meant to write /8".
        Acl::IpNode n("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"10.0.0.0/255.0.255.0"}, why, warnings));
        CPPUNIT_ASSERT(!warnings.empty());
        CPPUNIT_ASSERT(n.match(Facts("10.200.1.1")));
        CPPUNIT_ASSERT(!n.match(Facts("11.0.0.0")));
    }

    void rangeBoundaries()
    {
        const auto n = Node({"192.0.2.10-192.0.2.20"});
        CPPUNIT_ASSERT(!Src(*n, "192.0.2.9"));
        CPPUNIT_ASSERT(Src(*n, "192.0.2.10"));
        CPPUNIT_ASSERT(Src(*n, "192.0.2.15"));
        CPPUNIT_ASSERT(Src(*n, "192.0.2.20"));
        CPPUNIT_ASSERT(!Src(*n, "192.0.2.21"));
        const auto v6 = Node({"2001:db8::1-2001:db8::ff"});
        CPPUNIT_ASSERT(Src(*v6, "2001:db8::ff"));
        CPPUNIT_ASSERT(!Src(*v6, "2001:db8::100"));
        CPPUNIT_ASSERT(!Src(*v6, "2001:db8::"));
    }

    void debianThisNetworkRange()
    {
        const auto n = Node({"0.0.0.1-0.255.255.255"});
        CPPUNIT_ASSERT(!Src(*n, "0.0.0.0"));
        CPPUNIT_ASSERT(Src(*n, "0.0.0.1"));
        CPPUNIT_ASSERT(Src(*n, "0.255.255.255"));
        CPPUNIT_ASSERT(!Src(*n, "1.0.0.0"));
        CPPUNIT_ASSERT(!Src(*n, "::1"));
    }

    void maskedRangeCoversMaskedNetwork()
    {
        // Squid masks both ends: 1.2.3.4-1.2.3.9/24 is 1.2.3.0-1.2.3.0 under /24.
        const auto n = Node({"1.2.3.4-1.2.3.9/24"});
        CPPUNIT_ASSERT(Src(*n, "1.2.3.0"));
        CPPUNIT_ASSERT(Src(*n, "1.2.3.255"));
        CPPUNIT_ASSERT(!Src(*n, "1.2.4.0"));
        const auto wide = Node({"10.1.0.0-10.3.0.0/16"});
        CPPUNIT_ASSERT(Src(*wide, "10.2.200.1"));
        CPPUNIT_ASSERT(Src(*wide, "10.3.255.255"));
        CPPUNIT_ASSERT(!Src(*wide, "10.4.0.0"));
    }

    void reversedRangeMatchesNothing()
    {
        const auto n = Node({"1.2.3.9-1.2.3.4"});
        for (const char* a : {"1.2.3.3", "1.2.3.4", "1.2.3.6", "1.2.3.9", "1.2.3.10"})
            CPPUNIT_ASSERT_MESSAGE(a, !Src(*n, a));
    }

    void ipv6Networks()
    {
        const auto n = Node({"fc00::/7", "fe80::/10"});
        CPPUNIT_ASSERT(Src(*n, "fc00::"));
        CPPUNIT_ASSERT(Src(*n, "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
        CPPUNIT_ASSERT(!Src(*n, "fe00::"));
        CPPUNIT_ASSERT(!Src(*n, "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
        CPPUNIT_ASSERT(Src(*n, "fe80::1"));
        CPPUNIT_ASSERT(Src(*n, "febf:ffff::1"));
        CPPUNIT_ASSERT(!Src(*n, "fec0::"));
        CPPUNIT_ASSERT(!Src(*n, "10.0.0.1"));
    }

    void ipv4RuleMatchesMappedClient()
    {
        const auto n = Node({"10.0.0.0/8", "127.0.0.1"});
        CPPUNIT_ASSERT(Src(*n, "::ffff:10.9.8.7"));
        CPPUNIT_ASSERT(Src(*n, "::ffff:127.0.0.1"));
        CPPUNIT_ASSERT(!Src(*n, "::ffff:11.0.0.1"));
    }

    void mappedRuleMatchesIpv4Client()
    {
        const auto n = Node({"::ffff:192.0.2.1"});
        CPPUNIT_ASSERT(Src(*n, "192.0.2.1"));
        CPPUNIT_ASSERT(!Src(*n, "192.0.2.2"));
    }

    void ipv4RuleDoesNotMatchPlainIpv6()
    {
        // 0.0.0.1-0.0.0.255 must not cover ::1-::ff (compat addresses are not mapped).
        const auto n = Node({"0.0.0.1-0.0.0.255", "0.0.0.0/8"});
        CPPUNIT_ASSERT(!Src(*n, "::1"));
        CPPUNIT_ASSERT(!Src(*n, "::5"));
    }

    void allMatchesEverything()
    {
        const auto n = Node({"all"});
        for (const char* a : {"0.0.0.0", "255.255.255.255", "::", "::1", "2001:db8::1", "::ffff:1.2.3.4"})
            CPPUNIT_ASSERT_MESSAGE(a, Src(*n, a));
    }

    void zeroSlashZeroBecomesAll()
    {
        for (const char* v : {"0.0.0.0/0", "0/0", "0.0.0.0/0.0.0.0"}) {
            Acl::IpNode n("x", Acl::IpNode::Side::Source);
            std::string why;
            std::vector<std::string> warnings;
            CPPUNIT_ASSERT(n.addValues({v}, why, warnings));
            CPPUNIT_ASSERT_MESSAGE(v, !warnings.empty());
            CPPUNIT_ASSERT_MESSAGE(v, n.match(Facts("2001:db8::1")));
            CPPUNIT_ASSERT_MESSAGE(v, n.match(Facts("1.2.3.4")));
        }
        // Other /0 spellings stay IPv4-only, as in Squid.
        const auto v4 = Node({"1.2.3.4/0"});
        CPPUNIT_ASSERT(Src(*v4, "9.9.9.9"));
        CPPUNIT_ASSERT(!Src(*v4, "2001:db8::1"));
    }

    void ipv4AndIpv6Keywords()
    {
        const auto v4 = Node({"ipv4"});
        CPPUNIT_ASSERT(Src(*v4, "0.0.0.0"));
        CPPUNIT_ASSERT(Src(*v4, "255.255.255.255"));
        CPPUNIT_ASSERT(!Src(*v4, "::1"));
        const auto v6 = Node({"ipv6"});
        CPPUNIT_ASSERT(Src(*v6, "::1"));
        CPPUNIT_ASSERT(Src(*v6, "2001:db8::1"));
        CPPUNIT_ASSERT(Src(*v6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
        CPPUNIT_ASSERT(!Src(*v6, "1.2.3.4"));
    }

    void hostBitsAreMaskedWithWarning()
    {
        Acl::IpNode n("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"10.0.0.5/8"}, why, warnings));
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings.size());
        CPPUNIT_ASSERT(n.match(Facts("10.200.0.1")));
        warnings.clear();
        CPPUNIT_ASSERT(n.addValues({"10.0.0.0/8"}, why, warnings)); // duplicate of the masked one
        CPPUNIT_ASSERT_EQUAL(size_t(1), n.entries().size());
    }

    void duplicateIsWarnedAndIgnored()
    {
        Acl::IpNode n("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"127.0.0.1", "127.0.0.1/32"}, why, warnings));
        CPPUNIT_ASSERT_EQUAL(size_t(1), n.entries().size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings.size());
    }

    void overlappingLaterValueIsIgnoredAsInSquid()
    {
        // Checked against Squid 5.7 on loopback: with `acl x src
        // 127.0.0.2/32 127.0.0.0/8`, `http_access deny x` denies 127.0.0.2
        // only; the wider /8 is dropped ("is ignored to keep splay tree
        // searching predictable"), and so is a later overlapping range.
        Acl::IpNode n("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"10.1.0.0/16", "10.0.0.0/8"}, why, warnings));
        CPPUNIT_ASSERT_EQUAL(size_t(1), n.entries().size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings.size());
        CPPUNIT_ASSERT(warnings[0].find("'10.0.0.0/8' overlaps '10.1.0.0/16'") != std::string::npos);
        CPPUNIT_ASSERT(n.match(Facts("10.1.2.3")));
        CPPUNIT_ASSERT(!n.match(Facts("10.2.0.1")));

        Acl::IpNode r("r", Acl::IpNode::Side::Source);
        warnings.clear();
        CPPUNIT_ASSERT(r.addValues({"192.0.2.5-192.0.2.20", "192.0.2.10-192.0.2.30", "192.0.2.0-192.0.2.5"},
                                   why, warnings));
        CPPUNIT_ASSERT_EQUAL(size_t(1), r.entries().size());
        CPPUNIT_ASSERT_EQUAL(size_t(2), warnings.size());
        CPPUNIT_ASSERT(!r.match(Facts("192.0.2.25")));
        CPPUNIT_ASSERT(!r.match(Facts("192.0.2.1")));

        // values that only touch do not overlap; `ipv6` does not clash with itself
        Acl::IpNode t("t", Acl::IpNode::Side::Source);
        warnings.clear();
        CPPUNIT_ASSERT(t.addValues({"10.0.0.0/9", "10.128.0.0/9", "ipv6", "fc00::/7"}, why, warnings));
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings.size()); // fc00::/7 is inside ipv6
        CPPUNIT_ASSERT(t.match(Facts("10.0.0.1")) && t.match(Facts("10.255.0.1")));
        CPPUNIT_ASSERT(t.match(Facts("fc00::1")));
    }

    void badValuesAreRejected()
    {
        for (const char* v :
             {"300.1.1.1", "1.2.3.4/33", "1.2.3.4/-1", "1.2.3.4/abc", "::/129", "fc00::/255.0.0.0",
              "1.2.3.4-::1", "1.2.3.4-", "-1.2.3.4", "1.2.3.4/", "a b", "1.2.3.4/8/8", "[::1]/64x"})
            CPPUNIT_ASSERT_MESSAGE(v, Rejects(v));
        for (const char* v : {"1.2.3.4/32", "::/128", "::/0", "10.1/16", "fe80::1%eth0", "[::1]"})
            CPPUNIT_ASSERT_MESSAGE(v, !Rejects(v));
    }

    void hostNameMakesAclUnsupported()
    {
        Acl::IpNode n("x", Acl::IpNode::Side::Destination);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"192.0.2.1", "www.example.com"}, why, warnings));
        CPPUNIT_ASSERT(!n.isSupported());
        CPPUNIT_ASSERT(n.unsupportedReason().find("www.example.com") != std::string::npos);
        CPPUNIT_ASSERT(!n.isEmpty());
    }

    void unsetAddressMatchesNothing()
    {
        const auto n = Node({"all"});
        Acl::Checklist c;
        CPPUNIT_ASSERT(!n->match(c));
    }

    void dstUsesResolvedAddressThenLiteralHost()
    {
        const auto n = Node({"127.0.0.0/8", "::1"}, Acl::IpNode::Side::Destination);
        auto c = Facts("192.0.2.1", "GET", "127.0.0.1");
        CPPUNIT_ASSERT(n->match(c)); // literal host
        c.dstHost = "[::1]";
        CPPUNIT_ASSERT(n->match(c));
        c.dstHost = "localhost.example";
        CPPUNIT_ASSERT(!n->match(c)); // unresolved name: no match, as a failed lookup in Squid
        c.dstAddr = *Acl::Address::Parse("127.0.0.2");
        CPPUNIT_ASSERT(n->match(c)); // resolved address wins
        c.dstHost = "127.0.0.1";
        c.dstAddr = *Acl::Address::Parse("192.0.2.3");
        CPPUNIT_ASSERT(!n->match(c));
        CPPUNIT_ASSERT(n->needsDstAddress());
        // src ignores the destination
        const auto s = Node({"127.0.0.0/8"});
        CPPUNIT_ASSERT(!s->match(c));
        CPPUNIT_ASSERT(!s->needsDstAddress());
    }

    void dstAcceptsNoLookupOptionSrcDoesNot()
    {
        CPPUNIT_ASSERT(Acl::IpNode("d", Acl::IpNode::Side::Destination).acceptsOption("-n"));
        CPPUNIT_ASSERT(!Acl::IpNode("s", Acl::IpNode::Side::Source).acceptsOption("-n"));
        CPPUNIT_ASSERT(!Acl::IpNode("d", Acl::IpNode::Side::Destination).acceptsOption("-i"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestIpNode);
