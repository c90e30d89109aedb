/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Generate.h"
#include "config/Loosening.h"
#include "config/Lexer.h"
#include "config/SquidDirectives.h"
#include "config/Units.h"

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// Wraps a paragraph at about 72 columns, each line starting with `prefix`.
std::string Wrap(const std::string& text, const std::string& prefix)
{
    std::istringstream in(text);
    std::string word, line, out;
    while (in >> word) {
        if (!line.empty() && line.size() + 1 + word.size() > 72) {
            out += prefix + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty())
        out += prefix + line + "\n";
    return out;
}

std::string DefaultShown(const Config::Directive& d)
{
    if (d.defaultShown)
        return d.defaultShown;
    return d.defaultValue ? d.defaultValue : "";
}

/// A markdown table cell: `|` would end the cell, even inside code.
std::string Cell(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += '\\';
        out += c;
    }
    return out;
}

/// `a`, `b`, `c`
std::string CodeList(const std::vector<std::string>& words)
{
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "`" : ", `") + w + "`";
    return out;
}

std::string UnitList()
{
    std::string sizes, times;
    for (const auto& u : Config::Units::SizeUnitNames())
        sizes += (sizes.empty() ? "" : ", ") + u;
    for (const auto& u : Config::Units::TimeUnitNames())
        times += (times.empty() ? "" : ", ") + u + "(s)";
    return "Sizes are a number and a unit as two words (64 KB); units: " + sizes +
           ". A size without a unit is taken as bytes, with a warning. Times are a number and a unit (30 "
           "seconds); "
           "units: " +
           times + ". A time without a unit is an error, as in Squid 5.7.";
}

const char* const Intro = "cuttle reads Squid's squid.conf. A directive of Squid 5.7 that cuttle does not "
                          "implement gets one warning "
                          "and is ignored, except where ignoring it could loosen access control or change "
                          "where traffic goes: those are errors (doc/directives.md lists them). Squid's "
                          "aliases (cache_access_log, max_filedesc, ...) are parsed as the directives they "
                          "stand for; a directive Squid 5.7 reports as obsolete gets a warning that says so. "
                          "A word "
                          "that is neither Squid's nor cuttle's, or a bad value, is an error reported as "
                          "FILE:LINE: reason; `cuttle -k "
                          "parse -f FILE` reports every error of the file. Relative paths (include, log "
                          "files, pid file, quoted files) "
                          "are resolved against the directory cuttle starts in. When a single-valued "
                          "directive is repeated, the last "
                          "line wins.";

/// Squid's preprocessor as cuttle does it (Lexer.h), with the macro values from the Lexer.
std::string Preprocessor()
{
    std::string macros;
    for (const auto& [name, value] : Config::Lexer::StandardMacros())
        macros += (macros.empty() ? "" : ", ") + std::string("${") + name + "} is " + value;
    return "Conditional configuration and macros work as in Squid 5.7: lines between `if CONDITION` and "
           "`else` or `endif` (each alone on its line) are kept when CONDITION is true; a condition is "
           "true, false or INTEGER = INTEGER. Blocks nest; an else or endif without its if, or an if "
           "left open at the end of its file, is an error. Unlike Squid 5.7, a block inside a dropped "
           "block is dropped too (with a warning where Squid would keep it), and `else if` is an error. "
           "Macros are replaced in every kept line and condition: " +
           macros +
           " (cuttle runs one process, which does the work of Squid's kid 1; `${service_name}` comes from "
           "`cuttle -n NAME` and is \"" +
           Config::Lexer::DefaultServiceName +
           "\" without it, where Squid's is \"squid\"; `${kid_count}` is cuttle's). An unknown ${name} is "
           "an error.";
}

/// the text written to out; throws when a write failed (a null string
/// streamed sets badbit and silently drops everything after it)
std::string Finished(const std::ostringstream& out)
{
    if (!out)
        throw std::logic_error("a row of the directive table could not be written (a null string?)");
    return out.str();
}

} // namespace

std::string Config::GenerateSquidConf(const StateLayout& layout)
{
    std::ostringstream out;
    out << "#\tWELCOME TO CUTTLE\n"
           "#\t-----------------\n"
           "#\n"
           "# Generated from cuttle's directive table by gen-squid-conf; do not edit:\n"
           "# change src/config/Directives.cc and run `make regen-config-docs`.\n"
           "#\n"
        << Wrap(Intro, "# ") << "#\n"
        << Wrap(UnitList(), "# ") << "#\n"
        << Wrap(Preprocessor(), "# ") << "#\n"
        << "# The active lines come first; then every directive, commented out,\n"
           "# with its documentation and default.\n\n";
    out << Config::RecommendedConfig(layout) << "\n";
    out << "# ---------------------------------------------------------------------\n"
           "# Every directive cuttle implements\n"
           "# ---------------------------------------------------------------------\n\n";
    for (const auto& d : Config::Directives()) {
        out << "#  TAG: " << d.name << "\n";
        out << "#\t" << d.name << " " << d.syntax << "\n#\n";
        out << Wrap(d.doc, "#\t");
        out << "#Default:\n";
        if (d.defaultValue || d.defaultShown)
            out << "# " << d.name << " " << DefaultShown(d) << "\n";
        else
            out << "# none\n";
        out << "\n";
    }
    return Finished(out);
}

std::string Config::GenerateDirectivesMarkdown()
{
    std::ostringstream out;
    out << "# squid.conf directives\n\n"
           "<!-- Generated from cuttle's directive table by gen-squid-conf; do not edit: change "
           "src/config/Directives.cc and run `make regen-config-docs`. -->\n\n"
        << Wrap(Intro, "") << "\n"
        << Wrap(UnitList(), "") << "\n"
        << Wrap(Preprocessor(), "") << "\n"
        << "Defaults that depend on the build are shown with the installation directories of `configure` "
           "(`$(localstatedir)`, `$(runstatedir)`, `$(pkgdatadir)`).\n\n"
        << "| directive | syntax | default | Settings field |\n|---|---|---|---|\n";
    for (const auto& d : Config::Directives()) {
        const std::string def = DefaultShown(d);
        out << "| [`" << d.name << "`](#" << d.name << ") | `" << Cell(d.syntax) << "` | "
            << (def.empty() ? "none" : "`" + Cell(def) + "`") << " | `" << d.field << "` |\n";
    }
    out << "\n";
    for (const auto& d : Config::Directives()) {
        const std::string def = DefaultShown(d);
        out << "## " << d.name << "\n\n"
            << "    " << d.name << " " << d.syntax << "\n\n"
            << Wrap(d.doc, "") << "\n"
            << "Default: " << (def.empty() ? "none" : std::string("`") + d.name + " " + def + "`") << "\n\n";
        const auto aliases = Config::SquidAliasesOf(d.name);
        if (!aliases.empty())
            out << "Aliases (Squid 5.7's old names, parsed as this directive): " << CodeList(aliases)
                << ".\n\n";
    }
    out << "## Squid directives that are errors\n\n"
           "cuttle refuses a configuration that uses one of these Squid directives, because ignoring it "
           "could loosen access control:\n\n";
    for (const auto& r : Config::SquidOnlyRules()) {
        if (!r.refused)
            continue;
        out << "- `" << r.name << "`: " << r.why << ".";
        if (r.harmless) {
            std::string forms, form;
            std::istringstream in(r.harmless);
            while (std::getline(in, form, '|'))
                forms += (forms.empty() ? "`" : " or `") + std::string(r.name) + " " + form + "`";
            out << " Accepted, with a warning, in the form that cannot loosen anything: " << forms << ".";
        }
        out << "\n";
    }
    out << "\nSo are `http_port` options that change the port's meaning (ssl-bump, "
           "tproxy, accel, vhost, vport, defaultsite, require-proxy-header) and any `http_access` line that "
           "names an undefined acl or an acl of a type cuttle does not implement.\n";
    out << "\n## Squid directives ignored on purpose\n\n"
           "These Squid directives look as if ignoring them could loosen something, but it cannot; cuttle "
           "ignores them with a warning that gives the reason:\n\n";
    for (const auto& r : Config::SquidOnlyRules())
        if (!r.refused)
            out << "- `" << r.name << "`: " << r.why << ".\n";
    out << "\nEvery other Squid 5.7 directive cuttle does not implement tunes, logs, caches or opens a "
           "service "
           "cuttle does not run (ICP, HTCP, SNMP, ftp_port): ignoring it changes no access "
           "decision and no destination.\n";
    out << "\n## Squid's aliases\n\n"
           "Squid 5.7 still accepts these old names; cuttle parses each exactly as the directive it stands "
           "for (an error, a warning or a setting, as that directive is):\n\n"
           "| alias | directive |\n|---|---|\n";
    for (const auto& a : Config::SquidAliases())
        out << "| `" << a.alias << "` | `" << a.target << "` |\n";
    out << "\n## Obsolete Squid directives\n\n"
           "Squid 5.7 reports these as obsolete (\"ERROR: Directive 'NAME' is obsolete.\") and goes on; "
           "cuttle "
           "warns that they are obsolete in Squid 5.7 too. Squid 5.7 refuses `log_access` and `log_icap`, "
           "and "
           "so does cuttle.\n\n"
           "| directive | Squid 5.7's advice |\n|---|---|\n";
    for (const auto& o : Config::ObsoleteDirectives())
        out << "| `" << o.name << "` | " << (*o.advice ? Cell(o.advice) : "none") << " |\n";
    return Finished(out);
}
