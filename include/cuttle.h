/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The project-wide header: every .cc file includes it first.
#pragma once

#include "autoconf.h"
