/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Errors::Templates: the ERR_* pages of one language (or of the
/// pages used when none is negotiated), read once from a list of directories.
///
/// Squid's template names and %-codes are kept, so Squid's own template sets
/// (Debian's /usr/share/squid-langpack/de, ...) work as they are. Each name
/// is read from the first directory that has it as a readable, non-empty
/// file, as Squid 5.7 looks in error_directory, then in the default
/// language's directory, then in its templates (doc/design.md "Error pages").
/// Nothing is read after load(): get() never touches the disk.

#pragma once

#include <map>
#include <string>
#include <vector>

namespace Errors {

/// The error page templates of one language (see the file comment).
class Templates {
public:
    /// No pages: every get() returns the built-in page.
    Templates() = default;
    /// Same as load({DIRECTORY}, KnownNames()).
    explicit Templates(const std::string& directory);

    /// Reads each of NAMES from the first of DIRECTORIES that has it,
    /// replacing what was loaded before. Returns the names found nowhere.
    std::vector<std::string> load(const std::vector<std::string>& directories,
                                  const std::vector<std::string>& names);

    /// The text of NAME, or nullptr when no directory had it.
    const std::string* find(const std::string& name) const;
    /// The text of NAME, or the built-in page when no directory had it.
    const std::string& get(const std::string& name) const;
    /// Whether NAME was loaded from a file (not a fallback).
    bool hasFile(const std::string& name) const { return find(name) != nullptr; }
    /// The number of templates loaded from files.
    size_t size() const { return loaded_.size(); }

    /// Every template name Squid 5.7 ships (and cuttle's errors/templates has).
    static const std::vector<std::string>& KnownNames();
    /// Whether NAME is one of KnownNames() (not a deny_info page of the admin's).
    static bool IsKnownName(const std::string& name);
    /// The built-in page used when a template is missing.
    static const std::string& FallbackTemplate();
    /// The text of a regular, non-empty file, or "" when it cannot be read.
    static std::string ReadFile(const std::string& path);

private:
    std::map<std::string, std::string> loaded_; ///< name -> file text
};

} // namespace Errors
