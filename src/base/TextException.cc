/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "base/TextException.h"

TextException::TextException(const std::string& message, const char* file, int line)
    : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + message), message_(message),
      file_(file), line_(line)
{}
