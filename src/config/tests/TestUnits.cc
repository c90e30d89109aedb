/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Units.h"

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace Config;
using std::chrono::milliseconds;

/// Sizes and times as Squid 5.7 writes them.
class TestUnits : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestUnits);
    CPPUNIT_TEST(everySizeUnitScalesByPowersOf1024);
    CPPUNIT_TEST(sizeUnitsIgnoreCase);
    CPPUNIT_TEST(bareSizeIsBytesWithWarning);
    CPPUNIT_TEST(gluedSizeIsAnErrorThatShowsTheTwoWordForm);
    CPPUNIT_TEST(unknownSizeUnitIsAnError);
    CPPUNIT_TEST(fractionalSizeRoundsDown);
    CPPUNIT_TEST(sizeOverflowIsAnError);
    CPPUNIT_TEST(negativeAndGarbageAreErrors);
    CPPUNIT_TEST(sizeStopsBeforeKeyValueWord);
    CPPUNIT_TEST(everyTimeUnitSingularAndPlural);
    CPPUNIT_TEST(timeWithoutUnitIsAnError);
    CPPUNIT_TEST(msecIsAcceptedWithWarning);
    CPPUNIT_TEST(timeOverflowIsAnError);
    CPPUNIT_TEST(formatSizeRoundTrips);
    CPPUNIT_TEST_SUITE_END();

public:
    static uint64_t size(std::vector<std::string> words, Units::Result* res = nullptr)
    {
        size_t pos = 0;
        uint64_t v = 0;
        const auto r = Units::ParseSize(words, pos, v);
        if (res)
            *res = r;
        CPPUNIT_ASSERT_MESSAGE(r.why, r.ok);
        CPPUNIT_ASSERT_EQUAL(words.size(), pos);
        return v;
    }

    static Units::Result sizeError(std::vector<std::string> words)
    {
        size_t pos = 0;
        uint64_t v = 0;
        const auto r = Units::ParseSize(words, pos, v);
        CPPUNIT_ASSERT(!r.ok);
        CPPUNIT_ASSERT(!r.why.empty());
        return r;
    }

    static milliseconds time(std::vector<std::string> words)
    {
        size_t pos = 0;
        milliseconds v{0};
        const auto r = Units::ParseDuration(words, pos, v);
        CPPUNIT_ASSERT_MESSAGE(r.why, r.ok);
        CPPUNIT_ASSERT_EQUAL(words.size(), pos);
        return v;
    }

    static Units::Result timeError(std::vector<std::string> words)
    {
        size_t pos = 0;
        milliseconds v{0};
        const auto r = Units::ParseDuration(words, pos, v);
        CPPUNIT_ASSERT(!r.ok);
        CPPUNIT_ASSERT(!r.why.empty());
        return r;
    }

    void everySizeUnitScalesByPowersOf1024()
    {
        CPPUNIT_ASSERT_EQUAL(uint64_t(64), size({"64", "bytes"}));
        CPPUNIT_ASSERT_EQUAL(uint64_t(64) << 10, size({"64", "KB"}));
        CPPUNIT_ASSERT_EQUAL(uint64_t(64) << 20, size({"64", "MB"}));
        CPPUNIT_ASSERT_EQUAL(uint64_t(64) << 30, size({"64", "GB"}));
        for (const auto& u : Units::SizeUnitNames())
            CPPUNIT_ASSERT(Units::SizeUnit(u) > 0);
    }

    void sizeUnitsIgnoreCase()
    {
        CPPUNIT_ASSERT_EQUAL(size({"3", "KB"}), size({"3", "kb"}));
        CPPUNIT_ASSERT_EQUAL(size({"3", "MB"}), size({"3", "Mb"}));
    }

    void bareSizeIsBytesWithWarning()
    {
        Units::Result r;
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096), size({"4096"}, &r));
        CPPUNIT_ASSERT(r.warning.find("assuming bytes") != std::string::npos);
        size({"4", "KB"}, &r);
        CPPUNIT_ASSERT(r.warning.empty());
        // a bare 0 is 0 whatever the unit: Squid says nothing of it
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), size({"0"}, &r));
        CPPUNIT_ASSERT(r.warning.empty());
        size({"0.0"}, &r);
        CPPUNIT_ASSERT(r.warning.empty());
    }

    void gluedSizeIsAnErrorThatShowsTheTwoWordForm()
    {
        const auto r = sizeError({"64KB"});
        CPPUNIT_ASSERT(r.why.find("'64 KB'") != std::string::npos);
    }

    void unknownSizeUnitIsAnError()
    {
        sizeError({"64", "XB"});
        sizeError({"1", "TB"});
        sizeError({"1", "byte"}); // Squid 5.7 rejects the singular too
    }

    void fractionalSizeRoundsDown()
    {
        CPPUNIT_ASSERT_EQUAL(uint64_t(1536), size({"1.5", "KB"}));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), size({"1.9", "bytes"}));
    }

    void sizeOverflowIsAnError()
    {
        sizeError({"99999999999999999999", "GB"});
        sizeError({"17179869184", "GB"}); // 2^34 GB = 2^64 bytes
        CPPUNIT_ASSERT_EQUAL(uint64_t(17179869183) << 30, size({"17179869183", "GB"}));
    }

    void negativeAndGarbageAreErrors()
    {
        CPPUNIT_ASSERT(sizeError({"-1", "MB"}).why.find("negative") != std::string::npos);
        sizeError({"abc"});
        sizeError({"1.2.3", "KB"});
        sizeError({"."});
        sizeError({});
        timeError({"-5", "seconds"});
        timeError({"soon"});
        timeError({});
    }

    void sizeStopsBeforeKeyValueWord()
    {
        std::vector<std::string> words{"16", "max=1"};
        size_t pos = 0;
        uint64_t v = 0;
        CPPUNIT_ASSERT(Units::ParseSize(words, pos, v).ok);
        CPPUNIT_ASSERT_EQUAL(size_t(1), pos);
    }

    void everyTimeUnitSingularAndPlural()
    {
        const std::pair<const char*, int64_t> expected[] = {
            {"millisecond", 1},
            {"second", 1000},
            {"minute", 60000},
            {"hour", 3600000},
            {"day", 86400000},
            {"week", 7 * 86400000LL},
            {"fortnight", 14 * 86400000LL},
            {"month", 30 * 86400000LL},
            {"year", 31557790500LL},
            {"decade", 315577905000LL},
        };
        CPPUNIT_ASSERT_EQUAL(std::size(expected), Units::TimeUnitNames().size());
        for (const auto& [unit, ms] : expected) {
            CPPUNIT_ASSERT_EQUAL(ms, time({"1", unit}).count());
            CPPUNIT_ASSERT_EQUAL(2 * ms, time({"2", std::string(unit) + "s"}).count());
        }
        CPPUNIT_ASSERT_EQUAL(int64_t(30000), time({"30", "Seconds"}).count());
        CPPUNIT_ASSERT_EQUAL(int64_t(1500), time({"1.5", "seconds"}).count());
    }

    void timeWithoutUnitIsAnError()
    {
        CPPUNIT_ASSERT(timeError({"30"}).why.find("missing time unit") != std::string::npos);
        timeError({"30", "sec"});
        CPPUNIT_ASSERT(timeError({"30seconds"}).why.find("'30 seconds'") != std::string::npos);
    }

    void msecIsAcceptedWithWarning()
    {
        std::vector<std::string> words{"250", "msec"};
        size_t pos = 0;
        milliseconds v{0};
        const auto r = Units::ParseDuration(words, pos, v);
        CPPUNIT_ASSERT(r.ok);
        CPPUNIT_ASSERT_EQUAL(int64_t(250), v.count());
        CPPUNIT_ASSERT(!r.warning.empty());
    }

    void timeOverflowIsAnError()
    {
        timeError({"99999999999999", "decades"});
        timeError({"99999999999999999999999", "seconds"});
        // Squid 5.7's limit: 2^63-1 ns, "time values cannot exceed 292.269 years"
        CPPUNIT_ASSERT(timeError({"1000", "decades"}).why.find("292.269 years") != std::string::npos);
        timeError({"293", "years"});
        timeError({"9223372036855", "milliseconds"});
        CPPUNIT_ASSERT_EQUAL(int64_t(9223372036854), time({"9223372036854", "milliseconds"}).count());
        CPPUNIT_ASSERT_EQUAL(int64_t(292 * 31557790500LL), time({"292", "years"}).count());
    }

    void formatSizeRoundTrips()
    {
        for (uint64_t v : {uint64_t(1), uint64_t(100), uint64_t(16384), uint64_t(1) << 20, uint64_t(3) << 30,
                           uint64_t(1536)}) {
            const std::string text = Units::FormatSize(v);
            const size_t space = text.find(' ');
            CPPUNIT_ASSERT_EQUAL(v, size({text.substr(0, space), text.substr(space + 1)}));
        }
        CPPUNIT_ASSERT_EQUAL(std::string("16 KB"), Units::FormatSize(16384));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestUnits);
