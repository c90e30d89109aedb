/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::Diagnostic: one warning or error about a configuration line.

#pragma once

#include <string>

namespace Config {

/// One message about the configuration, tied to the file and line it is about.
struct Diagnostic {
    /// How bad it is: errors make `-k parse` fail and keep the old
    /// configuration on reconfigure; warnings do not.
    enum class Level { Warning, Error };

    Level level = Level::Error; ///< warning or error
    std::string file;           ///< the real file (an included one when the line is there)
    unsigned line = 0;          ///< first physical line of the logical line; 0 when about the whole file
    std::string reason;         ///< what is wrong, in words

    /// "FILE:LINE: reason" for errors, "FILE:LINE: WARNING: reason" for
    /// warnings; ":LINE" is left out when line is 0 (a file that cannot be opened).
    std::string format() const;

    /// Whether this is an error.
    bool isError() const { return level == Level::Error; }
};

} // namespace Config
