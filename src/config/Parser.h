/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::Parser: reads a squid.conf into a Settings snapshot.
///
/// The Lexer turns the file (and its includes) into logical lines; each
/// line's first word is looked up:
///
///   1. a directive of the table (Directives.h): its handler fills Settings;
///   2. a Squid 5.7 directive whose absence could loosen access control
///      (auth_param, http_reply_access, ssl_bump, ...): an error;
///   3. another Squid 5.7 directive: one warning per directive name (at its
///      first line, counting the later ones) and the lines are ignored;
///   4. anything else: an error ("unknown directive", with a suggestion).
///
/// Before that, a directive that Squid 5.7 reports as obsolete gets a
/// warning that says so (an error for the two Squid refuses), and one of
/// Squid 5.7's aliases (`cache_access_log`, SquidDirectives.h) is looked up
/// as the directive it stands for, so that it is parsed exactly as that one.
///
/// Then every directive that the file never set gets its default, parsed
/// from the table's text by the same handler. Errors never stop the parse:
/// every problem of the file is reported. A repeated single-valued
/// directive keeps its last value, as in Squid.
///
/// Relative paths (includes, logs, pid file, quoted files) are resolved
/// against the base directory: the current directory when the Parser is
/// made, unless setBaseDirectory() says otherwise.
///
/// The Lexer does Squid's preprocessing (`if`/`else`/`endif` and the
/// `${service_name}`, `${process_name}`, `${process_number}` and
/// `${kid_count}` macros, Lexer.h); the service name comes from
/// setServiceName() (`cuttle -n NAME`), "cuttle" by default; the process
/// number and kid count from setProcess() (one parse per worker).
///
/// Host names in address acls (`acl x dst www.example.com`) are resolved
/// while the line is read, as Squid does, by the resolver main.cc gives
/// (setHostResolver()), with the DNS settings of the file itself
/// (hosts_file, dns_nameservers, dns_timeout), wherever they are in it: a
/// file that names a host is read twice, the first time to learn them.

#pragma once

#include "config/Diagnostic.h"
#include "config/Directives.h"
#include "config/Settings.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace Config {

class Lexer;
struct Line;

/// Reads a configuration into a Settings snapshot, collecting diagnostics.
class Parser {
public:
    Parser();

    /// Parses the file at `path` and its includes; nullptr when there were errors.
    std::unique_ptr<Settings> parseFile(const std::string& path);

    /// Parses `text` as if it were the file `fileName` (for tests).
    std::unique_ptr<Settings> parseText(const std::string& text, const std::string& fileName);

    /// Every warning and error of the last parse, in file order.
    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

    /// Whether the last parse found an error.
    bool hasErrors() const;

    /// Sets the directory that relative paths are resolved against
    /// (main.cc passes the directory cuttle started in).
    void setBaseDirectory(const std::string& dir) { baseDirectory_ = dir; }

    /// The directory that relative paths are resolved against.
    const std::string& baseDirectory() const { return baseDirectory_; }

    /// Sets what `${service_name}` expands to (main.cc passes `-n NAME`).
    /// A name that IsValidServiceName() rejects makes every later parse
    /// fail with that reason.
    void setServiceName(const std::string& name) { serviceName_ = name; }

    /// What `${service_name}` expands to: Lexer::DefaultServiceName unless set.
    const std::string& serviceName() const { return serviceName_; }

    /// Sets what `${process_number}` (the worker, from 1) and `${kid_count}`
    /// (the workers) expand to; 1 and 1 unless set.
    void setProcess(unsigned number, unsigned count)
    {
        processNumber_ = number;
        kidCount_ = count;
    }

    /// Resolves a host name of an address acl to its addresses with the DNS
    /// settings of `dns` (a whole configuration, defaults applied); false
    /// with `why` when the name has none.
    using HostResolver = std::function<bool(const std::string& host, const Settings& dns,
                                            std::vector<Acl::Address>& addresses, std::string& why)>;

    /// Sets the resolver of acl host names; without one they make their acl
    /// unsupported (an http_access line that uses it is an error).
    void setHostResolver(HostResolver resolver) { hostResolver_ = std::move(resolver); }

    /// Squid's rule for `-n NAME`: 1 to 32 letters and digits. False, with
    /// `why` (Squid's words), otherwise.
    static bool IsValidServiceName(const std::string& name, std::string& why);

private:
    std::unique_ptr<Settings> parse(const std::string* path, const std::string& text,
                                    const std::string& fileName);
    /// One reading of the file; acl host names are resolved with `dns`'s
    /// DNS settings, or only noted (sawHostName_) when it is null.
    std::unique_ptr<Settings> read(const std::string* path, const std::string& text,
                                   const std::string& fileName, const Settings* dns);
    void dispatch(Settings& settings, const Line& line, Lexer& lexer,
                  const Acl::IpNode::HostResolver* resolveHost);
    void applyDefaults(Settings& settings, Lexer& lexer);
    std::string suggest(const std::string& word) const;

    std::vector<Diagnostic> diagnostics_; ///< of the last parse
    std::string baseDirectory_;           ///< absolute
    std::string serviceName_;             ///< `${service_name}`
    unsigned processNumber_ = 1;          ///< `${process_number}`
    unsigned kidCount_ = 1;               ///< `${kid_count}`
    std::vector<std::string> seen_;       ///< table directives the file set
    /// once-per-key warnings: ignored Squid directives, unimplemented acl types
    RepeatedWarnings repeated_;
    HostResolver hostResolver_; ///< see setHostResolver()
    bool sawHostName_ = false;  ///< the last read() met an acl host name
};

} // namespace Config
