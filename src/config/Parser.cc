/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Parser.h"
#include "config/Directives.h"
#include "config/Lexer.h"
#include "config/Loosening.h"
#include "config/SquidDirectives.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <unistd.h>

namespace {

/// Levenshtein distance of a and b, for "did you mean": the distance when
/// it is below bound, else bound (a row whose every cell reached bound ends
/// the work, so an unknown word costs a few rows per directive name)
size_t Distance(const std::string& a, const std::string& b, size_t bound)
{
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        size_t rowMin = cur[0];
        for (size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            rowMin = std::min(rowMin, cur[j]);
        }
        if (rowMin >= bound)
            return bound;
        std::swap(prev, cur);
    }
    return std::min(prev[b.size()], bound);
}

std::string CurrentDirectory()
{
    char buf[PATH_MAX];
    if (getcwd(buf, sizeof(buf)))
        return buf;
    return "/";
}

} // namespace

Config::Parser::Parser() : baseDirectory_(CurrentDirectory()), serviceName_(Lexer::DefaultServiceName) {}

// Squid 5.7 main.cc: "-n" takes 1 to 32 alphanumeric characters.
bool Config::Parser::IsValidServiceName(const std::string& name, std::string& why)
{
    if (name.empty()) {
        why = "a service name is required for the -n option";
        return false;
    }
    if (name.size() > 32) {
        why = "service name (-n option) must be limited to 32 characters but got " +
              std::to_string(name.size());
        return false;
    }
    for (const char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) {
            why = "garbage after alphanumeric service name in the -n option value: " + name;
            return false;
        }
    }
    return true;
}

bool Config::Parser::hasErrors() const
{
    return std::any_of(diagnostics_.begin(), diagnostics_.end(),
                       [](const Diagnostic& d) { return d.isError(); });
}

std::unique_ptr<Config::Settings> Config::Parser::parseFile(const std::string& path)
{
    return parse(&path, std::string(), path);
}

std::unique_ptr<Config::Settings> Config::Parser::parseText(const std::string& text,
                                                            const std::string& fileName)
{
    return parse(nullptr, text, fileName);
}

std::unique_ptr<Config::Settings> Config::Parser::parse(const std::string* path, const std::string& text,
                                                        const std::string& fileName)
{
    auto settings = read(path, text, fileName, nullptr);
    if (hostResolver_ && sawHostName_) {
        // the acl host names are resolved with the DNS settings of the
        // whole file, which the first reading learned
        const auto dns = std::move(settings);
        settings = read(path, text, fileName, dns.get());
    }
    if (hasErrors())
        return nullptr;
    return settings;
}

std::unique_ptr<Config::Settings> Config::Parser::read(const std::string* path, const std::string& text,
                                                       const std::string& fileName, const Settings* dns)
{
    diagnostics_.clear();
    seen_.clear();
    repeated_ = RepeatedWarnings();
    sawHostName_ = false;
    Lexer lexer(diagnostics_, baseDirectory_);
    lexer.setMacros(Lexer::StandardMacros(serviceName_, processNumber_, kidCount_));
    std::string why;
    if (!IsValidServiceName(serviceName_, why))
        diagnostics_.push_back(Diagnostic{Diagnostic::Level::Error, "-n " + serviceName_, 0, why});
    auto settings = std::make_unique<Settings>();
    settings->configFile = path ? lexer.resolve(*path) : fileName;

    Acl::IpNode::HostResolver resolveHost;
    if (hostResolver_ && dns) {
        resolveHost = [this, dns](const std::string& host, std::vector<Acl::Address>& addresses,
                                  std::string& reason) {
            return hostResolver_(host, *dns, addresses, reason);
        };
    } else if (hostResolver_) {
        resolveHost = [this](const std::string&, std::vector<Acl::Address>&, std::string&) {
            sawHostName_ = true;
            return true; // no addresses yet: this reading only learns the DNS settings
        };
    }
    const Lexer::LineHandler handler = [&](const Line& line) {
        dispatch(*settings, line, lexer, resolveHost ? &resolveHost : nullptr);
    };
    if (path)
        lexer.readFile(*path, handler);
    else
        lexer.readText(text, fileName, handler);
    applyDefaults(*settings, lexer);
    settings->serviceName = serviceName_;
    settings->processNumber = processNumber_;
    settings->rulesNeedDstAddress =
        settings->httpAccess.needsDstAddress() || settings->httpReplyAccess.needsDstAddress() ||
        settings->urlRewriteAccess.needsDstAddress() || settings->storeIdAccess.needsDstAddress() ||
        settings->adaptedHttpAccess.needsDstAddress();

    repeated_.finish(diagnostics_);
    return settings;
}

void Config::Parser::dispatch(Settings& settings, const Line& line, Lexer& lexer,
                              const Acl::IpNode::HostResolver* resolveHost)
{
    const std::string& written = line.words[0];
    if (const ObsoleteDirective* o = FindObsoleteDirective(written)) {
        // Squid 5.7: "ERROR: Directive 'NAME' is obsolete." and its advice;
        // it goes on, except for the fatal ones
        const std::string advice = *o->advice ? std::string(" (Squid 5.7: ") + o->advice + ")" : "";
        diagnostics_.push_back(
            Diagnostic{o->fatal ? Diagnostic::Level::Error : Diagnostic::Level::Warning, line.file, line.line,
                       "'" + written +
                           (o->fatal ? "' is obsolete, and Squid 5.7 refuses it too: remove it"
                                     : "' is obsolete in Squid 5.7 too: remove it") +
                           advice});
        return;
    }
    // an alias is parsed exactly as its target (its handler still sees the
    // name as written, for its messages)
    const char* target = SquidAliasTarget(written);
    const std::string name = target ? target : written;
    const std::string shown =
        target ? "'" + written + "' (Squid's old name of '" + name + "')" : "'" + name + "'";
    if (const Directive* d = FindDirective(name)) {
        if (std::find(seen_.begin(), seen_.end(), name) == seen_.end())
            seen_.push_back(name);
        DirectiveCall call{settings, line, lexer, diagnostics_, &repeated_, resolveHost};
        d->handler(call);
        std::string applied;
        for (const auto& word : line.words)
            applied += (applied.empty() ? "" : " ") + word;
        settings.appliedLines.push_back(std::move(applied));
        return;
    }
    const SquidOnlyRule* rule = FindSquidOnlyRule(name);
    const bool harmless =
        rule && rule->refused && IsHarmless(*rule, {line.words.begin() + 1, line.words.end()});
    if (rule && rule->refused && !harmless) {
        diagnostics_.push_back(
            Diagnostic{Diagnostic::Level::Error, line.file, line.line,
                       shown +
                           " is a Squid directive that cuttle does not implement, and "
                           "ignoring it could loosen access control or change where traffic goes (" +
                           rule->why + "): refusing it"});
        return;
    }
    if (IsSquidDirective(name)) {
        // a harmless line of a refused directive, or one whose row says why ignoring it is safe
        const std::string why = harmless ? std::string("; this line cannot loosen anything")
                                : rule   ? std::string(" (") + rule->why + ")"
                                         : std::string();
        repeated_.warn(diagnostics_, line, "directive " + name,
                       shown + " is a Squid directive that cuttle does not implement; ignoring it" + why);
        return;
    }
    constexpr size_t Shown = 64; // a hostile line may be megabytes long
    std::string reason =
        "unknown directive '" + (name.size() > Shown ? name.substr(0, Shown) + "..." : name) + "'";
    const std::string hint = suggest(name);
    if (!hint.empty())
        reason += " (did you mean '" + hint + "'?)";
    diagnostics_.push_back(Diagnostic{Diagnostic::Level::Error, line.file, line.line, reason});
}

void Config::Parser::applyDefaults(Settings& settings, Lexer& lexer)
{
    for (const auto& d : Directives()) {
        if (!d.defaultValue || std::find(seen_.begin(), seen_.end(), d.name) != seen_.end())
            continue;
        std::vector<Diagnostic> defaultDiagnostics;
        Lexer defaultLexer(defaultDiagnostics, lexer.resolve("."));
        std::vector<Line> lines;
        defaultLexer.readText(std::string(d.name) + " " + d.defaultValue, "(default)", lines);
        for (const auto& line : lines) {
            DirectiveCall call{settings, line, defaultLexer, defaultDiagnostics};
            d.handler(call);
        }
        for (auto& diag : defaultDiagnostics) {
            diag.reason = "built-in default of " + std::string(d.name) + ": " + diag.reason;
            diagnostics_.push_back(std::move(diag));
        }
    }
}

std::string Config::Parser::suggest(const std::string& word) const
{
    std::string best;
    size_t bestDistance = 3; // suggest only close names
    auto consider = [&](const std::string& candidate) {
        // the distance is at least the length difference: skip the O(n*m)
        // work for a word that cannot be close (a hostile 1 MB "directive")
        const size_t gap =
            word.size() > candidate.size() ? word.size() - candidate.size() : candidate.size() - word.size();
        if (gap >= bestDistance)
            return;
        const size_t d = Distance(word, candidate, bestDistance);
        if (d < bestDistance) {
            bestDistance = d;
            best = candidate;
        }
    };
    for (const auto& d : Directives())
        consider(d.name);
    for (size_t i = 0; const char* name = SquidDirectiveName(i); ++i)
        consider(name);
    for (const auto& a : SquidAliases())
        consider(a.alias);
    return best;
}
