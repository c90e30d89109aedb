/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The names of TLS certificate errors, as Squid 5.7 names them: the
/// one table that the ssl_error acl (src/acl) and the ERR_SECURE_CONNECT_FAIL
/// page's %x (src/tls) share, so that a name an acl accepts is a name a
/// failure can have. The codes are OpenSSL's X509_V_ERR_* values and Squid's
/// own codes above them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// Squid's codes beside OpenSSL's (its security/forward.h and ssl/ErrorDetail.h).
enum SquidTlsError {
    SquidX509VErrInfiniteValidation = 98, ///< SQUID_X509_V_ERR_INFINITE_VALIDATION
    SquidX509VErrCertChange = 99,         ///< SQUID_X509_V_ERR_CERT_CHANGE
    SquidErrSslHandshake = 100,           ///< SQUID_ERR_SSL_HANDSHAKE
    SquidX509VErrDomainMismatch =
        101,                  ///< SQUID_X509_V_ERR_DOMAIN_MISMATCH: the name checked against the host
    SquidTlsErrAccept = 2000, ///< SQUID_TLS_ERR_ACCEPT
    SquidTlsErrConnect = 2001 ///< SQUID_TLS_ERR_CONNECT: a handshake with an origin failed
};

/// Squid's name of error `code` ("X509_V_ERR_CERT_HAS_EXPIRED"); an unknown
/// code is named by its number
std::string TlsErrorName(int code);

/// The codes a name stands for in an ssl_error acl: one code, or several
/// for Squid's shortcuts (ssl::certHasExpired, ssl::certNotYetValid,
/// ssl::certDomainMismatch, ssl::certUntrusted, ssl::certSelfSigned);
/// nullopt for an unknown name.
std::optional<std::vector<int>> TlsErrorCodes(std::string_view name);
