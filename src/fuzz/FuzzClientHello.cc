/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Tls::ParseClientHello() (tls/ClientHello.h),
/// which reads the first bytes SSL bump peeks at. Properties checked, for
/// any bytes:
/// - a server name found is lowercase printable ASCII without spaces;
/// - the parse reads nothing past MaxHelloBytes (the same answer for the
///   input cut there);
/// - once the answer is not NeedMore, more bytes after the input do not
///   change it (a hello split across reads gives the answer of the whole);
/// - the input cut in two answers NeedMore or the same as the whole.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "tls/ClientHello.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

bool Same(const Tls::ClientHello& a, const Tls::ClientHello& b)
{
    return a.status == b.status && a.serverName == b.serverName;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);
    const auto hello = Tls::ParseClientHello(text);
    for (const char c : hello.serverName) {
        const auto u = static_cast<unsigned char>(c);
        FUZZ_CHECK(u > 0x20 && u < 0x7f && !std::isupper(u));
    }
    if (!hello.serverName.empty())
        FUZZ_CHECK(hello.status == Tls::ClientHello::Status::Done);
    if (text.size() > Tls::MaxHelloBytes)
        FUZZ_CHECK(Same(hello, Tls::ParseClientHello(text.substr(0, Tls::MaxHelloBytes))));
    if (hello.status != Tls::ClientHello::Status::NeedMore) {
        const std::string longer = std::string(text) + std::string("\x16\x03\x01\x00\x01\x01", 6);
        FUZZ_CHECK(Same(hello, Tls::ParseClientHello(longer)));
    }
    const auto half = Tls::ParseClientHello(text.substr(0, text.size() / 2));
    FUZZ_CHECK(half.status == Tls::ClientHello::Status::NeedMore || Same(half, hello));
    return 0;
}
