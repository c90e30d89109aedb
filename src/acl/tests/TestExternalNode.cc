/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ExternalNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

namespace {

/// Answers from a list, as the client side's cache would.
class FakeAnswers : public Acl::LookupAnswers {
public:
    const Acl::LookupResult* find(const Acl::Lookup& lookup) const override
    {
        ++asked;
        for (const auto& [l, r] : known) {
            if (l == lookup)
                return &r;
        }
        return nullptr;
    }
    std::vector<std::pair<Acl::Lookup, Acl::LookupResult>> known;
    mutable int asked = 0;
};

Acl::Lookup Ext(const std::string& helper, std::vector<std::string> words)
{
    return Acl::Lookup{Acl::Lookup::Kind::External, helper, std::move(words)};
}

} // namespace

/// Acl::ExternalNode and a rule list that waits for its lookups.
class TestExternalNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestExternalNode);
    CPPUNIT_TEST(needsItsTypeFirst);
    CPPUNIT_TEST(unknownAnswerStopsWithALookup);
    CPPUNIT_TEST(answersDecideAndAddNotes);
    CPPUNIT_TEST(brokenHelperDeniesEvenNegated);
    CPPUNIT_TEST_SUITE_END();

public:
    void needsItsTypeFirst()
    {
        Acl::Registry r;
        AclError(r, "e external nosuch");
        AclError(r, "e external");
        std::string why;
        CPPUNIT_ASSERT(r.defineExternalType(Words("t %SRC /bin/h"), why));
        CPPUNIT_ASSERT(!r.defineExternalType(Words("t %SRC /bin/h"), why)); // defined twice
        MustAcl(r, "e external t a b");
        AclError(r, "e external t c"); // one line only, as Squid
    }

    void unknownAnswerStopsWithALookup()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(r.defineExternalType(Words("t %SRC /bin/h"), why));
        MustAcl(r, "e external t arg");
        Acl::AccessList list;
        MustAccess(list, r, "allow e");
        auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(list.check(f) == Acl::Answer::Pending); // no answers at all
        FakeAnswers answers;
        f.answers = &answers;
        CPPUNIT_ASSERT(list.check(f) == Acl::Answer::Pending);
        CPPUNIT_ASSERT(f.lookup == Ext("t", {"10.0.0.1", "arg"}));
    }

    void answersDecideAndAddNotes()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(r.defineExternalType(Words("t %SRC /bin/h"), why));
        MustAcl(r, "e external t");
        MustAcl(r, "red note grp red");
        Acl::AccessList list;
        MustAccess(list, r, "allow e red");
        FakeAnswers answers;
        Acl::LookupResult ok{Acl::LookupResult::Verdict::Match, {{"user", "alice"}, {"grp", "red"}}, {}};
        Acl::LookupResult err{Acl::LookupResult::Verdict::NoMatch, {{"message", "no"}}, {}};
        answers.known = {{Ext("t", {"10.0.0.1", ""}), ok}, {Ext("t", {"10.0.0.2", ""}), err}};
        auto f = Facts("10.0.0.1");
        f.answers = &answers;
        CPPUNIT_ASSERT(list.check(f) == Acl::Answer::Allowed);
        CPPUNIT_ASSERT_EQUAL(std::string("alice"), f.noteValue("user"));
        list.check(f); // checked again: each note once
        CPPUNIT_ASSERT_EQUAL(size_t(2), f.notes.size());
        auto g = Facts("10.0.0.2");
        g.answers = &answers;
        CPPUNIT_ASSERT(list.check(g) == Acl::Answer::Denied);
        CPPUNIT_ASSERT_EQUAL(std::string("no"), g.noteValue("message")); // ERR notes count too
    }

    void brokenHelperDeniesEvenNegated()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(r.defineExternalType(Words("t %SRC /bin/h"), why));
        MustAcl(r, "e external t");
        Acl::AccessList list;
        MustAccess(list, r, "allow !e");
        MustAccess(list, r, "allow all");
        FakeAnswers answers;
        answers.known = {{Ext("t", {"10.0.0.1", ""}), Acl::LookupResult{}}};
        auto f = Facts("10.0.0.1");
        f.answers = &answers;
        CPPUNIT_ASSERT(list.check(f) == Acl::Answer::Denied);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestExternalNode);
