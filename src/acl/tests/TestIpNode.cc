/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/IpNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cstdio>
#include <random>

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

/// The warnings that adding `values` (in one call) to a new acl `x` gives.
std::vector<std::string> Warnings(const std::vector<std::string>& values, size_t* kept = nullptr)
{
    Acl::IpNode node("x", Acl::IpNode::Side::Source);
    std::string why;
    std::vector<std::string> warnings;
    CPPUNIT_ASSERT_MESSAGE(why, node.addValues(values, why, warnings));
    if (kept)
        *kept = node.entries().size();
    return warnings;
}

/// The warning for `later` being dropped because it overlaps `earlier` in acl x.
std::string Overlap(const std::string& later, const std::string& earlier)
{
    return "'" + later + "' overlaps '" + earlier +
           "', which is already in acl x, so it is ignored, as Squid 5.7 does: the acl does not match "
           "addresses of '" +
           later + "' outside '" + earlier + "'; list them without overlaps";
}

/// A reproducible list of `count` src/dst values like a big block list.
inline std::vector<std::string> GenerateValues(size_t count, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    const auto below = [&rng](uint64_t n) { return rng() % n; };
    const auto v4 = [](uint32_t a) {
        return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." +
               std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
    };
    const auto v6 = [](uint64_t hi, uint64_t lo) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "2001:db8:%x:%x::%x:%x", unsigned(hi >> 16) & 0xffff,
                      unsigned(hi & 0xffff), unsigned(lo >> 16) & 0xffff, unsigned(lo & 0xffff));
        return std::string(buf);
    };
    std::vector<std::string> values;
    std::vector<uint32_t> bases; // IPv4 starts used so far, to derive overlapping values
    values.reserve(count);
    while (values.size() < count) {
        const auto kind = below(100);
        // most addresses anywhere in 1.0.0.0-223.255.255.255; a few in one busy /16
        uint32_t a = below(20) == 0 ? 0x0a0a0000u + uint32_t(below(65536))
                                    : 0x01000000u + uint32_t(below(0xdf000000u));
        if (!bases.empty() && kind >= 90) // near an earlier value: overlaps, duplicates, touching
            a = bases[below(bases.size())] + uint32_t(below(3)) - 1;
        if (kind < 40 || kind >= 95) {
            values.push_back(v4(a));
        } else if (kind < 65) {
            values.push_back(v4(a & 0xffffff00u) + "/24");
        } else if (kind < 75) {
            const auto len = uint32_t(below(below(10) == 0 ? 100000 : 300));
            values.push_back(v4(a) + "-" + v4(a + len));
        } else if (kind < 78) {
            const auto bits = 16 + below(13);
            values.push_back(v4(a) + "/" + std::to_string(bits));
        } else if (kind < 80) {
            values.push_back(v4(a & 0xfffff000u) + "/255.255.240.0");
        } else if (kind < 82) {
            values.push_back(v4(a) + "-" + v4(a + uint32_t(below(5000))) + "/" +
                             std::to_string(20 + below(9)));
        } else if (kind < 83) {
            values.push_back(v4(a + uint32_t(below(50)) + 1) + "-" + v4(a)); // reversed
        } else if (kind < 87) {
            values.push_back(v6(below(4), below(1 << 20)));
        } else if (kind < 88) {
            values.push_back(v6(below(4), below(1 << 20)) + "-" + v6(below(4), below(1 << 20)));
        } else {
            values.push_back(v6(below(4) * 65536 + below(16), 0) + "/64");
        }
        bases.push_back(a);
    }
    return values;
}

/// The acl as the first, linear implementation built it (commit 984e605):
/// each value checked against every kept one. The reference for the big tests.
struct ReferenceAcl {
    std::vector<Acl::IpNode::Entry> entries; ///< kept, in order
    std::vector<std::string> texts;          ///< the value of each kept entry
    std::vector<std::string> warnings;       ///< as addValues() gives them

    /// Adds the values as IpNode::addValues() does, by brute force.
    void add(const std::vector<std::string>& values)
    {
        for (const auto& value : values) {
            std::vector<Acl::IpNode::Entry> parsed;
            bool isHostName = false;
            std::string why;
            CPPUNIT_ASSERT_MESSAGE(value, Acl::IpNode::ParseValue(value, parsed, isHostName, why, warnings));
            for (const auto& e : parsed) {
                if (std::find(entries.begin(), entries.end(), e) != entries.end()) {
                    warnings.push_back("'" + value + "' is already in acl x; ignored");
                    continue;
                }
                const auto clash =
                    std::find_if(entries.begin(), entries.end(), [&e](const Acl::IpNode::Entry& f) {
                        return f.contains(e.lo) || e.contains(f.lo);
                    });
                if (clash != entries.end()) {
                    warnings.push_back(Overlap(value, texts[clash - entries.begin()]));
                    continue;
                }
                entries.push_back(e);
                texts.push_back(value);
            }
        }
    }

    /// Whether `a` is in a kept entry, by brute force.
    static bool Match(const std::vector<Acl::IpNode::Entry>& kept, const Acl::Address& a)
    {
        return std::any_of(kept.begin(), kept.end(),
                           [&a](const Acl::IpNode::Entry& e) { return e.contains(a); });
    }
};

/// `a` plus `delta` (-1 or +1), wrapping around at the ends of the 128-bit space.
Acl::Address Step(const Acl::Address& a, int delta)
{
    auto b = a.bytes();
    for (size_t i = b.size(); i-- > 0;) {
        const auto old = b[i];
        b[i] = uint8_t(b[i] + delta);
        if ((delta > 0 && old != 0xff) || (delta < 0 && old != 0))
            break;
    }
    return Acl::Address(b);
}

/// The last address an entry covers: its high end with the host bits set.
Acl::Address LastOf(const Acl::IpNode::Entry& e)
{
    auto b = e.hi.bytes();
    for (size_t i = 0; i < b.size(); ++i)
        b[i] |= uint8_t(~e.mask.bytes()[i]);
    return Acl::Address(b);
}

/// Probe addresses for the entries of `values`: each end, and one past each end.
void AddBoundaries(const std::vector<std::string>& values, std::vector<Acl::Address>& probes)
{
    for (const auto& value : values) {
        std::vector<Acl::IpNode::Entry> parsed;
        bool isHostName = false;
        std::string why;
        std::vector<std::string> ignored;
        CPPUNIT_ASSERT(Acl::IpNode::ParseValue(value, parsed, isHostName, why, ignored));
        for (const auto& e : parsed) {
            for (const auto& a : {e.lo, e.hi, LastOf(e)}) {
                probes.push_back(Step(a, -1));
                probes.push_back(a);
                probes.push_back(Step(a, +1));
            }
        }
    }
}

/// `count` random addresses (fixed seed), mostly where GenerateValues() puts values.
std::vector<Acl::Address> RandomAddresses(size_t count, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<Acl::Address> out;
    for (size_t i = 0; i < count; ++i) {
        Acl::Address::Bytes b{};
        const auto r = rng();
        switch (i % 4) {
        case 0: // any IPv4
        case 1:
            b[10] = b[11] = 0xff;
            for (int k = 0; k < 4; ++k)
                b[12 + k] = uint8_t(r >> (8 * k));
            break;
        case 2: // the busy /16
            b[10] = b[11] = 0xff;
            b[12] = b[13] = 10;
            b[14] = uint8_t(r);
            b[15] = uint8_t(r >> 8);
            break;
        default: // 2001:db8:0-3:*::0-fffff, or anywhere
            if (r % 8 == 0) {
                for (auto& byte : b)
                    byte = uint8_t(rng());
            } else {
                b[0] = 0x20;
                b[1] = 0x01;
                b[2] = 0x0d;
                b[3] = 0xb8;
                b[5] = uint8_t(r % 4);
                b[7] = uint8_t(r >> 8) % 16;
                b[13] = uint8_t(r >> 16) % 16;
                b[14] = uint8_t(r >> 24);
                b[15] = uint8_t(r >> 32);
            }
        }
        out.emplace_back(b);
    }
    return out;
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
    CPPUNIT_TEST(overlapRuleBetweenEveryPairOfKinds);
    CPPUNIT_TEST(overlapWarningNamesTheEarliestValue);
    CPPUNIT_TEST(warningTextsAndOrder);
    CPPUNIT_TEST(reversedRangeIsAPointForOverlaps);
    CPPUNIT_TEST(ipv6KeywordKeepsTheHalfThatDoesNotOverlap);
    CPPUNIT_TEST(valuesAddedOverSeveralLinesFollowTheSameRule);
    CPPUNIT_TEST(generatedListKeepsWhatTheLinearRuleKeeps);
    CPPUNIT_TEST(hundredThousandValuesMatchAsBruteForce);
    CPPUNIT_TEST(badValuesAreRejected);
    CPPUNIT_TEST(hostNameMakesAclUnsupported);
    CPPUNIT_TEST(hostNameStandsForItsAddressesInOrder);
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

    void overlapRuleBetweenEveryPairOfKinds()
    {
        // Pinned from the linear implementation (commit 984e605): row = the
        // first value, column = the second; d: the second is a duplicate,
        // o: it overlaps and is ignored, k: both kept, p: `ipv6` keeps the
        // half that does not overlap.
        const std::vector<std::string> values = {"10.0.0.5",
                                                 "10.0.0.0/24",
                                                 "10.0.0.0/255.255.255.128",
                                                 "10.0.0.3-10.0.0.7",
                                                 "10.0.0.1-10.0.1.9/24",
                                                 "10.0.0.6-10.0.0.2",
                                                 "all",
                                                 "ipv4",
                                                 "ipv6",
                                                 "2001:db8::1-2001:db8::ff",
                                                 "2001:db8::/64",
                                                 "::ffff:10.0.0.5",
                                                 "10.0.1.0/24",
                                                 "::/0",
                                                 "10.0.0.255-10.0.0.255/255.255.255.0",
                                                 "0.0.0.0/0"};
        const std::vector<std::string> expected = {
            "dooookookkkdkooo", // 10.0.0.5
            "odooooookkkokodo", // 10.0.0.0/24
            "oodoooookkkokooo", // 10.0.0.0/255.255.255.128
            "ooodooookkkokooo", // 10.0.0.3-10.0.0.7
            "oooodoookkkooooo", // 10.0.0.1-10.0.1.9/24
            "koooodookkkkkooo", // 10.0.0.6-10.0.0.2
            "oooooodoooooodod", // all
            "ooooooodkkkooooo", // ipv4
            "kkkkkkokdookkoko", // ipv6
            "kkkkkkokpdokkoko", // 2001:db8::1-2001:db8::ff
            "kkkkkkokpodkkoko", // 2001:db8::/64
            "dooookookkkdkooo", // ::ffff:10.0.0.5
            "kkkkokookkkkdoko", // 10.0.1.0/24
            "oooooodoooooodod", // ::/0
            "odooooookkkokodo", // 10.0.0.255-10.0.0.255/255.255.255.0
            "oooooodoooooodod", // 0.0.0.0/0
        };
        const std::vector<std::string> probes = {"0.0.0.0",
                                                 "9.255.255.255",
                                                 "10.0.0.0",
                                                 "10.0.0.1",
                                                 "10.0.0.2",
                                                 "10.0.0.3",
                                                 "10.0.0.4",
                                                 "10.0.0.5",
                                                 "10.0.0.6",
                                                 "10.0.0.7",
                                                 "10.0.0.8",
                                                 "10.0.0.127",
                                                 "10.0.0.128",
                                                 "10.0.0.255",
                                                 "10.0.1.0",
                                                 "10.0.1.9",
                                                 "10.0.1.255",
                                                 "10.0.2.0",
                                                 "255.255.255.255",
                                                 "::",
                                                 "::1",
                                                 "::fffe:ffff:ffff",
                                                 "::1:0:0:0",
                                                 "2001:db8::",
                                                 "2001:db8::1",
                                                 "2001:db8::ff",
                                                 "2001:db8::100",
                                                 "2001:db8::ffff:ffff:ffff:ffff",
                                                 "2001:db8:0:1::",
                                                 "fe80::1",
                                                 "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"};
        for (size_t i = 0; i < values.size(); ++i) {
            for (size_t j = 0; j < values.size(); ++j) {
                const auto& first = values[i];
                const auto& second = values[j];
                const auto what = first + " then " + second;
                Acl::IpNode pair("x", Acl::IpNode::Side::Source);
                std::string why;
                std::vector<std::string> warnings;
                CPPUNIT_ASSERT(pair.addValues({first}, why, warnings));
                const auto before = pair.entries().size();
                warnings.clear();
                CPPUNIT_ASSERT(pair.addValues({second}, why, warnings));
                const auto added = pair.entries().size() - before;
                char got = 'k';
                for (const auto& w : warnings) {
                    if (w.find("' overlaps '" + first + "'") != std::string::npos)
                        got = added ? 'p' : 'o';
                    else if (w == "'" + second + "' is already in acl x; ignored")
                        got = 'd';
                }
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, expected[i][j], got);
                // what matches: the first value, and the second where kept
                const auto alone = Node({first});
                const auto other = Node({second});
                for (const auto& p : probes) {
                    const bool want = Src(*alone, p) || (got == 'k' && Src(*other, p));
                    if (got != 'p')
                        CPPUNIT_ASSERT_EQUAL_MESSAGE(what + " at " + p, want, Src(pair, p));
                }
            }
        }
    }

    void overlapWarningNamesTheEarliestValue()
    {
        // Several earlier values overlap: the warning names the one listed first.
        CPPUNIT_ASSERT(Warnings({"10.0.0.50", "10.0.0.0-10.0.0.10", "10.0.0.5-10.0.0.60"}) ==
                       std::vector<std::string>{Overlap("10.0.0.5-10.0.0.60", "10.0.0.50")});
        CPPUNIT_ASSERT(Warnings({"10.0.0.0-10.0.0.10", "10.0.0.50", "10.0.0.5-10.0.0.60"}) ==
                       std::vector<std::string>{Overlap("10.0.0.5-10.0.0.60", "10.0.0.0-10.0.0.10")});
        CPPUNIT_ASSERT(Warnings({"10.0.0.9", "10.0.0.3", "10.0.0.7", "10.0.0.0/24"}) ==
                       std::vector<std::string>{Overlap("10.0.0.0/24", "10.0.0.9")});
        CPPUNIT_ASSERT(Warnings({"10.0.0.200", "10.0.0.100", "10.0.0.0/24", "10.0.0.0/16"}) ==
                       (std::vector<std::string>{Overlap("10.0.0.0/24", "10.0.0.200"),
                                                 Overlap("10.0.0.0/16", "10.0.0.200")}));
        // a reversed range listed first is named too
        CPPUNIT_ASSERT(Warnings({"10.0.0.9-10.0.0.1", "10.0.0.5", "10.0.0.0/24"}) ==
                       std::vector<std::string>{Overlap("10.0.0.0/24", "10.0.0.9-10.0.0.1")});
        size_t kept = 0;
        CPPUNIT_ASSERT(Warnings({"10.0.0.0/24", "10.0.0.0/16", "10.0.0.0/8", "10.0.0.0/24"}, &kept) ==
                       (std::vector<std::string>{Overlap("10.0.0.0/16", "10.0.0.0/24"),
                                                 Overlap("10.0.0.0/8", "10.0.0.0/24"),
                                                 "'10.0.0.0/24' is already in acl x; ignored"}));
        CPPUNIT_ASSERT_EQUAL(size_t(1), kept);
    }

    void warningTextsAndOrder()
    {
        CPPUNIT_ASSERT(
            Warnings({"10.0.0.0/255.255.255.0", "10.0.0.5/255.255.255.0", "10.0.0.5/24"}) ==
            (std::vector<std::string>{
                "netmasks are deprecated, use CIDR masks instead: '10.0.0.0/255.255.255.0' is taken as /24",
                "netmasks are deprecated, use CIDR masks instead: '10.0.0.5/255.255.255.0' is taken as /24",
                "netmask masks away part of the specified IP in '10.0.0.5/255.255.255.0'",
                "'10.0.0.5/255.255.255.0' is already in acl x; ignored",
                "netmask masks away part of the specified IP in '10.0.0.5/24'",
                "'10.0.0.5/24' is already in acl x; ignored"}));
        CPPUNIT_ASSERT(Warnings({"0/0", "all", "::/0"}) ==
                       (std::vector<std::string>{
                           "'0/0' needs to be replaced by the term 'all'; using 'all' instead",
                           "'all' is already in acl x; ignored", "'::/0' is already in acl x; ignored"}));
        // IPv4 and its mapped spelling are one value; touching values do not overlap
        size_t kept = 0;
        CPPUNIT_ASSERT(
            Warnings({"10.0.0.0/24", "::ffff:10.0.0.0/24", "10.0.1.0", "10.0.0.255", "9.255.255.255"},
                     &kept) == (std::vector<std::string>{"'::ffff:10.0.0.0/24' is already in acl x; ignored",
                                                         Overlap("10.0.0.255", "10.0.0.0/24")}));
        CPPUNIT_ASSERT_EQUAL(size_t(3), kept);
        // a range and a CIDR of the same addresses are different values: an overlap, not a duplicate
        CPPUNIT_ASSERT(Warnings({"10.0.0.0-10.0.0.255", "10.0.0.0/24"}) ==
                       std::vector<std::string>{Overlap("10.0.0.0/24", "10.0.0.0-10.0.0.255")});
    }

    void reversedRangeIsAPointForOverlaps()
    {
        // A reversed range matches nothing, but its start still counts
        // for overlaps: a later value holding that start is ignored, and it
        // is ignored itself when its start lies in an earlier value.
        Acl::IpNode n("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(
            n.addValues({"10.0.0.6-10.0.0.2", "10.0.0.0/24", "10.0.0.7-10.0.0.9", "10.0.0.6-10.0.0.1",
                         "10.0.0.6-10.0.0.2", "10.0.0.6", "10.0.0.8-10.0.0.1", "10.0.1.5-10.0.1.1"},
                        why, warnings));
        CPPUNIT_ASSERT(warnings ==
                       (std::vector<std::string>{Overlap("10.0.0.0/24", "10.0.0.6-10.0.0.2"),
                                                 "'10.0.0.6-10.0.0.2' is already in acl x; ignored",
                                                 Overlap("10.0.0.6", "10.0.0.6-10.0.0.2"),
                                                 Overlap("10.0.0.8-10.0.0.1", "10.0.0.7-10.0.0.9")}));
        CPPUNIT_ASSERT_EQUAL(size_t(4), n.entries().size());
        for (const char* a :
             {"10.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.0.6", "10.0.0.10", "10.0.1.1", "10.0.1.5"})
            CPPUNIT_ASSERT_MESSAGE(a, !n.match(Facts(a)));
        for (const char* a : {"10.0.0.7", "10.0.0.8", "10.0.0.9"})
            CPPUNIT_ASSERT_MESSAGE(a, n.match(Facts(a)));
        // two reversed ranges never overlap each other
        size_t kept = 0;
        CPPUNIT_ASSERT(
            Warnings({"10.0.0.9-10.0.0.1", "10.0.0.5-10.0.0.0", "10.0.0.9-10.0.0.2"}, &kept).empty());
        CPPUNIT_ASSERT_EQUAL(size_t(3), kept);
    }

    void ipv6KeywordKeepsTheHalfThatDoesNotOverlap()
    {
        Acl::IpNode n("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"fc00::/7", "ipv6"}, why, warnings));
        CPPUNIT_ASSERT(warnings == std::vector<std::string>{Overlap("ipv6", "fc00::/7")});
        CPPUNIT_ASSERT_EQUAL(size_t(2), n.entries().size());
        CPPUNIT_ASSERT(n.match(Facts("::1")) && n.match(Facts("fc00::1")));
        CPPUNIT_ASSERT(!n.match(Facts("2001:db8::1")) && !n.match(Facts("10.0.0.1")));

        Acl::IpNode low("x", Acl::IpNode::Side::Source);
        warnings.clear();
        CPPUNIT_ASSERT(
            low.addValues({"::1", "ipv6", "ipv4", "::ffff:0.0.0.0-::ffff:0.0.0.0"}, why, warnings));
        CPPUNIT_ASSERT(warnings ==
                       (std::vector<std::string>{Overlap("ipv6", "::1"),
                                                 Overlap("::ffff:0.0.0.0-::ffff:0.0.0.0", "ipv4")}));
        CPPUNIT_ASSERT(low.match(Facts("::1")) && low.match(Facts("2001:db8::1")) &&
                       low.match(Facts("1.2.3.4")));
        CPPUNIT_ASSERT(!low.match(Facts("::2")) && !low.match(Facts("::fffe:ffff:ffff")));
        CPPUNIT_ASSERT(low.match(Facts("::1:0:0:0")));
        CPPUNIT_ASSERT(low.match(Facts("::ffff:ffff:ffff"))); // 255.255.255.255, by ipv4
    }

    void valuesAddedOverSeveralLinesFollowTheSameRule()
    {
        Acl::IpNode n("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"192.0.2.0/25"}, why, warnings));
        CPPUNIT_ASSERT(n.addValues({"192.0.2.128-192.0.2.200", "192.0.2.0/24"}, why, warnings));
        CPPUNIT_ASSERT(n.addValues({"192.0.2.201"}, why, warnings));
        CPPUNIT_ASSERT(warnings == std::vector<std::string>{Overlap("192.0.2.0/24", "192.0.2.0/25")});
        CPPUNIT_ASSERT(n.match(Facts("192.0.2.0")) && n.match(Facts("192.0.2.200")) &&
                       n.match(Facts("192.0.2.201")));
        CPPUNIT_ASSERT(!n.match(Facts("192.0.2.202")) && !n.match(Facts("192.0.1.255")));
    }

    void generatedListKeepsWhatTheLinearRuleKeeps()
    {
        // Dense enough that many values overlap (one in five lands in one
        // /16, one in ten next to an earlier value); small enough for the
        // quadratic reference. Added in chunks, as several acl lines would be.
        const auto values = GenerateValues(4000, 11);
        ReferenceAcl reference;
        reference.add(values);
        Acl::IpNode node("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        for (size_t at = 0; at < values.size(); at += 700) {
            const std::vector<std::string> chunk(values.begin() + at,
                                                 values.begin() + std::min(values.size(), at + 700));
            CPPUNIT_ASSERT(node.addValues(chunk, why, warnings));
        }
        CPPUNIT_ASSERT(node.entries() == reference.entries);
        CPPUNIT_ASSERT_EQUAL(reference.warnings.size(), warnings.size());
        for (size_t i = 0; i < warnings.size(); ++i)
            CPPUNIT_ASSERT_EQUAL(reference.warnings[i], warnings[i]);
        CPPUNIT_ASSERT(reference.entries.size() < values.size() * 9 / 10); // the overlap rule was exercised

        std::vector<Acl::Address> probes = RandomAddresses(2000, 12);
        AddBoundaries(values, probes);
        for (const auto& a : probes)
            CPPUNIT_ASSERT_EQUAL_MESSAGE(a.toString(), ReferenceAcl::Match(reference.entries, a),
                                         node.match(AclTest::Facts(a.toString())));
    }

    void hundredThousandValuesMatchAsBruteForce()
    {
        const auto values = GenerateValues(100000, 20260101);
        Acl::IpNode node("x", Acl::IpNode::Side::Source);
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(node.addValues(values, why, warnings));
        const auto& kept = node.entries();
        CPPUNIT_ASSERT(kept.size() > 80000 && kept.size() < values.size());

        // Boundaries of 250 values spread over the list (every kind occurs),
        // random addresses, and the ends of the address space.
        std::vector<std::string> sample;
        for (size_t i = 0; i < values.size(); i += values.size() / 250)
            sample.push_back(values[i]);
        std::vector<Acl::Address> probes = RandomAddresses(1000, 99);
        AddBoundaries(sample, probes);
        for (const char* a :
             {"::", "::ffff:0.0.0.0", "255.255.255.255", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"})
            probes.push_back(*Acl::Address::Parse(a));
        size_t hits = 0;
        for (const auto& a : probes) {
            const bool expected = ReferenceAcl::Match(kept, a);
            hits += expected;
            Acl::Checklist c;
            c.srcAddr = a;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(a.toString(), expected, node.match(c));
        }
        CPPUNIT_ASSERT(hits > probes.size() / 10 && hits < probes.size() * 9 / 10); // both outcomes tested
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

    void hostNameStandsForItsAddressesInOrder()
    {
        Acl::IpNode n("x", Acl::IpNode::Side::Destination);
        const Acl::IpNode::HostResolver resolve = [](const std::string& host, std::vector<Acl::Address>& out,
                                                     std::string& why) {
            if (host != "two.test") {
                why = "Name not found";
                return false;
            }
            out.push_back(*Acl::Address::Parse("127.0.0.2"));
            out.push_back(*Acl::Address::Parse("::2"));
            return true;
        };
        n.setHostResolver(&resolve);
        std::string why;
        std::vector<std::string> warnings;
        // the range comes after the name: it overlaps 127.0.0.2 and is dropped, as in Squid
        CPPUNIT_ASSERT(n.addValues({"two.test", "127.0.0.0/8"}, why, warnings));
        CPPUNIT_ASSERT(n.isSupported());
        CPPUNIT_ASSERT_EQUAL(size_t(2), n.entries().size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings.size());
        CPPUNIT_ASSERT(warnings[0].find("two.test (127.0.0.2)") != std::string::npos);
        auto c = Facts("192.0.2.1", "GET", "127.0.0.2");
        CPPUNIT_ASSERT(n.match(c));
        c.dstHost = "127.0.0.3";
        CPPUNIT_ASSERT(!n.match(c));
        c.dstHost = "[::2]";
        CPPUNIT_ASSERT(n.match(c));

        CPPUNIT_ASSERT(!n.addValues({"nosuch.test"}, why, warnings));
        CPPUNIT_ASSERT(why.find("cannot resolve the host 'nosuch.test': Name not found") !=
                       std::string::npos);
        CPPUNIT_ASSERT(!n.addValues({"two.test/24"}, why, warnings));
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
        c.dstAddrs = {*Acl::Address::Parse("192.0.2.9"), *Acl::Address::Parse("127.0.0.2")};
        CPPUNIT_ASSERT(n->match(c)); // one of the resolved addresses is in it
        c.dstHost = "127.0.0.1";
        c.dstAddrs = {*Acl::Address::Parse("192.0.2.3")};
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
