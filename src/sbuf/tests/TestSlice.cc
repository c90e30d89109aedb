/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/Slice.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdint>

/// Tests of Sbuf::Slice.
class TestSlice : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestSlice);
    CPPUNIT_TEST(unpublishedBytesAreRefused);
    CPPUNIT_TEST(subClipsToTheEnd);
    CPPUNIT_TEST(extendCoversOnlyPublishedBytes);
    CPPUNIT_TEST(hugeExtendDoesNotWrapAround);
    CPPUNIT_TEST_SUITE_END();

public:
    /// a slice may only cover published bytes, whatever the offset and length
    void unpublishedBytesAreRefused()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::MakeCopy(pool, "0123456789");
        CPPUNIT_ASSERT_THROW(Sbuf::Slice(blob, 5, 6), TextException);
        CPPUNIT_ASSERT_THROW(Sbuf::Slice(blob, 11, 0), TextException);
        CPPUNIT_ASSERT_THROW(Sbuf::Slice(blob, 1, SIZE_MAX), TextException);
        CPPUNIT_ASSERT_THROW(Sbuf::Slice(blob, SIZE_MAX, 2), TextException);
        CPPUNIT_ASSERT_THROW(Sbuf::Slice(Sbuf::MemBlobRef(), 0, 1), TextException);
        CPPUNIT_ASSERT_EQUAL(std::string_view("56789"), Sbuf::Slice(blob, 5, 5).view());
    }

    /// sub() shares the block and never reaches past the slice's end
    void subClipsToTheEnd()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::MakeCopy(pool, "0123456789");
        const Sbuf::Slice s(blob, 2, 6); // "234567"
        CPPUNIT_ASSERT_EQUAL(std::string_view("4567"), s.sub(2).view());
        CPPUNIT_ASSERT_EQUAL(std::string_view("45"), s.sub(2, 2).view());
        CPPUNIT_ASSERT(s.sub(6).isEmpty());
        CPPUNIT_ASSERT_THROW(s.sub(7), TextException);
        CPPUNIT_ASSERT(s.sub(1).blob() == blob);
    }

    /// extend() grows over newly committed bytes and refuses unpublished ones
    void extendCoversOnlyPublishedBytes()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::MakeCopy(pool, "abc");
        Sbuf::Slice s(blob, 1, 2);
        CPPUNIT_ASSERT_THROW(s.extend(1), TextException);
        blob->append("de");
        s.extend(2);
        CPPUNIT_ASSERT_EQUAL(std::string_view("bcde"), s.view());
        CPPUNIT_ASSERT_THROW(s.extend(1), TextException);
        Sbuf::Slice none;
        CPPUNIT_ASSERT_THROW(none.extend(0), TextException);
    }

    /// an extend() length near SIZE_MAX is refused, not wrapped into a small one
    void hugeExtendDoesNotWrapAround()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::MakeCopy(pool, "0123456789");
        Sbuf::Slice s(blob, 4, 2);
        // offset + length + SIZE_MAX wraps around to 5, within the 10 published
        CPPUNIT_ASSERT_THROW(s.extend(SIZE_MAX), TextException);
        CPPUNIT_ASSERT_EQUAL(size_t(2), s.length());
        CPPUNIT_ASSERT_THROW(s.extend(SIZE_MAX - 1), TextException);
        CPPUNIT_ASSERT_EQUAL(size_t(2), s.length());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestSlice);
