/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The names of Squid 5.7's directives, so that the parser can tell a
/// Squid directive cuttle does not implement (a warning, or an error where
/// ignoring it could loosen access control) from a typo (an error).

#pragma once

#include <cstddef>
#include <string>

namespace Config {

/// Whether `name` is a directive of Squid 5.7 (squid.conf.documented's TAG list).
bool IsSquidDirective(const std::string& name);

/// Number of Squid 5.7 directive names known.
size_t SquidDirectiveCount();

/// The i-th known Squid directive name in sorted order, or nullptr past the end.
const char* SquidDirectiveName(size_t i);

} // namespace Config
