/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/NoteNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

namespace {

Acl::Checklist With(std::vector<Acl::Note> notes)
{
    auto f = Facts("10.0.0.1");
    f.notes = std::move(notes);
    return f;
}

} // namespace

/// Acl::NoteNode: note, ext_user and tag acls.
class TestNoteNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestNoteNode);
    CPPUNIT_TEST(noteNameAndValues);
    CPPUNIT_TEST(noteListMembers);
    CPPUNIT_TEST(extUserAndTag);
    CPPUNIT_TEST_SUITE_END();

public:
    void noteNameAndValues()
    {
        Acl::Registry r;
        MustAcl(r, "any note grp");
        MustAcl(r, "red note grp red blue");
        MustAcl(r, "red note team a"); // another line: ORed
        CPPUNIT_ASSERT(Matches(r, "any", With({{"grp", "x"}})));
        CPPUNIT_ASSERT(!Matches(r, "any", With({{"other", "x"}})));
        CPPUNIT_ASSERT(Matches(r, "red", With({{"grp", "blue"}})));
        CPPUNIT_ASSERT(Matches(r, "red", With({{"team", "a"}})));
        CPPUNIT_ASSERT(!Matches(r, "red", With({{"grp", "red,blue"}}))); // whole values without -m
        CPPUNIT_ASSERT(!Matches(r, "red", With({{"grp", "Red"}})));
        CPPUNIT_ASSERT(!Matches(r, "red", With({})));
    }

    void noteListMembers()
    {
        Acl::Registry r;
        MustAcl(r, "m note -m grp red");
        MustAcl(r, "semi note -m=; grp red");
        CPPUNIT_ASSERT(Matches(r, "m", With({{"grp", "blue,red"}})));
        CPPUNIT_ASSERT(!Matches(r, "m", With({{"grp", "blue;red"}})));
        CPPUNIT_ASSERT(Matches(r, "semi", With({{"grp", "blue;red"}})));
    }

    void extUserAndTag()
    {
        Acl::Registry r;
        MustAcl(r, "u ext_user alice");
        MustAcl(r, "ui ext_user -i Bob");
        MustAcl(r, "anyone ext_user REQUIRED");
        MustAcl(r, "t tag staff");
        CPPUNIT_ASSERT(Matches(r, "u", With({{"user", "alice"}})));
        CPPUNIT_ASSERT(!Matches(r, "u", With({{"user", "Alice"}})));
        CPPUNIT_ASSERT(Matches(r, "ui", With({{"user", "BOB"}})));
        CPPUNIT_ASSERT(Matches(r, "anyone", With({{"user", "x"}})));
        CPPUNIT_ASSERT(!Matches(r, "anyone", With({})));
        CPPUNIT_ASSERT(Matches(r, "t", With({{"tag", "staff"}})));
        CPPUNIT_ASSERT(!Matches(r, "t", With({{"user", "staff"}})));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestNoteNode);
