/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file measureMint: the CPU time Tls::Minter takes to mint one host
/// certificate (a cache miss), for an ECDSA P-256 and an RSA-2048 bump CA
/// and host key. A program, not a test (doc/design.md "TLS"): it prints
/// microseconds per certificate.

#include "cuttle.h"
#include "tls/Minter.h"
#include "tls/tests/TestPeer.h"

#include <cstdio>
#include <ctime>
#include <string>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace {

double CpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

/// a CA with a key of the given kind, written with its key to a file
std::string CaFile(bool rsa)
{
    TlsTest::KeyPtr key(rsa ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256"));
    auto ca = TlsTest::MakeCa();
    X509_set_pubkey(ca.cert.get(), key.get());
    X509_sign(ca.cert.get(), key.get(), EVP_sha256());
    const auto path = TlsTest::WritePem(ca.cert.get());
    FILE* file = std::fopen(path.c_str(), "a");
    PEM_write_PrivateKey(file, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(file);
    return path;
}

void Measure(bool rsaCa, bool rsaKeys)
{
    const auto path = CaFile(rsaCa);
    Tls::MinterOptions options;
    options.caCertFile = path;
    options.rsaKeys = rsaKeys;
    std::string why;
    const double made = CpuSeconds();
    auto minter = Tls::Minter::Make(options, why);
    const double start = CpuSeconds();
    constexpr int Count = 500;
    for (int i = 0; i < Count; ++i) {
        if (!minter || !minter->contextFor("host" + std::to_string(i) + ".example.test")) {
            std::printf("minting failed: %s\n", why.c_str());
            return;
        }
    }
    const double each = (CpuSeconds() - start) / Count * 1e6;
    std::printf("CA %s, host key %s: %.0f us CPU per minted certificate (the key pairs and the untrusted CA, "
                "once: %.0f us)\n",
                rsaCa ? "RSA-2048" : "ECDSA P-256", rsaKeys ? "RSA-2048" : "ECDSA P-256", each,
                (start - made) * 1e6);
    std::remove(path.c_str());
}

} // namespace

int main()
{
    Measure(false, false);
    Measure(false, true);
    Measure(true, false);
    Measure(true, true);
    return 0;
}
