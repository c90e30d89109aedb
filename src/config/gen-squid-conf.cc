/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file gen-squid-conf: prints squid.conf.default or doc/directives.md from
/// the directive table (Config::Directives()).
///
///   gen-squid-conf [--conf] [--state-dir DIR | --log-dir DIR --run-dir DIR]
///   gen-squid-conf --markdown
///
/// `make regen-config-docs` rewrites the committed copies; a system test
/// fails when they differ from this program's output.

#include "cuttle.h"
#include "config/Generate.h"

#include <exception>
#include <iostream>

namespace {

int Usage()
{
    std::cerr << "usage: gen-squid-conf [--conf] [--state-dir DIR | --log-dir DIR --run-dir DIR] "
                 "       gen-squid-conf --markdown\n";
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    bool markdown = false;
    Config::StateLayout layout;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--markdown") {
            markdown = true;
        } else if (arg == "--conf") {
            markdown = false;
        } else if (arg == "--state-dir" && hasValue) {
            const std::string dir = argv[++i];
            layout.logDir = dir + "/log";
            layout.runDir = dir + "/run";
        } else if (arg == "--log-dir" && hasValue) {
            layout.logDir = argv[++i];
        } else if (arg == "--run-dir" && hasValue) {
            layout.runDir = argv[++i];
        } else {
            return Usage();
        }
    }
    try {
        std::cout << (markdown ? Config::GenerateDirectivesMarkdown() : Config::GenerateSquidConf(layout));
    } catch (const std::exception& e) {
        std::cerr << "gen-squid-conf: " << e.what() << "\n";
        return 1;
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
}
