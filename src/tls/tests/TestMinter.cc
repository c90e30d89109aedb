/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Minter.h"
#include "tls/tests/TestPeer.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <string>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace {

/// a bump CA in PEM files (the certificate, its key after it)
struct CaFiles {
    TlsTest::Identity ca = TlsTest::MakeCa();
    std::string path = TlsTest::WritePem(ca.cert.get());
    CaFiles()
    {
        FILE* file = std::fopen(path.c_str(), "a");
        PEM_write_PrivateKey(file, ca.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
        std::fclose(file);
    }
    ~CaFiles() { std::remove(path.c_str()); }
    Tls::MinterRef make(uint64_t cacheBytes = 4 << 20)
    {
        Tls::MinterOptions options;
        options.caCertFile = path;
        options.cacheBytes = cacheBytes;
        std::string why;
        auto minter = Tls::Minter::Make(options, why);
        CPPUNIT_ASSERT_MESSAGE(why, minter != nullptr);
        return minter;
    }
};

/// whether a client that trusts ca alone accepts cert (the chain only, not its name)
bool TrustedBy(X509* cert, X509* ca)
{
    std::unique_ptr<X509_STORE, Tls::Free<X509_STORE, X509_STORE_free>> store(X509_STORE_new());
    std::unique_ptr<X509_STORE_CTX, Tls::Free<X509_STORE_CTX, X509_STORE_CTX_free>> ctx(X509_STORE_CTX_new());
    return store && ctx && X509_STORE_add_cert(store.get(), ca) == 1 &&
           X509_STORE_CTX_init(ctx.get(), store.get(), cert, nullptr) == 1 &&
           X509_verify_cert(ctx.get()) == 1;
}

/// the CN of name
std::string Cn(const X509_NAME* name)
{
    char text[128] = {};
    X509_NAME_get_text_by_NID(const_cast<X509_NAME*>(name), NID_commonName, text, sizeof(text));
    return text;
}

using Signer = Tls::MintSpec::Signer;

/// the certificate minter shows for origin.test, mimicking origin, signed by signer
X509* Minted(Tls::Minter& minter, X509* origin, Signer signer)
{
    Tls::MintSpec spec;
    spec.signer = signer;
    SSL_CTX* ctx = minter.contextFor("origin.test", origin, spec);
    CPPUNIT_ASSERT(ctx);
    return SSL_CTX_get0_certificate(ctx);
}

} // namespace

/// Tls::Minter: certificates the CA verifies, for the asked name only, and
/// the bounded cache of them; the signers and adaptations of MintSpec.
class TestMinter : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestMinter);
    CPPUNIT_TEST(mintedCertificateVerifiesForItsName);
    CPPUNIT_TEST(addressGetsAnIpName);
    CPPUNIT_TEST(secondContextIsCached);
    CPPUNIT_TEST(cacheStaysWithinItsBytes);
    CPPUNIT_TEST(mimicCopiesTheOriginsNamesAndValidity);
    CPPUNIT_TEST(nameThatWouldAddNamesIsRefused);
    CPPUNIT_TEST(certificateThatIsNoCaIsRefused);
    CPPUNIT_TEST(untrustedSignerIsNotTheCa);
    CPPUNIT_TEST(selfSignedNamesItselfIssuer);
    CPPUNIT_TEST(adaptationsTakeTheCasValidityAndTheGivenName);
    CPPUNIT_TEST(specIsPartOfTheCacheKey);
    CPPUNIT_TEST_SUITE_END();

public:
    void mintedCertificateVerifiesForItsName()
    {
        CaFiles files;
        auto minter = files.make();
        CPPUNIT_ASSERT(minter->contextFor("www.example.test"));
        X509* cert = minter->cachedCertificate("www.example.test");
        CPPUNIT_ASSERT(cert);
        CPPUNIT_ASSERT_EQUAL(1, X509_check_host(cert, "www.example.test", 0, 0, nullptr));
        CPPUNIT_ASSERT(X509_check_host(cert, "other.example.test", 0, 0, nullptr) != 1);
        CPPUNIT_ASSERT_EQUAL(1, X509_verify(cert, X509_get0_pubkey(files.ca.cert.get())));
        CPPUNIT_ASSERT_EQUAL(EVP_PKEY_EC, EVP_PKEY_base_id(X509_get0_pubkey(cert)));
    }

    void addressGetsAnIpName()
    {
        CaFiles files;
        auto minter = files.make();
        CPPUNIT_ASSERT(minter->contextFor("127.0.0.1"));
        CPPUNIT_ASSERT_EQUAL(1, X509_check_ip_asc(minter->cachedCertificate("127.0.0.1"), "127.0.0.1", 0));
    }

    void secondContextIsCached()
    {
        CaFiles files;
        auto minter = files.make();
        SSL_CTX* first = minter->contextFor("a.test");
        CPPUNIT_ASSERT(first);
        CPPUNIT_ASSERT(first == minter->contextFor("a.test"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), minter->mintedCount());
    }

    void cacheStaysWithinItsBytes()
    {
        CaFiles files;
        auto minter = files.make(16 * 1024);
        for (int i = 0; i < 100; ++i)
            CPPUNIT_ASSERT(minter->contextFor("host" + std::to_string(i) + ".test"));
        CPPUNIT_ASSERT(minter->bytes() <= 16 * 1024);
        CPPUNIT_ASSERT(minter->size() >= 3);
        // the newest are kept, the oldest went
        CPPUNIT_ASSERT(minter->cachedCertificate("host99.test"));
        CPPUNIT_ASSERT(!minter->cachedCertificate("host0.test"));
        // a used one is kept longest
        minter->contextFor("host97.test");
        const auto kept = minter->size();
        for (size_t i = 0; i + 1 < kept; ++i)
            minter->contextFor("new" + std::to_string(i) + ".test");
        CPPUNIT_ASSERT(minter->cachedCertificate("host97.test"));
    }

    void mimicCopiesTheOriginsNamesAndValidity()
    {
        CaFiles files;
        auto minter = files.make();
        auto origin = TlsTest::MakeLeaf("cdn.example.test", &files.ca, -2, 20);
        SSL_CTX* mimic = minter->contextFor("www.example.test", origin.cert.get());
        CPPUNIT_ASSERT(mimic);
        X509* cert = SSL_CTX_get0_certificate(mimic);
        CPPUNIT_ASSERT_EQUAL(1, X509_check_host(cert, "cdn.example.test", 0, 0, nullptr));
        CPPUNIT_ASSERT(X509_check_host(cert, "www.example.test", 0, 0, nullptr) != 1);
        CPPUNIT_ASSERT_EQUAL(
            0, ASN1_TIME_compare(X509_get0_notBefore(cert), X509_get0_notBefore(origin.cert.get())));
        CPPUNIT_ASSERT_EQUAL(
            0, ASN1_TIME_compare(X509_get0_notAfter(cert), X509_get0_notAfter(origin.cert.get())));
        // apart from the certificate minted for the name alone
        CPPUNIT_ASSERT(minter->contextFor("www.example.test") != mimic);
        CPPUNIT_ASSERT(minter->contextFor("www.example.test", origin.cert.get()) == mimic);
    }

    void nameThatWouldAddNamesIsRefused()
    {
        CaFiles files;
        auto minter = files.make();
        CPPUNIT_ASSERT(!minter->contextFor("a.test,DNS:bank.test"));
        CPPUNIT_ASSERT(!minter->contextFor("*.test"));
        CPPUNIT_ASSERT(!minter->contextFor(""));
    }

    void certificateThatIsNoCaIsRefused()
    {
        CaFiles files;
        auto leaf = TlsTest::MakeLeaf("leaf.test", &files.ca);
        const auto path = TlsTest::WritePem(leaf.cert.get());
        FILE* file = std::fopen(path.c_str(), "a");
        PEM_write_PrivateKey(file, leaf.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
        std::fclose(file);
        Tls::MinterOptions options;
        options.caCertFile = path;
        std::string why;
        CPPUNIT_ASSERT(!Tls::Minter::Make(options, why));
        CPPUNIT_ASSERT(why.find("not a CA") != std::string::npos);
        std::remove(path.c_str());
    }

    void untrustedSignerIsNotTheCa()
    {
        CaFiles files;
        auto minter = files.make();
        auto origin = TlsTest::MakeLeaf("origin.test", nullptr);
        CPPUNIT_ASSERT(TrustedBy(Minted(*minter, origin.cert.get(), Signer::Trusted), files.ca.cert.get()));
        X509* cert = Minted(*minter, origin.cert.get(), Signer::Untrusted);
        CPPUNIT_ASSERT(!TrustedBy(cert, files.ca.cert.get()));
        CPPUNIT_ASSERT(X509_verify(cert, X509_get0_pubkey(files.ca.cert.get())) != 1);
        // signed by the untrusted CA, named as Squid names it
        X509* signer = minter->untrustedCa();
        CPPUNIT_ASSERT(signer);
        CPPUNIT_ASSERT(TrustedBy(cert, signer));
        CPPUNIT_ASSERT_EQUAL(std::string("Not trusted by \"cuttle unit test CA\""),
                             Cn(X509_get_subject_name(signer)));
        CPPUNIT_ASSERT_EQUAL(0, X509_NAME_cmp(X509_get_issuer_name(cert), X509_get_subject_name(signer)));
        CPPUNIT_ASSERT(X509_check_ca(signer) != 0);
        CPPUNIT_ASSERT(!TrustedBy(signer, files.ca.cert.get()));
        CPPUNIT_ASSERT_EQUAL(1, X509_check_host(cert, "origin.test", 0, 0, nullptr));
    }

    void selfSignedNamesItselfIssuer()
    {
        CaFiles files;
        auto minter = files.make();
        auto origin = TlsTest::MakeLeaf("origin.test", nullptr);
        X509* cert = Minted(*minter, origin.cert.get(), Signer::Self);
        CPPUNIT_ASSERT(!TrustedBy(cert, files.ca.cert.get()));
        CPPUNIT_ASSERT_EQUAL(0, X509_NAME_cmp(X509_get_issuer_name(cert), X509_get_subject_name(cert)));
        CPPUNIT_ASSERT_EQUAL(1, X509_verify(cert, X509_get0_pubkey(cert)));
        CPPUNIT_ASSERT_EQUAL(std::string("origin.test"), Cn(X509_get_subject_name(cert)));
    }

    void adaptationsTakeTheCasValidityAndTheGivenName()
    {
        CaFiles files;
        auto minter = files.make();
        auto origin = TlsTest::MakeLeaf("cdn.example.test", &files.ca, -2, 20);
        X509* ca = files.ca.cert.get();
        Tls::MintSpec spec;
        spec.caNotAfter = true;
        X509* cert =
            SSL_CTX_get0_certificate(minter->contextFor("www.example.test", origin.cert.get(), spec));
        CPPUNIT_ASSERT_EQUAL(0, ASN1_TIME_compare(X509_get0_notAfter(cert), X509_get0_notAfter(ca)));
        CPPUNIT_ASSERT_EQUAL(
            0, ASN1_TIME_compare(X509_get0_notBefore(cert), X509_get0_notBefore(origin.cert.get())));
        spec = Tls::MintSpec();
        spec.caNotBefore = true;
        spec.commonName = "www.example.test";
        cert = SSL_CTX_get0_certificate(minter->contextFor("www.example.test", origin.cert.get(), spec));
        CPPUNIT_ASSERT_EQUAL(0, ASN1_TIME_compare(X509_get0_notBefore(cert), X509_get0_notBefore(ca)));
        CPPUNIT_ASSERT_EQUAL(
            0, ASN1_TIME_compare(X509_get0_notAfter(cert), X509_get0_notAfter(origin.cert.get())));
        CPPUNIT_ASSERT_EQUAL(std::string("www.example.test"), Cn(X509_get_subject_name(cert)));
        CPPUNIT_ASSERT_EQUAL(1, X509_check_host(cert, "www.example.test", 0, 0, nullptr));
        CPPUNIT_ASSERT(X509_check_host(cert, "cdn.example.test", 0, 0, nullptr) != 1);
        CPPUNIT_ASSERT(TrustedBy(cert, ca));
        // a name that would add names is refused there too
        spec.commonName = "a.test,DNS:bank.test";
        CPPUNIT_ASSERT(!minter->contextFor("www.example.test", origin.cert.get(), spec));
    }

    void specIsPartOfTheCacheKey()
    {
        CaFiles files;
        auto minter = files.make();
        auto origin = TlsTest::MakeLeaf("origin.test", &files.ca);
        Tls::MintSpec self;
        self.signer = Signer::Self;
        Tls::MintSpec named;
        named.commonName = "origin.test";
        SSL_CTX* plain = minter->contextFor("origin.test", origin.cert.get());
        SSL_CTX* selfSigned = minter->contextFor("origin.test", origin.cert.get(), self);
        SSL_CTX* renamed = minter->contextFor("origin.test", origin.cert.get(), named);
        CPPUNIT_ASSERT(plain && selfSigned && renamed);
        CPPUNIT_ASSERT(plain != selfSigned && plain != renamed && selfSigned != renamed);
        CPPUNIT_ASSERT(selfSigned == minter->contextFor("origin.test", origin.cert.get(), self));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), minter->mintedCount());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestMinter);
