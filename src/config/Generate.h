/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The texts made from the directive table: squid.conf.default and
/// doc/directives.md (printed by gen-squid-conf, checked by the tests).

#pragma once

#include "config/Directives.h"

#include <string>

namespace Config {

/// squid.conf.default: the recommended active lines with logs and pid under
/// `layout`, then every directive commented out with its documentation and
/// default, as Squid's squid.conf.documented.
std::string GenerateSquidConf(const StateLayout& layout);

/// doc/directives.md: the reference of every directive.
std::string GenerateDirectivesMarkdown();

} // namespace Config
