/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the http part.

#pragma once

namespace Http {
class RequestParser;
class Url;
enum class Method;
enum class StatusCode : int;
enum class ParseResult;
enum class ParseError;
struct HeaderField;
} // namespace Http
