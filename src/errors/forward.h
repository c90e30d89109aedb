/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the Errors namespace (error pages).
#pragma once

namespace Errors {

class Catalog;
class Templates;
struct PageContext;

} // namespace Errors
