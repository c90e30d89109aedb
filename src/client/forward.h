/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the client part.

#pragma once

#include <memory>

namespace Client {
class Connection;
class Services;
class Side;
class DetachedFetch;
class Lookups;
struct Counters;
struct BumpState;
class LookupAnswers;
using ConnectionPtr = std::unique_ptr<Connection>;
} // namespace Client
