/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Errors::Templates: the ERR_* files of one `error_directory`.
///
/// Squid's template names and %-codes are kept, so Squid's own template sets
/// (for example Debian's /usr/share/squid/errors/en) work as an error_directory.
/// The directory is read once, at load(): every regular file whose name starts
/// with "ERR_" (and any other file a deny_info may name later through get()).
/// A known name whose file is missing, unreadable or empty falls back to a small
/// built-in page; that is logged once per name (cache.log section 4, level 1).

#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace Errors {

/// The error page templates of one error_directory (see the file comment).
class Templates {
public:
    /// No directory: every get() returns the built-in page.
    Templates() = default;
    /// Same as load(DIRECTORY).
    explicit Templates(const std::string& directory);

    /// Reads every ERR_* file of DIRECTORY, replacing what was loaded before.
    /// A missing or unreadable directory is logged (section 4, level 0) and
    /// leaves only built-in pages; nothing is thrown.
    void load(const std::string& directory);

    /// The template text for NAME ("ERR_ACCESS_DENIED"): the loaded file, or for
    /// a name not loaded a file of that name in the directory read now (a
    /// deny_info page), or the built-in fallback page (logged once per name).
    const std::string& get(const std::string& name) const;
    /// Whether NAME was loaded from a file (not a fallback).
    bool hasFile(const std::string& name) const;
    /// The directory given to load(), or "".
    const std::string& directory() const { return directory_; }
    /// The number of templates loaded from files.
    size_t size() const { return loaded_.size(); }

    /// Every template name Squid 5.7 ships (and cuttle's errors/templates has).
    static const std::vector<std::string>& KnownNames();
    /// The built-in page used when a template is missing.
    static const std::string& FallbackTemplate();

private:
    std::string directory_;                             ///< error_directory
    mutable std::map<std::string, std::string> loaded_; ///< name -> file text
    mutable std::set<std::string> missingLogged_;       ///< names already reported missing
};

} // namespace Errors
