/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Catalog.h"
#include "log/CacheLog.h"

#include <climits>
#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>

namespace {

/// Squid reads at most this many characters of one tag (strHdrAcptLangGetItem()'s buffer).
constexpr size_t MaxTagLength = 255;

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/// Whether NAME could be a tag AcceptLanguageTags() returns (so a
/// directory named otherwise, "German", can never be negotiated).
bool isTagName(const std::string& name)
{
    if (name.empty() || name.size() > MaxTagLength)
        return false;
    for (const char c : name)
        if (c != '-' && (c < 'a' || c > 'z'))
            return false;
    return true;
}

bool isDirectory(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// The directories searched, for a log line: "A, B, C".
std::string joined(const std::vector<std::string>& directories)
{
    std::string out;
    for (const auto& d : directories)
        out += (out.empty() ? "" : ", ") + d;
    return out.empty() ? std::string("no directory") : out;
}

} // namespace

std::vector<std::string> Errors::AcceptLanguageTags(std::string_view value)
{
    // Squid 5.7's strHdrAcptLangGetItem(), with its --enable-http-violations '_'
    std::vector<std::string> tags;
    size_t pos = 0;
    while (pos < value.size()) {
        while (pos < value.size() && isSpace(value[pos]))
            ++pos;
        std::string tag;
        bool invalid = false;
        while (pos < value.size() && value[pos] != ';' && value[pos] != ',' && !isSpace(value[pos]) &&
               tag.size() < MaxTagLength) {
            if (!invalid) {
                char c = value[pos];
                if (c == '_')
                    c = '-';
                else if (c >= 'A' && c <= 'Z')
                    c = static_cast<char>(c - 'A' + 'a');
                if (c != '-' && c != '*' && (c < 'a' || c > 'z'))
                    invalid = true;
                else
                    tag += c;
            }
            ++pos;
        }
        // a q-value or anything else after the tag is skipped
        while (pos < value.size() && value[pos] != ',')
            ++pos;
        if (pos < value.size())
            ++pos;
        if (!tag.empty() && !invalid)
            tags.push_back(std::move(tag));
    }
    return tags;
}

void Errors::Catalog::load(const CatalogSources& sources)
{
    negotiates_ = sources.errorDirectory.empty();
    defaultLanguage_ = sources.defaultLanguage.empty() ? std::string("en") : sources.defaultLanguage;
    logMissingLanguages_ = sources.logMissingLanguages;

    // the default pages: Squid 5.7's TemplateFile::loadDefault() order
    std::vector<std::string> directories;
    if (!negotiates_) {
        if (!isDirectory(sources.errorDirectory))
            debugs(4, 0,
                   "ERROR: cannot read error_directory " << sources.errorDirectory
                                                         << "; using the default error pages");
        directories.push_back(sources.errorDirectory);
    }
    if (!sources.defaultLanguage.empty()) {
        const auto dir = sources.languagesRoot + "/" + sources.defaultLanguage;
        if (sources.languagesRoot.empty() || !isDirectory(dir))
            debugs(4, 0,
                   "ERROR: error_default_language " << sources.defaultLanguage << ": no directory " << dir);
        else
            directories.push_back(dir);
    }
    if (!sources.ownTemplates.empty()) {
        if (!isDirectory(sources.ownTemplates))
            debugs(4, 1,
                   "WARNING: no error templates of cuttle's own in " << sources.ownTemplates
                                                                     << " (not installed?)");
        directories.push_back(sources.ownTemplates);
    }
    if (!sources.languagesRoot.empty())
        directories.push_back(sources.languagesRoot + "/templates");
    auto names = Templates::KnownNames();
    names.insert(names.end(), sources.extraNames.begin(), sources.extraNames.end());
    for (const auto& name : defaults_.load(directories, names))
        debugs(4, 1,
               "WARNING: error page " << name << " is in none of " << joined(directories)
                                      << "; using a built-in page");

    languages_.clear();
    byTag_.clear();
    if (negotiates_ && !sources.languagesRoot.empty()) {
        if (DIR* dir = ::opendir(sources.languagesRoot.c_str())) {
            std::map<std::string, size_t> byRealPath; // de-ch -> de: one copy of the pages
            while (const dirent* entry = ::readdir(dir)) {
                const std::string tag = entry->d_name;
                if (!isTagName(tag))
                    continue;
                char real[PATH_MAX];
                if (!::realpath((sources.languagesRoot + "/" + tag).c_str(), real) || !isDirectory(real))
                    continue;
                auto [it, isNew] = byRealPath.emplace(real, languages_.size());
                if (isNew) {
                    Templates pages;
                    pages.load({real}, Templates::KnownNames());
                    if (pages.size() == 0) {
                        byRealPath.erase(it);
                        continue;
                    }
                    languages_.push_back(std::move(pages));
                }
                byTag_.emplace(tag, it->second);
            }
            ::closedir(dir);
        } else {
            debugs(4, 1,
                   "WARNING: no error page languages in " << sources.languagesRoot
                                                          << "; every error page is the default language's");
        }
    }

    stylesheet_.clear();
    if (!sources.stylesheet.empty() && sources.stylesheet != "none") {
        stylesheet_ = Templates::ReadFile(sources.stylesheet);
        if (stylesheet_.empty())
            debugs(4, 0,
                   "ERROR: cannot read err_page_stylesheet " << sources.stylesheet
                                                             << "; error pages get no stylesheet");
    }
    debugs(4, 2,
           "error pages: " << defaults_.size() << " default templates, " << byTag_.size() << " languages in "
                           << languages_.size() << " directories");
}

Errors::PageChoice Errors::Catalog::choose(const std::string& name, std::string_view acceptLanguage) const
{
    if (!negotiates_)
        return {defaults_.get(name), std::string(), false};
    if (Templates::IsKnownName(name)) {
        for (auto& tag : AcceptLanguageTags(acceptLanguage)) {
            if (tag == "*")
                break; // the default language
            if (const auto it = byTag_.find(tag); it != byTag_.end()) {
                if (const auto* text = languages_[it->second].find(name))
                    return {*text, std::move(tag), true};
            }
            if (logMissingLanguages_)
                debugs(4, 1, "WARNING: Error Pages Missing Language: " << tag);
        }
    }
    return {defaults_.get(name), defaultLanguage_, true};
}
