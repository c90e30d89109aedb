/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the helper part (Squid's helper protocol).

#pragma once

namespace Helper {
class Child;
class Pool;
class Reaper;
class Ticket;
struct Note;
struct Options;
struct Reply;
enum class Failure;
enum class OnTimeout;
enum class Result;
} // namespace Helper
