/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/TimeNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdlib>

using namespace AclTest;

namespace {

/// The time_t of a local date and time (the suite runs in UTC: see setUp()).
time_t At(int year, int month, int day, int hour, int minute)
{
    struct tm t {};
    t.tm_year = year - 1900;
    t.tm_mon = month - 1;
    t.tm_mday = day;
    t.tm_hour = hour;
    t.tm_min = minute;
    t.tm_isdst = -1;
    return mktime(&t);
}

bool MatchesAt(const Acl::Registry& r, time_t when)
{
    auto f = Facts("10.0.0.1");
    f.now = when;
    return Matches(r, "t", f);
}

} // namespace

/// Acl::TimeNode: days and time ranges as Squid 5.7 reads them.
class TestTimeNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestTimeNode);
    CPPUNIT_TEST(daysAndRangeTogether);
    CPPUNIT_TEST(rangeEndsAreIncluded);
    CPPUNIT_TEST(daysAloneCoverTheWholeDay);
    CPPUNIT_TEST(rangeAloneCoversEveryDay);
    CPPUNIT_TEST(dMeansWeekdays);
    CPPUNIT_TEST(badValuesAreErrors);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        setenv("TZ", "UTC", 1);
        tzset();
    }

    // 2026-11-23 is a Monday, 2026-11-28 a Saturday
    void daysAndRangeTogether()
    {
        Acl::Registry r;
        MustAcl(r, "t time MTWHF 08:00-17:30");
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 23, 9, 0)));
        CPPUNIT_ASSERT(!MatchesAt(r, At(2026, 11, 23, 18, 0)));
        CPPUNIT_ASSERT(!MatchesAt(r, At(2026, 11, 28, 9, 0)));
    }

    void rangeEndsAreIncluded()
    {
        Acl::Registry r;
        MustAcl(r, "t time 08:00-17:30");
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 23, 8, 0)));
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 23, 17, 30)));
        CPPUNIT_ASSERT(!MatchesAt(r, At(2026, 11, 23, 7, 59)));
        CPPUNIT_ASSERT(!MatchesAt(r, At(2026, 11, 23, 17, 31)));
    }

    void daysAloneCoverTheWholeDay()
    {
        Acl::Registry r;
        MustAcl(r, "t time AS");
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 28, 0, 0)));
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 29, 23, 59)));
        CPPUNIT_ASSERT(!MatchesAt(r, At(2026, 11, 27, 12, 0)));
    }

    void rangeAloneCoversEveryDay()
    {
        Acl::Registry r;
        MustAcl(r, "t time 22:00-24:00");
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 28, 23, 0)));
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 23, 22, 0)));
        CPPUNIT_ASSERT(!MatchesAt(r, At(2026, 11, 23, 21, 59)));
    }

    void dMeansWeekdays()
    {
        Acl::Registry r;
        MustAcl(r, "t time D");
        CPPUNIT_ASSERT(MatchesAt(r, At(2026, 11, 27, 12, 0)));  // Friday
        CPPUNIT_ASSERT(!MatchesAt(r, At(2026, 11, 29, 12, 0))); // Sunday
    }

    void badValuesAreErrors()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(AclError(r, "t time MX").find("bad day 'X'") != std::string::npos);
        CPPUNIT_ASSERT(AclError(r, "t time 17:00-08:00").find("reversed") != std::string::npos);
        AclError(r, "t time 08:00-25:00");
        AclError(r, "t time 8-17");
        AclError(r, "t time 08:00-17:00x");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestTimeNode);
