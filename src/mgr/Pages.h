/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Mgr::RenderPage(): the manager pages in Squid 5.7's formats (field
/// names, order and spacing, so that scripts reading Squid's pages read
/// cuttle's), from plain figures (Mgr::Figures). Figures cuttle does not
/// have are printed as Squid prints zero (doc/differences.md lists them);
/// cuttle's own figures come under headings of their own.

#pragma once

#include "mgr/Figures.h"

#include <optional>
#include <string>
#include <string_view>

namespace Config {
struct Settings;
}

namespace Mgr {

/// The body of the page `action` (text/plain), or nullopt for an action that
/// is not a page (shutdown, reconfigure, rotate, or an unknown name).
std::optional<std::string> RenderPage(std::string_view action, const Figures& figures, const History& history,
                                      const Config::Settings& settings);

/// Whether `action`'s page lists what each worker keeps of its own (the
/// requests in progress, the clients): with several workers it is made of
/// each worker's page, framed by WorkerPart() (Squid's "atomic" actions).
bool IsPerWorkerList(std::string_view action);

/// One worker's part of such a page, as a Squid 5.7 kid writes it with
/// SMP: `by kidN {` newline, the page, `} by kidN` and an empty line.
std::string WorkerPart(unsigned worker, std::string_view page);

/// The `metrics` page: the counters and gauges in the OpenMetrics text
/// format (HELP and TYPE lines, `# EOF` at the end), names `squid_...` for
/// Squid's figures and `cuttle_...` for cuttle's own.
std::string RenderMetrics(const Figures& figures);

/// The media type of the metrics page.
constexpr const char* MetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A squid.conf line as the `config` page shows it: the password of a
/// cachemgr_passwd line and any `login=`/`password=` secret are masked
/// (XXXXXXXXXX), as Squid 5.7 masks cachemgr_passwd.
std::string MaskSecrets(const std::string& line);

} // namespace Mgr
