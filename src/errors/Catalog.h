/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Errors::Catalog: every error page of one configuration, by
/// language, and the choice of a page for one request (Squid 5.7's
/// errorpage.cc negotiation).
///
/// Without `error_directory` the page's language is negotiated from the
/// request's Accept-Language over the language directories installed in
/// Squid's tree (Debian's squid-langpack: `de/`, `ja/`, `de-ch -> de`, ...):
///
///     Accept-Language: xx, de-CH;q=0.9, en
///       "xx"    no directory: next tag (logged with error_log_languages)
///       "de-ch" a directory (a link to de/): the page, Content-Language: de-ch
///
/// Tags are taken in the order they are listed; q-values are not read (not
/// even q=0), a tag is lowercased and `_` read as `-`, a tag with any other
/// character than letters, `-` and `*` is skipped, `*` stops the search, and
/// there is no fallback from `de-xx` to `de` (Squid relies on the links the
/// language pack has). No match gives the default pages with
/// Content-Language `error_default_language` (or `en`). Every such reply
/// carries `Vary: Accept-Language`.
///
/// With `error_directory` there is no negotiation, no Content-Language and
/// no Vary. The default pages come, name by name, from the first of:
/// error_directory, the error_default_language directory, cuttle's own
/// templates, the tree's `templates/`; a name found nowhere is the
/// built-in page, and each is reported when the catalog is loaded.
///
/// deny_info pages of the admin's own (names outside Squid's ERR_* set)
/// are default pages: as in Squid, they are not negotiated.
///
/// Everything is read by load(), at (re)configure; choose() reads no file.

#pragma once

#include "errors/Templates.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace Errors {

/// Where a Catalog reads its pages (filled from squid.conf by the proxy).
struct CatalogSources {
    std::string errorDirectory;          ///< `error_directory`; empty: negotiate
    std::string defaultLanguage;         ///< `error_default_language`; empty: none
    bool logMissingLanguages = true;     ///< `error_log_languages`
    std::string stylesheet;              ///< `err_page_stylesheet`; empty or "none": no CSS
    std::string ownTemplates;            ///< cuttle's English templates
    std::string languagesRoot;           ///< Squid's tree: a directory per language, and templates/
    std::vector<std::string> extraNames; ///< deny_info pages besides Squid's ERR_* names
};

/// The page chosen for one reply; `text` is the catalog's, valid while it lives.
struct PageChoice {
    const std::string& text;     ///< the template
    std::string contentLanguage; ///< the Content-Language value; empty: no such field
    bool vary = false;           ///< whether to send `Vary: Accept-Language`
};

/// The tags of an Accept-Language value, as Squid 5.7 reads them (see the
/// file comment), in order; "*" is kept (the caller stops there).
std::vector<std::string> AcceptLanguageTags(std::string_view value);

/// Every error page of one configuration (see the file comment).
class Catalog {
public:
    /// Only built-in pages, as load() of empty sources: Content-Language en.
    Catalog() = default;

    /// Reads every page SOURCES names, replacing what was loaded before.
    /// Missing directories, templates and stylesheet are logged (section 4).
    void load(const CatalogSources& sources);

    /// The page NAME for a request whose Accept-Language is ACCEPT_LANGUAGE.
    PageChoice choose(const std::string& name, std::string_view acceptLanguage) const;

    /// The `err_page_stylesheet` file's text (the %l code), "" without one.
    const std::string& stylesheet() const { return stylesheet_; }
    /// The number of languages that can be negotiated (tags, links included).
    size_t languageCount() const { return byTag_.size(); }

private:
    bool negotiates_ = true;              ///< no error_directory
    std::string defaultLanguage_ = "en";  ///< Content-Language without a match
    bool logMissingLanguages_ = true;     ///< error_log_languages
    Templates defaults_;                  ///< the pages when no language is negotiated
    std::vector<Templates> languages_;    ///< one per language directory (links share one)
    std::map<std::string, size_t> byTag_; ///< tag -> index in languages_
    std::string stylesheet_;              ///< see stylesheet()
};

} // namespace Errors
